//! The project's Verilog writer (`hdl::emit`) against rust-hdl's own, cycle
//! by cycle: both forms of a block in one Verilator model
//! (`verilate::lockstep`), the same seeded random stimulus into both, every
//! output compared every cycle, at every data width. The session holds every
//! block of the session RTL; the datapath alone reaches the generator and
//! the verifier without the session's handshake in front.
//!
//! `LOCKSTEP_CYCLES` sets the cycles per model (default 100,000); `TB_SEED`
//! replays a seed. The models are built on first use into
//! `target/tmp/lockstep` (the `verilate` cache: rebuilt when a source changes).

use std::path::PathBuf;

use config::ports::Direction;
use verilate::lockstep::{self, PortSpec};
use verilate::{ModelFns, Source};

const CLOCK_KHZ: u32 = 250_000;

/// Session outputs the stimulus must move: a connection request, a beat
/// sent, bytes counted, a test running.
const SESSION_REACHED: &[&str] = &["toe_conn_req_valid", "toe_tx_tvalid", "reg_tx_bytes", "reg_busy"];

/// Session inputs held to the values that matter, three times in four: the
/// latency modes, small messages and a connection that stays up, so round
/// trips complete and their results move.
const SESSION_CHOICES: &[(&str, &[u64])] = &[
    ("reg_test_mode", &[1, 2, 3, 4, 5]),
    ("reg_request", &[1, 3, 64, 200]),
    ("reg_response", &[1, 3, 64, 200]),
    ("reg_request_count", &[1, 2, 7]),
    ("reg_outstanding", &[1, 2, 16]),
    ("reg_hist_index", &[0, 1, 2, 3, 5, 8]),
    // A connection that stays up long enough for round trips.
    ("toe_established", &[1]),
    ("toe_conn_error", &[0]),
    ("reg_abort", &[0]),
    ("toe_tx_tready", &[1]),
    ("toe_conn_req_ready", &[1]),
    ("toe_rx_tvalid", &[1]),
    ("reg_tx_percent", &[100]),
    ("reg_rx_percent", &[100]),
];

/// Datapath outputs the stimulus must move: beats sent, bytes received, an
/// error recorded.
const DATAPATH_REACHED: &[&str] = &["tx_tvalid", "tx_bytes", "rx_bytes", "rx_err_valid", "rx_err_offset"];

fn cache() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("lockstep")
}

/// Builds the lockstep model of `reference` (rust-hdl's text, top module
/// `ref_top`) against `candidate` (the emitter's modules, top `new_top`).
fn build(
    key: &str,
    reference: &str,
    ref_top: &str,
    candidate: &[hdl::emit::Module],
    new_top: &str,
    ports: &[PortSpec],
) -> &'static ModelFns {
    let mut sources = vec![Source { path: "reference.v".into(), contents: reference.to_string() }];
    for m in candidate {
        sources.push(Source { path: format!("{}.v", m.name).into(), contents: m.text.clone() });
    }
    sources.push(Source { path: "lockstep.v".into(), contents: lockstep::wrapper(ref_top, new_top, ports) });
    let waivers = lockstep::write_waivers(&cache()).expect("the lockstep waivers");
    let model = format!("ls_{}", key.replace('-', "_"));
    verilate::load_cached(&model, "lockstep", &sources, Some(&waivers), key, &cache(), false, &mut |m| {
        eprintln!("{key}: {m}")
    })
    .unwrap_or_else(|e| panic!("building the lockstep model {key}: {e}"))
}

fn specs(ports: Vec<config::ports::Port>) -> Vec<PortSpec> {
    ports
        .into_iter()
        .map(|p| PortSpec { name: p.name, input: p.direction == Direction::Input, width: p.width })
        .collect()
}

fn session_model(width: usize) -> (&'static ModelFns, Vec<PortSpec>) {
    let reference = hdl::verilog::session_verilog(width, CLOCK_KHZ, "ref_session").unwrap();
    let candidate = hdl::verilog::session_modules(width, CLOCK_KHZ, "dut").unwrap();
    let ports = specs(hdl::verilog::session_ports(width).unwrap());
    (build(&format!("session-{width}"), &reference, "ref_session", &candidate, "dut_session", &ports), ports)
}

fn datapath_model(width: usize, mutate: Option<(&str, &str)>) -> (&'static ModelFns, Vec<PortSpec>) {
    let reference = hdl::verilog::datapath_verilog(width, "ref_datapath").unwrap();
    let mut candidate = hdl::verilog::datapath_modules(width, "dut").unwrap();
    let mut key = format!("datapath-{width}");
    if let Some((from, to)) = mutate {
        let m = candidate.iter_mut().find(|m| m.text.contains(from)).unwrap_or_else(|| panic!("no `{from}` to break"));
        m.text = m.text.replacen(from, to, 1);
        key.push_str("-broken");
    }
    let ports = specs(hdl::verilog::datapath_ports(width).unwrap());
    (build(&key, &reference, "ref_datapath", &candidate, "dut_datapath", &ports), ports)
}

/// Runs the lockstep model with one clock, `clock`, and checks that the
/// stimulus moved each of `reached` (outputs that only change when the
/// block really works: a comparison of two idle blocks proves little) and
/// at least three outputs in four.
fn check(what: &str, fns: &'static ModelFns, ports: &[PortSpec], reached: &[&str]) {
    check_clocked(what, fns, ports, &["clock"], &["reset"], &[], reached, 1);
}

