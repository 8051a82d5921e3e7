//! The receive window: filling it, zero-window probes, window updates after
//! reads; the delayed ACK.

use net_model::tcp::SessionCounter as C;

use crate::*;

const BUF: usize = 16 * 1024;

/// A 16 KiB buffer (no scaling: the SYN offers no options), gap `gap_kb`,
/// filled by 1460-byte segments and a last of 324; every ACK checked.
fn filled(gap_kb: u32) -> (Tb, Link, Vec<u8>) {
    let mut cfg = tcp_cfg(1);
    cfg.rx_buffer_bytes = BUF;
    cfg.window_update_gap_kb = gap_kb;
    let mut tb = Tb::new(cfg);
    tb.at(1000);
    let l = passive(&mut tb, 0, 5001, 40000, 0x8000_0000, NO_OPTS);
    let s = stream(BUF + 1000);
    let mut acks = Vec::new();
    for off in (0..BUF).step_by(1460) {
        acks.extend(l.data(&mut tb, off, &s[off..(off + 1460).min(BUF)], 0));
    }
    tb.advance(ACK_DELAY);
    acks.extend(tb.drain());
    let mut want: Vec<Out> =
        [2920, 5840, 8760, 11_680, 14_600].iter().map(|&n| l.want_ack(&tb, l.seq(n), (BUF - n) as u16, None)).collect();
    want.push(l.want_ack(&tb, l.seq(BUF), 0, None));
    assert_eq!(acks, want, "an ACK every two segments, the last delayed, its window 0");
    (tb, l, s)
}

#[test]
fn a_full_buffer_advertises_zero_and_answers_what_comes() {
    let (mut tb, l, s) = filled(4);
    let zero = l.want_ack(&tb, l.seq(BUF), 0, None);

    // New data into a zero window: outside the window, dropped, answered.
    let before = tb.counters(0);
    assert_eq!(l.data(&mut tb, BUF, &s[BUF..BUF + 100], 0), vec![zero]);
    tb.assert_moved(0, &before, &[(C::SegmentsIn, 1), (C::OutsideWindow, 1), (C::AcksOut, 1)]);
    // Zero-window probes: one old byte (seq = RCV.NXT - 1), or no byte at RCV.NXT - 1.
    for probe in [&s[BUF - 1..BUF], &[][..]] {
        let before = tb.counters(0);
        assert_eq!(l.data(&mut tb, BUF - 1, probe, 0), vec![zero], "probe of {} bytes", probe.len());
        tb.assert_moved(0, &before, &[(C::SegmentsIn, 1), (C::Duplicate, 1), (C::AcksOut, 1)]);
    }
    assert_eq!(tb.available(0), BUF);
    assert_eq!(tb.count(0, C::BytesInOrder), BUF as u64);
}

#[test]
fn a_window_update_goes_once_the_edge_moved_the_gap_not_before() {
    let (mut tb, l, s) = filled(4);
    let mut read = 0;
    for (n, update) in [(4095, false), (1, true), (4095, false), (1, true), (100, false)] {
        assert_eq!(tb.read(0, n).0, s[read..read + n].to_vec());
        read += n;
        tb.advance(1);
        let before = tb.counters(0);
        let out = tb.drain();
        if update {
            assert_eq!(out, vec![l.want_ack(&tb, l.seq(BUF), read as u16, None)], "after reading {read}");
            tb.assert_moved(0, &before, &[(C::AcksOut, 1), (C::WindowUpdates, 1)]);
        } else {
            assert_eq!(out, vec![], "after reading {read}: the edge moved less than 4 KiB");
        }
    }
    assert_eq!(tb.count(0, C::WindowUpdates), 2);
    // A probe now learns the window as it is (8192 + 100 free), though no update was due.
    let out = l.data(&mut tb, BUF - 1, &[], 0);
    assert_eq!(out, vec![l.want_ack(&tb, l.seq(BUF), read as u16, None)]);
    // The sender fills the window again: taken.
    let before = tb.counters(0);
    l.data(&mut tb, BUF, &s[BUF..BUF + 1000], 0);
    tb.assert_moved(0, &before, &[(C::SegmentsIn, 1), (C::BytesInOrder, 1000)]);
}

