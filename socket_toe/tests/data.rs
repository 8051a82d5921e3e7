//! Data transfer, half-closes, flow control and partial beats with real loopback peers.

mod common;

use std::io::{ErrorKind, Write};
use std::net::Shutdown;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use common::*;

const MAX: u64 = 50_000_000;

#[test]
fn active_open_data_both_ways() {
    const UP: u64 = 300_001;
    const DOWN: u64 = 500_003;
    let (l, port) = listener();
    let peer = thread::spawn(move || {
        let (mut s, from) = accept(&l);
        let mut r = s.try_clone().unwrap();
        let reader = thread::spawn(move || read_all(&mut r));
        send_pattern(&mut s, DOWN);
        s.shutdown(Shutdown::Write).unwrap();
        (from, reader.join().expect("peer reader"))
    });
    let local = free_port();
    let mut tb = Tb::new(1, 64, net());
    tb.connect_to(0, local, port);
    tb.run_until("established", MAX, |tb| tb.ins[0].established || tb.ins[0].conn_error);
    assert!(tb.ins[0].established, "{:#?}", tb.all_events());
    tb.ul[0].tx_total = UP;
    tb.ul[0].tx_enable = true;
    tb.ul[0].close_after_tx = true;
    tb.run_until("fully closed", MAX, |tb| !tb.ins[0].established);
    tb.run(128); // the next poll releases the socket
    let (from, got) = peer.join().expect("peer");
    assert!(tb.ins[0].peer_closed && !tb.ins[0].conn_error);
    tb.check_rx(0, DOWN);
    check_pattern("peer", &got, UP);
    if !tb.has_event("ephemeral") {
        assert_eq!(from.port(), local, "the FPGA port is the source port");
    }
    assert!(tb.has_event(&format!("connected 127.0.0.1:{} -> 127.0.0.1:{port}", from.port())), "{:#?}", tb.events);
    assert!(tb.has_event(&format!("peer closed (FIN) after {DOWN} bytes")), "{:#?}", tb.events);
    assert!(tb.has_event(&format!("FIN sent after {UP} bytes")), "{:#?}", tb.events);
    assert!(tb.has_event("connection closed (both sides)"), "{:#?}", tb.events);
    let st = tb.toe.stats(0);
    assert_eq!((st.tx_taken, st.tx_bytes, st.rx_bytes, st.rx_delivered), (UP, UP, DOWN, DOWN));
    assert_eq!((st.connects, st.errors), (1, 0));
    // Only full beats except the one at the FIN.
    let beats = &tb.ul[0].rx_beats;
    assert!(beats[..beats.len() - 1].iter().all(|&(n, _)| n == 64));
    assert_eq!(*beats.last().unwrap(), ((DOWN % 64) as usize, true));
    assert!(!tb.toe.busy(), "nothing left to do");
    tb.assert_no_violations();
}

#[test]
fn peer_half_close_we_keep_sending() {
    const DOWN: u64 = 50_000;
    const UP: u64 = 200_037;
    let (l, port) = listener();
    let peer = peer_sends_then_closes(l, DOWN);
    let mut tb = Tb::new(1, 64, net());
    tb.connect_to(0, 0, port);
    tb.run_until("peer_closed", MAX, |tb| tb.ins[0].peer_closed);
    assert!(tb.ins[0].established, "a half-closed connection stays established");
    assert!(!tb.ins[0].rx_tvalid);
    tb.check_rx(0, DOWN);
    // Now we send, after the peer's FIN.
    tb.ul[0].tx_total = UP;
    tb.ul[0].tx_enable = true;
    tb.ul[0].close_after_tx = true;
    tb.run_until("fully closed", MAX, |tb| {
        assert!(tb.ins[0].peer_closed && !tb.ins[0].rx_tvalid);
        !tb.ins[0].established
    });
    check_pattern("peer", &peer.join().expect("peer"), UP);
    assert!(!tb.ins[0].conn_error);
    tb.assert_no_violations();
}

