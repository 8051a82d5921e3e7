//! RSTs and SYNs on a synchronised connection, as RFC 5961 checks them.

use net_model::frame::tcp::{ACK_FLAG, PSH, RST, SYN};
use net_model::tcp::segment::Header;
use net_model::tcp::{SessionCounter as C, SessionStatus, State};

use crate::*;

fn rst(l: &Link, off: usize) -> Header {
    Header { flags: RST, ..l.header(off, 0) }
}

#[test]
fn an_rst_at_exactly_rcv_nxt_resets_and_the_bytes_stay_readable() {
    let mut tb = Tb::new(tcp_cfg(1));
    let l = link(&mut tb);
    let s = stream(50);
    l.data(&mut tb, 0, &s, PSH);
    let before = tb.counters(0);
    assert_eq!(tb.send(&rst(&l, 50), &[]), vec![]);
    tb.assert_moved(0, &before, &[(C::SegmentsIn, 1), (C::RstsIn, 1)]);
    let want = SessionStatus {
        state: State::Closed,
        established: false,
        peer_closed: false,
        conn_error: true,
        peer_port: 40000,
        peer_mss: 1460,
        peer_window_scale: 7,
    };
    assert_eq!(tb.status(0), want);
    assert_eq!(tb.read(0, 100), (s, true), "what came before the reset is still delivered");
    tb.advance(10 * ACK_DELAY);
    assert_eq!(tb.drain(), vec![], "nothing owed any more (the delayed ACK is dropped)");
    // An RST+ACK at RCV.NXT does the same.
    let mut tb = Tb::new(tcp_cfg(1));
    let l = link(&mut tb);
    assert_eq!(tb.send(&l.header(0, RST), &[]), vec![]);
    assert_eq!((tb.state(0), tb.status(0).conn_error), (State::Closed, true));
}

#[test]
fn an_rst_in_the_window_but_not_exact_gets_a_challenge_ack_and_nothing_else() {
    let mut tb = Tb::new(tcp_cfg(1));
    let l = link(&mut tb);
    let challenge = l.want_ack(&tb, l.seq(0), l.field(256 * 1024), Some(l.tsval));
    for off in [1, 1000, 100_000] {
        let before = tb.counters(0);
        assert_eq!(tb.send(&rst(&l, off), &[]), vec![challenge], "RST at RCV.NXT + {off}");
        tb.assert_moved(0, &before, &[(C::SegmentsIn, 1), (C::AcksOut, 1)]);
        let st = tb.status(0);
        assert_eq!((st.state, st.established, st.conn_error), (State::Established, true, false));
    }
    // Outside the window (below RCV.NXT, or beyond the right edge): dropped silently.
    for seq in [l.seq(0).wrapping_sub(1), l.seq(256 * 1024 + 10)] {
        let before = tb.counters(0);
        assert_eq!(tb.send(&Header { seq, ..rst(&l, 0) }, &[]), vec![], "RST at {seq}");
        tb.assert_moved(0, &before, &[(C::SegmentsIn, 1)]);
    }
    assert_eq!(tb.state(0), State::Established);
}

#[test]
fn a_syn_on_an_established_connection_gets_a_challenge_ack() {
    let mut tb = Tb::new(tcp_cfg(1));
    let l = link(&mut tb);
    let challenge = l.want_ack(&tb, l.seq(0), l.field(256 * 1024), Some(l.tsval));
    // In the window: RFC 5961 section 4's challenge ACK.
    let syn = Header { flags: SYN, ack: 0, ..l.header(500, 0) };
    let before = tb.counters(0);
    assert_eq!(tb.send(&syn, &[]), vec![challenge]);
    tb.assert_moved(0, &before, &[(C::SegmentsIn, 1), (C::AcksOut, 1)]);
    // The handshake's own SYN again: old, a duplicate, ACKed.
    let old = Header { seq: l.irs, ..syn };
    let before = tb.counters(0);
    assert_eq!(tb.send(&old, &[]), vec![challenge]);
    tb.assert_moved(0, &before, &[(C::SegmentsIn, 1), (C::Duplicate, 1), (C::AcksOut, 1)]);
    let st = tb.status(0);
    assert_eq!((st.state, st.established, st.conn_error, st.peer_port), (State::Established, true, false, 40000));
}

#[test]
fn an_rst_in_syn_received_returns_a_passive_open_to_listen() {
    let mut tb = Tb::new(tcp_cfg(1));
    tb.at(100);
    tb.request(0, listen(5001));
    assert_eq!(flags_of(&tb.send(&host_syn(5001, 40000, 77, NO_OPTS), &[])), vec![SYN | ACK_FLAG]);
    let rst = Header { flags: RST, seq: 78, ..host_syn(5001, 40000, 77, NO_OPTS) };
    assert_eq!(tb.send(&rst, &[]), vec![]);
    let st = tb.status(0);
    assert_eq!((st.state, st.established, st.conn_error), (State::Listen, false, false));
    tb.at(100 + 20 * RTO);
    assert_eq!(tb.drain(), vec![], "no SYN-ACK after the reset");
    let out = tb.send(&host_syn(5001, 40001, 5, NO_OPTS), &[]);
    assert_eq!((flags_of(&out), out[0].dst_port), (vec![SYN | ACK_FLAG], 40001));
}
