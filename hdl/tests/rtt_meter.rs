//! The round-trip meter's and histogram's Verilog (as the project's writer
//! emits it, verilated) against plain-Rust models: a queue of request cycles
//! for the round trips, `latency::bucket_of` for the buckets,
//! `latency::Moments` for the moments and a count per bucket for the
//! histogram, cycle by cycle, with seeded random requests, responses,
//! samples and clears (`TB_SEED=<n>` replays a run); the two together
//! against `latency::Histogram`. Also `verilator --lint-only -Wall` on the
//! emitted modules.

mod common;

use std::collections::VecDeque;
use std::path::PathBuf;

use latency::{bucket_of, Histogram, Moments};
use rand::Rng;
use verilate::{Model, ModelFns, Source};

fn cache() -> PathBuf {
    common::cache("rtt_meter")
}

/// The emitted modules of the meter and the histogram, each as a file of
/// its own.
fn sources() -> Vec<Source> {
    let mut modules = hdl::verilog::rtt_meter_modules("dut").unwrap();
    modules.extend(hdl::verilog::rtt_histogram_modules("dut").unwrap());
    common::sources(&modules)
}

fn model(top: &str) -> &'static ModelFns {
    common::model(top, &sources(), &cache())
}

#[test]
fn verilator_lint_is_clean() {
    for top in ["dut_rtt_meter", "dut_rtt_histogram"] {
        common::lint(top, &sources(), &cache());
    }
}

/// Values for the bucket logic: every value below 2^14, both sides of every
/// power of two, and 200,000 random 32-bit values.
fn values(what: &str) -> Vec<u64> {
    let mut rng = seeded_inputs::seed::rng(what);
    let edges = (1..32).flat_map(|e| {
        let p = 1u64 << e;
        [p - 1, p, p + 1]
    });
    let random = (0..200_000).map(|_| rng.gen::<u32>() as u64 >> rng.gen_range(0..32)).collect::<Vec<_>>();
    (0..1u64 << 14).chain(edges).chain([u32::MAX as u64]).chain(random).collect()
}

/// The leading-one leaf against its model, and the bucket leaf, given the
/// model's leading one, against `latency::bucket_of`.
#[test]
fn buckets_are_latency_bucket_of() {
    let mut lo = Model::new(model("dut_leading_one"));
    let (lo_value, lead) = (lo.port("value"), lo.port("lead"));
    let mut bi = Model::new(model("dut_bucket_index"));
    let (bi_value, bi_lead, bucket) = (bi.port("value"), bi.port("lead"), bi.port("bucket"));
    for v in values("buckets_are_latency_bucket_of") {
        lo.set(lo_value, v);
        lo.eval();
        let want_lead = hdl::leading_one::lead_of(v as u32);
        assert_eq!(lo.get(lead), u64::from(want_lead), "leading one of {v}");
        bi.set(bi_value, v);
        bi.set(bi_lead, u64::from(want_lead));
        bi.eval();
        assert_eq!(bi.get(bucket), bucket_of(v) as u64, "bucket of {v}");
    }
}

/// One cycle's events: clear, request, response, and the response's lag.
type Event = (bool, bool, bool, u64);

/// What the meter must show during one cycle.
#[derive(Debug, Default, PartialEq)]
struct Shown {
    in_flight: u64,
    overflow: bool,
    orphan: bool,
    /// (cycles, bucket) of the sample shown this cycle.
    sample: Option<(u64, u64)>,
    count: u64,
    min: u64,
    max: u64,
    sum: u128,
    sum_sq: u128,
    jitter_sum: u128,
}

/// The plain model: stamps by cycle number, samples four cycles after
/// their response, moments one cycle later; a clear empties the queue and
/// drops what is on its way (the events of its own cycle are ignored).
#[derive(Default)]
struct Reference {
    queue: VecDeque<u64>,
    overflow: bool,
    orphan: bool,
    /// (response cycle, cycles) of every sample not yet in the moments.
    pending: VecDeque<(u64, u64)>,
    moments: Moments,
}

impl Reference {
    /// One cycle's events; a response's beat was taken `lag` cycles before.
    fn step(&mut self, cycle: u64, clear: bool, request: bool, response: bool, lag: u64) {
        if clear {
            *self = Reference::default();
            return;
        }
        let popped = response && !self.queue.is_empty();
        if popped {
            let stamp = self.queue.pop_front().unwrap();
            self.pending.push_back((cycle, cycle - lag - stamp));
        }
        if request && (self.queue.len() < 16 || popped) {
            self.queue.push_back(cycle);
        }
        self.overflow |= request && self.queue.back() != Some(&cycle);
        self.orphan |= response && !popped;
    }

