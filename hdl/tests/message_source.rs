//! The latency modes' transmit stream (`MessageSource`), as the project's
//! writer emits it and Verilator builds it, at every data width, against
//! the `pattern` crate and a model of the messages owed: every beat the TOE
//! takes is the next beat of the next message (its bytes the pattern at the
//! stream offset the messages before it reached, its keep and `tlast`), a
//! presented beat never changes before it is taken, `first` marks each
//! message's first beat, the counts follow, and with the TOE and the rate
//! limiter always ready messages leave back to back. Seeded random sizes,
//! sends, backpressure, rate limiting, restarts and aborts (`TB_SEED=<n>`
//! replays a run). Also `verilator --lint-only -Wall`.

mod common;

use rand::Rng;
use verilate::Model;

const BLOCK: common::WidthBlock =
    common::WidthBlock { name: "message_source", modules: hdl::verilog::message_source_modules };

#[test]
fn verilator_lint_is_clean_at_every_width() {
    BLOCK.lint_every_width();
}

/// The verilated source at `width` bits, after an idle cycle (Verilator's
/// first evaluation sees no edge).
struct Dut {
    m: Model,
    width: usize,
    p: [verilate::Port; 15],
}

const NAMES: [&str; 15] = [
    "start",
    "abort_req",
    "size",
    "send",
    "enable",
    "m_tready",
    "busy",
    "first",
    "owed",
    "messages",
    "bytes_sent",
    "m_tdata",
    "m_tkeep",
    "m_tlast",
    "m_tvalid",
];

/// A beat as the TOE sees it: its kept bytes and `tlast`.
#[derive(Clone, Debug, PartialEq)]
struct Beat {
    bytes: Vec<u8>,
    last: bool,
}

impl Dut {
    fn new(width: usize) -> Dut {
        let mut m = Model::new(BLOCK.model(width));
        m.set_clock("clock");
        m.cycle();
        let p = NAMES.map(|n| m.port(n));
        Dut { m, width, p }
    }

    fn set(&mut self, name: &str, v: u64) {
        let i = NAMES.iter().position(|n| *n == name).unwrap();
        self.m.set(self.p[i], v);
    }

    fn get(&self, name: &str) -> u64 {
        let i = NAMES.iter().position(|n| *n == name).unwrap();
        self.m.get(self.p[i])
    }

    /// The presented beat, if any (data, keep, last).
    fn presented(&self) -> Option<(Vec<u32>, Vec<u32>, bool)> {
        if self.get("m_tvalid") == 0 {
            return None;
        }
        let mut data = vec![0u32; self.width / 32];
        self.m.get_wide(self.p[11], &mut data);
        let mut keep = vec![0u32; self.width.div_ceil(256)];
        self.m.get_wide(self.p[12], &mut keep);
        Some((data, keep, self.get("m_tlast") == 1))
    }
}

/// The beat a presented (data, keep, last) carries: the kept bytes, which
/// must be contiguous from byte 0.
fn beat_of(width: usize, (data, keep, last): &(Vec<u32>, Vec<u32>, bool)) -> Beat {
    let bytes: Vec<u8> = data.iter().flat_map(|w| w.to_le_bytes()).collect();
    let kept: Vec<bool> = (0..width / 8).map(|i| keep[i / 32] >> (i % 32) & 1 == 1).collect();
    let n = kept.iter().take_while(|k| **k).count();
    assert!(kept[n..].iter().all(|k| !k), "keep not contiguous from byte 0: {keep:x?}");
    assert!(n > 0, "a beat with no bytes");
    Beat { bytes: bytes[..n].to_vec(), last: *last }
}

/// The model: the beats of message after message of `size` bytes, each
/// starting a new beat, the pattern at the stream offset reached.
struct Messages {
    beat_bytes: usize,
    size: usize,
    offset: u64,
    /// Bytes of the message under way still to go (0: none).
    left: usize,
    begun: u64,
}

impl Messages {
    fn new(beat_bytes: usize, size: usize) -> Self {
        Messages { beat_bytes, size, offset: 0, left: 0, begun: 0 }
    }

    /// The next beat, and whether it begins a message.
    fn next(&mut self) -> (Beat, bool) {
        let first = self.left == 0;
        if first {
            self.left = self.size;
            self.begun += 1;
        }
        let n = self.left.min(self.beat_bytes);
        let mut bytes = vec![0u8; n];
        pattern::fill(&mut bytes, self.offset);
        self.offset += n as u64;
        self.left -= n;
        (Beat { bytes, last: self.left == 0 }, first)
    }
}

