//! The connection state machine of one TOE session: the per-session state
//! ([`Session`], [`State`]), open and close requests ([`request`]) and what the
//! receiving TOE does with each item arriving from the link ([`deliver`]:
//! handshake, RST, FIN, window updates; data goes to the receive window).
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
//!   [silent](crate::TwoBoards::set_silent) or not initialised, the SYN is dropped and
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

use std::collections::VecDeque;

use crate::boards::Board;
use crate::checker::{Place, Request, SessionChecker, ViolationLog};
use crate::link::{last_packet, Block, Event, Kind, Link};
use crate::window::data_arrived;
use crate::{GlobalOutputs, LinkStats, SessionStatus, ToeConfig};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum State {
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
pub(crate) struct Session {
    pub(crate) state: State,
    /// Connection id (0 = none); ids are unique over the whole run, so items
    /// of an old connection still on the link are ignored.
    pub(crate) conn: u64,
    pub(crate) local_port: u16,
    /// The status levels shown to the user logic.
    pub(crate) status: SessionStatus,
    // --- transmit side ---
    /// Our close request was taken (FIN sent).
    pub(crate) fin_sent: bool,
    /// Payload bytes taken on TX in this connection.
    pub(crate) sent: u64,
    /// The peer's right edge as known here (stream offset).
    pub(crate) right_edge: u64,
    /// `sent` at the previous push (last data).
    pub(crate) last_push: u64,
    pub(crate) block: Block,
    // --- receive side ---
    /// Arrived bytes not yet taken; front is stream offset `taken`.
    pub(crate) rx_q: VecDeque<u8>,
    /// Bytes taken by the user logic in this connection.
    pub(crate) taken: u64,
    /// Ascending push points (stream offsets) above `taken`.
    pub(crate) push_points: VecDeque<u64>,
    /// Stream offset of the peer's FIN, once it arrived.
    pub(crate) fin_at: Option<u64>,
    /// The beat being presented: (length, tlast).
    pub(crate) presented: Option<(usize, bool)>,
    /// Cycles a trailing partial beat has waited since the last arrival.
    pub(crate) push_idle: u64,
    /// Right edge last advertised to the peer.
    pub(crate) last_adv: u64,
    /// Pending corruptions: (stream offset, xor).
    pub(crate) corrupt: Vec<(u64, u8)>,
    // --- requests ---
    /// Edges the current request has waited for `conn_req_ready`.
    pub(crate) req_wait: u64,
    /// The interface checks of this session.
    pub(crate) check: SessionChecker,
}

impl Session {
    pub(crate) fn new(place: Place, beat_bytes: usize) -> Self {
        Self {
            state: State::Idle,
            conn: 0,
            local_port: 0,
            status: SessionStatus::default(),
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
            // A reset shows `conn_error` and drops `established` at one edge;
            // the user logic can withdraw a beat it showed only once it saw that.
            check: SessionChecker::new(place, beat_bytes).excusing_conn_error(),
        }
    }

    /// Forgets the stream state of the previous connection.
    pub(crate) fn reset_streams(&mut self) {
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
    pub(crate) fn drop_connection(&mut self) {
        self.state = State::Idle;
        self.conn = 0;
        self.status.established = false;
        self.check.connection_gone();
        self.presented = None;
        self.rx_q.clear();
        self.push_points.clear();
    }
    /// Raises `peer_closed` once every byte before the FIN was taken, and
    /// closes the connection when our FIN was sent too.
    pub(crate) fn check_closed(&mut self) {
        if self.fin_at == Some(self.taken) && !self.status.peer_closed && self.state == State::Established {
            self.status.peer_closed = true;
        }
        if self.status.peer_closed && self.fin_sent && self.state == State::Established {
            self.drop_connection();
        }
    }
}

/// Performs a connection request taken at this edge. Returns true when the
/// connection id `conn` was used.
#[allow(clippy::too_many_arguments)]
pub(crate) fn request(
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
        // `established` is already low: the session is idle here.
        sess.status.reset_for_open();
        sess.check.open_request();
        sess.reset_streams();
        sess.local_port = req.local_port;
        if !init_done {
            sess.status.conn_error = true;
            return false;
        }
        if req.active {
            sess.conn = conn;
            sess.state = State::SynSent { deadline: cycle + cfg.syn_timeout_cycles };
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
            sess.state = State::Listening { port: req.local_port };
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
pub(crate) fn deliver(
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
    let find = |sessions: &[Session]| sessions.iter().position(|x| x.conn == ev.conn && x.conn != 0);
    match ev.kind {
        Kind::Syn { src_port, dst_port, mss, ws, window } => {
            if board.silent || board.init_countdown > 0 {
                return;
            }
            let listener = board.sessions.iter().position(|x| x.state == State::Listening { port: dst_port });
            match listener {
                Some(s) => {
                    let sess = &mut board.sessions[s];
                    sess.state = State::SynReceived;
                    sess.conn = ev.conn;
                    sess.status.set_peer(src_port, mss, ws);
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
        Kind::SynAck { src_port, mss, ws, window } => {
            if let Some(s) = find(&board.sessions) {
                let sess = &mut board.sessions[s];
                if matches!(sess.state, State::SynSent { .. }) {
                    sess.state = State::Established;
                    sess.status.established = true;
                    sess.status.set_peer(src_port, mss, ws);
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
                    sess.status.established = true;
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
                        sess.status.conn_error = true;
                        sess.drop_connection();
                    }
                    _ => {}
                }
            }
        }
        Kind::Data { len, push } => {
            let target = find(&board.sessions).filter(|&s| board.sessions[s].state == State::Established);
            let Some(s) = target else {
                inbound.wire.drain(..len);
                return;
            };
            data_arrived(
                &mut board.sessions[s],
                inbound,
                len,
                push,
                cfg,
                ev.conn,
                outbound,
                stats,
                due,
                log,
                cycle,
                Place::board_session(r, s),
            );
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
