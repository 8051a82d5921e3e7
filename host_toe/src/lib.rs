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
//! use host_toe::{GlobalOutputs, HostToe, NetConfig, SessionOutputs};
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
//!   `established` and the listening socket is closed (a second peer is
//!   refused, as by the board's TOE). No timeout. If the port cannot be
//!   bound, `conn_error` rises and an event names the port.
//! * `peer_port` is the peer's port; `peer_mss` is `TCP_INFO.tcpi_snd_mss` (the
//!   MSS the host uses towards the peer; on loopback Linux reports 32741 at
//!   first, bounded by half the largest window seen) and
//!   `peer_window_scale` is `tcpi_snd_wscale` (the shift the peer announced).
//!   They are set when `established` rises and keep their values until the
//!   next open request, which clears them (and `peer_closed`, `conn_error`).
//! * TX: every taken beat's bytes go into a bounded user-space buffer
//!   ([`NetConfig::tx_buffer`]); `poll` writes it to the socket until the
//!   socket would block. `tx_tready` is high only while the session shows
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

use std::collections::VecDeque;
use std::fmt;
use std::io::{self, IoSlice, Read};
use std::net::{Ipv4Addr, Shutdown, SocketAddr, SocketAddrV4};
use std::time::{Duration, Instant};

use socket2::{Domain, Protocol, SockAddr, Socket, Type};

use toe_model::checker::{Place, SessionChecker, ViolationLog};
use toe_model::{next_rx_beat, SessionStatus};
pub use toe_model::{GlobalOutputs, SessionInputs, SessionOutputs, MAX_VIOLATIONS};

/// Cycles `init_done` stays low after a `toe_init` pulse (it falls at the next
/// `drive`, well within the 2 cycles the interface allows).
pub const INIT_CYCLES: u64 = 16;

/// At most this many events are kept between two [`HostToe::take_events`] calls.
pub const MAX_EVENTS: usize = 10_000;

/// Where the sockets live and how long the wall-clock timers are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetConfig {
    /// Local address: source address of active opens and the address passive
    /// opens listen on. Must be in 127.0.0.0/8. Default 127.0.0.1.
    pub bind: Ipv4Addr,
    /// The target (peer) address of active opens (`toe_target_ip` is not
    /// used). Must be in 127.0.0.0/8. Default 127.0.0.1.
    pub target: Ipv4Addr,
    /// An active open that has not completed after this long (wall clock)
    /// fails with `conn_error` (the board's SYN timeout). Default 2 s.
    pub connect_timeout: Duration,
    /// A trailing partial RX beat is delivered (with `rx_tlast`) when no new
    /// byte arrived for this long (wall clock) and the socket had nothing more
    /// to read. Default 5 ms.
    pub push_timeout: Duration,
    /// User-space TX buffer per session, bytes (at least one beat). Default 256 KiB.
    pub tx_buffer: usize,
    /// User-space RX buffer per session, bytes (at least one beat). Default 256 KiB.
    pub rx_buffer: usize,
    /// Appended to the event of a passive open whose port another socket
    /// holds (`EADDRINUSE`): how the user of this TOE moves the session's
    /// port (the virtual board names its option). Default empty.
    pub port_taken_hint: String,
}

impl Default for NetConfig {
    fn default() -> Self {
        Self {
            bind: Ipv4Addr::LOCALHOST,
            target: Ipv4Addr::LOCALHOST,
            connect_timeout: Duration::from_secs(2),
            push_timeout: Duration::from_millis(5),
            tx_buffer: 256 << 10,
            rx_buffer: 256 << 10,
            port_taken_hint: String::new(),
        }
    }
}