#[test]
fn we_close_peer_keeps_sending() {
    const UP: u64 = 1_000;
    const DOWN: u64 = 300_000;
    let (l, port) = listener();
    let (go_tx, go_rx) = mpsc::channel::<()>();
    let peer = thread::spawn(move || {
        let (mut s, _) = accept(&l);
        let got = read_all(&mut s); // until our FIN
        go_rx.recv_timeout(WALL_LIMIT).expect("go");
        send_pattern(&mut s, DOWN);
        s.shutdown(Shutdown::Write).unwrap();
        got
    });
    let mut tb = Tb::new(1, 64, net());
    tb.connect_to(0, 0, port);
    tb.run_until("established", MAX, |tb| tb.ins[0].established);
    tb.ul[0].tx_total = UP;
    tb.ul[0].tx_enable = true;
    tb.ul[0].close_after_tx = true;
    tb.run_until("our FIN sent", MAX, |tb| tb.events.iter().any(|e| e.contains("FIN sent")));
    // Half-closed by us: still established, the peer may still send.
    tb.run_for(Duration::from_millis(50));
    assert!(tb.ins[0].established && !tb.ins[0].peer_closed, "established until the peer's FIN");
    go_tx.send(()).unwrap();
    tb.run_until("peer_closed", MAX, |tb| {
        assert!(tb.ins[0].established || tb.ins[0].peer_closed, "established fell before the peer's FIN was delivered");
        tb.ins[0].peer_closed
    });
    tb.run(10);
    assert!(!tb.ins[0].established, "fully closed");
    tb.check_rx(0, DOWN);
    check_pattern("peer", &peer.join().expect("peer"), UP);
    assert!(!tb.ins[0].conn_error);
    tb.assert_no_violations();
}

#[test]
fn tx_backpressure_when_peer_does_not_read() {
    const UP: u64 = 16 << 20;
    let (l, port) = listener();
    let (go_tx, go_rx) = mpsc::channel::<()>();
    let peer = thread::spawn(move || {
        let (mut s, _) = accept(&l);
        go_rx.recv_timeout(WALL_LIMIT).expect("go");
        read_all(&mut s)
    });
    // An odd TX buffer size: partial socket writes leave the ring wrapped.
    let cfg = socket_toe::NetConfig { tx_buffer: 65_537, ..net() };
    let mut tb = Tb::new(1, 128, cfg);
    tb.connect_to(0, 0, port);
    tb.run_until("established", MAX, |tb| tb.ins[0].established);
    tb.ul[0].tx_total = UP;
    tb.ul[0].tx_enable = true;
    tb.ul[0].close_after_tx = true;
    tb.run_until("tx_tready low for 100k cycles", MAX, |tb| tb.ul[0].tx_blocked_run >= 100_000);
    let sent = tb.ul[0].tx_sent;
    let st = tb.toe.stats(0);
    assert!(sent > 0 && sent < UP, "blocked after {sent} bytes");
    assert!(st.tx_taken - st.tx_bytes <= 65_537, "the TX buffer is bounded");
    assert!(tb.ins[0].established && !tb.ins[0].conn_error);
    go_tx.send(()).unwrap();
    tb.run_until("fully closed", MAX, |tb| !tb.ins[0].established);
    check_pattern("peer", &peer.join().expect("peer"), UP);
    assert_eq!(tb.toe.stats(0).tx_bytes, UP);
    assert!(!tb.ins[0].conn_error);
    tb.assert_no_violations();
}

