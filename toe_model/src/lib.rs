//! A plain-Rust model of two TOE (TCP offload engine) cores joined by one
//! Ethernet link, for the two-board simulation.
//!
//! Two user-logic tops ("boards" 0 and 1, each with the same number of
//! sessions) talk to this model through the session interface of
//! `docs/toe_interface.md`. The glue that owns the verilated models calls,
//! once per user-clock cycle:
//!
//! 1. [`TwoBoards::drive`] for each board: the model computes the inputs of
//!    every session for the coming rising edge (status levels, `tx_tready`,
//!    the RX beat, `conn_req_ready`);
//! 2. [`TwoBoards::edge`] for each board, with what the board shows just
//!    before the edge: the model performs the handshakes completed at this
//!    edge (connection request, TX beat, RX beat) and checks the protocol;
//! 3. [`TwoBoards::tick`]: one cycle passes (link deliveries, timers, link
//!    credit).
//!
//! ```
//! use toe_model::{GlobalOutputs, LinkConfig, SessionOutputs, ToeConfig, TwoBoards};
//! let mut tb = TwoBoards::new(1, LinkConfig::default(), ToeConfig::default());
//! // Board 1 listens on 61000, board 0 connects to it from 60000.
//! let mut outs = [vec![SessionOutputs::default()], vec![SessionOutputs::default()]];
//! outs[0][0] = SessionOutputs { conn_req_valid: true, conn_req_open: true, conn_req_active: true,
//!     conn_req_local_port: 60000, conn_req_remote_port: 61000, ..Default::default() };
//! outs[1][0] = SessionOutputs { conn_req_valid: true, conn_req_open: true,
//!     conn_req_local_port: 61000, ..Default::default() };
//! for _ in 0..1000 {
//!     for b in 0..2 {
//!         let inputs = tb.drive(b, &[outs[b][0].tx_tvalid]);
//!         let taken = inputs[0].conn_req_ready; // apply inputs, evaluate the user logic...
//!         tb.edge(b, GlobalOutputs::default(), &outs[b]);
//!         if taken { outs[b][0].conn_req_valid = false; }
//!     }
//!     tb.tick();
//! }
//! let inputs = tb.drive(0, &[false]);
//! assert!(inputs[0].established && inputs[0].peer_port == 61000 && inputs[0].peer_window_scale == 5);
//! assert!(tb.violations().is_empty());
//! ```
//!
//! `drive(b)`/`edge(b)` only touch board `b` and what it puts on the link, so
//! the order `drive(0) drive(1) edge(0) edge(1)` and
//! `drive(0) edge(0) drive(1) edge(1)` behave the same. Everything that crosses
//! the link is delivered in `tick`.
//!
//! # Where things are
//!
//! * `interface`: the interface and parameter types ([`SessionOutputs`],
//!   [`SessionInputs`], [`GlobalOutputs`], [`LinkConfig`], [`ToeConfig`],
//!   [`LinkStats`]);
//! * `boards`: [`TwoBoards`], the per-cycle protocol and initialisation;
//! * `link`: the link, its delay and credit, and the sending side's last
//!   packet handling;
//! * `connection`: the per-session connection state machine (open, close,
//!   RST, FIN);
//! * `window`: the receive buffer, push points, advertised window and ACKs;
//!   [`next_rx_beat`], the rule for the RX beat presented, is shared with
//!   `socket_toe`;
//! * `status`: [`SessionStatus`], the six status levels of a session, shared
//!   with `socket_toe`;
//! * [`checker`]: the interface rules, shared with `socket_toe`.
//!
//! The private modules' documentation tells the model's behaviour in detail.
//!
//! # Protocol checks
//!
//! [`TwoBoards::violations`] lists (with cycle, board, session): `tx_tvalid`
//! dropped before `tx_tready`; TX data or `tlast` changed while valid and not
//! ready; a TX beat with no bytes or more than `beat_bytes`; a partial TX beat
//! without `tlast`; data after a partial beat before the close; TX data while
//! the session is not established or after its close request (reported once
//! per open request); `conn_req_valid` dropped or the request changed while
//! not ready; `outs` of the wrong
//! length; and model-internal inconsistencies (receive buffer overflow), which
//! would be bugs here. At most [`MAX_VIOLATIONS`] messages are kept,
//! [`TwoBoards::violation_count`] counts all. The per-session rules are those
//! of the [`checker`] module, which `socket_toe` uses too.
//!
//! # Fault injection
//!
//! [`TwoBoards::set_silent`] makes a board's TOE drop every SYN it receives;
//! [`TwoBoards::corrupt`] flips bits of one received byte
//! ([`TwoBoards::clear_corruptions`] forgets those not reached yet).
//!
//! # What it does not model
//!
//! * No packet loss, so no retransmission, no timeouts other than the SYN and
//!   push timeouts, no duplicate ACK handling.
//! * No congestion control (slow start, cwnd): a sender may use the whole
//!   advertised window at once.
//! * No ARP, no MAC/IP addressing: `toe_mode`, MAC and IP parameters are not
//!   inputs; board 0 and board 1 always reach each other.
//! * No reordering, no segmentation into frames (bytes flow per beat; the MSS
//!   only sizes the duplicated last segment), no header overhead per segment
//!   beyond what `payload_mb_s` already contains, control packets are free.
//! * No TX buffer: a beat taken on TX is on the wire at once, so the FIN
//!   follows immediately; window granularity is one byte (no window-scale
//!   rounding) and `tx_tready` needs room for a full beat.
//! * No keep-alive, no TIME_WAIT, no simultaneous open, no zero-window
//!   probing (that is why gap 0 stalls), no urgent data.

mod boards;
pub mod checker;
mod connection;
mod interface;
mod link;
mod status;
mod window;

pub use boards::TwoBoards;
pub use checker::MAX_VIOLATIONS;
pub use interface::{GlobalOutputs, LinkConfig, LinkStats, SessionInputs, SessionOutputs, ToeConfig};
pub use status::SessionStatus;
pub use window::next_rx_beat;
