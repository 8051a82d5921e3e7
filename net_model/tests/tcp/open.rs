//! Opening: the passive and the active handshake, their options, the
//! listeners of one port, segments of no connection, the SYN timers.

use net_model::frame::tcp::{ACK_FLAG, PSH, RST, SYN};
use net_model::tcp::segment::{Header, SynOptions};
use net_model::tcp::{EngineCounter, SessionCounter, SessionStatus, State, RST_QUEUE};
use net_model::NetNode;

use crate::*;

#[test]
fn a_syn_with_options_gets_a_syn_ack_with_ours_and_the_ack_establishes() {
    let mut c = node_cfg(tcp_cfg(1));
    c.mtu = 9000;
    c.tx_buffer_bytes = net_model::config::default_tx_buffer_bytes(9000);
    let mut tb = Tb::with(c);
    assert_eq!(tcp_cfg(1).window_scale(), 3, "256 KiB needs a shift of 3 to fit 16 bits");
    tb.at(10_000);
    assert_eq!(tb.request(0, listen(5001)), vec![]);
    let out = tb.send(&host_syn(5001, 40000, 1000, FULL_OPTS), &[]);
    let syn_ack = Out {
        src_port: 5001,
        dst_port: 40000,
        seq: 10_000,
        ack: 1001,
        flags: SYN | ACK_FLAG,
        window: 65535,
        mss: Some(8960),
        ws: Some(3),
        ts: Some((100, 5000)),
        sack_ok: false,
        sack: Blocks::default(),
        payload: 0,
    };
    assert_eq!(out, vec![syn_ack], "MSS = MTU - 40, our shift, TSecr = the SYN's TSval, window min(buffer, 65535)");
    assert_eq!(tb.state(0), State::SynReceived);
    assert!(!tb.status(0).established);

    tb.at(10_050);
    let ack = Header {
        src_port: 40000,
        dst_port: 5001,
        seq: 1001,
        ack: 10_001,
        flags: ACK_FLAG,
        window: 502,
        syn_options: None,
        timestamps: Some((5001, 100)),
        sack: SackBlocks::NONE,
    };
    assert_eq!(tb.send(&ack, &[]), vec![]);
    let want = SessionStatus {
        state: State::Established,
        established: true,
        peer_closed: false,
        conn_error: false,
        peer_port: 40000,
        peer_mss: 1460,
        peer_window_scale: 7,
    };
    assert_eq!(tb.status(0), want);

    // Later segments: the window scaled by 3, timestamps on every one.
    tb.at(10_100);
    let data = Header { flags: ACK_FLAG | PSH, timestamps: Some((5002, 100)), ..ack };
    assert_eq!(tb.send(&data, &[7; 100]), vec![], "one small segment: the ACK is delayed");
    tb.at(10_100 + ACK_DELAY);
    let window = ((256 * 1024 - 100) >> 3) as u16;
    assert_eq!(tb.drain(), vec![Out::ack(5001, 40000, 10_001, 1101, window, Some((106, 5002)))]);
}

#[test]
fn the_syn_ack_window_is_the_buffer_unscaled_up_to_65535() {
    for (kib, window, shift) in [(4, 4096, 0), (16, 16384, 0), (64, 65535, 1), (4096, 65535, 7)] {
        let mut cfg = tcp_cfg(1);
        cfg.rx_buffer_bytes = kib * 1024;
        assert_eq!(cfg.window_scale(), shift, "{kib} KiB");
        let mut tb = Tb::new(cfg);
        tb.at(50);
        tb.request(0, listen(80));
        let out = tb.send(&host_syn(80, 1234, 0, FULL_OPTS), &[]);
        assert_eq!((out[0].window, out[0].ws), (window, Some(shift)), "{kib} KiB");
    }
}

/// Window scale and timestamps are each used only when the host's SYN offered them.
#[test]
fn options_the_syn_does_not_offer_are_not_used() {
    for (ws, ts) in [(false, false), (true, false), (false, true), (true, true)] {
        let what = format!("SYN with window scale {ws}, timestamps {ts}");
        // (The builder puts window scale beside an MSS option only.)
        let mss = if ws { Some(1000) } else { None };
        let o = PeerOpts { mss, ws: ws.then_some(2), ts: ts.then_some(77), sack: false };
        let mut tb = Tb::new(tcp_cfg(1));
        tb.at(300);
        tb.request(0, listen(5001));
        let out = tb.send(&host_syn(5001, 40000, 9, o), &[]);
        assert_eq!(out.len(), 1, "{what}");
        assert_eq!((out[0].mss, out[0].ws, out[0].ts), (Some(1460), ws.then_some(3), ts.then_some((3, 77))), "{what}");
        tb.at(301);
        let link = Link { s: 0, port: 5001, peer_port: 40000, irs: 9, iss: 300, ts, tsval: 78, shift: 0 };
        assert_eq!(tb.send(&link.header(0, 0), &[]), vec![], "{what}");
        let st = tb.status(0);
        let want = (true, mss.unwrap_or(536), if ws { 2 } else { 0 });
        assert_eq!((st.established, st.peer_mss, st.peer_window_scale), want, "{what}");
        // Two full segments: the ACK goes at once.
        let f = link.full();
        assert_eq!(link.data(&mut tb, 0, &vec![1; f], 0), vec![], "{what}");
        let out = link.data(&mut tb, f, &vec![2; f], 0);
        let free = 256 * 1024 - 2 * f;
        let window = if ws { (free >> 3) as u16 } else { 65535 };
        let want = Out::ack(5001, 40000, 301, link.seq(2 * f), window, ts.then_some((3, 78)));
        assert_eq!(out, vec![want], "{what}");
    }
}

