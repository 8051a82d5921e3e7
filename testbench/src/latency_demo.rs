//! `make demo`'s latency row (issue 29; the reference demo has none): one
//! 64-byte request and response at a time between two boards on the 200G
//! link model, board 1's session 0 the initiator (client), board 0's the
//! echo (server), and the round trip the link model's own parameters say
//! it must take ([`expected_round_trip`]), printed side by side.

use console::latency_test::{ns, RoundTrips};
use driver::ops::{self, LatencyResult, LatencyTest, SessionResult};
use toe_model::LinkConfig;

use crate::boards::{default_pair, quick_toe, TwoBoardSim};
use crate::demo;

/// Cycles the two sessions add to every round trip, whatever the link:
/// the echo's turnaround from a request's last byte to its response's
/// first beat, and where the initiator's meter stamps the two ends. A
/// property of the session's pipeline, not of the link
/// (`testbench/tests/latency.rs` pins it over several links and sizes).
pub const SESSIONS_CYCLES: u64 = 5;

/// The cycle of the last beat of a `bytes`-byte message, counted from its
/// first, as the link's credit lets the TOE take them one beat
/// (`beat_bytes`) at a time: toe_model's rule (`link.rs`), written again
/// from its documentation: every cycle adds `payload_mb_s` units, capped at
/// `max(one full beat, one cycle's worth)`, a beat is taken while the
/// credit is positive and costs `user_clock_mhz` units a byte. The link is
/// idle before the message (one request in flight), so the credit starts
/// at its cap.
pub fn serialisation(bytes: u64, beat_bytes: u64, link: &LinkConfig) -> u64 {
    let (add, clk) = (link.payload_mb_s as i64, link.user_clock_mhz as i64);
    let cap = (beat_bytes as i64 * clk).max(add);
    let (mut credit, mut left, mut cycle, mut last) = (cap, bytes, 0, 0);
    while left > 0 {
        if credit > 0 {
            let beat = left.min(beat_bytes);
            credit -= beat as i64 * clk;
            left -= beat;
            last = cycle;
        }
        credit = (credit + add).min(cap);
        cycle += 1;
    }
    last
}

/// The round trip of one request in flight, in user-clock cycles: the
/// link's latency both ways, each message's [`serialisation`] and
/// [`SESSIONS_CYCLES`].
pub fn expected_round_trip(link: &LinkConfig, beat_bytes: u64, request: u64, response: u64) -> u64 {
    2 * link.latency_cycles
        + serialisation(request, beat_bytes, link)
        + serialisation(response, beat_bytes, link)
        + SESSIONS_CYCLES
}

/// Request and response size of the row, bytes.
pub const SIZE: u32 = 64;
/// Round trips of the row.
pub const COUNT: u32 = 100;
/// Bytes per beat of the demo's boards (1,024 bits).
const BEAT_BYTES: u64 = 128;

/// What the row measured.
#[derive(Clone, Debug)]
pub struct LatencyRow {
    pub link: LinkConfig,
    /// The round trip the link model's parameters give, cycles.
    pub expected: u64,
    /// The initiator's registers and statistics (its histogram read).
    pub result: LatencyResult,
    pub round_trips: Option<RoundTrips>,
    /// Both boards' session results (echo, initiator).
    pub sessions: [SessionResult; 2],
    pub user_clock_khz: u32,
    /// Interface violations the TOE model saw.
    pub violations: Vec<String>,
}

impl LatencyRow {
    /// Every round trip measured, all equal to the expected one, every byte
    /// verified both ways, no violation.
    pub fn ok(&self) -> bool {
        let r = &self.result;
        r.count == COUNT
            && (u64::from(r.min), u64::from(r.max)) == (self.expected, self.expected)
            && self.sessions.iter().all(|s| s.done && !s.error && s.err_count == 0)
            && self.round_trips.as_ref().is_some_and(|rt| rt.histogram.total() == u64::from(COUNT))
            && self.violations.is_empty()
    }

