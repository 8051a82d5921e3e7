//! The randomised two-board soak (issue 15, part 1): each iteration draws a
//! plan from a seed (what every session of two boards does, and which fault
//! is injected; the boards are `top1024` in most iterations, another top of
//! the width matrix in the others), runs it on two boards through the TOE model
//! ([`TwoBoardSim`]) and checks every session's outcome against a reference
//! computed here in plain Rust from the plan and the `pattern` crate, never
//! from the hardware's own registers.
//!
//! ```text
//!  seed --> Plan::draw --> run(plan): round 0, round 1 on one TwoBoardSim --> SessionResult per side
//!              |                                                                 |
//!              +------> reference (expect, Stream::record) ----------------------+--> problems, figures
//! ```
//!
//! Each iteration runs two rounds of tests one after the other on the same
//! boards ([`Round`]), so a session must be reusable after any fault.
//!
//! What is exact and what is an invariant:
//! - Without an abort every figure follows from the plan: `done` or `error`
//!   and its cause, `tx_bytes`, `rx_bytes`, `closed`, and the first-error
//!   record (offset; expected and received words for a pattern mismatch;
//!   `err_count`) from the pattern model with the corruption applied.
//! - An `abort` at a random cycle makes the counters depend on timing: the
//!   aborted side ends `aborted` (or as without the abort, if it had ended
//!   already), the peer in one of the ends a peer can see (done, peer closed,
//!   refused before `established`, conn_reset after it), and the invariants hold: the counters equal what the TOE
//!   model saw taken and sent, nothing is received that was not sent, a
//!   `done` side moved every byte, and the first-error record is the one the
//!   pattern model gives for the bytes received.
//! - Every session is idle at the end; one still busy after its bound is a
//!   hang.
//!
//! The plan's sizes are bounded by a cycle budget ([`CYCLE_BUDGET`]) at the
//! speeds drawn, so an iteration is a few hundred thousand cycles at most.
//! Iteration `k + 1`'s seed is drawn from iteration `k`'s, so
//! `TB_SEED=<iteration seed>` replays one iteration alone (see
//! `docs/soak.md`).

use std::collections::BTreeMap;
use std::fmt;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use toe_model::{LinkConfig, ToeConfig};

use crate::axil::Timing;
use crate::boards::{
    quick_toe, BoardTiming, Mode, SessionResult, SessionTest, TwoBoardSim, QUICK_SYN_TIMEOUT, USER_PS,
};
use crate::demo;
use crate::models::{ModelInfo, TOP_MODELS};
use driver::regs;
use driver::regs::session::status::ErrorCause;

/// The default product top, `top1024`: most iterations run on it.
pub const DEFAULT_MODEL: &str = "top1024";
/// The estimated cycles of one direction's transfer at the drawn speeds are
/// kept under this: sizes are cut (or speeds raised) to fit.
pub const CYCLE_BUDGET: u64 = 120_000;
/// Rounds of an iteration: tests one after the other on the same boards.
pub const ROUNDS: usize = 2;
/// The link's payload bytes per cycle (200G at 250 MHz, `LinkConfig::default`).
const LINK_BYTES_PER_CYCLE: f64 = 99.0;
/// Receive buffer of the model's TOE sessions (`ToeConfig::new`'s default):
/// a transfer no larger than this never waits for a window update.
const RX_BUFFER: u64 = 1 << 20;

/// What a session does on the two boards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Use {
    /// Test mode `disabled` on both boards; `start` is written and must do nothing.
    Disabled,
    /// Half duplex: board `from` sends, the other receives.
    Send { from: usize },
    /// Full duplex on both boards.
    FullDuplex,
}

/// One board's side of a session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Side {
    pub transfer_size: u64,
    pub packet_size: u64,
    pub tx_percent: u8,
    pub rx_percent: u8,
    pub verify: bool,
    pub incremental: bool,
}

/// A fault of one session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    None,
    /// The TOE flips bits `xor` of byte `offset` of the stream board `to` receives.
    Corrupt {
        to: usize,
        offset: u64,
        xor: u8,
    },
    /// Half duplex: the sender's size is smaller than the receiver's.
    PeerClosesEarly,
    /// Half duplex: the sender's size is larger than the receiver's.
    PeerSendsMore,
    /// The server is never started: the client's SYN is answered with RST.
    NobodyListening,
    /// `ctrl.abort` on board `board`, `at` cycles after the clients started.
    Abort {
        board: usize,
        at: u64,
    },
    /// A second `ctrl.start` on board `board` while its session is busy:
    /// `at` None while the server listens (before the clients start), else
    /// `at` cycles after the clients started, on a side still receiving.
    StartWhileBusy {
        board: usize,
        at: Option<u64>,
    },
}

/// One session of the plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionPlan {
    pub session: usize,
    /// Bytes of the model's beat.
    pub beat: u64,
    pub usage: Use,
    /// The board that opens actively; the other listens.
    pub client: usize,
    pub sides: [Side; 2],
    pub fault: Fault,
}

/// One iteration's plan.
#[derive(Clone, Debug)]
pub struct Plan {
    pub seed: u64,
    /// The product top both boards run (`models::TOP_MODELS`).
    pub model: &'static str,
    /// Written to the registers and taken by `toe_ctrl.init` on both boards.
    pub window_update_gap: u32,
    pub last_packet_mode: u32,
    /// Both boards' clocks and register-bus master timing.
    pub timing: BoardTiming,
    /// `ToeConfig::conn_req_ready_delay` of both TOEs (0: ready at once).
    pub conn_req_ready_delay: u64,
    /// Tests run one after the other on the same two boards: the sessions
    /// must be reusable after whatever the round before did to them.
    pub rounds: Vec<Round>,
}

/// One test of every session, on the boards of the round before.
#[derive(Clone, Debug)]
pub struct Round {
    /// A board whose TOE drops every SYN in this round (`TwoBoards::set_silent`).
    pub silent: Option<usize>,
    pub sessions: Vec<SessionPlan>,
}

