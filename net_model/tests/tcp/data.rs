//! The receive path: in-order data on the rx stream, push points and
//! `last`, the FIN and `peer_closed`, duplicates and overlaps, one island
//! of out-of-order bytes (`islands = 1`; several are in `islands.rs`).

use net_model::frame::tcp::{FIN, PSH};
use net_model::tcp::{RxBeat, SessionCounter as C, State};

use crate::*;

const BEAT: usize = 16;

fn beat(data: &[u8], last: bool) -> Option<RxBeat> {
    Some(RxBeat { data: data.to_vec(), last })
}

#[test]
fn full_beats_always_and_a_partial_beat_only_at_a_push_point() {
    let mut tb = Tb::new(tcp_cfg(1));
    let l = link(&mut tb);
    let s = stream(200);
    let before = tb.counters(0);
    assert_eq!(l.data(&mut tb, 0, &s[..100], 0), vec![]);
    tb.assert_moved(0, &before, &[(C::SegmentsIn, 1), (C::BytesInOrder, 100)]);
    assert_eq!(tb.available(0), 100);
    for i in 0..6 {
        assert_eq!(tb.beat(0, BEAT), beat(&s[i * 16..i * 16 + 16], false), "beat {i}");
    }
    assert_eq!(tb.beat(0, BEAT), None, "4 bytes and no push point: no partial beat");
    assert_eq!(tb.available(0), 4);
    // The SYN-ACK could advertise only 65535 bytes (unscaled); the read
    // moved the right edge far past it: a window update, which also ACKs.
    assert_eq!(tb.drain(), vec![l.want_ack(&tb, l.seq(100), l.field(256 * 1024 - 4), Some(l.tsval))]);
    assert_eq!(tb.count(0, C::WindowUpdates), 1);

    // PSH at byte 120: the 24 bytes go as a full beat and a partial one with last.
    assert_eq!(l.data(&mut tb, 100, &s[100..120], PSH), vec![]);
    assert_eq!(tb.beat(0, BEAT), beat(&s[96..112], false));
    assert_eq!(tb.beat(0, BEAT), beat(&s[112..120], true));
    assert_eq!(tb.beat(0, BEAT), None);

    // A push point on a beat boundary: the full beat carries last.
    assert_eq!(l.data(&mut tb, 120, &s[120..152], PSH), vec![]);
    assert_eq!(tb.beat(0, BEAT), beat(&s[120..136], false));
    assert_eq!(tb.beat(0, BEAT), beat(&s[136..152], true));

    // Two push points inside one beat's worth: each ends its own beat.
    assert_eq!(l.data(&mut tb, 152, &s[152..155], PSH), vec![]);
    assert_eq!(l.data(&mut tb, 155, &s[155..160], PSH), vec![]);
    assert_eq!(tb.beat(0, BEAT), beat(&s[152..155], true));
    assert_eq!(tb.beat(0, BEAT), beat(&s[155..160], true));
    assert_eq!(tb.beat(0, BEAT), None);
    // read_rx stops at a push point too.
    assert_eq!(l.data(&mut tb, 160, &s[160..170], PSH), vec![]);
    assert_eq!(l.data(&mut tb, 170, &s[170..180], 0), vec![]);
    assert_eq!(tb.read(0, 100), (s[160..170].to_vec(), true));
    assert_eq!(tb.read(0, 100), (s[170..180].to_vec(), false));
    assert_eq!(tb.count(0, C::BytesInOrder), 180);
}

#[test]
fn peer_closed_rises_once_every_byte_before_the_fin_was_taken() {
    let mut tb = Tb::new(tcp_cfg(1));
    let l = link(&mut tb);
    let s = stream(40);
    tb.advance(5);
    let out = l.data(&mut tb, 0, &s, FIN);
    // The FIN is ACKed at once: RCV.NXT is past the data and the FIN.
    let window = l.field(256 * 1024 - 40);
    assert_eq!(out, vec![l.want_ack(&tb, l.seq(41), window, Some(l.tsval))]);
    let st = tb.status(0);
    assert_eq!((st.state, st.established, st.peer_closed), (State::CloseWait, true, false));
    assert_eq!(tb.beat(0, BEAT), beat(&s[..16], false));
    assert_eq!(tb.beat(0, BEAT), beat(&s[16..32], false));
    assert!(!tb.status(0).peer_closed, "8 bytes still wait");
    assert_eq!(tb.beat(0, BEAT), beat(&s[32..], true), "the FIN is a push point");
    assert!(tb.status(0).peer_closed);
    assert_eq!(tb.beat(0, BEAT), None);
}

