//! The scriptable interface against a virtual board in-process, with the
//! real PC tools: every mode of the demo's sections 3.3-3.4, run the way a
//! person would (the console's recommended command for each session), the
//! console's JSON checked against the tools' own reports; failures (refused,
//! a wrong byte, the time limit, Ctrl-C) exit non-zero and leave every
//! session idle; bad input is refused with the reference's two messages.
//! The console reaches the board only through `--connect`.

mod common;

use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use common::{console, console_cmd, loopback_params, spawn};
use console::ops;
use vboard::pc::{free_port, wait_listening, Iperf2Report, ToolRun, IPERF2_HEADER_BYTES};

const LIMIT: Duration = Duration::from_secs(300);

/// Runs `toe-console --json test <duplex> --session ...` with the PC tool
/// each session's recommended command names; returns the console's JSON
/// and each session's tool report.
fn run_test(duplex: &str, specs: &[&str]) -> (serde_json::Value, Vec<(u64, ToolRun)>) {
    run_test_with(duplex, specs, &[])
}

/// [`run_test`] with more arguments for the run (not the dry run).
fn run_test_with(duplex: &str, specs: &[&str], extra: &[&str]) -> (serde_json::Value, Vec<(u64, ToolRun)>) {
    let mut args = vec!["--json", "test", duplex];
    for s in specs {
        args.extend(["--session", s]);
    }
    let is_server = |c: &str| c.starts_with("tcpdatatest s ") || c.contains("--server");
    common::run_beside_pc_tools(&args, extra, is_server, "test complete", LIMIT)
}

/// Every byte accounted for: the console's per-session counts are the
/// sizes asked, and each PC tool moved the same bytes the other way.
fn check(json: &serde_json::Value, runs: &[(u64, ToolRun)], expected: &[(u64, u64, u64)]) {
    assert_eq!(json["ok"], true, "{json}");
    let sessions = json["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), expected.len());
    for &(s, tx, rx) in expected {
        let j = sessions.iter().find(|j| j["session"] == s).unwrap_or_else(|| panic!("session {s} in {json}"));
        assert_eq!(
            (j["tx"]["bytes"].as_u64().unwrap(), j["rx"]["bytes"].as_u64().unwrap()),
            (tx, rx),
            "session {s}: {j}"
        );
        assert_eq!(j["err_count"], 0, "{j}");
        assert!(j["elapsed_cycles"].as_u64().unwrap() > 0, "{j}");
        assert!(j["peer"]["port"].as_u64().unwrap() > 0, "the peer's port is shown: {j}");
        let (_, tool) = runs.iter().find(|(t, _)| *t == s).expect("a tool per session");
        assert!(tool.ok(), "session {s}: the PC tool failed: {:?} {}", tool.exit, tool.stderr);
        let pc_tx = tool.direction("tx").map(|d| d.0).unwrap_or(0);
        let pc_rx = tool.direction("rx").map(|d| d.0).unwrap_or(0);
        assert_eq!((pc_tx, pc_rx), (rx, tx), "session {s}: the tool's own report");
    }
    let total_tx: u64 = expected.iter().map(|e| e.1).sum();
    let total_rx: u64 = expected.iter().map(|e| e.2).sum();
    assert_eq!(
        (json["total"]["tx"]["bytes"].as_u64(), json["total"]["rx"]["bytes"].as_u64()),
        (Some(total_tx), Some(total_rx))
    );
}

#[test]
fn send_test_fpga_server_to_tcpdatatest_client() {
    let (j, runs) = run_test("half", &["0:1:1000003"]);
    check(&j, &runs, &[(0, 1_000_003, 0)]);
}

#[test]
fn receive_test_tcpdatatest_client_to_fpga_server() {
    let (j, runs) = run_test("half", &["0:2:1048573"]);
    check(&j, &runs, &[(0, 0, 1_048_573)]);
}

#[test]
fn mixed_two_sessions_send_two_receive() {
    let (j, runs) = run_test("half", &["0:1:777777", "1:1:1048576:4096", "2:2:777779", "3:2:0x100005"]);
    check(&j, &runs, &[(0, 777_777, 0), (1, 1 << 20, 0), (2, 0, 777_779), (3, 0, 0x100005)]);
}

#[test]
fn fpga_clients_against_tcpdatatest_servers() {
    let (j, runs) = run_test("half", &["0:1:300001:8192:1:100:0", "1:2:299999:8192:1:100:0"]);
    check(&j, &runs, &[(0, 300_001, 0), (1, 0, 299_999)]);
}

#[test]
fn full_duplex_four_sessions_fpga_server_with_tcp_client_txrx_single() {
    let specs: Vec<String> = (0..4).map(|s| format!("{s}:1:{}", 500_000 + 3 * s)).collect();
    let specs: Vec<&str> = specs.iter().map(String::as_str).collect();
    let (j, runs) = run_test("full", &specs);
    let exp: Vec<(u64, u64, u64)> = (0..4).map(|s| (s, 500_000 + 3 * s, 500_000 + 3 * s)).collect();
    check(&j, &runs, &exp);
}

#[test]
fn full_duplex_fpga_client_with_tool_server() {
    let (j, runs) = run_test("full", &["0:1:654321:8192:1:100:0"]);
    check(&j, &runs, &[(0, 654_321, 654_321)]);
}

/// `--plot`: an SVG with a line for each direction that moved bytes (the
/// steps' arithmetic is `console::plot`'s unit tests').
#[test]
fn a_plot_draws_each_direction_that_moved_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let full = dir.path().join("full.svg");
    let (j, runs) = run_test_with("full", &["0:1:654323"], &["--plot", full.to_str().unwrap()]);
    check(&j, &runs, &[(0, 654_323, 654_323)]);
    let half = dir.path().join("half.svg");
    let (j, runs) = run_test_with("half", &["1:1:300007"], &["--plot", half.to_str().unwrap()]);
    check(&j, &runs, &[(1, 300_007, 0)]);
    for (path, title, present, absent) in [
        (&full, "Throughput per session, full duplex", &["session 0 TX", "session 0 RX"][..], &["session 1"][..]),
        (&half, "Throughput per session, half duplex", &["session 1 TX"][..], &["session 1 RX", "session 0"][..]),
    ] {
        let svg = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"), "{svg}");
        assert!(svg.contains(title), "{title} in {}", path.display());
        assert!(svg.contains("MB/s") && svg.contains("ms of the user clock"), "axis labels in {}", path.display());
        // The texts of the picture: title, axis labels and ticks, legend.
        let texts: Vec<&str> = svg
            .split("<text")
            .skip(1)
            .filter_map(|t| t.split_once('>')?.1.split_once("</text>"))
            .map(|t| t.0.trim())
            .collect();
        for label in present {
            assert!(texts.contains(label), "{label} in {texts:?}");
        }
        for label in absent {
            assert!(!texts.iter().any(|t| t.contains(label)), "no {label} in {texts:?}");
        }
    }
    // Nothing but the two plots: no temporary file left behind.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
}

