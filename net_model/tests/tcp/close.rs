//! Closing: ours first, the peer's first, both at once; the FIN's timer;
//! a close that cancels an open; an open over a live connection.

use net_model::frame::tcp::{ACK_FLAG, FIN, PSH, RST, SYN};
use net_model::tcp::segment::{Header, SynOptions};
use net_model::tcp::{Request, SessionCounter as C, State};

use crate::*;

/// Our FIN: seq ISS + 1 (no data is sent in this part), acknowledging `ack`.
fn our_fin(l: &Link, tb: &Tb, ack: u32, window: u16) -> Out {
    Out { flags: FIN | ACK_FLAG, ..l.want_ack(tb, ack, window, Some(l.tsval)) }
}

/// The host's segment once it has seen our FIN: it acknowledges ISS + 2.
fn after_our_fin(l: &Link, off: usize, flags: u8) -> Header {
    Header { ack: l.iss.wrapping_add(2), ..l.header(off, flags) }
}

fn state_and_established(tb: &Tb) -> (State, bool, bool) {
    let st = tb.status(0);
    (st.state, st.established, st.conn_error)
}

#[test]
fn we_close_first_fin_wait_then_time_wait_then_closed() {
    let mut tb = Tb::new(tcp_cfg(1));
    let l = link(&mut tb);
    let full = l.field(256 * 1024);
    tb.at(2000);
    assert_eq!(tb.request(0, Request::Close), vec![our_fin(&l, &tb, l.seq(0), full)]);
    assert_eq!(state_and_established(&tb), (State::FinWait1, true, false));

    tb.at(2100);
    assert_eq!(tb.send(&after_our_fin(&l, 0, 0), &[]), vec![]);
    assert_eq!(state_and_established(&tb), (State::FinWait2, true, false));
    tb.at(2000 + 20 * RTO);
    assert_eq!(tb.drain(), vec![], "an ACKed FIN does not go again");

    // A half-closed connection still receives; then the peer's FIN.
    let t = tb.now;
    let s = stream(10);
    assert_eq!(tb.send(&after_our_fin(&l, 0, PSH), &s), vec![]);
    let out = tb.send(&after_our_fin(&l, 10, FIN), &[]);
    let ack = Out { seq: l.iss + 2, ..l.want_ack(&tb, l.seq(11), l.field(256 * 1024 - 10), Some(l.tsval)) };
    assert_eq!(out, vec![ack]);
    assert_eq!(state_and_established(&tb), (State::TimeWait, false, false));
    assert!(!tb.status(0).peer_closed);
    assert_eq!(tb.read(0, 100), (s, true));
    assert!(tb.status(0).peer_closed);

    // The peer's FIN again (our ACK was lost): ACKed again.
    tb.at(t + TIME_WAIT / 2);
    let again = tb.send(&after_our_fin(&l, 10, FIN), &[]);
    let ack_again = Out { seq: l.iss + 2, ..l.want_ack(&tb, l.seq(11), l.field(256 * 1024), Some(l.tsval)) };
    assert_eq!(again, vec![ack_again], "a duplicate: ACKed with the window as it is now");
    tb.at(t + TIME_WAIT - 1);
    assert_eq!(tb.drain(), vec![]);
    assert_eq!(tb.state(0), State::TimeWait);
    tb.at(t + TIME_WAIT);
    assert_eq!(tb.drain(), vec![]);
    assert_eq!(state_and_established(&tb), (State::Closed, false, false));
}

