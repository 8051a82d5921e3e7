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
//! # Connections
//!
//! Board 0 and board 1 are each other's only peer. `conn_req_ready` is high
//! whenever [`ToeConfig::conn_req_ready_delay`] is 0 (the default): the model
//! takes a request at the first edge it is presented. With a non-zero delay
//! `conn_req_ready` rises only after the request has been presented for that
//! many edges (to exercise the user logic's wait).
//!
//! * An open request clears `peer_closed`, `conn_error` and the peer fields.
//!   If the TOE is not initialised (`init_done` low) `conn_error` rises at once.
//! * Passive open: the session listens on `local_port` (no timeout).
//! * Active open accepted at the edge of cycle `c`: the SYN reaches the other
//!   board at `c + L`. If a session there listens on `remote_port` (matched by
//!   port, lowest session index first) it answers SYN-ACK; the active side
//!   becomes `established` at `c + 2L` and sends the final ACK, so the passive
//!   side becomes `established` at `c + 3L`. If nobody listens on that port
//!   (or the listener is already connected) the answer is RST and the active
//!   side gets `conn_error` at `c + 2L` ("refused"). If the other board is
//!   [silent](TwoBoards::set_silent) or not initialised, the SYN is dropped and
//!   `conn_error` rises at `c + syn_timeout_cycles`.
//! * `peer_port` is the other side's local port, `peer_mss` the other TOE's
//!   [`ToeConfig::mss`], `peer_window_scale` the smallest shift so that the
//!   other TOE's `rx_buffer_bytes >> shift` fits in 16 bits (1 MB -> 5).
//! * Close request:
//!   - while listening or while an active open is pending: cancelled silently
//!     (an RST is sent for a pending active open so a peer that already
//!     answered goes back to listening; a passive side that received a SYN but
//!     not yet the final ACK answers the cancel with an RST, which the active
//!     side sees as `conn_error`);
//!   - while established: the FIN is queued after every byte already taken on
//!     TX (the model has no TX buffer, so that is at once) and travels the link
//!     behind them; `tx_tready` stays low from then on;
//!   - with nothing open, or a second close: taken, no effect.
//! * Peer FIN: once every byte before it was taken on RX, `peer_closed` rises.
//! * `established` falls when the session has sent its FIN and `peer_closed`
//!   is high (fully closed). `peer_port/mss/window_scale` and `peer_closed`
//!   keep their values until the next open request.
//! * An open request while the session still has a connection (it aborted and
//!   starts again before the peer closed) resets that connection: an RST goes
//!   to the peer (which sees `conn_error`) and the new request is taken. While
//!   listening, the listen is replaced. So a restart after an abort never
//!   waits on the old peer.
//!
//! # Initialisation
//!
//! `init_done` is high after [`TwoBoards::new`] (the TOE initialised itself at
//! power-up). A `toe_init` pulse ([`GlobalOutputs::init`]) restarts it: every
//! session with a connection, a pending open or a listen loses it (`established`
//! falls, `conn_error` rises; the peer of a connection gets an RST, hence
//! `conn_error` one latency later), `init_done` is low from the next cycle for
//! `init_cycles` cycles, then high. The init takes effect after the other
//! handshakes of the same edge. While not initialised the TOE drops SYNs and
//! refuses open requests with `conn_error`.
//!
//! The global parameters `last_packet_mode` and `window_update_gap` are taken
//! at each `toe_init` pulse, as on the board. Until the first pulse the model
//! follows the levels the board shows at every edge (the register file's reset
//! values act as the power-up parameters). [`TwoBoards::params`] tells which
//! values are in effect.
//!
//! # Transmit, window and receive
//!
//! * `tx_tready` for session `s` is high only when the connection is
//!   established, the session has not requested its close, the peer's window
//!   permits a full beat (`sent + beat_bytes <= right edge the peer last
//!   advertised, as known here`) and the link credit grants the session. It is
//!   low for a session that shows no `tx_tvalid` (ready depends on valid).
//! * A taken beat goes on the link at once; it reaches the peer's receive buffer
//!   (capacity `rx_buffer_bytes`) one latency later.
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
//! of the [`checker`] module, which `host_toe` uses too.
//!
//! # Fault injection
//!
//! [`TwoBoards::set_silent`] makes a board's TOE drop every SYN it receives;
//! [`TwoBoards::corrupt`] flips bits of one received byte.
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

use std::collections::VecDeque;

pub mod checker;

pub use checker::MAX_VIOLATIONS;
use checker::{Place, Request, SessionChecker, ViolationLog};

/// The link between the two TOEs (the same in both directions).
#[derive(Clone, Debug)]
pub struct LinkConfig {
    /// TCP payload bandwidth of each direction, MB/s (10^6 B/s). Default 24_751
    /// (200G Ethernet, 9014-byte jumbo frames, MSS 8948 with TCP timestamps).
    pub payload_mb_s: u64,
    /// User clock, MHz. Default 250. One model step = one user clock cycle.
    pub user_clock_mhz: u64,
    /// One-way latency in cycles, both directions (data, ACKs, SYN, FIN). Default 250 (1 us).
    pub latency_cycles: u64,
}

