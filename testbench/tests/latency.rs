//! The latency modes on two boards (verilated product tops joined through
//! the TOE/link model), programmed only through their registers: board 1's
//! session 0 the initiator (client), board 0's the echo (server). Every
//! request and response is verified on arrival, the round trips are
//! counted in the initiator's registers and histogram, and the interface
//! checker allows each message's partial `tlast` beat.

use driver::ops::{self, LatencyResult, LatencyTest, SessionResult};
use driver::regs::session::status::ErrorCause;
use testbench::boards::{default_pair, quick_toe, TwoBoardSim};
use testbench::latency_demo::{self, expected_round_trip, SESSIONS_CYCLES};
use testbench::seed;
use toe_model::LinkConfig;

/// Both boards' session 0 as `echo` (board 0) and `initiator` (board 1),
/// run to their end; the echo's and the initiator's results.
fn run(name: &str, echo: LatencyTest, initiator: LatencyTest, max_cycles: u64) -> (TwoBoardSim, [SessionResult; 2]) {
    let mut sim = default_pair(seed::from_env(name), LinkConfig::default(), quick_toe(128));
    latency_demo::start_pair(&mut sim, &echo, &initiator);
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
        latency_demo::start_pair(&mut sim, &echo, &initiator);
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

/// One board whose TOE is scripted (`testbench::scripted_toe`): it opens
/// session 0's connection when asked and answers each of its requests
/// after a delay drawn from a known distribution, timing each round trip
/// itself at the interface (the cycle it took the request's first beat,
/// the cycle the response's last byte was taken). Answers keep their
/// order, each no earlier than its delay after its request.
struct ScriptedPeer {
    rng: rand_chacha::ChaCha8Rng,
    /// The cycle each request's first beat was taken.
    starts: Vec<u64>,
    /// When each request not yet answered is due an answer.
    due: std::collections::VecDeque<u64>,
    /// The request whose response is queued and not yet all taken.
    awaiting: Option<usize>,
    answered: usize,
    /// The round trips as the TOE timed them, in order.
    rtts: Vec<u64>,
    seen_beats: usize,
    most_in_flight: usize,
    /// Requests answered at most: after these the peer falls silent.
    answer_at_most: usize,
}

type ScriptedRig = testbench::boards::Rig<testbench::scripted_toe::ScriptedToe>;

const SCRIPTED_REQUEST: u64 = 20; // three beats of 8 bytes, the last partial
const SCRIPTED_RESPONSE: u64 = 13;

impl ScriptedPeer {
    /// A `top64` board whose session 0 is an initiator (client) of
    /// `count` round trips with `outstanding` in flight and a stall timeout
    /// of `stall_ms` (0: never), started; and its peer.
    fn start(name: &str, outstanding: u32, count: u32, stall_ms: u32) -> (ScriptedRig, ScriptedPeer, u64) {
        use rand::SeedableRng;
        use testbench::boards::{Board, Rig};
        use testbench::scripted_toe::ScriptedToe;
        let seed = seed::from_env(name);
        let board = Board::new(&testbench::models::top64::top(), seed);
        let toe = ScriptedToe::for_board(&board);
        let mut sim = Rig::from_parts(vec![board], toe);
        let mut test = LatencyTest::new(true, SCRIPTED_REQUEST as u32, SCRIPTED_RESPONSE as u32, count, true);
        test.outstanding = outstanding;
        ops::program_latency(&mut sim.bus(0), 0, &test).unwrap();
        sim.ports(0, 0, 50_001, 60_002);
        sim.write(0, driver::regs::session(0).unwrap().stall_timeout(), stall_ms);
        let s = sim.toe.session_mut(0);
        s.conn_req_ready = true;
        s.tx_tready = true;
        sim.start(0, 0);
        let peer = ScriptedPeer {
            rng: rand_chacha::ChaCha8Rng::seed_from_u64(seed),
            starts: Vec::new(),
            due: Default::default(),
            awaiting: None,
            answered: 0,
            rtts: Vec::new(),
            seen_beats: 0,
            most_in_flight: 0,
            answer_at_most: usize::MAX,
        };
        (sim, peer, seed)
    }

    /// One cycle of the board and the peer.
    fn step(&mut self, sim: &mut ScriptedRig) {
        use rand::Rng;
        sim.run(1);
        let now = sim.toe.cycle();
        let beat = sim.toe.beat_bytes();
        let s = sim.toe.session_mut(0);
        if !s.status.established && s.taken.len() == 1 {
            (s.status.peer_port, s.status.peer_mss, s.status.peer_window_scale) = (60_002, 1460, 0);
            s.status.established = true;
        }
        // Each request starts a new beat: a beat at offset k * REQUEST starts request k.
        while self.seen_beats < s.tx_log.len() {
            let (cycle, offset) = s.tx_log[self.seen_beats];
            self.seen_beats += 1;
            if offset % SCRIPTED_REQUEST == 0 {
                self.starts.push(cycle);
                // Mostly a short answer, one in ten between 1,000 and 40,000 cycles.
                let delay = if self.rng.gen_range(0..10) == 0 {
                    self.rng.gen_range(1_000..40_000)
                } else {
                    self.rng.gen_range(0..200)
                };
                self.due.push_back(cycle + delay);
            }
        }
        self.most_in_flight = self.most_in_flight.max(self.starts.len() - self.rtts.len());
        self.collect(sim);
        let s = sim.toe.session_mut(0);
        if self.awaiting.is_none() && self.answered < self.answer_at_most && self.due.front().is_some_and(|&d| d <= now)
        {
            self.due.pop_front();
            s.send_pattern(SCRIPTED_RESPONSE, beat);
            self.awaiting = Some(self.answered);
            self.answered += 1;
        }
    }

    /// The round trip of the response awaited, once all of it was taken.
    /// Register accesses run the board too, so this is also called after
    /// them.
    fn collect(&mut self, sim: &ScriptedRig) {
        let s = sim.toe.session(0);
        if let Some(k) = self.awaiting {
            if s.rx_pending() == 0 {
                self.rtts.push(s.rx_last.expect("taken") - self.starts[k]);
                self.awaiting = None;
            }
        }
    }

    /// Steps until `done` holds (at most `max` cycles).
    fn run_until(&mut self, sim: &mut ScriptedRig, max: u64, what: &str, done: impl Fn(&ScriptedPeer) -> bool) {
        let limit = sim.cycles() + max;
        while !done(self) {
            assert!(sim.cycles() < limit, "{what}: not within {max} cycles ({} round trips)", self.rtts.len());
            self.step(sim);
        }
    }

    /// Steps until session 0 is idle (at most `max` cycles).
    fn run_until_idle(&mut self, sim: &mut ScriptedRig, max: u64) {
        let limit = sim.cycles() + max;
        while ops::busy(&mut sim.bus(0), 0).unwrap() {
            assert!(sim.cycles() < limit, "session 0 still busy after {max} cycles");
            for _ in 0..100 {
                self.step(sim);
            }
        }
        self.collect(sim);
    }

    /// The session's moments and every histogram bucket are those of the
    /// round trips the peer timed.
    fn check_measured(&self, sim: &mut ScriptedRig, seed: u64) {
        let mut model = latency::Moments::new();
        let mut buckets = latency::Histogram::new();
        for &v in &self.rtts {
            model.record(v);
            buckets.record(v);
        }
        let hw = ops::latency_result(&mut sim.bus(0), 0).unwrap();
        assert_eq!(
            (u64::from(hw.count), u64::from(hw.min), u64::from(hw.max)),
            (model.count, model.min, model.max),
            "count, min, max (seed {seed})"
        );
        assert_eq!(
            (u128::from(hw.sum), hw.sum_sq, u128::from(hw.jitter_sum)),
            (model.sum, model.sum_sq, model.jitter_sum),
            "sum, sum of squares, jitter sum (seed {seed})"
        );
        let h = ops::latency_histogram(&mut sim.bus(0), 0).unwrap();
        for (i, &c) in h.iter().enumerate() {
            assert_eq!(u64::from(c), buckets.count(i), "bucket {i} {:?} (seed {seed})", latency::bounds(i));
        }
    }
}

/// The scripted peer's delays: the hardware's moments must be
/// `latency::Moments` of the round trips the peer timed, exactly, and
/// every bucket of its histogram `latency::Histogram`'s; never more than
/// `outstanding` unanswered, and that many reached.
fn scripted_peer(outstanding: u32) {
    const COUNT: u32 = 300;
    let (mut sim, mut peer, seed) =
        ScriptedPeer::start(&format!("scripted latency, {outstanding} in flight"), outstanding, COUNT, 0);
    peer.run_until(&mut sim, 20_000_000, "every round trip", |p| p.rtts.len() == COUNT as usize);
    assert_eq!(peer.most_in_flight, outstanding as usize, "requests unanswered at most: `outstanding`, and reached");
    // The session closes after its last response: its close request is
    // taken (conn_req_ready is high), then the connection goes down.
    let asked = sim.cycles();
    while sim.toe.session(0).closes() == 0 {
        assert!(sim.cycles() - asked < 10_000, "no close request after the last response");
        peer.step(&mut sim);
    }
    sim.toe.session_mut(0).status.established = false;
    peer.run_until_idle(&mut sim, 1_000_000);
    let r = sim.result(0, 0);
    assert!(r.done && !r.error && r.err_count == 0, "{r:?}");
    assert_eq!(sim.toe.session(0).tx_mismatch, None, "every request is the pattern");
    assert_eq!(sim.toe.session(0).tx_bytes, u64::from(COUNT) * SCRIPTED_REQUEST);
    peer.check_measured(&mut sim, seed);
    let mut spread = latency::Histogram::new();
    peer.rtts.iter().for_each(|&v| spread.record(v));
    assert!(spread.buckets().count() > 10, "the delays spread over many buckets: {spread:?}");
}

#[test]
fn a_scripted_peer_s_delays_are_measured_exactly() {
    scripted_peer(1);
}

#[test]
fn a_scripted_peer_s_delays_are_measured_exactly_with_requests_in_flight() {
    scripted_peer(4);
}

/// A peer that stops answering after three responses: the watchdog ends
/// the test `stalled` (1 ms of the user clock without progress), and the
/// three round trips stay measured.
#[test]
fn a_peer_that_stops_answering_ends_the_test_stalled() {
    let (mut sim, mut peer, seed) = ScriptedPeer::start("latency peer falls silent", 1, 100, 1);
    peer.answer_at_most = 3;
    peer.run_until_idle(&mut sim, 2_000_000);
    let r = sim.result(0, 0);
    assert!(r.error && !r.done, "{r:?}");
    assert_eq!(ErrorCause::from_bits(r.error_cause), Some(ErrorCause::Stalled), "{r:?}");
    assert_eq!(peer.rtts.len(), 3);
    peer.check_measured(&mut sim, seed);
}

/// `ctrl.abort` in the middle of the round trips: the test ends `aborted`
/// at once, and what was measured before stays measured.
#[test]
fn an_abort_mid_test_ends_it_and_keeps_what_was_measured() {
    let (mut sim, mut peer, seed) = ScriptedPeer::start("latency abort", 4, 1_000, 0);
    peer.run_until(&mut sim, 5_000_000, "ten round trips", |p| p.rtts.len() >= 10);
    sim.abort(0, 0);
    peer.run_until_idle(&mut sim, 10_000);
    let r = sim.result(0, 0);
    assert!(r.error && !r.done, "{r:?}");
    assert_eq!(ErrorCause::from_bits(r.error_cause), Some(ErrorCause::Aborted), "{r:?}");
    assert!(peer.rtts.len() < 1_000, "{} round trips", peer.rtts.len());
    peer.check_measured(&mut sim, seed);
}
