//! The link between the two TOEs and its credit: the items that travel it
//! ([`Kind`]), one direction as a FIFO with a fixed delay ([`Link`]), the
//! integer credit that holds each direction to its payload bandwidth, and the
//! sending side's handling of the last data of a transfer (last packet mode).
//!
//! # The link
//!
//! Each direction is a FIFO with a fixed one-way delay of
//! [`LinkConfig::latency_cycles`]: an item sent at the edge of cycle `c` is
//! processed by the receiving TOE in the `tick` that starts cycle `c + L` and
//! is visible to that board's user logic from `drive` of cycle `c + L` on. Data,
//! ACKs, window updates, SYN, SYN-ACK, RST and FIN all take this path, so
//! nothing is reordered.
//!
//! Bandwidth: [`LinkConfig::payload_mb_s`] is the TCP *payload* bandwidth of
//! one direction (headers, preamble and inter-frame gap of full-size frames are
//! already accounted for in it; control packets are free). It is enforced with
//! an integer credit per direction: every cycle adds `payload_mb_s` units, a
//! byte costs `user_clock_mhz` units. The TOE shows `tx_tready` only while the
//! credit is positive, a taken beat subtracts its bytes, and the credit is
//! capped at `max(one full beat, one cycle's worth)` so an idle or
//! window-stalled period does not build up a burst. With a sender that always
//! has data the long-run throughput is exactly `payload_mb_s` (99.004 bytes per
//! cycle for 24,751 MB/s at 250 MHz). In one cycle the credit is handed out
//! round-robin among the sessions that show `tx_tvalid` and may send (each
//! grant reserves a full beat); the round-robin pointer moves past the last
//! session that sent, so N sessions at 100 % get equal shares (4 x 6,188 MB/s).
//!
//! # Transmit
//!
//! * `tx_tready` for session `s` is high only when the connection is
//!   established, the session has not requested its close, the peer's window
//!   permits a full beat (`sent + beat_bytes <= right edge the peer last
//!   advertised, as known here`) and the link credit grants the session. It is
//!   low for a session that shows no `tx_tvalid` (ready depends on valid).
//! * A taken beat goes on the link at once; it reaches the peer's receive buffer
//!   (capacity `rx_buffer_bytes`) one latency later.
//! * Last packet: a TX beat with `tlast` and a partial keep ends a transfer;
//!   so does the close request (for the bytes sent since the previous push).
//!   This "last data" is handled by the sending board's `last_packet_mode`:
//!   - `psh` (1): its segment carries PSH: the receiver gets a push point at
//!     its end when it arrives;
//!   - `dup` (0): the last segment, `min(peer mss, bytes since the previous
//!     push)` bytes, is sent a second time right behind it. The duplicate costs
//!     link credit like data ([`LinkStats::dup_bytes`]) and is dropped by the
//!     receiver; its arrival is the push point;
//!   - `normal` (2, and 3): no push; the receiver waits for the FIN or its push
//!     timeout.

use std::collections::VecDeque;

use config::codes::LastPacketMode;

use crate::connection::Session;
use crate::{GlobalOutputs, LinkConfig, LinkStats};

/// Why `tx_tready` is low for a session showing `tx_tvalid` (decided in `drive`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) enum Block {
    #[default]
    None,
    NotOpen,
    Window,
    Credit,
}

/// Items on the link.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Kind {
    Syn {
        src_port: u16,
        dst_port: u16,
        mss: u16,
        ws: u8,
        window: u64,
    },
    SynAck {
        src_port: u16,
        mss: u16,
        ws: u8,
        window: u64,
    },
    /// Final ACK of the three-way handshake.
    HsAck,
    Rst,
    /// `len` payload bytes, which are the next `len` bytes of the direction's wire.
    Data {
        len: usize,
        push: bool,
    },
    /// The duplicated last segment (its bytes are not carried; the receiver drops it).
    Dup {
        push_to: u64,
    },
    Fin {
        at: u64,
    },
    Ack {
        right_edge: u64,
    },
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Event {
    pub(crate) due: u64,
    pub(crate) conn: u64,
    pub(crate) kind: Kind,
}

/// One direction of the link.
#[derive(Debug, Default)]
pub(crate) struct Link {
    pub(crate) events: VecDeque<Event>,
    /// Payload bytes of the `Data` events in flight, in order.
    pub(crate) wire: VecDeque<u8>,
}

impl Link {
    pub(crate) fn send(&mut self, due: u64, conn: u64, kind: Kind) {
        self.events.push_back(Event { due, conn, kind });
    }
}

/// The credit of one direction after one more cycle: `payload_mb_s` units
/// added, capped at `max(one full beat, one cycle's worth)` so an idle or
/// window-stalled period does not build up a burst.
pub(crate) fn refill(credit: i64, beat_bytes: usize, link: &LinkConfig) -> i64 {
    let add = link.payload_mb_s as i64;
    let clk = link.user_clock_mhz as i64;
    let cap = (beat_bytes as i64 * clk).max(add);
    (credit + add).min(cap)
}

/// Mutable references to `arr[b]` and `arr[1 - b]`.
pub(crate) fn pair<T>(arr: &mut [T; 2], b: usize) -> (&mut T, &mut T) {
    let [x, y] = arr;
    if b == 0 {
        (x, y)
    } else {
        (y, x)
    }
}

/// Handles the last data of a transfer (partial TX beat with tlast, or the
/// close) on the sending side according to the last packet mode.
pub(crate) fn last_packet(
    sess: &mut Session,
    link: &mut Link,
    stats: &mut LinkStats,
    credit: &mut i64,
    params: GlobalOutputs,
    due: u64,
    clk: i64,
) {
    let since = sess.sent - sess.last_push;
    if since == 0 {
        return;
    }
    match LastPacketMode::from_value(u32::from(params.last_packet_mode)) {
        Some(LastPacketMode::Dup) => {
            let dup = since.min(u64::from(sess.status.peer_mss.max(1)));
            *credit -= dup as i64 * clk;
            stats.dup_bytes += dup;
            stats.dup_segments += 1;
            link.send(due, sess.conn, Kind::Dup { push_to: sess.sent });
            sess.last_push = sess.sent;
        }
        Some(LastPacketMode::Psh) => sess.last_push = sess.sent,
        // `normal`, and the code 3 that has no name: no special treatment.
        Some(LastPacketMode::Normal) | None => {}
    }
}