impl Default for LinkConfig {
    fn default() -> Self {
        Self {
            payload_mb_s: 24_751,
            user_clock_mhz: 250,
            latency_cycles: 250,
        }
    }
}

impl LinkConfig {
    /// Long-run payload bytes per user-clock cycle of one direction.
    pub fn bytes_per_cycle(&self) -> f64 {
        self.payload_mb_s as f64 / self.user_clock_mhz as f64
    }
}

/// Parameters of one TOE core.
#[derive(Clone, Debug)]
pub struct ToeConfig {
    /// Bytes per beat, W/8 (8..=128).
    pub beat_bytes: usize,
    /// Receive buffer per session, bytes. Default 1 << 20.
    pub rx_buffer_bytes: u64,
    /// MSS this TOE announces. Default 8948.
    pub mss: u16,
    /// Active open gives up after this many cycles without an answer. Default 250_000.
    pub syn_timeout_cycles: u64,
    /// Last packet mode `normal` (2): a trailing partial beat is delivered after this many cycles without a push/FIN. Default 2_500.
    pub push_timeout_cycles: u64,
    /// Cycles from toe_init to init_done. Default 100.
    pub init_cycles: u64,
    /// `conn_req_ready` rises only after a request has been presented for this
    /// many edges. Default 0: ready is always high and a request is taken at the
    /// first edge it is presented.
    pub conn_req_ready_delay: u64,
}

impl ToeConfig {
    /// The defaults with `beat_bytes` bytes per beat.
    pub fn new(beat_bytes: usize) -> Self {
        assert!(
            (1..=128).contains(&beat_bytes),
            "beat_bytes {beat_bytes} out of 1..=128"
        );
        Self {
            beat_bytes,
            rx_buffer_bytes: 1 << 20,
            mss: 8948,
            syn_timeout_cycles: 250_000,
            push_timeout_cycles: 2_500,
            init_cycles: 100,
            conn_req_ready_delay: 0,
        }
    }

    /// The window-scale shift this TOE announces: the smallest shift so that
    /// `rx_buffer_bytes >> shift` fits in 16 bits (at most 14).
    pub fn window_scale(&self) -> u8 {
        let mut s = 0u8;
        while (self.rx_buffer_bytes >> s) > 0xFFFF && s < 14 {
            s += 1;
        }
        s
    }
}

impl Default for ToeConfig {
    /// The defaults with 128 bytes (1024 bits) per beat.
    fn default() -> Self {
        Self::new(128)
    }
}

/// Global toe_* levels/pulse one board's user logic drives (sampled at the edge).
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct GlobalOutputs {
    /// `toe_init` pulse.
    pub init: bool,
    /// `toe_last_packet_mode`: 0 dup, 1 psh, 2 (or 3) normal.
    pub last_packet_mode: u8,
    /// `toe_window_update_gap`: 1 KB units, 0 = off.
    pub window_update_gap: u16,
}

/// What session s of a board's user logic shows just before a rising edge.
#[derive(Clone, Default, Debug)]
pub struct SessionOutputs {
    /// `conn_req_valid`.
    pub conn_req_valid: bool,
    /// `conn_req_open`: 1 open, 0 close.
    pub conn_req_open: bool,
    /// `conn_req_active`: 1 active open, 0 passive (listen).
    pub conn_req_active: bool,
    /// `conn_req_local_port`.
    pub conn_req_local_port: u16,
    /// `conn_req_remote_port`.
    pub conn_req_remote_port: u16,
    /// `tx_tvalid`.
    pub tx_tvalid: bool,
    /// `tx_tlast`.
    pub tx_tlast: bool,
    /// The kept bytes of the TX beat, byte 0 first (tkeep is contiguous from bit 0), len 1..=beat_bytes. Empty when !tx_tvalid.
    pub tx_data: Vec<u8>,
    /// `rx_tready`.
    pub rx_tready: bool,
}

/// What the model drives into session s of a board for the coming edge.
#[derive(Clone, Default, Debug)]
pub struct SessionInputs {
    /// `conn_req_ready`.
    pub conn_req_ready: bool,
    /// `established`.
    pub established: bool,
    /// `peer_closed`.
    pub peer_closed: bool,
    /// `conn_error`.
    pub conn_error: bool,
    /// `peer_port`: the peer's local port.
    pub peer_port: u16,
    /// `peer_mss`.
    pub peer_mss: u16,
    /// `peer_window_scale`.
    pub peer_window_scale: u8,
    /// `tx_tready`.
    pub tx_tready: bool,
    /// `rx_tvalid`.
    pub rx_tvalid: bool,
    /// `rx_tlast`.
    pub rx_tlast: bool,
    /// Kept bytes of the RX beat, byte 0 first; len 1..=beat_bytes when rx_tvalid.
    pub rx_data: Vec<u8>,
}