    /// What shows during `cycle`: a sample from `cycle - 4`; the moments of
    /// every sample up to `cycle - 5`.
    fn shown(&mut self, cycle: u64) -> Shown {
        while self.pending.front().is_some_and(|&(r, _)| r + 5 <= cycle) {
            let (_, rtt) = self.pending.pop_front().unwrap();
            self.moments.record(rtt);
        }
        let sample = self.pending.iter().find(|&&(r, _)| r + 4 == cycle).map(|&(_, rtt)| (rtt, bucket_of(rtt) as u64));
        let m = &self.moments;
        Shown {
            in_flight: self.queue.len() as u64,
            overflow: self.overflow,
            orphan: self.orphan,
            sample,
            count: m.count,
            min: m.min,
            max: m.max,
            sum: m.sum,
            sum_sq: m.sum_sq,
            jitter_sum: m.jitter_sum,
        }
    }
}

struct Meter {
    m: Model,
    ports: [verilate::Port; 17],
}

impl Meter {
    fn new() -> Meter {
        let mut m = Model::new(model("dut_rtt_meter"));
        m.set_clock("clock");
        let names = [
            "reset",
            "clear",
            "request",
            "response",
            "response_lag",
            "in_flight",
            "overflow",
            "orphan",
            "sample_valid",
            "sample",
            "sample_bucket",
            "count",
            "min",
            "max",
            "sum",
            "sum_sq",
            "jitter_sum",
        ];
        let ports = names.map(|n| m.port(n));
        let mut meter = Meter { m, ports };
        meter.m.set(meter.ports[0], 1);
        meter.m.cycle();
        meter.m.set(meter.ports[0], 0);
        meter
    }

    fn drive(&mut self, clear: bool, request: bool, response: bool, lag: u64) {
        for (i, v) in [clear, request, response].into_iter().enumerate() {
            self.m.set(self.ports[i + 1], u64::from(v));
        }
        self.m.set(self.ports[4], lag);
        self.m.cycle();
    }

    fn wide(&self, i: usize) -> u128 {
        let mut w = [0u32; 3];
        self.m.get_wide(self.ports[i], &mut w);
        w.iter().rev().fold(0u128, |a, &x| (a << 32) | u128::from(x))
    }

    fn shown(&self) -> Shown {
        let g = |i: usize| self.m.get(self.ports[i]);
        Shown {
            in_flight: g(5),
            overflow: g(6) == 1,
            orphan: g(7) == 1,
            sample: (g(8) == 1).then(|| (g(9), g(10))),
            count: g(11),
            min: g(12),
            max: g(13),
            sum: u128::from(g(14)),
            sum_sq: self.wide(15),
            jitter_sum: u128::from(g(16)),
        }
    }
}

/// Runs `events` (clear, request, response, lag per cycle) through the meter and
/// the reference, comparing what shows every cycle; returns the samples
/// measured and the longest.
fn run(events: impl Iterator<Item = Event>) -> (u64, u64) {
    let mut meter = Meter::new();
    let mut reference = Reference::default();
    let (mut samples, mut longest) = (0, 0);
    for (cycle, (clear, request, response, lag)) in events.enumerate() {
        let cycle = cycle as u64;
        let want = reference.shown(cycle);
        assert_eq!(meter.shown(), want, "cycle {cycle}");
        if let Some((rtt, _)) = want.sample {
            samples += 1;
            longest = longest.max(rtt);
        }
        meter.drive(clear, request, response, lag);
        reference.step(cycle, clear, request, response, lag);
    }
    (samples, longest)
}

/// Random traffic: requests while fewer than `outstanding` are unanswered,
/// each answered after a delay drawn log-uniformly up to 2^`max_bits`
/// cycles (in order, as TCP delivers), and a clear in one cycle of
/// `clear_every` on average (never for 0). Each response's beat was taken
/// up to 8 cycles before its pulse (`lag`, as when several messages end in
/// one beat), never before its request.
fn traffic(seed_name: &str, cycles: u64, outstanding: usize, max_bits: u32, clear_every: u32) -> Vec<Event> {
    let mut rng = seeded_inputs::seed::rng(seed_name);
    // (request cycle, response cycle) of every request unanswered.
    let mut due: VecDeque<(u64, u64)> = VecDeque::new();
    let mut out = Vec::new();
    for c in 0..cycles {
        let clear = clear_every > 0 && rng.gen_ratio(1, clear_every);
        let response = due.front().is_some_and(|&(_, d)| d <= c);
        let mut lag = 0;
        if response {
            let (asked, _) = due.pop_front().unwrap();
            lag = rng.gen_range(0..=(c - asked).min(8));
        }
        let request = due.len() < outstanding && rng.gen_ratio(1, 3);
        if request {
            let delay = 1 + (rng.gen::<u64>() >> (64 - rng.gen_range(1..=max_bits)));
            // In order: never due before the one ahead of it.
            let at = (c + delay).max(due.back().map_or(0, |&(_, d)| d));
            due.push_back((c, at));
        }
        if clear {
            due.clear();
        }
        out.push((clear, request && !clear, response && !clear, lag));
    }
    out
}

