//! The open engine's TCP model with receiving sessions in front of it: the
//! user logic of a receive test (listen or connect, take the `rx` stream
//! beat by beat, verify the incremental pattern, close when the peer has
//! closed, or first), so the kernel's TCP stack can send into the engine
//! through the TAP.

use net_model::tcp::{Request, SessionCounter, State};
use net_model::{Counter, NetNode};
use pattern::{Checker, Mismatch};

use crate::pump::FrameNode;

/// How the receiving sessions behave.
#[derive(Clone, Debug)]
pub struct ReceiverOptions {
    /// Session `s` listens on `port + s`, or all on `port` (`same_port`).
    pub port: u16,
    /// Every session listens on `port` itself: one connection to it each.
    pub same_port: bool,
    /// Bytes per `rx` beat (W/8 of the design's data width).
    pub beat_bytes: usize,
    /// After every `.0` bytes the user logic stops taking beats for `.1`
    /// microseconds of the node's clock (`None`: every beat as soon as it
    /// is there). A reader that stops fills the receive buffer and closes
    /// the window.
    pub pause: Option<(u64, u64)>,
    /// Listen again after each connection ends (open/close cycles).
    pub reopen: bool,
    /// Check every byte against the incremental pattern (off for a peer
    /// that sends other data, such as iperf).
    pub verify: bool,
    /// Open actively instead: session `s` connects from local port
    /// `port + s` to the target's port given here.
    pub active: Option<u16>,
    /// Close our direction (FIN) once this many bytes arrived, then take the
    /// rest of the stream until the peer closes: the FPGA closes first.
    pub close_after: Option<u64>,
    /// Cycles of the node's clock per microsecond.
    pub cycles_per_us: u64,
}

impl Default for ReceiverOptions {
    fn default() -> Self {
        ReceiverOptions {
            port: 5001,
            same_port: false,
            beat_bytes: 128,
            pause: None,
            reopen: false,
            verify: true,
            active: None,
            close_after: None,
            cycles_per_us: crate::pump::DEFAULT_CLOCK_HZ / 1_000_000,
        }
    }
}

/// How one connection of a session ended.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Received {
    /// Bytes taken on `rx`, each checked against the pattern.
    pub bytes: u64,
    /// The first byte that differed from the pattern.
    pub mismatch: Option<Mismatch>,
    /// `peer_closed` rose: the whole stream arrived.
    pub peer_closed: bool,
    /// `conn_error` rose (a reset, or an open that failed).
    pub conn_error: bool,
    /// A beat other than the last before a push point was partial.
    pub bad_beat: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Waiting for `toe_init_done` (client-mode ARP) before the open request.
    Starting,
    Listening,
    Receiving,
    Closing,
    Done,
}

/// What a session keeps about its connection in progress: all of it
/// starts afresh with each connection.
#[derive(Clone, Debug, Default)]
struct Connection {
    got: Received,
    checker: Checker,
    /// No beat is taken before this cycle.
    paused_until: u64,
    /// Bytes taken since the last pause.
    since_pause: u64,
    /// Our close request went before the peer closed.
    closed_first: bool,
}

#[derive(Clone, Debug)]
struct User {
    phase: Phase,
    conn: Connection,
    done: Vec<Received>,
}

impl User {
    /// Records how the connection in progress ended; the next starts afresh.
    fn finish(&mut self) {
        self.done.push(std::mem::take(&mut self.conn).got);
    }
}

/// The model node and its receiving sessions, as one [`FrameNode`].
pub struct Receiver {
    node: NetNode,
    users: Vec<User>,
    opts: ReceiverOptions,
}

impl Receiver {
    /// `node` (its configuration with a TCP engine; `init` done) whose
    /// sessions open (listen, or connect) as soon as the node has its
    /// target's MAC (`toe_init_done`), at `now` if it has.
    ///
    /// # Panics
    /// If the node has no TCP engine: a harness set up wrongly.
    pub fn new(node: NetNode, opts: ReceiverOptions, now: u64) -> Self {
        let sessions = node.tcp().expect("a node with a TCP engine").config().sessions;
        let users = (0..sessions)
            .map(|_| User { phase: Phase::Starting, conn: Connection::default(), done: Vec::new() })
            .collect();
        let mut r = Receiver { node, users, opts };
        r.step(now);
        r
    }

