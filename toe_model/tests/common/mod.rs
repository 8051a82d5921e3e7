//! Test-side "ideal user logic" for the TOE model: per session a sender that
//! presents the incremental pattern and a receiver that checks it, plus a
//! bench that steps both boards the way the verilator glue does.

#![allow(dead_code)]

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use toe_model::{GlobalOutputs, LinkConfig, SessionInputs, SessionOutputs, ToeConfig, TwoBoards};

/// A generator seeded from `TB_SEED` if set, else a fixed default; the seed is
/// printed so a failing run can be replayed.
pub fn rng(what: &str) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seeded_inputs::seed::from_env_or(what, seeded_inputs::seed::Unset::Fixed(0x70E_5EED)))
}

/// How the receiver sets `rx_tready`.
#[derive(Clone, Copy, Debug, Default)]
pub enum RxRate {
    /// Always ready.
    #[default]
    Full,
    /// Token bucket: `num / den` bytes per cycle, a beat costs `beat_bytes`
    /// (tokens capped at one beat, so no burst builds up).
    Rate { num: u64, den: u64 },
    /// Ready with this probability each cycle.
    Random(f64),
    /// Never ready.
    Never,
}

/// What one session's user logic does.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// Cycle at which the open request is presented.
    pub open_at: Option<u64>,
    /// Active (client) or passive (server) open.
    pub active: bool,
    pub local_port: u16,
    pub remote_port: u16,
    /// Bytes to send once established (0: no TX).
    pub tx_bytes: u64,
    /// Probability of a gap (tvalid low) before each new beat.
    pub tx_gap: f64,
    /// Request the close this many cycles after the last TX beat was taken.
    pub close_after_tx: Option<u64>,
    /// Request the close when `peer_closed` rises.
    pub close_on_peer_closed: bool,
    /// Request the close at this cycle.
    pub close_at: Option<u64>,
    pub rx: RxRate,
}

/// One session's ideal user logic and what it observed.
#[derive(Debug, Default)]
pub struct User {
    pub plan: Plan,
    pub beat: usize,
    /// The request presented (open?, active?) until taken.
    req: Option<bool>,
    pub close_requested: bool,
    pub close_taken_at: Option<u64>,
    // TX
    holding: bool,
    pub tx_off: u64,
    pub tx_first_at: Option<u64>,
    pub tx_done_at: Option<u64>,
    // RX
    tokens: u64,
    pub rx_off: u64,
    pub rx_first_at: Option<u64>,
    pub rx_last_at: Option<u64>,
    /// Stream offsets of every wrong byte received.
    pub mismatches: Vec<u64>,
    /// (cycle, length, tlast) of every partial RX beat.
    pub partial_beats: Vec<(u64, usize, bool)>,
    /// RX beats with tlast.
    pub rx_tlasts: u64,
    // status
    pub established_at: Option<u64>,
    pub established_fell_at: Option<u64>,
    pub error_at: Option<u64>,
    pub peer_closed_at: Option<u64>,
    /// rx_off when peer_closed was first seen.
    pub rx_at_peer_closed: u64,
    pub peer: (u16, u16, u8),
    /// rx_tvalid was seen high while peer_closed was high.
    pub rx_after_peer_closed: bool,
    pub inp: SessionInputs,
    pub out: SessionOutputs,
}

impl User {
    fn new(plan: Plan, beat: usize) -> Self {
        Self {
            plan,
            beat,
            out: SessionOutputs { tx_data: Vec::with_capacity(beat), ..Default::default() },
            ..Default::default()
        }
    }

