//! `toe-console test latency` against a virtual board in-process, with the
//! PC's `tcp_latency` as the peer the console recommends (the host's TCP
//! stack in between): an FPGA initiator against a PC echo and an FPGA echo
//! against a PC initiator, both sides' counts and verification checked,
//! the console's statistics checked against its own histogram; a corrupted
//! response found at its offset; bad input refused with the reference's two
//! messages. The round trips are in simulated cycles of the board.

mod common;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::Duration;

use common::{console, loopback_params};
use vboard::pc::ToolRun;

const LIMIT: Duration = Duration::from_secs(300);

/// Runs `test latency` with the PC's `tcp_latency` as each session's peer,
/// as recommended; returns the console's JSON and each tool's report.
fn run_latency(specs: &[&str]) -> (serde_json::Value, Vec<(u64, ToolRun)>) {
    let mut args = vec!["--json", "test", "latency"];
    for s in specs {
        args.extend(["--session", s]);
    }
    common::run_beside_pc_tools(&args, &[], |c| c.starts_with("tcp_latency s "), "Latency test complete", LIMIT)
}

fn session<'a>(json: &'a serde_json::Value, s: u64) -> &'a serde_json::Value {
    json["sessions"].as_array().unwrap().iter().find(|j| j["session"] == s).unwrap_or_else(|| panic!("{json}"))
}

fn tool(runs: &[(u64, ToolRun)], s: u64) -> &serde_json::Value {
    let (_, t) = runs.iter().find(|(k, _)| *k == s).expect("a tool per session");
    assert!(t.ok(), "session {s}: tcp_latency failed: {:?} {}", t.exit, t.stderr);
    &t.json
}

/// An initiator's figures agree with each other: the histogram holds every
/// round trip, its buckets are the crate's, min <= percentiles <= max, the
/// mean between min and max, ns = cycles at the clock.
fn check_initiator(j: &serde_json::Value, count: u64) {
    assert_eq!(j["ok"], true, "{j}");
    assert_eq!(j["count"], count, "{j}");
    assert_eq!(j["verify_errors"], 0, "{j}");
    let f = |k: &str| j[k].as_f64().unwrap_or_else(|| panic!("{k} in {j}"));
    let (min, max) = (f("min_cycles"), f("max_cycles"));
    assert!(min > 0.0 && min <= max, "{j}");
    assert!((min..=max).contains(&f("mean_cycles")), "{j}");
    let mut last = min;
    for p in ["p50", "p90", "p99", "p999"] {
        let v = f(&format!("{p}_cycles"));
        assert!(v >= last && v <= max, "{p} {v} out of order: {j}");
        last = v;
    }
    let khz = j["user_clock_khz"].as_f64().unwrap();
    assert!((f("min_ns") - min * 1e6 / khz).abs() < 1e-6, "{j}");
    let buckets = j["histogram"].as_array().unwrap();
    let total: u64 = buckets.iter().map(|b| b["count"].as_u64().unwrap()).sum();
    assert_eq!(total, count, "the histogram holds every round trip: {j}");
    for b in buckets {
        let (lo, hi) = (b["lo_cycles"].as_u64().unwrap(), b["hi_cycles"].as_u64().unwrap());
        assert_eq!(latency::bounds(latency::bucket_of(lo)), (lo, hi), "a bucket of crate latency: {b}");
    }
    let first = &buckets[0];
    let last = &buckets[buckets.len() - 1];
    assert!(first["lo_cycles"].as_f64().unwrap() <= min && min <= first["hi_cycles"].as_f64().unwrap(), "{j}");
    assert!(last["lo_cycles"].as_f64().unwrap() <= max && max <= last["hi_cycles"].as_f64().unwrap(), "{j}");
}

