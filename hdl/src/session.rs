//! Session: one TCP session driven by its registers, talking to the TOE
//! through the session interface (`docs/toe_interface.md`); the Verilog
//! module `<name>_session`. Its state machine drives the session's
//! [`Datapath`] (generator, verifier, rate limiters) and three small
//! children: the [`Watchdog`] (`watchdog`), the [`ElapsedTimer`] (`timer`)
//! and the [`PeerLatch`] (`peer`), each a rust-hdl block of its own file
//! (Verilog `<name>_watchdog`, `<name>_elapsed_timer`, `<name>_peer_latch`, instances `u_<field>`).
//!
//! ```text
//!  registers (start, abort, test_config, sizes, ports, speed)      TOE session interface
//!        |                                                          conn_req_* -->
//!        v                                                          <-- established, peer_closed, conn_error, peer_*
//!  +-------------+  tx_start/abort, rx_start/end/clear, params    +------------------+
//!  |     FSM     |----------------------------------------------->|     Datapath     |--> toe_tx_t*
//!  |             |<-----------------------------------------------| (gen, verifier,  |<-- toe_rx_t*
//!  +-------------+  tx_done, rx_complete, rx_error, counters      |  rate limiters)  |
//!     |     ^                                                     +------------------+
//!     |     +-- fire -- Watchdog <-- load, stall_timeout, state, beat moved, armed, hurry
//!     +-- clear/start/stop --> ElapsedTimer --> elapsed
//!     +-- take --> PeerLatch (<-- toe peer_*) --> peer_*
//!     v
//!  status (busy, connected, closed, error_cause, done_set/error_set), elapsed, peer_*
//! ```
//!
//! A test runs as the reference demo does (sections 3.3, 3.4, 4.3, 4.4):
//!
//! 1. `start` (ignored while busy or with test mode `disabled`) latches the
//!    test parameters, clears the verifier and the elapsed timer and
//!    presents an open request: active (client, to `target_port`) or passive
//!    (server, listening on `fpga_port`) as `conn_mode` says.
//! 2. When the TOE reports `established`, the session keeps the peer's
//!    port, MSS and window scale, starts the timer and starts the generator
//!    (send, full duplex) and/or the verifier (receive, full duplex).
//! 3. The timer stops when the last byte was sent (generator done) and/or
//!    received (verifier complete): `elapsed` is in user-clock cycles from
//!    `established` to the end of the transfer.
//! 4. Closing: half duplex, the sender closes and the receiver waits for the
//!    peer's close, then closes; full duplex, the client (active) closes and
//!    the server (passive) waits for the peer's close, then closes. The test
//!    ends when the TOE reports the connection fully closed (`established`
//!    falls).
//!    Open-ended (`open_ended` at `start`), each side closes its direction
//!    when its send ends: a full-duplex session half-closes and receives on
//!    (two open-ended peers must not wait for each other), and the test
//!    ends when the peer has closed too and `established` falls.
//! 5. The end sets `done` (pulse `done_set`) or `error` (pulse `error_set`)
//!    with `error_cause` ([`ErrorCause`], the register map's code table):
//!    - `refused` (1): the open failed (refused, timed out: `conn_error`
//!      while waiting for `established`);
//!    - `peer_closed` (2): the peer closed before every expected byte was
//!      received (the verifier records the short transfer). A peer that
//!      closes its direction after sending everything we expect (or on a
//!      send-only test) has half-closed the connection, which is legal TCP:
//!      the session finishes sending, then closes;
//!    - `verify` (3): received data differed from the pattern;
//!    - `beyond_size` (4): the peer sent more than `transfer_size` bytes;
//!    - `aborted` (5): `abort` arrived;
//!    - `stalled` (6): the watchdog fired (below);
//!    - `conn_reset` (7): the connection was reset while the transfer ran
//!      (`conn_error`, or `established` falling before we asked to close: a
//!      TOE that shows a reset only that way still ends the test). A reset
//!      after every byte moved, while waiting for the peer's close, ends the
//!      test `done`; one while draining after the peer's early close keeps
//!      `peer_closed`, and one after we asked to close ends the close.
//!
//! Open-ended transfers and `stop`: with `open_ended` the size is ignored.
//! The send runs until `stop` (a register pulse, or `elapsed` reaching a
//! non-zero `duration`, which also cuts a sized send short): the generator
//! ends the stream with its next beat, marked `tlast`, and the session goes
//! on as after a complete send, so the test ends `done` with every byte
//! counted. A `stop` before `established` is kept and nothing is sent. The
//! receive takes up to 2^48-1 bytes (the verifier's size is then the
//! largest; 2.4 hours at 32,000 MB/s) and is over when the peer closed and
//! the verifier took everything before the close. `stop` does nothing to a
//! receive.
//!
//! `abort` from any state stops the generator at once, requests a close and
//! ends the test without waiting for the peer: the session is idle a few
//! cycles later when the TOE takes the close request, and one millisecond
//! later (`user_clock_khz` cycles) when it does not: the request is then
//! withdrawn untaken. A verification error does not stop the transfer: the
//! counters and the first-error record show the whole run.
//!
//! The watchdog: nothing may stand still for ever. Progress is a beat moved
//! either way or a change of state; when none comes for `stall_timeout`
//! milliseconds (latched at `start`; 0 turns the watchdog off) the test ends
//! `stalled` (unless it failed already), with the bytes moved so far
//! counted. A session with a connection or an open under way (waiting for
//! `established`, running, draining, waiting for the peer's close) stops the
//! generator and asks to close, and goes on as after any close; one whose
//! request the TOE does not take, or whose close the TOE never completes,
//! gives up at once (the request withdrawn). So a window that stays shut, a
//! peer that never closes, or a TOE that never answers all end the test
//! within `stall_timeout` (twice that if the close then stalls too). A TX
//! beat waiting for `tx_tready` when the test is given up (abort, watchdog)
//! is withdrawn in the cycle the close request appears
//! (`docs/toe_interface.md`).
//!
//! `error_cause` keeps its value until software clears the sticky `error`
//! register bit (`error` input falling) or the next error.

use rust_hdl::prelude::*;

use config::codes::{ConnMode, ErrorCause, TestMode, TxPattern};

use crate::datapath::Datapath;
use crate::elapsed_timer::ElapsedTimer;
use crate::peer_latch::PeerLatch;
use crate::watchdog::Watchdog;

// The 1-bit register codes are decoded by inversion below (`active` is
// `conn_mode == active`, the datapath's `pattern` is `tx_pattern ==
// incremental`): the tables must keep those values.
const _: () = assert!(ConnMode::Active as u64 == 0 && ConnMode::Passive as u64 == 1);
const _: () = assert!(TxPattern::Incremental as u64 == 0 && TxPattern::Dummy as u64 == 1);

