//! The interactive menu through a pseudo-terminal, as a person uses it,
//! against a virtual board in-process: option 0 shows the reset values;
//! option 1 changes every parameter, an invalid entry leaves its parameter
//! unchanged, and the TOE initialises; option 2 runs a send test against
//! `tcpdatatest` with per-second progress, the closed and complete lines
//! and totals that match the bytes; each of the two error messages cancels
//! the operation; a key and Ctrl-C abort a running test cleanly.

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use common::{console, pc_tool, tools};
use console::ops;
use rexpect::session::{spawn_command, PtySession};
use vboard::pc::{free_port, ToolProcess};

fn menu(addr: SocketAddr) -> PtySession {
    let mut cmd = common::console_command();
    cmd.arg("--connect").arg(addr.to_string());
    let mut p = spawn_command(cmd, Some(60_000)).expect("the console starts in a terminal");
    p.exp_string("Select: ").expect("the menu");
    p
}

/// Sends `answer` after the prompt `prompt`.
fn answer(p: &mut PtySession, prompt: &str, answer: &str) {
    p.exp_string(prompt).unwrap_or_else(|e| panic!("prompt {prompt:?}: {e}"));
    p.send_line(answer).unwrap();
}

#[test]
fn options_0_and_1_show_and_change_the_parameters() {
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    common::set_known_parameters(addr);
    let mut p = menu(addr);
    p.send_line("0").unwrap();
    for line in common::KNOWN_PARAMETER_LINES {
        p.exp_string(line).unwrap_or_else(|e| panic!("{line:?}: {e}"));
    }
    p.send_line("1").unwrap();
    answer(&mut p, "Press 'x' to keep these parameters", "c");
    answer(&mut p, "Mode (0 Client, 1 Server, 2 Fixed-MAC) [0]: ", "2");
    answer(&mut p, "Last packet mode (0 DUP, 1 PSH, 2 normal)", "1");
    answer(&mut p, "Window update gap (0x000-0x3FF, x 1 KB)", "0x400");
    p.exp_string("OUT-OF-RANGE INPUT: Window update gap \"0x400\": valid range is 0-1023; window_update_gap stays 16")
        .unwrap();
    answer(&mut p, "FPGA MAC address (0x + 12 hex digits)", "0x0A0B0C0D0E0F");
    answer(&mut p, "FPGA IP address", "10.0.0.1");
    // Fixed-MAC mode: the target MAC is asked too.
    answer(&mut p, "Target MAC address (0x + 12 hex digits)", "0x112233445566");
    answer(&mut p, "Target IP address", "10.0.0");
    p.exp_string("INVALID INPUT: Target IP address \"10.0.0\"").unwrap();
    p.exp_string("target_ip stays 192.168.200.25").unwrap();
    answer(&mut p, "FPGA port of session 0 (1-65535) [60000]: ", "5000");
    answer(&mut p, "Target port of session 0 (1-65535) [61000]: ", "6000");
    answer(&mut p, "FPGA port of session 1 (1-65535) [60001]: ", "5000");
    p.exp_string("distinct from the other sessions' ports; fpga_port1 stays 60001").unwrap();
    answer(&mut p, "Target port of session 1 (1-65535)", "6001");
    // Port 0 is no port: refused, the parameter stays.
    answer(&mut p, "FPGA port of session 2 (1-65535)", "0");
    p.exp_string("OUT-OF-RANGE INPUT: FPGA port of session 2 \"0\": valid range is 1-65535; fpga_port2 stays 60002")
        .unwrap();
    answer(&mut p, "Target port of session 2 (1-65535)", "6002");
    answer(&mut p, "FPGA port of session 3 (1-65535)", "5003");
    answer(&mut p, "Target port of session 3 (1-65535)", "6003");
    p.exp_string("Target MAC address: 0x112233445566").unwrap();
    p.exp_string("IP initialization complete").unwrap();
    answer(&mut p, "Select: ", "4");
    p.exp_string("There is no ping test").unwrap();
    answer(&mut p, "Select: ", "q");
    p.exp_eof().unwrap();
    let j = console(addr, &["--json", "params", "show"]).json();
    assert_eq!(
        (j["mode"].as_u64(), j["last_packet_mode"].as_u64(), j["window_update_gap"].as_u64()),
        (Some(2), Some(1), Some(16))
    );
    assert_eq!((j["fpga_mac"].as_str(), j["fpga_ip"].as_str()), (Some("0x0a0b0c0d0e0f"), Some("10.0.0.1")));
    assert_eq!((j["target_mac"].as_str(), j["target_ip"].as_str()), (Some("0x112233445566"), Some("192.168.200.25")));
    assert_eq!(j["fpga_ports"], serde_json::json!([5000, 60001, 60002, 5003]));
    assert_eq!(j["target_ports"], serde_json::json!([6000, 6001, 6002, 6003]));
}

