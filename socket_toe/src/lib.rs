//! A TOE (TCP offload engine) whose network side is the host's real TCP
//! stack: the TOE session interface of `docs/toe_interface.md`, implemented
//! on non-blocking loopback sockets.
//!
//! The virtual board runs the verilated user-logic top and connects its TOE
//! ports to a [`HostToe`], so that real PC tools (`tcpdatatest`,
//! `tcp_client_txrx_single`, ...) talk to the simulated hardware over
//! 127.0.0.0/8. The per-cycle types are the ones of the Rust TOE model
//! ([`GlobalOutputs`], [`SessionOutputs`], [`SessionInputs`], re-exported
//! here), so the glue looks like the two-board glue.
//!
//! # Calling sequence and time base
//!
//! Once per user-clock cycle the glue calls, in this order:
//!
//! 1. [`HostToe::drive`] with each session's `tx_tvalid`: the inputs for the
//!    coming rising edge (status levels, `tx_tready`, the RX beat,
//!    `conn_req_ready`). No system call, no allocation.
//! 2. [`HostToe::edge`] with what the user logic shows just before the edge:
//!    the handshakes this edge completes (connection request, TX beat, RX
//!    beat) and the protocol checks. No system call except for a connection
//!    request or a `toe_init` pulse (socket, bind, connect, listen, close).
//!
//! and, *between* an `edge` and the next `drive`, every N cycles (64 is a good
//! value, not every cycle) [`HostToe::poll`], which does all socket I/O of all
//! sessions: accept, connect completion, writing the TX buffers, reading
//! into the RX buffers, sending our FIN, detecting resets and the timers.
//! When [`HostToe::busy`] is false nothing needs fast polling; the glue may then
//! block in [`HostToe::wait`] (or sleep) instead of spinning.
//!
//! So there are two clocks. The handshakes of the interface (what is taken at
//! which edge, valid/ready stability, `init_done` after [`INIT_CYCLES`]
//! cycles) are in simulated user-clock cycles. Everything that involves the
//! network (when a connection is established, when bytes arrive or leave,
//! [`NetConfig::connect_timeout`], [`NetConfig::push_timeout`]) happens in
//! wall-clock time and becomes visible to the user logic at the next `poll`.
//! A simulation that runs at, say, 2 M cycles/s sees the loopback peer as a
//! very fast network; throughput numbers the user logic measures in cycles
//! are those of the simulation, not of the board.
//!
//! ```no_run
//! use socket_toe::{GlobalOutputs, HostToe, NetConfig, SessionOutputs};
//! let mut toe = HostToe::new(1, 64, NetConfig::default()).unwrap();
//! let mut outs = vec![SessionOutputs::default()];
//! // Session 0 connects from port 60000 to 127.0.0.1:5000.
//! outs[0] = SessionOutputs { conn_req_valid: true, conn_req_open: true, conn_req_active: true,
//!     conn_req_local_port: 60000, conn_req_remote_port: 5000, ..Default::default() };
//! for cycle in 0..1_000_000u64 {
//!     let ins = toe.drive(&[outs[0].tx_tvalid]);
//!     let taken = ins[0].conn_req_ready; // apply the inputs, evaluate the user logic ...
//!     toe.edge(GlobalOutputs::default(), &outs);
//!     if taken { outs[0].conn_req_valid = false; }
//!     if cycle % 64 == 63 { toe.poll(); }
//! }
//! for e in toe.take_events() { println!("{e}"); }
//! ```
//!
//! # What it models (per session, as `docs/toe_interface.md` says)
//!
//! * `conn_req_ready` is always high: a request is taken at the first edge it
//!   is presented.
//! * Active open: a non-blocking `connect()` to
//!   ([`NetConfig::target`], `conn_req_remote_port`) from
//!   ([`NetConfig::bind`], `conn_req_local_port`) with `SO_REUSEADDR`, as the
//!   board's TOE uses the FPGA port as its source port. If that source port
//!   cannot be used (`EADDRINUSE`/`EADDRNOTAVAIL`: another socket listens on
//!   it, or the 4-tuple is still in TIME_WAIT from the previous run) the
//!   connection is made from an ephemeral port instead and an event says so.
//!   `established` rises when the connect completes; `conn_error` rises if it
//!   is refused, does not complete within [`NetConfig::connect_timeout`], fails
//!   otherwise, or the TOE is not initialised.
//! * Passive open: listens on ([`NetConfig::bind`], `conn_req_local_port`)
//!   (`SO_REUSEADDR`, backlog 1). The first accepted connection raises
//!   `established`; the listening socket is closed once no session listens
//!   on it (a further peer is refused, as by the board's TOE). Sessions
//!   listening on one port share one socket, its backlog the number of
//!   sessions, and each takes one connection from it. No timeout. If the
//!   port cannot be bound, `conn_error` rises and an event names the port.
//! * `peer_port` is the peer's port; `peer_mss` is `TCP_INFO.tcpi_snd_mss` (the
//!   MSS the host uses towards the peer; on loopback Linux reports 32741 at
//!   first, bounded by half the largest window seen) and
//!   `peer_window_scale` is `tcpi_snd_wscale` (the shift the peer announced).
//!   They are set when `established` rises and keep their values until the
//!   next open request, which clears them (and `peer_closed`, `conn_error`).
//! * TX: every taken beat's bytes go into a bounded user-space buffer
//!   ([`NetConfig::tx_buffer`]); `poll` writes it to the socket until the
//!   socket would block, in writes of at least a quarter of the buffer while
//!   the user logic keeps adding to it (a write per poll of the few KB one
//!   poll's cycles add cost more in system calls and in waking the reader
//!   than the simulation of those cycles), and whatever it holds once the
//!   buffer stopped growing since the last poll or the close is requested.
//!   `tx_tready` is high only while the session shows
//!   `tx_tvalid` (ready depends on valid, as in the model), is established,
//!   has not requested its close, and the buffer has room for a whole beat: so
//!   it falls when the kernel's send buffer and the peer's window are full.
//! * RX: `poll` reads from the socket only while the user-space RX buffer
//!   ([`NetConfig::rx_buffer`]) has room, so while the user logic holds
//!   `rx_tready` low the bytes stay in the kernel and TCP flow control holds
//!   the peer back. A full beat is presented whenever `beat_bytes` bytes are
//!   buffered. A shorter beat is presented only up to a *push point*: the
//!   peer's FIN, or the push timeout (no new byte for
//!   [`NetConfig::push_timeout`] wall-clock time while the socket had nothing
//!   more to read and a trailing partial beat waits). A beat that ends at a
//!   push point has `rx_tlast` high. A presented beat (bytes, length, tlast)
//!   stays unchanged until it is taken.
//! * Peer closes (read returns 0): once every byte before the FIN was taken
//!   on RX, `peer_closed` rises; `rx_tvalid` stays low from then on. We can
//!   still send (half-close).
//! * Close request while established: `tx_tready` stays low from then on;
//!   once every buffered TX byte is written, `shutdown(Write)` sends our FIN.
//!   The peer can still send until its FIN. `established` falls when our FIN
//!   was sent and `peer_closed` is high; the socket is then closed.
//!   A close while listening or while an active open is pending cancels it
//!   (neither `established` nor `conn_error` rises). A close with nothing
//!   open, or a second close, is taken and has no effect.
//! * Reset: a reset from the peer (`ECONNRESET`, `EPIPE`) or any other socket
//!   error while connected raises `conn_error`, drops `established` and
//!   discards the buffered data (a presented RX beat is withdrawn). It is
//!   seen by the next read or write of `poll`: while the RX buffer is full
//!   and nothing is to be sent, a reset waits until the user logic reads. An
//!   open request on a session that still has a connection resets it
//!   (`SO_LINGER` 0 + close: the peer gets an RST), a listen or a pending
//!   open is dropped, and the new request proceeds.
//! * `toe_init` ([`GlobalOutputs::init`]): after the other handshakes of the
//!   same edge, every connection (reset), listen and pending open is dropped
//!   and raises `conn_error`; `init_done` is low for the next [`INIT_CYCLES`]
//!   cycles. An open request while not initialised gets `conn_error` at once.
//!   `init_done` is high after [`HostToe::new`].
//! * Protocol checks ([`HostToe::violations`]), the model's own
//!   ([`toe_model::checker`]): `tx_tvalid` dropped before `tx_tready`; TX beat
//!   changed while waiting; a TX beat with no bytes or more than `beat_bytes`
//!   (only the first `beat_bytes` are sent);
//!   a partial TX beat without `tlast`; data after a partial beat before the
//!   close; `tx_tvalid` while not established or after the close request
//!   (once per open request; not reported while `conn_error` is high, as the
//!   beat was in flight when the connection died); `outs` of the wrong length.
//!   (The request checks never fire: `conn_req_ready` is always high.)
//!
//! # What it cannot model
//!
//! * No control of its own over TCP: the MSS, window, window scale, ACK and
//!   window-update policy, retransmission and congestion control are the
//!   host's. `toe_last_packet_mode` and `toe_window_update_gap` are ignored;
//!   `toe_mode`, MACs and IPs are not inputs (the addresses come from
//!   [`NetConfig`]).
//! * No PSH visibility: the socket API does not tell where the peer's pushes
//!   were, so a trailing partial beat waits for the FIN or the wall-clock
//!   [`NetConfig::push_timeout`]. A slow writer with gaps longer than it gets
//!   partial beats (with `tlast`) in the middle of its stream, which the
//!   interface allows.
//! * Segmentation is the host's: `TCP_NODELAY` is set (no Nagle; the board's
//!   TOE does not delay either), segment boundaries follow the `poll` cadence,
//!   and the host sets PSH as it likes. A TX `tlast` (the end of a transfer)
//!   has no effect on the wire.
//! * The extra buffering of the user-space buffers and the kernel's socket
//!   buffers (which autotune) means `tx_tready` falls later, and the peer is
//!   held back later, than on the board.
//! * Timing: see the time base above; `conn_req_ready` never waits.
//! * Linux only for `peer_mss`/`peer_window_scale` (`TCP_INFO`); elsewhere
//!   they read 0.
//!
//! # Loopback only
//!
//! [`HostToe::new`] refuses a [`NetConfig`] whose `bind` or `target` is
//! outside 127.0.0.0/8, so this crate never sends anything to another host.
//! Both default to 127.0.0.1.
//!
//! # Events
//!
//! [`HostToe::take_events`] returns human-readable lines such as
//! `session 0: connected 127.0.0.1:60000 -> 127.0.0.1:5000 (peer mss 32741,
//! window scale 10)`, `session 1: connect to 127.0.0.1:5000 refused`,
//! `session 0: peer closed (FIN) after 1000 bytes`, `session 0: connection
//! reset by peer`. At most [`MAX_EVENTS`] are kept between two calls (the rest
//! are counted in a final line).

mod config;
mod events;
mod ring;
mod session;
mod socket;
mod toe;

pub use config::{Error, NetConfig};
pub use events::MAX_EVENTS;
pub use session::SessionStats;
pub use toe::{HostToe, INIT_CYCLES};
pub use toe_model::{GlobalOutputs, SessionInputs, SessionOutputs, MAX_VIOLATIONS};
