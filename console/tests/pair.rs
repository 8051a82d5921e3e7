//! FPGA to FPGA through two consoles on a `--pair` virtual board (two
//! boards joined by the 200G link model), as the reference's section 4
//! runs it: board 1's console receives as the server, board 2's sends as
//! the client. Figures from the boards' registers (simulated time) within
//! 1 % of the reference, every byte verified.

mod common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use common::{console, console_cmd, spawn};
use console::ops;

/// Board 2 mirrors board 1's ports (reference 4.2: its FPGA ports are board 1's target ports).
fn mirror_ports(addr: SocketAddr, sessions: usize) {
    let mut args: Vec<String> = vec!["params".into(), "set".into(), "mode=1".into()];
    for s in 0..sessions {
        args.push(format!("fpga_port{s}={}", 61_000 + s));
        args.push(format!("target_port{s}={}", 60_000 + s));
    }
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    let f = console(addr, &a);
    assert_eq!(f.code, Some(0), "{}", f.all());
}

/// Runs `sessions` sessions of `size` bytes; returns both consoles' JSON.
fn run(sessions: usize, size: u64) -> (serde_json::Value, serde_json::Value) {
    let vb = common::board(true);
    let addrs = vb.register_addrs().to_vec();
    assert_eq!(addrs.len(), 2);
    mirror_ports(addrs[1], vb.design.sessions);
    let rx: Vec<String> = (0..sessions).map(|s| format!("{s}:2:{size}:8192:1:100:1")).collect();
    let tx: Vec<String> = (0..sessions).map(|s| format!("{s}:1:{size}:8192:1:100:0")).collect();
    let args = |specs: &[String]| {
        let mut a = vec!["--json".to_string(), "test".into(), "half".into()];
        for s in specs {
            a.push("--session".into());
            a.push(s.clone());
        }
        a
    };
    let rx_args = args(&rx);
    let server = spawn(console_cmd(addrs[0], &rx_args.iter().map(String::as_str).collect::<Vec<_>>()));
    // The client connects only once every server session listens (reference: "Wait connection" first).
    let mut bus = etherbone::Client::connect(addrs[0], Duration::from_secs(5)).unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !(0..sessions).all(|s| ops::busy(&mut bus, s).unwrap()) {
        assert!(Instant::now() < deadline, "board 1's sessions did not start");
        std::thread::sleep(Duration::from_millis(10));
    }
    let tx_args = args(&tx);
    let client = spawn(console_cmd(addrs[1], &tx_args.iter().map(String::as_str).collect::<Vec<_>>()));
    let c = client.finish(Duration::from_secs(600));
    let s = server.finish(Duration::from_secs(600));
    assert_eq!(s.code, Some(0), "receiving console: {}", s.all());
    assert_eq!(c.code, Some(0), "sending console: {}", c.all());
    (s.json(), c.json())
}

fn within(what: &str, got: f64, reference: f64) {
    assert!((got - reference).abs() / reference < 0.01, "{what}: {got:.1} MB/s, reference {reference}");
}

fn check(rx: &serde_json::Value, tx: &serde_json::Value, sessions: usize, size: u64, per_session: f64, total: f64) {
    for s in 0..sessions {
        let r = &rx["sessions"][s];
        assert_eq!(
            (r["rx"]["bytes"].as_u64(), r["err_count"].as_u64(), &r["ok"]),
            (Some(size), Some(0), &serde_json::json!(true)),
            "{r}"
        );
        let t = &tx["sessions"][s];
        assert_eq!(t["tx"]["bytes"].as_u64(), Some(size), "{t}");
        eprintln!("session {s}: board 1 RX {} MB/s, board 2 TX {} MB/s", r["rx"]["mb_per_s"], t["tx"]["mb_per_s"]);
        within(&format!("board 1 session {s} RX"), r["rx"]["mb_per_s"].as_f64().unwrap(), per_session);
        within(&format!("board 2 session {s} TX"), t["tx"]["mb_per_s"].as_f64().unwrap(), per_session);
    }
    within("board 1 total RX", rx["total"]["rx"]["mb_per_s"].as_f64().unwrap(), total);
    within("board 2 total TX", tx["total"]["tx"]["mb_per_s"].as_f64().unwrap(), total);
}

/// Figure 4-4: one session, 24,750 MB/s.
#[test]
fn figure_4_4_one_session_half_duplex_through_two_consoles() {
    let (rx, tx) = run(1, 4 << 20);
    check(&rx, &tx, 1, 4 << 20, 24_750.0, 24_750.0);
}

/// Figure 4-5: four sessions of about 6,188 MB/s, 24,752 MB/s in total.
#[test]
fn figure_4_5_four_sessions_half_duplex_through_two_consoles() {
    let (rx, tx) = run(4, 3 << 20);
    check(&rx, &tx, 4, 3 << 20, 6_188.0, 24_752.0);
}