/// Answers session 0's questions of a half-duplex test and disables the others.
fn half_duplex_session_0(p: &mut PtySession, mode: &str, answers: &[&str]) {
    p.send_line("2").unwrap();
    answer(p, "Session 0: test mode (0 disable, 1 send, 2 receive): ", mode);
    for (prompt, a) in
        ["transfer size", "packet size", "data verification", "max speed", "mode (0 client"].iter().zip(answers)
    {
        let prompt = if mode == "2" && *prompt == "packet size" {
            continue;
        } else {
            prompt
        };
        answer(p, &format!("Session 0: {prompt}"), a);
    }
    for s in 1..4 {
        answer(p, &format!("Session {s}: test mode"), "0");
    }
}

#[test]
fn option_2_runs_a_send_test_with_progress_closes_and_totals() {
    // Build the PC tools first: a first build takes seconds, and the
    // console counts its per-second lines from the start of the test.
    let tools = tools();
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    let (fpga, target) = (free_port(), free_port());
    let f = console(
        addr,
        &["params", "set", "fpga_ip=127.0.0.1", &format!("fpga_port0={fpga}"), &format!("target_port0={target}")],
    );
    assert_eq!(f.code, Some(0), "{}", f.all());
    let mut p = menu(addr);
    // 1 % of 32,000 MB/s: 3,000,000 bytes take 9.4 ms of simulated time, a few seconds here.
    half_duplex_session_0(&mut p, "1", &["3000000", "8192", "1", "1", "1"]);
    let command = format!("tcpdatatest c r 127.0.0.1 {fpga} 3000000 1 1");
    p.exp_string(&format!("session 0: {command}")).unwrap();
    p.exp_string(
        "Session 0: send, 3000000 bytes, packet 8192 bytes, verification on, max speed 1 %, server (passive open)",
    )
    .unwrap();
    p.exp_string("Wait connection").unwrap();
    let tool = ToolProcess::spawn(pc_tool(&tools, &command), false).expect("the PC tool");
    p.exp_regex(r"Session 0: connected, peer port [1-9]\d*, MSS [1-9]\d*, window scale \d+").unwrap();
    // Per-second lines count from the start of the test (the wait for the
    // connection included): after `connected`, the bytes move.
    p.exp_regex(r"\n *\d+ s  \| S0 TX [1-9]\d* RX 0").unwrap();
    p.exp_string("Session 0: closed").unwrap();
    p.exp_string("Half-duplex test complete").unwrap();
    p.exp_string("Session 0: TX 3000000 bytes, 320 MB/s  ok").unwrap();
    p.exp_string("Total: TX 3000000 bytes, 320 MB/s; RX 0 bytes, 0 MB/s").unwrap();
    let run = tool.finish(Duration::from_secs(120));
    assert!(run.ok(), "{}", run.stderr);
    assert_eq!(run.direction("rx").map(|d| d.0), Some(3_000_000), "the tool's own report");

    // The two error messages, each cancelling the operation.
    answer(&mut p, "Select: ", "2");
    answer(&mut p, "Session 0: test mode (0 disable, 1 send, 2 receive): ", "3");
    p.exp_string("OUT-OF-RANGE INPUT").unwrap();
    p.exp_string("Operation cancelled").unwrap();
    answer(&mut p, "Select: ", "3");
    answer(&mut p, "Session 0: test mode (0 disable, 1 full duplex): ", "1");
    answer(&mut p, "Session 0: transfer size", "12x");
    p.exp_string("INVALID INPUT").unwrap();
    p.exp_string("Operation cancelled").unwrap();
    p.exp_string("Select: ").unwrap();
    p.send_line("q").unwrap();
    p.exp_eof().unwrap();
}