#[test]
fn rx_backpressure_holds_the_peer() {
    const DOWN: u64 = 16 << 20;
    let (l, port) = listener();
    let (blocked_tx, blocked_rx) = mpsc::channel::<u64>();
    let peer = thread::spawn(move || {
        let (mut s, _) = accept(&l);
        s.set_nonblocking(true).unwrap();
        let mut buf = vec![0u8; 64 << 10];
        let mut off = 0u64;
        let mut stuck_since: Option<Instant> = None;
        let mut reported = false;
        let deadline = Instant::now() + WALL_LIMIT;
        while off < DOWN {
            assert!(Instant::now() < deadline, "peer: could not send everything");
            let n = ((DOWN - off) as usize).min(buf.len());
            pattern::fill(&mut buf[..n], off);
            match s.write(&buf[..n]) {
                Ok(k) => {
                    off += k as u64;
                    stuck_since = None;
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    let t = *stuck_since.get_or_insert_with(Instant::now);
                    if !reported && t.elapsed() >= Duration::from_millis(300) {
                        reported = true;
                        blocked_tx.send(off).unwrap();
                    }
                    thread::sleep(Duration::from_millis(1));
                }
                Err(e) => panic!("peer write: {e}"),
            }
        }
        s.shutdown(Shutdown::Write).unwrap();
        s.set_nonblocking(false).unwrap();
        read_all(&mut s).len()
    });
    let mut tb = Tb::new(1, 64, net());
    tb.ul[0].rx_ready = false;
    tb.connect_to(0, 0, port);
    let mut blocked_at = None;
    tb.run_until("the peer's writes block", MAX, |_| {
        blocked_at = blocked_at.or(blocked_rx.try_recv().ok());
        blocked_at.is_some()
    });
    let blocked_at = blocked_at.unwrap();
    let st = tb.toe.stats(0);
    assert!(blocked_at < DOWN, "the peer blocked after {blocked_at} bytes");
    assert_eq!(st.rx_delivered, 0);
    assert!(st.rx_bytes <= 64 << 10, "read {} bytes into a 64 KiB buffer", st.rx_bytes);
    assert!(tb.ins[0].rx_tvalid, "a beat waits");
    tb.ul[0].rx_ready = true;
    tb.run_until("peer_closed", MAX, |tb| tb.ins[0].peer_closed);
    tb.check_rx(0, DOWN);
    tb.ul[0].req = Some(Req::Close);
    tb.run_until("fully closed", MAX, |tb| !tb.ins[0].established);
    assert_eq!(peer.join().expect("peer"), 0);
    tb.assert_no_violations();
}

#[test]
fn partial_last_beat_at_fin() {
    let (l, port) = listener();
    let peer = peer_sends_then_closes(l, 1000);
    let mut tb = Tb::new(1, 64, net());
    tb.connect_to(0, 0, port);
    tb.run_until("peer_closed", MAX, |tb| tb.ins[0].peer_closed);
    tb.check_rx(0, 1000);
    let mut want = vec![(64, false); 15];
    want.push((40, true));
    assert_eq!(tb.ul[0].rx_beats, want);
    tb.ul[0].req = Some(Req::Close);
    tb.run_until("fully closed", MAX, |tb| !tb.ins[0].established);
    assert!(peer.join().expect("peer").is_empty());
    tb.assert_no_violations();
}

#[test]
fn partial_beat_after_push_timeout() {
    let (l, port) = listener();
    let (go_tx, go_rx) = mpsc::channel::<()>();
    let peer = thread::spawn(move || {
        let (mut s, _) = accept(&l);
        send_pattern_range(&mut s, 0, 1000);
        go_rx.recv_timeout(WALL_LIMIT).expect("go");
        send_pattern_range(&mut s, 1000, 2000);
        s.shutdown(Shutdown::Write).unwrap();
        read_all(&mut s)
    });
    let mut cfg = net();
    cfg.push_timeout = Duration::from_millis(50);
    let mut tb = Tb::new(1, 64, cfg);
    tb.connect_to(0, 0, port);
    tb.run_until("15 full beats", MAX, |tb| tb.ul[0].rx.len() == 960);
    let t960 = Instant::now();
    assert!(tb.toe.busy(), "a partial beat waits for its push timeout");
    tb.run_until("the partial beat", MAX, |tb| tb.ul[0].rx.len() >= 1000);
    let waited = t960.elapsed();
    assert!(waited >= Duration::from_millis(30), "partial beat after {waited:?}, before the push timeout");
    assert!(!tb.ins[0].peer_closed, "no FIN yet");
    assert_eq!(tb.ul[0].rx_beats.last(), Some(&(40, true)));
    assert_eq!(tb.toe.stats(0).push_timeouts, 1);
    go_tx.send(()).unwrap();
    tb.run_until("peer_closed", MAX, |tb| tb.ins[0].peer_closed);
    tb.check_rx(0, 2000);
    // Beats restart at the push point: 15 full beats and 40 bytes at the FIN.
    let mut want = vec![(64, false); 15];
    want.push((40, true));
    assert_eq!(tb.ul[0].rx_beats[16..], want[..]);
    tb.ul[0].req = Some(Req::Close);
    tb.run_until("fully closed", MAX, |tb| !tb.ins[0].established);
    peer.join().expect("peer");
    assert_eq!(tb.toe.stats(0).push_timeouts, 1);
    tb.assert_no_violations();
}

