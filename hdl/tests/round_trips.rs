//! The latency modes' part of a session (`RoundTrips`), as the project's
//! writer emits it and Verilator builds it, against a peer written here
//! that plays the other side of the test:
//!
//! - as **initiator**, its peer echoes: every request that ends is answered
//!   after a delay drawn from a seeded distribution, the answers packed into
//!   receive beats as a TOE packs them (a beat may end one response and
//!   begin the next). The round trips the test times itself, from the cycle a
//!   request's first beat is taken to the cycle its response's last byte is
//!   taken, must be the hardware's moments (`latency::Moments`) and
//!   histogram (`latency::Histogram`, every bucket read back), to the cycle;
//!   never more than `outstanding` requests unanswered, never more than
//!   `request_count` sent, `done` exactly when the last response ended;
//! - as **echo**, its peer sends requests back to back, short ones several
//!   to a beat: a response leaves for every request, only after it ended;
//! - a response that comes before any request is a `fault`.
//!
//! Every beat sent is the pattern continuing across messages, each message
//! from lane 0 of a beat of its own. Random backpressure both ways, rate
//! limiting and sizes (`TB_SEED=<n>` replays a run). Also `verilator
//! --lint-only -Wall`.

mod common;

use std::collections::VecDeque;

use hdl::rtt_histogram::BUCKETS;
use latency::{Histogram, Moments};
use rand::Rng;
use verilate::{Model, Port};

const BLOCK: common::WidthBlock =
    common::WidthBlock { name: "round_trips", modules: hdl::verilog::round_trips_modules };

#[test]
fn verilator_lint_is_clean_at_every_width() {
    BLOCK.lint_every_width();
}

/// Widths the simulations run at: the narrowest (many beats a message) and
/// a wide one (many messages a beat).
const WIDTHS: [usize; 2] = [64, 512];

/// The verilated block at `width` bits, after an idle cycle (Verilator's
/// first evaluation sees no edge), with its ports by name.
struct Dut {
    m: Model,
    width: usize,
    ports: Vec<(&'static str, Port)>,
    cycle: u64,
}

const NAMES: [&str; 37] = [
    "reset",
    "start",
    "abort_req",
    "go",
    "initiator",
    "request_size",
    "response_size",
    "request_count",
    "outstanding",
    "enable",
    "m_tdata",
    "m_tkeep",
    "m_tlast",
    "m_tvalid",
    "m_tready",
    "rx_take",
    "rx_keep",
    "rx_ready",
    "clearing",
    "tx_busy",
    "tx_bytes",
    "sent",
    "received",
    "owed",
    "in_flight",
    "done",
    "fault",
    "rtt_last",
    "rtt_count",
    "rtt_min",
    "rtt_max",
    "rtt_sum",
    "rtt_sum_sq",
    "rtt_jitter_sum",
    "hist_index",
    "hist_count",
    "clock",
];

impl Dut {
    fn new(width: usize) -> Dut {
        let mut m = Model::new(BLOCK.model(width));
        m.set_clock("clock");
        m.cycle();
        let ports = NAMES.iter().map(|&n| (n, m.port(n))).collect();
        Dut { m, width, ports, cycle: 0 }
    }

    fn port(&self, name: &str) -> Port {
        self.ports.iter().find(|(n, _)| *n == name).unwrap_or_else(|| panic!("no port {name}")).1
    }

    fn set(&mut self, name: &str, v: u64) {
        let p = self.port(name);
        self.m.set(p, v);
    }

    fn get(&self, name: &str) -> u64 {
        self.m.get(self.port(name))
    }

    fn wide(&self, name: &str) -> u128 {
        let mut w = [0u32; 3];
        self.m.get_wide(self.port(name), &mut w);
        w.iter().rev().fold(0u128, |a, &x| (a << 32) | u128::from(x))
    }

    /// Drives `rx_take` and `rx_keep` for a beat of `bytes` taken, or none.
    fn take(&mut self, bytes: Option<u64>) {
        let n = bytes.unwrap_or(0) as usize;
        let mut keep = vec![0u32; self.width.div_ceil(256)];
        for i in 0..n {
            keep[i / 32] |= 1 << (i % 32);
        }
        let p = self.port("rx_keep");
        self.m.set_wide(p, &keep);
        self.set("rx_take", u64::from(bytes.is_some()));
    }

