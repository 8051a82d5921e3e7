//! [`HostToe`]: the sessions behind the TOE session interface, driven once per
//! cycle (`drive`, `edge`) and polled for socket I/O (`poll`, `wait`).

mod request;

use std::fmt;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use toe_model::checker::{Place, ViolationLog};

use crate::events::Log;
use crate::session::{Conn, Session, SessionStats};
use crate::{Error, GlobalOutputs, NetConfig, SessionInputs, SessionOutputs};

/// Cycles `init_done` stays low after a `toe_init` pulse (it falls at the next
/// `drive`, well within the 2 cycles the interface allows).
pub const INIT_CYCLES: u64 = 16;

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

    /// Whether nothing can happen on the network side until the user logic
    /// asks for it: the init countdown is over and no session listens, connects
    /// or holds a connection. The glue may then stop clocking the user logic
    /// until a register request arrives.
    pub fn dormant(&self) -> bool {
        self.init_countdown == 0 && self.sessions.iter().all(|sess| matches!(sess.conn, Conn::Idle))
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

    /// Interface violations seen so far (at most
    /// [`MAX_VIOLATIONS`](crate::MAX_VIOLATIONS) kept), each `cycle C: session S: what`.
    pub fn violations(&self) -> &[String] {
        self.violations.list()
    }

    /// Number of violations seen (all counted, including those not kept).
    pub fn violation_count(&self) -> u64 {
        self.violations.total()
    }
}
