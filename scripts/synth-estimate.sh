#!/usr/bin/env bash
# Resource and logic-depth estimate without vendor tools: yosys
# `synth_xilinx -family xcup` (UltraScale+) on each block of the generated
# design and on the whole top, flattened, figures from the mapped netlist.
# -nowidelut keeps abc from building LUT7..LUT9 functions out of LUT6 and
# MUXF7/8/9 for random logic (Vivado keeps MUXFs for real multiplexers), so
# the LUT+MUXF level count is the one Vivado's logic-level report would give.
set -euo pipefail
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
cargo build -q -p gen --bin synth_report
report="${CARGO_TARGET_DIR:-$root/target}/debug/synth_report"
cd "$build"
mapfile -t files < rtl/files.f
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "synth-estimate: yosys $(yosys -V | awk '{print $2}') synth_xilinx -family xcup -nowidelut, flattened per module"
"$report" header
mapfile -t blocks < <("$report" blocks "${files[@]}")
for module in "${blocks[@]}"; do
    net="$work/net.json"
    yosys -q -p "read_verilog -sv ${files[*]}; synth_xilinx -family xcup -nowidelut -noiopad -noclkbuf -flatten -top $module; write_json $net" >"$work/log" 2>&1 \
        || { cat "$work/log"; echo "synth-estimate: yosys failed on $module"; exit 1; }
    "$report" row "$module" "$net"
done
echo "levels: LUT+MUXF levels on the deepest register-to-register path (carry cells not counted); carry: longest carry chain in cells"