#[test]
fn two_sessions_talk_to_each_other() {
    const A: u64 = 1_000_003;
    const B: u64 = 700_001;
    let port = free_port();
    // Small buffers of odd sizes: both rings wrap at every byte offset.
    let cfg = socket_toe::NetConfig { tx_buffer: 1001, rx_buffer: 777, ..net() };
    let mut tb = Tb::new(2, 48, cfg);
    tb.ul[1].req = Some(Req::Listen { port });
    tb.run_until("listening", 10_000, |tb| tb.toe.local_addr(1).is_some());
    tb.connect_to(0, 0, port);
    tb.run_until("both established", MAX, |tb| tb.ins[0].established && tb.ins[1].established);
    assert_eq!(tb.ins[1].peer_port, tb.toe.local_addr(0).unwrap().port());
    assert_eq!(tb.ins[0].peer_port, port);
    for (s, n) in [(0, A), (1, B)] {
        tb.ul[s].tx_total = n;
        tb.ul[s].tx_enable = true;
        tb.ul[s].close_after_tx = true;
    }
    tb.run_until("both fully closed", MAX, |tb| !tb.ins[0].established && !tb.ins[1].established);
    tb.check_rx(0, B);
    tb.check_rx(1, A);
    assert!(!tb.ins[0].conn_error && !tb.ins[1].conn_error);
    tb.assert_no_violations();
}

#[test]
fn interface_violations_are_listed() {
    let (l, port) = listener();
    let peer = thread::spawn(move || {
        let (mut s, _) = accept(&l);
        read_all(&mut s)
    });
    let mut tb = Tb::new(1, 64, net());
    // A beat while nothing is open.
    tb.ul[0].custom_tx = Some((vec![1; 64], false));
    tb.run(100);
    tb.ul[0].custom_tx = None;
    tb.connect_to(0, 0, port);
    tb.run_until("established", MAX, |tb| tb.ins[0].established);
    // A partial beat without tlast, then more data after it, then an empty beat.
    for beat in [(vec![2; 10], false), (vec![3; 64], false), (vec![], true), (vec![4; 65], true)] {
        tb.ul[0].custom_tx = Some(beat);
        tb.run_until("beat taken", 10_000, |tb| tb.ul[0].custom_tx.is_none());
    }
    tb.ul[0].req = Some(Req::Close);
    tb.run(10);
    tb.ul[0].custom_tx = Some((vec![5; 64], true));
    tb.run(100);
    tb.ul[0].custom_tx = None;
    let v = tb.toe.violations().to_vec();
    for want in [
        "tx_tvalid while not established",
        "partial TX beat without tlast",
        "TX data after a partial beat",
        "TX beat of 0 bytes",
        "TX beat of 65 bytes",
        "tx_tvalid after its close request",
    ] {
        assert!(v.iter().any(|m| m.contains(want)), "missing {want:?} in {v:#?}");
    }
    assert_eq!(v.len() as u64, tb.toe.violation_count());
    assert!(v.iter().all(|m| m.starts_with("cycle ") && m.contains("session 0: ")), "{v:#?}");
    tb.run_until("peer FIN", MAX, |tb| !tb.ins[0].established);
    // 10 + 64 + 64 (the first 64 of the oversized beat) bytes went out.
    assert_eq!(peer.join().expect("peer").len(), 138);
}