/// Why [`HostToe::new`] refused its arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// `bind` or `target` (named by `field`) is outside 127.0.0.0/8.
    NotLoopback {
        /// `"bind"` or `"target"`.
        field: &'static str,
        /// The refused address.
        addr: Ipv4Addr,
    },
    /// Another argument is out of range (message says which).
    Config(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NotLoopback { field, addr } => {
                write!(f, "NetConfig.{field} = {addr} is not a loopback address: host_toe only uses 127.0.0.0/8")
            }
            Error::Config(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for Error {}

/// Counters of one session, cumulative over the [`HostToe`]'s life (not reset
/// by open requests).
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

/// A fixed-capacity byte ring (no allocation after `new`).
struct Ring {
    buf: Box<[u8]>,
    head: usize,
    len: usize,
}

impl Ring {
    fn new(cap: usize) -> Self {
        Self { buf: vec![0; cap].into_boxed_slice(), head: 0, len: 0 }
    }

    fn len(&self) -> usize {
        self.len
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn free(&self) -> usize {
        self.buf.len() - self.len
    }

    fn clear(&mut self) {
        self.head = 0;
        self.len = 0;
    }

    /// The buffered bytes, oldest first, as two slices.
    fn slices(&self) -> (&[u8], &[u8]) {
        let cap = self.buf.len();
        let end = self.head + self.len;
        if end <= cap {
            (&self.buf[self.head..end], &[])
        } else {
            (&self.buf[self.head..], &self.buf[..end - cap])
        }
    }

    fn consume(&mut self, n: usize) {
        debug_assert!(n <= self.len);
        self.len -= n;
        self.head = if self.len == 0 { 0 } else { (self.head + n) % self.buf.len() };
    }

    /// Appends `data` (the caller checked `free()`).
    fn push(&mut self, data: &[u8]) {
        assert!(data.len() <= self.free(), "ring overflow");
        let cap = self.buf.len();
        let tail = (self.head + self.len) % cap;
        let first = data.len().min(cap - tail);
        self.buf[tail..tail + first].copy_from_slice(&data[..first]);
        self.buf[..data.len() - first].copy_from_slice(&data[first..]);
        self.len += data.len();
    }

    /// The first contiguous free region after the buffered bytes.
    fn spare(&mut self) -> &mut [u8] {
        let cap = self.buf.len();
        if self.len == cap {
            return &mut [];
        }
        let tail = (self.head + self.len) % cap;
        if tail >= self.head {
            &mut self.buf[tail..]
        } else {
            &mut self.buf[tail..self.head]
        }
    }

    /// Marks `n` bytes of [`Ring::spare`] as filled.
    fn commit(&mut self, n: usize) {
        debug_assert!(n <= self.free());
        self.len += n;
    }

    /// Appends the first `n` buffered bytes to `out`.
    fn copy_front(&self, n: usize, out: &mut Vec<u8>) {
        let (a, b) = self.slices();
        if a.len() >= n {
            out.extend_from_slice(&a[..n]);
        } else {
            out.extend_from_slice(a);
            out.extend_from_slice(&b[..n - a.len()]);
        }
    }
}

/// The socket side of a session.
enum Conn {
    /// No socket.
    Idle,
    /// Passive open: listening.
    Listening(Socket),
    /// Active open: connect in progress.
    Connecting { sock: Socket, deadline: Instant },
    /// Connected (possibly half- or fully closed, until `poll` closes it).
    Open(Socket),
}

/// Bounded event log.
#[derive(Default)]
struct Log {
    events: Vec<String>,
    dropped: u64,
}

impl Log {
    fn push(&mut self, s: usize, msg: impl fmt::Display) {
        if self.events.len() < MAX_EVENTS {
            self.events.push(format!("session {s}: {msg}"));
        } else {
            self.dropped += 1;
        }
    }
}

struct Session {
    conn: Conn,
    local: Option<SocketAddr>,
    remote: Option<SocketAddr>,

    /// Levels shown to the user logic.
    status: SessionStatus,

    // TX.
    tx: Ring,
    /// Bytes of this connection written to the socket.
    tx_out: u64,
    close_req: bool,
    fin_sent: bool,
    /// The interface checks of this session.
    check: SessionChecker,

    // RX.
    rx: Ring,
    rx_in: u64,
    rx_taken: u64,
    fin_seen: bool,
    push_points: VecDeque<u64>,
    last_push: u64,
    last_arrival: Instant,
    /// The beat presented since the last take: (length, tlast).
    presented: Option<(usize, bool)>,

    /// The last `poll` moved bytes.
    moved: bool,
    stats: SessionStats,
}

impl Session {
    fn new(s: usize, net: &NetConfig, beat: usize) -> Self {
        Self {
            conn: Conn::Idle,
            local: None,
            remote: None,
            status: SessionStatus::default(),
            tx: Ring::new(net.tx_buffer),
            tx_out: 0,
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

    fn tx_ok(&self, beat: usize) -> bool {
        self.status.established
            && !self.close_req
            && !self.status.conn_error
            && matches!(self.conn, Conn::Open(_))
            && self.tx.free() >= beat
    }

    /// The next RX beat to present: (length, tlast).
    fn next_beat(&self, beat: usize) -> Option<(usize, bool)> {
        let to_push = self.push_points.front().map(|&p| (p - self.rx_taken) as usize);
        next_rx_beat(self.rx.len(), to_push, beat)
    }

    /// Clears the per-connection data state (buffers, FIN flags, checks).
    fn clear_data(&mut self) {
        self.tx.clear();
        self.tx_out = 0;
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
    fn check_closed(&mut self) {
        if self.fin_seen && self.rx.is_empty() && matches!(self.conn, Conn::Open(_)) {
            self.status.peer_closed = true;
            if self.fin_sent {
                self.status.established = false;
            }
        }
    }

    /// Drops the socket; a connection (not yet fully closed) or a pending
    /// connect is reset (SO_LINGER 0) so the peer sees an RST.
    fn drop_socket(&mut self) {
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
    fn fail(&mut self, s: usize, log: &mut Log, msg: impl fmt::Display) {
        log.push(s, msg);
        self.drop_socket();
        self.clear_data();
        self.status.established = false;
        if !self.status.conn_error {
            self.status.conn_error = true;
            self.stats.errors += 1;
        }
    }

    fn poll(&mut self, s: usize, now: Instant, net: &NetConfig, beat: usize, log: &mut Log) -> bool {
        self.moved = false;
        match self.conn {
            Conn::Idle => false,
            Conn::Listening(_) => self.poll_listen(s, log),
            Conn::Connecting { .. } => self.poll_connect(s, now, net, log),
            Conn::Open(_) => self.poll_open(s, now, net, beat, log),
        }
    }

    fn poll_listen(&mut self, s: usize, log: &mut Log) -> bool {
        let Conn::Listening(l) = &self.conn else { unreachable!() };
        match l.accept() {
            Ok((sock, addr)) => {
                if let Err(e) = sock.set_nonblocking(true) {
                    self.fail(s, log, format!("accepted connection unusable: {e}"));
                    return true;
                }
                let _ = sock.set_tcp_nodelay(true);
                let local = self.local.map_or("?".into(), |a| a.to_string());
                let remote = addr.as_socket();
                log.push(s, format!("accepted {} on {local}", remote.map_or("?".into(), |a| a.to_string())));
                self.connected(s, sock, remote, log);
                true
            }
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted | io::ErrorKind::ConnectionAborted
                ) =>
            {
                false
            }
            Err(e) => {
                let local = self.local.map_or("?".into(), |a| a.to_string());
                self.fail(s, log, format!("accept on {local} failed: {e}"));
                true
            }
        }
    }

    fn poll_connect(&mut self, s: usize, now: Instant, net: &NetConfig, log: &mut Log) -> bool {
        let Conn::Connecting { sock, deadline } = &self.conn else { unreachable!() };
        let deadline = *deadline;
        let remote = || self.remote.map_or_else(|| "?".to_string(), |a| a.to_string());
        let err = match sock.take_error() {
            Ok(Some(e)) | Err(e) => Some(e),
            Ok(None) => None,
        };
        if let Some(e) = err {
            let remote = remote();
            let msg = if e.kind() == io::ErrorKind::ConnectionRefused {
                format!("connect to {remote} refused")
            } else {
                format!("connect to {remote} failed: {e}")
            };
            self.fail(s, log, msg);
            return true;
        }
        match sock.peer_addr() {
            Ok(addr) => {
                let Conn::Connecting { sock, .. } = std::mem::replace(&mut self.conn, Conn::Idle) else {
                    unreachable!()
                };
                let _ = sock.set_tcp_nodelay(true);
                self.connected(s, sock, addr.as_socket(), log);
                true
            }
            Err(e) if e.raw_os_error() == Some(libc::ENOTCONN) => {
                if now >= deadline {
                    let (t, remote) = (net.connect_timeout, remote());
                    self.fail(s, log, format!("connect to {remote} timed out after {t:?}"));
                    true
                } else {
                    false
                }
            }
            Err(e) => {
                let remote = remote();
                self.fail(s, log, format!("connect to {remote} failed: {e}"));
                true
            }
        }
    }

    /// A connection is up (accepted or connect completed).
    fn connected(&mut self, s: usize, sock: Socket, remote: Option<SocketAddr>, log: &mut Log) {
        if let Ok(a) = sock.local_addr() {
            self.local = a.as_socket();
        }
        self.remote = remote;
        let (mss, ws) = peer_info(&sock);
        self.status.set_peer(remote.map_or(0, |a| a.port()), mss, ws);
        self.conn = Conn::Open(sock);
        self.status.established = true;
        self.last_arrival = Instant::now();
        self.stats.connects += 1;
        log.push(
            s,
            format!(
                "connected {} -> {} (peer mss {mss}, window scale {ws})",
                self.local.map_or("?".into(), |a| a.to_string()),
                self.remote.map_or("?".into(), |a| a.to_string()),
            ),
        );
    }

    fn poll_open(&mut self, s: usize, now: Instant, net: &NetConfig, beat: usize, log: &mut Log) -> bool {
        let Conn::Open(sock) = &self.conn else { unreachable!() };
        let mut changed = false;
        // TX: write the buffer until the socket would block.
        while !self.tx.is_empty() {
            let (a, b) = self.tx.slices();
            let r = sock.send_vectored_with_flags(&[IoSlice::new(a), IoSlice::new(b)], libc::MSG_NOSIGNAL);
            match r {
                Ok(0) => break,
                Ok(n) => {
                    self.tx.consume(n);
                    self.stats.tx_bytes += n as u64;
                    self.tx_out += n as u64;
                    self.moved = true;
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.fail(s, log, io_failure(&e));
                    return true;
                }
            }
        }
        // Our FIN, after every byte taken on TX.
        if self.close_req && !self.fin_sent && self.tx.is_empty() {
            match sock.shutdown(Shutdown::Write) {
                Ok(()) => {
                    self.fin_sent = true;
                    changed = true;
                    log.push(s, format!("FIN sent after {} bytes", self.tx_out));
                }
                Err(e) => {
                    self.fail(s, log, io_failure(&e));
                    return true;
                }
            }
        }
        // RX: read only while the buffer has room (flow control).
        let mut drained = false;
        if !self.fin_seen {
            let mut reader: &Socket = sock;
            while self.rx.free() > 0 {
                match reader.read(self.rx.spare()) {
                    Ok(0) => {
                        self.fin_seen = true;
                        changed = true;
                        if self.rx_in > self.last_push {
                            self.push_points.push_back(self.rx_in);
                            self.last_push = self.rx_in;
                        }
                        log.push(s, format!("peer closed (FIN) after {} bytes", self.rx_in));
                        break;
                    }
                    Ok(n) => {
                        self.rx.commit(n);
                        self.rx_in += n as u64;
                        self.stats.rx_bytes += n as u64;
                        self.last_arrival = now;
                        self.moved = true;
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                        drained = true;
                        break;
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        self.fail(s, log, io_failure(&e));
                        return true;
                    }
                }
            }
        }
        // Push timeout: a trailing partial beat waits and nothing more comes.
        if drained
            && self.rx_in > self.last_push
            && (self.rx_in - self.last_push) % beat as u64 != 0
            && now.duration_since(self.last_arrival) >= net.push_timeout
        {
            self.push_points.push_back(self.rx_in);
            self.last_push = self.rx_in;
            self.stats.push_timeouts += 1;
            changed = true;
        }
        let was = (self.status.established, self.status.peer_closed);
        self.check_closed();
        changed |= was != (self.status.established, self.status.peer_closed);
        // Fully closed: both FINs, every byte delivered.
        if self.fin_sent && self.status.peer_closed {
            self.status.established = false;
            self.drop_socket();
            log.push(s, "connection closed (both sides)");
            changed = true;
        }
        changed || self.moved
    }
}

/// `peer_mss` and `peer_window_scale` from TCP_INFO.
#[cfg(target_os = "linux")]
fn peer_info(sock: &Socket) -> (u16, u8) {
    use std::os::fd::AsRawFd;
    // SAFETY: tcp_info is plain old data; getsockopt writes at most `len` bytes into it.
    unsafe {
        let mut info: libc::tcp_info = std::mem::zeroed();
        let mut len = std::mem::size_of::<libc::tcp_info>() as libc::socklen_t;
        let r = libc::getsockopt(
            sock.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            (&mut info as *mut libc::tcp_info).cast(),
            &mut len,
        );
        if r != 0 {
            return (0, 0);
        }
        // `__u8 tcpi_snd_wscale : 4, tcpi_rcv_wscale : 4;`: the first
        // bit-field takes the low bits on little-endian targets.
        let v = info.tcpi_snd_rcv_wscale;
        let ws = if cfg!(target_endian = "little") { v & 0x0F } else { v >> 4 };
        (info.tcpi_snd_mss.min(u16::MAX as u32) as u16, ws)
    }
}

#[cfg(not(target_os = "linux"))]
fn peer_info(_sock: &Socket) -> (u16, u8) {
    (0, 0)
}

/// The event text for a socket error on an open connection.
fn io_failure(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::ConnectionReset | io::ErrorKind::BrokenPipe => {
            format!("connection reset by peer ({e})")
        }
        _ => format!("connection failed: {e}"),
    }
}

fn busy_port(e: &io::Error) -> bool {
    matches!(e.kind(), io::ErrorKind::AddrInUse | io::ErrorKind::AddrNotAvailable)
}

/// A non-blocking TCP socket bound to `local` with SO_REUSEADDR.
fn bound_socket(local: SocketAddrV4) -> io::Result<Socket> {
    let sock = Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::TCP))?;
    sock.set_reuse_address(true)?;
    sock.set_nonblocking(true)?;
    sock.bind(&SockAddr::from(local))?;
    Ok(sock)
}

/// Starts a non-blocking connect from `local` to `remote`.
fn start_connect(local: SocketAddrV4, remote: SocketAddrV4) -> io::Result<Socket> {
    let sock = bound_socket(local)?;
    match sock.connect(&SockAddr::from(remote)) {
        Ok(()) => Ok(sock),
        Err(e) if e.raw_os_error() == Some(libc::EINPROGRESS) => Ok(sock),
        Err(e) => Err(e),
    }
}

/// The TOE side of the session interface for `sessions` sessions, on host
/// sockets. See the crate documentation.
pub struct HostToe {
    net: NetConfig,
    beat: usize,
    sessions: Vec<Session>,
    inputs: Vec<SessionInputs>,
    init_countdown: u64,
    cycle: u64,
    log: Log,
    violations: ViolationLog,
    pollfds: Vec<libc::pollfd>,
}

impl fmt::Debug for HostToe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HostToe")
            .field("net", &self.net)
            .field("beat_bytes", &self.beat)
            .field("sessions", &self.sessions.len())
            .field("cycle", &self.cycle)
            .finish_non_exhaustive()
    }
}

impl HostToe {
    /// A TOE for `sessions` sessions (at least 1) with `beat_bytes` bytes per
    /// beat (1..=128, W/8). Refuses a `bind` or `target` outside 127.0.0.0/8
    /// and buffers smaller than a beat. No socket is opened here; `init_done`
    /// is high.
    pub fn new(sessions: usize, beat_bytes: usize, net: NetConfig) -> Result<Self, Error> {
        for (field, addr) in [("bind", net.bind), ("target", net.target)] {
            if !addr.is_loopback() {
                return Err(Error::NotLoopback { field, addr });
            }
        }
        if sessions == 0 {
            return Err(Error::Config("at least one session is needed".into()));
        }
        if !(1..=128).contains(&beat_bytes) {
            return Err(Error::Config(format!("beat_bytes {beat_bytes} out of 1..=128")));
        }
        if net.tx_buffer < beat_bytes || net.rx_buffer < beat_bytes {
            return Err(Error::Config(format!(
                "tx_buffer {} and rx_buffer {} must hold at least one beat ({beat_bytes} bytes)",
                net.tx_buffer, net.rx_buffer
            )));
        }
        let sess: Vec<Session> = (0..sessions).map(|s| Session::new(s, &net, beat_bytes)).collect();
        let inputs = (0..sessions)
            .map(|_| SessionInputs {
                conn_req_ready: true,
                rx_data: Vec::with_capacity(beat_bytes),
                ..Default::default()
            })
            .collect();
        Ok(Self {
            net,
            beat: beat_bytes,
            sessions: sess,
            inputs,
            init_countdown: 0,
            cycle: 0,
            log: Log::default(),
            violations: ViolationLog::new(),
            pollfds: Vec::with_capacity(sessions),
        })
    }

    /// Number of sessions.
    pub fn sessions(&self) -> usize {
        self.sessions.len()
    }

    /// Bytes per beat.
    pub fn beat_bytes(&self) -> usize {
        self.beat
    }

    /// The configuration in use.
    pub fn net_config(&self) -> &NetConfig {
        &self.net
    }

    /// Edges seen so far (calls of [`HostToe::edge`]).
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// Phase 1, before the edge: the inputs of every session for the coming
    /// rising edge. `tx_tvalid[s]` is what session s shows now (a missing
    /// entry counts as low). Call it exactly once per cycle, before
    /// [`HostToe::edge`]. No system call, no allocation.
    pub fn drive(&mut self, tx_tvalid: &[bool]) -> &[SessionInputs] {
        let beat = self.beat;
        for (s, (sess, inp)) in self.sessions.iter_mut().zip(self.inputs.iter_mut()).enumerate() {
            let valid = tx_tvalid.get(s).copied().unwrap_or(false);
            inp.conn_req_ready = true;
            sess.status.apply_to(inp);
            inp.tx_tready = valid && sess.tx_ok(beat);
            match sess.presented {
                Some(_) => {}
                None => {
                    sess.presented = sess.next_beat(beat);
                    inp.rx_data.clear();
                    if let Some((len, _)) = sess.presented {
                        sess.rx.copy_front(len, &mut inp.rx_data);
                    }
                }
            }
            inp.rx_tvalid = sess.presented.is_some();
            inp.rx_tlast = sess.presented.is_some_and(|(_, last)| last);
        }
        &self.inputs
    }

    /// Whether the TOE is initialised (`toe_init_done`): high after
    /// [`HostToe::new`], low for [`INIT_CYCLES`] cycles after a `toe_init` pulse.
    pub fn init_done(&self) -> bool {
        self.init_countdown == 0
    }

    /// Phase 2, at the edge: what the user logic showed just before the edge
    /// (after the inputs from [`HostToe::drive`] were applied). Performs the
    /// handshakes this edge completes: connection request (`conn_req_valid`;
    /// ready is always high), TX beat (`tx_tvalid && tx_tready`), RX beat
    /// (`rx_tvalid && rx_tready`), then a `toe_init` pulse. Only
    /// `global.init` is used. System calls only for a connection request or
    /// `toe_init`.
    pub fn edge(&mut self, global: GlobalOutputs, outs: &[SessionOutputs]) {
        let cycle = self.cycle;
        let beat = self.beat;
        if self.init_countdown > 0 {
            self.init_countdown -= 1;
        }
        let init_done = self.init_countdown == 0;
        let n = self.sessions.len();
        self.violations.check_outputs_len(cycle, Place::session(0), outs.len(), n);
        for (s, o) in outs.iter().enumerate().take(n) {
            let inp = &self.inputs[s];
            let (tready, rx_valid) = (inp.tx_tready, inp.rx_tvalid);
            let sess = &mut self.sessions[s];
            sess.check.edge(&mut self.violations, cycle, o, inp, sess.close_req);

            // --- TX stream ---
            if o.tx_tvalid && tready && !o.tx_data.is_empty() {
                let take = o.tx_data.len().min(beat).min(sess.tx.free());
                if matches!(sess.conn, Conn::Open(_)) {
                    sess.tx.push(&o.tx_data[..take]);
                    sess.stats.tx_taken += take as u64;
                }
            }

            // --- RX stream ---
            if rx_valid && o.rx_tready {
                if let Some((len, _)) = sess.presented.take() {
                    sess.rx.consume(len);
                    sess.rx_taken += len as u64;
                    sess.stats.rx_delivered += len as u64;
                    while sess.push_points.front().is_some_and(|&p| p <= sess.rx_taken) {
                        sess.push_points.pop_front();
                    }
                    sess.check_closed();
                }
            }

            // --- connection request (ready is always high) ---
            if o.conn_req_valid {
                self.request(s, o, init_done);
            }
        }
        if global.init {
            self.init();
        }
        self.cycle += 1;
    }

    /// A connection request taken at this edge.
    fn request(&mut self, s: usize, o: &SessionOutputs, init_done: bool) {
        let net = &self.net;
        let log = &mut self.log;
        let sess = &mut self.sessions[s];
        if !o.conn_req_open {
            match sess.conn {
                Conn::Idle => {}
                Conn::Listening(_) => {
                    log.push(s, format!("listen on {} cancelled", sess.local.map_or("?".into(), |a| a.to_string())));
                    sess.drop_socket();
                }
                Conn::Connecting { .. } => {
                    log.push(s, format!("connect to {} cancelled", sess.remote.map_or("?".into(), |a| a.to_string())));
                    sess.drop_socket();
                }
                Conn::Open(_) => {
                    sess.close_req = true;
                }
            }
            return;
        }

        // Open request: whatever the session still has goes first.
        match sess.conn {
            Conn::Idle => {}
            Conn::Listening(_) => log.push(s, "listen replaced by a new open request"),
            Conn::Connecting { .. } => log.push(s, "pending connect abandoned for a new open request"),
            Conn::Open(_) => {
                if sess.status.established {
                    log.push(s, "open request on a live connection: resetting it");
                }
            }
        }
        sess.drop_socket();
        sess.clear_data();
        sess.status.reset_for_open();
        sess.check.open_request();
        sess.local = None;
        sess.remote = None;
        if !init_done {
            sess.status.conn_error = true;
            sess.stats.errors += 1;
            log.push(s, "open request refused: TOE not initialised");
            return;
        }
        let local = SocketAddrV4::new(net.bind, o.conn_req_local_port);
        if o.conn_req_active {
            let remote = SocketAddrV4::new(net.target, o.conn_req_remote_port);
            sess.remote = Some(remote.into());
            let sock = match start_connect(local, remote) {
                Err(e) if busy_port(&e) => {
                    let any = SocketAddrV4::new(net.bind, 0);
                    let r = start_connect(any, remote);
                    if let Ok(sock) = &r {
                        let port = sock.local_addr().ok().and_then(|a| a.as_socket()).map_or(0, |a| a.port());
                        log.push(
                            s,
                            format!(
                                "source port {local} unusable ({e}): connecting from ephemeral port {port} instead"
                            ),
                        );
                    }
                    r
                }
                r => r,
            };
            match sock {
                Ok(sock) => {
                    sess.local = sock.local_addr().ok().and_then(|a| a.as_socket());
                    sess.conn = Conn::Connecting { sock, deadline: Instant::now() + net.connect_timeout };
                }
                Err(e) => {
                    let msg = if e.kind() == io::ErrorKind::ConnectionRefused {
                        format!("connect to {remote} refused")
                    } else {
                        format!("connect to {remote} failed: {e}")
                    };
                    sess.fail(s, log, msg);
                }
            }
        } else {
            let r = bound_socket(local).and_then(|sock| {
                sock.listen(1)?;
                Ok(sock)
            });
            match r {
                Ok(sock) => {
                    sess.local = sock.local_addr().ok().and_then(|a| a.as_socket());
                    log.push(s, format!("listening on {}", sess.local.map_or("?".into(), |a| a.to_string())));
                    sess.conn = Conn::Listening(sock);
                }
                Err(e) if e.kind() == io::ErrorKind::AddrInUse => {
                    let hint = if net.port_taken_hint.is_empty() {
                        String::new()
                    } else {
                        format!("; {}", net.port_taken_hint)
                    };
                    sess.fail(
                        s,
                        log,
                        format!(
                            "cannot listen on port {} ({local}): another socket holds the port ({e}){hint}",
                            local.port()
                        ),
                    );
                }
                Err(e) => {
                    sess.fail(s, log, format!("cannot listen on port {} ({local}): {e}", local.port()));
                }
            }
        }
    }

    /// `toe_init`: drop every connection, listen and pending open.
    fn init(&mut self) {
        self.init_countdown = INIT_CYCLES;
        for (s, sess) in self.sessions.iter_mut().enumerate() {
            let what = match sess.conn {
                Conn::Idle => continue,
                Conn::Listening(_) => "listen",
                Conn::Connecting { .. } => "pending connect",
                Conn::Open(_) if !sess.status.established => {
                    // Fully closed, socket not yet closed by poll: nothing lost.
                    sess.drop_socket();
                    continue;
                }
                Conn::Open(_) => "connection",
            };
            sess.fail(s, &mut self.log, format!("toe_init: {what} dropped"));
        }
    }

    /// Socket I/O of every session: accept, connect completion and timeout,
    /// write the TX buffers, our FIN, read into the RX buffers (only while
    /// they have room), the push timeout, resets, closing fully closed
    /// connections. Call it every N cycles (e.g. 64), between an
    /// [`HostToe::edge`] and the next [`HostToe::drive`]. Returns true if any
    /// byte moved or any state changed.
    pub fn poll(&mut self) -> bool {
        let now = Instant::now();
        let mut changed = false;
        for (s, sess) in self.sessions.iter_mut().enumerate() {
            changed |= sess.poll(s, now, &self.net, self.beat, &mut self.log);
        }
        changed
    }

    /// Whether something needs fast polling: an open pending, data buffered
    /// either way (including a partial beat waiting for its push timeout), a
    /// FIN to send, a connection that moved bytes at the last
    /// [`HostToe::poll`], a closed connection not yet released, or the init
    /// countdown. False when every session is idle, listening, or connected
    /// with nothing moving: the glue may then sleep or [`HostToe::wait`].
    pub fn busy(&self) -> bool {
        self.init_countdown > 0
            || self.sessions.iter().any(|sess| match sess.conn {
                Conn::Idle | Conn::Listening(_) => false,
                Conn::Connecting { .. } => true,
                Conn::Open(_) => {
                    sess.moved
                        || !sess.tx.is_empty()
                        || !sess.rx.is_empty()
                        || (sess.close_req && !sess.fin_sent)
                        || !sess.status.established
                }
            })
    }

    /// Blocks up to `timeout` until a socket has something for
    /// [`HostToe::poll`] (a connection to accept, a connect that completed or
    /// failed, bytes or a FIN to read while the RX buffer has room, room to
    /// write buffered TX bytes). Returns true if one is ready. For the glue's
    /// idle loop when [`HostToe::busy`] is false; returns at once when busy.
    pub fn wait(&mut self, timeout: Duration) -> bool {
        use std::os::fd::AsRawFd;
        if self.busy() {
            return true;
        }
        self.pollfds.clear();
        for sess in &self.sessions {
            let (fd, events) = match &sess.conn {
                Conn::Idle => continue,
                Conn::Listening(l) => (l.as_raw_fd(), libc::POLLIN),
                Conn::Connecting { sock, .. } => (sock.as_raw_fd(), libc::POLLOUT),
                Conn::Open(sock) => {
                    let mut ev = 0;
                    if !sess.fin_seen && sess.rx.free() > 0 {
                        ev |= libc::POLLIN;
                    }
                    if !sess.tx.is_empty() {
                        ev |= libc::POLLOUT;
                    }
                    (sock.as_raw_fd(), ev)
                }
            };
            self.pollfds.push(libc::pollfd { fd, events, revents: 0 });
        }
        let ms = timeout.as_millis().min(i32::MAX as u128) as libc::c_int;
        if self.pollfds.is_empty() {
            std::thread::sleep(timeout);
            return false;
        }
        // SAFETY: pollfds is a valid array of `len` pollfd structs.
        let r = unsafe { libc::poll(self.pollfds.as_mut_ptr(), self.pollfds.len() as libc::nfds_t, ms) };
        r > 0
    }

    /// The log lines collected since the last call (oldest first).
    pub fn take_events(&mut self) -> Vec<String> {
        let mut ev = std::mem::take(&mut self.log.events);
        if self.log.dropped > 0 {
            ev.push(format!("({} more events dropped)", self.log.dropped));
            self.log.dropped = 0;
        }
        ev
    }

    /// The counters of session `s`.
    pub fn stats(&self, s: usize) -> SessionStats {
        self.sessions[s].stats
    }

    /// The local address of session `s`'s listen or connection (None when idle).
    pub fn local_addr(&self, s: usize) -> Option<SocketAddr> {
        match self.sessions[s].conn {
            Conn::Idle => None,
            _ => self.sessions[s].local,
        }
    }

    /// The peer address of session `s`'s connection or pending connect (None otherwise).
    pub fn peer_addr(&self, s: usize) -> Option<SocketAddr> {
        match self.sessions[s].conn {
            Conn::Connecting { .. } | Conn::Open(_) => self.sessions[s].remote,
            _ => None,
        }
    }

    /// Interface violations seen so far (at most [`MAX_VIOLATIONS`] kept),
    /// each `cycle C: session S: what`.
    pub fn violations(&self) -> &[String] {
        self.violations.list()
    }

    /// Number of violations seen (all counted, including those not kept).
    pub fn violation_count(&self) -> u64 {
        self.violations.total()
    }
}

#[cfg(test)]
mod tests {
    use super::Ring;

    /// Pushes, reads (spare/commit) and consumes through many wraps of an
    /// odd-sized ring and compares with a plain queue.
    #[test]
    fn ring_wraps_correctly() {
        let mut r = Ring::new(37);
        let mut model = std::collections::VecDeque::new();
        let mut next = 0u8;
        let mut out = Vec::new();
        for step in 0..2000usize {
            let n = (step * 7 + 3) % 23;
            if step % 3 == 0 {
                // Fill like a socket read: into the spare region, then commit.
                let sp = r.spare();
                let k = n.min(sp.len());
                for b in &mut sp[..k] {
                    *b = next;
                    model.push_back(next);
                    next = next.wrapping_add(1);
                }
                r.commit(k);
            } else {
                let k = n.min(r.free());
                let data: Vec<u8> = (0..k)
                    .map(|_| {
                        let b = next;
                        next = next.wrapping_add(1);
                        model.push_back(b);
                        b
                    })
                    .collect();
                r.push(&data);
            }
            assert_eq!(r.len(), model.len());
            assert_eq!(r.free(), 37 - model.len());
            let (a, b) = r.slices();
            let both: Vec<u8> = a.iter().chain(b).copied().collect();
            assert!(both.iter().eq(model.iter()), "step {step}");
            let take = ((step * 5) % 19).min(r.len());
            out.clear();
            r.copy_front(take, &mut out);
            assert!(out.iter().eq(model.iter().take(take)));
            r.consume(take);
            model.drain(..take);
        }
    }
}