#[test]
fn syns_go_to_the_lowest_listening_session_and_the_rest_are_refused() {
    let mut tb = Tb::new(tcp_cfg(4));
    tb.at(100);
    tb.request(0, listen(6000));
    for s in 1..4 {
        tb.request(s, listen(5001));
    }
    for s in 1..4usize {
        tb.advance(10);
        let peer = 40000 + s as u16;
        let isn = 7000 * s as u32;
        let out = tb.send(&host_syn(5001, peer, isn, NO_OPTS), &[]);
        assert_eq!(out.len(), 1, "SYN {s}");
        let o = &out[0];
        let iss = (tb.now as u32) + ((s as u32) << 24);
        assert_eq!(
            (o.flags, o.src_port, o.dst_port, o.seq, o.ack),
            (SYN | ACK_FLAG, 5001, peer, iss, isn + 1),
            "SYN {s}"
        );
        assert_eq!((tb.state(s), tb.status(s).peer_port), (State::SynReceived, peer), "SYN {s}");
        for later in s + 1..4 {
            assert_eq!(tb.state(later), State::Listen, "SYN {s}: session {later} still listens");
        }
    }
    assert_eq!(tb.state(0), State::Listen);
    assert_eq!(tb.engine_count(EngineCounter::NoConnection), 0);

    // A fourth SYN, with 10 bytes of data: nobody listens on 5001 any more.
    // RST+ACK, seq 0, ack = SEG.SEQ + SEG.LEN (the SYN and the data), wrapping.
    tb.advance(10);
    let out = tb.send(&host_syn(5001, 40004, 0xffff_fffa, NO_OPTS), &[0x55; 10]);
    let rst_ack = Out {
        src_port: 5001,
        dst_port: 40004,
        seq: 0,
        ack: 5,
        flags: RST | ACK_FLAG,
        window: 0,
        mss: None,
        ws: None,
        ts: None,
        sack_ok: false,
        sack: Blocks::default(),
        payload: 0,
    };
    assert_eq!(out, vec![rst_ack]);
    assert_eq!(tb.engine_count(EngineCounter::NoConnection), 1);
    assert_eq!(tb.engine_count(EngineCounter::RstsOut), 1);
    for s in 0..4 {
        assert_eq!(tb.count(s, SessionCounter::SegmentsIn), u64::from(s > 0), "session {s} saw only its own SYN");
    }

    // A bare ACK to a closed port, and one to the listening port 6000 (a
    // listener takes SYNs only): RST with seq = SEG.ACK, no ACK bit.
    for port in [7000, 6000] {
        let ack = Header {
            src_port: 40005,
            dst_port: port,
            seq: 1234,
            ack: 0xdead_beef,
            flags: ACK_FLAG,
            window: 100,
            syn_options: None,
            timestamps: None,
            sack: SackBlocks::NONE,
        };
        let rst = Out { src_port: port, dst_port: 40005, seq: 0xdead_beef, ack: 0, flags: RST, ..rst_ack };
        assert_eq!(tb.send(&ack, b"abc"), vec![rst], "ACK to port {port}");
    }
    assert_eq!(tb.state(0), State::Listen);
    assert_eq!(tb.count(0, SessionCounter::SegmentsIn), 0);
    assert_eq!(tb.engine_count(EngineCounter::NoConnection), 3);
    assert_eq!(tb.engine_count(EngineCounter::RstsOut), 3);

    // An RST (with or without ACK) to no connection is not answered.
    for flags in [RST, RST | ACK_FLAG] {
        let rst = Header { flags, ..host_syn(7000, 40006, 99, NO_OPTS) };
        assert_eq!(tb.send(&rst, &[]), vec![], "flags {flags:#x}");
    }
    assert_eq!(tb.engine_count(EngineCounter::NoConnection), 5);
    assert_eq!(tb.engine_count(EngineCounter::RstsOut), 3);
}