    /// The node.
    pub fn node(&self) -> &NetNode {
        &self.node
    }

    /// The connections session `s` finished, in order.
    pub fn finished(&self, s: usize) -> &[Received] {
        &self.users[s].done
    }

    /// A session counter of the engine.
    pub fn session_count(&self, s: usize, c: SessionCounter) -> u64 {
        self.node.tcp().map_or(0, |t| t.session_count(s, c))
    }

    /// Session `s`'s connection state.
    pub fn state(&self, s: usize) -> State {
        self.node.tcp().map_or(State::Closed, |t| t.status(s).state)
    }

    /// The user logic at `now`: every session takes what it may and moves on.
    fn step(&mut self, now: u64) {
        for s in 0..self.users.len() {
            self.step_session(s, now);
        }
    }

    fn step_session(&mut self, s: usize, now: u64) {
        let Receiver { node, users, opts } = self;
        let user = &mut users[s];
        let Some(tcp) = node.tcp_mut() else { return };
        let status = tcp.status(s);
        match user.phase {
            Phase::Done => {}
            Phase::Starting => {
                if node.init_done() {
                    user.phase = Phase::Listening;
                    node.tcp_request(s, listen(opts, s), now);
                }
            }
            Phase::Listening => {
                if status.conn_error {
                    user.conn.got.conn_error = true;
                    user.finish();
                    user.phase = Phase::Done;
                } else if status.established {
                    user.phase = Phase::Receiving;
                }
            }
            Phase::Receiving => {
                let c = &mut user.conn;
                while now >= c.paused_until {
                    let Some(beat) = tcp.rx_beat(s, opts.beat_bytes, now) else { break };
                    if let Some((every, for_us)) = opts.pause {
                        c.since_pause += beat.data.len() as u64;
                        if c.since_pause >= every {
                            c.since_pause = 0;
                            c.paused_until = now + for_us * opts.cycles_per_us;
                        }
                    }
                    if beat.data.len() < opts.beat_bytes && !beat.last {
                        c.got.bad_beat = true;
                    }
                    if opts.verify && c.got.mismatch.is_none() {
                        if let Err(m) = c.checker.check_next(&beat.data) {
                            c.got.mismatch = Some(m);
                        }
                    }
                    c.got.bytes += beat.data.len() as u64;
                }
                let status = tcp.status(s);
                let close_now = opts.close_after.is_some_and(|n| c.got.bytes >= n);
                if close_now && !c.closed_first && !status.peer_closed {
                    c.closed_first = true;
                    node.tcp_request(s, Request::Close, now);
                }
                if status.peer_closed {
                    c.got.peer_closed = true;
                    user.phase = Phase::Closing;
                    if !c.closed_first {
                        node.tcp_request(s, Request::Close, now);
                    }
                } else if status.conn_error || status.state == State::Closed {
                    c.got.conn_error = status.conn_error;
                    end_connection(user, node, opts, s, now);
                }
            }
            Phase::Closing => {
                if matches!(status.state, State::Closed | State::TimeWait) {
                    user.conn.got.conn_error |= status.conn_error;
                    end_connection(user, node, opts, s, now);
                }
            }
        }
    }
}

/// Records the connection's end; listens again if the options say so.
fn end_connection(user: &mut User, node: &mut NetNode, opts: &ReceiverOptions, s: usize, now: u64) {
    user.finish();
    if opts.reopen {
        user.phase = Phase::Listening;
        node.tcp_request(s, listen(opts, s), now);
    } else {
        user.phase = Phase::Done;
    }
}

/// Session `s`'s open request: listen, or connect to the target.
fn listen(opts: &ReceiverOptions, s: usize) -> Request {
    match opts.active {
        Some(remote_port) => Request::Open { active: true, local_port: opts.port + s as u16, remote_port },
        None => {
            let port = if opts.same_port { opts.port } else { opts.port + s as u16 };
            Request::Open { active: false, local_port: port, remote_port: 0 }
        }
    }
}

impl FrameNode for Receiver {
    fn receive(&mut self, frame: &[u8], now: u64) {
        self.node.receive(frame, false, now);
        self.step(now);
    }

    fn transmit(&mut self, now: u64) -> Option<Vec<u8>> {
        self.step(now);
        self.node.transmit(now)
    }

    fn count(&self, c: Counter) -> u64 {
        self.node.count(c)
    }
}
