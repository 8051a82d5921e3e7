//! RFC 7323 timestamps: TS.Recent follows only the segment at the left
//! edge of the window, so the echo times the round trip of what was ACKed.

use net_model::frame::tcp::FIN;
use net_model::tcp::segment::Header;

use crate::*;

fn with_tsval(l: &Link, off: usize, flags: u8, tsval: u32) -> Header {
    Header { timestamps: Some((tsval, 1)), ..l.header(off, flags) }
}

#[test]
fn ts_recent_follows_only_the_segment_at_the_left_edge() {
    let mut tb = Tb::new(tcp_cfg(1));
    let l = link(&mut tb);
    let f = l.full();
    let s = stream(5 * f);
    let w = |n: usize| l.field(256 * 1024 - n);
    tb.at(2000);
    // Two segments under one delayed ACK: the echo is the first one's
    // (the second did not start at the last ACK sent).
    assert_eq!(tb.send(&with_tsval(&l, 0, 0, 6000), &s[..f]), vec![]);
    let out = tb.send(&with_tsval(&l, f, 0, 6001), &s[f..2 * f]);
    assert_eq!(out, vec![l.want_ack(&tb, l.seq(2 * f), w(2 * f), Some(6000))]);

    // Out of order: its TSval is not taken; the duplicate ACK echoes the last.
    let out = tb.send(&with_tsval(&l, 3 * f, 0, 6002), &s[3 * f..4 * f]);
    assert_eq!(out, vec![l.want_ack(&tb, l.seq(2 * f), w(2 * f), Some(6000))]);

    // The segment that fills the gap starts at the left edge: its TSval is echoed.
    tb.at(2100);
    let out = tb.send(&with_tsval(&l, 2 * f, 0, 6003), &s[2 * f..3 * f]);
    assert_eq!(out, vec![l.want_ack(&tb, l.seq(4 * f), w(4 * f), Some(6003))]);

    // An older TSval at the left edge does not move TS.Recent back.
    let out = tb.send(&with_tsval(&l, 4 * f, FIN, 5999), &s[4 * f..]);
    assert_eq!(out, vec![l.want_ack(&tb, l.seq(5 * f + 1), w(5 * f), Some(6003))]);
}
