//! Every mode pair of the two tools against each other on loopback, at the
//! sizes around word, segment and buffer boundaries.

mod common;

use std::thread;
use std::time::Duration;

use common::*;

/// Sizes from issue 6: single bytes, partial and whole words, 64 KiB +- 1, ~1 MB odd.
const SIZES: [u64; 7] = [1, 3, 4, 5, 65_535, 65_536, 1_000_003];

fn assert_ok(o: &Outcome, what: &str) {
    assert_eq!(o.code, 0, "{what}: exit {}\nstdout:\n{}\nstderr:\n{}", o.code, o.stdout, o.stderr);
    assert!(o.stderr.is_empty(), "{what}: unexpected stderr {}", o.stderr);
}

#[test]
fn server_transmits_client_receives_and_verifies_every_size() {
    for n in SIZES {
        let len = n.to_string();
        let (srv, port) = server(DATATEST, &["s", "t", "127.0.0.1", "0", &len, "1", "1", "--timeout", "20"]);
        let cli = run(DATATEST, &["c", "r", "127.0.0.1", &port.to_string(), &len, "1", "1", "--timeout", "20"]);
        let srv = srv.finish();
        assert_ok(&cli, &format!("client r {n}"));
        assert_ok(&srv, &format!("server t {n}"));
        assert!(cli.stdout.contains(&format!("\nrx: {n} bytes in ")), "{}", cli.stdout);
        assert!(cli.stdout.contains("pattern verified"), "{}", cli.stdout);
        assert!(srv.stdout.contains(&format!("\ntx: {n} bytes in ")), "{}", srv.stdout);
        assert!(cli.stdout.ends_with("half-duplex test complete"), "{}", cli.stdout);
    }
}

#[test]
fn client_transmits_server_receives_and_verifies_every_size() {
    for n in SIZES {
        let len = n.to_string();
        // Buffer 5 (1 MB) on one side and 1 (64 KB) on the other: the chunking
        // of the two ends never lines up, which the streaming checker must not mind.
        let (srv, port) = server(DATATEST, &["s", "r", "127.0.0.1", "0", &len, "1", "5", "--timeout", "20"]);
        let cli = run(DATATEST, &["c", "t", "127.0.0.1", &port.to_string(), &len, "1", "1", "--timeout", "20"]);
        let srv = srv.finish();
        assert_ok(&cli, &format!("client t {n}"));
        assert_ok(&srv, &format!("server r {n}"));
        assert!(srv.stdout.contains(&format!("\nrx: {n} bytes in ")), "{}", srv.stdout);
        assert!(srv.stdout.contains("pattern verified"), "{}", srv.stdout);
        assert!(cli.stdout.contains(&format!("\ntx: {n} bytes in ")), "{}", cli.stdout);
    }
}

#[test]
fn dummy_pattern_transfers_without_verification_in_hex_length() {
    let (srv, port) = server(DATATEST, &["s", "r", "127.0.0.1", "0", "0x10_0001", "0", "3", "--timeout", "20"]);
    let cli = run(DATATEST, &["c", "t", "127.0.0.1", &port.to_string(), "1048577", "0", "2", "--timeout", "20"]);
    let srv = srv.finish();
    assert_ok(&cli, "client");
    assert_ok(&srv, "server");
    assert!(srv.stdout.contains("\nrx: 1048577 bytes in "), "{}", srv.stdout);
    assert!(srv.stdout.contains("not verified"), "{}", srv.stdout);
}

#[test]
fn full_duplex_client_and_server_verify_both_directions_every_size() {
    for n in SIZES {
        let len = n.to_string();
        let (srv, port) = server(TXRX, &["--server", "127.0.0.1", "0", &len, "1", "2", "--timeout", "20"]);
        let cli = run(TXRX, &["127.0.0.1", &port.to_string(), &len, "1", "4", "--timeout", "20"]);
        let srv = srv.finish();
        assert_ok(&cli, &format!("txrx client {n}"));
        assert_ok(&srv, &format!("txrx server {n}"));
        for o in [&cli, &srv] {
            assert!(o.stdout.contains(&format!("\ntx: {n} bytes in ")), "{}", o.stdout);
            assert!(o.stdout.contains(&format!("\nrx: {n} bytes in ")), "{}", o.stdout);
            assert!(o.stdout.contains("pattern verified"), "{}", o.stdout);
            assert!(o.stdout.ends_with("full-duplex test complete"), "{}", o.stdout);
        }
    }
}