#[test]
fn dummy_data_without_verification() {
    let (j, runs) = run_test("half", &["0:1:400000:8192:0", "1:2:400001:8192:0"]);
    check(&j, &runs, &[(0, 400_000, 0), (1, 0, 400_001)]);
}

/// Verification 0 on a send session: the FPGA sends dummy data (zeros), not the pattern.
#[test]
fn a_send_session_without_verification_sends_zeros() {
    use std::io::Read;
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    let ports = loopback_params(addr, vb.design.sessions);
    let con = spawn(console_cmd(addr, &["test", "half", "--session", "0:1:100000:8192:0"]));
    assert!(wait_listening(ports[0], Duration::from_secs(30)));
    let mut peer = TcpStream::connect(("127.0.0.1", ports[0])).expect("connect to the board");
    let mut data = Vec::new();
    peer.read_to_end(&mut data).unwrap();
    // The sender closed; the test ends when the peer closes too.
    drop(peer);
    let f = con.finish(LIMIT);
    assert_eq!(f.code, Some(0), "{}", f.all());
    assert_eq!(data.len(), 100_000);
    assert!(data.iter().all(|b| *b == 0), "dummy data is zeros");
}

/// Max speed 25 % of 32,000 MB/s: the registers show 8,000 MB/s (simulated
/// time; the virtual board has no link to share).
#[test]
fn max_speed_shows_in_the_figures_from_the_registers() {
    let (j, runs) = run_test("half", &["0:1:2000000:8192:1:25"]);
    check(&j, &runs, &[(0, 2_000_000, 0)]);
    let mb_s = j["sessions"][0]["tx"]["mb_per_s"].as_f64().unwrap();
    assert!((mb_s - 8_000.0).abs() / 8_000.0 < 0.01, "{mb_s} MB/s");
}

fn client(addr: SocketAddr) -> etherbone::Client {
    etherbone::Client::connect(addr, Duration::from_secs(5)).expect("Etherbone")
}

#[test]
fn nobody_listening_is_refused_and_exits_non_zero() {
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    loopback_params(addr, vb.design.sessions);
    let f = console(addr, &["--json", "test", "half", "--session", "0:1:10000:8192:1:100:0"]);
    assert_eq!(f.code, Some(1), "{}", f.all());
    let j = f.json();
    assert_eq!(j["ok"], false);
    assert_eq!(j["sessions"][0]["error_cause"], "refused", "{j}");
    assert_eq!(j["sessions"][0]["peer"], serde_json::Value::Null, "never connected: {j}");
    assert!(f.stderr.iter().any(|l| l.contains("session 0: error: refused")), "{}", f.all());
}