#[test]
fn the_peer_closes_first_close_wait_then_last_ack_then_closed() {
    let mut tb = Tb::new(tcp_cfg(1));
    let l = link(&mut tb);
    let full = l.field(256 * 1024);
    tb.at(2000);
    assert_eq!(l.data(&mut tb, 0, &[], FIN), vec![l.want_ack(&tb, l.seq(1), full, Some(l.tsval))]);
    let st = tb.status(0);
    assert_eq!((st.state, st.established, st.peer_closed), (State::CloseWait, true, true));

    tb.at(2100);
    assert_eq!(tb.request(0, Request::Close), vec![our_fin(&l, &tb, l.seq(1), full)]);
    assert_eq!(state_and_established(&tb), (State::LastAck, false, false));

    tb.at(2200);
    assert_eq!(tb.send(&after_our_fin(&l, 1, 0), &[]), vec![]);
    assert_eq!(state_and_established(&tb), (State::Closed, false, false));
    tb.at(2000 + 20 * RTO);
    assert_eq!(tb.drain(), vec![]);
}

#[test]
fn both_close_at_once_closing_then_time_wait() {
    let mut tb = Tb::new(tcp_cfg(1));
    let l = link(&mut tb);
    tb.at(2000);
    assert_eq!(flags_of(&tb.request(0, Request::Close)), vec![FIN | ACK_FLAG]);
    // The peer's FIN crosses ours: it does not acknowledge our FIN yet.
    tb.at(2010);
    let out = l.data(&mut tb, 0, &[], FIN);
    assert_eq!(out, vec![Out { seq: l.iss + 2, ..l.want_ack(&tb, l.seq(1), l.field(256 * 1024), Some(l.tsval)) }]);
    assert_eq!(state_and_established(&tb), (State::Closing, false, false));
    tb.at(2020);
    assert_eq!(tb.send(&after_our_fin(&l, 1, 0), &[]), vec![]);
    assert_eq!(tb.state(0), State::TimeWait);
    tb.at(2020 + TIME_WAIT);
    tb.drain();
    assert_eq!(state_and_established(&tb), (State::Closed, false, false));
}

/// The cycles our FIN went out at from `t0` on, stepping every cycle, and
/// the cycle the state became CLOSED.
fn fin_timeline(tb: &mut Tb, t0: u64) -> (Vec<u64>, Option<u64>) {
    let mut sent = Vec::new();
    let mut closed_at = None;
    while tb.now < t0 + 40 * RTO {
        tb.advance(1);
        for o in tb.drain() {
            assert_eq!(o.flags, FIN | ACK_FLAG);
            sent.push(tb.now);
        }
        if closed_at.is_none() && tb.state(0) == State::Closed {
            closed_at = Some(tb.now);
        }
    }
    (sent, closed_at)
}

#[test]
fn an_unacked_fin_goes_again_with_doubling_waits_then_gives_up() {
    // FIN-WAIT-1: the peer never answers; the connection is given up with conn_error.
    let mut tb = Tb::new(tcp_cfg(1));
    let l = link(&mut tb);
    let t0 = 3000;
    tb.at(t0);
    assert_eq!(tb.request(0, Request::Close), vec![our_fin(&l, &tb, l.seq(0), l.field(256 * 1024))]);
    let (sent, closed_at) = fin_timeline(&mut tb, t0);
    assert_eq!(sent, vec![t0 + RTO, t0 + 3 * RTO, t0 + 7 * RTO]);
    assert_eq!(closed_at, Some(t0 + 15 * RTO));
    assert_eq!(state_and_established(&tb), (State::Closed, false, true));
    assert_eq!(tb.count(0, C::Retransmits), u64::from(RETRIES));

    // LAST-ACK: the peer's FIN is in and every byte was delivered, so
    // giving up closes without conn_error.
    let mut tb = Tb::new(tcp_cfg(1));
    let l = link(&mut tb);
    l.data(&mut tb, 0, &[], FIN);
    tb.at(t0);
    assert_eq!(flags_of(&tb.request(0, Request::Close)), vec![FIN | ACK_FLAG]);
    let (sent, closed_at) = fin_timeline(&mut tb, t0);
    assert_eq!(sent, vec![t0 + RTO, t0 + 3 * RTO, t0 + 7 * RTO]);
    assert_eq!(closed_at, Some(t0 + 15 * RTO));
    assert_eq!(state_and_established(&tb), (State::Closed, false, false));
}