#[test]
fn a_duplicate_is_acked_at_once_and_delivers_nothing() {
    let mut tb = Tb::new(tcp_cfg(1));
    let l = link(&mut tb);
    let s = stream(300);
    assert_eq!(l.data(&mut tb, 0, &s[..100], 0), vec![]);
    tb.advance(ACK_DELAY);
    let window = l.field(256 * 1024 - 100);
    assert_eq!(tb.drain(), vec![l.want_ack(&tb, l.seq(100), window, Some(l.tsval))]);

    // The same segment again, and a part of it.
    for (from, to) in [(0, 100), (40, 60), (0, 1)] {
        tb.advance(1);
        let before = tb.counters(0);
        let out = l.data(&mut tb, from, &s[from..to], 0);
        assert_eq!(out, vec![l.want_ack(&tb, l.seq(100), window, Some(l.tsval))], "[{from}, {to})");
        tb.assert_moved(0, &before, &[(C::SegmentsIn, 1), (C::Duplicate, 1), (C::AcksOut, 1)]);
        assert_eq!(tb.available(0), 100);
    }

    // Old and new bytes together: only the new ones are taken, and the ACK goes at once.
    tb.advance(1);
    let before = tb.counters(0);
    let out = l.data(&mut tb, 50, &s[50..150], 0);
    assert_eq!(out, vec![l.want_ack(&tb, l.seq(150), l.field(256 * 1024 - 150), Some(l.tsval))]);
    tb.assert_moved(0, &before, &[(C::SegmentsIn, 1), (C::BytesInOrder, 50), (C::AcksOut, 1)]);
    assert_eq!(read_all(&mut tb, 0), s[..150].to_vec());
}

/// `tcp_cfg(1)` keeping one island of out-of-order bytes.
pub fn one_island() -> TcpConfig {
    TcpConfig { islands: 1, ..tcp_cfg(1) }
}

/// Two full segments on `l`: bytes [0, 2 * full) in, and the one ACK they get.
pub fn two_segments(tb: &mut Tb, l: &Link, s: &[u8]) -> Out {
    let f = l.full();
    assert_eq!(l.data(tb, 0, &s[..f], 0), vec![]);
    let out = l.data(tb, f, &s[f..2 * f], 0);
    assert_eq!(out.len(), 1, "two full segments are ACKed at once");
    out[0]
}

#[test]
fn out_of_order_bytes_wait_in_the_island_and_join_when_the_gap_fills() {
    let mut tb = Tb::new(one_island());
    let l = link(&mut tb);
    let f = l.full();
    let s = stream(20 * f);
    let first = two_segments(&mut tb, &l, &s);
    let w1 = l.field(256 * 1024 - 2 * f);
    assert_eq!(first, l.want_ack(&tb, l.seq(2 * f), w1, Some(l.tsval)));

    // Reading frees space (less than the update gap): the window grows, no update goes.
    assert_eq!(tb.read(0, 1000).0, s[..1000].to_vec());
    tb.advance(1);
    assert_eq!(tb.drain(), vec![]);
    let w2 = l.field(256 * 1024 - 2 * f + 1000);
    assert_ne!(w1, w2);

    // A gap at [2f, 3f): the next segment waits in the island; the
    // duplicate ACK repeats the last window so the sender counts it.
    let dup = l.want_ack(&tb, l.seq(2 * f), w1, Some(l.tsval));
    let before = tb.counters(0);
    assert_eq!(l.data(&mut tb, 3 * f, &s[3 * f..4 * f], 0), vec![dup]);
    tb.assert_moved(0, &before, &[(C::SegmentsIn, 1), (C::OutOfOrder, 1), (C::AcksOut, 1)]);
    assert_eq!(tb.available(0), 2 * f - 1000);

    // One that extends the island at its end is kept too (overlapping it a little).
    let before = tb.counters(0);
    let end = 5 * f - 40;
    assert_eq!(l.data(&mut tb, 4 * f - 40, &s[4 * f - 40..end], 0), vec![dup]);
    tb.assert_moved(0, &before, &[(C::SegmentsIn, 1), (C::OutOfOrder, 1), (C::AcksOut, 1)]);

    // With one island, one beyond the island's end and one before its
    // start (neither touching it): dropped.
    for (from, to) in [(6 * f, 7 * f), (2 * f + 80, 3 * f - 10)] {
        let before = tb.counters(0);
        assert_eq!(l.data(&mut tb, from, &s[from..to], 0), vec![dup], "[{from}, {to})");
        tb.assert_moved(
            0,
            &before,
            &[(C::SegmentsIn, 1), (C::OutOfOrder, 1), (C::OutOfOrderDropped, 1), (C::AcksOut, 1)],
        );
    }
    assert_eq!(tb.available(0), 2 * f - 1000);

    // The gap fills: the island joins, one ACK acknowledges everything.
    tb.advance(1);
    let before = tb.counters(0);
    let out = l.data(&mut tb, 2 * f, &s[2 * f..3 * f], 0);
    let free = 256 * 1024 - (end - 1000);
    assert_eq!(out, vec![l.want_ack(&tb, l.seq(end), l.field(free), Some(l.tsval))]);
    tb.assert_moved(0, &before, &[(C::SegmentsIn, 1), (C::BytesInOrder, (end - 2 * f) as u64), (C::AcksOut, 1)]);
    assert_eq!(read_all(&mut tb, 0), s[1000..end].to_vec(), "every byte once, in order");
    assert_eq!(tb.count(0, C::BytesInOrder), end as u64);
}