/// The kinds of fault counted in the figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum FaultKind {
    /// A corrupted byte the receiver verifies: must be reported with its record.
    Corrupt,
    /// A corrupted byte the receiver does not verify: must change nothing.
    CorruptUnverified,
    PeerClosesEarly,
    PeerSendsMore,
    NobodyListening,
    SilentPeer,
    /// An abort that reached its session while it ran: it must end `aborted`.
    Abort,
    /// An abort written after its session had ended: it must change nothing.
    AbortAfterEnd,
    StartWhileBusy,
    ConnReqReadyDelay,
    SlowBus,
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            FaultKind::Corrupt => "corrupted byte, verified",
            FaultKind::CorruptUnverified => "corrupted byte, unverified",
            FaultKind::PeerClosesEarly => "peer closes early",
            FaultKind::PeerSendsMore => "peer sends more",
            FaultKind::NobodyListening => "nobody listening",
            FaultKind::SilentPeer => "silent peer TOE",
            FaultKind::Abort => "abort at a random cycle",
            FaultKind::AbortAfterEnd => "abort after the end",
            FaultKind::StartWhileBusy => "start while busy",
            FaultKind::ConnReqReadyDelay => "conn_req_ready held low",
            FaultKind::SlowBus => "slow register bus",
        };
        f.write_str(name)
    }
}

// ---------------------------------------------------------------------------
// Drawing a plan.

/// Bytes a cycle a side with `beat`-byte beats moves at `percent` of the
/// peak (one beat a cycle).
fn rate(beat: u64, percent: u8) -> f64 {
    beat as f64 * f64::from(percent) / 100.0
}

/// A speed, biased to the ends of 1..=100.
fn percent(rng: &mut ChaCha8Rng) -> u8 {
    match rng.gen_range(0..10) {
        0 => 1,
        1 => rng.gen_range(1..=10),
        2..=4 => 100,
        _ => rng.gen_range(1..=100),
    }
}

/// A packet size: 0 (no boundary), 1, around a beat, or random.
fn packet_size(rng: &mut ChaCha8Rng, beat: u64) -> u64 {
    match rng.gen_range(0..8) {
        0 => 0,
        1 => 1,
        2 => beat - 1 + rng.gen_range(0..3),
        3 => 8192,
        4 => 9000,
        _ => rng.gen_range(2..=65_536),
    }
}

/// A transfer size biased to beat and packet boundaries, from 1 byte to 4 MiB.
fn transfer_size(rng: &mut ChaCha8Rng, packet: u64, beat: u64) -> u64 {
    let around = |rng: &mut ChaCha8Rng, unit: u64, most: u64| {
        let k = rng.gen_range(1..=most.max(1));
        (k * unit + rng.gen_range(0..3)).saturating_sub(1).max(1)
    };
    match rng.gen_range(0..10) {
        0 => rng.gen_range(1..=8),
        1 | 2 => around(rng, beat, 64),
        3 if packet > 1 => around(rng, packet, (1 << 20) / packet),
        3 | 4 => around(rng, beat, 30_000),
        5 | 6 => rng.gen_range(1..=256 * 1024),
        _ => rng.gen_range(256 * 1024..=4 << 20),
    }
}

impl Plan {
    /// The plan of seed `seed`.
    pub fn draw(seed: u64) -> Plan {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let slow_bus = rng.gen_bool(0.3);
        let timing = BoardTiming {
            user_ps: USER_PS,
            bus_ps: if slow_bus { rng.gen_range(20_000..=40_000) } else { rng.gen_range(2_500..=12_000) },
            bus: if slow_bus {
                Timing { max_delay: rng.gen_range(4..=12), ready_probability: rng.gen_range(0.1..=0.5) }
            } else {
                Timing { max_delay: rng.gen_range(0..=3), ready_probability: rng.gen_range(0.6..=1.0) }
            },
        };
        let conn_req_ready_delay = if rng.gen_bool(0.15) { rng.gen_range(1..=3_000) } else { 0 };
        let last_packet_mode = rng.gen_range(0..=2);
        // Mostly the default top (4 sessions of 1024 bits); sometimes a
        // narrower one of the width matrix, for partial beats of other sizes.
        let model =
            if rng.gen_bool(0.7) { model(DEFAULT_MODEL) } else { TOP_MODELS[rng.gen_range(0..TOP_MODELS.len())] };
        let rounds: Vec<Round> = (0..ROUNDS).map(|_| Round::draw(&mut rng, model)).collect();
        // Window update gap 0 stalls a receiver slower than its sender once
        // the receive buffer is full (the model has no zero-window probe; the
        // directed test `window_update_gap_zero_stalls...` covers it): drawn
        // only when every transfer fits in the receive buffer.
        let fits =
            rounds.iter().flat_map(|r| &r.sessions).all(|p| p.sides.iter().all(|s| s.transfer_size <= RX_BUFFER));
        let window_update_gap = if fits && rng.gen_bool(0.3) { 0 } else { rng.gen_range(1..=64) };
        Plan { seed, model: model.name, window_update_gap, last_packet_mode, timing, conn_req_ready_delay, rounds }
    }

    /// The faults of the whole plan that are not a round's, by kind.
    pub fn faults(&self) -> Vec<FaultKind> {
        let mut v = Vec::new();
        if self.timing.bus_ps >= 20_000 {
            v.push(FaultKind::SlowBus);
        }
        if self.conn_req_ready_delay > 0 {
            v.push(FaultKind::ConnReqReadyDelay);
        }
        v
    }
}

impl Round {
    /// Draws a round of `model`'s sessions.
    fn draw(rng: &mut ChaCha8Rng, model: ModelInfo) -> Round {
        let silent = rng.gen_bool(0.08).then(|| rng.gen_range(0..2));
        let mut sessions: Vec<SessionPlan> =
            (0..model.sessions).map(|s| session_plan(rng, s, model.beat_bytes() as u64)).collect();
        // A silent server board refuses its sessions whatever else they do:
        // their data faults would have no effect, so they are not drawn.
        for p in &mut sessions {
            let moot = matches!(
                p.fault,
                Fault::Corrupt { .. }
                    | Fault::PeerClosesEarly
                    | Fault::PeerSendsMore
                    | Fault::StartWhileBusy { at: Some(_), .. }
            );
            if silent == Some(p.server()) && moot {
                p.fault = Fault::None;
            }
        }
        Round { silent, sessions }
    }

    /// The faults this round injects, by kind.
    pub fn faults(&self) -> Vec<FaultKind> {
        let mut v = Vec::new();
        for p in &self.sessions {
            if p.usage == Use::Disabled {
                continue;
            }
            if self.silent == Some(p.server()) && p.fault != Fault::NobodyListening {
                v.push(FaultKind::SilentPeer);
            }
            v.extend(match p.fault {
                Fault::None => None,
                Fault::Corrupt { to, .. } => Some(p.corrupt_kind(to)),
                Fault::PeerClosesEarly => Some(FaultKind::PeerClosesEarly),
                Fault::PeerSendsMore => Some(FaultKind::PeerSendsMore),
                Fault::NobodyListening => Some(FaultKind::NobodyListening),
                Fault::Abort { .. } => Some(FaultKind::Abort),
                Fault::StartWhileBusy { .. } => Some(FaultKind::StartWhileBusy),
            });
        }
        v
    }