/// Counters of one link direction (data sent by `from_board`, and the ACKs the
/// other board sent back for it).
#[derive(Clone, Debug, Default)]
pub struct LinkStats {
    /// Payload bytes taken on TX and put on the link (without duplicates).
    pub data_bytes: u64,
    /// TX beats taken.
    pub data_beats: u64,
    /// Bytes of duplicated last segments (mode dup): they use link bandwidth
    /// and the receiver drops them.
    pub dup_bytes: u64,
    /// Number of duplicated last segments.
    pub dup_segments: u64,
    /// Payload bytes taken on TX, per session.
    pub session_bytes: Vec<u64>,
    /// Bytes the receiving user logic took on RX, per session of the receiving board.
    pub session_delivered: Vec<u64>,
    /// ACKs sent on data arrival by the receiver (those that moved the window).
    pub acks: u64,
    /// Window update packets sent by the receiver (window update gap).
    pub window_updates: u64,
    /// Session-cycles in which an established session showed `tx_tvalid` but
    /// the peer's window had no room for a beat.
    pub window_stall_cycles: u64,
    /// Session-cycles in which a session showed `tx_tvalid`, had window but
    /// the link credit did not grant it (link busy / other sessions' turn).
    pub link_stall_cycles: u64,
    /// SYNs sent.
    pub syns: u64,
    /// FINs sent.
    pub fins: u64,
    /// RSTs sent.
    pub rsts: u64,
}

/// Why `tx_tready` is low for a session showing `tx_tvalid` (decided in `drive`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
enum Block {
    #[default]
    None,
    NotOpen,
    Window,
    Credit,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// No connection, no listen.
    Idle,
    /// Passive open: waiting for a SYN to this port.
    Listening { port: u16 },
    /// Active open sent its SYN; gives up at `deadline`.
    SynSent { deadline: u64 },
    /// Passive side got the SYN and answered; waits for the final ACK.
    SynReceived,
    /// Connected (possibly half-closed in either direction).
    Established,
}

/// The TOE side of one session.
#[derive(Debug)]
struct Session {
    state: State,
    /// Connection id (0 = none); ids are unique over the whole run, so items
    /// of an old connection still on the link are ignored.
    conn: u64,
    local_port: u16,
    established: bool,
    peer_closed: bool,
    conn_error: bool,
    peer_port: u16,
    peer_mss: u16,
    peer_ws: u8,
    // --- transmit side ---
    /// Our close request was taken (FIN sent).
    fin_sent: bool,
    /// Payload bytes taken on TX in this connection.
    sent: u64,
    /// The peer's right edge as known here (stream offset).
    right_edge: u64,
    /// `sent` at the previous push (last data).
    last_push: u64,
    block: Block,
    // --- receive side ---
    /// Arrived bytes not yet taken; front is stream offset `taken`.
    rx_q: VecDeque<u8>,
    /// Bytes taken by the user logic in this connection.
    taken: u64,
    /// Ascending push points (stream offsets) above `taken`.
    push_points: VecDeque<u64>,
    /// Stream offset of the peer's FIN, once it arrived.
    fin_at: Option<u64>,
    /// The beat being presented: (length, tlast).
    presented: Option<(usize, bool)>,
    /// Cycles a trailing partial beat has waited since the last arrival.
    push_idle: u64,
    /// Right edge last advertised to the peer.
    last_adv: u64,
    /// Pending corruptions: (stream offset, xor).
    corrupt: Vec<(u64, u8)>,
    // --- requests ---
    /// Edges the current request has waited for `conn_req_ready`.
    req_wait: u64,
    /// The interface checks of this session.
    check: SessionChecker,
}

impl Session {
    fn new(place: Place, beat_bytes: usize) -> Self {
        Self {
            state: State::Idle,
            conn: 0,
            local_port: 0,
            established: false,
            peer_closed: false,
            conn_error: false,
            peer_port: 0,
            peer_mss: 0,
            peer_ws: 0,
            fin_sent: false,
            sent: 0,
            right_edge: 0,
            last_push: 0,
            block: Block::None,
            rx_q: VecDeque::new(),
            taken: 0,
            push_points: VecDeque::new(),
            fin_at: None,
            presented: None,
            push_idle: 0,
            last_adv: 0,
            corrupt: Vec::new(),
            req_wait: 0,
            check: SessionChecker::new(place, beat_bytes),
        }
    }

    /// Forgets the stream state of the previous connection.
    fn reset_streams(&mut self) {
        self.fin_sent = false;
        self.sent = 0;
        self.right_edge = 0;
        self.last_push = 0;
        self.check.connection_gone();
        self.rx_q.clear();
        self.taken = 0;
        self.push_points.clear();
        self.fin_at = None;
        self.presented = None;
        self.push_idle = 0;
        self.last_adv = 0;
    }

