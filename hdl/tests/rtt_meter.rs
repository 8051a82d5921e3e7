//! The round-trip meter's Verilog (as the project's writer emits it,
//! verilated) against plain-Rust models: a queue of request cycles for the
//! round trips, `latency::bucket_of` for the buckets and `latency::Moments`
//! for the moments, cycle by cycle, with seeded random requests, responses
//! and clears (`TB_SEED=<n>` replays a run). Also `verilator --lint-only
//! -Wall` on the emitted modules.

use std::collections::VecDeque;
use std::path::PathBuf;

use latency::{bucket_of, Moments};
use rand::Rng;
use verilate::{Model, ModelFns, Source};

fn cache() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("rtt_meter")
}

/// The emitted modules, each as a file of its own.
fn sources() -> Vec<Source> {
    hdl::verilog::rtt_meter_modules("dut")
        .unwrap()
        .iter()
        .map(|m| Source { path: format!("{}.v", m.name).into(), contents: m.file_text() })
        .collect()
}

fn model(top: &str) -> &'static ModelFns {
    let waivers = verilate::write_waivers(&cache()).expect("the waivers");
    verilate::load_cached(top, top, &sources(), Some(&waivers), top, &cache(), false, &mut |m| eprintln!("{top}: {m}"))
        .unwrap_or_else(|e| panic!("building {top}: {e}"))
}

#[test]
fn verilator_lint_is_clean() {
    let dir = cache().join(format!("lint-{}", std::process::id()));
    if let Err(log) = verilate::lint_wall("dut_rtt_meter", &sources(), &dir) {
        panic!("{log}");
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
    fn step(&mut self, cycle: u64, clear: bool, request: bool, response: bool) {
        if clear {
            *self = Reference::default();
            return;
        }
        let popped = response && !self.queue.is_empty();
        if popped {
            let stamp = self.queue.pop_front().unwrap();
            self.pending.push_back((cycle, cycle - stamp));
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
    ports: [verilate::Port; 16],
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

    fn drive(&mut self, clear: bool, request: bool, response: bool) {
        for (i, v) in [clear, request, response].into_iter().enumerate() {
            self.m.set(self.ports[i + 1], u64::from(v));
        }
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
            in_flight: g(4),
            overflow: g(5) == 1,
            orphan: g(6) == 1,
            sample: (g(7) == 1).then(|| (g(8), g(9))),
            count: g(10),
            min: g(11),
            max: g(12),
            sum: u128::from(g(13)),
            sum_sq: self.wide(14),
            jitter_sum: u128::from(g(15)),
        }
    }
}

/// Runs `events` (clear, request, response per cycle) through the meter and
/// the reference, comparing what shows every cycle; returns the samples
/// measured and the longest.
fn run(events: impl Iterator<Item = (bool, bool, bool)>) -> (u64, u64) {
    let mut meter = Meter::new();
    let mut reference = Reference::default();
    let (mut samples, mut longest) = (0, 0);
    for (cycle, (clear, request, response)) in events.enumerate() {
        let cycle = cycle as u64;
        let want = reference.shown(cycle);
        assert_eq!(meter.shown(), want, "cycle {cycle}");
        if let Some((rtt, _)) = want.sample {
            samples += 1;
            longest = longest.max(rtt);
        }
        meter.drive(clear, request, response);
        reference.step(cycle, clear, request, response);
    }
    (samples, longest)
}

/// Random traffic: requests while fewer than `outstanding` are unanswered,
/// each answered after a delay drawn log-uniformly up to 2^`max_bits`
/// cycles (in order, as TCP delivers), and a clear in one cycle of
/// `clear_every` on average (never for 0).
fn traffic(
    seed_name: &str,
    cycles: u64,
    outstanding: usize,
    max_bits: u32,
    clear_every: u32,
) -> Vec<(bool, bool, bool)> {
    let mut rng = seeded_inputs::seed::rng(seed_name);
    let mut due: VecDeque<u64> = VecDeque::new();
    let mut out = Vec::new();
    for c in 0..cycles {
        let clear = clear_every > 0 && rng.gen_ratio(1, clear_every);
        let response = due.front().is_some_and(|&d| d <= c);
        if response {
            due.pop_front();
        }
        let request = due.len() < outstanding && rng.gen_ratio(1, 3);
        if request {
            let delay = 1 + (rng.gen::<u64>() >> (64 - rng.gen_range(1..=max_bits)));
            // In order: never due before the one ahead of it.
            let at = (c + delay).max(due.back().copied().unwrap_or(0));
            due.push_back(at);
        }
        if clear {
            due.clear();
        }
        out.push((clear, request && !clear, response && !clear));
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
    let idle = (false, false, false);
    let mut events = vec![(false, true, false); 17];
    events.extend([idle; 3]);
    events.extend(vec![(false, false, true); 17]);
    events.extend([idle; 7]);
    let mut meter = Meter::new();
    let mut reference = Reference::default();
    for (cycle, &(clear, request, response)) in events.iter().enumerate() {
        meter.drive(clear, request, response);
        reference.step(cycle as u64, clear, request, response);
    }
    let shown = meter.shown();
    assert_eq!((shown.overflow, shown.orphan, shown.count, shown.in_flight), (true, true, 16, 0), "{shown:?}");
    assert_eq!(shown, reference.shown(events.len() as u64));
    meter.drive(true, false, false);
    let shown = meter.shown();
    assert_eq!((shown.overflow, shown.orphan, shown.count), (false, false, 0), "{shown:?}");
}