    /// The largest estimated transfer time of the round, cycles.
    pub fn longest(&self) -> u64 {
        let sharing = self.active_sessions();
        self.sessions.iter().map(|p| p.estimate(sharing)).max().unwrap_or(0)
    }

    /// Sessions that move data (at least 1): they share the link, whatever
    /// the direction (a conservative estimate).
    fn active_sessions(&self) -> usize {
        self.sessions.iter().filter(|q| q.usage != Use::Disabled).count().max(1)
    }
}

/// Draws session `session`'s plan.
fn session_plan(rng: &mut ChaCha8Rng, session: usize, beat: u64) -> SessionPlan {
    let usage = match rng.gen_range(0..10) {
        0 => Use::Disabled,
        1..=5 => Use::Send { from: rng.gen_range(0..2) },
        _ => Use::FullDuplex,
    };
    let client = rng.gen_range(0..2);
    let mut sides = [0, 1].map(|_| {
        let packet = packet_size(rng, beat);
        Side {
            transfer_size: transfer_size(rng, packet, beat),
            packet_size: packet,
            tx_percent: percent(rng),
            rx_percent: percent(rng),
            verify: rng.gen_bool(0.8),
            incremental: rng.gen_bool(0.85),
        }
    });
    // One size for both ends of the connection.
    sides[1].transfer_size = sides[0].transfer_size;
    let mut p = SessionPlan { session, beat, usage, client, sides, fault: Fault::None };
    p.fit_budget(rng);
    let size = p.sides[0].transfer_size;
    let half = matches!(usage, Use::Send { .. });
    p.fault = match rng.gen_range(0..16) {
        _ if usage == Use::Disabled => Fault::None,
        0 | 1 => {
            let to = match usage {
                Use::Send { from } => 1 - from,
                _ => rng.gen_range(0..2),
            };
            Fault::Corrupt { to, offset: rng.gen_range(0..size), xor: rng.gen_range(1..=255) }
        }
        2 if half && size > 1 => Fault::PeerClosesEarly,
        3 if half => Fault::PeerSendsMore,
        4 => Fault::NobodyListening,
        5 | 6 => Fault::Abort { board: rng.gen_range(0..2), at: rng.gen_range(0..=p.estimate(1) + 2_000) },
        7 => {
            let at = rng.gen_bool(0.5).then(|| rng.gen_range(0..=p.estimate(1)));
            let board = match (at, usage) {
                (None, _) => 1 - client,
                (Some(_), Use::Send { from }) => 1 - from,
                (Some(_), _) => rng.gen_range(0..2),
            };
            Fault::StartWhileBusy { board, at }
        }
        _ => Fault::None,
    };
    if let Use::Send { from } = usage {
        let to = 1 - from;
        match p.fault {
            Fault::PeerClosesEarly => p.sides[from].transfer_size = rng.gen_range(1..size),
            Fault::PeerSendsMore => {
                let more = if rng.gen_bool(0.5) { rng.gen_range(1..=beat * 2) } else { rng.gen_range(1..=size) };
                // The extra bytes come at the sender's speed: keep them in the budget.
                p.sides[from].transfer_size = size + more.min(p.budget_bytes(from, to) / 2);
            }
            _ => {}
        }
    }
    p
}

impl SessionPlan {
    /// How a corruption of the stream board `to` receives counts.
    fn corrupt_kind(&self, to: usize) -> FaultKind {
        if self.sides[to].verify {
            FaultKind::Corrupt
        } else {
            FaultKind::CorruptUnverified
        }
    }

    /// The passive (listening) board.
    pub fn server(&self) -> usize {
        1 - self.client
    }

    /// Does board `b` send / receive?
    pub fn sends(&self, b: usize) -> bool {
        match self.usage {
            Use::Disabled => false,
            Use::Send { from } => from == b,
            Use::FullDuplex => true,
        }
    }

    pub fn receives(&self, b: usize) -> bool {
        match self.usage {
            Use::Disabled => false,
            Use::Send { from } => from != b,
            Use::FullDuplex => true,
        }
    }

    /// Bytes a cycle from `from` to `to`, alone on the link.
    fn direction_rate(&self, from: usize, to: usize) -> f64 {
        let beat = self.beat;
        rate(beat, self.sides[from].tx_percent).min(rate(beat, self.sides[to].rx_percent)).min(LINK_BYTES_PER_CYCLE)
    }

    /// Bytes from `from` to `to` that fit the cycle budget.
    fn budget_bytes(&self, from: usize, to: usize) -> u64 {
        (self.direction_rate(from, to) * CYCLE_BUDGET as f64) as u64
    }

    /// Keeps the transfer within the cycle budget: raises the speeds a large
    /// transfer needs, then cuts what still does not fit.
    fn fit_budget(&mut self, rng: &mut ChaCha8Rng) {
        let size = self.sides[0].transfer_size;
        for (from, to) in [(0, 1), (1, 0)] {
            if !self.sends(from) {
                continue;
            }
            let need = (size as f64 / CYCLE_BUDGET as f64 / self.beat as f64 * 100.0).ceil().min(100.0) as u8;
            if self.direction_rate(from, to) * (CYCLE_BUDGET as f64) < size as f64 {
                self.sides[from].tx_percent = self.sides[from].tx_percent.max(rng.gen_range(need..=100));
                self.sides[to].rx_percent = self.sides[to].rx_percent.max(rng.gen_range(need..=100));
            }
        }
        let mut cap = u64::MAX;
        for (from, to) in [(0, 1), (1, 0)] {
            if self.sends(from) {
                cap = cap.min(self.budget_bytes(from, to));
            }
        }
        for s in &mut self.sides {
            s.transfer_size = s.transfer_size.min(cap.max(1));
        }
    }

    /// Estimated cycles of the slower direction when `sharing` sessions
    /// share the link, plus the handshake.
    pub fn estimate(&self, sharing: usize) -> u64 {
        let mut worst = 0.0f64;
        for (from, to) in [(0, 1), (1, 0)] {
            if self.sends(from) {
                let r = self.direction_rate(from, to).min(LINK_BYTES_PER_CYCLE / sharing as f64);
                worst = worst.max(self.sides[from].transfer_size as f64 / r);
            }
        }
        worst as u64 + 1_000
    }