    /// Drops the connection (fully closed, reset or cancelled).
    fn drop_connection(&mut self) {
        self.state = State::Idle;
        self.conn = 0;
        self.established = false;
        self.check.connection_gone();
        self.presented = None;
        self.rx_q.clear();
        self.push_points.clear();
    }

    /// Adds a push point at stream offset `p` (ignored if not above the last one).
    fn add_push(&mut self, p: u64) {
        let last = self.push_points.back().copied().unwrap_or(self.taken);
        if p > last && p > self.taken {
            self.push_points.push_back(p);
        }
    }

    /// The beat the receive buffer can present now: (length, tlast).
    fn next_beat(&self, beat: usize) -> Option<(usize, bool)> {
        let avail = self.rx_q.len();
        if avail == 0 {
            return None;
        }
        let max = avail.min(beat);
        if let Some(&p) = self.push_points.front() {
            let to_p = (p - self.taken) as usize;
            if to_p <= max {
                return Some((to_p, true));
            }
        }
        (max == beat).then_some((beat, false))
    }

    /// Raises `peer_closed` once every byte before the FIN was taken, and
    /// closes the connection when our FIN was sent too.
    fn check_closed(&mut self) {
        if self.fin_at == Some(self.taken) && !self.peer_closed && self.state == State::Established
        {
            self.peer_closed = true;
        }
        if self.peer_closed && self.fin_sent && self.state == State::Established {
            self.drop_connection();
        }
    }
}

/// Items on the link.
#[derive(Clone, Copy, Debug)]
enum Kind {
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
struct Event {
    due: u64,
    conn: u64,
    kind: Kind,
}

/// One direction of the link.
#[derive(Debug, Default)]
struct Link {
    events: VecDeque<Event>,
    /// Payload bytes of the `Data` events in flight, in order.
    wire: VecDeque<u8>,
}

impl Link {
    fn send(&mut self, due: u64, conn: u64, kind: Kind) {
        self.events.push_back(Event { due, conn, kind });
    }
}

/// One board's TOE.
#[derive(Debug)]
struct Board {
    cfg: ToeConfig,
    sessions: Vec<Session>,
    inputs: Vec<SessionInputs>,
    /// Cycles until init_done (0 = initialised).
    init_countdown: u64,
    /// Parameters in effect.
    params: GlobalOutputs,
    /// A toe_init was seen: `params` are latched.
    latched: bool,
    silent: bool,
    /// Link credit of the direction leaving this board.
    credit: i64,
    /// Round-robin start for the next credit grant.
    rr: usize,
}

/// Mutable references to `arr[b]` and `arr[1 - b]`.
fn pair<T>(arr: &mut [T; 2], b: usize) -> (&mut T, &mut T) {
    let [x, y] = arr;
    if b == 0 {
        (x, y)
    } else {
        (y, x)
    }
}

/// Two TOE cores (one per board) joined by a link; see the module docs.
#[derive(Debug)]
pub struct TwoBoards {
    link: LinkConfig,
    boards: [Board; 2],
    /// `links[b]` carries what board b sends.
    links: [Link; 2],
    /// `stats[b]`: data sent by board b.
    stats: [LinkStats; 2],
    cycle: u64,
    next_conn: u64,
    log: ViolationLog,
}

impl TwoBoards {
    /// Two boards with `sessions` sessions each, the same TOE parameters on both.
    pub fn new(sessions: usize, link: LinkConfig, toe: ToeConfig) -> Self {
        Self::with_configs(sessions, link, [toe.clone(), toe])
    }

    /// Two boards with their own TOE parameters (`toe[b]` for board b).
    pub fn with_configs(sessions: usize, link: LinkConfig, toe: [ToeConfig; 2]) -> Self {
        assert!(sessions >= 1, "at least one session");
        assert!(
            link.user_clock_mhz > 0 && link.payload_mb_s > 0,
            "link rates must be non-zero"
        );
        let board = |b: usize, cfg: ToeConfig| Board {
            sessions: (0..sessions)
                .map(|s| Session::new(Place::board_session(b, s), cfg.beat_bytes))
                .collect(),
            cfg,
            inputs: vec![SessionInputs::default(); sessions],
            init_countdown: 0,
            params: GlobalOutputs::default(),
            latched: false,
            silent: false,
            credit: 0,
            rr: 0,
        };
        let [t0, t1] = toe;
        let stats = LinkStats {
            session_bytes: vec![0; sessions],
            session_delivered: vec![0; sessions],
            ..LinkStats::default()
        };
        Self {
            link,
            boards: [board(0, t0), board(1, t1)],
            links: [Link::default(), Link::default()],
            stats: [stats.clone(), stats],
            cycle: 0,
            next_conn: 1,
            log: ViolationLog::new(),
        }
    }