#[test]
fn a_fin_in_the_island_is_taken_when_the_island_joins() {
    let mut tb = Tb::new(tcp_cfg(1));
    let l = link(&mut tb);
    let s = stream(1000);
    assert_eq!(l.data(&mut tb, 0, &s[..300], PSH), vec![]);
    tb.advance(ACK_DELAY);
    let w = l.field(256 * 1024 - 300);
    assert_eq!(tb.drain(), vec![l.want_ack(&tb, l.seq(300), w, Some(l.tsval))]);

    // [600, 1000) + FIN before [300, 600).
    let out = l.data(&mut tb, 600, &s[600..], FIN);
    assert_eq!(out, vec![l.want_ack(&tb, l.seq(300), w, Some(l.tsval))]);
    assert_eq!(tb.state(0), State::Established, "the FIN is not in yet");
    // Nothing extends an island that ends with the FIN.
    let before = tb.counters(0);
    assert_eq!(l.data(&mut tb, 1000, b"late", 0).len(), 1);
    assert_eq!(tb.count(0, C::OutOfOrderDropped) - before[C::OutOfOrderDropped as usize], 1);

    // The gap filler overlaps the island's first 100 bytes: each byte joins once.
    tb.advance(1);
    let before = tb.counters(0);
    let out = l.data(&mut tb, 300, &s[300..700], 0);
    assert_eq!(out, vec![l.want_ack(&tb, l.seq(1001), l.field(256 * 1024 - 1000), Some(l.tsval))]);
    tb.assert_moved(0, &before, &[(C::SegmentsIn, 1), (C::BytesInOrder, 700), (C::AcksOut, 1)]);
    let st = tb.status(0);
    assert_eq!((st.state, st.peer_closed), (State::CloseWait, false));
    assert_eq!(tb.read(0, 2000), (s[..300].to_vec(), true));
    assert_eq!(tb.read(0, 2000), (s[300..].to_vec(), true), "the FIN's push point");
    assert!(tb.status(0).peer_closed);
}

#[test]
fn with_sack_permitted_the_island_is_reported_as_one_sack_block() {
    let mut tb = Tb::new(one_island());
    tb.at(1000);
    let l = passive(&mut tb, 0, 5001, 40000, 1_000_000, PeerOpts { sack: true, ..FULL_OPTS });
    let f = l.full();
    let s = stream(8 * f);
    let first = two_segments(&mut tb, &l, &s);
    assert_eq!(first.sack.list(), vec![], "no island, no block");
    // A gap at [2f, 3f): the duplicate ACK carries the island [3f, 4f) as a block.
    let out = l.data(&mut tb, 3 * f, &s[3 * f..4 * f], 0);
    let block = (l.seq(3 * f), l.seq(4 * f));
    assert_eq!(out, vec![Out { sack: blocks(&[block]), ..first }]);
    // The island grows; the block with it.
    let out = l.data(&mut tb, 4 * f, &s[4 * f..5 * f], 0);
    assert_eq!(out.iter().map(|o| o.sack.list()).collect::<Vec<_>>(), vec![vec![(l.seq(3 * f), l.seq(5 * f))]]);
    // With one island, a segment that cannot join is not reported: only kept bytes are SACKed.
    let out = l.data(&mut tb, 6 * f, &s[6 * f..7 * f], 0);
    assert_eq!(out.iter().map(|o| o.sack.list()).collect::<Vec<_>>(), vec![vec![(l.seq(3 * f), l.seq(5 * f))]]);
    // The gap fills: the ACK covers the island and carries no block.
    tb.advance(1);
    let out = l.data(&mut tb, 2 * f, &s[2 * f..3 * f], 0);
    assert_eq!(out.iter().map(|o| (o.ack, o.sack.list())).collect::<Vec<_>>(), vec![(l.seq(5 * f), vec![])]);
}

#[test]
fn without_sack_permitted_no_block_is_sent_and_our_syn_ack_does_not_offer_it() {
    let mut tb = Tb::new(tcp_cfg(1));
    let l = link(&mut tb);
    let f = l.full();
    let s = stream(4 * f);
    two_segments(&mut tb, &l, &s);
    let out = l.data(&mut tb, 3 * f, &s[3 * f..4 * f], 0);
    assert_eq!(out.iter().map(|o| o.sack.list()).collect::<Vec<_>>(), vec![vec![]]);
}