/// The session's states, in the order of their encoding (0, 1, ...).
#[derive(Copy, Clone, PartialEq, Debug, LogicState)]
enum State {
    Idle,
    OpenReq,
    WaitEst,
    Run,
    Drain,
    WaitPeer,
    CloseReq,
    WaitClosed,
    Finish,
}

/// Cycles the session lets the verifier pipeline drain after the peer
/// closed before it calls the transfer short (the verifier needs 5).
const DRAIN_CYCLES: u64 = 15;

#[derive(LogicBlock)]
pub struct Session<const W: usize, const K: usize> {
    // ---- Clock and reset.
    /// User clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    // ---- From the register file: `reg_<x>` joins the register file's `s<n>_<x>`.
    /// Begin a test (one-cycle pulse).
    pub reg_start: Signal<In, Bit>,
    /// Stop the test and close (one-cycle pulse).
    pub reg_abort: Signal<In, Bit>,
    /// End the send gracefully (one-cycle pulse).
    pub reg_stop: Signal<In, Bit>,
    /// Clear the verifier's error record and count (one-cycle pulse).
    pub reg_clear_errors: Signal<In, Bit>,
    /// The sticky error bit as software sees it; its fall clears `error_cause`.
    pub reg_error: Signal<In, Bit>,
    /// [`TestMode`]: 0 disabled, 1 send, 2 receive, 3 full duplex, 4
    /// latency, 5 echo.
    pub reg_test_mode: Signal<In, Bits<3>>,
    /// Latency modes: requests unanswered at most, 1..=16.
    pub reg_outstanding: Signal<In, Bits<5>>,
    /// Latency modes: request size in bytes, 1..=65,535.
    pub reg_request: Signal<In, Bits<16>>,
    /// Latency modes: response size in bytes, 1..=65,535.
    pub reg_response: Signal<In, Bits<16>>,
    /// Latency mode: requests the initiator sends.
    pub reg_request_count: Signal<In, Bits<32>>,
    /// Copy the round-trip results to their registers (one-cycle pulse).
    pub reg_snapshot: Signal<In, Bit>,
    /// The histogram bucket `reg_hist_count` shows.
    pub reg_hist_index: Signal<In, Bits<9>>,
    /// Check received data against the pattern.
    pub reg_verify: Signal<In, Bit>,
    /// [`TxPattern`]: 0 incremental, 1 dummy.
    pub reg_tx_pattern: Signal<In, Bit>,
    /// [`ConnMode`]: 0 active (client), 1 passive (server).
    pub reg_conn_mode: Signal<In, Bit>,
    /// TX max speed, % of the bus peak (1..=100).
    pub reg_tx_percent: Signal<In, Bits<7>>,
    /// RX max speed, % of the bus peak (1..=100).
    pub reg_rx_percent: Signal<In, Bits<7>>,
    /// Bytes to send or receive.
    pub reg_transfer_size: Signal<In, Bits<48>>,
    /// Bytes per packet, whole beats (0: one packet).
    pub reg_packet_size: Signal<In, Bits<48>>,
    /// Local TCP port.
    pub reg_fpga_port: Signal<In, Bits<16>>,
    /// Remote TCP port (active open).
    pub reg_target_port: Signal<In, Bits<16>>,
    /// Milliseconds without progress before the test ends `stalled`; 0: never.
    pub reg_stall_timeout: Signal<In, Bits<16>>,
    /// 1: no size: send until `stop` or `duration`, receive until the peer closes.
    pub reg_open_ended: Signal<In, Bit>,
    /// User-clock cycles from `established` after which the send stops; 0: no limit.
    pub reg_duration: Signal<In, Bits<48>>,
    /// `test_config.prefix_length`: bytes of the TX prefix the send begins with.
    pub reg_prefix_length: Signal<In, Bits<7>>,
    /// `test_config.prefix_only`: the send is the TX prefix alone.
    pub reg_prefix_only: Signal<In, Bit>,
    /// The `tx_prefix` bank, shared by every session (byte k in bits 8k+7:8k).
    pub shared_tx_prefix: Signal<In, Bits<512>>,
    // ---- To the register file.
    /// From `start` until the test ends.
    pub reg_busy: Signal<Out, Bit>,
    /// The TOE reports the connection established.
    pub reg_connected: Signal<Out, Bit>,
    /// The connection was closed after being established; cleared by `start`.
    pub reg_closed: Signal<Out, Bit>,
    /// This test's send has ended: its last beat was taken by the TOE.
    pub reg_sent: Signal<Out, Bit>,
    /// [`ErrorCause`].
    pub reg_error_cause: Signal<Out, Bits<4>>,
    /// One-cycle pulses setting the sticky `done` / `error` register bits.
    pub reg_done_set: Signal<Out, Bit>,
    /// One-cycle pulse setting the sticky `error` bit.
    pub reg_error_set: Signal<Out, Bit>,
    /// Bytes the TOE took since start.
    pub reg_tx_bytes: Signal<Out, Bits<64>>,
    /// Bytes received since start.
    pub reg_rx_bytes: Signal<Out, Bits<64>>,
    /// User-clock cycles of the test.
    pub reg_elapsed: Signal<Out, Bits<64>>,
    /// Stream offset of the first error.
    pub reg_err_offset: Signal<Out, Bits<48>>,
    /// Expected word at the first error.
    pub reg_err_expected: Signal<Out, Bits<32>>,
    /// Received word at the first error.
    pub reg_err_received: Signal<Out, Bits<32>>,
    /// Beats with a wrong or late byte, plus a short end (saturating).
    pub reg_err_count: Signal<Out, Bits<32>>,
    /// Packets (beats with tlast) received since start.
    pub reg_rx_packets: Signal<Out, Bits<32>>,
    /// Peer TCP port, held at establishment.
    pub reg_peer_port: Signal<Out, Bits<16>>,
    /// Peer MSS, held at establishment.
    pub reg_peer_mss: Signal<Out, Bits<16>>,
    /// Peer window scale, held at establishment.
    pub reg_peer_window_scale: Signal<Out, Bits<4>>,
    /// The round-trip results as of the last snapshot (`ctrl.snapshot`,
    /// or the end of a test).
    pub reg_rtt_count: Signal<Out, Bits<32>>,
    /// The shortest round trip, in user-clock cycles (snapshot).
    pub reg_rtt_min: Signal<Out, Bits<32>>,
    /// The longest round trip (snapshot).
    pub reg_rtt_max: Signal<Out, Bits<32>>,
    /// The last round trip (snapshot).
    pub reg_rtt_last: Signal<Out, Bits<32>>,
    /// The sum of the round trips (snapshot).
    pub reg_rtt_sum: Signal<Out, Bits<64>>,
    /// The sum of |RTT(i) - RTT(i-1)| (snapshot).
    pub reg_rtt_jitter_sum: Signal<Out, Bits<64>>,
    /// The sum of the squares, bits 31:0 (snapshot).
    pub reg_rtt_sum_sq_0: Signal<Out, Bits<32>>,
    /// The sum of the squares, bits 63:32 (snapshot).
    pub reg_rtt_sum_sq_1: Signal<Out, Bits<32>>,
    /// The sum of the squares, bits 95:64 (snapshot).
    pub reg_rtt_sum_sq_2: Signal<Out, Bits<32>>,
    /// Messages sent (snapshot).
    pub reg_msg_sent: Signal<Out, Bits<32>>,
    /// Messages received (snapshot).
    pub reg_msg_received: Signal<Out, Bits<32>>,
    /// Responses the echo owes (snapshot).
    pub reg_msg_owed: Signal<Out, Bits<32>>,
    /// Requests of the initiator in flight (snapshot).
    pub reg_in_flight: Signal<Out, Bits<5>>,
    /// A round trip could not be measured (snapshot).
    pub reg_fault: Signal<Out, Bit>,
    /// The count of bucket `reg_hist_index` (live).
    pub reg_hist_count: Signal<Out, Bits<32>>,
    // ---- TOE session interface (`toe<s>_` on the top).
    /// Connection request valid.
    pub toe_conn_req_valid: Signal<Out, Bit>,
    /// The TOE takes the request.
    pub toe_conn_req_ready: Signal<In, Bit>,
    /// 1: open, 0: close.
    pub toe_conn_req_open: Signal<Out, Bit>,
    /// 1: active open (client), 0: passive (listen).
    pub toe_conn_req_active: Signal<Out, Bit>,
    /// Local TCP port of the request.
    pub toe_conn_req_local_port: Signal<Out, Bits<16>>,
    /// Remote TCP port of an active open.
    pub toe_conn_req_remote_port: Signal<Out, Bits<16>>,
    /// The connection is established.
    pub toe_established: Signal<In, Bit>,
    /// The peer closed its side (FIN).
    pub toe_peer_closed: Signal<In, Bit>,
    /// The connection failed or was reset.
    pub toe_conn_error: Signal<In, Bit>,
    /// Peer TCP port.
    pub toe_peer_port: Signal<In, Bits<16>>,
    /// Peer MSS.
    pub toe_peer_mss: Signal<In, Bits<16>>,
    /// Peer window scale.
    pub toe_peer_window_scale: Signal<In, Bits<4>>,
    /// Transmit beat to the TOE.
    pub toe_tx_tdata: Signal<Out, Bits<W>>,
    /// Byte enables.
    pub toe_tx_tkeep: Signal<Out, Bits<K>>,
    /// Last beat of a packet.
    pub toe_tx_tlast: Signal<Out, Bit>,
    /// Beat valid.
    pub toe_tx_tvalid: Signal<Out, Bit>,
    /// The TOE takes the beat.
    pub toe_tx_tready: Signal<In, Bit>,
    /// Receive beat from the TOE.
    pub toe_rx_tdata: Signal<In, Bits<W>>,
    /// Byte enables.
    pub toe_rx_tkeep: Signal<In, Bits<K>>,
    /// Last beat of a packet.
    pub toe_rx_tlast: Signal<In, Bit>,
    /// Beat valid.
    pub toe_rx_tvalid: Signal<In, Bit>,
    /// Ready for a beat (gated by the RX limiter).
    pub toe_rx_tready: Signal<Out, Bit>,
    // ---- State.
    state: DFF<State>,
    tx_en: DFF<Bit>,
    rx_en: DFF<Bit>,
    active: DFF<Bit>,
    aborting: DFF<Bit>,
    lport: DFF<Bits<16>>,
    rport: DFF<Bits<16>>,
    size: DFF<Bits<48>>,
    psize: DFF<Bits<48>>,
    pattern: DFF<Bit>,
    verify_q: DFF<Bit>,
    txp: DFF<Bits<7>>,
    rxp: DFF<Bits<7>>,
    fail: DFF<Bits<4>>,
    cause: DFF<Bits<4>>,
    closed_q: DFF<Bit>,
    was_open: DFF<Bit>,
    drain: DFF<Bits<4>>,
    error_q: DFF<Bit>,
    /// `open_ended` and `duration`, latched at `start`.
    open_q: DFF<Bit>,
    duration_q: DFF<Bits<48>>,
    /// `prefix_length` and `prefix_only`, latched at `start`.
    pfx_len: DFF<Bits<7>>,
    pfx_only: DFF<Bit>,
    /// The send is to end (`stop`, or `duration` reached): the generator's `stop`.
    stop_q: DFF<Bit>,
    /// `elapsed` reached a non-zero `duration` (registered compare).
    duration_hit: DFF<Bit>,
    /// Our close (FIN) was taken by the TOE.
    fin_q: DFF<Bit>,
    /// The close being requested is a half-close: receiving goes on.
    half_q: DFF<Bit>,
    /// The verifier's `complete`, registered: its 64-bit equality compare
    /// stays out of the state machine's cone (one LUT level less).
    complete_q: DFF<Bit>,
    /// The latency modes (issue 29): a latency test, as initiator.
    msg_q: DFF<Bit>,
    init_q: DFF<Bit>,
    /// `go` for the round trips, a cycle after the state that allows it:
    /// the state decode stays out of the initiator's ask.
    go_q: DFF<Bit>,
    /// The latency modes' send is over (see `tx_ok`), registered: the
    /// echo's condition is wide, and the state machine reads it.
    msg_sent_q: DFF<Bit>,
    /// Whether this session closes first (see `close_first`), set at
    /// `start` from the mode: no logic in front of the state machine.
    close_first_q: DFF<Bit>,
    /// The initiator's responses in bytes, `request_count` x `response`,
    /// in two 16-bit halves of the count, added a cycle after `start`.
    prod_lo: DFF<Bits<32>>,
    prod_hi: DFF<Bits<32>>,
    prod_pending: DFF<Bit>,
    /// The snapshot of the round-trip results.
    snap_count: DFF<Bits<32>>,
    snap_min: DFF<Bits<32>>,
    snap_max: DFF<Bits<32>>,
    snap_last: DFF<Bits<32>>,
    snap_sum: DFF<Bits<64>>,
    snap_jitter: DFF<Bits<64>>,
    snap_sum_sq: DFF<Bits<96>>,
    snap_sent: DFF<Bits<32>>,
    snap_received: DFF<Bits<32>>,
    snap_owed: DFF<Bits<32>>,
    snap_in_flight: DFF<Bits<5>>,
    snap_fault: DFF<Bit>,
    // Combinational helpers.
    tx_ok: Signal<Local, Bit>,
    rx_ok: Signal<Local, Bit>,
    close_first: Signal<Local, Bit>,
    /// The 16-bit halves of `request_count`.
    count_lo: Signal<Local, Bits<16>>,
    count_hi: Signal<Local, Bits<16>>,
    /// A start is taken this cycle.
    starting: Signal<Local, Bit>,
    /// The latency test's open waits for the histogram's sweep.
    open_ready: Signal<Local, Bit>,
    verifier_cause: Signal<Local, Bits<4>>,
    datapath: Datapath<W, K>,
    /// `stall_timeout` latched at `start`; progress is a beat moved or a
    /// change of `state`.
    watchdog: Watchdog<State>,
    /// `elapsed`: from `established` to the end of the transfer.
    timer: ElapsedTimer,
    /// The peer's port, MSS and window scale at `established`.
    peer: PeerLatch,
    // Constants: causes (`error_cause`), test modes, counts.
    c_none: Constant<Bits<4>>,
    c_refused: Constant<Bits<4>>,
    c_peer_closed: Constant<Bits<4>>,
    c_verify: Constant<Bits<4>>,
    c_beyond: Constant<Bits<4>>,
    c_aborted: Constant<Bits<4>>,
    c_stalled: Constant<Bits<4>>,
    c_conn_reset: Constant<Bits<4>>,
    c_mode_off: Constant<Bits<3>>,
    c_mode_send: Constant<Bits<3>>,
    c_mode_receive: Constant<Bits<3>>,
    c_mode_latency: Constant<Bits<3>>,
    c_mode_echo: Constant<Bits<3>>,
    c_vcause_beyond: Constant<Bits<2>>,
    c_vcause_short: Constant<Bits<2>>,
    c_drain: Constant<Bits<4>>,
    c_zero4: Constant<Bits<4>>,
    c_zero48: Constant<Bits<48>>,
    c_max48: Constant<Bits<48>>,
    c_sixteen48: Constant<Bits<48>>,
    c_one4: Constant<Bits<4>>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
}

