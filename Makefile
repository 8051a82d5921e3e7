# Entry points of the TOE user-logic generator. `make help` lists them.
SHELL := /bin/bash
CARGO ?= cargo
BUILD ?= build

.PHONY: help gen verilog deps test test-rust test-pc-large lint synth-estimate bench bench-pc demo soak vboard demo-pc vivado-ooc quartus-ooc golden equiv clean yardstick

help:
	@echo "make gen            generate build/ from the default config (same as cargo run -p gen)"
	@echo "make test           install missing tools (apt-get), then lint, synthesise and run every test; prints each stage's time"
	@echo "make lint           verilator --lint-only -Wall on every generated Verilog file, and cargo fmt --check"
	@echo "make synth-estimate yosys synth_xilinx -family xcup: LUT/FF/carry/BRAM and logic depth per module, then per example (examples/*.toml); fails past SYNTH_MAX_LEVELS (5) LUT levels; a run on unchanged RTL takes its netlist from SYNTH_CACHE (off: always yosys)"
	@echo "make bench          the models' cycle rates beside a yardstick-shaped model, rust-hdl's simulator, loopback throughput, the virtual board's data rate with the PC tools (BENCH_PC_BYTES), the open engine's network node in its own cycles (net-bench: echo requests back to back, round trip), and the kernel's TCP into the engine's TCP model through each fault (tcp-bench, as root)"
	@echo "make bench-pc     tcpdatatest vs iperf3 on loopback"
	@echo "make yardstick      the generated datapath beside the hand-written yardstick (../shared/yardstick, YARDSTICK=DIR; REPS=3; RECORD=pruned): simulation speed, generator and verifier LUT/FF/levels"
	@echo "make demo           the demo's FPGA-to-FPGA scenarios on two simulated boards, next to the reference figures; plots in target/demo-plots (DEMO_PLOTS)"
	@echo "make soak           randomised two-board soak with faults, release build: ITER=<n> iterations (default 100), TB_SEED=<n> replays one"
	@echo "make vboard         run the virtual board: registers on Etherbone 127.0.0.1:1234, TOE on loopback (VBOARD_ARGS=...)"
	@echo "make demo-pc        the demo's FPGA-and-PC tests: the PC tools against the virtual board, as a table"
	@echo "make vivado-ooc     out-of-context Vivado synthesis (needs vivado on PATH)"
	@echo "make quartus-ooc    out-of-context Quartus synthesis (needs quartus_sh on PATH)"
	@echo "make golden         refresh the golden files of generated text and the example build trees (examples/golden/) after an intended change"
	@echo "make equiv          yosys proof that every generated module whose golden text changed (examples/golden/small_2s_256 against BEFORE=HEAD) has the same logic, cycle for cycle"

gen verilog:
	$(CARGO) run -q -p gen -- --out $(BUILD)

deps:
	@bash scripts/install-deps.sh

test:
	@bash scripts/test.sh

# The multi-gigabyte loopback transfers of the PC tools, from the test build
# (the tools and the pattern are optimised there: Cargo.toml's profiles).
test-pc-large:
	$(CARGO) test -p pc_tools --test large -- --ignored multi_gigabyte

lint: gen
	@bash scripts/lint.sh $(BUILD)
	$(CARGO) fmt --all -- --check

synth-estimate: gen
	@bash scripts/synth-estimate.sh $(BUILD)

# The models' cycle rates (testbench/src/bin/bench.rs), then the virtual
# board's data rate with the PC tools beside its cycle rate (demo-pc's rows,
# BENCH_PC_BYTES per session and direction), then the open engine's network
# node in its own clock cycles (tap_harness/src/bin/net-bench.rs), then the
# kernel's TCP sending into the open engine's TCP model through a TAP with
# each fault (tap_harness/src/bin/tcp-bench.rs; as root).
BENCH_PC_BYTES ?= 134217728
bench:
	$(CARGO) run --release -q -p testbench --bin bench
	$(CARGO) run --release -q -p tap_harness --bin net-bench
	$(CARGO) build --release -q -p pc_tools
	DEMO_PC_BYTES=$(BENCH_PC_BYTES) $(CARGO) run --release -q -p vboard --bin demo-pc
	$(CARGO) run --release -q -p tap_harness --bin tcp-bench

# Two verilated boards joined by the Rust TOE/link model, programmed through
# their registers; prints the console-style table (docs/two_board_sim.md).
demo: deps
	$(CARGO) run --release -q -p testbench --bin demo

# The randomised two-board soak (docs/soak.md): ITER iterations from a
# printed seed (default 100); TB_SEED=<n> alone replays that one iteration.
SOAK_ITER = $(if $(ITER),$(ITER),$(if $(TB_SEED),1,100))
soak:
	ITER=$(SOAK_ITER) $(CARGO) test --release -q -p testbench --test soak -- --nocapture

# The virtual board (docs/virtual_board.md); extra arguments in VBOARD_ARGS,
# e.g. make vboard VBOARD_ARGS="--pair" or VBOARD_ARGS="--config my.toml".
vboard: deps
	$(CARGO) run --release -q -p vboard -- $(VBOARD_ARGS)

# Section 3 of the demo: the PC tools against the virtual board.
demo-pc: deps
	$(CARGO) build --release -q -p pc_tools
	$(CARGO) run --release -q -p vboard --bin demo-pc

bench-pc:
	@bash pc_tools/bench-pc.sh

# The loopback wrapper (gen's `yardstick` binary) through the yardstick's
# compare.sh (issue 14).
yardstick:
	@bash scripts/yardstick.sh

vivado-ooc: gen
	@bash flows/scripts/run-tool.sh vivado $(BUILD)

quartus-ooc: gen
	@bash flows/scripts/run-tool.sh quartus $(BUILD)

golden:
	UPDATE_GOLDEN=1 $(CARGO) test --workspace golden

# After `make golden`: each module whose golden text changed, proven equal
# to its old self (scripts/equiv.sh: BEFORE, AFTER, EXAMPLE, BEFORE_DIR, AFTER_DIR).
equiv:
	@bash scripts/equiv.sh

clean:
	rm -rf $(BUILD)
	$(CARGO) clean
