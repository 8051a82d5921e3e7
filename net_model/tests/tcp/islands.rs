//! Several islands of out-of-order bytes (`TcpConfig::islands`): a run that
//! touches none starts one while there is room, a segment that touches
//! islands extends them and merges those it bridges, the islands join the
//! stream in order, a FIN ends the last one, and the SACK blocks go most
//! recent first, 3 beside timestamps and 4 without.

use net_model::frame::tcp::FIN;
use net_model::tcp::{SessionCounter as C, State, TcpConfig};

use crate::data::two_segments;
use crate::*;

const KEPT: [(C, u64); 3] = [(C::SegmentsIn, 1), (C::OutOfOrder, 1), (C::AcksOut, 1)];
const DROPPED: [(C, u64); 4] = [(C::SegmentsIn, 1), (C::OutOfOrder, 1), (C::OutOfOrderDropped, 1), (C::AcksOut, 1)];

fn with_islands(n: usize) -> TcpConfig {
    TcpConfig { islands: n, ..tcp_cfg(1) }
}

/// Sends stream bytes [from, to) of `s` (out of order), checks the counters
/// moved as `moved` says and that one ACK of `ack` answered; its SACK blocks.
fn out_of_order(
    tb: &mut Tb,
    l: &Link,
    s: &[u8],
    from: usize,
    to: usize,
    ack: usize,
    moved: &[(C, u64)],
) -> Vec<(u32, u32)> {
    let before = tb.counters(0);
    let out = l.data(tb, from, &s[from..to], 0);
    assert_eq!(out.iter().map(|o| o.ack).collect::<Vec<_>>(), vec![l.seq(ack)], "[{from}, {to})");
    tb.assert_moved(0, &before, moved);
    out[0].sack.list()
}

/// In-order stream bytes [from, to); the ACK numbers that answered.
fn in_order(tb: &mut Tb, l: &Link, s: &[u8], from: usize, to: usize, flags: u8) -> Vec<u32> {
    tb.advance(1);
    l.data(tb, from, &s[from..to], flags).iter().map(|o| o.ack).collect()
}

#[test]
fn the_islands_setting_is_checked_and_defaults_to_four() {
    let mut c = TcpConfig::new(1);
    assert_eq!((c.islands, c.validate()), (4, Ok(())));
    for (n, message) in
        [(0, "tcp.islands = 0 is out of range: 1 ..= 8"), (9, "tcp.islands = 9 is out of range: 1 ..= 8")]
    {
        c.islands = n;
        assert_eq!(c.validate().map_err(|e| e.message().to_string()), Err(message.to_string()));
    }
    for n in [1, 8] {
        c.islands = n;
        assert_eq!(c.validate(), Ok(()));
    }
}

#[test]
fn runs_that_touch_no_island_start_new_ones_until_the_limit_and_join_in_order() {
    let mut tb = Tb::new(with_islands(3));
    let l = link(&mut tb);
    let f = l.full();
    let s = stream(12 * f);
    two_segments(&mut tb, &l, &s);
    // Three runs, arriving out of sequence order: each a new island.
    for k in [3, 7, 5] {
        out_of_order(&mut tb, &l, &s, k * f, (k + 1) * f, 2 * f, &KEPT);
    }
    // A fourth run beyond them, before them or between them: no room, dropped.
    for (from, to) in [(9 * f, 10 * f), (2 * f + 10, 2 * f + 100), (6 * f + 1, 7 * f - 1)] {
        out_of_order(&mut tb, &l, &s, from, to, 2 * f, &DROPPED);
    }
    // A run that touches an island's end still extends it: [7f, 9f).
    out_of_order(&mut tb, &l, &s, 8 * f, 9 * f, 2 * f, &KEPT);
    // The gap before the first fills: it joins, and RCV.NXT (4f) stops short of the next (5f).
    let before = tb.counters(0);
    assert_eq!(in_order(&mut tb, &l, &s, 2 * f, 3 * f, 0), vec![l.seq(4 * f)]);
    tb.assert_moved(0, &before, &[(C::SegmentsIn, 1), (C::BytesInOrder, 2 * f as u64), (C::AcksOut, 1)]);
    assert_eq!(in_order(&mut tb, &l, &s, 4 * f, 5 * f, 0), vec![l.seq(6 * f)]);
    assert_eq!(in_order(&mut tb, &l, &s, 6 * f, 7 * f, 0), vec![l.seq(9 * f)]);
    assert_eq!(read_all(&mut tb, 0), s[..9 * f].to_vec(), "every byte once, in order");
    assert_eq!(tb.count(0, C::BytesInOrder), 9 * f as u64);
}

