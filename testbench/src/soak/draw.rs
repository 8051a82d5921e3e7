//! Drawing a plan from a seed, with its sizes bounded by the cycle budget.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::plan::{Fault, FaultKind, Plan, Round, SessionPlan, Side, Use, CYCLE_BUDGET, DEFAULT_MODEL, ROUNDS};
use super::run::model;
use crate::axil::Timing;
use crate::boards::{BoardTiming, Mode, SessionTest, USER_PS};
use crate::models::{ModelInfo, TOP_MODELS};

/// The link's payload bytes per cycle (200G at 250 MHz, `LinkConfig::default`).
const LINK_BYTES_PER_CYCLE: f64 = 99.0;
/// Receive buffer of the model's TOE sessions (`ToeConfig::new`'s default):
/// a transfer no larger than this never waits for a window update.
const RX_BUFFER: u64 = 1 << 20;

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
        let tx_prefix: [u8; 64] = std::array::from_fn(|_| rng.gen());
        let mut rounds = rounds;
        for p in rounds.iter_mut().flat_map(|r| &mut r.sessions) {
            p.tx_prefix = tx_prefix;
        }
        Plan {
            seed,
            model: model.name,
            window_update_gap,
            last_packet_mode,
            timing,
            conn_req_ready_delay,
            tx_prefix,
            rounds,
        }
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
            v.extend(p.open_kind(self.silent));
            v.extend(p.prefix_kind(self.silent));
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
            duration: 0,
            stop_at: None,
            prefix_length: 0,
        }
    });
    // One size for both ends of the connection.
    sides[1].transfer_size = sides[0].transfer_size;
    let open = usage != Use::Disabled && rng.gen_bool(0.15);
    // A send begins with the TX prefix now and then: up to the whole bank,
    // which spans eight beats of the 64-bit model.
    for side in &mut sides {
        if rng.gen_bool(0.15) {
            side.prefix_length = rng.gen_range(1..=64);
        }
    }
    let mut p = SessionPlan { session, beat, usage, client, sides, fault: Fault::None, open, tx_prefix: [0; 64] };
    if open {
        // Each send ends at a duration or at a stop the soak writes, within
        // half the budget (the two sends may share the link).
        for side in &mut p.sides {
            if rng.gen_bool(0.5) {
                side.duration = rng.gen_range(1..=CYCLE_BUDGET / 2);
            } else {
                side.stop_at = Some(rng.gen_range(0..=CYCLE_BUDGET / 2));
            }
        }
        // A receiver slower than its sender would leave up to the TOE's
        // receive buffer (1 MiB) to drain after the send ends, far beyond
        // the budget at a few percent: open-ended, each receiver keeps up.
        for (from, to) in [(0, 1), (1, 0)] {
            if p.sends(from) {
                p.sides[to].rx_percent = p.sides[to].rx_percent.max(p.sides[from].tx_percent);
            }
        }
        // Faults that need a size (or an abort, whose bounds do) are left out.
        p.fault = match rng.gen_range(0..8) {
            0 => Fault::Corrupt {
                to: rng.gen_range(0..2),
                offset: rng.gen_range(0..1 << 20),
                xor: rng.gen_range(1..=255),
            },
            1 => Fault::NobodyListening,
            2 => Fault::StartWhileBusy { board: 1 - client, at: None },
            _ => Fault::None,
        };
        if let (Use::Send { from }, Fault::Corrupt { to, .. }) = (usage, &mut p.fault) {
            *to = 1 - from;
        }
        return p;
    }
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
    pub(super) fn corrupt_kind(&self, to: usize) -> FaultKind {
        if self.sides[to].verify {
            FaultKind::Corrupt
        } else {
            FaultKind::CorruptUnverified
        }
    }

    /// What an open-ended session counts as in the figures, when it ran (a
    /// refused one, nobody listening or a silent server, does not count).
    pub(super) fn open_kind(&self, silent: Option<usize>) -> Option<FaultKind> {
        if !self.open || self.fault == Fault::NobodyListening || silent == Some(self.server()) {
            return None;
        }
        let stopped = self.sides.iter().enumerate().any(|(b, s)| self.sends(b) && s.stop_at.is_some());
        Some(if stopped { FaultKind::OpenEndedStop } else { FaultKind::OpenEndedDuration })
    }

    /// A session whose data flows with a TX prefix counts once in the figures.
    pub(super) fn prefix_kind(&self, silent: Option<usize>) -> Option<FaultKind> {
        let refused = self.fault == Fault::NobodyListening || silent == Some(self.server());
        let prefixed = (0..2).any(|b| self.sends(b) && self.sides[b].prefix_length > 0);
        (prefixed && !refused).then_some(FaultKind::TxPrefix)
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
    /// share the link, plus the handshake; open-ended, the latest end of a
    /// send.
    pub fn estimate(&self, sharing: usize) -> u64 {
        if self.open {
            let end = |s: &Side| s.stop_at.unwrap_or(s.duration);
            return self.sides.iter().map(end).max().unwrap_or(0) + 1_000;
        }
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
            open_ended: self.open,
            duration: s.duration,
            prefix_length: s.prefix_length,
            prefix_only: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::next_seed;
    use super::*;

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
