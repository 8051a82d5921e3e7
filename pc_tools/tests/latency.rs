//! `tcp_latency` on loopback: an initiator against the tool's own echo, in
//! both connection directions and with requests in flight, and against
//! small peers written here: one that answers after a known delay (the
//! round trips cannot be shorter), one that corrupts a response byte (a
//! verification error, exit 7) and one that closes early.

mod common;

use std::io::{Read, Write};
use std::time::Duration;

use common::{peer, run, server, LATENCY};

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out.lines().last().unwrap_or("")).unwrap_or_else(|e| panic!("{e}: {out:?}"))
}

/// One side listens (the echo when `echo_listens`; in text, since it prints
/// its port), the other connects (`--json`); the initiator times `count`
/// transactions with up to `outstanding` in flight.
fn pair(echo_listens: bool, request: &str, response: &str, count: &str, outstanding: &str) {
    let (listening, connecting) = if echo_listens { ("e", "i") } else { ("i", "e") };
    let sizes = [request, response, count, "--outstanding", outstanding];
    let (listener, port) = server(LATENCY, &[&["s", listening, "127.0.0.1", "0"][..], &sizes].concat());
    let p = port.to_string();
    let connector = run(LATENCY, &[&["c", connecting, "127.0.0.1", &p][..], &sizes, &["--json"]].concat());
    let listened = listener.finish();
    assert_eq!((listened.code, connector.code), (0, 0), "{listened:?} {connector:?}");
    let j = json(&connector.stdout);
    let n: u64 = count.parse().unwrap();
    assert_eq!((j["count"].as_u64(), j["verify_errors"].as_u64()), (Some(n), Some(0)), "{j}");
    let role = if echo_listens { "echo" } else { "initiator" };
    let summary = format!("{role}: {n} transactions of {request} -> {response} bytes, up to {outstanding} in flight, 0 verification errors");
    assert!(listened.stdout.contains(&summary), "{listened:?}");
    if echo_listens {
        let ns = |k: &str| j[k].as_f64().unwrap_or_else(|| panic!("{k} in {j}"));
        assert!(ns("min_ns") > 0.0);
        for (lo, hi) in [
            ("min_ns", "p50_ns"),
            ("p50_ns", "p90_ns"),
            ("p90_ns", "p99_ns"),
            ("p99_ns", "p999_ns"),
            ("p999_ns", "max_ns"),
        ] {
            assert!(ns(lo) <= ns(hi), "{lo} <= {hi}: {j}");
        }
        assert!(ns("min_ns") <= ns("mean_ns") && ns("mean_ns") <= ns("max_ns"), "{j}");
        // The histogram: buckets in order, every transaction in one, the
        // first holding the minimum and the last the maximum.
        let h = j["histogram"].as_array().unwrap_or_else(|| panic!("a histogram in {j}"));
        let bound = |b: &serde_json::Value, k: &str| b[k].as_u64().unwrap_or_else(|| panic!("{k} in {b}"));
        assert_eq!(h.iter().map(|b| bound(b, "count")).sum::<u64>(), n, "{j}");
        assert!(h.windows(2).all(|w| bound(&w[0], "hi_ns") < bound(&w[1], "lo_ns")), "{j}");
        let (first, last) = (&h[0], &h[h.len() - 1]);
        assert!(bound(first, "lo_ns") as f64 <= ns("min_ns") && ns("min_ns") <= bound(first, "hi_ns") as f64, "{j}");
        assert!(bound(last, "lo_ns") as f64 <= ns("max_ns") && ns("max_ns") <= bound(last, "hi_ns") as f64, "{j}");
    } else {
        assert!(listened.stdout.contains(&format!("count {n}  min ")), "{listened:?}");
        assert!(listened.stdout.contains("round trips (16 buckets per power of two"), "{listened:?}");
    }
}

#[test]
fn an_initiator_and_an_echo_agree_on_every_transaction_both_ways() {
    pair(true, "64", "64", "2000", "1");
    pair(false, "1000", "37", "500", "16");
    pair(true, "65536", "100000", "50", "4");
}