/// With `window_update_gap_kb` = 0 no update ever goes: a sender stuck on
/// a zero window learns of the space from the answers to its probes.
#[test]
fn with_gap_zero_no_update_goes_and_probes_learn_the_window() {
    let (mut tb, l, s) = filled(0);
    assert_eq!(read_all(&mut tb, 0), s[..BUF].to_vec());
    tb.advance(10 * ACK_DELAY);
    assert_eq!(tb.drain(), vec![], "no window update with gap 0");
    assert_eq!(tb.count(0, C::WindowUpdates), 0);
    for probe in [&s[BUF - 1..BUF], &[][..]] {
        let before = tb.counters(0);
        let out = l.data(&mut tb, BUF - 1, probe, 0);
        assert_eq!(out, vec![l.want_ack(&tb, l.seq(BUF), BUF as u16, None)], "probe of {} bytes", probe.len());
        tb.assert_moved(0, &before, &[(C::SegmentsIn, 1), (C::Duplicate, 1), (C::AcksOut, 1)]);
    }
}

/// With window scale the edge moves in steps of 2^shift bytes: the update
/// goes when the advertised edge (not the free space) moved the gap.
#[test]
fn a_scaled_window_update_counts_the_advertised_edge() {
    let mut tb = Tb::new(tcp_cfg(1));
    let l = link(&mut tb);
    assert_eq!(l.shift, 3);
    let f = l.full();
    let s = stream(8 * f);
    for i in (0..8).step_by(2) {
        assert_eq!(l.data(&mut tb, i * f, &s[i * f..(i + 1) * f], 0), vec![]);
        let out = l.data(&mut tb, (i + 1) * f, &s[(i + 1) * f..(i + 2) * f], 0);
        let free = 256 * 1024 - (i + 2) * f;
        assert_eq!(out, vec![l.want_ack(&tb, l.seq((i + 2) * f), (free >> 3) as u16, Some(l.tsval))]);
    }
    let free = 256 * 1024 - 8 * f;
    assert_eq!(free % 8, 0);
    tb.read(0, 8191);
    tb.advance(1);
    assert_eq!(tb.drain(), vec![], "8191 bytes freed: the advertised edge moved 8184 bytes");
    tb.read(0, 1);
    tb.advance(1);
    assert_eq!(tb.drain(), vec![l.want_ack(&tb, l.seq(8 * f), ((free + 8192) >> 3) as u16, Some(l.tsval))]);
    assert_eq!(tb.count(0, C::WindowUpdates), 1);
}

/// With and without timestamps: a full segment is what fits the MSS with
/// the options the host sends on every segment.
#[test]
fn one_segment_is_acked_after_the_delay_two_at_once() {
    for opts in [FULL_OPTS, NO_OPTS] {
        let mut tb = Tb::new(tcp_cfg(1));
        tb.at(1000);
        let l = passive(&mut tb, 0, 5001, 40000, 1_000_000, opts);
        let what = format!("timestamps {}", l.ts);
        let f = l.full();
        let s = stream(10_000);
        let w = |n: usize| l.field(256 * 1024 - n);
        let echo = l.ts.then_some(l.tsval);

        tb.at(2000);
        assert_eq!(l.data(&mut tb, 0, &s[..f], 0), vec![], "{what}");
        tb.at(2000 + ACK_DELAY - 1);
        assert_eq!(tb.drain(), vec![], "{what}");
        tb.at(2000 + ACK_DELAY);
        assert_eq!(tb.drain(), vec![l.want_ack(&tb, l.seq(f), w(f), echo)], "{what}: the delayed ACK, to the cycle");

        tb.at(3000);
        assert_eq!(l.data(&mut tb, f, &s[f..2 * f], 0), vec![], "{what}");
        tb.at(3005);
        let out = l.data(&mut tb, 2 * f, &s[2 * f..3 * f], 0);
        assert_eq!(out, vec![l.want_ack(&tb, l.seq(3 * f), w(3 * f), echo)], "{what}: two full segments: at once");
        tb.at(3000 + 2 * ACK_DELAY);
        assert_eq!(tb.drain(), vec![], "{what}: nothing left to acknowledge");

        // Small segments: the delay runs from the first of them.
        for (i, t) in [4000, 4100, 4200].into_iter().enumerate() {
            tb.at(t);
            let off = 3 * f + 100 * i;
            assert_eq!(l.data(&mut tb, off, &s[off..off + 100], 0), vec![], "{what}");
        }
        tb.at(4000 + ACK_DELAY - 1);
        assert_eq!(tb.drain(), vec![], "{what}");
        tb.at(4000 + ACK_DELAY);
        assert_eq!(tb.drain(), vec![l.want_ack(&tb, l.seq(3 * f + 300), w(3 * f + 300), echo)], "{what}");
    }
}