/// RSTs wait in a queue of `RST_QUEUE` while the transmit buffer is full;
/// beyond that they are counted and not sent.
#[test]
fn rsts_beyond_the_queue_are_counted_not_sent() {
    let mut tb = Tb::new(tcp_cfg(1));
    let capacity = tb.node.config().tx_buffer_bytes;
    assert_eq!(capacity, 4096);
    let fit = capacity / 60; // every RST frame is padded to 60 bytes
    let n = 80;
    for i in 0..n {
        let syn = host_syn(9, 1000 + i as u16, i, NO_OPTS);
        let ends = Ends { src_mac: HOST_MAC, dst_mac: FPGA_MAC, src_ip: HOST_IP, dst_ip: FPGA_IP };
        tb.node.receive(&segment::frame(ends, &syn, &[]), false, 1);
    }
    let sent = (fit + RST_QUEUE) as u64;
    assert_eq!(tb.engine_count(EngineCounter::NoConnection), u64::from(n));
    assert_eq!(tb.engine_count(EngineCounter::RstsOut), sent);
    assert_eq!(tb.engine_count(EngineCounter::RstQueueFull), u64::from(n) - sent);
    tb.at(2);
    let out = tb.drain();
    assert_eq!(out.len() as u64, sent);
    let ports: Vec<u16> = out.iter().map(|o| o.dst_port).collect();
    let want: Vec<u16> = (0..sent as u16).map(|i| 1000 + i).collect();
    assert_eq!(ports, want, "the first ones, in order");
}

#[test]
fn an_active_open_offers_options_and_the_syn_ack_establishes() {
    let mut tb = Tb::new(tcp_cfg(3));
    tb.at(5000);
    let out = tb.request(2, connect(40000, 5001));
    let iss = 5000 + (2 << 24);
    let syn = Out {
        src_port: 40000,
        dst_port: 5001,
        seq: iss,
        ack: 0,
        flags: SYN,
        window: 65535,
        mss: Some(1460),
        ws: Some(3),
        ts: Some((50, 0)),
        sack_ok: true,
        sack: Blocks::default(),
        payload: 0,
    };
    assert_eq!(out, vec![syn]);
    assert_eq!(tb.state(2), State::SynSent);

    tb.at(5100);
    let syn_ack = Header {
        src_port: 5001,
        dst_port: 40000,
        seq: 7000,
        ack: iss + 1,
        flags: SYN | ACK_FLAG,
        window: 29200,
        syn_options: Some(SynOptions { mss: 1400, window_scale: Some(2), sack_permitted: false }),
        timestamps: Some((999, 50)),
        sack: SackBlocks::NONE,
    };
    let out = tb.send(&syn_ack, &[]);
    assert_eq!(out, vec![Out::ack(40000, 5001, iss + 1, 7001, 32768, Some((51, 999)))]);
    let want = SessionStatus {
        state: State::Established,
        established: true,
        peer_closed: false,
        conn_error: false,
        peer_port: 5001,
        peer_mss: 1400,
        peer_window_scale: 2,
    };
    assert_eq!(tb.status(2), want);
    tb.at(5100 + 10 * RTO);
    assert_eq!(tb.drain(), vec![], "no SYN goes again once established");
    assert_eq!(tb.count(2, SessionCounter::Retransmits), 0);
}

#[test]
fn an_rst_with_a_good_ack_in_syn_sent_refuses_the_open() {
    let mut tb = Tb::new(tcp_cfg(1));
    tb.at(5000);
    assert_eq!(tb.request(0, connect(40000, 5001)).len(), 1);
    let base = Header {
        src_port: 5001,
        dst_port: 40000,
        seq: 0,
        ack: 5001,
        flags: RST | ACK_FLAG,
        window: 0,
        syn_options: None,
        timestamps: None,
        sack: SackBlocks::NONE,
    };
    tb.at(5010);
    // Not taken: an RST without ACK, an RST+ACK for another SYN.
    assert_eq!(tb.send(&Header { flags: RST, ..base }, &[]), vec![]);
    assert_eq!(tb.send(&Header { ack: 5000, ..base }, &[]), vec![]);
    assert_eq!(tb.state(0), State::SynSent);
    // An ACK of something never sent: RST <SEQ=SEG.ACK>, still SYN-SENT.
    let bad = tb.send(&Header { flags: ACK_FLAG, ack: 6000, seq: 33, ..base }, &[]);
    assert_eq!(flags_of(&bad), vec![RST]);
    assert_eq!((bad[0].seq, bad[0].ack), (6000, 0));
    assert_eq!(tb.state(0), State::SynSent);

    let before = tb.counters(0);
    assert_eq!(tb.send(&base, &[]), vec![]);
    let st = tb.status(0);
    assert_eq!((st.state, st.established, st.conn_error), (State::Closed, false, true));
    tb.assert_moved(0, &before, &[(SessionCounter::SegmentsIn, 1), (SessionCounter::RstsIn, 1)]);
    tb.at(5000 + 20 * RTO);
    assert_eq!(tb.drain(), vec![], "no SYN after the refusal");
}