#[test]
fn an_open_on_a_live_connection_resets_it_and_proceeds() {
    for closed_first in [false, true] {
        let what = if closed_first { "after our FIN" } else { "established" };
        let mut tb = Tb::new(tcp_cfg(1));
        let l = link(&mut tb);
        tb.at(2000);
        let snd_nxt = if closed_first {
            tb.request(0, Request::Close);
            l.iss + 2
        } else {
            l.iss + 1
        };
        tb.at(2500);
        let before = tb.counters(0);
        let out = tb.request(0, connect(40001, 5002));
        let rst = Out {
            src_port: 5001,
            dst_port: 40000,
            seq: snd_nxt,
            ack: 0,
            flags: RST,
            window: 0,
            mss: None,
            ws: None,
            ts: None,
            sack_ok: false,
            sack: Blocks::default(),
            payload: 0,
        };
        let syn = Out {
            src_port: 40001,
            dst_port: 5002,
            seq: 2500,
            ack: 0,
            flags: SYN,
            window: 65535,
            mss: Some(1460),
            ws: Some(3),
            ts: Some((25, 0)),
            sack_ok: true,
            sack: Blocks::default(),
            payload: 0,
        };
        assert_eq!(out, vec![rst, syn], "{what}: RST <SEQ=SND.NXT> for the old, then the new SYN");
        tb.assert_moved(0, &before, &[(C::RstsOut, 1)]);
        assert_eq!(state_and_established(&tb), (State::SynSent, false, false), "{what}");
        // The old connection's segments are no longer its own: refused.
        let stale = tb.send(&l.header(0, 0), b"x");
        assert_eq!((flags_of(&stale), stale[0].seq), (vec![RST], l.iss + 1), "{what}");
        tb.at(2600);
        let syn_ack = Header {
            src_port: 5002,
            dst_port: 40001,
            seq: 1,
            ack: 2501,
            flags: SYN | ACK_FLAG,
            window: 1000,
            syn_options: Some(SynOptions { mss: 1200, window_scale: None, sack_permitted: false }),
            timestamps: None,
            sack: SackBlocks::NONE,
        };
        assert_eq!(flags_of(&tb.send(&syn_ack, &[])), vec![ACK_FLAG]);
        let st = tb.status(0);
        assert_eq!((st.established, st.peer_port, st.peer_mss, st.peer_window_scale), (true, 5002, 1200, 0));
    }
}

#[test]
fn a_close_cancels_a_listen_or_a_pending_open() {
    // LISTEN and SYN-SENT: nothing is sent, no error, no timer left.
    for req in [listen(5001), connect(40000, 5001)] {
        let mut tb = Tb::new(tcp_cfg(1));
        tb.at(100);
        tb.request(0, req);
        assert_eq!(tb.request(0, Request::Close), vec![]);
        assert_eq!(state_and_established(&tb), (State::Closed, false, false), "{req:?}");
        tb.at(100 + 20 * RTO);
        assert_eq!(tb.drain(), vec![], "{req:?}");
    }
    // SYN-RECEIVED: the half-open connection is reset (<SEQ=ISS+1>).
    let mut tb = Tb::new(tcp_cfg(1));
    tb.at(100);
    tb.request(0, listen(5001));
    tb.send(&host_syn(5001, 40000, 10, NO_OPTS), &[]);
    tb.at(150);
    let out = tb.request(0, Request::Close);
    assert_eq!((flags_of(&out), out[0].seq, out[0].dst_port), (vec![RST], 101, 40000));
    assert_eq!(state_and_established(&tb), (State::Closed, false, false));
    // A close with no connection has no effect.
    assert_eq!(tb.request(0, Request::Close), vec![]);
    assert_eq!(state_and_established(&tb), (State::Closed, false, false));
}