#[test]
fn a_segment_extends_an_island_at_either_end_and_merges_the_islands_it_bridges() {
    let mut tb = Tb::new(with_islands(2));
    let l = link(&mut tb);
    let s = stream(1000);
    assert_eq!(l.data(&mut tb, 0, &s[..100], 0), vec![]);
    out_of_order(&mut tb, &l, &s, 300, 400, 100, &KEPT);
    out_of_order(&mut tb, &l, &s, 600, 700, 100, &KEPT);
    out_of_order(&mut tb, &l, &s, 800, 900, 100, &DROPPED);
    // Touching the first island's start: it grows to [250, 400).
    out_of_order(&mut tb, &l, &s, 250, 300, 100, &KEPT);
    // Overlapping both: one island [250, 700), which leaves room for another.
    out_of_order(&mut tb, &l, &s, 390, 610, 100, &KEPT);
    out_of_order(&mut tb, &l, &s, 800, 900, 100, &KEPT);
    out_of_order(&mut tb, &l, &s, 150, 200, 100, &DROPPED);
    // Wholly inside an island: kept, adds nothing.
    out_of_order(&mut tb, &l, &s, 420, 480, 100, &KEPT);
    // An in-order segment to 820 covers the first island and reaches the
    // second: both join, each new byte once.
    let before = tb.counters(0);
    assert_eq!(in_order(&mut tb, &l, &s, 100, 820, 0), vec![l.seq(900)]);
    tb.assert_moved(0, &before, &[(C::SegmentsIn, 1), (C::BytesInOrder, 800), (C::AcksOut, 1)]);
    assert_eq!(read_all(&mut tb, 0), s[..900].to_vec());
}

#[test]
fn a_fin_ends_the_last_island_and_joins_with_it() {
    let mut tb = Tb::new(tcp_cfg(1));
    let l = link(&mut tb);
    let s = stream(1000);
    assert_eq!(l.data(&mut tb, 0, &s[..100], 0), vec![]);
    out_of_order(&mut tb, &l, &s, 300, 400, 100, &KEPT);
    let before = tb.counters(0);
    assert_eq!(l.data(&mut tb, 500, &s[500..600], FIN).len(), 1);
    tb.assert_moved(0, &before, &KEPT);
    // Past the FIN, and a FIN before bytes kept: dropped.
    out_of_order(&mut tb, &l, &s, 600, 650, 100, &DROPPED);
    let before = tb.counters(0);
    assert_eq!(l.data(&mut tb, 450, &[], FIN).len(), 1);
    tb.assert_moved(0, &before, &DROPPED);
    let before = tb.counters(0);
    assert_eq!(l.data(&mut tb, 420, &s[420..450], FIN).len(), 1);
    tb.assert_moved(0, &before, &DROPPED);
    // Bytes before the FIN's island extend it at its start.
    out_of_order(&mut tb, &l, &s, 450, 500, 100, &KEPT);
    assert_eq!(in_order(&mut tb, &l, &s, 100, 300, 0), vec![l.seq(400)]);
    assert_eq!(tb.state(0), State::Established);
    assert_eq!(in_order(&mut tb, &l, &s, 400, 450, 0), vec![l.seq(601)], "the bytes and the FIN");
    assert_eq!(tb.state(0), State::CloseWait);
    assert_eq!(read_all(&mut tb, 0), s[..600].to_vec());
    assert!(tb.status(0).peer_closed);
}