/// A PC peer sends the pattern with one byte flipped: the console exits 1
/// and reports the first-error record.
#[test]
fn a_wrong_byte_is_a_verification_failure_with_its_offset() {
    use std::io::Write;
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    let ports = loopback_params(addr, vb.design.sessions);
    let (size, offset) = (200_000usize, 123_457usize);
    let con = spawn(console_cmd(addr, &["--json", "test", "half", "--session", "0:2:200000"]));
    assert!(wait_listening(ports[0], Duration::from_secs(30)));
    let mut data = vec![0u8; size];
    pattern::fill(&mut data, 0);
    data[offset] ^= 0x20;
    let mut peer = TcpStream::connect(("127.0.0.1", ports[0])).expect("connect to the board");
    peer.write_all(&data).unwrap();
    peer.shutdown(std::net::Shutdown::Write).unwrap();
    let f = con.finish(LIMIT);
    assert_eq!(f.code, Some(1), "{}", f.all());
    let j = &f.json()["sessions"][0];
    assert_eq!(j["error_cause"], "verify", "{j}");
    assert_eq!((j["err_count"].as_u64(), j["err_offset"].as_u64()), (Some(1), Some(offset as u64)), "{j}");
    assert!(f.stderr.iter().any(|l| l.contains("first wrong byte at offset 123457")), "{}", f.all());
}

/// Turns every session's watchdog off, so a session waiting for its peer
/// is still waiting when the test acts (the board may start with a short one).
fn no_watchdog(addr: SocketAddr) {
    let f = console(addr, &["params", "set", "stall_timeout=0", "--no-init"]);
    assert_eq!(f.code, Some(0), "{}", f.all());
}

fn assert_idle_and_aborted(addr: SocketAddr, sessions: &[usize]) {
    let mut bus = client(addr);
    for &s in sessions {
        let r = ops::result(&mut bus, s).unwrap();
        assert!(!r.busy && r.error, "session {s}: {r:?}");
        assert_eq!(r.cause_name(), "aborted", "session {s}");
    }
}

#[test]
fn the_time_limit_aborts_every_session_and_exits_non_zero() {
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    loopback_params(addr, vb.design.sessions);
    no_watchdog(addr);
    let f = console(addr, &["test", "half", "--session", "0:2:1000", "--session", "1:1:1000", "--timeout", "2"]);
    assert_eq!(f.code, Some(1), "{}", f.all());
    assert!(f.stdout.iter().any(|l| l.contains("time limit of 2 s reached: aborting every session")), "{}", f.all());
    assert_idle_and_aborted(addr, &[0, 1]);
}

#[test]
fn ctrl_c_aborts_every_session_cleanly() {
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    let ports = loopback_params(addr, vb.design.sessions);
    no_watchdog(addr);
    let con = spawn(console_cmd(addr, &["test", "full", "--session", "0:1:1000", "--session", "2:1:1000"]));
    assert!(wait_listening(ports[2], Duration::from_secs(30)));
    // SAFETY: a signal to the child this test started.
    assert_eq!(unsafe { libc::kill(con.child.id() as i32, libc::SIGINT) }, 0);
    let f = con.finish(Duration::from_secs(30));
    assert_eq!(f.code, Some(1), "{}", f.all());
    assert!(f.stdout.iter().any(|l| l.contains("aborted by the user: aborting every session")), "{}", f.all());
    assert_idle_and_aborted(addr, &[0, 2]);
}

#[test]
fn bad_input_gets_the_references_two_messages_and_nothing_is_written() {
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    let before = console(addr, &["--json", "params", "show"]).json();
    let cases: &[(&[&str], &str)] = &[
        (&["test", "half", "--session", "0:3:1000"], "OUT-OF-RANGE INPUT: Test mode \"3\""),
        (&["test", "full", "--session", "0:2:1000"], "OUT-OF-RANGE INPUT: Test mode \"2\""),
        (
            &["test", "half", "--session", "0:1:0"],
            "OUT-OF-RANGE INPUT: Transfer size \"0\": valid range is 0x1-0xffffffffffff",
        ),
        (&["test", "half", "--session", "0:1:0x1000000000000"], "OUT-OF-RANGE INPUT: Transfer size"),
        (&["test", "half", "--session", "0:1:1k"], "INVALID INPUT: Transfer size \"1k\""),
        (
            &["test", "half", "--session", "0:1:1000:8192:1:101"],
            "OUT-OF-RANGE INPUT: Max speed (%) \"101\": valid range is 1-100",
        ),
        (&["test", "half", "--session", "4:1:1000"], "OUT-OF-RANGE INPUT: Session \"4\""),
        (&["test", "half", "--session", "0:1"], "INVALID INPUT: session \"0:1\""),
        (&["params", "set", "window_update_gap=0x400"], "OUT-OF-RANGE INPUT: Window update gap"),
        (&["params", "set", "fpga_mac=0x0102030405"], "OUT-OF-RANGE INPUT: FPGA MAC address"),
        (&["params", "set", "fpga_mac=000102030405"], "INVALID INPUT: FPGA MAC address"),
        (&["params", "set", "target_ip=10.0.0.256"], "OUT-OF-RANGE INPUT: Target IP address"),
        (&["params", "set", "target_ip=10.0.0"], "INVALID INPUT: Target IP address"),
        (&["params", "set", "mode=3"], "OUT-OF-RANGE INPUT: Mode \"3\""),
        (&["params", "set", "fpga_port0=70000"], "OUT-OF-RANGE INPUT: FPGA port of session 0"),
        // Port 0 is no port (the board would listen on a random one).
        (
            &["params", "set", "fpga_port0=0"],
            "OUT-OF-RANGE INPUT: FPGA port of session 0 \"0\": valid range is 1-65535",
        ),
        (
            &["params", "set", "window_update_gap=5", "target_port2=0"],
            "OUT-OF-RANGE INPUT: Target port of session 2 \"0\": valid range is 1-65535",
        ),
        (
            &["params", "set", "stall_timeout=65536"],
            "OUT-OF-RANGE INPUT: Stall timeout (ms) \"65536\": valid range is 0-65535",
        ),
        // Ports stay distinct per session; the first assignment is not written either.
        (&["params", "set", "window_update_gap=5", "fpga_port1=60000"], "distinct from the other sessions' ports"),
        (&["params", "set", "speed=1"], "INVALID INPUT: parameter \"speed\""),
        (&["test", "half", "--session", "0:1:1000", "--plot", "t.png"], "--plot t.png: the file name must end in .svg"),
        (
            &["test", "half", "--session", "0:1:1000", "--plot", "/nonexistent-folder/t.svg"],
            "the folder /nonexistent-folder does not exist",
        ),
    ];
    for (args, message) in cases {
        let f = console(addr, args);
        assert_eq!(f.code, Some(2), "{args:?}: {}", f.all());
        assert!(f.stderr.iter().any(|l| l.contains(message)), "{args:?}: expected {message:?} in {}", f.all());
    }
    assert_eq!(
        console(addr, &["--json", "params", "show"]).json(),
        before,
        "an invalid input leaves every parameter unchanged"
    );
    let mut bus = client(addr);
    for s in 0..vb.design.sessions {
        assert!(!ops::busy(&mut bus, s).unwrap(), "nothing started");
    }
}