    /// The test board `b` programs.
    pub fn test(&self, b: usize) -> SessionTest {
        let s = &self.sides[b];
        let mode = match (self.sends(b), self.receives(b)) {
            (true, true) => Mode::FullDuplex,
            (false, true) => Mode::Receive,
            _ => Mode::Send,
        };
        SessionTest {
            mode,
            transfer_size: s.transfer_size,
            packet_size: s.packet_size,
            verify: s.verify,
            tx_percent: s.tx_percent,
            rx_percent: s.rx_percent,
            client: b == self.client,
            incremental: s.incremental,
        }
    }
}

// ---------------------------------------------------------------------------
// The reference.

/// The first-error record the verifier must hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Record {
    /// A received byte differs from the pattern: its offset and the aligned words.
    Mismatch { offset: u64, expected: u32, received: u32 },
    /// Data past the transfer size: offset = transfer size.
    Beyond { offset: u64 },
    /// The peer closed early: offset = bytes received.
    Short { offset: u64 },
}

impl Record {
    pub fn offset(&self) -> u64 {
        match *self {
            Record::Mismatch { offset, .. } | Record::Beyond { offset } | Record::Short { offset } => offset,
        }
    }
}

/// The verifier's view of the stream board `to` receives in session `p`,
/// from the pattern model: the byte the sender sent at `offset`, with the
/// plan's corruption applied.
struct Stream<'a> {
    p: &'a SessionPlan,
    to: usize,
}

impl Stream<'_> {
    fn sent(&self) -> &Side {
        &self.p.sides[1 - self.to]
    }

    fn byte(&self, offset: u64) -> u8 {
        let sent = if self.sent().incremental { pattern::byte_at(offset) } else { 0 };
        match self.p.fault {
            Fault::Corrupt { to, offset: o, xor } if to == self.to && o == offset => sent ^ xor,
            _ => sent,
        }
    }

    /// The 32-bit word at word index `w` as the verifier captures it: the
    /// received bytes, zeros past the end of the data (`n` bytes).
    fn word(&self, w: u64, n: u64) -> u32 {
        let mut b = [0u8; 4];
        for (i, x) in b.iter_mut().enumerate() {
            let o = w * 4 + i as u64;
            if o < n {
                *x = self.byte(o);
            }
        }
        u32::from_le_bytes(b)
    }

    /// The first mismatching byte in `lo..hi`, if any.
    fn first_mismatch_in(&self, lo: u64, hi: u64) -> Option<u64> {
        (lo..hi).find(|&o| self.byte(o) != pattern::byte_at(o))
    }

    /// The first-error record and `err_count` after `n` bytes were received,
    /// `short` when the session ended the transfer as short.
    fn record(&self, n: u64, short: bool) -> (Option<Record>, u32) {
        let side = &self.p.sides[self.to];
        let size = side.transfer_size;
        let beat = self.p.beat;
        let inside = n.min(size);
        // Beats with an error (a mismatch inside the transfer, or data past it).
        let mut beats = 0u64;
        let mut first: Option<u64> = None;
        if side.verify {
            if self.sent().incremental {
                if let Fault::Corrupt { to, offset, .. } = self.p.fault {
                    if to == self.to && offset < inside {
                        first = Some(offset);
                        // The beat is counted below if it also holds data past the size.
                        if (offset / beat + 1) * beat <= size || n <= size {
                            beats += 1;
                        }
                    }
                }
            } else {
                let full = size / beat;
                for k in 0..inside.div_ceil(beat) {
                    let (lo, hi) = (k * beat, ((k + 1) * beat).min(inside));
                    if let Some(o) = self.first_mismatch_in(lo, hi) {
                        first.get_or_insert(o);
                        // A beat straddling the size with data past it is counted below.
                        if k < full || n <= size {
                            beats += 1;
                        }
                    }
                }
            }
        }
        if n > size {
            beats += n.div_ceil(beat) - size / beat;
        }
        let count = beats + u64::from(short);
        let rec = match (first, n > size, short) {
            (Some(o), _, _) => {
                let w = o / 4;
                Some(Record::Mismatch { offset: o, expected: pattern::word_at(w), received: self.word(w, n) })
            }
            (None, true, _) => Some(Record::Beyond { offset: size }),
            (None, false, true) => Some(Record::Short { offset: n }),
            (None, false, false) => None,
        };
        (rec, count.min(u64::from(u32::MAX)) as u32)
    }
}

/// What a side must end with when the plan determines it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expect {
    /// `None`: never started (or test mode disabled): idle, no `done`, no `error`.
    pub cause: Option<ErrorCause>,
    pub tx: u64,
    pub rx: u64,
    pub closed: bool,
}

/// The outcome of side `b` of session `p` with no abort (exact), given
/// whether board `b`'s server side was left listening and aborted by the soak.
pub fn expect(round: &Round, p: &SessionPlan, b: usize) -> Expect {
    let idle = Expect { cause: None, tx: 0, rx: 0, closed: false };
    if p.usage == Use::Disabled {
        return idle;
    }
    let refused = Expect { cause: Some(ErrorCause::Refused), tx: 0, rx: 0, closed: false };
    if p.fault == Fault::NobodyListening {
        return if b == p.client { refused } else { idle };
    }
    if round.silent == Some(p.server()) {
        return if b == p.client {
            refused
        } else {
            // Still listening when the clients gave up: the soak aborts it.
            Expect { cause: Some(ErrorCause::Aborted), ..refused }
        };
    }
    let tx = if p.sends(b) { p.sides[b].transfer_size } else { 0 };
    let rx = if p.receives(b) { p.sides[1 - b].transfer_size } else { 0 };
    let cause = if p.receives(b) {
        let expected = p.sides[b].transfer_size;
        if rx < expected {
            ErrorCause::PeerClosed
        } else {
            match (Stream { p, to: b }).record(rx, false).0 {
                Some(Record::Mismatch { .. }) => ErrorCause::Verify,
                Some(Record::Beyond { .. }) => ErrorCause::BeyondSize,
                Some(Record::Short { .. }) => unreachable!("not short"),
                None => ErrorCause::None,
            }
        }
    } else {
        ErrorCause::None
    };
    Expect { cause: Some(cause), tx, rx, closed: true }
}

// ---------------------------------------------------------------------------
// Running a plan.

/// What the TOE model saw of one side, for the invariants.
#[derive(Clone, Copy, Debug, Default)]
pub struct ToeView {
    /// Bytes the side's user logic took on RX.
    pub taken: u64,
    /// Bytes the side sent (taken on TX).
    pub sent: u64,
}