#[test]
fn one_in_flight_short_round_trips_match_the_models() {
    let (n, _) = run(traffic("one in flight", 200_000, 1, 10, 0).into_iter());
    assert!(n > 1_000, "{n} samples");
}

#[test]
fn sixteen_in_flight_with_clears_match_the_models() {
    let (n, _) = run(traffic("sixteen in flight", 200_000, 16, 12, 5_000).into_iter());
    assert!(n > 1_000, "{n} samples");
}

/// Round trips past 2^16 cycles: the square's high products and the
/// 96-bit sum are used.
#[test]
fn long_round_trips_use_the_whole_square() {
    let (n, longest) = run(traffic("long round trips", 2_000_000, 4, 19, 0).into_iter());
    assert!(n > 20 && longest >= 1 << 17, "{n} samples, the longest {longest} cycles");
}

/// A full queue refuses a seventeenth request (`overflow`), a response with
/// nothing in flight is not measured (`orphan`), a clear resets both.
#[test]
fn overflow_and_orphan_are_flagged_until_clear() {
    let idle = (false, false, false, 0);
    let mut events = vec![(false, true, false, 0); 17];
    events.extend([idle; 3]);
    events.extend(vec![(false, false, true, 0); 17]);
    events.extend([idle; 7]);
    let mut meter = Meter::new();
    let mut reference = Reference::default();
    for (cycle, &(clear, request, response, lag)) in events.iter().enumerate() {
        meter.drive(clear, request, response, lag);
        reference.step(cycle as u64, clear, request, response, lag);
    }
    let shown = meter.shown();
    assert_eq!((shown.overflow, shown.orphan, shown.count, shown.in_flight), (true, true, 16, 0), "{shown:?}");
    assert_eq!(shown, reference.shown(events.len() as u64));
    meter.drive(true, false, false, 0);
    let shown = meter.shown();
    assert_eq!((shown.overflow, shown.orphan, shown.count), (false, false, 0), "{shown:?}");
}

/// Cycles of a clear's sweep.
const SWEEP: u64 = hdl::rtt_histogram::BUCKETS;

/// The histogram's model: a count per bucket; a clear in cycle c sweeps in
/// cycles c+1 .. c+SWEEP, samples then are missed; the events of the clear's
/// own cycle are ignored.
struct Bins {
    counts: Vec<u64>,
    sweep_until: u64,
    missed: bool,
}

impl Bins {
    /// As after a reset in cycle `c`.
    fn cleared_at(c: u64) -> Bins {
        Bins { counts: vec![0; SWEEP as usize], sweep_until: c + SWEEP, missed: false }
    }

    fn clearing(&self, cycle: u64) -> bool {
        cycle <= self.sweep_until
    }

    fn step(&mut self, cycle: u64, clear: bool, sample: Option<u64>) {
        if clear {
            *self = Bins::cleared_at(cycle);
        } else if let Some(b) = sample {
            if self.clearing(cycle) {
                self.missed = true;
            } else {
                self.counts[b as usize] += 1;
            }
        }
    }
}

struct HistogramPorts {
    m: Model,
    reset: verilate::Port,
    clear: verilate::Port,
    valid: verilate::Port,
    bucket: verilate::Port,
    clearing: verilate::Port,
    missed: verilate::Port,
    read_index: verilate::Port,
    read_count: verilate::Port,
}

impl HistogramPorts {
    /// Out of a reset (its sweep starts): two cycles of it, as the model's
    /// first `cycle` may not count as an edge, so the sweep starts at the
    /// second either way.
    fn new() -> HistogramPorts {
        let mut m = Model::new(model("dut_rtt_histogram"));
        m.set_clock("clock");
        let p = |n: &str| m.port(n);
        let (reset, clear, valid, bucket) = (p("reset"), p("clear"), p("sample_valid"), p("sample_bucket"));
        let (clearing, missed, read_index, read_count) = (p("clearing"), p("missed"), p("read_index"), p("read_count"));
        let mut h = HistogramPorts { m, reset, clear, valid, bucket, clearing, missed, read_index, read_count };
        h.m.set(h.reset, 1);
        h.m.cycle();
        h.m.cycle();
        h.m.set(h.reset, 0);
        h
    }