#[test]
fn json_summary_is_the_only_stdout_and_carries_the_counts() {
    let (srv, port) = server(DATATEST, &["s", "t", "127.0.0.1", "0", "65537", "1", "1", "--timeout", "20"]);
    let cli =
        run(DATATEST, &["c", "r", "127.0.0.1", &port.to_string(), "65537", "1", "1", "--json", "--timeout", "20"]);
    srv.finish();
    assert_eq!(cli.code, 0, "{}", cli.stderr);
    let doc: serde_json::Value = serde_json::from_str(cli.stdout.trim()).expect("stdout is one JSON document");
    assert_eq!(doc["ok"], true);
    assert_eq!(doc["tool"], "tcpdatatest");
    assert_eq!(doc["dir"], "receive");
    assert_eq!(doc["sessions"][0]["rx"]["bytes"], 65537);
    assert_eq!(doc["sessions"][0]["tx"], serde_json::Value::Null);
    assert_eq!(doc["total"]["rx_bytes"], 65537);
    // A rate only for a time of 1 ms or more; a shorter one gives null.
    let seconds = doc["total"]["seconds"].as_f64().expect("number");
    match doc["total"]["rx_mb_per_s"].as_f64() {
        Some(rate) => assert!(seconds >= 0.001 && rate > 0.0, "{doc}"),
        None => assert!(seconds < 0.001 && doc["total"]["rx_mb_per_s"].is_null(), "{doc}"),
    }
    // Human lines moved to stderr.
    assert!(cli.stderr.contains("half-duplex test complete"), "{}", cli.stderr);
}

#[test]
fn client_sessions_use_consecutive_ports_and_sum_totals() {
    let n = 1_000_003u64;
    let listeners = consecutive_listeners(3);
    let base = listeners[0].local_addr().unwrap().port();
    let servers: Vec<_> = listeners
        .into_iter()
        .map(|l| {
            thread::spawn(move || {
                // Each in-test server sends the pattern then reads to EOF.
                let (mut s, _) = l.accept().expect("accept");
                s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
                send_all(&mut s, &pattern_bytes(n as usize));
                s.shutdown(std::net::Shutdown::Write).unwrap();
                drain(&mut s)
            })
        })
        .collect();
    let cli = run(
        DATATEST,
        &["c", "r", "127.0.0.1", &base.to_string(), &n.to_string(), "1", "1", "--sessions", "3", "--timeout", "20"],
    );
    for h in servers {
        assert_eq!(h.join().expect("server thread"), 0, "receive-only client sent nothing");
    }
    assert_ok(&cli, "sessions client");
    for i in 0..3u16 {
        assert!(cli.stdout.contains(&format!("session {i}: connected ")), "{}", cli.stdout);
        assert!(cli.stdout.contains(&format!("-> 127.0.0.1:{}", base + i)), "{}", cli.stdout);
    }
    assert!(cli.stdout.contains(&format!("total rx: {} bytes in ", 3 * n)), "{}", cli.stdout);
}

#[test]
fn server_sessions_on_free_ports_serve_separate_clients() {
    let mut srv =
        spawn(DATATEST, &["s", "r", "127.0.0.1", "0", "5000", "1", "1", "--sessions", "2", "--timeout", "20"]);
    // Port 0 with --sessions: each session gets its own free port, printed in order.
    let port_of = |line: String| line.rsplit(':').next().and_then(|p| p.parse::<u16>().ok()).expect("port");
    let p0 = port_of(srv.wait_line("session 0: listening on "));
    let p1 = port_of(srv.wait_line("session 1: listening on "));
    let a = spawn(DATATEST, &["c", "t", "127.0.0.1", &p1.to_string(), "5000", "1", "1", "--timeout", "20"]);
    let b = run(DATATEST, &["c", "t", "127.0.0.1", &p0.to_string(), "5000", "1", "1", "--timeout", "20"]);
    let a = a.finish();
    let srv = srv.finish();
    assert_ok(&a, "client a");
    assert_ok(&b, "client b");
    assert_ok(&srv, "server");
    assert!(srv.stdout.contains("total rx: 10000 bytes in "), "{}", srv.stdout);
}

#[test]
fn progress_is_printed_every_second_while_running() {
    // A slow in-test sender: 1000 pattern bytes every 100 ms for about 2.2 s.
    let total = 22_000usize;
    let (addr, h) = peer(move |mut s| {
        let data = pattern_bytes(total);
        for chunk in data.chunks(1000) {
            send_all(&mut s, chunk);
            thread::sleep(Duration::from_millis(100));
        }
    });
    let cli = run(DATATEST, &["c", "r", "127.0.0.1", &addr.port().to_string(), &total.to_string(), "1", "1"]);
    h.join().unwrap();
    assert_ok(&cli, "slow transfer");
    let progress: Vec<&str> = cli.stdout.lines().filter(|l| l.contains(" s: rx ")).collect();
    assert!(progress.len() >= 2, "expected at least 2 progress lines:\n{}", cli.stdout);
    assert!(progress[0].starts_with("1 s: rx "), "{}", progress[0]);
    assert!(progress[1].starts_with("2 s: rx "), "{}", progress[1]);
    let quiet = {
        let (addr, h) = peer(move |mut s| {
            let data = pattern_bytes(3000);
            for chunk in data.chunks(1000) {
                send_all(&mut s, chunk);
                thread::sleep(Duration::from_millis(600));
            }
        });
        let o = run(DATATEST, &["c", "r", "127.0.0.1", &addr.port().to_string(), "3000", "1", "1", "--quiet"]);
        h.join().unwrap();
        o
    };
    assert_ok(&quiet, "quiet");
    assert!(!quiet.stdout.contains(" s: rx "), "--quiet printed progress:\n{}", quiet.stdout);
}