    /// The row as `make demo` prints it.
    pub fn table(&self) -> String {
        let khz = self.user_clock_khz;
        let r = &self.result;
        let mean = self.round_trips.as_ref().map_or(0.0, |rt| rt.mean);
        let verification = if self.sessions.iter().all(|s| s.err_count == 0 && !s.error) { "ok" } else { "FAILED" };
        let l = &self.link;
        let mut s = format!(
            "Latency (issue 29, not in the reference): {SIZE}-byte requests and responses, one in flight, \
             {} MB/s link with {} cycles each way\n",
            l.payload_mb_s, l.latency_cycles
        );
        s += &format!(
            "  {:<12} {:>10} {:>10} {:>10} {:>10} {:>12} {:>12}\n",
            "round trips", "min", "max", "mean ns", "expected", "expected ns", "verification"
        );
        s += &format!(
            "  {:<12} {:>10} {:>10} {:>10.1} {:>10} {:>12.1} {:>12}\n",
            r.count,
            r.min,
            r.max,
            ns(mean, khz),
            self.expected,
            ns(self.expected as f64, khz),
            verification
        );
        s += &format!(
            "  expected = 2 x {} (the link each way) + {} + {} (serialisation) + {SESSIONS_CYCLES} (the sessions), cycles\n",
            l.latency_cycles,
            serialisation(u64::from(SIZE), BEAT_BYTES, l),
            serialisation(u64::from(SIZE), BEAT_BYTES, l)
        );
        s
    }

    /// The round trips' histogram with the expected round trip marked.
    pub fn plot_svg(&self) -> Result<String, String> {
        let khz = self.user_clock_khz;
        let bars: Vec<plots::Bar> = self
            .round_trips
            .iter()
            .flat_map(|rt| rt.histogram.buckets())
            .map(|b| plots::Bar {
                lo: ns((b.lo as f64).max(0.5), khz),
                end: ns(b.hi.saturating_add(1) as f64, khz),
                count: b.count,
            })
            .collect();
        let e = ns(self.expected as f64, khz);
        plots::histogram_svg(
            &format!("Latency: {} round trips of {SIZE} bytes on the 200G link model", self.result.count),
            &format!("round trip (ns at {} MHz)", f64::from(khz) / 1000.0),
            &bars,
            &[(format!("expected {e:.1} ns"), e)],
        )
    }
}

/// Programs and starts session 0 of both boards through their registers:
/// board 0 with `echo`, board 1 with `initiator`, on the demo's ports, the
/// link model told that each message may end in a partial beat.
pub fn start_pair(sim: &mut TwoBoardSim, echo: &LatencyTest, initiator: &LatencyTest) {
    for (b, t) in [(0, echo), (1, initiator)] {
        ops::program_latency(&mut sim.bus(b), 0, t).unwrap_or_else(|e| panic!("board {b}: {e}"));
        let (fpga, target) = demo::ports(b, 0);
        sim.ports(b, 0, fpga, target);
        // Each message ends in a partial beat with `tlast` (issue 29).
        sim.toe.set_messages(b, 0, true);
    }
    sim.start(0, 0);
    sim.start(1, 0);
}

/// Runs the row on `link`: [`COUNT`] round trips of [`SIZE`] bytes.
pub fn run(seed: u64, link: LinkConfig) -> LatencyRow {
    let mut sim = default_pair(seed, link.clone(), quick_toe(BEAT_BYTES as usize));
    let initiator = LatencyTest::new(true, SIZE, SIZE, COUNT, true);
    let echo = LatencyTest::new(false, SIZE, SIZE, COUNT, false);
    start_pair(&mut sim, &echo, &initiator);
    let ended = sim.wait_idle(&[(0, 0), (1, 0)], 1_000, 5_000_000);
    let mut violations = sim.toe.violations().to_vec();
    if sim.toe.violation_count() > violations.len() as u64 {
        violations.push(format!("{} interface violations in all", sim.toe.violation_count()));
    }
    if !ended {
        violations.push("the sessions did not end within 5,000,000 cycles".into());
    }
    let result = ops::latency_result(&mut sim.bus(1), 0).expect("the initiator's results");
    let buckets = ops::latency_histogram(&mut sim.bus(1), 0).expect("the initiator's histogram");
    let round_trips = RoundTrips::of(&result, &buckets);
    let user_clock_khz = (link.user_clock_mhz * 1000) as u32;
    LatencyRow {
        expected: expected_round_trip(&link, BEAT_BYTES, u64::from(SIZE), u64::from(SIZE)),
        link,
        result,
        round_trips,
        sessions: [sim.result(0, 0), sim.result(1, 0)],
        user_clock_khz,
        violations,
    }
}