/// Option 5, the latency test: the questions per session, the
/// recommended `tcp_latency` command, progress, and the results with a
/// histogram; the PC echo answers every request. Then the two error
/// messages, each cancelling the operation.
#[test]
fn option_5_runs_a_latency_test_against_tcp_latency() {
    let tools = tools();
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    let fpga = free_port();
    let f = console(addr, &["params", "set", "fpga_ip=127.0.0.1", &format!("fpga_port0={fpga}")]);
    assert_eq!(f.code, Some(0), "{}", f.all());
    let mut p = menu(addr);
    p.send_line("5").unwrap();
    answer(&mut p, "Session 0: role (0 disable, 1 initiator, 2 echo): ", "1");
    answer(&mut p, "Session 0: request size in bytes (1-65535): ", "64");
    answer(&mut p, "Session 0: response size in bytes (1-65535): ", "32");
    answer(&mut p, "Session 0: requests to send (1-0xFFFF_FFFF): ", "50");
    answer(&mut p, "Session 0: requests in flight at most (1-16): ", "2");
    answer(&mut p, "Session 0: mode (0 client: active open, 1 server: passive open): ", "1");
    for s in 1..4 {
        answer(&mut p, &format!("Session {s}: role"), "0");
    }
    let command = format!("tcp_latency c e 127.0.0.1 {fpga} 64 32 50 --outstanding 2");
    p.exp_string(&format!("session 0: {command}")).unwrap();
    p.exp_string("Session 0: initiator, 50 requests of 64 bytes, responses of 32 bytes, up to 2 in flight, server")
        .unwrap();
    p.exp_string("Wait connection").unwrap();
    let tool = ToolProcess::spawn(pc_tool(&tools, &command), false).expect("the PC tool");
    p.exp_string("Latency test complete").unwrap();
    p.exp_string("Session 0 (initiator, 64 -> 32 bytes, up to 2 in flight): 50 round trips, 0 verification errors  ok")
        .unwrap();
    p.exp_regex(r"\n  ns +\d+\.\d").unwrap();
    p.exp_regex(r"\n  cycles +\d+\.\d").unwrap();
    p.exp_string("round trips (16 buckets per power of two").unwrap();
    let run = tool.finish(Duration::from_secs(120));
    assert!(run.ok(), "{}", run.stderr);
    assert_eq!(run.json["count"], 50, "the tool's own report");

    answer(&mut p, "Select: ", "5");
    answer(&mut p, "Session 0: role (0 disable, 1 initiator, 2 echo): ", "2");
    answer(&mut p, "Session 0: request size", "65536");
    p.exp_string("OUT-OF-RANGE INPUT").unwrap();
    p.exp_string("Operation cancelled").unwrap();
    answer(&mut p, "Select: ", "5");
    answer(&mut p, "Session 0: role (0 disable, 1 initiator, 2 echo): ", "echo");
    p.exp_string("INVALID INPUT").unwrap();
    p.exp_string("Operation cancelled").unwrap();
    p.exp_string("Select: ").unwrap();
    p.send_line("q").unwrap();
    p.exp_eof().unwrap();
}

/// A key, then Ctrl-C, abort a test that waits for its connection; every
/// session ends idle with cause `aborted` and the menu goes on.
#[test]
fn a_key_or_ctrl_c_aborts_a_running_test() {
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    // No watchdog: the test must still be waiting when the key comes.
    let f = console(addr, &["params", "set", &format!("fpga_port0={}", free_port()), "stall_timeout=0"]);
    assert_eq!(f.code, Some(0), "{}", f.all());
    let mut p = menu(addr);
    let mut bus = etherbone::Client::connect(addr, Duration::from_secs(5)).unwrap();
    for abort in ["key", "ctrl-c"] {
        half_duplex_session_0(&mut p, "2", &["1000", "", "1", "100", "1"]);
        p.exp_string("Press any key or Ctrl-C to abort the test").unwrap();
        p.exp_string("Wait connection").unwrap();
        assert!(ops::busy(&mut bus, 0).unwrap(), "{abort}: the session waits for its peer");
        if abort == "key" {
            p.send("a").unwrap();
            p.flush().unwrap();
        } else {
            p.send_control('c').unwrap();
        }
        p.exp_string("aborted by the user: aborting every session").unwrap_or_else(|e| panic!("{abort}: {e}"));
        p.exp_string("Test stopped: aborted by the user").unwrap();
        let r = ops::result(&mut bus, 0).unwrap();
        assert!(!r.busy && r.error && r.cause_name() == "aborted", "{abort}: {r:?}");
        p.exp_string("Select: ").unwrap();
    }
    p.send_line("q").unwrap();
    p.exp_eof().unwrap();
}