/// A peer that answers each 100-byte request with the pattern after 20 ms:
/// no round trip is shorter, and five arrive.
#[test]
fn round_trips_are_no_shorter_than_the_peer_takes() {
    let (addr, h) = peer(|mut s| {
        let mut req = [0u8; 100];
        for k in 0..5u64 {
            s.read_exact(&mut req).unwrap();
            assert!(pattern::first_mismatch(&req, k * 100).is_none(), "request {k} is the pattern");
            std::thread::sleep(Duration::from_millis(20));
            let mut resp = [0u8; 10];
            pattern::fill(&mut resp, k * 10);
            s.write_all(&resp).unwrap();
        }
    });
    let dir = std::env::temp_dir().join(format!("tcp_latency-plot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let svg = dir.join("rtt.svg");
    let port = addr.port().to_string();
    let o = run(LATENCY, &["c", "i", "127.0.0.1", &port, "100", "10", "5", "--json", "--plot", svg.to_str().unwrap()]);
    h.join().unwrap();
    assert_eq!(o.code, 0, "{o:?}");
    let j = json(&o.stdout);
    assert_eq!(j["count"].as_u64(), Some(5));
    assert!(j["min_ns"].as_f64().unwrap() >= 20e6, "{j}");
    assert!(j["max_ns"].as_f64().unwrap() < 5e9, "{j}");
    // The picture: its title counts the round trips, its legend gives the
    // median in microseconds (at least the peer's 20 ms).
    let picture = std::fs::read_to_string(&svg).unwrap_or_else(|e| panic!("{}: {e}", svg.display()));
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(picture.contains("tcp_latency: 5 round trips of 100 -&gt; 10 bytes"), "{picture}");
    let p50 =
        picture.split("p50 ").nth(1).and_then(|t| t.split(" us").next()).and_then(|v| v.trim().parse::<f64>().ok());
    assert!(p50.is_some_and(|us| us >= 20_000.0 && us * 1000.0 <= j["max_ns"].as_f64().unwrap()), "{p50:?}");
}

/// `--plot` into a folder that does not exist is refused before anything
/// connects (exit 2, one line).
#[test]
fn a_plot_into_a_missing_folder_is_refused_first() {
    let o = run(LATENCY, &["c", "i", "127.0.0.1", "1", "64", "64", "1", "--plot", "/nonexistent-folder/rtt.svg"]);
    assert_eq!(o.code, 2, "{o:?}");
    assert!(
        o.stderr.contains("--plot /nonexistent-folder/rtt.svg: the folder /nonexistent-folder does not exist"),
        "{o:?}"
    );
    assert_eq!(o.stderr.lines().count(), 1, "{o:?}");
}

/// A peer answering `n` 8-byte requests with 8-byte pattern responses,
/// each passed through `tweak(k, response)` first.
fn answer_8_byte_requests(s: &mut std::net::TcpStream, n: u64, tweak: impl Fn(u64, &mut [u8])) {
    let mut req = [0u8; 8];
    for k in 0..n {
        s.read_exact(&mut req).unwrap();
        let mut resp = [0u8; 8];
        pattern::fill(&mut resp, k * 8);
        tweak(k, &mut resp);
        s.write_all(&resp).unwrap();
    }
}

/// A response byte off the pattern is a verification error: exit 7.
#[test]
fn a_wrong_response_byte_is_a_verification_error() {
    let (addr, h) = peer(|mut s| {
        answer_8_byte_requests(&mut s, 3, |k, resp| {
            if k == 1 {
                resp[3] ^= 0x20;
            }
        })
    });
    let o = run(LATENCY, &["c", "i", "127.0.0.1", &addr.port().to_string(), "8", "8", "3", "--json"]);
    h.join().unwrap();
    assert_eq!(o.code, 7, "{o:?}");
    assert_eq!(json(&o.stdout)["verify_errors"].as_u64(), Some(1));
}

/// A peer that closes after two of five responses: exit 5, one line.
///
/// The peer ends its side (FIN) and reads on until the tool leaves. Closing
/// the socket outright would make the kernel answer the tool's next request
/// with a reset, which may reach the tool before it reads the end of the
/// stream: a reset (exit 4) is then the honest report, and the test would
/// depend on that race.
#[test]
fn a_peer_that_closes_early_is_one_error_line() {
    let (addr, h) = peer(|mut s| {
        answer_8_byte_requests(&mut s, 2, |_, _| {});
        s.shutdown(std::net::Shutdown::Write).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        std::io::copy(&mut s, &mut std::io::sink()).expect("the tool leaves within 20 s");
    });
    let o = run(LATENCY, &["c", "i", "127.0.0.1", &addr.port().to_string(), "8", "8", "5"]);
    h.join().unwrap();
    assert_eq!(o.code, 5, "{o:?}");
    assert_eq!(o.stderr.lines().count(), 1, "{o:?}");
    assert!(o.stderr.contains("receiving response 2"), "{o:?}");
}

#[test]
fn bad_arguments_exit_2_naming_the_field() {
    let o = run(LATENCY, &["c", "i", "127.0.0.1", "5000", "64", "64", "10", "--outstanding", "0"]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("--outstanding") && o.stderr.contains("1..=16"), "{o:?}");
    let o = run(LATENCY, &["--help"]);
    assert_eq!(o.code, 0);
    assert!(o.stdout.contains("usage: tcp_latency"));
}