    /// Nothing can change without the user logic: no item on the link, no
    /// initialisation running, and every session idle or listening with no
    /// received byte waiting. A simulation may then slow down (the virtual
    /// board sleeps) until the user logic presents a request or a beat.
    pub fn quiet(&self) -> bool {
        self.links.iter().all(|l| l.events.is_empty())
            && self.boards.iter().all(|b| {
                b.init_countdown == 0
                    && b.sessions.iter().all(|s| {
                        matches!(s.state, State::Idle | State::Listening { .. }) && s.rx_q.is_empty()
                    })
            })
    }

    /// Number of sessions per board.
    pub fn sessions(&self) -> usize {
        self.boards[0].sessions.len()
    }

    /// The link parameters.
    pub fn link_config(&self) -> &LinkConfig {
        &self.link
    }

    /// Board b's TOE parameters.
    pub fn toe_config(&self, b: usize) -> &ToeConfig {
        &self.boards[b].cfg
    }

    /// The global parameters in effect on board b (`init` is always false):
    /// latched at the last `toe_init`, or the last levels seen before the first.
    pub fn params(&self, b: usize) -> GlobalOutputs {
        GlobalOutputs {
            init: false,
            ..self.boards[b].params
        }
    }

    /// Phase 1, before the edge: the inputs for board `b` (0 or 1) for the coming edge.
    /// `tx_tvalid[s]` is what session s shows now (tvalid never depends on tready).
    /// Call it exactly once per cycle per board, before [`TwoBoards::edge`].
    pub fn drive(&mut self, b: usize, tx_tvalid: &[bool]) -> &[SessionInputs] {
        let clk = self.link.user_clock_mhz as i64;
        let board = &mut self.boards[b];
        let n = board.sessions.len();
        let beat = board.cfg.beat_bytes;
        let cost = beat as i64 * clk;
        let mut credit = board.credit;
        for k in 0..n {
            let s = (board.rr + k) % n;
            let sess = &mut board.sessions[s];
            let valid = tx_tvalid.get(s).copied().unwrap_or(false);
            sess.block = if !valid {
                Block::None
            } else if sess.state != State::Established || sess.fin_sent {
                Block::NotOpen
            } else if sess.sent + beat as u64 > sess.right_edge {
                Block::Window
            } else if credit <= 0 {
                Block::Credit
            } else {
                credit -= cost;
                Block::None
            };
            board.inputs[s].tx_tready = valid && sess.block == Block::None;
        }
        for (sess, inp) in board.sessions.iter_mut().zip(board.inputs.iter_mut()) {
            inp.conn_req_ready = sess.req_wait >= board.cfg.conn_req_ready_delay;
            inp.established = sess.established;
            inp.peer_closed = sess.peer_closed;
            inp.conn_error = sess.conn_error;
            inp.peer_port = sess.peer_port;
            inp.peer_mss = sess.peer_mss;
            inp.peer_window_scale = sess.peer_ws;
            if sess.presented.is_none() {
                sess.presented = sess.next_beat(beat);
            }
            inp.rx_data.clear();
            match sess.presented {
                Some((len, last)) => {
                    inp.rx_tvalid = true;
                    inp.rx_tlast = last;
                    let (x, y) = sess.rx_q.as_slices();
                    if x.len() >= len {
                        inp.rx_data.extend_from_slice(&x[..len]);
                    } else {
                        inp.rx_data.extend_from_slice(x);
                        inp.rx_data.extend_from_slice(&y[..len - x.len()]);
                    }
                }
                None => {
                    inp.rx_tvalid = false;
                    inp.rx_tlast = false;
                }
            }
        }
        &board.inputs
    }

    /// Whether board b's TOE is initialised (`toe_init_done`).
    pub fn init_done(&self, b: usize) -> bool {
        self.boards[b].init_countdown == 0
    }

