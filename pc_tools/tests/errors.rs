//! Every error case of issue 6, provoked by a small in-test peer that
//! misbehaves, with the exact message line and exit status.

mod common;

use std::io::Read;
use std::net::{Shutdown, TcpListener};
use std::thread;
use std::time::Duration;

use common::*;

const CONNECT: i32 = 3;
const RESET: i32 = 4;
const CLOSED_EARLY: i32 = 5;
const TOO_MUCH: i32 = 6;
const MISMATCH: i32 = 7;

/// The tool failed with `code` and exactly one stderr line equal to `line`.
fn assert_fails(o: &Outcome, code: i32, line: &str) {
    assert_eq!(o.code, code, "exit status\nstdout:\n{}\nstderr:\n{}", o.stdout, o.stderr);
    assert_eq!(o.stderr.trim_end(), line, "stderr");
    assert_eq!(o.stderr.lines().count(), 1, "one error line: {}", o.stderr);
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

#[test]
fn connection_refused() {
    let port = free_port(); // the listener is closed again: nothing listens there
    let o = run(DATATEST, &["c", "r", "127.0.0.1", &port.to_string(), "100", "1", "1"]);
    assert_fails(
        &o,
        CONNECT,
        &format!(
            "tcpdatatest: error: connect to 127.0.0.1:{port} failed: connection refused (is the server listening?)"
        ),
    );
    let o = run(TXRX, &["127.0.0.1", &port.to_string(), "100", "1", "1"]);
    assert_eq!(o.code, CONNECT, "{}", o.stderr);
}

#[test]
fn connect_timed_out() {
    // A listener with backlog 0 that never accepts: Linux queues one
    // connection, then drops further SYNs, so the next connect times out
    // without any traffic leaving loopback.
    use socket2::{Domain, Socket, Type};
    let l = Socket::new(Domain::IPV4, Type::STREAM, None).unwrap();
    l.bind(&"127.0.0.1:0".parse::<std::net::SocketAddr>().unwrap().into()).unwrap();
    l.listen(0).unwrap();
    let addr = l.local_addr().unwrap().as_socket().unwrap();
    let _queued = std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(2)).expect("first connect is queued");
    let o = run(DATATEST, &["c", "r", "127.0.0.1", &addr.port().to_string(), "100", "1", "1", "--timeout", "1"]);
    assert_fails(&o, CONNECT, &format!("tcpdatatest: error: connect to {addr} timed out after 1 s"));
}

#[test]
fn no_client_within_timeout() {
    let (srv, port) = server(DATATEST, &["s", "r", "127.0.0.1", "0", "100", "1", "1", "--timeout", "1"]);
    let o = srv.finish();
    assert_fails(&o, CONNECT, &format!("tcpdatatest: error: no client connected to 127.0.0.1:{port} within 1 s"));
}

#[test]
fn peer_closed_early_prints_both_counts() {
    let (addr, h) = peer(|mut s| send_all(&mut s, &pattern_bytes(1000)));
    let o = run(DATATEST, &["c", "r", "127.0.0.1", &addr.port().to_string(), "5000", "1", "1"]);
    h.join().unwrap();
    assert_fails(&o, CLOSED_EARLY, "tcpdatatest: error: peer closed early: received 1000 bytes, expected 5000 bytes");
}

#[test]
fn more_data_than_bytelen() {
    let (addr, h) = peer(|mut s| send_all(&mut s, &pattern_bytes(5001)));
    let o = run(DATATEST, &["c", "r", "127.0.0.1", &addr.port().to_string(), "5000", "1", "1"]);
    h.join().unwrap();
    assert_fails(
        &o,
        TOO_MUCH,
        "tcpdatatest: error: peer sent more data than expected: received at least 5001 bytes, expected 5000 bytes",
    );
}

#[test]
fn data_sent_to_a_transmit_only_side_is_an_error() {
    let (addr, h) = peer(|mut s| {
        send_all(&mut s, b"unexpected");
        drain(&mut s);
    });
    let o = run(DATATEST, &["c", "t", "127.0.0.1", &addr.port().to_string(), "100", "1", "1"]);
    h.join().unwrap();
    assert_fails(
        &o,
        TOO_MUCH,
        "tcpdatatest: error: peer sent more data than expected: received at least 10 bytes, expected 0 bytes",
    );
}

#[test]
fn pattern_mismatch_reports_offset_and_both_words() {
    // Corrupt byte 77,777 (word 19,444 = 0x4bf4, byte lane 1) deep inside
    // a transfer that spans many reads.
    let (addr, h) = peer(|mut s| {
        let mut data = pattern_bytes(300_000);
        data[77_777] = 0xA5;
        for chunk in data.chunks(10_007) {
            send_all(&mut s, chunk);
        }
    });
    let o = run(DATATEST, &["c", "r", "127.0.0.1", &addr.port().to_string(), "300000", "1", "1"]);
    h.join().unwrap();
    assert_fails(
        &o,
        MISMATCH,
        "tcpdatatest: error: pattern mismatch at byte offset 77777 (0x12fd1): expected word 0x00004bf4, received 0x0000a5f4",
    );
}