    fn drive(&mut self, clear: bool, sample: Option<u64>) {
        self.m.set(self.clear, u64::from(clear));
        self.m.set(self.valid, u64::from(sample.is_some()));
        self.m.set(self.bucket, sample.unwrap_or(0));
        self.m.cycle();
    }

    /// Every bucket's count through the read port (no samples meanwhile).
    fn read_all(&mut self) -> Vec<u64> {
        let mut out = Vec::new();
        for b in 0..=SWEEP {
            // Index b in this cycle, its count in the next; one extra cycle
            // for the last.
            if b > 0 {
                out.push(self.m.get(self.read_count));
            }
            self.m.set(self.read_index, b.min(SWEEP - 1));
            self.drive(false, None);
        }
        out
    }
}

/// Samples every cycle or nearly, from a few buckets (the same bucket back
/// to back, one apart, two apart) or any, with clears, against the model;
/// every bucket read back at checkpoints.
#[test]
fn histogram_counts_every_sample_at_one_a_cycle() {
    let mut rng = seeded_inputs::seed::rng("histogram_counts_every_sample_at_one_a_cycle");
    let mut h = HistogramPorts::new();
    let mut bins = Bins::cleared_at(0);
    let mut cycle = 1u64;
    let (mut counted, mut missed_seen) = (0u64, false);
    for round in 0..12 {
        for _ in 0..3_000 {
            assert_eq!(
                (h.m.get(h.clearing) == 1, h.m.get(h.missed) == 1),
                (bins.clearing(cycle), bins.missed),
                "round {round}, cycle {cycle}"
            );
            let clear = rng.gen_ratio(1, 2_500);
            let sample = rng.gen_ratio(9, 10).then(|| {
                if rng.gen_ratio(3, 4) {
                    rng.gen_range(40..43)
                } else {
                    rng.gen_range(0..SWEEP)
                }
            });
            h.drive(clear, sample);
            bins.step(cycle, clear, sample);
            missed_seen |= bins.missed;
            cycle += 1;
        }
        // Let the last sample land, and any sweep end, then read back.
        while bins.clearing(cycle) || h.m.get(h.clearing) == 1 {
            h.drive(false, None);
            cycle += 1;
        }
        h.drive(false, None);
        h.drive(false, None);
        let read = h.read_all();
        cycle += 2 + SWEEP + 1;
        assert_eq!(read, bins.counts, "round {round}: the counts read back");
        counted += read.iter().sum::<u64>();
    }
    assert!(counted > 5_000 && missed_seen, "{counted} samples counted; a miss seen: {missed_seen}");
}

/// The meter and the histogram wired as a session will wire them (the
/// meter's sample outputs into the histogram), with 16 requests in flight:
/// the buckets read back are `latency::Histogram` of the round trips, and
/// hold as many samples as the meter counted.
#[test]
fn meter_and_histogram_together_are_latency_histogram() {
    let mut meter = Meter::new();
    let mut h = HistogramPorts::new();
    for _ in 0..SWEEP + 1 {
        h.drive(false, None);
    }
    let mut reference = Reference::default();
    let mut model = Histogram::new();
    let events = traffic("meter_and_histogram_together", 300_000, 16, 10, 0);
    let idle = std::iter::repeat_n((false, false, false, 0), 10);
    for (cycle, (clear, request, response, lag)) in events.into_iter().chain(idle).enumerate() {
        let shown = meter.shown();
        assert_eq!(shown, reference.shown(cycle as u64), "cycle {cycle}");
        if let Some((rtt, _)) = shown.sample {
            model.record(rtt);
        }
        h.drive(false, shown.sample.map(|(_, bucket)| bucket));
        meter.drive(clear, request, response, lag);
        reference.step(cycle as u64, clear, request, response, lag);
    }
    h.drive(false, None);
    let read = h.read_all();
    let want: Vec<u64> = (0..SWEEP as usize).map(|i| model.count(i)).collect();
    assert_eq!(read, want, "the hardware's buckets against latency::Histogram");
    assert_eq!(read.iter().sum::<u64>(), meter.shown().count);
    assert!(model.total() > 5_000 && model.buckets().count() > 30, "{} samples", model.total());
}