#[test]
fn params_set_writes_every_parameter_and_initialises_the_toe() {
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    common::set_known_parameters(addr);
    let f = console(addr, &["params", "show"]);
    assert_eq!(f.code, Some(0), "{}", f.all());
    let text = f.stdout.join("\n");
    for line in common::KNOWN_PARAMETER_LINES {
        assert!(text.contains(line), "{line:?} in\n{text}");
    }
    assert!(!text.contains("Target MAC"), "the target MAC shows in fixed-MAC mode only");
    let f = console(
        addr,
        &[
            "params",
            "set",
            "mode=2",
            "last_packet_mode=1",
            "window_update_gap=0x3FF",
            "fpga_mac=0x0A0B0C0D0E0F",
            "fpga_ip=10.1.2.3",
            "target_mac=0x112233445566",
            "target_ip=10.1.2.4",
            "fpga_port0=5000",
            "target_port3=6003",
            "stall_timeout=250",
        ],
    );
    assert_eq!(f.code, Some(0), "{}", f.all());
    let text = f.stdout.join("\n");
    assert!(text.contains("Target MAC address: 0x112233445566"), "{text}");
    assert!(text.ends_with("IP initialization complete"), "{text}");
    let j = console(addr, &["--json", "params", "show"]).json();
    assert_eq!(j["mode"], 2);
    assert_eq!(j["last_packet_mode"], 1);
    assert_eq!(j["window_update_gap"], 1023);
    assert_eq!(j["fpga_mac"], "0x0a0b0c0d0e0f");
    assert_eq!(j["fpga_ip"], "10.1.2.3");
    assert_eq!(j["target_mac"], "0x112233445566");
    assert_eq!(j["target_ip"], "10.1.2.4");
    assert_eq!(j["fpga_ports"], serde_json::json!([5000, 60001, 60002, 60003]));
    assert_eq!(j["target_ports"], serde_json::json!([61000, 61001, 61002, 6003]));
    assert_eq!(j["stall_timeout"], 250);
    // Every session's watchdog, not only the one `params show` reads.
    let regs = console(addr, &["regs"]);
    for s in 0..4 {
        let line = regs.stdout.iter().find(|l| l.contains(&format!("session{s}.stall_timeout"))).unwrap();
        assert!(line.ends_with("0x000000fa"), "session {s}: {line}");
    }
}

#[test]
fn regs_lists_every_register_by_name_with_its_value() {
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    common::set_known_parameters(addr);
    let f = console(addr, &["regs"]);
    assert_eq!(f.code, Some(0), "{}", f.all());
    assert_eq!(f.stdout.len(), console::regs::ALL.len());
    assert!(f.stdout[0].starts_with("0x0000  info.id") && f.stdout[0].ends_with("0x544f4555"), "{}", f.stdout[0]);
    assert!(f.stdout.iter().any(|l| l.contains("session3.peer_window_scale")));
    assert!(f.stdout.iter().any(|l| l.contains("toe.fpga_ip") && l.ends_with("0xc0a8c82a")));
    assert!(f.stdout.iter().any(|l| l.contains("session0.ctrl") && l.ends_with("(write-only)")));
    let j = console(addr, &["--json", "regs"]).json();
    assert_eq!(j["registers"].as_array().unwrap().len(), console::regs::ALL.len());
}