/// Two FPGA initiators at once, one a client with one request in flight,
/// one a server with eight; each PC echo answers every request.
#[test]
fn fpga_initiators_against_tcp_latency_echoes() {
    let (j, runs) = run_latency(&["0:initiator:64:64:300:1:0", "2:initiator:100:1000:200:8:1"]);
    assert_eq!(j["ok"], true, "{j}");
    check_initiator(session(&j, 0), 300);
    check_initiator(session(&j, 2), 200);
    for (s, n) in [(0, 300), (2, 200)] {
        let t = tool(&runs, s);
        assert_eq!((t["role"].as_str(), t["count"].as_u64()), (Some("echo"), Some(n)), "{t}");
        assert_eq!(t["verify_errors"], 0, "{t}");
    }
}

/// An FPGA echo, the PC's `tcp_latency` the initiator: both count every
/// transaction and verify every byte.
#[test]
fn fpga_echo_against_a_tcp_latency_initiator() {
    let (j, runs) = run_latency(&["1:echo:100:1000:150:4"]);
    let s = session(&j, 1);
    assert_eq!((s["ok"].as_bool(), s["count"].as_u64()), (Some(true), Some(150)), "{s}");
    assert_eq!((s["messages_received"].as_u64(), s["verify_errors"].as_u64()), (Some(150), Some(0)), "{s}");
    assert!(s.get("min_ns").is_none(), "an echo measures nothing: {s}");
    let t = tool(&runs, 1);
    assert_eq!(
        (t["role"].as_str(), t["count"].as_u64(), t["verify_errors"].as_u64()),
        (Some("initiator"), Some(150), Some(0))
    );
    assert!(t["min_ns"].as_f64().unwrap() > 0.0, "{t}");
}

/// A PC echo that corrupts one byte of the second response: the console
/// fails the test (status 1) and reports the first error at its offset in
/// the responses' stream, with the expected and received words there.
#[test]
fn a_corrupted_response_is_found_at_its_offset() {
    const SIZE: usize = 64;
    const BAD: usize = 100; // response 1, byte 36
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    loopback_params(addr, vb.design.sessions);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let set = console(addr, &["params", "set", &format!("target_port0={port}")]);
    assert_eq!(set.code, Some(0), "{}", set.all());
    let echo = std::thread::spawn(move || {
        let (mut peer, _) = listener.accept().unwrap();
        peer.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
        let mut request = [0u8; SIZE];
        for k in 0..4 {
            if peer.read_exact(&mut request).is_err() {
                return;
            }
            let mut response = [0u8; SIZE];
            pattern::fill(&mut response, (k * SIZE) as u64);
            if k == BAD / SIZE {
                response[BAD % SIZE] ^= 0x01;
            }
            if peer.write_all(&response).is_err() {
                return;
            }
        }
        let mut rest = Vec::new();
        let _ = peer.read_to_end(&mut rest);
    });
    let f = console(addr, &["--json", "test", "latency", "--session", "0:initiator:64:64:4:1:0"]);
    assert_eq!(f.code, Some(1), "a verification error fails the test: {}", f.all());
    let s = session(&f.json(), 0).clone();
    assert_eq!(s["ok"], false, "{s}");
    assert!(s["verify_errors"].as_u64().unwrap() >= 1, "{s}");
    assert_eq!(s["err_offset"], BAD as u64, "{s}");
    let word = (BAD / 4 * 4) as u64;
    let expected = u32::from_le_bytes(std::array::from_fn(|i| pattern::byte_at(word + i as u64)));
    assert_eq!(s["err_expected"], u64::from(expected), "the pattern's word at the wrong byte's lane: {s}");
    assert_eq!(s["err_received"], u64::from(expected ^ (1 << (8 * (BAD % 4)))), "{s}");
    echo.join().unwrap();
}