fn random_size(rng: &mut impl Rng, beat: usize) -> usize {
    match rng.gen_range(0..6) {
        0 => 1,
        1 => rng.gen_range(1..beat),
        2 => beat,
        3 => beat * rng.gen_range(2..4) + rng.gen_range(0..beat),
        4 => rng.gen_range(1..=65_535.min(beat * 40)),
        _ => rng.gen_range(1..=3 * beat),
    }
}

/// Random traffic at `width` bits for `cycles`, checked beat by beat.
fn random_run(width: usize, cycles: u64, rng: &mut impl Rng) {
    let beat = width / 8;
    let mut dut = Dut::new(width);
    let mut model = Messages::new(beat, 1);
    let (mut sends, mut taken_bytes, mut taken_messages) = (0u64, 0u64, 0u64);
    let mut held: Option<(Vec<u32>, Vec<u32>, bool)> = None;
    let mut restart = true;
    let (p_ready, p_enable) = (rng.gen_range(0.3..1.0), rng.gen_range(0.3..1.0));
    let mut checked_messages = 0u64;
    for cycle in 0..cycles {
        let (start, abort) = (restart, !restart && rng.gen_ratio(1, 20_000));
        let size = random_size(rng, beat);
        dut.set("start", u64::from(start));
        dut.set("abort_req", u64::from(abort));
        dut.set("size", size as u64);
        let send = !start && !abort && dut.get("owed") < 3 && rng.gen_bool(0.3);
        dut.set("send", u64::from(send));
        dut.set("enable", u64::from(rng.gen_bool(p_enable)));
        let ready = rng.gen_bool(p_ready);
        dut.set("m_tready", u64::from(ready));
        let shown = dut.presented();
        if let Some(h) = &held {
            assert_eq!(shown.as_ref(), Some(h), "cycle {cycle}: a presented beat changed before it was taken");
        }
        let taken = shown.clone().filter(|_| ready);
        assert_eq!(dut.get("first") == 1, taken.is_some() && model.left == 0, "first, cycle {cycle}");
        if let Some(t) = &taken {
            let (want, first) = model.next();
            assert!(!first || model.begun <= sends, "cycle {cycle}: message {} begun, {sends} sent", model.begun);
            assert_eq!(beat_of(width, t), want, "cycle {cycle}: {width} bits, size {}", model.size);
            taken_bytes += want.bytes.len() as u64;
            taken_messages += u64::from(want.last);
        }
        held = shown.filter(|_| !ready);
        dut.m.cycle();
        if start {
            model = Messages::new(beat, size);
            (sends, taken_bytes, taken_messages, held) = (0, 0, 0, None);
            restart = false;
        } else if abort {
            held = None;
            restart = true;
        } else {
            sends += u64::from(send);
            assert_eq!(dut.get("bytes_sent"), taken_bytes, "bytes_sent, cycle {cycle}");
            assert_eq!(dut.get("messages"), taken_messages, "messages, cycle {cycle}");
            checked_messages += u64::from(taken.as_ref().is_some_and(|t| t.2));
            restart = rng.gen_ratio(1, 5_000) && dut.get("busy") == 0;
        }
    }
    assert!(checked_messages > 1_000, "{width} bits: {checked_messages} messages checked");
}

#[test]
fn every_beat_taken_is_the_next_of_the_messages_owed() {
    let mut rng = seeded_inputs::seed::rng("every_beat_taken_is_the_next_of_the_messages_owed");
    for width in config::DATA_WIDTHS {
        random_run(width, 150_000, &mut rng);
    }
}

/// With the TOE and the rate limiter always ready, messages owed leave one
/// beat a cycle, back to back, and `busy` falls when the last is taken.
#[test]
fn messages_owed_leave_back_to_back() {
    for (width, size) in [(1024usize, 64usize), (1024, 200), (1024, 256), (64, 13)] {
        let beat = width / 8;
        let mut dut = Dut::new(width);
        dut.set("start", 1);
        dut.set("size", size as u64);
        dut.m.cycle();
        dut.set("start", 0);
        dut.set("enable", 1);
        dut.set("m_tready", 1);
        let beats = 5 * size.div_ceil(beat);
        let mut valid = Vec::new();
        for c in 0..beats + 8 {
            dut.set("send", u64::from(c < 5));
            valid.push(dut.get("m_tvalid") == 1);
            dut.m.cycle();
        }
        let run: Vec<bool> = valid.iter().copied().skip_while(|v| !v).collect();
        let ones = run.iter().take_while(|v| **v).count();
        assert_eq!(ones, beats, "{width} bits, size {size}: {valid:?}");
        assert_eq!(dut.get("messages"), 5);
        assert_eq!(dut.get("bytes_sent"), 5 * size as u64);
        assert_eq!(dut.get("busy"), 0);
    }
}