/// The virtual board holds the licensed-core design: no `net` block, and
/// `net` says so instead of printing numbers (the open engine's counters
/// are read from a verilated open top in `gen/tests/open_core.rs`).
#[test]
fn net_on_a_design_without_the_open_engine_says_so() {
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    let f = console(addr, &["net"]);
    assert_eq!(f.code, Some(1), "{}", f.all());
    assert!(f.all().contains("no open engine") && f.all().contains("toe.core = \"open\""), "{}", f.all());
    assert!(f.stdout.is_empty(), "nothing printed as if read: {}", f.all());
}

#[test]
fn a_design_that_is_not_the_expected_one_is_refused_before_anything_else() {
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    let f = console(addr, &["--data-width", "512", "params", "show"]);
    assert_eq!(f.code, Some(1), "{}", f.all());
    assert!(
        f.stderr.iter().any(|l| l.contains("info.data_width reads 1024 bits, the console expects 512 bits")),
        "{}",
        f.all()
    );
    assert!(f.stdout.is_empty(), "nothing else ran: {}", f.all());
    let f = console(addr, &["--sessions", "2", "regs"]);
    assert_eq!(f.code, Some(1), "{}", f.all());
    assert!(f.stderr.iter().any(|l| l.contains("info.sessions reads 4, the console expects 2")), "{}", f.all());
    let f = console(addr, &["--clock-khz", "200000", "regs"]);
    assert!(
        f.stderr.iter().any(|l| l.contains("info.user_clock_khz reads 250000 kHz, the console expects 200000 kHz")),
        "{}",
        f.all()
    );
}

#[test]
fn no_board_listening_is_a_clear_error() {
    let port = free_port();
    let f = spawn(console_cmd(([127, 0, 0, 1], port).into(), &["--bus-timeout", "2", "regs"]))
        .finish(Duration::from_secs(30));
    assert_eq!(f.code, Some(1), "{}", f.all());
    assert!(f.stderr.iter().any(|l| l.contains(&format!("Etherbone 127.0.0.1:{port}"))), "{}", f.all());
}

/// `--litex-server` turns the error-register read off: against LiteX's own
/// server an AXI error then reads all ones, as a plain LiteX client sees it;
/// with the check (the default) it is an error.
#[test]
fn the_litex_server_target_reads_without_the_error_check() {
    use console::backend::{open, Target};
    use etherbone::RegisterBus;
    let vb = common::board(false);
    let addr = vb.register_addrs()[0].to_string();
    // Inside the 11-bit bus, above every block of the map.
    let undecoded = console::backend::map_extent() as u32 + 0x40;
    let t = |error_checks| Target::Etherbone { addr: addr.clone(), error_checks };
    let mut plain = open(&t(false), Duration::from_secs(5)).unwrap();
    assert_eq!(plain.read32(undecoded).unwrap(), etherbone::FAILED_READ_VALUE);
    let mut checked = open(&t(true), Duration::from_secs(5)).unwrap();
    assert!(checked.read32(undecoded).unwrap_err().is_response());
    let f = console(vb.register_addrs()[0], &["--litex-server", "regs"]);
    assert_eq!(f.code, Some(0), "{}", f.all());
}

/// The registers a new test would write first, for each session: equal
/// before and after means nothing was written there (the values differ
/// from what the refused test asked).
fn session_setup(bus: &mut etherbone::Client, s: usize) -> (u32, u32, u64, u64, bool) {
    let r = console::regs::session(s).unwrap();
    (
        ops::read(bus, r.test_config()).unwrap(),
        ops::read(bus, r.speed()).unwrap(),
        ops::read_wide(bus, r.transfer_size()).unwrap(),
        ops::read_wide(bus, r.packet_size()).unwrap(),
        ops::busy(bus, s).unwrap(),
    )
}