    /// Phase 2, at the edge: what board b showed just before the edge (after the inputs from
    /// `drive` were applied). The model performs the handshakes this edge completes:
    /// conn request (valid && ready), TX beat (tvalid && tready), RX beat (rx_tvalid && rx_tready).
    pub fn edge(&mut self, b: usize, global: GlobalOutputs, outs: &[SessionOutputs]) {
        let cycle = self.cycle;
        let lat = self.link.latency_cycles;
        let clk = self.link.user_clock_mhz as i64;
        let (tx_stats, rx_stats) = pair(&mut self.stats, b);
        let board = &mut self.boards[b];
        let link = &mut self.links[b];
        let log = &mut self.log;
        if !board.latched {
            board.params = GlobalOutputs {
                init: false,
                ..global
            };
        }
        let n = board.sessions.len();
        log.check_outputs_len(cycle, Place::board_session(b, 0), outs.len(), n);
        let beat = board.cfg.beat_bytes;
        let init_done = board.init_countdown == 0;
        for (s, o) in outs.iter().enumerate().take(n) {
            let inp = &board.inputs[s];
            let (tready, rx_valid, req_ready) = (inp.tx_tready, inp.rx_tvalid, inp.conn_req_ready);
            let sess = &mut board.sessions[s];
            sess.check.edge(log, cycle, o, inp, sess.fin_sent);

            // --- TX stream ---
            if o.tx_tvalid {
                let len = o.tx_data.len();
                if tready && len > 0 {
                    let partial = len < beat;
                    link.wire.extend(o.tx_data.iter());
                    sess.sent += len as u64;
                    board.credit -= len as i64 * clk;
                    board.rr = (s + 1) % n;
                    tx_stats.data_bytes += len as u64;
                    tx_stats.data_beats += 1;
                    tx_stats.session_bytes[s] += len as u64;
                    let last_data = partial && o.tx_tlast;
                    let push = last_data && board.params.last_packet_mode == 1;
                    link.send(cycle + lat, sess.conn, Kind::Data { len, push });
                    if last_data {
                        last_packet(
                            sess,
                            link,
                            tx_stats,
                            &mut board.credit,
                            board.params,
                            cycle + lat,
                            clk,
                        );
                    }
                } else if !tready {
                    match sess.block {
                        Block::Window => tx_stats.window_stall_cycles += 1,
                        Block::Credit => tx_stats.link_stall_cycles += 1,
                        Block::None | Block::NotOpen => {}
                    }
                }
            }

            // --- RX stream ---
            if rx_valid && o.rx_tready {
                if let Some((len, _)) = sess.presented.take() {
                    sess.rx_q.drain(..len);
                    sess.taken += len as u64;
                    rx_stats.session_delivered[s] += len as u64;
                    while sess.push_points.front().is_some_and(|&p| p <= sess.taken) {
                        sess.push_points.pop_front();
                    }
                    sess.check_closed();
                }
            }

            // --- connection requests ---
            if o.conn_req_valid {
                if req_ready {
                    sess.req_wait = 0;
                    let conn = self.next_conn;
                    if request(
                        sess,
                        Request::of(o),
                        conn,
                        init_done,
                        &board.cfg,
                        link,
                        tx_stats,
                        board.params,
                        &mut board.credit,
                        cycle,
                        lat,
                        clk,
                    ) {
                        self.next_conn += 1;
                    }
                } else {
                    sess.req_wait += 1;
                }
            }
        }
        if global.init {
            board.params = GlobalOutputs {
                init: false,
                ..global
            };
            board.latched = true;
            board.init_countdown = board.cfg.init_cycles;
            for sess in &mut board.sessions {
                if sess.state != State::Idle {
                    if sess.conn != 0 {
                        link.send(cycle + lat, sess.conn, Kind::Rst);
                        tx_stats.rsts += 1;
                    }
                    sess.conn_error = true;
                    sess.drop_connection();
                }
            }
        }
    }