/// Bad input is refused with the reference's two messages, nothing started.
#[test]
fn bad_latency_specs_are_refused() {
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    for (spec, message) in [
        ("0:initiator:0:64:10", "OUT-OF-RANGE INPUT: Request size \"0\": valid range is 1-65535"),
        ("0:initiator:64:64:10:17", "OUT-OF-RANGE INPUT: Requests in flight \"17\": valid range is 1-16"),
        ("0:both:64:64:10", "INVALID INPUT: Role \"both\": expected initiator or echo"),
        ("9:echo:64:64:10", "OUT-OF-RANGE INPUT: Session \"9\": valid range is 0-3"),
    ] {
        let f = console(addr, &["test", "latency", "--session", spec]);
        assert_eq!(f.code, Some(2), "{spec}: {}", f.all());
        assert!(f.stderr.iter().any(|l| l.contains(message)), "{spec}: {}", f.all());
    }
    let f = console(addr, &["test", "latency", "--session", "0:echo:1:1:1", "--session", "0:echo:1:1:1"]);
    assert_eq!(f.code, Some(2), "{}", f.all());
    let f = console(addr, &["test", "latency", "--session", "0:echo:1:1:1", "--duration", "1"]);
    assert_eq!(f.code, Some(2), "{}", f.all());
    let mut bus = etherbone::Client::connect(addr, Duration::from_secs(5)).unwrap();
    assert!(!console::ops::busy(&mut bus, 0).unwrap(), "nothing was started");
}

/// Runs the console with `args` against the board at `addr` (its sessions
/// listening on `fpga_ports`) with the PC tools it recommends as the
/// peers, servers first, clients once their session listens; returns the
/// console's run and each tool's.
fn beside_tools(
    addr: std::net::SocketAddr,
    fpga_ports: &[u16],
    args: &[&str],
    is_server: impl Fn(&str) -> bool,
) -> (vboard::pc::Finished, Vec<(u64, ToolRun)>) {
    use vboard::pc::{wait_listening, ToolProcess};
    let commands = common::recommended(addr, args);
    let tools = common::tools();
    let mut procs = Vec::new();
    for (s, c) in commands.iter().filter(|(_, c)| is_server(c)) {
        procs.push((*s, ToolProcess::spawn(common::pc_tool(&tools, c), true).expect("PC server")));
    }
    let con = common::spawn(common::console_cmd(addr, args));
    for (s, c) in commands.iter().filter(|(_, c)| !is_server(c)) {
        assert!(wait_listening(fpga_ports[*s as usize], Duration::from_secs(30)), "session {s} does not listen");
        procs.push((*s, ToolProcess::spawn(common::pc_tool(&tools, c), false).expect("PC client")));
    }
    let runs: Vec<_> = procs.into_iter().map(|(s, p)| (s, p.finish(LIMIT))).collect();
    (con.finish(LIMIT), runs)
}

/// Leaves `sessions` idle with a sticky `error` (cause `aborted`): each
/// started straight over the bus as a passive receive or echo, waiting for
/// a peer, then ended by `abort`, as a killed console's test is.
fn leave_aborted(addr: std::net::SocketAddr, sessions: &[usize]) {
    let mut bus = etherbone::Client::connect(addr, Duration::from_secs(5)).unwrap();
    for &s in sessions {
        if s % 2 == 0 {
            console::ops::program(
                &mut bus,
                s,
                &console::ops::SessionTest::new(console::ops::Mode::Receive, 1000, false),
            )
            .unwrap();
        } else {
            console::ops::program_latency(&mut bus, s, &console::ops::LatencyTest::new(false, 8, 8, 5, false)).unwrap();
        }
    }
    console::ops::start_all(&mut bus, sessions).unwrap();
    let list: Vec<String> = sessions.iter().map(|s| format!("--session={s}")).collect();
    let mut args = vec!["abort"];
    args.extend(list.iter().map(String::as_str));
    let f = console(addr, &args);
    assert_eq!(f.code, Some(0), "{}", f.all());
    for &s in sessions {
        let r = console::ops::result(&mut bus, s).unwrap();
        assert!(!r.busy && r.error && r.cause_name() == "aborted", "session {s}: {r:?}");
    }
}

