//! The latency modes on two boards (verilated product tops joined through
//! the TOE/link model), programmed only through their registers: board 1's
//! session 0 the initiator (client), board 0's the echo (server). Every
//! request and response is verified on arrival, the round trips are
//! counted in the initiator's registers and histogram, and the interface
//! checker allows each message's partial `tlast` beat.

use driver::ops::{self, LatencyResult, LatencyTest, SessionResult};
use testbench::boards::{default_pair, quick_toe, TwoBoardSim};
use testbench::latency_demo::{self, expected_round_trip, SESSIONS_CYCLES};
use testbench::{demo, seed};
use toe_model::LinkConfig;

/// Both boards' session 0 as `echo` (board 0) and `initiator` (board 1),
/// run to their end; the echo's and the initiator's results.
fn run(name: &str, echo: LatencyTest, initiator: LatencyTest, max_cycles: u64) -> (TwoBoardSim, [SessionResult; 2]) {
    let mut sim = default_pair(seed::from_env(name), LinkConfig::default(), quick_toe(128));
    for (b, t) in [(0, echo), (1, initiator)] {
        ops::program_latency(&mut sim.bus(b), 0, &t).unwrap_or_else(|e| panic!("board {b}: {e}"));
        let (fpga, target) = demo::ports(b, 0);
        sim.ports(b, 0, fpga, target);
        sim.toe.set_messages(b, 0, true);
    }
    sim.start(0, 0);
    sim.start(1, 0);
    assert!(sim.wait_idle(&[(0, 0), (1, 0)], 1_000, max_cycles), "{name}: both sessions must end");
    let r = [sim.result(0, 0), sim.result(1, 0)];
    for (b, r) in r.iter().enumerate() {
        assert!(r.done && !r.error && r.closed && r.err_count == 0, "{name}: board {b}: {r:?}");
    }
    assert_eq!(sim.toe.violation_count(), 0, "{name}: {:?}", sim.toe.violations());
    (sim, r)
}

fn latency(sim: &mut TwoBoardSim, b: usize) -> LatencyResult {
    ops::latency_result(&mut sim.bus(b), 0).unwrap_or_else(|e| panic!("board {b}: {e}"))
}

/// Every request answered, every byte verified both ways, and every round
/// trip in the initiator's moments and histogram.
fn check(name: &str, request: u32, response: u32, count: u32, outstanding: u32) {
    let mut initiator = LatencyTest::new(true, request, response, count, true);
    initiator.outstanding = outstanding;
    let echo = LatencyTest::new(false, request, response, count, false);
    let (mut sim, [e, i]) = run(name, echo, initiator, 2_000_000);
    let (n, req, resp) = (u64::from(count), u64::from(request), u64::from(response));
    assert_eq!((i.tx_bytes, i.rx_bytes), (n * req, n * resp), "{name}: the initiator's bytes");
    assert_eq!((e.rx_bytes, e.tx_bytes), (n * req, n * resp), "{name}: the echo's bytes");
    let li = latency(&mut sim, 1);
    assert_eq!(
        (li.count, li.sent, li.received, li.in_flight, li.fault),
        (count, count, count, 0, false),
        "{name}: {li:?}"
    );
    assert!(
        0 < li.min && li.min <= li.max && u64::from(li.min) * n <= li.sum && li.sum <= u64::from(li.max) * n,
        "{name}: {li:?}"
    );
    let le = latency(&mut sim, 0);
    assert_eq!(
        (le.count, le.sent, le.received, le.owed),
        (0, count, count, 0),
        "{name}: the echo measures nothing: {le:?}"
    );
    let h = ops::latency_histogram(&mut sim.bus(1), 0).unwrap();
    assert_eq!(h.iter().map(|&c| u64::from(c)).sum::<u64>(), n, "{name}: the histogram holds every round trip");
    let first = h.iter().position(|&c| c > 0).unwrap();
    let last = h.iter().rposition(|&c| c > 0).unwrap();
    assert_eq!((first, last), (latency::bucket_of(u64::from(li.min)), latency::bucket_of(u64::from(li.max))), "{name}");
}

#[test]
fn one_request_at_a_time_is_answered_and_measured() {
    check("latency_64_one_at_a_time", 64, 64, 20, 1);
}

#[test]
fn many_requests_in_flight_of_uneven_sizes() {
    check("latency_uneven_in_flight", 100, 1000, 60, 8);
}

/// One request in flight on two boards: every round trip is exactly the
/// link's latency both ways, each message's serialisation at the link's
/// rate and the sessions' fixed cycles, computed from the link model's
/// parameters (never from the registers), to the cycle, over link
/// latencies, rates and sizes of one beat to forty.
#[test]
fn one_request_in_flight_takes_exactly_the_links_time() {
    const BEAT: u64 = 128;
    let slow = LinkConfig { payload_mb_s: 10_000, ..LinkConfig::default() };
    for (l, link, request, response) in [
        (250, LinkConfig::default(), 64, 64),
        (250, LinkConfig::default(), 1000, 64),
        (250, LinkConfig::default(), 64, 3000),
        (250, LinkConfig::default(), 129, 128),
        (400, LinkConfig::default(), 64, 64),
        (100, LinkConfig::default(), 5000, 5000),
        (250, slow, 3000, 1000),
    ] {
        let link = LinkConfig { latency_cycles: l, ..link };
        let expected = expected_round_trip(&link, BEAT, u64::from(request), u64::from(response));
        let name = format!("{request} -> {response} bytes, {l}-cycle link at {} MB/s", link.payload_mb_s);
        let mut sim = default_pair(seed::from_env(&name), link, quick_toe(BEAT as usize));
        let initiator = LatencyTest::new(true, request, response, 6, true);
        let echo = LatencyTest::new(false, request, response, 6, false);
        for (b, t) in [(0, echo), (1, initiator)] {
            ops::program_latency(&mut sim.bus(b), 0, &t).unwrap_or_else(|e| panic!("board {b}: {e}"));
            let (fpga, target) = demo::ports(b, 0);
            sim.ports(b, 0, fpga, target);
            sim.toe.set_messages(b, 0, true);
        }
        sim.start(0, 0);
        sim.start(1, 0);
        assert!(sim.wait_idle(&[(0, 0), (1, 0)], 1_000, 2_000_000), "{name}: both sessions must end");
        assert_eq!(sim.toe.violation_count(), 0, "{name}: {:?}", sim.toe.violations());
        let li = latency(&mut sim, 1);
        assert_eq!(li.count, 6, "{name}: {li:?}");
        assert_eq!(
            (u64::from(li.min), u64::from(li.max)),
            (expected, expected),
            "{name}: every round trip is 2 x {l} + the two serialisations + {SESSIONS_CYCLES}"
        );
        assert_eq!((li.sum, li.jitter_sum), (6 * expected, 0), "{name}: {li:?}");
    }
}

/// `make demo`'s latency row: every round trip the expected one, the
/// histogram holds them all, both sides verified.
#[test]
fn the_demos_latency_row_measures_what_the_link_model_says() {
    let row = latency_demo::run(seed::from_env("demo latency row"), LinkConfig::default());
    assert!(row.ok(), "{}\n{:?}\n{:?}", row.table(), row.result, &row.violations[..row.violations.len().min(3)]);
    assert_eq!(row.expected, 2 * 250 + SESSIONS_CYCLES, "64 bytes fit one beat: no serialisation");
    let text = row.table();
    assert!(
        text.contains("  100                 505        505     2020.0        505       2020.0           ok"),
        "{text}"
    );
    assert!(row.plot_svg().unwrap().contains("expected 2020.0 ns"));
}