/// Item 2 of issue 25: a session still running a test (here one started
/// straight over the bus, as a console killed mid-test leaves it) is not
/// started again: the console names it and the command that ends it, exits
/// 1 and writes nothing, to that session or any other of the test; `abort`
/// then ends the old test and a new one is accepted.
#[test]
fn a_session_still_busy_is_refused_and_nothing_is_written() {
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    let ports = loopback_params(addr, vb.design.sessions);
    no_watchdog(addr);
    let mut bus = client(addr);
    // The old test: session 0 receives, passive, and waits for its peer.
    let mut old = ops::SessionTest::new(ops::Mode::Receive, 123_456, false);
    old.packet_size = 4096;
    ops::program(&mut bus, 0, &old).unwrap();
    ops::start(&mut bus, 0).unwrap();
    assert!(wait_listening(ports[0], Duration::from_secs(30)), "the old test listens");
    let before: Vec<_> = (0..2).map(|s| session_setup(&mut bus, s)).collect();
    assert!(before[0].4 && !before[1].4, "session 0 busy, session 1 idle: {before:?}");

    // (A bounded test, should it start all the same.)
    let f = console(
        addr,
        &["test", "half", "--session", "1:1:7777:2048:1:30", "--session", "0:1:5000:1024:0:50", "--timeout", "5"],
    );
    assert_eq!(f.code, Some(1), "{}", f.all());
    let expected = format!(
        "toe-console: error: session 0 is still running a test (status.busy = 1): end it with \
         `toe-console --connect {addr} abort --session 0` or wait for it to end; nothing was written"
    );
    assert!(f.stderr.contains(&expected), "expected {expected:?} in {}", f.all());
    let after: Vec<_> = (0..2).map(|s| session_setup(&mut bus, s)).collect();
    assert_eq!(after, before, "nothing written to either session");

    // The command the refusal names ends the old test.
    let f = console(addr, &["abort", "--session", "0"]);
    assert_eq!(f.code, Some(0), "{}", f.all());
    assert_eq!(f.stdout, ["session 0: aborted, now idle"], "{}", f.all());
    assert_idle_and_aborted(addr, &[0]);
    let f = console(addr, &["abort"]);
    assert_eq!(f.stdout, ["no session is running a test: nothing to abort"], "{}", f.all());
    // Now the session starts (and, with nobody to connect, hits the limit).
    let f = console(addr, &["test", "half", "--session", "0:2:1000", "--timeout", "1"]);
    assert!(f.stdout.iter().any(|l| l.contains("time limit of 1 s reached")), "{}", f.all());
    assert_idle_and_aborted(addr, &[0]);
}

/// Item 2 of issue 25: a console killed while a test runs (SIGTERM, SIGHUP:
/// the terminal closed) aborts the sessions it started on its way out and
/// exits 1, naming the signal.
#[test]
fn sigterm_and_sighup_abort_the_running_test_on_the_way_out() {
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    let ports = loopback_params(addr, vb.design.sessions);
    no_watchdog(addr);
    for (sig, name) in [(libc::SIGTERM, "SIGTERM received"), (libc::SIGHUP, "SIGHUP received")] {
        let con = spawn(console_cmd(addr, &["test", "half", "--session", "1:2:1000", "--session", "3:1:1000"]));
        assert!(wait_listening(ports[3], Duration::from_secs(30)), "{name}: the test runs");
        // SAFETY: a signal to the child this test started.
        assert_eq!(unsafe { libc::kill(con.child.id() as i32, sig) }, 0);
        let f = con.finish(Duration::from_secs(30));
        assert_eq!(f.code, Some(1), "{name}: exits 1, not killed: {}", f.all());
        assert!(f.stdout.iter().any(|l| l.contains(name)), "{}", f.all());
        assert!(f.stderr.iter().any(|l| l.starts_with("toe-console: error: test failed: ")), "{}", f.all());
        assert_idle_and_aborted(addr, &[1, 3]);
    }
}

/// Item 7 of issue 25: no command panics when its standard output is a
/// pipe nobody reads; the output commands end quietly with status 0; a
/// test whose output closes starts nothing (or aborts what it started)
/// and says so on stderr with status 1.
#[test]
fn a_closed_standard_output_ends_the_console_quietly() {
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    let run = |args: &[&str]| {
        common::run_with(console_cmd(addr, args), b"", Some(common::closed_pipe()), Duration::from_secs(60))
    };
    for args in [
        &["regs"][..],
        &["--json", "regs"],
        &["params", "show"],
        &["test", "half", "--session", "0:1:1000", "--dry-run"],
        &["abort"],
        &["menu"],
        &["--help"],
    ] {
        let r = run(args);
        assert!(!r.stderr.contains("panicked"), "{args:?}: {}", r.stderr);
        assert_eq!((r.code, r.stderr.as_str()), (Some(0), ""), "{args:?}: ends quietly");
    }
    let r = run(&["test", "half", "--session", "0:2:1000"]);
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(r.stderr.contains("standard output closed"), "{}", r.stderr);
    let mut bus = client(addr);
    assert!(!ops::busy(&mut bus, 0).unwrap(), "nothing left running");
}

/// Item 10 of issue 25: a bad value of a global option is a bad command
/// line: status 2 and one line naming the option and its range, before
/// any connection is tried.
#[test]
fn bad_option_values_are_a_bad_command_line() {
    // Nobody listens there: a value that got through would fail with 1.
    let nobody = format!("127.0.0.1:{}", free_port());
    let cases: &[(&[&str], &str)] = &[
        (&["--connect", &nobody, "--bus-timeout", "0", "regs"], "'--bus-timeout <S>': 0 is not in 1..=3600"),
        (&["--connect", "127.0.0.1", "regs"], "'--connect <HOST:PORT>': no port"),
        (&["--connect", "127.0.0.1:99999", "regs"], "port \"99999\" is not in 1..=65535"),
        (&["--connect", "127.0.0.1:0", "regs"], "port 0 is not in 1..=65535"),
        (&["--connect", ":1234", "regs"], "no host"),
        (
            &["--connect", &nobody, "test", "half", "--session", "0:1:1", "--timeout", "86401"],
            "86401 is not in 0..=86400",
        ),
        (&["--connect", &nobody, "test", "half", "--session", "0:1:1", "--interval", "0"], "'--interval <S>'"),
    ];
    for (args, message) in cases {
        let f = spawn({
            let mut c = std::process::Command::new(common::CONSOLE);
            c.args(*args);
            c
        })
        .finish(Duration::from_secs(30));
        assert_eq!(f.code, Some(2), "{args:?}: {}", f.all());
        let errors: Vec<&String> = f.stderr.iter().filter(|l| l.starts_with("error:")).collect();
        assert_eq!(errors.len(), 1, "{args:?}: one line: {}", f.all());
        assert!(errors[0].contains(message), "{args:?}: expected {message:?} in {}", f.all());
    }
}