    fn step(&mut self) {
        self.m.cycle();
        self.cycle += 1;
    }

    /// A test with these parameters: `start`, the histogram's sweep with
    /// `go` low (as the session opens the connection only after it), then
    /// `go`.
    fn start(&mut self, initiator: bool, request: usize, response: usize, count: u64, outstanding: u64) {
        for (name, v) in [
            ("initiator", u64::from(initiator)),
            ("request_size", request as u64),
            ("response_size", response as u64),
            ("request_count", count),
            ("outstanding", outstanding),
            ("start", 1),
        ] {
            self.set(name, v);
        }
        self.step();
        self.set("start", 0);
        self.set("go", 0);
        self.set("enable", 1);
        self.set("m_tready", 1);
        for _ in 0..BUCKETS + 8 {
            if self.get("clearing") == 0 {
                break;
            }
            self.step();
        }
        assert_eq!(self.get("clearing"), 0, "the histogram's sweep did not end");
        self.set("go", 1);
    }

    /// The presented TX beat's kept bytes and `tlast`, if any; the keep
    /// must be contiguous from byte 0.
    fn presented(&self) -> Option<(Vec<u8>, bool)> {
        if self.get("m_tvalid") == 0 {
            return None;
        }
        let mut data = vec![0u32; self.width / 32];
        self.m.get_wide(self.port("m_tdata"), &mut data);
        let mut keep = vec![0u32; self.width.div_ceil(256)];
        self.m.get_wide(self.port("m_tkeep"), &mut keep);
        let beat = self.width / 8;
        let kept: Vec<bool> = (0..beat).map(|i| keep[i / 32] >> (i % 32) & 1 == 1).collect();
        let n = kept.iter().take_while(|k| **k).count();
        assert!(n > 0 && kept[n..].iter().all(|k| !k), "keep {keep:x?}");
        let bytes: Vec<u8> = data.iter().flat_map(|w| w.to_le_bytes()).take(n).collect();
        Some((bytes, self.get("m_tlast") == 1))
    }

    /// Every histogram bucket through `hist_index`/`hist_count`.
    fn histogram(&mut self) -> Vec<u64> {
        let mut out = Vec::new();
        for b in 0..=BUCKETS {
            if b > 0 {
                out.push(self.get("hist_count"));
            }
            self.set("hist_index", b.min(BUCKETS - 1));
            self.step();
        }
        out
    }
}

/// One direction of messages of `size` bytes, the pattern continuing
/// across them, each from lane 0 of a beat: checks the beats the block
/// sends and says where messages begin and end.
struct Sent {
    size: u64,
    offset: u64,
}

impl Sent {
    /// A taken beat: it is the pattern at the offset reached, stays inside
    /// its message and has `tlast` exactly at the message's end. Returns
    /// (the index of the message it begins, if any; of the one it ends).
    fn take(&mut self, bytes: &[u8], last: bool, what: &str) -> (Option<u64>, Option<u64>) {
        let mut want = vec![0u8; bytes.len()];
        pattern::fill(&mut want, self.offset);
        assert_eq!(bytes, want, "{what}: the beat at stream offset {}", self.offset);
        let into = self.offset % self.size;
        let begins = (into == 0).then_some(self.offset / self.size);
        assert!(into + bytes.len() as u64 <= self.size, "{what}: a beat across a message's end at {}", self.offset);
        self.offset += bytes.len() as u64;
        let ends = self.offset.is_multiple_of(self.size);
        assert_eq!(last, ends, "{what}: tlast at stream offset {}", self.offset);
        (begins, ends.then(|| self.offset / self.size - 1))
    }
}

/// What the peer sends the block: messages of `size` bytes, each available
/// from its cycle on, packed into beats as they come (a beat may hold the
/// end of one and the start of the next); a presented beat stays until the
/// block takes it.
struct Received {
    beat: usize,
    size: u64,
    /// Bytes that may be presented now.
    available: u64,
    /// Messages not yet available: (from cycle, bytes).
    due: VecDeque<(u64, u64)>,
    offset: u64,
    presented: Option<usize>,
}

impl Received {
    fn new(beat: usize, size: u64) -> Self {
        Received { beat, size, available: 0, due: VecDeque::new(), offset: 0, presented: None }
    }