/// One iteration's outcome.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    pub seed: u64,
    pub cycles: u64,
    /// Bytes taken on TX by every session of both boards.
    pub bytes: u64,
    pub injected: Vec<FaultKind>,
    /// Faults whose effect the hardware reported as the reference says
    /// (a detected error with the right record, or no effect for a fault
    /// that must have none).
    pub handled: Vec<FaultKind>,
    /// Sessions that reported an error where the reference says `done`.
    pub false_alarms: u64,
    /// Sessions still busy after their bound.
    pub hangs: u64,
    /// What differs from the reference, one line each.
    pub problems: Vec<String>,
}

/// A timed action after the clients started.
#[derive(Clone, Copy, Debug)]
enum Action {
    Abort { b: usize, s: usize },
    StartWhileBusy { b: usize, s: usize },
}

/// The model of the width matrix named `name`.
pub fn model(name: &str) -> ModelInfo {
    *TOP_MODELS.iter().find(|m| m.name == name).unwrap_or_else(|| panic!("no top model {name}"))
}

/// Runs `plan` on two fresh boards of its model and checks every session.
pub fn run(plan: &Plan) -> Outcome {
    let mut out = Outcome { seed: plan.seed, injected: plan.faults(), ..Outcome::default() };
    let info = model(plan.model);
    let toe = ToeConfig { conn_req_ready_delay: plan.conn_req_ready_delay, ..quick_toe(info.beat_bytes()) };
    let mut sim = TwoBoardSim::with_timing(&(info.top)(), plan.seed, LinkConfig::default(), toe, plan.timing);
    for b in 0..2 {
        sim.init_toe(b, plan.window_update_gap, plan.last_packet_mode);
    }
    // What the registers read after the round before (the reset values first).
    let mut prev = vec![[SessionResult::default(); 2]; info.sessions];
    for (k, round) in plan.rounds.iter().enumerate() {
        let before = out.problems.len();
        prev = run_round(&mut sim, plan, round, &prev, &mut out);
        for p in &mut out.problems[before..] {
            *p = format!("round {k}: {p}");
        }
        // A corruption this round's data never reached must not hit the
        // next round; the silent TOE speaks again.
        for s in 0..info.sessions {
            for b in 0..2 {
                sim.toe.clear_corruptions(b, s);
            }
        }
        for b in 0..2 {
            sim.toe.set_silent(b, false);
        }
    }
    out.cycles = sim.cycles();
    out
}

/// Runs one round on `sim` and checks it; `prev` are the registers after the
/// round before. Returns the registers after this round.
fn run_round(
    sim: &mut TwoBoardSim,
    plan: &Plan,
    round: &Round,
    prev: &[[SessionResult; 2]],
    out: &mut Outcome,
) -> Vec<[SessionResult; 2]> {
    out.injected.extend(round.faults());
    let info = model(plan.model);
    let beat = info.beat_bytes() as u64;
    let seen = sim.toe.violations().len();
    let disabled = regs::session::test_config::TEST_MODE.word(0).expect("0 is a test mode");
    for p in &round.sessions {
        for b in 0..2 {
            sim.program(b, p.session, &p.test(b));
            if p.usage == Use::Disabled {
                sim.write(b, regs::session(p.session).expect("session").test_config(), disabled);
            }
            let (fpga, target) = demo::ports(b, p.session);
            sim.ports(b, p.session, fpga, target);
        }
        if let Fault::Corrupt { to, offset, xor } = p.fault {
            sim.toe.corrupt(to, p.session, offset, xor);
        }
    }
    if let Some(b) = round.silent {
        sim.toe.set_silent(b, true);
    }
    // Servers listen first (a disabled session is started on both boards).
    for p in &round.sessions {
        let server = p.server();
        if p.fault != Fault::NobodyListening {
            sim.start(server, p.session);
        }
        if p.usage == Use::Disabled {
            sim.start(p.client, p.session);
        }
    }
    // Sessions that got their second `start`.
    let mut started_twice = Vec::new();
    for p in &round.sessions {
        if let Fault::StartWhileBusy { board, at: None } = p.fault {
            start_raw(sim, board, p.session);
            started_twice.push(p.session);
        }
    }
    // The listen requests are taken after the TOE's ready delay.
    sim.run(plan.conn_req_ready_delay + 200);
    for p in &round.sessions {
        if p.usage != Use::Disabled {
            sim.start(p.client, p.session);
        }
    }
    let t0 = sim.cycles();
    let mut actions: Vec<(u64, Action)> = Vec::new();
    for p in &round.sessions {
        match p.fault {
            Fault::Abort { board, at } => actions.push((at, Action::Abort { b: board, s: p.session })),
            Fault::StartWhileBusy { board, at: Some(at) } => {
                actions.push((at, Action::StartWhileBusy { b: board, s: p.session }))
            }
            _ => {}
        }
    }
    actions.sort_by_key(|a| a.0);
    for (at, action) in actions {
        let now = sim.cycles() - t0;
        if at > now {
            sim.run(at - now);
        }
        match action {
            Action::Abort { b, s } => sim.abort(b, s),
            Action::StartWhileBusy { b, s } => {
                // Only while the side is sure to stay busy until the write
                // lands: a good part of its data still to come.
                let p = &round.sessions[s];
                let left = p.sides[b].transfer_size.saturating_sub(sim.toe.rx_taken(b, s));
                if left > beat * 2_000 {
                    start_raw(sim, b, s);
                    started_twice.push(s);
                } else if let Some(i) = out.injected.iter().position(|k| *k == FaultKind::StartWhileBusy) {
                    // Too late to be sure the session is still busy: not injected.
                    out.injected.remove(i);
                }
            }
        }
    }
    // Phase 1: every session that must end on its own.
    let mut first = Vec::new();
    let mut maybe_listening = Vec::new();
    for p in &round.sessions {
        if p.usage == Use::Disabled {
            continue;
        }
        let client_aborted = matches!(p.fault, Fault::Abort { board, .. } if board == p.client);
        for b in 0..2 {
            let server = b == p.server();
            if server && p.fault == Fault::NobodyListening {
                continue;
            }
            if server && (round.silent == Some(b) || client_aborted) {
                maybe_listening.push((b, p.session));
            } else {
                first.push((b, p.session));
            }
        }
    }
    let bound = 3 * round.longest() + QUICK_SYN_TIMEOUT + 4 * plan.conn_req_ready_delay + 50_000;
    let mut hung: Vec<(usize, usize)> = Vec::new();
    if !sim.wait_idle(&first, 500, bound) {
        hung.extend(still_busy(sim, &first));
    }
    // Phase 2: a server whose client gave up (silent TOE, abort during the
    // handshake) goes on listening: the soak aborts it. Any other server
    // must end by itself.
    let mut aborted_by_soak = Vec::new();
    if !maybe_listening.is_empty() {
        sim.run(2_000);
        for &(b, s) in &maybe_listening {
            let r = sim.result(b, s);
            if r.busy && !r.connected && r.tx_bytes == 0 && r.rx_bytes == 0 {
                sim.abort(b, s);
                aborted_by_soak.push((b, s));
            }
        }
        if !sim.wait_idle(&maybe_listening, 500, bound) {
            hung.extend(still_busy(sim, &maybe_listening));
        }
    }
    // Bytes still on the link or in a TOE's receive buffer reach sessions
    // that are idle already (an aborted receiver goes on taking what its
    // peer sent): let them land, so the counters and the TOE agree.
    let settle = 2 * bound;
    let end = sim.cycles() + settle;
    loop {
        sim.run(4_000);
        let buffered: usize =
            (0..2).flat_map(|b| (0..info.sessions).map(move |s| (b, s))).map(|(b, s)| sim.toe.rx_buffered(b, s)).sum();
        if buffered == 0 {
            break;
        }
        if sim.cycles() >= end {
            out.problems
                .push(format!("{buffered} received bytes still wait in the TOEs {settle} cycles after the end"));
            break;
        }
    }
    out.hangs += hung.len() as u64;
    for (b, s) in &hung {
        out.problems.push(format!("hang: board {b} session {s} still busy after {bound} cycles"));
    }
    let results: Vec<[SessionResult; 2]> =
        round.sessions.iter().map(|p| [sim.result(0, p.session), sim.result(1, p.session)]).collect();
    for v in sim.toe.violations().iter().skip(seen) {
        out.problems.push(format!("TOE interface violation: {v}"));
    }
    let cycles = sim.cycles();
    for (p, results) in round.sessions.iter().zip(&results) {
        let views =
            [0, 1].map(|b| ToeView { taken: sim.toe.rx_taken(b, p.session), sent: sim.toe.tx_sent(b, p.session) });
        let aborted = [0, 1].map(|b| aborted_by_soak.contains(&(b, p.session)));
        let twice = started_twice.contains(&p.session);
        check_session(round, p, results, &prev[p.session], &views, aborted, twice, cycles, out);
    }
    results
}

