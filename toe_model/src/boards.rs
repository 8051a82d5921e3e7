//! The two-board model as a whole: [`TwoBoards`] owns both TOEs ([`Board`]),
//! the two link directions and the violation log, and runs the per-cycle
//! protocol (`drive`, `edge`, `tick`) that the glue calls; it also handles
//! initialisation (`toe_init`) and fault injection.
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

use config::codes::LastPacketMode;

use crate::checker::{Place, Request, ViolationLog};
use crate::connection::{deliver, request, Session, State};
use crate::link::{last_packet, pair, refill, Block, Kind, Link};
use crate::{GlobalOutputs, LinkConfig, LinkStats, SessionInputs, SessionOutputs, ToeConfig};

/// One board's TOE.
#[derive(Debug)]
pub(crate) struct Board {
    pub(crate) cfg: ToeConfig,
    pub(crate) sessions: Vec<Session>,
    pub(crate) inputs: Vec<SessionInputs>,
    /// Cycles until init_done (0 = initialised).
    pub(crate) init_countdown: u64,
    /// Parameters in effect.
    pub(crate) params: GlobalOutputs,
    /// A toe_init was seen: `params` are latched.
    pub(crate) latched: bool,
    pub(crate) silent: bool,
    /// Link credit of the direction leaving this board.
    pub(crate) credit: i64,
    /// Round-robin start for the next credit grant.
    pub(crate) rr: usize,
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
        assert!(link.user_clock_mhz > 0 && link.payload_mb_s > 0, "link rates must be non-zero");
        let board = |b: usize, cfg: ToeConfig| Board {
            sessions: (0..sessions).map(|s| Session::new(Place::board_session(b, s), cfg.beat_bytes)).collect(),
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
                    && b.sessions
                        .iter()
                        .all(|s| matches!(s.state, State::Idle | State::Listening { .. }) && s.rx_q.is_empty())
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
        GlobalOutputs { init: false, ..self.boards[b].params }
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
            sess.status.apply_to(inp);
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
            board.params = GlobalOutputs { init: false, ..global };
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
                    let push = last_data && board.params.last_packet_mode == LastPacketMode::Psh as u8;
                    link.send(cycle + lat, sess.conn, Kind::Data { len, push });
                    if last_data {
                        last_packet(sess, link, tx_stats, &mut board.credit, board.params, cycle + lat, clk);
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
            board.params = GlobalOutputs { init: false, ..global };
            board.latched = true;
            board.init_countdown = board.cfg.init_cycles;
            for sess in &mut board.sessions {
                if sess.state != State::Idle {
                    if sess.conn != 0 {
                        link.send(cycle + lat, sess.conn, Kind::Rst);
                        tx_stats.rsts += 1;
                    }
                    sess.status.conn_error = true;
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
                deliver(board, ev, inbound, outbound, fwd_stats, cycle + lat, &mut self.log, cycle, r);
            }
        }
        for (b, board) in self.boards.iter_mut().enumerate() {
            board.credit = refill(board.credit, board.cfg.beat_bytes, &self.link);
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
                        sess.status.conn_error = true;
                        sess.drop_connection();
                    }
                    State::Established => {
                        if sess.presented.is_none() && !sess.rx_q.is_empty() && sess.next_beat(beat).is_none() {
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
    /// At most [`MAX_VIOLATIONS`](crate::MAX_VIOLATIONS) are kept.
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

    /// Board b's session s sends messages (a latency mode): its interface
    /// checker allows data after a partial `tlast` beat
    /// ([`SessionChecker::set_messages`](crate::checker::SessionChecker::set_messages)).
    pub fn set_messages(&mut self, b: usize, s: usize, messages: bool) {
        self.boards[b].sessions[s].check.set_messages(messages);
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
        self.boards[to_board].sessions[s].corrupt.push((offset, xor));
    }

    /// Forgets the corruptions of [`TwoBoards::corrupt`] for board `to_board`
    /// session s that no connection's data has reached yet, so they cannot hit
    /// a later connection (a test reusing the session after a short or aborted
    /// transfer); returns how many there were.
    pub fn clear_corruptions(&mut self, to_board: usize, s: usize) -> usize {
        std::mem::take(&mut self.boards[to_board].sessions[s].corrupt).len()
    }
}