/// Steps every cycle from `tb.now` to `until`, draining; the cycles frames
/// went out at, with the frames.
fn every_cycle(tb: &mut Tb, until: u64, mut watch: impl FnMut(&Tb)) -> Vec<(u64, Out)> {
    let mut seen = Vec::new();
    while tb.now < until {
        tb.advance(1);
        for o in tb.drain() {
            seen.push((tb.now, o));
        }
        watch(tb);
    }
    seen
}

#[test]
fn an_unanswered_syn_goes_again_with_doubling_waits_then_fails() {
    let mut tb = Tb::new(tcp_cfg(1));
    let t0 = 20_000;
    tb.at(t0);
    let first = tb.request(0, connect(40000, 5001));
    assert_eq!(flags_of(&first), vec![SYN]);
    let mut failed_at = None;
    let seen = every_cycle(&mut tb, t0 + 40 * RTO, |tb| {
        if tb.status(0).conn_error && failed_at.is_none() {
            failed_at = Some(tb.now);
        }
    });
    let cycles: Vec<u64> = seen.iter().map(|(t, _)| *t).collect();
    // RTO, then 2, 4 RTO; after the third retry a wait of 8 RTO, then the error.
    assert_eq!(cycles, vec![t0 + RTO, t0 + 3 * RTO, t0 + 7 * RTO]);
    for (t, o) in &seen {
        let want = Out { ts: Some(((t / TS_TICK) as u32, 0)), ..first[0] };
        assert_eq!(o, &want, "the SYN again at {t}");
    }
    assert_eq!(failed_at, Some(t0 + 15 * RTO));
    let st = tb.status(0);
    assert_eq!((st.state, st.established), (State::Closed, false));
    assert_eq!(tb.count(0, SessionCounter::Retransmits), u64::from(RETRIES));
}

#[test]
fn an_unanswered_syn_ack_goes_again_then_the_session_listens_again() {
    let mut tb = Tb::new(tcp_cfg(1));
    let t0 = 2000;
    tb.at(t0);
    tb.request(0, listen(5001));
    let syn = host_syn(5001, 40000, 300, FULL_OPTS);
    let first = tb.send(&syn, &[]);
    assert_eq!(flags_of(&first), vec![SYN | ACK_FLAG]);
    // The same SYN again (its SYN-ACK was lost): the SYN-ACK goes at once,
    // not counted as a time-out retransmission.
    tb.at(t0 + 10);
    assert_eq!(flags_of(&tb.send(&syn, &[])), vec![SYN | ACK_FLAG]);
    assert_eq!(tb.count(0, SessionCounter::Retransmits), 0);
    let mut back_at = None;
    let seen = every_cycle(&mut tb, t0 + 40 * RTO, |tb| {
        if tb.state(0) == State::Listen && back_at.is_none() {
            back_at = Some(tb.now);
        }
    });
    let cycles: Vec<u64> = seen.iter().map(|(t, _)| *t).collect();
    let t1 = t0 + 10;
    assert_eq!(cycles, vec![t1 + RTO, t1 + 3 * RTO, t1 + 7 * RTO]);
    assert!(seen.iter().all(|(_, o)| o.flags == SYN | ACK_FLAG && o.seq == t0 as u32));
    assert_eq!(back_at, Some(t1 + 15 * RTO));
    assert!(!tb.status(0).conn_error, "a passive open has no time-out error");
    // The listener takes the next SYN.
    let out = tb.send(&host_syn(5001, 40001, 1, NO_OPTS), &[]);
    assert_eq!((out.len(), out[0].dst_port), (1, 40001));
}

#[test]
fn an_open_before_init_fails_at_once() {
    for req in [connect(40000, 5001), listen(5001)] {
        let mut node = NetNode::new(node_cfg(tcp_cfg(1))).expect("config");
        node.tcp_request(0, req, 10);
        let st = node.tcp().expect("engine").status(0);
        assert_eq!((st.state, st.established, st.conn_error), (State::Closed, false, true), "{req:?}");
        assert_eq!(node.transmit(20), None, "{req:?}");
        // After init the same request proceeds (and clears conn_error).
        node.init(30);
        node.tcp_request(0, req, 40);
        let st = node.tcp().expect("engine").status(0);
        assert!(!st.conn_error, "{req:?}");
        assert!(matches!(st.state, State::SynSent | State::Listen), "{req:?}");
    }
}