/// The menu with `input` on a pipe (no terminal), to its end.
fn piped_menu(addr: SocketAddr, input: &[u8]) -> common::Run {
    let mut cmd = std::process::Command::new(common::CONSOLE);
    cmd.arg("--connect").arg(addr.to_string());
    common::run_with(cmd, input, None, Duration::from_secs(60))
}

/// Item 8 of issue 25: a line that is not UTF-8 is an invalid input, said
/// as the reference says any invalid input, wherever the menu reads one:
/// the main menu goes on, a test's question cancels the operation, a
/// parameter stays; the menu does not end there.
#[test]
fn a_line_that_is_not_text_is_an_invalid_input_and_the_menu_goes_on() {
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    common::set_known_parameters(addr);
    let r = piped_menu(addr, b"\xff\xfe\n0\n2\n\xff1\n1\nc\n\xfe\n");
    let out = String::from_utf8_lossy(&r.stdout);
    assert_eq!(r.code, Some(0), "{out}\n{}", r.stderr);
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    let expect = [
        "INVALID INPUT: \"\u{fffd}\u{fffd}\" is not a menu option (the line is not UTF-8 text)",
        // The menu went on: option 0 shows the parameters.
        "FPGA IP           : 192.168.200.42",
        "INVALID INPUT: Test mode \"\u{fffd}1\": expected a line of text (this one is not UTF-8)\nOperation cancelled",
        "INVALID INPUT: Mode \"\u{fffd}\": expected a line of text (this one is not UTF-8); mode stays 0",
    ];
    let mut rest = &out[..];
    for e in expect {
        let at = rest.find(e).unwrap_or_else(|| panic!("{e:?} (in this order) in\n{out}"));
        rest = &rest[at + e.len()..];
    }
}

/// Item 2 of issue 25, in the menu: a test on a session still busy is
/// refused before the PC commands, naming the session and the command that
/// ends the old test; nothing is written and the menu goes on.
#[test]
fn the_menu_refuses_a_session_still_busy() {
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    let mut bus = etherbone::Client::connect(addr, Duration::from_secs(5)).unwrap();
    let f = console(addr, &["params", "set", &format!("fpga_port0={}", free_port()), "stall_timeout=0"]);
    assert_eq!(f.code, Some(0), "{}", f.all());
    // The old test: receive, passive, waiting for its peer.
    ops::program(&mut bus, 0, &console::SessionTest::new(console::Mode::Receive, 4321, false)).unwrap();
    ops::start(&mut bus, 0).unwrap();
    let cfg = console::regs::session(0).unwrap().test_config();
    let before = (ops::read(&mut bus, cfg).unwrap(), ops::busy(&mut bus, 0).unwrap());
    assert!(before.1, "session 0 runs the old test");
    // Session 0: send 1000 bytes, verification off, 50 %, client; the rest disabled.
    let r = piped_menu(addr, b"2\n1\n1000\n8192\n0\n50\n0\n0\n0\n0\n0\nq\n");
    let out = String::from_utf8_lossy(&r.stdout);
    assert_eq!(r.code, Some(0), "{out}\n{}", r.stderr);
    let refusal = format!(
        "session 0 is still running a test (status.busy = 1): end it with \
         `toe-console --connect {addr} abort --session 0` or wait for it to end; nothing was written\n\
         Operation cancelled\n"
    );
    let at = out.find(&refusal).unwrap_or_else(|| panic!("{refusal:?} in\n{out}"));
    assert!(!out.contains("Recommended PC commands"), "{out}");
    assert!(out[at..].contains("Select: "), "the menu goes on: {out}");
    assert_eq!((ops::read(&mut bus, cfg).unwrap(), ops::busy(&mut bus, 0).unwrap()), before, "nothing written");
    ops::abort(&mut bus, 0).unwrap();
}