fn check_clocked(
    what: &str,
    fns: &'static ModelFns,
    ports: &[PortSpec],
    clocks: &[&str],
    resets: &[&str],
    choices: &[(&str, &[u64])],
    reached: &[&str],
    cycles_factor: u64,
) {
    let seed = seeded_inputs::seed::from_env(what);
    let n = lockstep::cycles() * cycles_factor;
    let moved = lockstep::run(fns, ports, clocks, resets, choices, n, seed)
        .unwrap_or_else(|m| panic!("{what}: {m} (TB_SEED={seed})"));
    let outputs = ports.iter().filter(|p| !p.input).count();
    let still: Vec<&str> =
        ports.iter().filter(|p| !p.input && !moved.contains(&p.name)).map(|p| p.name.as_str()).collect();
    eprintln!("{what}: {n} cycles, every output equal; {} of {outputs} outputs moved (not: {still:?})", moved.len());
    if n >= 10_000 {
        for r in reached {
            assert!(moved.iter().any(|m| m == r), "{what}: the stimulus never moved `{r}` (TB_SEED={seed})");
        }
        assert!(4 * moved.len() >= 3 * outputs, "{what}: the stimulus moved too few outputs (TB_SEED={seed})");
    }
}

macro_rules! at_every_width {
    ($($name:ident: $w:expr),*) => {
        $(
            mod $name {
                #[test]
                fn session_is_cycle_equivalent() {
                    let (fns, ports) = super::session_model($w);
                    super::check_clocked(
                        concat!("session at ", $w),
                        fns,
                        &ports,
                        &["clock"],
                        &["reset"],
                        super::SESSION_CHOICES,
                        super::SESSION_REACHED,
                        1,
                    );
                }

                #[test]
                fn datapath_is_cycle_equivalent() {
                    let (fns, ports) = super::datapath_model($w, None);
                    super::check(concat!("datapath at ", $w), fns, &ports, super::DATAPATH_REACHED);
                }
            }
        )*
    };
}

at_every_width!(w64: 64, w128: 128, w256: 256, w512: 512, w1024: 1024);

/// Data the register file's stimulus writes three times in four: zeros,
/// all ones (every pulse of `ctrl`), and words that every checked field of
/// `test_config` and `speed` accepts, so those registers change too. A
/// random word is refused most of the time by `outstanding`'s and
/// `prefix_length`'s ranges, and with four sessions' fields to reach, a
/// seed could leave some untouched.
const WRITE_VALUES: &[u64] =
    &[0, 0xFFFF_FFFF, 0x1040_3133, 0x0100_0001, 0x0520_2024, 0x0001_0002, 0x0064_0064, 0x0001_0032];

/// The register file of a design with `sessions` sessions: its AXI4-Lite
/// slave and its user side on two clocks that drift against each other,
/// both resets pulsed now and then.
fn register_file(sessions: usize) {
    let design = config::parse(&config::default_toml_with_sessions(sessions)).unwrap();
    let map = regmap::RegisterMap::for_design(&design);
    let reference = hdl::register_file::register_file_reference_verilog(&design, &map, "ref_regs").unwrap();
    let candidate = hdl::register_file::register_file_modules(&design, &map, "dut_regs", "dut").unwrap();
    let ports = specs(hdl::register_file::register_file_ports(&design, &map).unwrap().ports().to_vec());
    let fns = build(&format!("regs-{sessions}"), &reference, "ref_regs", &candidate, "dut_regs", &ports);
    // The mapped addresses, so that most accesses land on a register.
    let mapped: Vec<u64> =
        hdl::register_file::Layout::new(&map).unwrap().mapped.iter().map(|&a| u64::from(a)).collect();
    check_clocked(
        &format!("register file of {sessions} session(s)"),
        fns,
        &ports,
        &["s_axil_aclk", "user_clk"],
        &["!s_axil_aresetn", "user_rst"],
        &[("s_axil_awaddr", &mapped), ("s_axil_araddr", &mapped), ("s_axil_wdata", WRITE_VALUES)],
        &["s_axil_bvalid", "s_axil_rvalid", "s_axil_rdata", "s0_transfer_size", "s0_tx_percent"],
        // An access crosses two clocks (some 20 cycles), the bus handshakes
        // idle for 512 cycles at a time under some habits, and four sessions
        // have some 50 registers each: with the default cycles one seed in
        // eight left more than a quarter of the outputs still.
        3,
    );
}

#[test]
fn register_file_of_one_session_is_cycle_equivalent() {
    register_file(1);
}

#[test]
fn register_file_of_four_sessions_is_cycle_equivalent() {
    register_file(4);
}

#[test]
fn every_configured_width_is_covered() {
    assert_eq!(config::DATA_WIDTHS, [64, 128, 256, 512, 1024]);
}

/// The comparison can fail: the rate limiter's surplus (`rate - 100`) with its operands
/// swapped is caught, and the mismatch names an output.
#[test]
fn a_broken_emitter_is_caught() {
    let (fns, ports) =
        datapath_model(64, Some(("surplus_next = clamped - C_FULL;", "surplus_next = C_FULL - clamped;")));
    let seed = seeded_inputs::seed::from_env("broken datapath");
    let m = lockstep::run(fns, &ports, &["clock"], &["reset"], &[], lockstep::cycles(), seed)
        .expect_err("a limiter that adds credit per beat instead of taking it went unnoticed");
    eprintln!("caught: {m}");
    assert!(ports.iter().any(|p| !p.input && p.name == m.output), "{m}");
}