/// `--corrupt N`: the sender flips the lowest bit of byte N (here in the
/// second of several 64 KB buffers), and a verifying receiver names it.
#[test]
fn corrupt_flips_one_sent_byte_that_the_receiver_names() {
    let (srv, port) = server(DATATEST, &["s", "t", "127.0.0.1", "0", "300000", "1", "1", "--corrupt", "77777"]);
    let o = run(DATATEST, &["c", "r", "127.0.0.1", &port.to_string(), "300000", "1", "1"]);
    let sender = srv.finish();
    assert!(sender.stdout.contains("fault injection: the byte at offset 77777"), "{}", sender.stdout);
    // Word 19,444 = 0x4bf4, byte lane 1: 0x4b ^ 1 = 0x4a.
    assert_fails(
        &o,
        MISMATCH,
        "tcpdatatest: error: pattern mismatch at byte offset 77777 (0x12fd1): expected word 0x00004bf4, received 0x00004af4",
    );
    // Full duplex: each side corrupts what it sends at its own offset.
    let (srv, port) = server(TXRX, &["--server", "127.0.0.1", "0", "100000", "1", "1", "--corrupt", "5"]);
    let o = run(TXRX, &["127.0.0.1", &port.to_string(), "100000", "1", "1"]);
    assert_eq!(o.code, MISMATCH, "{}", o.stderr);
    assert!(o.stderr.contains("pattern mismatch at byte offset 5 (0x5)"), "{}", o.stderr);
    let _ = srv.finish();
}

#[test]
fn only_the_first_of_several_mismatches_is_reported() {
    let (addr, h) = peer(|mut s| {
        let mut data = pattern_bytes(100_000);
        data[90_000] = 0xFF;
        data[4_099] = 0x77;
        send_all(&mut s, &data);
    });
    let o = run(DATATEST, &["c", "r", "127.0.0.1", &addr.port().to_string(), "100000", "1", "1"]);
    h.join().unwrap();
    assert_fails(
        &o,
        MISMATCH,
        "tcpdatatest: error: pattern mismatch at byte offset 4099 (0x1003): expected word 0x00000400, received 0x77000400",
    );
}

#[test]
fn dummy_sender_against_verifying_receiver_fails_at_byte_4() {
    // Zeros match word 0 of the pattern; the first difference is byte 4.
    let (srv, port) = server(DATATEST, &["s", "t", "127.0.0.1", "0", "100000", "0", "1", "--timeout", "20"]);
    let o = run(DATATEST, &["c", "r", "127.0.0.1", &port.to_string(), "100000", "1", "1", "--timeout", "20"]);
    srv.finish();
    assert_fails(
        &o,
        MISMATCH,
        "tcpdatatest: error: pattern mismatch at byte offset 4 (0x4): expected word 0x00000001, received 0x00000000",
    );
}

#[test]
fn full_duplex_mismatch_from_the_peer() {
    let (addr, h) = peer(|mut s| {
        let mut r = s.try_clone().unwrap();
        let reader = thread::spawn(move || drain(&mut r));
        let mut data = pattern_bytes(50_000);
        data[12_345] ^= 0x01;
        send_all(&mut s, &data);
        let _ = s.shutdown(Shutdown::Write);
        reader.join().unwrap();
    });
    let o = run(TXRX, &["127.0.0.1", &addr.port().to_string(), "50000", "1", "1"]);
    h.join().unwrap();
    // Byte 12,345 is lane 1 of word 3,086 (0x0c0e): 0x0c ^ 0x01 = 0x0d.
    assert_fails(
        &o,
        MISMATCH,
        "tcp_client_txrx_single: error: pattern mismatch at byte offset 12345 (0x3039): expected word 0x00000c0e, received 0x00000d0e",
    );
}

#[test]
fn peer_reset_while_receiving() {
    let (addr, h) = peer(|mut s| {
        send_all(&mut s, &pattern_bytes(10_000));
        thread::sleep(Duration::from_millis(200));
        reset(s);
    });
    let o = run(DATATEST, &["c", "r", "127.0.0.1", &addr.port().to_string(), "100000", "1", "1"]);
    h.join().unwrap();
    assert_eq!(o.code, RESET, "stdout:\n{}\nstderr:\n{}", o.stdout, o.stderr);
    // The 10,000 bytes were read before the reset arrived (200 ms later).
    assert_fails(&o, RESET, "tcpdatatest: error: connection reset by peer after receiving 10000 of 100000 bytes");
}