#[test]
fn rx_beat_stays_stable_while_waiting() {
    // A full beat is presented while rx_tready is low; then the peer's FIN
    // makes its end a push point. The presented beat must not change: its
    // tlast stays low (a full last beat presented before the FIN has no
    // tlast; peer_closed marks the end).
    let (l, port) = listener();
    let (go_tx, go_rx) = mpsc::channel::<()>();
    let peer = thread::spawn(move || {
        let (mut s, _) = accept(&l);
        send_pattern(&mut s, 64);
        go_rx.recv_timeout(WALL_LIMIT).expect("go");
        s.shutdown(Shutdown::Write).unwrap();
        read_all(&mut s)
    });
    let mut tb = Tb::new(1, 64, net());
    tb.ul[0].rx_ready = false;
    tb.connect_to(0, 0, port);
    tb.run_until("a beat presented", MAX, |tb| tb.ins[0].rx_tvalid);
    assert!(!tb.ins[0].rx_tlast);
    go_tx.send(()).unwrap();
    tb.run_until("the peer's FIN", MAX, |tb| tb.events.iter().any(|e| e.contains("peer closed (FIN)")));
    tb.run(1000); // the harness asserts the waiting beat is unchanged every cycle
    assert!(tb.ins[0].rx_tvalid && !tb.ins[0].rx_tlast && !tb.ins[0].peer_closed);
    tb.ul[0].rx_ready = true;
    tb.run_until("peer_closed", MAX, |tb| tb.ins[0].peer_closed);
    assert_eq!(tb.ul[0].rx_beats, [(64, false)]);
    tb.check_rx(0, 64);
    tb.ul[0].req = Some(Req::Close);
    tb.run_until("fully closed", MAX, |tb| !tb.ins[0].established);
    peer.join().expect("peer");
    tb.assert_no_violations();
}

/// While the user logic keeps filling the TX buffer, the socket gets it in
/// writes of at least a quarter of the buffer; once the buffer stops
/// growing (the transfer's end), the rest goes at the next poll.
#[test]
fn tx_is_written_in_large_pieces_while_filling_and_at_once_when_it_stops() {
    const UP: u64 = 200_000 + 77;
    let (l, port) = listener();
    let peer = thread::spawn(move || read_all(&mut accept(&l).0));
    let cfg = net();
    let quarter = (cfg.tx_buffer / 4) as u64;
    let mut tb = Tb::new(1, 64, cfg);
    tb.connect_to(0, 0, port);
    tb.run_until("established", MAX, |tb| tb.ins[0].established);
    // From one poll to the next: the bytes taken from the user logic and
    // the bytes written to the socket so far.
    tb.run_until("a poll boundary", 64, |tb| tb.cycle % tb.poll_every == 0);
    tb.ul[0].tx_total = UP;
    tb.ul[0].tx_enable = true;
    let mut polls = Vec::new();
    while tb.ul[0].tx_sent < UP || polls.last().is_some_and(|&(_, written)| written < UP) {
        tb.run(tb.poll_every);
        let st = tb.toe.stats(0);
        polls.push((st.tx_taken, st.tx_bytes));
        assert!(polls.len() < 1_000, "TX never drained; the last polls (taken, written): {:?}", &polls[990..]);
    }
    let mut prev = (0, 0);
    for (i, &(taken, written)) in polls.iter().enumerate() {
        let grew = taken > prev.0;
        let wrote = written - prev.1;
        if wrote > 0 && grew && taken < UP {
            assert!(prev.0 - prev.1 + (taken - prev.0) >= quarter, "poll {i}: a write of {wrote} bytes while filling");
        }
        if !grew && taken > written {
            panic!("poll {i}: {} bytes left in a buffer that stopped growing", taken - written);
        }
        prev = (taken, written);
    }
    assert_eq!(polls[0].1, 0, "the first poll wrote before a quarter of the buffer filled: {:?}", polls[0]);
    let writes = polls.windows(2).filter(|w| w[1].1 > w[0].1).count();
    assert!(writes <= (UP / quarter + 2) as usize, "{writes} writes of {UP} bytes");
    check_pattern(
        "peer",
        &{
            tb.ul[0].close_after_tx = true;
            tb.run_until("fully closed", MAX, |tb| !tb.ins[0].established);
            peer.join().expect("peer")
        },
        UP,
    );
    tb.assert_no_violations();
}