/// Writes `ctrl.start` alone (no clearing of `done`/`error`): the second
/// start of the fault "start while busy".
fn start_raw(sim: &mut TwoBoardSim, b: usize, s: usize) {
    let start = regs::session::ctrl::START.word(1).expect("1 bit");
    sim.write(b, regs::session(s).expect("session").ctrl(), start);
}

fn still_busy(sim: &mut TwoBoardSim, list: &[(usize, usize)]) -> Vec<(usize, usize)> {
    list.iter().copied().filter(|&(b, s)| sim.result(b, s).busy).collect()
}

fn cause_name(c: Option<ErrorCause>) -> &'static str {
    c.map_or("(not started)", |c| if c == ErrorCause::None { "done" } else { c.name() })
}

/// The cause a result shows: `None` for a side that shows neither `done` nor `error`.
fn shown(r: &SessionResult) -> Option<ErrorCause> {
    match (r.done, r.error) {
        (false, false) => None,
        (true, false) => Some(ErrorCause::None),
        _ => Some(ErrorCause::from_bits(r.error_cause).unwrap_or(ErrorCause::None)),
    }
}

/// Checks both sides of session `p` against the reference; adds problems
/// and figures to `out`.
#[allow(clippy::too_many_arguments)]
fn check_session(
    round: &Round,
    p: &SessionPlan,
    results: &[SessionResult; 2],
    prev: &[SessionResult; 2],
    views: &[ToeView; 2],
    aborted_by_soak: [bool; 2],
    started_twice: bool,
    cycles: u64,
    out: &mut Outcome,
) {
    let s = p.session;
    let mut problems = Vec::new();
    // An abort that reached a running session makes the outcome depend on
    // timing; one written after its session ended must change nothing, so
    // the session is then checked exactly.
    let abort = match p.fault {
        Fault::Abort { board, .. } if shown(&results[board]) == Some(ErrorCause::Aborted) => Some(board),
        _ => None,
    };
    for b in 0..2 {
        let r = &results[b];
        let v = &views[b];
        let peer = &views[1 - b];
        let mut fail = |what: String| problems.push(format!("board {b} session {s}: {what}; read {r:?}"));
        if r.busy {
            continue; // reported as a hang
        }
        let got = shown(r);
        let exact = expect(round, p, b);
        if exact.cause.is_none() {
            // Never started (or disabled): the registers read as after the
            // round before, but for `done`/`error` (and so `error_cause`),
            // which the start of a disabled session clears.
            let mut want = prev[b];
            if p.usage == Use::Disabled {
                (want.done, want.error, want.error_cause) = (false, false, 0);
            }
            want.connected = r.connected;
            if *r != want {
                fail(format!("a session that was not started changed: it read {want:?}"));
            }
            continue;
        }
        out.bytes += r.tx_bytes;
        // Counters against the TOE model: exact for every side that ran.
        if r.tx_bytes != v.sent {
            fail(format!("tx_bytes {} but the TOE took {} bytes", r.tx_bytes, v.sent));
        }
        if r.rx_bytes != v.taken {
            fail(format!("rx_bytes {} but the TOE delivered {} bytes", r.rx_bytes, v.taken));
        }
        if v.taken > peer.sent {
            fail(format!("received {} bytes, the peer sent only {}", v.taken, peer.sent));
        }
        let loose = abort.is_some();
        if !loose {
            if got != exact.cause {
                fail(format!("ended {}, expected {}", cause_name(got), cause_name(exact.cause)));
                if exact.cause == Some(ErrorCause::None) && got.is_some() {
                    out.false_alarms += 1;
                }
            }
            if (r.tx_bytes, r.rx_bytes) != (exact.tx, exact.rx) {
                fail(format!("tx/rx bytes ({}, {}), expected ({}, {})", r.tx_bytes, r.rx_bytes, exact.tx, exact.rx));
            }
            if r.closed != exact.closed {
                fail(format!("closed {}, expected {}", r.closed, exact.closed));
            }
        } else {
            // An abort at a random cycle: the ends a side can see, and the invariants.
            // `refused`: the open failed (the aborted side cancelled it);
            // `conn_reset`: the connection was reset once open (the aborted side
            // cancelled a half-open one, or started again before its peer
            // closed).
            let mut allowed = vec![exact.cause, Some(ErrorCause::None), Some(ErrorCause::PeerClosed)];
            allowed.extend([Some(ErrorCause::Refused), Some(ErrorCause::ConnReset)]);
            if abort == Some(b) || aborted_by_soak[b] {
                allowed.push(Some(ErrorCause::Aborted));
            }
            if p.receives(b) {
                allowed.push(Some(ErrorCause::Verify));
            }
            if !allowed.contains(&got) {
                fail(format!("ended {} after an abort on board {abort:?}", cause_name(got)));
            }
            if got == Some(ErrorCause::None) && (r.tx_bytes, r.rx_bytes) != (exact.tx, exact.rx) {
                fail(format!(
                    "done with tx/rx bytes ({}, {}), expected ({}, {})",
                    r.tx_bytes, r.rx_bytes, exact.tx, exact.rx
                ));
            }
            if r.tx_bytes > exact.tx || r.rx_bytes > exact.rx {
                fail(format!(
                    "tx/rx bytes ({}, {}) above the sizes ({}, {})",
                    r.tx_bytes, r.rx_bytes, exact.tx, exact.rx
                ));
            }
            if got == Some(ErrorCause::PeerClosed) && !(p.receives(b) && r.rx_bytes < exact.rx) {
                fail("peer_closed without a short transfer".into());
            }
        }
        // The first-error record, from the pattern model and the bytes received.
        if p.receives(b) && got.is_some() {
            let short = got == Some(ErrorCause::PeerClosed);
            let (rec, count) = Stream { p, to: b }.record(r.rx_bytes, short);
            if loose && got == Some(ErrorCause::Verify) && !matches!(rec, Some(Record::Mismatch { .. })) {
                fail("verify without a mismatch in the bytes received".into());
            }
            if r.err_count != count {
                fail(format!("err_count {}, expected {count} (record {rec:?})", r.err_count));
            }
            match rec {
                None => {
                    if r.err_offset != 0 {
                        fail(format!("err_offset {} with no error expected", r.err_offset));
                    }
                }
                Some(Record::Mismatch { offset, expected, received }) => {
                    if (r.err_offset, r.err_expected, r.err_received) != (offset, expected, received) {
                        fail(format!(
                            "first error at {} expected {:#010x} received {:#010x}; the model says {offset} {expected:#010x} {received:#010x}",
                            r.err_offset, r.err_expected, r.err_received
                        ));
                    }
                }
                Some(rec) => {
                    if r.err_offset != rec.offset() {
                        fail(format!("err_offset {}, expected {rec:?}", r.err_offset));
                    }
                }
            }
        }
        if !p.receives(b) && (r.err_count, r.err_offset) != (0, 0) {
            fail("an error record on a side that receives nothing".into());
        }
        if got == Some(ErrorCause::None) && p.usage != Use::Disabled {
            let (fpga, _) = demo::ports(1 - b, s);
            if (r.peer_port, r.peer_mss, r.peer_window_scale) != (u32::from(fpga), 8948, 5) {
                fail(format!("peer port/MSS/window scale {} {} {}", r.peer_port, r.peer_mss, r.peer_window_scale));
            }
            // At most a beat a cycle moves each way, and the timer runs
            // inside the simulation.
            let beats = r.tx_bytes.max(r.rx_bytes).div_ceil(p.beat);
            if r.elapsed == 0 || r.elapsed + 2 < beats || r.elapsed > cycles {
                fail(format!("done with elapsed {} for {beats} beats in {cycles} cycles", r.elapsed));
            }
        }
        // `refused` is an open that failed, so the timer (which starts at
        // `established`) never ran; a reset once open is `conn_reset`.
        if got == Some(ErrorCause::Refused) && r.elapsed != 0 {
            fail(format!("refused with elapsed {}: a reset once established must be `conn_reset`", r.elapsed));
        }
    }
    // Figures: a fault handled as the reference says.
    if problems.is_empty() {
        let kind = match p.fault {
            Fault::Corrupt { to, .. } => Some(p.corrupt_kind(to)),
            Fault::PeerClosesEarly => Some(FaultKind::PeerClosesEarly),
            Fault::PeerSendsMore => Some(FaultKind::PeerSendsMore),
            Fault::NobodyListening => Some(FaultKind::NobodyListening),
            Fault::Abort { board, .. } if shown(&results[board]) == Some(ErrorCause::Aborted) => Some(FaultKind::Abort),
            Fault::Abort { .. } => {
                // Too late: counted as its own kind, which must change nothing.
                if let Some(i) = out.injected.iter().position(|k| *k == FaultKind::Abort) {
                    out.injected[i] = FaultKind::AbortAfterEnd;
                }
                Some(FaultKind::AbortAfterEnd)
            }
            Fault::StartWhileBusy { .. } if started_twice => Some(FaultKind::StartWhileBusy),
            _ => None,
        };
        out.handled.extend(kind);
        if round.silent == Some(p.server()) && p.usage != Use::Disabled && p.fault != Fault::NobodyListening {
            out.handled.push(FaultKind::SilentPeer);
        }
    }
    if !problems.is_empty() {
        problems
            .push(format!("session {s} both sides: board 0 {:?}; board 1 {:?}; TOE {views:?}", results[0], results[1]));
    }
    out.problems.extend(problems);
}

