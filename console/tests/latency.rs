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