/// Issue 51, item 1: an earlier test's sticky `error` (here `aborted`)
/// fails no later test: a `test half` and a `test latency` each judge only
/// what happened since their own start, on a session left in error and on
/// others, while sessions outside the test keep their error untouched.
#[test]
fn an_earlier_aborted_test_fails_no_later_test() {
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    let ports = loopback_params(addr, vb.design.sessions);
    let f = console(addr, &["params", "set", "stall_timeout=0", "--no-init"]);
    assert_eq!(f.code, Some(0), "{}", f.all());
    leave_aborted(addr, &[0, 1, 2]);

    // Session 0 (left in error) receives, session 3 (clean) sends.
    let is_server = |c: &str| c.starts_with("tcpdatatest s ") || c.starts_with("tcp_latency s ");
    let (f, runs) = beside_tools(
        addr,
        &ports,
        &["--json", "test", "half", "--session", "0:2:100003", "--session", "3:1:50001"],
        is_server,
    );
    assert_eq!(f.code, Some(0), "the old error failed the test: {}", f.all());
    assert_eq!(f.json()["ok"], true, "{}", f.all());
    assert!(runs.iter().all(|(_, t)| t.ok()), "{runs:?}");

    // Session 1 (left in error) is an initiator, session 3 (done before) an echo.
    let (f, runs) = beside_tools(
        addr,
        &ports,
        &["--json", "test", "latency", "--session", "1:initiator:64:64:40:1:0", "--session", "3:echo:32:16:30"],
        is_server,
    );
    assert_eq!(f.code, Some(0), "the old error failed the latency test: {}", f.all());
    let j = f.json();
    assert_eq!(j["ok"], true, "{j}");
    check_initiator(session(&j, 1), 40);
    assert_eq!(session(&j, 3)["count"], 30, "{j}");
    for (s, _) in &runs {
        tool(&runs, *s);
    }
    // Session 2 was in neither test: its error stays for whoever reads it.
    let mut bus = etherbone::Client::connect(addr, Duration::from_secs(5)).unwrap();
    let r = console::ops::result(&mut bus, 2).unwrap();
    assert!(r.error && r.cause_name() == "aborted", "{r:?}");
}

/// Issue 51, item 14: `ctrl.stop` ends a send, and the latency modes'
/// round trips do not take it, so `stop` refuses a session running a
/// latency test by name, exit status 1, nothing written, and names the
/// `abort` that ends it; that `abort` does.
#[test]
fn stop_refuses_a_latency_test_by_name_and_abort_ends_it() {
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    let ports = loopback_params(addr, vb.design.sessions);
    let f = console(addr, &["params", "set", "stall_timeout=0", "--no-init"]);
    assert_eq!(f.code, Some(0), "{}", f.all());
    let mut bus = etherbone::Client::connect(addr, Duration::from_secs(5)).unwrap();
    // An echo waiting for its PC initiator, as `test latency` leaves it.
    console::ops::program_latency(&mut bus, 2, &console::ops::LatencyTest::new(false, 64, 64, 10, false)).unwrap();
    console::ops::start(&mut bus, 2).unwrap();
    assert!(vboard::pc::wait_listening(ports[2], Duration::from_secs(30)), "the echo listens");
    let refusal = format!(
        "toe-console: error: session 2 runs a latency test, which `stop` cannot end: `ctrl.stop` ends a send, \
         and a latency test's round trips do not take it (the test would run all its round trips); end it with \
         `toe-console --connect {addr} abort --session 2`, or name only the sessions to stop; nothing was written"
    );
    for args in [&["stop", "--session", "2"][..], &["stop"], &["stop", "--session", "0", "--session", "2"]] {
        let f = console(addr, args);
        assert_eq!(f.code, Some(1), "{args:?}: {}", f.all());
        assert_eq!(f.stderr, std::slice::from_ref(&refusal), "{args:?}: {}", f.all());
        assert!(f.stdout.is_empty(), "{args:?}: {}", f.all());
        let r = console::ops::result(&mut bus, 2).unwrap();
        assert!(r.busy && !r.done && !r.error, "{args:?}: the test runs on untouched: {r:?}");
    }
    let f = console(addr, &["abort", "--session", "2"]);
    assert_eq!(
        (f.code, f.stdout.as_slice()),
        (Some(0), &["session 2: aborted, now idle".to_string()][..]),
        "{}",
        f.all()
    );
    let f = console(addr, &["stop"]);
    assert_eq!(f.code, Some(0), "{}", f.all());
    assert_eq!(f.stdout, ["no session is running a test: nothing to stop"], "{}", f.all());
}