#[test]
fn peer_reset_while_sending() {
    let (addr, h) = peer(|mut s| {
        let mut buf = vec![0u8; 100_000];
        let _ = s.read_exact(&mut buf);
        reset(s);
    });
    let o = run(DATATEST, &["c", "t", "127.0.0.1", &addr.port().to_string(), "0xFFFF_FFFF_FFFF", "1", "1"]);
    h.join().unwrap();
    assert_eq!(o.code, RESET, "stdout:\n{}\nstderr:\n{}", o.stdout, o.stderr);
    assert!(
        o.stderr.starts_with("tcpdatatest: error: connection reset by peer after sending ")
            && o.stderr.trim_end().ends_with(" of 281474976710655 bytes"),
        "{}",
        o.stderr
    );
}

/// A sending-only test whose peer reads everything, then resets instead of
/// closing, says what it sent (it said "after receiving 0 of 0 bytes").
#[test]
fn peer_reset_after_a_transmit_test_sent_everything() {
    let (addr, h) = peer(|mut s| {
        let mut buf = vec![0u8; 1000];
        s.read_exact(&mut buf).expect("the 1000 bytes arrive");
        reset(s);
    });
    let o = run(DATATEST, &["c", "t", "127.0.0.1", &addr.port().to_string(), "1000", "1", "1"]);
    h.join().unwrap();
    assert_fails(&o, RESET, "tcpdatatest: error: connection reset by peer after sending 1000 of 1000 bytes");
}

/// A full-duplex test names both directions.
#[test]
fn peer_reset_during_a_full_duplex_test_names_both_directions() {
    let (addr, h) = peer(|mut s| {
        let mut buf = vec![0u8; 1000];
        s.read_exact(&mut buf).expect("the first 1000 bytes arrive");
        send_all(&mut s, &pattern_bytes(500));
        thread::sleep(Duration::from_millis(200));
        reset(s);
    });
    let o = run(TXRX, &["127.0.0.1", &addr.port().to_string(), "100000", "1", "1"]);
    h.join().unwrap();
    assert_eq!(o.code, RESET, "stdout:\n{}\nstderr:\n{}", o.stdout, o.stderr);
    let line = o.stderr.trim_end();
    assert_eq!(o.stderr.lines().count(), 1, "{}", o.stderr);
    let sent = line
        .strip_prefix("tcp_client_txrx_single: error: connection reset by peer after sending ")
        .and_then(|rest| rest.strip_suffix(" of 100000 bytes and receiving 500 of 100000 bytes"))
        .unwrap_or_else(|| panic!("{line}"));
    let sent: u64 = sent.parse().unwrap_or_else(|_| panic!("{line}"));
    assert!((1000..=100_000).contains(&sent), "{line}");
}

#[test]
fn stalled_peer_hits_the_timeout() {
    let (addr, h) = peer(|mut s| {
        // Accept, send nothing, wait for the tool to give up.
        drain(&mut s);
    });
    let o = run(DATATEST, &["c", "r", "127.0.0.1", &addr.port().to_string(), "100", "1", "1", "--timeout", "1"]);
    h.join().unwrap();
    assert_fails(
        &o,
        RESET,
        "tcpdatatest: error: connection stalled: no progress for 1 s while receiving (received 0 of 100 bytes)",
    );
}

#[test]
fn json_error_document() {
    let (addr, h) = peer(|mut s| send_all(&mut s, &pattern_bytes(10)));
    let o = run(DATATEST, &["c", "r", "127.0.0.1", &addr.port().to_string(), "20", "1", "1", "--json"]);
    h.join().unwrap();
    assert_eq!(o.code, CLOSED_EARLY);
    let doc: serde_json::Value = serde_json::from_str(o.stdout.trim()).expect("JSON on stdout");
    assert_eq!(doc["ok"], false);
    assert_eq!(doc["exit_code"], CLOSED_EARLY);
    assert_eq!(doc["error"], "peer closed early: received 10 bytes, expected 20 bytes");
    assert!(o.stderr.contains("tcpdatatest: error: peer closed early"), "{}", o.stderr);
}

#[test]
fn one_failing_session_fails_the_run_and_is_named() {
    // Session 0 gets a clean transfer; session 1 a short one.
    let mut ls = consecutive_listeners(2);
    let bad = ls.pop().unwrap();
    let good = ls.pop().unwrap();
    let base = good.local_addr().unwrap().port();
    let a = thread::spawn(move || {
        let (mut s, _) = good.accept().unwrap();
        send_all(&mut s, &pattern_bytes(4000));
    });
    let b = thread::spawn(move || {
        let (mut s, _) = bad.accept().unwrap();
        send_all(&mut s, &pattern_bytes(3999));
    });
    let o = run(DATATEST, &["c", "r", "127.0.0.1", &base.to_string(), "4000", "1", "1", "--sessions", "2"]);
    a.join().unwrap();
    b.join().unwrap();
    assert_fails(
        &o,
        CLOSED_EARLY,
        "tcpdatatest: error: session 1: peer closed early: received 3999 bytes, expected 4000 bytes",
    );
}