    /// Registered state -> outputs for this cycle (before drive). Returns tvalid.
    fn prepare(&mut self, cycle: u64, rng: &mut ChaCha8Rng) -> bool {
        let p = &self.plan;
        if self.req.is_none() {
            if p.open_at == Some(cycle) {
                self.req = Some(true);
            } else if !self.close_requested
                && (p.close_at == Some(cycle)
                    || (p.close_after_tx.is_some_and(|d| self.tx_done_at.is_some_and(|t| cycle == t + 1 + d)))
                    || (p.close_on_peer_closed && self.peer_closed_at.is_some()))
            {
                self.req = Some(false);
                self.close_requested = true;
            }
        }
        let o = &mut self.out;
        o.conn_req_valid = self.req.is_some();
        o.conn_req_open = self.req == Some(true);
        o.conn_req_active = p.active;
        o.conn_req_local_port = p.local_port;
        o.conn_req_remote_port = p.remote_port;
        let may_send = self.established_at.is_some()
            && self.established_fell_at.is_none()
            && !self.close_requested
            && self.tx_off < p.tx_bytes;
        if !self.holding && may_send && (p.tx_gap <= 0.0 || rng.gen::<f64>() >= p.tx_gap) {
            self.holding = true;
            let len = (p.tx_bytes - self.tx_off).min(self.beat as u64) as usize;
            o.tx_data.resize(len, 0);
            pattern::fill(&mut o.tx_data, self.tx_off);
            o.tx_tlast = self.tx_off + len as u64 == p.tx_bytes;
        }
        o.tx_tvalid = self.holding;
        if !self.holding {
            o.tx_data.clear();
            o.tx_tlast = false;
        }
        o.rx_tready = match p.rx {
            RxRate::Full => true,
            RxRate::Never => false,
            RxRate::Random(q) => rng.gen::<f64>() < q,
            RxRate::Rate { num, den } => {
                let cap = self.beat as u64 * den;
                self.tokens = (self.tokens + num).min(cap);
                self.tokens >= cap
            }
        };
        self.holding
    }

    /// The edge: handshakes with the inputs `inp` the model drove.
    fn after_edge(&mut self, cycle: u64) {
        let (inp, o) = (&self.inp, &self.out);
        if o.conn_req_valid && inp.conn_req_ready {
            if self.req == Some(false) {
                self.close_taken_at = Some(cycle);
            }
            self.req = None;
        }
        if o.tx_tvalid && inp.tx_tready {
            self.tx_first_at.get_or_insert(cycle);
            self.tx_off += o.tx_data.len() as u64;
            self.holding = false;
            if self.tx_off == self.plan.tx_bytes {
                self.tx_done_at = Some(cycle);
            }
        }
        if inp.rx_tvalid && o.rx_tready {
            let d = &inp.rx_data;
            assert!(!d.is_empty() && d.len() <= self.beat, "rx beat of {} bytes", d.len());
            if pattern::first_mismatch(d, self.rx_off).is_some() {
                for (i, &x) in d.iter().enumerate() {
                    let off = self.rx_off + i as u64;
                    if x != pattern::byte_at(off) {
                        self.mismatches.push(off);
                    }
                }
            }
            if d.len() < self.beat {
                assert!(inp.rx_tlast, "partial rx beat without tlast at cycle {cycle}");
                self.partial_beats.push((cycle, d.len(), inp.rx_tlast));
            }
            if inp.rx_tlast {
                self.rx_tlasts += 1;
            }
            self.rx_off += d.len() as u64;
            self.rx_first_at.get_or_insert(cycle);
            self.rx_last_at = Some(cycle);
            if let RxRate::Rate { den, .. } = self.plan.rx {
                self.tokens -= self.beat as u64 * den;
            }
        }
        if inp.established && self.established_at.is_none() {
            self.established_at = Some(cycle);
            self.peer = (inp.peer_port, inp.peer_mss, inp.peer_window_scale);
        }
        if !inp.established && self.established_at.is_some() && self.established_fell_at.is_none() {
            self.established_fell_at = Some(cycle);
        }
        if inp.conn_error && self.error_at.is_none() {
            self.error_at = Some(cycle);
        }
        if inp.peer_closed {
            if self.peer_closed_at.is_none() {
                self.peer_closed_at = Some(cycle);
                self.rx_at_peer_closed = self.rx_off;
            }
            if inp.rx_tvalid {
                self.rx_after_peer_closed = true;
            }
        }
    }
}

