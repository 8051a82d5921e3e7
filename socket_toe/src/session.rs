//! The per-session state: the socket side ([`Conn`]), the buffers, the status
//! levels shown to the user logic, and the transitions every part of the TOE
//! uses (clear, fail, drop the socket). The socket I/O of `poll` is in [`io`].

mod io;

use std::collections::VecDeque;
use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use socket2::Socket;

use toe_model::checker::{Place, SessionChecker};
use toe_model::{next_rx_beat, SessionStatus};

use crate::events::Log;
use crate::ring::Ring;
use crate::NetConfig;

/// Counters of one session, cumulative over the [`HostToe`](crate::HostToe)'s
/// life (not reset by open requests).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SessionStats {
    /// Bytes taken from the user logic on TX (into the TX buffer).
    pub tx_taken: u64,
    /// Bytes written to the socket.
    pub tx_bytes: u64,
    /// Bytes read from the socket.
    pub rx_bytes: u64,
    /// Bytes the user logic took on RX.
    pub rx_delivered: u64,
    /// Times `established` rose.
    pub connects: u64,
    /// Times `conn_error` rose (refused, timeout, reset, init, not initialised, ...).
    pub errors: u64,
    /// Push points made by the push timeout (partial beats delivered without a FIN).
    pub push_timeouts: u64,
}

/// The socket side of a session.
pub(crate) enum Conn {
    /// No socket.
    Idle,
    /// Passive open: listening. Sessions listening on one port share the
    /// socket: each takes one connection from it.
    Listening(Arc<Socket>),
    /// Active open: connect in progress.
    Connecting { sock: Socket, deadline: Instant },
    /// Connected (possibly half- or fully closed, until `poll` closes it).
    Open(Socket),
}

pub(crate) struct Session {
    pub(crate) conn: Conn,
    pub(crate) local: Option<SocketAddr>,
    pub(crate) remote: Option<SocketAddr>,

    /// Levels shown to the user logic.
    pub(crate) status: SessionStatus,

    // TX.
    pub(crate) tx: Ring,
    /// Bytes of this connection written to the socket.
    pub(crate) tx_out: u64,
    /// What the TX buffer held after the last poll's writes: it grew since
    /// when it holds more.
    pub(crate) tx_after_poll: usize,
    pub(crate) close_req: bool,
    pub(crate) fin_sent: bool,
    /// The interface checks of this session.
    pub(crate) check: SessionChecker,

    // RX.
    pub(crate) rx: Ring,
    pub(crate) rx_in: u64,
    pub(crate) rx_taken: u64,
    pub(crate) fin_seen: bool,
    pub(crate) push_points: VecDeque<u64>,
    pub(crate) last_push: u64,
    pub(crate) last_arrival: Instant,
    /// The beat presented since the last take: (length, tlast).
    pub(crate) presented: Option<(usize, bool)>,

    /// The last `poll` moved bytes.
    pub(crate) moved: bool,
    pub(crate) stats: SessionStats,
}

impl Session {
    pub(crate) fn new(s: usize, net: &NetConfig, beat: usize) -> Self {
        Self {
            conn: Conn::Idle,
            local: None,
            remote: None,
            status: SessionStatus::default(),
            tx: Ring::new(net.tx_buffer),
            tx_out: 0,
            tx_after_poll: 0,
            close_req: false,
            fin_sent: false,
            // A reset is seen at the next poll, after the user logic may
            // already show a beat: not reported while conn_error is high.
            check: SessionChecker::new(Place::session(s), beat).excusing_conn_error(),
            rx: Ring::new(net.rx_buffer),
            rx_in: 0,
            rx_taken: 0,
            fin_seen: false,
            push_points: VecDeque::with_capacity(16),
            last_push: 0,
            last_arrival: Instant::now(),
            presented: None,
            moved: false,
            stats: SessionStats::default(),
        }
    }

    pub(crate) fn tx_ok(&self, beat: usize) -> bool {
        self.status.established
            && !self.close_req
            && !self.status.conn_error
            && matches!(self.conn, Conn::Open(_))
            && self.tx.free() >= beat
    }

    /// The next RX beat to present: (length, tlast).
    pub(crate) fn next_beat(&self, beat: usize) -> Option<(usize, bool)> {
        let to_push = self.push_points.front().map(|&p| (p - self.rx_taken) as usize);
        next_rx_beat(self.rx.len(), to_push, beat)
    }

    /// Clears the per-connection data state (buffers, FIN flags, checks).
    pub(crate) fn clear_data(&mut self) {
        self.tx.clear();
        self.tx_out = 0;
        self.tx_after_poll = 0;
        self.rx.clear();
        self.close_req = false;
        self.fin_sent = false;
        self.fin_seen = false;
        self.rx_in = 0;
        self.rx_taken = 0;
        self.push_points.clear();
        self.last_push = 0;
        self.presented = None;
        self.check.connection_gone();
    }

    /// Raises `peer_closed` once every byte before the FIN was taken, and
    /// drops `established` when our FIN was sent too (`poll` closes the socket).
    pub(crate) fn check_closed(&mut self) {
        if self.fin_seen && self.rx.is_empty() && matches!(self.conn, Conn::Open(_)) {
            self.status.peer_closed = true;
            if self.fin_sent {
                self.status.established = false;
            }
        }
    }

    /// Drops the socket; a connection (not yet fully closed) or a pending
    /// connect is reset (SO_LINGER 0) so the peer sees an RST.
    pub(crate) fn drop_socket(&mut self) {
        match std::mem::replace(&mut self.conn, Conn::Idle) {
            Conn::Idle | Conn::Listening(_) => {}
            Conn::Connecting { sock, .. } | Conn::Open(sock) => {
                let graceful = self.fin_sent && self.fin_seen;
                if !graceful {
                    let _ = sock.set_linger(Some(Duration::ZERO));
                }
            }
        }
    }

    /// The connection failed: `conn_error` rises, `established` falls, data is discarded.
    pub(crate) fn fail(&mut self, s: usize, log: &mut Log, msg: impl fmt::Display) {
        log.push(s, msg);
        self.drop_socket();
        self.clear_data();
        self.status.established = false;
        if !self.status.conn_error {
            self.status.conn_error = true;
            self.stats.errors += 1;
        }
    }
}