/// Item 10 of issue 25: `--timeout 0` is no limit, as the PC tools' 0: the
/// test waits for its peer (before, it was aborted at once) until Ctrl-C.
#[test]
fn timeout_0_is_no_limit() {
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    let ports = loopback_params(addr, vb.design.sessions);
    no_watchdog(addr);
    let mut con = spawn(console_cmd(addr, &["test", "half", "--session", "0:2:1000", "--timeout", "0"]));
    assert!(wait_listening(ports[0], Duration::from_secs(30)));
    // Two progress lines (1 s apart): still running, the session still waiting.
    let start = std::time::Instant::now();
    let mut bus = client(addr);
    while start.elapsed() < Duration::from_secs(2) {
        assert!(con.child.try_wait().unwrap().is_none(), "the console ended with --timeout 0");
        assert!(ops::busy(&mut bus, 0).unwrap(), "the session was aborted with --timeout 0");
        std::thread::sleep(Duration::from_millis(100));
    }
    // SAFETY: a signal to the child this test started.
    assert_eq!(unsafe { libc::kill(con.child.id() as i32, libc::SIGINT) }, 0);
    let f = con.finish(Duration::from_secs(30));
    assert_eq!(f.code, Some(1), "{}", f.all());
    assert!(f.stdout.iter().any(|l| l.contains("aborted by the user: aborting every session")), "{}", f.all());
    assert!(!f.all().contains("time limit"), "{}", f.all());
}

/// Item 11 of issue 25: data beyond the transfer size is reported as such:
/// where the surplus starts and the word received there, not an
/// "expected" word the peer happened to send (the pattern goes on).
#[test]
fn data_beyond_the_size_is_reported_as_surplus() {
    use std::io::Write;
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    let ports = loopback_params(addr, vb.design.sessions);
    let (size, extra) = (100_000usize, 1_000usize);
    let con = spawn(console_cmd(addr, &["--json", "test", "half", "--session", &format!("0:2:{size}")]));
    assert!(wait_listening(ports[0], Duration::from_secs(30)));
    let mut data = vec![0u8; size + extra];
    pattern::fill(&mut data, 0);
    let mut peer = TcpStream::connect(("127.0.0.1", ports[0])).expect("connect to the board");
    peer.write_all(&data).unwrap();
    peer.shutdown(std::net::Shutdown::Write).unwrap();
    let f = con.finish(LIMIT);
    assert_eq!(f.code, Some(1), "{}", f.all());
    let j = &f.json()["sessions"][0];
    assert_eq!(j["error_cause"], "beyond_size", "{j}");
    assert_eq!(j["err_offset"].as_u64(), Some(size as u64), "{j}");
    let word = u32::from_le_bytes(data[size..size + 4].try_into().unwrap());
    let line = f.stderr.iter().find(|l| l.starts_with("toe-console: error:")).expect("the error line");
    assert!(
        line.contains(&format!(
            "error: beyond_size (the peer sent more than the transfer size of {size} bytes: \
             the surplus starts at offset {size}, received word there {word:#010x};"
        )),
        "{line}"
    );
    assert!(!line.contains("expected"), "nothing was expected there: {line}");
}