    /// The beat to offer in `cycle` (`valid` when a new one may appear),
    /// and whether the block takes it (`ready`): the bytes taken, and the
    /// indices of the messages whose last byte they hold.
    fn step(&mut self, cycle: u64, valid: bool, ready: bool) -> Option<(u64, Vec<u64>)> {
        while self.due.front().is_some_and(|&(at, _)| at <= cycle) {
            self.available += self.due.pop_front().unwrap().1;
        }
        if self.presented.is_none() && valid && self.available > 0 {
            self.presented = Some(self.available.min(self.beat as u64) as usize);
        }
        let n = self.presented.filter(|_| ready)? as u64;
        self.presented = None;
        self.available -= n;
        let first_end = self.offset / self.size;
        self.offset += n;
        let ended = (first_end..self.offset / self.size).collect();
        Some((n, ended))
    }
}

/// A delay drawn from one of a few shapes: short and fixed, uniform, or a
/// long tail, so the round trips fill many buckets.
fn draw_delay(rng: &mut impl Rng, shape: u32) -> u64 {
    match shape {
        0 => 3,
        1 => rng.gen_range(0..200),
        _ => {
            if rng.gen_ratio(1, 10) {
                rng.gen_range(500..5_000)
            } else {
                rng.gen_range(0..40)
            }
        }
    }
}

fn random_size(rng: &mut impl Rng, beat: usize) -> usize {
    match rng.gen_range(0..5) {
        0 => 1,
        1 => rng.gen_range(1..beat),
        2 => beat,
        3 => rng.gen_range(beat..4 * beat),
        _ => rng.gen_range(1..=3 * beat),
    }
}

/// One initiator test at `width` bits against an echoing peer; returns the
/// round trips measured.
fn initiator_run(width: usize, rng: &mut impl Rng) -> u64 {
    let beat = width / 8;
    let (request, response) = (random_size(rng, beat), random_size(rng, beat));
    let count = rng.gen_range(1..60u64);
    // 0 is one at a time, as 1.
    let written = if rng.gen_bool(0.3) { rng.gen_range(0..=1) } else { rng.gen_range(1..=16u64) };
    let outstanding = written.max(1);
    let shape = rng.gen_range(0..3);
    let (p_enable, p_ready, p_valid, p_take) =
        (rng.gen_range(0.3..1.0), rng.gen_range(0.3..1.0), rng.gen_range(0.3..1.0), rng.gen_range(0.3..1.0));
    let what = format!("{width} bits, {request} -> {response} bytes, {count} requests, {outstanding} in flight");
    let mut dut = Dut::new(width);
    dut.start(true, request, response, count, written);

    let mut sent = Sent { size: request as u64, offset: 0 };
    let mut received = Received::new(beat, response as u64);
    let (mut began, mut ended) = (Vec::<u64>::new(), 0u64);
    let (mut moments, mut histogram) = (Moments::new(), Histogram::new());
    let (mut last_end_cycle, mut last_rtt) = (None, 0);
    let limit = dut.cycle + 400_000;
    while dut.get("done") == 0 {
        assert!(dut.cycle < limit, "{what}: not done after {} cycles, {ended} responses ended", limit);
        let c = dut.cycle;
        let enable = rng.gen_bool(p_enable);
        let ready = rng.gen_bool(p_ready);
        dut.set("enable", u64::from(enable));
        dut.set("m_tready", u64::from(ready));
        if let Some((bytes, last)) = dut.presented().filter(|_| ready) {
            let (begins, ends) = sent.take(&bytes, last, &what);
            if let Some(k) = begins {
                assert_eq!(k, began.len() as u64);
                began.push(c);
                assert!(k < count, "{what}: request {k} of {count}");
                assert!(k < ended + outstanding, "{what}: request {k} began with {ended} answered");
            }
            if ends.is_some() {
                received.due.push_back((c + 1 + draw_delay(rng, shape), response as u64));
            }
        }
        let take = dut.get("rx_ready") == 1 && rng.gen_bool(p_take);
        let taken = received.step(c, rng.gen_bool(p_valid), take);
        dut.take(taken.as_ref().map(|t| t.0));
        for k in taken.map(|t| t.1).unwrap_or_default() {
            let rtt = c - began[k as usize];
            moments.record(rtt);
            histogram.record(rtt);
            last_rtt = rtt;
            ended += 1;
            last_end_cycle = Some(c);
        }
        dut.step();
        assert!(dut.get("in_flight") <= outstanding, "{what}: {} in flight", dut.get("in_flight"));
        if dut.get("done") == 1 {
            assert_eq!(ended, count, "{what}: done with {ended} responses ended");
        }
    }
    // `done` follows the last response's last byte by two cycles (its end
    // shows the cycle after the take, and `done` the cycle after that) or
    // more when several ended in that beat.
    let after = dut.cycle - last_end_cycle.unwrap();
    assert!((2..=2 + 16).contains(&after), "{what}: done {after} cycles after the last byte");
    for _ in 0..8 {
        dut.step();
    }
    assert_eq!(dut.get("m_tvalid"), 0, "{what}: a beat after the last request");
    assert_eq!(began.len() as u64, count, "{what}");
    let got = (
        dut.get("rtt_count"),
        dut.get("rtt_min"),
        dut.get("rtt_max"),
        u128::from(dut.get("rtt_sum")),
        dut.wide("rtt_sum_sq"),
        u128::from(dut.get("rtt_jitter_sum")),
    );
    let m = &moments;
    assert_eq!(got, (m.count, m.min, m.max, m.sum, m.sum_sq, m.jitter_sum), "{what}: the moments");
    let read = dut.histogram();
    // Every sample is below 2^32 cycles, so in the hardware's buckets.
    assert_eq!(histogram.total(), (0..BUCKETS as usize).map(|i| histogram.count(i)).sum::<u64>());
    let wrong: Vec<(usize, u64, u64)> = (0..BUCKETS as usize)
        .filter(|&i| read[i] != histogram.count(i))
        .map(|i| (i, read[i], histogram.count(i)))
        .collect();
    assert!(wrong.is_empty(), "{what}: buckets (index, read, expected) {wrong:?}");
    assert_eq!(
        (dut.get("sent"), dut.get("received"), dut.get("tx_bytes"), dut.get("fault"), dut.get("tx_busy")),
        (count, count, count * request as u64, 0, 0),
        "{what}: sent, received, tx_bytes, fault, tx_busy"
    );
    assert_eq!((dut.get("rtt_last"), dut.get("in_flight")), (last_rtt, 0), "{what}: rtt_last, in_flight");
    count
}

/// One echo test at `width` bits: the peer sends `count` requests as fast
/// as the block takes them; returns the beats in which several requests
/// ended (the block then holds `rx_ready` low). `short`: requests of at
/// most a third of a beat, and at least 40 of them, so that beats hold
/// several ends whatever the seed draws elsewhere.
fn echo_run(width: usize, rng: &mut impl Rng, short: bool) -> u64 {
    let beat = width / 8;
    let (mut request, response) = (random_size(rng, beat), random_size(rng, beat));
    let mut count = rng.gen_range(1..80u64);
    if short {
        request = rng.gen_range(1..=(beat / 3).max(1));
        count = rng.gen_range(40..80);
    }
    let (p_enable, p_ready, p_valid, p_take) =
        (rng.gen_range(0.3..1.0), rng.gen_range(0.3..1.0), rng.gen_range(0.3..1.0), rng.gen_range(0.3..1.0));
    let what = format!("{width} bits, echo of {request} -> {response} bytes, {count} requests");
    let mut dut = Dut::new(width);
    // The initiator's parameters must not matter to an echo.
    dut.start(false, request, response, rng.gen_range(0..3), rng.gen_range(1..=16));
    let mut received = Received::new(beat, request as u64);
    received.due.push_back((0, count * request as u64));
    let mut sent = Sent { size: response as u64, offset: 0 };
    let (mut ended_at, mut answered, mut several) = (Vec::<u64>::new(), 0u64, 0u64);
    let limit = dut.cycle + 400_000;
    while answered < count {
        assert!(dut.cycle < limit, "{what}: {answered} answered after {limit} cycles");
        let c = dut.cycle;
        let ready = rng.gen_bool(p_ready);
        dut.set("enable", u64::from(rng.gen_bool(p_enable)));
        dut.set("m_tready", u64::from(ready));
        if let Some((bytes, last)) = dut.presented().filter(|_| ready) {
            let (begins, ends) = sent.take(&bytes, last, &what);
            if let Some(k) = begins {
                // The block sees a request's end the cycle after its byte
                // was taken and asks for its response the cycle after.
                let end = ended_at.get(k as usize).copied();
                assert!(
                    end.is_some_and(|e| c >= e + 2),
                    "{what}: response {k} at cycle {c}, its request ended {end:?}"
                );
            }
            answered += u64::from(ends.is_some());
        }
        let take = dut.get("rx_ready") == 1 && rng.gen_bool(p_take);
        let taken = received.step(c, rng.gen_bool(p_valid), take);
        dut.take(taken.as_ref().map(|t| t.0));
        if let Some((_, ended)) = taken {
            several += u64::from(ended.len() > 1);
            ended_at.extend(ended.iter().map(|_| c));
        }
        dut.step();
    }
    for _ in 0..8 {
        dut.step();
    }
    assert_eq!(
        (dut.get("sent"), dut.get("received"), dut.get("owed"), dut.get("tx_busy"), dut.get("m_tvalid")),
        (count, count, 0, 0, 0),
        "{what}: sent, received, owed, tx_busy, m_tvalid"
    );
    assert_eq!(
        (dut.get("rtt_count"), dut.get("done"), dut.get("fault")),
        (0, 0, 0),
        "{what}: an echo measures nothing"
    );
    several
}

#[test]
fn the_echo_answers_every_request_after_it_ended() {
    let mut rng = seeded_inputs::seed::rng("the_echo_answers_every_request_after_it_ended");
    let mut several = 0;
    for width in WIDTHS {
        for run in 0..12 {
            several += echo_run(width, &mut rng, run == 0);
        }
    }
    assert!(several > 20, "{several} beats held several requests' ends");
}

/// A response before any request (the peer sends unasked) has no stamp:
/// `fault`, until the next `start`. It answers nothing, so the initiator
/// still sends its requests afterwards.
#[test]
fn a_response_before_its_request_is_a_fault() {
    let mut dut = Dut::new(64);
    dut.start(true, 8, 8, 4, 1);
    dut.set("go", 0);
    assert_eq!(dut.get("fault"), 0);
    dut.take(Some(8));
    dut.step();
    dut.take(None);
    for _ in 0..4 {
        dut.step();
    }
    assert_eq!((dut.get("received"), dut.get("fault"), dut.get("in_flight")), (1, 1, 0));
    dut.set("go", 1);
    let mut sent = false;
    for _ in 0..8 {
        sent |= dut.get("m_tvalid") == 1;
        dut.step();
    }
    assert!(sent, "no request after the unasked response");
    assert_eq!(dut.get("sent"), 1);
    dut.start(true, 8, 8, 4, 1);
    assert_eq!(dut.get("fault"), 0);
}

#[test]
fn the_initiator_measures_every_round_trip_to_the_cycle() {
    let mut rng = seeded_inputs::seed::rng("the_initiator_measures_every_round_trip_to_the_cycle");
    let mut measured = 0;
    for width in WIDTHS {
        for _ in 0..12 {
            measured += initiator_run(width, &mut rng);
        }
    }
    assert!(measured > 300, "{measured} round trips");
}

/// Received messages of a beat or more are taken one beat a cycle (a beat
/// then holds at most one end, so `rx_ready` never falls); shorter ones
/// every other cycle at most (the beat just taken may hold several ends).
#[test]
fn rx_ready_holds_back_only_beats_that_may_hold_several_ends() {
    for (width, response, want_every_cycle) in
        [(64usize, 8usize, true), (64, 21, true), (512, 64, true), (512, 63, false), (64, 3, false)]
    {
        let beat = (width / 8) as u64;
        let mut dut = Dut::new(width);
        dut.start(true, 1, response, 1, 1);
        dut.set("go", 0);
        let (mut taken, mut cycles) = (0u64, 0u64);
        while taken < 40 * beat {
            let ready = dut.get("rx_ready") == 1;
            dut.take(ready.then_some(beat));
            taken += if ready { beat } else { 0 };
            cycles += 1;
            dut.step();
        }
        dut.take(None);
        let beats = taken / beat;
        if want_every_cycle {
            assert_eq!(cycles, beats, "{width} bits, {response}-byte messages: {beats} beats in {cycles} cycles");
        } else {
            assert!(
                cycles >= 2 * beats - 1,
                "{width} bits, {response}-byte messages: {beats} beats in {cycles} cycles"
            );
        }
        for _ in 0..2 * beat {
            dut.step();
        }
        assert_eq!(dut.get("received"), taken / response as u64, "{width} bits, {response}-byte messages");
    }
}