#[test]
fn sack_blocks_go_most_recent_first_and_three_beside_timestamps() {
    let mut tb = Tb::new(tcp_cfg(1));
    tb.at(1000);
    let l = passive(&mut tb, 0, 5001, 40000, 1_000_000, PeerOpts { sack: true, ..FULL_OPTS });
    let f = l.full();
    let s = stream(12 * f);
    two_segments(&mut tb, &l, &s);
    let b = |from: usize, to: usize| (l.seq(from), l.seq(to));
    let (a, bb, c) = (b(3 * f, 4 * f), b(5 * f, 6 * f), b(7 * f, 8 * f));
    assert_eq!(out_of_order(&mut tb, &l, &s, 3 * f, 4 * f, 2 * f, &KEPT), vec![a]);
    assert_eq!(out_of_order(&mut tb, &l, &s, 5 * f, 6 * f, 2 * f, &KEPT), vec![bb, a]);
    assert_eq!(out_of_order(&mut tb, &l, &s, 7 * f, 8 * f, 2 * f, &KEPT), vec![c, bb, a]);
    // The island a segment extends goes first.
    let a2 = b(3 * f, 4 * f + 100);
    assert_eq!(out_of_order(&mut tb, &l, &s, 4 * f, 4 * f + 100, 2 * f, &KEPT), vec![a2, c, bb]);
    // So does the island holding a duplicate (RFC 2018: the block of the segment that triggered the ACK).
    assert_eq!(out_of_order(&mut tb, &l, &s, 5 * f, 5 * f + 10, 2 * f, &KEPT), vec![bb, a2, c]);
    // A fourth island: with timestamps only 3 blocks fit, the least recently changed is left out.
    let d = b(9 * f, 10 * f);
    assert_eq!(out_of_order(&mut tb, &l, &s, 9 * f, 10 * f, 2 * f, &KEPT), vec![d, bb, a2]);
    // Bridging [7f, 8f) and [9f, 10f): one block, first.
    let cd = b(7 * f, 10 * f);
    assert_eq!(out_of_order(&mut tb, &l, &s, 8 * f, 9 * f, 2 * f, &KEPT), vec![cd, bb, a2]);
    // The first gap fills: that island joins, the others are still reported.
    tb.advance(1);
    let out = l.data(&mut tb, 2 * f, &s[2 * f..3 * f], 0);
    assert_eq!(
        out.iter().map(|o| (o.ack, o.sack.list())).collect::<Vec<_>>(),
        vec![(l.seq(4 * f + 100), vec![cd, bb])]
    );
    // The ACK's options: timestamps (12) and NOP NOP SACK with two blocks (20).
    assert_eq!(out[0].ts.map(|(_, echo)| echo), Some(l.tsval));
}

#[test]
fn without_timestamps_four_blocks_go() {
    let mut tb = Tb::new(with_islands(8));
    tb.at(1000);
    let opts = PeerOpts { ts: None, sack: true, ..FULL_OPTS };
    let l = passive(&mut tb, 0, 5001, 40000, 1_000_000, opts);
    let f = l.full();
    assert_eq!(f, 1460);
    let s = stream(16 * f);
    two_segments(&mut tb, &l, &s);
    let mut want = Vec::new();
    for k in [3, 5, 7, 9, 11, 13] {
        want.insert(0, (l.seq(k * f), l.seq((k + 1) * f)));
        let got = out_of_order(&mut tb, &l, &s, k * f, (k + 1) * f, 2 * f, &KEPT);
        assert_eq!(got, want[..want.len().min(4)].to_vec(), "island at {k}f");
    }
    // All six are kept: filling the gaps joins each.
    for k in [2, 4, 6, 8, 10, 12] {
        assert_eq!(in_order(&mut tb, &l, &s, k * f, (k + 1) * f, 0), vec![l.seq((k + 2) * f)], "gap at {k}f");
    }
    assert_eq!(read_all(&mut tb, 0), s[..14 * f].to_vec());
    assert_eq!(tb.count(0, C::OutOfOrderDropped), 0);
}

#[test]
fn a_segment_that_does_not_fit_wholly_inside_the_window_is_not_kept() {
    let mut tb = Tb::new(TcpConfig { rx_buffer_bytes: 4096, ..with_islands(2) });
    let l = link(&mut tb);
    let s = stream(5000);
    // Starts inside the window (acceptable), ends past it: dropped whole.
    out_of_order(&mut tb, &l, &s, 3000, 4200, 0, &DROPPED);
    out_of_order(&mut tb, &l, &s, 3000, 4096, 0, &KEPT);
    // An island's bytes fit: the window closes once the gap fills.
    assert_eq!(in_order(&mut tb, &l, &s, 0, 1400, 0), vec![l.seq(1400)]);
    assert_eq!(in_order(&mut tb, &l, &s, 1400, 2800, 0), vec![l.seq(2800)]);
    let out = l.data(&mut tb, 2800, &s[2800..3000], 0);
    assert_eq!(out.iter().map(|o| (o.ack, o.window)).collect::<Vec<_>>(), vec![(l.seq(4096), 0)]);
    assert_eq!(read_all(&mut tb, 0), s[..4096].to_vec());
}