impl<const W: usize, const K: usize> Session<W, K> {
    /// A session whose user clock runs at `user_clock_khz` (its cycles per
    /// millisecond, for the watchdog), 1..=1,000,000 ([`Watchdog::new`]
    /// refuses more than 2^20).
    pub fn new(user_clock_khz: u32) -> Self {
        let c4 = |v: u64| Constant::new(bits::<4>(v));
        Self {
            verilog_name: Default::default(),
            clock: Default::default(),
            reset: Default::default(),
            reg_start: Default::default(),
            reg_abort: Default::default(),
            reg_stop: Default::default(),
            reg_clear_errors: Default::default(),
            reg_error: Default::default(),
            reg_test_mode: Default::default(),
            reg_outstanding: Default::default(),
            reg_request: Default::default(),
            reg_response: Default::default(),
            reg_request_count: Default::default(),
            reg_snapshot: Default::default(),
            reg_hist_index: Default::default(),
            reg_verify: Default::default(),
            reg_tx_pattern: Default::default(),
            reg_conn_mode: Default::default(),
            reg_tx_percent: Default::default(),
            reg_rx_percent: Default::default(),
            reg_transfer_size: Default::default(),
            reg_packet_size: Default::default(),
            reg_fpga_port: Default::default(),
            reg_target_port: Default::default(),
            reg_stall_timeout: Default::default(),
            reg_open_ended: Default::default(),
            reg_duration: Default::default(),
            reg_prefix_length: Default::default(),
            reg_prefix_only: Default::default(),
            shared_tx_prefix: Default::default(),
            reg_busy: Default::default(),
            reg_connected: Default::default(),
            reg_closed: Default::default(),
            reg_sent: Default::default(),
            reg_error_cause: Default::default(),
            reg_done_set: Default::default(),
            reg_error_set: Default::default(),
            reg_tx_bytes: Default::default(),
            reg_rx_bytes: Default::default(),
            reg_elapsed: Default::default(),
            reg_err_offset: Default::default(),
            reg_err_expected: Default::default(),
            reg_err_received: Default::default(),
            reg_err_count: Default::default(),
            reg_rx_packets: Default::default(),
            reg_peer_port: Default::default(),
            reg_peer_mss: Default::default(),
            reg_peer_window_scale: Default::default(),
            reg_rtt_count: Default::default(),
            reg_rtt_min: Default::default(),
            reg_rtt_max: Default::default(),
            reg_rtt_last: Default::default(),
            reg_rtt_sum: Default::default(),
            reg_rtt_jitter_sum: Default::default(),
            reg_rtt_sum_sq_0: Default::default(),
            reg_rtt_sum_sq_1: Default::default(),
            reg_rtt_sum_sq_2: Default::default(),
            reg_msg_sent: Default::default(),
            reg_msg_received: Default::default(),
            reg_msg_owed: Default::default(),
            reg_in_flight: Default::default(),
            reg_fault: Default::default(),
            reg_hist_count: Default::default(),
            toe_conn_req_valid: Default::default(),
            toe_conn_req_ready: Default::default(),
            toe_conn_req_open: Default::default(),
            toe_conn_req_active: Default::default(),
            toe_conn_req_local_port: Default::default(),
            toe_conn_req_remote_port: Default::default(),
            toe_established: Default::default(),
            toe_peer_closed: Default::default(),
            toe_conn_error: Default::default(),
            toe_peer_port: Default::default(),
            toe_peer_mss: Default::default(),
            toe_peer_window_scale: Default::default(),
            toe_tx_tdata: Default::default(),
            toe_tx_tkeep: Default::default(),
            toe_tx_tlast: Default::default(),
            toe_tx_tvalid: Default::default(),
            toe_tx_tready: Default::default(),
            toe_rx_tdata: Default::default(),
            toe_rx_tkeep: Default::default(),
            toe_rx_tlast: Default::default(),
            toe_rx_tvalid: Default::default(),
            toe_rx_tready: Default::default(),
            state: Default::default(),
            tx_en: Default::default(),
            rx_en: Default::default(),
            active: Default::default(),
            aborting: Default::default(),
            lport: Default::default(),
            rport: Default::default(),
            size: Default::default(),
            psize: Default::default(),
            pattern: Default::default(),
            verify_q: Default::default(),
            txp: Default::default(),
            rxp: Default::default(),
            fail: Default::default(),
            cause: Default::default(),
            closed_q: Default::default(),
            was_open: Default::default(),
            drain: Default::default(),
            error_q: Default::default(),
            open_q: Default::default(),
            duration_q: Default::default(),
            pfx_len: Default::default(),
            pfx_only: Default::default(),
            stop_q: Default::default(),
            duration_hit: Default::default(),
            fin_q: Default::default(),
            half_q: Default::default(),
            complete_q: Default::default(),
            msg_q: Default::default(),
            go_q: Default::default(),
            msg_sent_q: Default::default(),
            close_first_q: Default::default(),
            init_q: Default::default(),
            prod_lo: Default::default(),
            prod_hi: Default::default(),
            prod_pending: Default::default(),
            snap_count: Default::default(),
            snap_min: Default::default(),
            snap_max: Default::default(),
            snap_last: Default::default(),
            snap_sum: Default::default(),
            snap_jitter: Default::default(),
            snap_sum_sq: Default::default(),
            snap_sent: Default::default(),
            snap_received: Default::default(),
            snap_owed: Default::default(),
            snap_in_flight: Default::default(),
            snap_fault: Default::default(),
            tx_ok: Default::default(),
            rx_ok: Default::default(),
            close_first: Default::default(),
            count_lo: Default::default(),
            count_hi: Default::default(),
            starting: Default::default(),
            open_ready: Default::default(),
            verifier_cause: Default::default(),
            datapath: Default::default(),
            watchdog: Watchdog::new(user_clock_khz),
            timer: Default::default(),
            peer: Default::default(),
            c_none: c4(ErrorCause::None as u64),
            c_refused: c4(ErrorCause::Refused as u64),
            c_peer_closed: c4(ErrorCause::PeerClosed as u64),
            c_verify: c4(ErrorCause::Verify as u64),
            c_beyond: c4(ErrorCause::BeyondSize as u64),
            c_aborted: c4(ErrorCause::Aborted as u64),
            c_stalled: c4(ErrorCause::Stalled as u64),
            c_conn_reset: c4(ErrorCause::ConnReset as u64),
            c_mode_off: Constant::new(bits(TestMode::Disabled as u64)),
            c_mode_send: Constant::new(bits(TestMode::Send as u64)),
            c_mode_receive: Constant::new(bits(TestMode::Receive as u64)),
            c_mode_latency: Constant::new(bits(TestMode::Latency as u64)),
            c_mode_echo: Constant::new(bits(TestMode::Echo as u64)),
            c_vcause_beyond: Constant::new(bits(crate::data_verifier::CAUSE_BEYOND)),
            c_vcause_short: Constant::new(bits(crate::data_verifier::CAUSE_SHORT)),
            c_drain: c4(DRAIN_CYCLES),
            c_zero4: c4(0),
            c_zero48: Constant::new(bits(0)),
            c_sixteen48: Constant::new(bits(16)),
            c_max48: Constant::new(Bits::<48>::mask()),
            c_one4: c4(1),
        }
    }
}

