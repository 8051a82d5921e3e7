//! The traffic generator on the verilated top, against the stream model.
//!
//! Every test but the multi-session one runs on the datapath harness of
//! every data width (`models::DATAPATH_MODELS`) and prints which models it
//! ran (`--nocapture`). Random `tready` uses a printed seed (`TB_SEED=<n>`
//! replays it).

use rand::{Rng, SeedableRng};
use testbench::dut::Dut;
use testbench::models::{self, dp1024, DATAPATH_MODELS};
use testbench::seed;
use testbench::stream::{StreamChecker, Transfer};
use testbench::verilated::Top;

/// What one session did during a run.
#[derive(Debug, Default)]
struct Run {
    beats: u64,
    /// Cycle of the first presented beat and of the final handshake.
    first_valid: Option<u64>,
    last_accept: Option<u64>,
}

/// The top under test, with the generator-side helpers of these tests.
struct Bench {
    dut: Dut,
}

impl Bench {
    fn new(top: &Top) -> Self {
        Bench { dut: Dut::new(top) }
    }

    fn transfer(&self, size: u64, packet_size: u64, pattern: bool) -> Transfer {
        Transfer { size, packet_size, beat_bytes: self.dut.beat_bytes, pattern }
    }

    fn start(&mut self, s: usize, t: &Transfer) {
        self.dut.start(s, t.size, t.packet_size, t.pattern, false, true, false);
    }

    /// Runs every session in `checkers` (session index, checker) until each
    /// has received its transfer, with `ready(session)` choosing tready per
    /// cycle. Each cycle: read the outputs, drive tready, settle, check a
    /// handshake, clock.
    fn run(
        &mut self,
        checkers: &mut [(usize, StreamChecker)],
        mut ready: impl FnMut(usize) -> bool,
        max_cycles: u64,
    ) -> Vec<Run> {
        let mut runs: Vec<Run> = checkers.iter().map(|_| Run::default()).collect();
        let mut cycle = 0;
        while checkers.iter().any(|(_, c)| !c.finished()) {
            assert!(cycle < max_cycles, "no completion after {max_cycles} cycles: {runs:?}");
            for (k, (s, checker)) in checkers.iter_mut().enumerate() {
                let p = &self.dut.sessions[*s];
                let r = ready(*s);
                self.dut.model.set(p.tx_tready, r as u64);
                let valid = self.dut.model.bit(p.tx_tvalid);
                if valid && runs[k].first_valid.is_none() {
                    runs[k].first_valid = Some(cycle);
                }
                if valid && r {
                    let beat = self.dut.tx_beat(*s);
                    if let Err(e) = checker.accept(&beat.data, &beat.keep, beat.last) {
                        panic!("session {s}: {e}");
                    }
                    runs[k].beats += 1;
                    runs[k].last_accept = Some(cycle);
                }
            }
            self.dut.model.eval();
            self.dut.model.cycle();
            cycle += 1;
        }
        for (s, _) in checkers.iter() {
            let p = &self.dut.sessions[*s];
            self.dut.model.set(p.tx_tready, 0);
        }
        self.dut.model.eval();
        runs
    }

    /// Sends one transfer on session `s` and checks status and counters after it.
    fn send(&mut self, s: usize, t: Transfer, ready: impl FnMut(usize) -> bool) -> Run {
        self.start(s, &t);
        assert!(self.dut.model.bit(self.dut.sessions[s].tx_busy), "busy after start");
        let mut checkers = vec![(s, StreamChecker::new(t))];
        // A hang guard, far above the 1 / p_ready cycles per beat of the slowest test.
        let run = self.run(&mut checkers, ready, 100 * t.beats() + 1000).remove(0);
        self.dut.model.cycle();
        self.check_finished(s, t.size);
        run
    }

    fn check_finished(&mut self, s: usize, size: u64) {
        let (p, m) = (&self.dut.sessions[s], &self.dut.model);
        assert!(!m.bit(p.tx_tvalid), "session {s}: tvalid after the final beat");
        assert!(!m.bit(p.tx_busy), "session {s}: busy after the final beat");
        assert!(m.bit(p.tx_done), "session {s}: done not set");
        assert_eq!(m.get(p.tx_bytes), size, "session {s}: byte counter");
    }
}

/// Runs `test` on the harness of every width, printing which ran as `what`.
fn each_width(what: &str, mut test: impl FnMut(&mut Bench)) {
    models::each(DATAPATH_MODELS, what, |m| test(&mut Bench::new(&(m.top)())));
}

#[test]
fn sizes_around_the_beat_and_word_boundaries() {
    each_width("sizes_around_the_beat_and_word_boundaries", |b| {
        let w = b.dut.beat_bytes as u64;
        for size in [1, 3, 4, 5, w - 1, w, w + 1, 2 * w + 3, 1000] {
            let t = b.transfer(size, 1 << 20, true);
            b.send(0, t, |_| true);
        }
    });
}

