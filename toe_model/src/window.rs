//! The receive window of one session: the receive buffer, push points and the
//! beat presented to the user logic, the right edge the receiver advertises
//! and the ACKs that move it (sender-side window use is in `boards`' `drive`).
//!
//! # Window and receive
//!
//! * Right edge: the receiver advertises `taken + rx_buffer_bytes`, where
//!   `taken` counts the bytes its user logic took on RX. The SYN and SYN-ACK
//!   carry the initial window `rx_buffer_bytes`.
//! * ACK on data arrival: when data arrives the receiver sends an ACK with the
//!   current right edge, but only if that moves the advertised right edge by
//!   at least `min(mss, rx_buffer_bytes / 2)` (receiver-side silly-window
//!   avoidance, RFC 1122 4.2.3.3; smaller increments are not announced, pure
//!   ACKs carry no information in this model and are not sent).
//! * Window update: when `window_update_gap > 0` and
//!   `taken + rx_buffer_bytes - last advertised right edge >= gap * 1024`, the
//!   receiver sends a window update, checked every cycle until the peer's FIN
//!   arrived.
//! * Consequence (the reference's documented behaviour): with gap 0 a receiver
//!   whose user logic is slower than the sender lets the window close, after
//!   which no data arrives, so no ACK is sent and the transfer stalls forever.
//!   The same happens whenever the user logic stops reading long enough to fill
//!   the receive buffer. "If the maximum received speed is limited, ... Window
//!   Update Gap must be non-zero."
//! * RX delivery: a full beat is presented when at least `beat_bytes` bytes
//!   are buffered. A shorter beat is presented only up to a *push point*: the
//!   push of the last packet (see below), the peer's FIN, or the push timeout
//!   (`push_timeout_cycles` cycles after the last data arrived while a trailing
//!   partial beat waits; this is a receiver timer, it matters only when the
//!   sender's mode is `normal`). A beat that ends at a push point has
//!   `rx_tlast` high (so a partial beat always has it, and so does the last beat
//!   before the FIN when the FIN had arrived when the beat was first presented;
//!   a full last beat presented before its FIN arrived has `rx_tlast` low, so
//!   the user logic must use `peer_closed`, not `rx_tlast`, as the end of the
//!   stream). A presented beat (data, length, tlast) stays unchanged until it is
//!   taken.

use crate::checker::{Place, ViolationLog};
use crate::connection::Session;
use crate::link::{Kind, Link};
use crate::{LinkStats, ToeConfig};

impl Session {
    /// Adds a push point at stream offset `p` (ignored if not above the last one).
    pub(crate) fn add_push(&mut self, p: u64) {
        let last = self.push_points.back().copied().unwrap_or(self.taken);
        if p > last && p > self.taken {
            self.push_points.push_back(p);
        }
    }

    /// The beat the receive buffer can present now: (length, tlast).
    pub(crate) fn next_beat(&self, beat: usize) -> Option<(usize, bool)> {
        let to_push = self.push_points.front().map(|&p| (p - self.taken) as usize);
        next_rx_beat(self.rx_q.len(), to_push, beat)
    }
}

/// The RX beat a TOE presents from its receive buffer: `(length, tlast)`, or
/// `None` while nothing may be presented. `buffered` bytes wait, the next push
/// point (if any) is `to_push` bytes from the front of the buffer (never more
/// than `buffered`), and a beat holds at most `beat` bytes. A beat that ends at
/// the push point has `tlast`; otherwise only a full beat is presented. Both
/// this model and `socket_toe` present their beats by this rule.
pub fn next_rx_beat(buffered: usize, to_push: Option<usize>, beat: usize) -> Option<(usize, bool)> {
    if buffered == 0 {
        return None;
    }
    let max = buffered.min(beat);
    if let Some(to_p) = to_push {
        if to_p <= max {
            return Some((to_p, true));
        }
    }
    (max == beat).then_some((beat, false))
}

/// `len` bytes of data (the next `len` bytes of `inbound`'s wire) arrived for
/// the established session `sess` at `place`: they join the receive buffer
/// (with any pending corruption applied), a push point is added if the
/// segment carries PSH, and an ACK goes on `outbound` with `due` if it moves
/// the advertised right edge enough.
#[allow(clippy::too_many_arguments)]
pub(crate) fn data_arrived(
    sess: &mut Session,
    inbound: &mut Link,
    len: usize,
    push: bool,
    cfg: &ToeConfig,
    conn: u64,
    outbound: &mut Link,
    stats: &mut LinkStats,
    due: u64,
    log: &mut ViolationLog,
    cycle: u64,
    place: Place,
) {
    let base = sess.taken + sess.rx_q.len() as u64;
    // Slice by slice: extending a deque from a drain copies a byte at a
    // time, which was the most of this model's time with data moving.
    let (front, back) = inbound.wire.as_slices();
    let from_front = len.min(front.len());
    sess.rx_q.extend(&front[..from_front]);
    sess.rx_q.extend(&back[..len - from_front]);
    inbound.wire.drain(..len);
    let end = base + len as u64;
    if !sess.corrupt.is_empty() {
        let taken = sess.taken;
        let q = &mut sess.rx_q;
        sess.corrupt.retain(|&(off, xor)| {
            if (base..end).contains(&off) {
                q[(off - taken) as usize] ^= xor;
                false
            } else {
                true
            }
        });
    }
    if push {
        sess.add_push(end);
    }
    sess.push_idle = 0;
    if sess.rx_q.len() as u64 > cfg.rx_buffer_bytes {
        log.push(cycle, place, "model: receive buffer overflow (window accounting bug)");
    }
    let edge = sess.taken + cfg.rx_buffer_bytes;
    let sws = u64::from(cfg.mss).min(cfg.rx_buffer_bytes / 2).max(1);
    if edge >= sess.last_adv + sws {
        sess.last_adv = edge;
        stats.acks += 1;
        outbound.send(due, conn, Kind::Ack { right_edge: edge });
    }
}

#[cfg(test)]
mod tests {
    use super::next_rx_beat;

    #[test]
    fn rx_beat_is_full_or_ends_at_the_push_point() {
        assert_eq!(next_rx_beat(0, None, 64), None);
        assert_eq!(next_rx_beat(63, None, 64), None, "a partial beat waits for a push point");
        assert_eq!(next_rx_beat(200, None, 64), Some((64, false)));
        assert_eq!(next_rx_beat(40, Some(40), 64), Some((40, true)));
        assert_eq!(
            next_rx_beat(200, Some(64), 64),
            Some((64, true)),
            "a full beat that ends at the push point has tlast"
        );
        assert_eq!(next_rx_beat(200, Some(100), 64), Some((64, false)));
    }
}