// ---------------------------------------------------------------------------
// Many iterations.

/// Figures over a run of iterations.
#[derive(Clone, Debug, Default)]
pub struct Figures {
    pub iterations: u64,
    pub cycles: u64,
    pub bytes: u64,
    pub injected: BTreeMap<FaultKind, u64>,
    pub handled: BTreeMap<FaultKind, u64>,
    pub false_alarms: u64,
    pub hangs: u64,
    /// Seeds of the iterations that failed.
    pub failed: Vec<u64>,
}

impl Figures {
    pub fn add(&mut self, o: &Outcome, plan_faults_ok: bool) {
        self.iterations += 1;
        self.cycles += o.cycles;
        self.bytes += o.bytes;
        for k in &o.injected {
            *self.injected.entry(*k).or_default() += 1;
        }
        // Global faults (bus, ready delay) are handled when the iteration passed.
        let mut handled = o.handled.clone();
        if plan_faults_ok {
            handled
                .extend(o.injected.iter().filter(|k| matches!(k, FaultKind::SlowBus | FaultKind::ConnReqReadyDelay)));
        }
        for k in handled {
            *self.handled.entry(k).or_default() += 1;
        }
        self.false_alarms += o.false_alarms;
        self.hangs += o.hangs;
        if !o.problems.is_empty() {
            self.failed.push(o.seed);
        }
    }
}