#[test]
fn packet_sizes_below_at_and_above_the_transfer() {
    each_width("packet_sizes_below_at_and_above_the_transfer", |b| {
        let w = b.dut.beat_bytes as u64;
        let size = 10 * w + 7;
        for packet in [1, w - 1, w, w + 1, 3 * w, size - 1, size, size + 1, 0] {
            let t = b.transfer(size, packet, true);
            let run = b.send(0, t, |_| true);
            assert_eq!(run.beats, t.beats(), "packet {packet}");
        }
    });
}

#[test]
fn one_beat_per_cycle_at_full_rate_across_packet_boundaries() {
    each_width("one_beat_per_cycle_at_full_rate_across_packet_boundaries", |b| {
        let w = b.dut.beat_bytes as u64;
        for packet in [w, 2 * w, 5 * w + 1] {
            let t = b.transfer(64 * w + 5, packet, true);
            let run = b.send(0, t, |_| true);
            let span = run.last_accept.unwrap() - run.first_valid.unwrap() + 1;
            assert_eq!(span, t.beats(), "packet {packet}: {} beats took {span} cycles", t.beats());
        }
    });
}

#[test]
fn random_backpressure_loses_repeats_and_reorders_nothing() {
    let mut rng = seed::rng("random_backpressure");
    each_width("random_backpressure_loses_repeats_and_reorders_nothing", |b| {
        let w = b.dut.beat_bytes as u64;
        for _ in 0..20 {
            let size = rng.gen_range(1..=50 * w);
            let packet = rng.gen_range(0..=8 * w);
            let p_ready = rng.gen_range(0.05..0.95);
            let t = b.transfer(size, packet, true);
            let mut r = rand_chacha::ChaCha8Rng::from_rng(&mut rng).unwrap();
            b.send(0, t, |_| r.gen_bool(p_ready));
        }
    });
}

#[test]
fn dummy_pattern_is_zeros_and_counts_bytes() {
    each_width("dummy_pattern_is_zeros_and_counts_bytes", |b| {
        let w = b.dut.beat_bytes as u64;
        let t = b.transfer(7 * w + 3, 2 * w, false);
        b.send(0, t, |_| true);
    });
}

#[test]
fn back_to_back_transfers_restart_pattern_and_counter() {
    each_width("back_to_back_transfers_restart_pattern_and_counter", |b| {
        let w = b.dut.beat_bytes as u64;
        for size in [3 * w + 1, 1, 5 * w] {
            let t = b.transfer(size, w, true);
            b.send(0, t, |_| true);
        }
    });
}

#[test]
fn abort_in_the_middle_returns_to_idle_and_the_next_transfer_is_whole() {
    let mut rng = seed::rng("abort");
    each_width("abort_in_the_middle_returns_to_idle_and_the_next_transfer_is_whole", |b| {
        let w = b.dut.beat_bytes as u64;
        let t = b.transfer(1000 * w, 0, true);
        b.start(0, &t);
        let p = &b.dut.sessions[0];
        let (tready, tvalid, busy, done, abort) = (p.tx_tready, p.tx_tvalid, p.tx_busy, p.tx_done, p.tx_abort);
        let m = &mut b.dut.model;
        let stop_after = rng.gen_range(1..500);
        for _ in 0..stop_after {
            m.set(tready, rng.gen_bool(0.7) as u64);
            m.eval();
            m.cycle();
        }
        m.set(tready, 0);
        b.dut.pulse(abort);
        let m = &mut b.dut.model;
        assert!(!m.bit(tvalid), "tvalid after abort");
        assert!(!m.bit(busy), "busy after abort");
        assert!(!m.bit(done), "done after abort");
        for _ in 0..10 {
            m.set(tready, 1);
            m.eval();
            assert!(!m.bit(tvalid), "beat presented after abort");
            m.cycle();
        }
        let t = b.transfer(4 * w + 2, w, true);
        b.send(0, t, |_| true);
    });
}

#[test]
fn sessions_run_independently_at_once() {
    let mut rng = seed::rng("sessions");
    let mut b = Bench::new(&dp1024::top());
    let w = b.dut.beat_bytes as u64;
    let transfers: Vec<Transfer> =
        (0..dp1024::SESSIONS).map(|s| b.transfer((s as u64 + 1) * 37 * w + s as u64, (s as u64) * w, s != 2)).collect();
    for (s, t) in transfers.iter().enumerate() {
        b.start(s, t);
    }
    let mut checkers: Vec<(usize, StreamChecker)> =
        transfers.iter().enumerate().map(|(s, t)| (s, StreamChecker::new(*t))).collect();
    b.run(&mut checkers, |s| s == 0 || rng.gen_bool(0.5), 100_000);
    b.dut.model.cycle();
    for (s, t) in transfers.iter().enumerate() {
        b.check_finished(s, t.size);
    }
}