impl<const W: usize, const K: usize> Logic for Session<W, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            tx_en,
            rx_en,
            active,
            aborting,
            lport,
            rport,
            size,
            psize,
            pattern,
            verify_q,
            txp,
            rxp,
            fail,
            cause,
            closed_q,
            was_open,
            drain,
            error_q,
            open_q,
            duration_q,
            pfx_len,
            pfx_only,
            stop_q,
            duration_hit,
            fin_q,
            half_q,
            complete_q,
            msg_q,
            go_q,
            msg_sent_q,
            close_first_q,
            init_q,
            prod_lo,
            prod_hi,
            prod_pending,
            snap_count,
            snap_min,
            snap_max,
            snap_last,
            snap_sum,
            snap_jitter,
            snap_sum_sq,
            snap_sent,
            snap_received,
            snap_owed,
            snap_in_flight,
            snap_fault
        );

        // The datapath runs on the latched parameters.
        self.datapath.clock.next = self.clock.val();
        self.datapath.reset.next = self.reset.val();
        self.datapath.transfer_size.next = self.size.q.val();
        self.datapath.packet_size.next = self.psize.q.val();
        // TxPattern::Incremental is 0, the datapath's incremental is 1.
        self.datapath.pattern.next = !self.pattern.q.val();
        self.datapath.verify.next = self.verify_q.q.val();
        self.datapath.open_ended.next = self.open_q.q.val();
        self.datapath.tx_stop.next = self.stop_q.q.val();
        self.datapath.prefix_length.next = self.pfx_len.q.val();
        self.datapath.prefix_only.next = self.pfx_only.q.val();
        self.datapath.tx_prefix.next = self.shared_tx_prefix.val();
        self.datapath.tx_percent.next = self.txp.q.val();
        self.datapath.rx_percent.next = self.rxp.q.val();
        self.datapath.rx_clear.next = self.reg_clear_errors.val();
        // The latency modes: RoundTrips samples its parameters at
        // `msg_start`, straight from the registers as the rest at `start`.
        self.count_lo.next = self.reg_request_count.val().get_bits::<16>(0);
        self.count_hi.next = self.reg_request_count.val().get_bits::<16>(16);
        self.starting.next = (self.state.q.val() == State::Idle)
            & self.reg_start.val()
            & (self.reg_test_mode.val() != self.c_mode_off.val());
        self.datapath.messages.next = self.msg_q.q.val();
        self.datapath.msg_start.next = self.starting.val()
            & ((self.reg_test_mode.val() == self.c_mode_latency.val())
                | (self.reg_test_mode.val() == self.c_mode_echo.val()));
        self.datapath.msg_initiator.next = self.reg_test_mode.val() == self.c_mode_latency.val();
        self.datapath.msg_request_size.next = self.reg_request.val();
        self.datapath.msg_response_size.next = self.reg_response.val();
        self.datapath.msg_request_count.next = self.reg_request_count.val();
        self.datapath.msg_outstanding.next = self.reg_outstanding.val();
        self.go_q.d.next =
            self.msg_q.q.val() & ((self.state.q.val() == State::Run) | (self.state.q.val() == State::Drain));
        self.datapath.msg_go.next = self.go_q.q.val();
        self.datapath.hist_index.next = self.reg_hist_index.val();
        self.reg_hist_count.next = self.datapath.hist_count.val();
        // A latency test opens its connection once the histogram is swept.
        self.open_ready.next = !(self.msg_q.q.val() & self.datapath.msg_clearing.val());

        // The round-trip results software reads: a snapshot at
        // `ctrl.snapshot` and while the test ends.
        if self.reg_snapshot.val() | (self.state.q.val() == State::Finish) {
            self.snap_count.d.next = self.datapath.rtt_count.val();
            self.snap_min.d.next = self.datapath.rtt_min.val();
            self.snap_max.d.next = self.datapath.rtt_max.val();
            self.snap_last.d.next = self.datapath.rtt_last.val();
            self.snap_sum.d.next = self.datapath.rtt_sum.val();
            self.snap_jitter.d.next = self.datapath.rtt_jitter_sum.val();
            self.snap_sum_sq.d.next = self.datapath.rtt_sum_sq.val();
            self.snap_sent.d.next = self.datapath.msg_sent.val();
            self.snap_received.d.next = self.datapath.msg_received.val();
            self.snap_owed.d.next = self.datapath.msg_owed.val();
            self.snap_in_flight.d.next = self.datapath.msg_in_flight.val();
            self.snap_fault.d.next = self.datapath.msg_fault.val();
        }
        self.reg_rtt_count.next = self.snap_count.q.val();
        self.reg_rtt_min.next = self.snap_min.q.val();
        self.reg_rtt_max.next = self.snap_max.q.val();
        self.reg_rtt_last.next = self.snap_last.q.val();
        self.reg_rtt_sum.next = self.snap_sum.q.val();
        self.reg_rtt_jitter_sum.next = self.snap_jitter.q.val();
        self.reg_rtt_sum_sq_0.next = self.snap_sum_sq.q.val().get_bits::<32>(0);
        self.reg_rtt_sum_sq_1.next = self.snap_sum_sq.q.val().get_bits::<32>(32);
        self.reg_rtt_sum_sq_2.next = self.snap_sum_sq.q.val().get_bits::<32>(64);
        self.reg_msg_sent.next = self.snap_sent.q.val();
        self.reg_msg_received.next = self.snap_received.q.val();
        self.reg_msg_owed.next = self.snap_owed.q.val();
        self.reg_in_flight.next = self.snap_in_flight.q.val();
        self.reg_fault.next = self.snap_fault.q.val();

        // The initiator's responses in bytes, a cycle after `start`.
        self.prod_pending.d.next = false;
        if self.prod_pending.q.val() {
            self.size.d.next = (bit_cast::<48, 32>(self.prod_hi.q.val()) << self.c_sixteen48.val())
                + bit_cast::<48, 32>(self.prod_lo.q.val());
        }
        self.toe_tx_tdata.next = self.datapath.tx_tdata.val();
        self.toe_tx_tkeep.next = self.datapath.tx_tkeep.val();
        self.toe_tx_tlast.next = self.datapath.tx_tlast.val();
        self.toe_tx_tvalid.next = self.datapath.tx_tvalid.val();
        self.datapath.tx_tready.next = self.toe_tx_tready.val();
        self.datapath.rx_tdata.next = self.toe_rx_tdata.val();
        self.datapath.rx_tkeep.next = self.toe_rx_tkeep.val();
        self.datapath.rx_tlast.next = self.toe_rx_tlast.val();
        self.datapath.rx_tvalid.next = self.toe_rx_tvalid.val();
        self.toe_rx_tready.next = self.datapath.rx_tready.val();

        // Status and counters for the registers.
        self.reg_busy.next =
            (self.state.q.val() != State::Idle) | self.datapath.tx_busy.val() | self.datapath.msg_tx_busy.val();
        self.reg_connected.next = self.toe_established.val();
        self.reg_closed.next = self.closed_q.q.val();
        if self.msg_q.q.val() {
            self.reg_sent.next = self.init_q.q.val() & self.datapath.msg_done.val();
        } else {
            self.reg_sent.next = self.datapath.tx_done.val();
        }
        self.reg_error_cause.next = self.cause.q.val();
        self.reg_tx_bytes.next = self.datapath.tx_bytes.val();
        self.reg_rx_bytes.next = self.datapath.rx_bytes.val();
        self.reg_elapsed.next = self.timer.elapsed.val();
        self.reg_err_offset.next = self.datapath.rx_err_offset.val();
        self.reg_err_expected.next = self.datapath.rx_err_expected.val();
        self.reg_err_received.next = self.datapath.rx_err_received.val();
        self.reg_err_count.next = self.datapath.rx_err_count.val();
        self.reg_rx_packets.next = self.datapath.rx_packets.val();
        self.reg_peer_port.next = self.peer.held_port.val();
        self.reg_peer_mss.next = self.peer.held_mss.val();
        self.reg_peer_window_scale.next = self.peer.held_window_scale.val();

        // Connection requests.
        // `open_ready` is written out here rather than read from its local
        // signal, which the input-dependent open handshake below also reads:
        // one local read by both makes Verilator schedule this flip-flop-only
        // output with the input-combinational logic, recomputed at every
        // evaluation (issue 27, as in the rate limiter). The logic is the same.
        self.toe_conn_req_valid.next = ((self.state.q.val() == State::OpenReq)
            & !(self.msg_q.q.val() & self.datapath.msg_clearing.val()))
            | (self.state.q.val() == State::CloseReq);
        self.toe_conn_req_open.next = self.state.q.val() == State::OpenReq;
        self.toe_conn_req_active.next = self.active.q.val();
        self.toe_conn_req_local_port.next = self.lport.q.val();
        self.toe_conn_req_remote_port.next = self.rport.q.val();

        // Defaults for the one-cycle pulses.
        self.datapath.tx_start.next = false;
        self.datapath.rx_start.next = false;
        self.datapath.rx_end.next = false;
        self.datapath.tx_abort.next = false;
        self.datapath.tx_clear.next = false;
        self.reg_done_set.next = false;
        self.reg_error_set.next = false;
        self.watchdog.load.next = false;
        self.timer.clear.next = false;
        self.timer.start.next = false;
        self.timer.stop.next = false;
        self.peer.take.next = false;

        // The latency modes: the initiator's send is over when its last
        // response ended; the echo's once the peer closed and every
        // request it sent has been answered.
        // (A cycle late, registered; the echo's receive waits for the
        // verifier to settle, which covers that cycle.)
        if self.init_q.q.val() {
            self.msg_sent_q.d.next = self.datapath.msg_done.val();
        } else {
            self.msg_sent_q.d.next = self.toe_peer_closed.val() & self.datapath.msg_quiet.val();
        }
        if self.msg_q.q.val() {
            self.tx_ok.next = self.msg_sent_q.q.val();
        } else {
            self.tx_ok.next = !self.tx_en.q.val() | self.datapath.tx_done.val();
        }
        // Receiving is over when every byte arrived, or when data beyond the
        // size did (the byte counter then never equals the size), whatever
        // the first-error record shows (a mismatch may come first).
        self.complete_q.d.next = self.datapath.rx_complete.val();
        // Open-ended, it is over when the peer closed and the verifier took
        // everything before the close.
        // The echo's receive is over at the peer's close, with no request
        // cut short.
        self.rx_ok.next = !self.rx_en.q.val()
            | self.complete_q.q.val()
            | self.datapath.rx_beyond.val()
            | (self.open_q.q.val() & self.toe_peer_closed.val() & self.datapath.rx_settled.val())
            | (self.msg_q.q.val()
                & !self.init_q.q.val()
                & self.toe_peer_closed.val()
                & self.datapath.rx_settled.val()
                & !self.datapath.msg_partial.val());
        self.close_first.next = self.close_first_q.q.val();
        // The verifier's internal cause (`data_verifier::CAUSE_*`) in
        // register terms (`ErrorCause`).
        if self.datapath.rx_err_cause.val() == self.c_vcause_beyond.val() {
            self.verifier_cause.next = self.c_beyond.val();
        } else if self.datapath.rx_err_cause.val() == self.c_vcause_short.val() {
            self.verifier_cause.next = self.c_peer_closed.val();
        } else {
            self.verifier_cause.next = self.c_verify.val();
        }

        // The watchdog: progress is a beat moved either way or a change of
        // state. It fires at the end of the `stall_timeout`th millisecond
        // without progress, or of the first one while aborting: a TOE that
        // does not take the abort's close request is given up on.
        self.watchdog.clock.next = self.clock.val();
        self.watchdog.timeout_ms.next = self.reg_stall_timeout.val();
        self.watchdog.state.next = self.state.q.val();
        self.watchdog.moved.next = (self.datapath.tx_tvalid.val() & self.toe_tx_tready.val())
            | (self.toe_rx_tvalid.val() & self.datapath.rx_tready.val());
        self.watchdog.armed.next = self.state.q.val() != State::Idle;
        self.watchdog.hurry.next = self.aborting.q.val();
        self.timer.clock.next = self.clock.val();
        self.timer.reset.next = self.reset.val();
        self.peer.clock.next = self.clock.val();
        self.peer.port.next = self.toe_peer_port.val();
        self.peer.mss.next = self.toe_peer_mss.val();
        self.peer.window_scale.next = self.toe_peer_window_scale.val();

        // The send ends at `stop` (from `established` on; one before is kept
        // and sends nothing) or once `elapsed` reaches a non-zero
        // `duration`: the timer counts from `established` and is cleared at
        // `start`, so the registered compare cannot hit before.
        self.duration_hit.d.next = (self.duration_q.q.val() != self.c_zero48.val())
            & (self.timer.elapsed.val().get_bits::<48>(0) >= self.duration_q.q.val());
        if (self.reg_stop.val() & (self.state.q.val() != State::Idle)) | self.duration_hit.q.val() {
            self.stop_q.d.next = true;
        }

        // Software clearing the sticky error clears the cause.
        self.error_q.d.next = self.reg_error.val();
        if self.error_q.q.val() & !self.reg_error.val() {
            self.cause.d.next = self.c_none.val();
        }

        match self.state.q.val() {
            State::Idle => {
                if self.reg_start.val() & (self.reg_test_mode.val() != self.c_mode_off.val()) {
                    // The generator sends in the throughput modes only: in
                    // the latency modes the round trips send (and `tx_ok`
                    // follows them, not `tx_en`).
                    self.tx_en.d.next = (self.reg_test_mode.val() != self.c_mode_receive.val())
                        & (self.reg_test_mode.val() != self.c_mode_latency.val())
                        & (self.reg_test_mode.val() != self.c_mode_echo.val());
                    self.rx_en.d.next = self.reg_test_mode.val() != self.c_mode_send.val();
                    // ConnMode::Active is 0 (checked at the top of the file).
                    self.active.d.next = !self.reg_conn_mode.val();
                    // Half duplex: the sender closes first; full duplex: the
                    // client; the latency modes: the initiator.
                    if (self.reg_test_mode.val() == self.c_mode_latency.val())
                        | (self.reg_test_mode.val() == self.c_mode_echo.val())
                    {
                        self.close_first_q.d.next = self.reg_test_mode.val() == self.c_mode_latency.val();
                    } else {
                        self.close_first_q.d.next = (self.reg_test_mode.val() != self.c_mode_receive.val())
                            & ((self.reg_test_mode.val() == self.c_mode_send.val()) | !self.reg_conn_mode.val());
                    }
                    self.lport.d.next = self.reg_fpga_port.val();
                    self.rport.d.next = self.reg_target_port.val();
                    // Open-ended, the verifier takes up to 2^48-1 bytes (2.4
                    // hours at 32,000 MB/s): the largest size, rather than a
                    // mode that would deepen its byte-room logic.
                    // The latency modes: the echo receives until the peer
                    // closes, the initiator `request_count` responses (the
                    // product lands a cycle later).
                    self.msg_q.d.next = (self.reg_test_mode.val() == self.c_mode_latency.val())
                        | (self.reg_test_mode.val() == self.c_mode_echo.val());
                    self.init_q.d.next = self.reg_test_mode.val() == self.c_mode_latency.val();
                    self.prod_lo.d.next = self.count_lo.val() * self.reg_response.val();
                    self.prod_hi.d.next = self.count_hi.val() * self.reg_response.val();
                    self.prod_pending.d.next = self.reg_test_mode.val() == self.c_mode_latency.val();
                    if self.reg_open_ended.val()
                        | (self.reg_test_mode.val() == self.c_mode_latency.val())
                        | (self.reg_test_mode.val() == self.c_mode_echo.val())
                    {
                        self.size.d.next = self.c_max48.val();
                    } else {
                        self.size.d.next = self.reg_transfer_size.val();
                    }
                    self.psize.d.next = self.reg_packet_size.val();
                    self.pattern.d.next = self.reg_tx_pattern.val();
                    self.verify_q.d.next = self.reg_verify.val();
                    self.txp.d.next = self.reg_tx_percent.val();
                    self.rxp.d.next = self.reg_rx_percent.val();
                    self.open_q.d.next = self.reg_open_ended.val()
                        & (self.reg_test_mode.val() != self.c_mode_latency.val())
                        & (self.reg_test_mode.val() != self.c_mode_echo.val());
                    self.duration_q.d.next = self.reg_duration.val();
                    self.pfx_len.d.next = self.reg_prefix_length.val();
                    self.pfx_only.d.next = self.reg_prefix_only.val();
                    self.stop_q.d.next = false;
                    self.duration_hit.d.next = false;
                    self.fin_q.d.next = false;
                    self.half_q.d.next = false;
                    self.watchdog.load.next = true;
                    self.fail.d.next = self.c_none.val();
                    self.aborting.d.next = false;
                    self.closed_q.d.next = false;
                    self.was_open.d.next = false;
                    self.timer.clear.next = true;
                    self.state.d.next = State::OpenReq;
                }
            }
            State::OpenReq => {
                // A new transfer for the verifier (clears its counters and record)
                // and a zero transmit count, whatever the test mode: a receive test
                // or a refused open must not show the previous test's `tx_bytes`.
                // The parameters were latched at `start`, the cycle before.
                self.datapath.rx_start.next = true;
                self.datapath.tx_clear.next = true;
                if self.toe_conn_req_ready.val() & self.open_ready.val() {
                    if self.aborting.q.val() {
                        self.state.d.next = State::CloseReq;
                    } else {
                        self.state.d.next = State::WaitEst;
                    }
                }
            }
            State::WaitEst => {
                if self.toe_conn_error.val() {
                    self.fail.d.next = self.c_refused.val();
                    self.state.d.next = State::Finish;
                } else if self.toe_established.val() {
                    self.was_open.d.next = true;
                    self.peer.take.next = true;
                    self.timer.start.next = true;
                    self.datapath.tx_start.next = self.tx_en.q.val();
                    self.state.d.next = State::Run;
                }
            }
            State::Run => {
                // A reset: `conn_error`, or `established` falling on its own
                // (it falls legitimately only after our close, which is not
                // requested yet).
                // After our half-close, `established` falls when the peer
                // closes too, and `rx_ok` then ends the test.
                if self.toe_conn_error.val() | (!self.toe_established.val() & !self.fin_q.q.val()) {
                    self.fail.d.next = self.c_conn_reset.val();
                    self.timer.stop.next = true;
                    self.datapath.tx_abort.next = true;
                    if self.fin_q.q.val() {
                        self.state.d.next = State::WaitClosed;
                    } else {
                        self.state.d.next = State::CloseReq;
                    }
                } else if self.tx_ok.val() & self.rx_ok.val() {
                    self.timer.stop.next = true;
                    if self.fin_q.q.val() {
                        self.state.d.next = State::WaitClosed;
                    } else if self.close_first.val() {
                        self.state.d.next = State::CloseReq;
                    } else {
                        self.state.d.next = State::WaitPeer;
                    }
                } else if self.open_q.q.val() & self.tx_en.q.val() & self.tx_ok.val() & !self.fin_q.q.val() {
                    // Open-ended, each side closes its direction when its
                    // send ends, and receives on until the peer closes (two
                    // open-ended full-duplex peers would otherwise each wait
                    // for the other's close).
                    self.half_q.d.next = true;
                    self.state.d.next = State::CloseReq;
                } else if self.toe_peer_closed.val() & !self.rx_ok.val() {
                    // The peer closed before every expected byte arrived: let the
                    // verifier finish what it took, then judge. A FIN after the
                    // last expected byte (or on a send-only test) is a legal
                    // half-close: we keep sending.
                    self.drain.d.next = self.c_drain.val();
                    self.state.d.next = State::Drain;
                }
            }
            State::Drain => {
                self.drain.d.next = self.drain.q.val() - self.c_one4.val();
                if self.tx_ok.val() & self.rx_ok.val() {
                    // Everything arrived after all: a normal end, the peer closed first.
                    self.timer.stop.next = true;
                    if self.fin_q.q.val() {
                        self.state.d.next = State::WaitClosed;
                    } else {
                        self.state.d.next = State::CloseReq;
                    }
                } else if self.rx_ok.val() {
                    // Everything arrived; the peer half-closed while we still send.
                    self.state.d.next = State::Run;
                } else if self.drain.q.val() == self.c_zero4.val() {
                    self.timer.stop.next = true;
                    self.fail.d.next = self.c_peer_closed.val();
                    self.datapath.rx_end.next = self.rx_en.q.val() & !self.complete_q.q.val();
                    self.datapath.tx_abort.next = true;
                    self.state.d.next = State::CloseReq;
                }
            }
            State::WaitPeer => {
                if self.toe_peer_closed.val() | self.toe_conn_error.val() | !self.toe_established.val() {
                    self.state.d.next = State::CloseReq;
                }
            }
            State::CloseReq => {
                if self.toe_conn_req_ready.val() {
                    self.fin_q.d.next = true;
                    self.half_q.d.next = false;
                    if self.aborting.q.val() {
                        self.state.d.next = State::Finish;
                    } else if self.half_q.q.val() {
                        self.state.d.next = State::Run;
                    } else {
                        self.state.d.next = State::WaitClosed;
                    }
                }
            }
            State::WaitClosed => {
                if !self.toe_established.val() | self.toe_conn_error.val() {
                    self.closed_q.d.next = self.was_open.q.val();
                    self.state.d.next = State::Finish;
                }
            }
            _ => {
                // State::Finish (the default arm, so an unused encoding also
                // finishes, as the former if-chain's else did): report and go idle; a verification error waits for its
                // complete first-error record (the verifier guarantees it within W/32 + 2 cycles
                // of counting the error).
                if self.fail.q.val() != self.c_none.val() {
                    self.reg_error_set.next = true;
                    self.cause.d.next = self.fail.q.val();
                    self.state.d.next = State::Idle;
                } else if !self.datapath.rx_settled.val() {
                    // A normal end judges every byte taken: the last beats
                    // (say, data beyond the size just before the peer's
                    // FIN) may still be in the verifier's pipeline.
                } else if self.datapath.rx_error.val() {
                    if self.datapath.rx_err_valid.val() {
                        self.reg_error_set.next = true;
                        self.cause.d.next = self.verifier_cause.val();
                        self.state.d.next = State::Idle;
                    }
                } else {
                    self.reg_done_set.next = true;
                    self.state.d.next = State::Idle;
                }
            }
        }

        // The watchdog fired: the test ends `stalled` (unless it already
        // failed). A connection, or an open under way, is asked to close;
        // a request the TOE does not take, or a close it never completes, is
        // given up (the request withdrawn untaken: the TOE broke its
        // contract, see `docs/toe_interface.md`).
        if self.watchdog.fire.val() & (self.state.q.val() != State::Idle) & (self.state.q.val() != State::Finish) {
            if self.fail.q.val() == self.c_none.val() {
                self.fail.d.next = self.c_stalled.val();
            }
            self.timer.stop.next = true;
            self.datapath.tx_abort.next = true;
            if (self.state.q.val() == State::OpenReq)
                | (self.state.q.val() == State::CloseReq)
                | (self.state.q.val() == State::WaitClosed)
            {
                self.state.d.next = State::Finish;
            } else if self.fin_q.q.val() {
                // Our close was taken already (a half-close): wait for the end.
                self.state.d.next = State::WaitClosed;
            } else {
                self.state.d.next = State::CloseReq;
            }
        }

        // Abort wins over everything but an idle session.
        if self.reg_abort.val() & (self.state.q.val() != State::Idle) & (self.state.q.val() != State::Finish) {
            self.aborting.d.next = true;
            self.fail.d.next = self.c_aborted.val();
            self.timer.stop.next = true;
            self.datapath.tx_abort.next = true;
            if (self.state.q.val() == State::WaitClosed) | self.fin_q.q.val() {
                // Our close was taken already: nothing left to ask the TOE.
                self.state.d.next = State::Finish;
            } else if (self.state.q.val() != State::OpenReq) | (self.toe_conn_req_ready.val() & self.open_ready.val()) {
                // (An open request taken at this edge must be closed again.)
                self.state.d.next = State::CloseReq;
            }
        }

        if self.reset.val() {
            self.state.d.next = State::Idle;
            self.cause.d.next = self.c_none.val();
            self.closed_q.d.next = false;
        }
    }
}