impl fmt::Display for Figures {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "soak: {} iterations, {} user cycles of two boards, {} bytes moved",
            self.iterations, self.cycles, self.bytes
        )?;
        writeln!(f, "  fault                      injected  handled as the reference says")?;
        for (k, n) in &self.injected {
            writeln!(f, "  {:<26} {:>8}  {:>8}", k.to_string(), n, self.handled.get(k).copied().unwrap_or(0))?;
        }
        let injected: u64 = self.injected.values().sum();
        let handled: u64 = self.handled.values().sum();
        writeln!(f, "  {:<26} {:>8}  {:>8}", "total", injected, handled)?;
        writeln!(
            f,
            "  false alarms {}, hangs {}, failed iterations {}",
            self.false_alarms,
            self.hangs,
            self.failed.len()
        )?;
        if !self.failed.is_empty() {
            let seeds: Vec<String> = self.failed.iter().map(|s| s.to_string()).collect();
            writeln!(f, "  failed seeds: {} (replay one: TB_SEED=<seed> make soak)", seeds.join(", "))?;
        }
        Ok(())
    }
}

/// The seed of the iteration after the one of `seed`.
pub fn next_seed(seed: u64) -> u64 {
    ChaCha8Rng::seed_from_u64(seed ^ 0x50a4_50a4_50a4_50a4).gen()
}

/// Runs `iterations` iterations from `seed`; prints each failing
/// iteration's seed, plan and problems, and returns the figures.
pub fn soak(seed: u64, iterations: u64) -> Figures {
    let mut figures = Figures::default();
    let mut s = seed;
    for i in 0..iterations {
        let plan = Plan::draw(s);
        // A panic (a register access that never completes, say) is a
        // failure of this iteration, reported with its seed and plan.
        let o = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&plan))).unwrap_or_else(|e| {
            let what = e
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| e.downcast_ref::<&str>().copied())
                .unwrap_or("(no message)");
            Outcome {
                seed: s,
                injected: plan.faults(),
                problems: vec![format!("panicked: {what}")],
                ..Outcome::default()
            }
        });
        let ok = o.problems.is_empty();
        figures.add(&o, ok);
        if !ok {
            eprintln!("soak iteration {i}: seed {s} FAILED (replay: TB_SEED={s} make soak)");
            eprintln!("plan: {plan:#?}");
            for p in &o.problems {
                eprintln!("  {p}");
            }
        } else {
            eprintln!(
                "soak iteration {i}: seed {s} ok, {}, {} cycles, {} bytes, faults {:?}",
                plan.model, o.cycles, o.bytes, o.injected
            );
        }
        s = next_seed(s);
    }
    figures
}

#[cfg(test)]
mod tests {
    use super::*;

    fn half(size_tx: u64, size_rx: u64, fault: Fault, verify: bool, incremental: bool) -> SessionPlan {
        let side =
            |size| Side { transfer_size: size, packet_size: 0, tx_percent: 100, rx_percent: 100, verify, incremental };
        SessionPlan {
            session: 0,
            beat: 128,
            usage: Use::Send { from: 1 },
            client: 1,
            sides: [side(size_rx), side(size_tx)],
            fault,
        }
    }

    #[test]
    fn the_record_of_a_corrupted_byte_is_its_word() {
        let p = half(1 << 20, 1 << 20, Fault::Corrupt { to: 0, offset: 777_777, xor: 0x40 }, true, true);
        let (rec, count) = Stream { p: &p, to: 0 }.record(1 << 20, false);
        let expected = pattern::word_at(777_777 / 4);
        assert_eq!(rec, Some(Record::Mismatch { offset: 777_777, expected, received: expected ^ (0x40 << 8) }));
        assert_eq!(count, 1);
        // Verification off: nothing to see.
        let p = half(1 << 20, 1 << 20, Fault::Corrupt { to: 0, offset: 5, xor: 1 }, false, true);
        assert_eq!(Stream { p: &p, to: 0 }.record(1 << 20, false), (None, 0));
    }

    #[test]
    fn dummy_data_differs_from_word_1_on_and_every_beat_counts() {
        let p = half(1000, 1000, Fault::None, true, false);
        let (rec, count) = Stream { p: &p, to: 0 }.record(1000, false);
        assert_eq!(rec, Some(Record::Mismatch { offset: 4, expected: 1, received: 0 }));
        assert_eq!(count, 8, "1000 bytes are 8 beats of 128, each with a non-zero word");
        // Four zero bytes are the pattern's word 0.
        let p = half(4, 4, Fault::None, true, false);
        assert_eq!(Stream { p: &p, to: 0 }.record(4, false), (None, 0));
    }

    #[test]
    fn short_and_beyond_records() {
        let p = half(300, 1000, Fault::PeerClosesEarly, true, true);
        assert_eq!(Stream { p: &p, to: 0 }.record(300, true), (Some(Record::Short { offset: 300 }), 1));
        let p = half(1000, 300, Fault::PeerSendsMore, true, true);
        // Beats 2..7 hold data past 300 (beat 2 straddles it).
        assert_eq!(Stream { p: &p, to: 0 }.record(1000, false), (Some(Record::Beyond { offset: 300 }), 6));
        let mut plan = Plan::draw(1);
        plan.rounds[0].silent = None;
        let e = expect(&plan.rounds[0], &p, 0);
        assert_eq!((e.cause, e.rx), (Some(ErrorCause::BeyondSize), 1000));
    }

    #[test]
    fn plans_stay_in_the_cycle_budget_and_replay() {
        let mut seed = 7;
        for _ in 0..500 {
            let plan = Plan::draw(seed);
            assert_eq!(format!("{plan:?}"), format!("{:?}", Plan::draw(seed)), "a seed draws one plan");
            for p in plan.rounds.iter().flat_map(|r| &r.sessions) {
                assert!(p.estimate(1) <= CYCLE_BUDGET * 2 + 1_000, "{p:?}: {} cycles", p.estimate(1));
                assert!(p.sides.iter().all(|s| s.transfer_size >= 1 && (1..=100).contains(&s.tx_percent)));
            }
            seed = next_seed(seed);
        }
    }
}