    /// After both boards' edges: advance one cycle (link deliveries, timers, ACKs).
    pub fn tick(&mut self) {
        self.cycle += 1;
        let cycle = self.cycle;
        let lat = self.link.latency_cycles;
        for d in 0..2 {
            let r = 1 - d;
            let (inbound, outbound) = pair(&mut self.links, d);
            let (fwd_stats, _) = pair(&mut self.stats, d);
            let board = &mut self.boards[r];
            while inbound.events.front().is_some_and(|e| e.due <= cycle) {
                let ev = inbound.events.pop_front().expect("front exists");
                deliver(
                    board,
                    ev,
                    inbound,
                    outbound,
                    fwd_stats,
                    cycle + lat,
                    &mut self.log,
                    cycle,
                    r,
                );
            }
        }
        let add = self.link.payload_mb_s as i64;
        let clk = self.link.user_clock_mhz as i64;
        for (b, board) in self.boards.iter_mut().enumerate() {
            let cap = (board.cfg.beat_bytes as i64 * clk).max(add);
            board.credit = (board.credit + add).min(cap);
            if board.init_countdown > 0 {
                board.init_countdown -= 1;
            }
            let beat = board.cfg.beat_bytes;
            let buf = board.cfg.rx_buffer_bytes;
            let gap = u64::from(board.params.window_update_gap) * 1024;
            // ACKs of board b go on links[b]; they concern data sent by the other board.
            let out = &mut self.links[b];
            let stats = &mut self.stats[1 - b];
            for sess in &mut board.sessions {
                match sess.state {
                    State::SynSent { deadline } if cycle >= deadline => {
                        sess.conn_error = true;
                        sess.drop_connection();
                    }
                    State::Established => {
                        if sess.presented.is_none()
                            && !sess.rx_q.is_empty()
                            && sess.next_beat(beat).is_none()
                        {
                            // Counts the cycles since the tick the last data arrived in.
                            if sess.push_idle >= board.cfg.push_timeout_cycles {
                                let end = sess.taken + sess.rx_q.len() as u64;
                                sess.add_push(end);
                                sess.push_idle = 0;
                            } else {
                                sess.push_idle += 1;
                            }
                        }
                        if gap > 0 && sess.fin_at.is_none() {
                            let edge = sess.taken + buf;
                            if edge >= sess.last_adv + gap {
                                sess.last_adv = edge;
                                out.send(cycle + lat, sess.conn, Kind::Ack { right_edge: edge });
                                stats.window_updates += 1;
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    /// The current cycle (number of `tick`s so far).
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// Protocol violations seen so far (tvalid dropped before ready, payload changed while valid,
    /// partial TX beat that is not the last of the transfer i.e. a partial beat without tlast
    /// or data after a partial beat before a close, request payload changed while valid,
    /// TX data while not established, ...). Tests assert this is empty.
    /// At most [`MAX_VIOLATIONS`] are kept.
    pub fn violations(&self) -> &[String] {
        self.log.list()
    }

    /// Number of violations seen, including those not kept.
    pub fn violation_count(&self) -> u64 {
        self.log.total()
    }

    /// Counters of the direction leaving `from_board`.
    pub fn stats(&self, from_board: usize) -> LinkStats {
        self.stats[from_board].clone()
    }

    /// Bytes of session s's stream board b's user logic has taken on RX in the
    /// current (or last) connection.
    pub fn rx_taken(&self, b: usize, s: usize) -> u64 {
        self.boards[b].sessions[s].taken
    }

    /// Bytes buffered for board b session s (arrived, not yet taken).
    pub fn rx_buffered(&self, b: usize, s: usize) -> usize {
        self.boards[b].sessions[s].rx_q.len()
    }

    /// Bytes board b session s has sent (taken on TX) in the current (or last) connection.
    pub fn tx_sent(&self, b: usize, s: usize) -> u64 {
        self.boards[b].sessions[s].sent
    }

    /// Board b's TOE answers nothing (SYNs to it are dropped): an active open to it times out.
    pub fn set_silent(&mut self, b: usize, silent: bool) {
        self.boards[b].silent = silent;
    }

    /// Flip bits (xor) of the byte at stream offset `offset` of the data that board `to_board`
    /// session s receives, when it is delivered. The offset counts from 0 at the
    /// start of a connection; the corruption applies once, to the first
    /// connection whose data reaches that offset.
    pub fn corrupt(&mut self, to_board: usize, s: usize, offset: u64, xor: u8) {
        self.boards[to_board].sessions[s]
            .corrupt
            .push((offset, xor));
    }
}

/// Handles the last data of a transfer (partial TX beat with tlast, or the
/// close) on the sending side according to the last packet mode.
fn last_packet(
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
    match params.last_packet_mode {
        0 => {
            let dup = since.min(u64::from(sess.peer_mss.max(1)));
            *credit -= dup as i64 * clk;
            stats.dup_bytes += dup;
            stats.dup_segments += 1;
            link.send(due, sess.conn, Kind::Dup { push_to: sess.sent });
            sess.last_push = sess.sent;
        }
        1 => sess.last_push = sess.sent,
        _ => {}
    }
}

/// Performs a connection request taken at this edge. Returns true when the
/// connection id `conn` was used.
#[allow(clippy::too_many_arguments)]
fn request(
    sess: &mut Session,
    req: Request,
    conn: u64,
    init_done: bool,
    cfg: &ToeConfig,
    link: &mut Link,
    stats: &mut LinkStats,
    params: GlobalOutputs,
    credit: &mut i64,
    cycle: u64,
    lat: u64,
    clk: i64,
) -> bool {
    if req.open {
        if sess.state != State::Idle {
            // The previous connection is not closed yet (the user logic
            // aborted and starts again before the peer closed): the TOE
            // reuses the session, so it resets the old connection (RST to the
            // peer, which sees `conn_error`) and takes the new request.
            if !matches!(sess.state, State::Listening { .. }) {
                stats.rsts += 1;
                link.send(cycle + lat, sess.conn, Kind::Rst);
            }
            sess.drop_connection();
        }
        sess.peer_closed = false;
        sess.conn_error = false;
        sess.peer_port = 0;
        sess.peer_mss = 0;
        sess.peer_ws = 0;
        sess.check.open_request();
        sess.reset_streams();
        sess.local_port = req.local_port;
        if !init_done {
            sess.conn_error = true;
            return false;
        }
        if req.active {
            sess.conn = conn;
            sess.state = State::SynSent {
                deadline: cycle + cfg.syn_timeout_cycles,
            };
            sess.last_adv = cfg.rx_buffer_bytes;
            stats.syns += 1;
            link.send(
                cycle + lat,
                conn,
                Kind::Syn {
                    src_port: req.local_port,
                    dst_port: req.remote_port,
                    mss: cfg.mss,
                    ws: cfg.window_scale(),
                    window: cfg.rx_buffer_bytes,
                },
            );
            true
        } else {
            sess.state = State::Listening {
                port: req.local_port,
            };
            false
        }
    } else {
        match sess.state {
            State::Idle => {}
            State::Listening { .. } => sess.drop_connection(),
            State::SynSent { .. } | State::SynReceived => {
                stats.rsts += 1;
                link.send(cycle + lat, sess.conn, Kind::Rst);
                sess.drop_connection();
            }
            State::Established => {
                if !sess.fin_sent {
                    last_packet(sess, link, stats, credit, params, cycle + lat, clk);
                    sess.fin_sent = true;
                    stats.fins += 1;
                    link.send(cycle + lat, sess.conn, Kind::Fin { at: sess.sent });
                    sess.check_closed();
                }
            }
        }
        false
    }
}

/// Processes one item arriving at board `r` (board index `r`); replies go on
/// `outbound` with `due`. `stats` are those of the item's direction.
#[allow(clippy::too_many_arguments)]
fn deliver(
    board: &mut Board,
    ev: Event,
    inbound: &mut Link,
    outbound: &mut Link,
    stats: &mut LinkStats,
    due: u64,
    log: &mut ViolationLog,
    cycle: u64,
    r: usize,
) {
    let cfg = &board.cfg;
    let find = |sessions: &[Session]| {
        sessions
            .iter()
            .position(|x| x.conn == ev.conn && x.conn != 0)
    };
    match ev.kind {
        Kind::Syn {
            src_port,
            dst_port,
            mss,
            ws,
            window,
        } => {
            if board.silent || board.init_countdown > 0 {
                return;
            }
            let listener = board
                .sessions
                .iter()
                .position(|x| x.state == State::Listening { port: dst_port });
            match listener {
                Some(s) => {
                    let sess = &mut board.sessions[s];
                    sess.state = State::SynReceived;
                    sess.conn = ev.conn;
                    sess.peer_port = src_port;
                    sess.peer_mss = mss;
                    sess.peer_ws = ws;
                    sess.reset_streams();
                    sess.right_edge = window;
                    sess.last_adv = cfg.rx_buffer_bytes;
                    outbound.send(
                        due,
                        ev.conn,
                        Kind::SynAck {
                            src_port: sess.local_port,
                            mss: cfg.mss,
                            ws: cfg.window_scale(),
                            window: cfg.rx_buffer_bytes,
                        },
                    );
                }
                None => outbound.send(due, ev.conn, Kind::Rst),
            }
        }
        Kind::SynAck {
            src_port,
            mss,
            ws,
            window,
        } => {
            if let Some(s) = find(&board.sessions) {
                let sess = &mut board.sessions[s];
                if matches!(sess.state, State::SynSent { .. }) {
                    sess.state = State::Established;
                    sess.established = true;
                    sess.peer_port = src_port;
                    sess.peer_mss = mss;
                    sess.peer_ws = ws;
                    sess.right_edge = window;
                    outbound.send(due, ev.conn, Kind::HsAck);
                }
            }
        }
        Kind::HsAck => {
            if let Some(s) = find(&board.sessions) {
                let sess = &mut board.sessions[s];
                if sess.state == State::SynReceived {
                    sess.state = State::Established;
                    sess.established = true;
                }
            }
        }
        Kind::Rst => {
            if let Some(s) = find(&board.sessions) {
                let sess = &mut board.sessions[s];
                match sess.state {
                    State::SynReceived => {
                        let port = sess.local_port;
                        sess.drop_connection();
                        sess.state = State::Listening { port };
                    }
                    State::SynSent { .. } | State::Established => {
                        sess.conn_error = true;
                        sess.drop_connection();
                    }
                    _ => {}
                }
            }
        }
        Kind::Data { len, push } => {
            let target =
                find(&board.sessions).filter(|&s| board.sessions[s].state == State::Established);
            let Some(s) = target else {
                inbound.wire.drain(..len);
                return;
            };
            let sess = &mut board.sessions[s];
            let base = sess.taken + sess.rx_q.len() as u64;
            sess.rx_q.extend(inbound.wire.drain(..len));
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
                log.push(
                    cycle,
                    Place::board_session(r, s),
                    "model: receive buffer overflow (window accounting bug)",
                );
            }
            let edge = sess.taken + cfg.rx_buffer_bytes;
            let sws = u64::from(cfg.mss).min(cfg.rx_buffer_bytes / 2).max(1);
            if edge >= sess.last_adv + sws {
                sess.last_adv = edge;
                stats.acks += 1;
                outbound.send(due, ev.conn, Kind::Ack { right_edge: edge });
            }
        }
        Kind::Dup { push_to } => {
            if let Some(s) = find(&board.sessions) {
                board.sessions[s].add_push(push_to);
            }
        }
        Kind::Fin { at } => {
            if let Some(s) = find(&board.sessions) {
                let sess = &mut board.sessions[s];
                if sess.state == State::Established {
                    sess.fin_at = Some(at);
                    sess.add_push(at);
                    sess.check_closed();
                }
            }
        }
        Kind::Ack { right_edge } => {
            if let Some(s) = find(&board.sessions) {
                let sess = &mut board.sessions[s];
                sess.right_edge = sess.right_edge.max(right_edge);
            }
        }
    }
}