/// Two boards of ideal user logic around the model.
pub struct Bench {
    pub tb: TwoBoards,
    pub users: [Vec<User>; 2],
    pub global: [GlobalOutputs; 2],
    pub rng: ChaCha8Rng,
    tvalid: Vec<bool>,
    outs: Vec<SessionOutputs>,
}

impl Bench {
    /// A bench with the given plans per board (same count on both).
    pub fn new(link: LinkConfig, toe: [ToeConfig; 2], plans: [Vec<Plan>; 2], what: &str) -> Self {
        let n = plans[0].len();
        assert_eq!(n, plans[1].len());
        let beats = [toe[0].beat_bytes, toe[1].beat_bytes];
        let tb = TwoBoards::with_configs(n, link, toe);
        let [p0, p1] = plans;
        Self {
            tb,
            users: [
                p0.into_iter().map(|p| User::new(p, beats[0])).collect(),
                p1.into_iter().map(|p| User::new(p, beats[1])).collect(),
            ],
            global: [GlobalOutputs { init: false, last_packet_mode: 1, window_update_gap: 16 }; 2],
            rng: rng(what),
            tvalid: Vec::new(),
            outs: Vec::new(),
        }
    }

    /// One user-clock cycle, as the glue does it.
    pub fn step(&mut self) {
        let cycle = self.tb.cycle();
        for b in 0..2 {
            self.tvalid.clear();
            for u in &mut self.users[b] {
                let v = u.prepare(cycle, &mut self.rng);
                self.tvalid.push(v);
            }
            let inputs = self.tb.drive(b, &self.tvalid);
            for (u, i) in self.users[b].iter_mut().zip(inputs) {
                u.inp.clone_from(i);
            }
            self.outs.clear();
            self.outs.extend(self.users[b].iter().map(|u| u.out.clone()));
            self.tb.edge(b, self.global[b], &self.outs);
            self.global[b].init = false;
            for u in &mut self.users[b] {
                u.after_edge(cycle);
            }
        }
        self.tb.tick();
    }

    /// Steps until `done` holds (checked before each step) or `max` cycles
    /// passed in total; returns whether `done` held.
    pub fn run_until(&mut self, max: u64, mut done: impl FnMut(&Bench) -> bool) -> bool {
        while self.tb.cycle() < max {
            if done(self) {
                return true;
            }
            self.step();
        }
        done(self)
    }

    /// Steps until cycle `c`.
    pub fn run_to(&mut self, c: u64) {
        while self.tb.cycle() < c {
            self.step();
        }
    }

    /// Asserts that the model saw no protocol violation.
    pub fn assert_clean(&self) {
        assert!(self.tb.violations().is_empty(), "violations: {:#?}", self.tb.violations());
        for b in 0..2 {
            for (s, u) in self.users[b].iter().enumerate() {
                assert!(
                    u.mismatches.is_empty(),
                    "board {b} session {s}: wrong bytes at {:?}",
                    &u.mismatches[..u.mismatches.len().min(10)]
                );
                assert!(!u.rx_after_peer_closed, "board {b} session {s}: rx_tvalid after peer_closed");
            }
        }
    }
}

/// Plans for a one-direction transfer per session: board 0 session s is the
/// active sender to port 61000+s, board 1 session s listens there and receives.
pub fn half_duplex(sessions: usize, bytes: u64, rx: &[RxRate]) -> [Vec<Plan>; 2] {
    let tx = (0..sessions)
        .map(|s| Plan {
            open_at: Some(20),
            active: true,
            local_port: 60000 + s as u16,
            remote_port: 61000 + s as u16,
            tx_bytes: bytes,
            close_after_tx: Some(0),
            close_on_peer_closed: false,
            ..Plan::default()
        })
        .collect();
    let rxp = (0..sessions)
        .map(|s| Plan {
            open_at: Some(1),
            active: false,
            local_port: 61000 + s as u16,
            close_on_peer_closed: true,
            rx: rx.get(s).copied().unwrap_or_default(),
            ..Plan::default()
        })
        .collect();
    [tx, rxp]
}