/// `test half --duration`: the console prints iperf 2's commands for an
/// open-ended test, and run as printed (with `-y C` for a report) they
/// carry it: session 0 sends to `iperf -s` for the duration, session 1
/// takes what `iperf -c -t 1` sends until it closes. Both end `done`; the
/// console's byte counts equal iperf's own (iperf's server leaves the
/// stream's first word, which it reads as its header, out of its count).
/// A full-duplex `--duration` is refused with the connection mode iperf
/// needs, exit status 2.
#[test]
fn an_open_ended_test_runs_with_the_iperf_commands_it_prints() {
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    let fpga_ports = loopback_params(addr, vb.design.sessions);
    let args =
        ["--json", "test", "half", "--session", "0:1:1:8192:1:100:0", "--session", "1:2:1", "--duration", "0.0008"];
    let commands: Vec<String> = common::recommended(addr, &args).into_iter().map(|(_, c)| c).collect();
    assert!(commands[0].starts_with("iperf -s -B 127.0.0.1 -p "), "{commands:?}");
    assert_eq!(commands[1], format!("iperf -c 127.0.0.1 -p {} -t 1", fpga_ports[1]), "{commands:?}");
    let iperf = |line: &str| {
        let mut c = std::process::Command::new("iperf");
        c.args(line.split_whitespace().skip(1)).args(["-y", "C"]);
        c
    };
    let mut server = spawn(iperf(&commands[0]));
    let port: u16 = commands[0].rsplit(' ').next().unwrap().parse().unwrap();
    assert!(wait_listening(port, Duration::from_secs(10)), "iperf -s listens");
    let con = spawn(console_cmd(addr, &args));
    assert!(wait_listening(fpga_ports[1], Duration::from_secs(30)), "session 1 listens");
    let client = spawn(iperf(&commands[1])).finish(LIMIT);
    assert_eq!(client.code, Some(0), "{}", client.all());
    let f = con.finish(LIMIT);
    assert_eq!(f.code, Some(0), "{}", f.all());
    let json = f.json();
    let bytes = |s: usize, dir: &str| json["sessions"][s][dir]["bytes"].as_u64().unwrap();
    let sent_by_pc = client.stdout.iter().find_map(|l| Iperf2Report::parse(l)).expect("iperf -c report").bytes;
    assert_eq!(bytes(1, "rx"), sent_by_pc, "{json}");
    let taken_by_pc = server.wait_stdout(LIMIT, Iperf2Report::parse).expect("iperf -s report").bytes;
    server.kill();
    assert_eq!(bytes(0, "tx"), taken_by_pc + IPERF2_HEADER_BYTES, "{json}");
    assert!(bytes(0, "tx") > 0 && json["ok"] == true, "{json}");

    let refused = console(addr, &["test", "full", "--session", "0:1:1", "--duration", "1"]);
    assert_eq!(refused.code, Some(2), "{}", refused.all());
    assert!(refused.all().contains("session 0 is full duplex"), "{}", refused.all());
}

/// `stop` ends an open-ended send gracefully: the session ends `done` with
/// every byte counted, where `abort` would end it in error.
#[test]
fn stop_ends_a_running_send_done() {
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    loopback_params(addr, vb.design.sessions);
    let mut bus = client(addr);
    let mut t = ops::SessionTest::new(ops::Mode::Send, 1, true);
    t.open_ended = true;
    let (port, sink) = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        let sink = std::thread::spawn(move || {
            let (mut c, _) = l.accept().unwrap();
            std::io::copy(&mut c, &mut std::io::sink()).unwrap()
        });
        (port, sink)
    };
    ops::program(&mut bus, 0, &t).unwrap();
    let (fpga, _) = ops::read_ports(&mut bus, 0).unwrap();
    ops::ports(&mut bus, 0, fpga, port).unwrap();
    ops::start(&mut bus, 0).unwrap();
    let until = std::time::Instant::now() + Duration::from_secs(30);
    while ops::result(&mut bus, 0).unwrap().tx_bytes == 0 {
        assert!(std::time::Instant::now() < until, "the send never started");
        std::thread::sleep(Duration::from_millis(10));
    }
    let f = console(addr, &["stop", "--session", "0"]);
    assert_eq!(f.code, Some(0), "{}", f.all());
    let r = ops::result(&mut bus, 0).unwrap();
    assert!(r.done && !r.error && !r.busy, "{r:?}");
    assert!(
        f.stdout.iter().any(|l| l == &format!("session 0: stopped, done, {} bytes sent", r.tx_bytes)),
        "{}",
        f.all()
    );
    assert_eq!(sink.join().unwrap(), r.tx_bytes, "the peer got every byte counted");
}

/// Issue 51, item 16: a failed test whose `--plot` cannot be written either
/// reports both, the plot's error on its own line and then the test's
/// failure, with the test's exit status (1), for the throughput tests and
/// the latency test alike.
#[test]
fn a_failed_test_whose_plot_fails_too_reports_both() {
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    loopback_params(addr, vb.design.sessions);
    let dir = tempfile::tempdir().unwrap();
    // A folder named like the plot: `--plot` passes its checks, the write fails.
    let plot = dir.path().join("taken.svg");
    std::fs::create_dir(&plot).unwrap();
    let plot = plot.to_str().unwrap();
    for args in [
        &["test", "half", "--session", "0:1:10000:8192:1:100:0", "--plot", plot][..],
        &["test", "latency", "--session", "1:initiator:64:64:4:1:0", "--plot", plot],
    ] {
        // Nobody listens at the target's port: the open is refused.
        let f = console(addr, args);
        assert_eq!(f.code, Some(1), "{args:?}: {}", f.all());
        let errors: Vec<&String> = f.stderr.iter().filter(|l| l.starts_with("toe-console: error: ")).collect();
        assert_eq!(errors.len(), 2, "{args:?}: {}", f.all());
        assert!(errors[0].starts_with(&format!("toe-console: error: --plot {plot}: ")), "{args:?}: {}", f.all());
        assert!(errors[1].starts_with("toe-console: error: test failed: session "), "{args:?}: {}", f.all());
        assert!(errors[1].contains("error: refused"), "{args:?}: {}", f.all());
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "nothing left beside the folder");
}
