//! The data verifier, end to end: the session's own generator produces a
//! transfer, the test injects one fault into the beats, and the session's
//! verifier receives them under random backpressure. Each result is checked
//! against a reference written from the verifier's specification.

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use testbench::dut::{Beat, Dut};
use testbench::models::{self, DATAPATH_MODELS};
use testbench::seed;

use hdl::data_verifier::{CAUSE_BEYOND, CAUSE_MISMATCH, CAUSE_SHORT};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    BitFlip,
    DroppedBeat,
    DuplicatedBeat,
    SwappedBeats,
    CorruptPartialLast,
    OneByteShort,
    OneByteLong,
}

const FAULTS: [Fault; 7] = [
    Fault::BitFlip,
    Fault::DroppedBeat,
    Fault::DuplicatedBeat,
    Fault::SwappedBeats,
    Fault::CorruptPartialLast,
    Fault::OneByteShort,
    Fault::OneByteLong,
];

/// The first error as the specification defines it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Record {
    cause: u64,
    offset: u64,
    expected: u32,
    received: u32,
}

/// Each beat covers the stream bytes after those the beats before it kept
/// (a beat may be partial at any push, not only at the end); kept bytes
/// inside the transfer must match the pattern, and the record's words are
/// the 4 bytes of the wrong byte's lane, expected and received; a beat with
/// bytes past the size (or starting past it) is "beyond" at offset = size;
/// fewer bytes than the size at the end is "short" at offset = bytes
/// received.
fn reference(beats: &[Beat], size: u64, b: usize, verify: bool) -> Option<Record> {
    let mut total = 0u64;
    for beat in beats {
        let base = total;
        for i in 0..b {
            let at = base + i as u64;
            if verify && beat.kept(i) && at < size && beat.byte(i) != pattern::byte_at(at) {
                let mut lane = [0u8; 4];
                pattern::fill(&mut lane, base + 4 * (i / 4) as u64);
                return Some(Record {
                    cause: CAUSE_MISMATCH,
                    offset: at,
                    expected: u32::from_le_bytes(lane),
                    received: beat.data[i / 4],
                });
            }
        }
        let count = beat.count() as u64;
        if base >= size || count > size - base {
            let room = size.saturating_sub(base) as usize;
            return Some(Record {
                cause: CAUSE_BEYOND,
                offset: size,
                expected: pattern::word_at(size / 4),
                received: beat.data[room / 4],
            });
        }
        total += count;
    }
    (total < size).then(|| Record {
        cause: CAUSE_SHORT,
        offset: total,
        expected: pattern::word_at(total / 4),
        received: 0,
    })
}

/// The pattern beat that would follow `beats` (for a one-byte-long fault).
fn pattern_beat(index: usize, b: usize, keep_bytes: usize) -> Beat {
    let words = b / 4;
    let data = (0..words).map(|i| pattern::word_at((index * words + i) as u64)).collect();
    let mut beat = Beat { data, keep: vec![0; b.div_ceil(32)], last: true };
    for i in 0..keep_bytes {
        beat.set_kept(i, true);
    }
    beat
}

fn inject(fault: Fault, beats: &mut Vec<Beat>, size: u64, b: usize, rng: &mut ChaCha8Rng) {
    let n = beats.len();
    match fault {
        Fault::BitFlip => {
            let j = rng.gen_range(0..n);
            let i = rng.gen_range(0..beats[j].count());
            let v = beats[j].byte(i) ^ (1 << rng.gen_range(0..8));
            beats[j].set_byte(i, v);
        }
        Fault::DroppedBeat => {
            beats.remove(rng.gen_range(0..n));
        }
        Fault::DuplicatedBeat => {
            let j = rng.gen_range(0..n);
            let copy = beats[j].clone();
            beats.insert(j + 1, copy);
        }
        Fault::SwappedBeats => {
            let j = rng.gen_range(0..n - 1);
            beats.swap(j, j + 1);
        }
        Fault::CorruptPartialLast => {
            let last = beats.last_mut().unwrap();
            let i = rng.gen_range(0..last.count());
            let v = last.byte(i) ^ rng.gen_range(1..=255u8);
            last.set_byte(i, v);
        }
        Fault::OneByteShort => {
            let last = beats.last_mut().unwrap();
            let c = last.count();
            if c == 1 {
                beats.pop();
            } else {
                last.set_kept(c - 1, false);
            }
        }
        Fault::OneByteLong => {
            let last = beats.last_mut().unwrap();
            let c = last.count();
            if c < b {
                last.set_kept(c, true);
                last.set_byte(c, pattern::byte_at(size));
            } else {
                beats.push(pattern_beat(n, b, 1));
            }
        }
    }
}

/// Sizes that give each fault something to work on.
fn size_for(fault: Fault, b: usize, rng: &mut ChaCha8Rng) -> u64 {
    let b = b as u64;
    match fault {
        Fault::SwappedBeats => rng.gen_range(b + 1..=24 * b),
        Fault::CorruptPartialLast => {
            let s = rng.gen_range(1..=24 * b);
            if s % b == 0 {
                s - 1
            } else {
                s
            }
        }
        _ => rng.gen_range(1..=24 * b),
    }
}

struct Outcome {
    error: bool,
    complete: bool,
    bytes: u64,
    count: u64,
    record: Option<Record>,
}

/// Session `s`'s verifier receives `beats`, a transfer of `size` bytes in
/// packets of `packet`, under random backpressure; then the peer's close,
/// and time for the first-error record to complete.
fn receive(dut: &mut Dut, s: usize, size: u64, packet: u64, beats: &[Beat], rng: &mut ChaCha8Rng) {
    let b = dut.beat_bytes;
    dut.start(s, size, packet, true, true, false, true);
    let p_rx = rng.gen_range(0.3..1.0);
    let mut r = ChaCha8Rng::from_rng(&mut *rng).unwrap();
    dut.play_rx(s, beats, || r.gen_bool(p_rx));
    dut.idle(6);
    dut.pulse(dut.sessions[s].rx_end);
    dut.idle(b / 4 + 8);
}

/// Generates a transfer on session `s`, applies `fault`, receives it, and reads the verifier.
fn run_one(
    dut: &mut Dut,
    s: usize,
    size: u64,
    fault: Option<Fault>,
    rng: &mut ChaCha8Rng,
) -> (Outcome, Option<Record>) {
    let b = dut.beat_bytes;
    let packet = rng.gen_range(0..=4 * b as u64);
    dut.start(s, size, packet, true, true, true, false);
    let beats_total = size.div_ceil(b as u64);
    let p_tx = rng.gen_range(0.3..1.0);
    let mut r = ChaCha8Rng::from_rng(&mut *rng).unwrap();
    let mut beats = dut.collect_tx(s, beats_total, || r.gen_bool(p_tx));
    if let Some(f) = fault {
        inject(f, &mut beats, size, b, rng);
    }
    let want = reference(&beats, size, b, true);
    receive(dut, s, size, packet, &beats, rng);
    let p = &dut.sessions[s];
    let m = &dut.model;
    let valid = m.bit(p.rx_err_valid);
    let outcome = Outcome {
        error: m.bit(p.rx_error),
        complete: m.bit(p.rx_complete),
        bytes: m.get(p.rx_bytes),
        count: m.get(p.rx_err_count),
        record: valid.then(|| Record {
            cause: m.get(p.rx_err_cause),
            offset: m.get(p.rx_err_offset),
            expected: m.get(p.rx_err_expected) as u32,
            received: m.get(p.rx_err_received) as u32,
        }),
    };
    (outcome, want)
}

#[test]
fn fault_campaign_every_fault_found_at_its_offset_and_no_false_alarm() {
    let mut rng = seed::rng("fault campaign");
    let mut injected = 0;
    let mut detected = 0;
    let mut clean = 0;
    let mut false_alarms = 0;
    models::each(DATAPATH_MODELS, "fault_campaign_every_fault_found_at_its_offset_and_no_false_alarm", |m| {
        let mut dut = Dut::new(&(m.top)());
        let w = dut.beat_bytes * 8;
        for round in 0..504 {
            let fault = FAULTS[round % FAULTS.len()];
            let s = rng.gen_range(0..dut.sessions.len());
            let size = size_for(fault, dut.beat_bytes, &mut rng);
            let (got, want) = run_one(&mut dut, s, size, Some(fault), &mut rng);
            injected += 1;
            let want = want.unwrap_or_else(|| panic!("{w}-bit {fault:?} size {size}: the reference sees no error"));
            assert!(got.error, "{w}-bit {fault:?} size {size}: not detected");
            assert!(got.count >= 1, "{w}-bit {fault:?}: error count {}", got.count);
            assert_eq!(got.record, Some(want), "{w}-bit {fault:?} size {size}: first-error record");
            detected += 1;
        }
        for _ in 0..500 {
            let s = rng.gen_range(0..dut.sessions.len());
            let size = rng.gen_range(1..=24 * dut.beat_bytes as u64);
            let (got, want) = run_one(&mut dut, s, size, None, &mut rng);
            assert_eq!(want, None);
            clean += 1;
            if got.error || got.record.is_some() || got.count != 0 {
                false_alarms += 1;
            }
            assert!(
                !got.error && got.count == 0 && got.record.is_none(),
                "{w}-bit clean size {size}: false alarm {:?}",
                got.record
            );
            assert!(got.complete, "{w}-bit clean size {size}: not complete");
            assert_eq!(got.bytes, size, "{w}-bit clean: byte count");
        }
    });
    println!("faults injected {injected}, detected {detected}; clean runs {clean}, false alarms {false_alarms}");
    assert!(injected >= 1000 && clean >= 1000);
    assert_eq!(detected, injected);
    assert_eq!(false_alarms, 0);
}

/// The pattern from `size` bytes cut into beats as a TOE delivers them:
/// whole beats, and a partial one (with `tlast`) wherever the sender
/// pushed, one beat in three on average, and at the end.
fn pushed_beats(size: u64, b: usize, rng: &mut ChaCha8Rng) -> Vec<Beat> {
    let mut beats = Vec::new();
    let mut at = 0u64;
    while at < size {
        let n = if rng.gen_bool(0.3) { rng.gen_range(1..=b) } else { b }.min((size - at) as usize);
        let mut bytes = vec![0u8; b];
        pattern::fill(&mut bytes[..n], at);
        let data = bytes.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        let mut beat = Beat { data, keep: vec![0; b.div_ceil(32)], last: n < b || at + n as u64 == size };
        for i in 0..n {
            beat.set_kept(i, true);
        }
        beats.push(beat);
        at += n as u64;
    }
    beats
}

/// Partial beats in the middle of the stream, where the TOE pushed (a PSH,
/// its push timeout): every byte is checked at its own offset, so a clean
/// stream raises nothing and a flipped byte is found at its offset with
/// its lane's words, under random backpressure.
#[test]
fn partial_beats_at_pushes_are_checked_at_their_own_offsets() {
    let mut rng = seed::rng("pushes");
    let (mut clean, mut flipped, mut partial) = (0, 0, 0);
    models::each(DATAPATH_MODELS, "partial_beats_at_pushes_are_checked_at_their_own_offsets", |m| {
        let mut dut = Dut::new(&(m.top)());
        let b = dut.beat_bytes;
        let w = b * 8;
        for round in 0..200 {
            let s = rng.gen_range(0..dut.sessions.len());
            let size = rng.gen_range(1..=24 * b as u64);
            let mut beats = pushed_beats(size, b, &mut rng);
            partial += beats.iter().filter(|beat| beat.count() < b).count().saturating_sub(1);
            let flip = round % 2 == 1;
            if flip {
                let j = rng.gen_range(0..beats.len());
                let i = rng.gen_range(0..beats[j].count());
                let v = beats[j].byte(i) ^ (1 << rng.gen_range(0..8));
                beats[j].set_byte(i, v);
            }
            let want = reference(&beats, size, b, true);
            assert_eq!(want.is_some(), flip, "{w}-bit size {size}: the reference");
            receive(&mut dut, s, size, 0, &beats, &mut rng);
            let p = &dut.sessions[s];
            let m = &dut.model;
            let got = m.bit(p.rx_err_valid).then(|| Record {
                cause: m.get(p.rx_err_cause),
                offset: m.get(p.rx_err_offset),
                expected: m.get(p.rx_err_expected) as u32,
                received: m.get(p.rx_err_received) as u32,
            });
            assert_eq!(got, want, "{w}-bit size {size}, {} beats: first-error record", beats.len());
            assert_eq!(m.get(p.rx_bytes), size, "{w}-bit size {size}: bytes");
            assert!(m.bit(p.rx_complete), "{w}-bit size {size}: complete");
            if flip {
                flipped += 1;
            } else {
                assert!(!m.bit(p.rx_error), "{w}-bit size {size}: false alarm");
                clean += 1;
            }
        }
    });
    println!("pushes: {clean} clean runs, {flipped} with a flipped byte, {partial} partial beats before the last");
    assert!(clean >= 300 && flipped >= 300 && partial >= 3_000, "{clean} {flipped} {partial}");
}

#[test]
fn verification_off_counts_bytes_and_raises_no_error_on_any_data() {
    let mut rng = seed::rng("verify off");
    models::each(DATAPATH_MODELS, "verification_off_counts_bytes_and_raises_no_error_on_any_data", |m| {
        let mut dut = Dut::new(&(m.top)());
        let b = dut.beat_bytes;
        for _ in 0..20 {
            let size = rng.gen_range(1..=30 * b as u64);
            let n = size.div_ceil(b as u64) as usize;
            let beats: Vec<Beat> = (0..n)
                .map(|j| {
                    let mut beat = Beat {
                        data: (0..b / 4).map(|_| rng.gen()).collect(),
                        keep: vec![0; b.div_ceil(32)],
                        last: j + 1 == n,
                    };
                    let kept = if j + 1 == n { size as usize - j * b } else { b };
                    for i in 0..kept {
                        beat.set_kept(i, true);
                    }
                    beat
                })
                .collect();
            dut.start(1, size, 0, true, false, false, true);
            dut.play_rx(1, &beats, || rng.gen_bool(0.7));
            dut.idle(6);
            dut.pulse(dut.sessions[1].rx_end);
            dut.idle(b / 4 + 8);
            let p = &dut.sessions[1];
            assert!(!dut.model.bit(p.rx_error), "{}-bit: error with verification off", b * 8);
            assert_eq!(dut.model.get(p.rx_err_count), 0);
            assert_eq!(dut.model.get(p.rx_bytes), size);
            assert!(dut.model.bit(p.rx_complete));
        }
    });
}

/// TX wired straight to RX in the testbench: at 100 % both ways one beat
/// crosses every cycle, verified, and at 5 % TX the verifier still sees every byte.
#[test]
fn loopback_at_full_rate_moves_a_beat_every_cycle() {
    let mut rng = seed::rng("loopback");
    models::each(DATAPATH_MODELS, "loopback_at_full_rate_moves_a_beat_every_cycle", |m| {
        let mut dut = Dut::new(&(m.top)());
        let b = dut.beat_bytes as u64;
        for (tx_percent, packet) in [(100u64, 4 * b), (100, 3 * b + 1), (5, 0)] {
            let s = *[0usize, 1].choose(&mut rng).unwrap();
            let size = 500 * b + rng.gen_range(0..b);
            let beats = size.div_ceil(b);
            let pct = dut.sessions[s].tx_percent;
            dut.reset();
            dut.model.set(pct, tx_percent);
            dut.start(s, size, packet, true, true, true, true);
            let (tv, tr, rr) = (dut.sessions[s].tx_tvalid, dut.sessions[s].tx_tready, dut.sessions[s].rx_tready);
            let mut moved = 0u64;
            let (mut first, mut last) = (None, 0u64);
            let mut cycle = 0u64;
            while moved < beats {
                assert!(cycle < beats * 200 + 100, "loopback stalled at beat {moved}");
                let valid = dut.model.bit(tv);
                let beat = dut.tx_beat(s);
                dut.drive_rx(s, valid.then_some(&beat));
                dut.model.eval();
                let ready = dut.model.bit(rr);
                dut.model.set(tr, ready as u64);
                dut.model.eval();
                if valid && ready {
                    moved += 1;
                    first.get_or_insert(cycle);
                    last = cycle;
                }
                dut.model.cycle();
                cycle += 1;
            }
            dut.drive_rx(s, None);
            dut.idle(8);
            let p = &dut.sessions[s];
            assert!(!dut.model.bit(p.rx_error), "loopback error");
            assert_eq!(dut.model.get(p.rx_bytes), size);
            assert_eq!(dut.model.get(p.tx_bytes), size);
            let span = last - first.unwrap() + 1;
            if tx_percent == 100 {
                assert_eq!(span, beats, "{}-bit: {beats} beats took {span} cycles", b * 8);
            } else {
                let expected = (beats - 1) * 100 / tx_percent;
                assert!(
                    span.abs_diff(expected) <= 100 / tx_percent,
                    "{}-bit at {tx_percent}%: {beats} beats in {span} cycles",
                    b * 8
                );
            }
        }
    });
}

/// `clear` in the very cycle the first error is held cancels that capture
/// and restarts it: an error in the next beat is the record, with its own
/// data, not the cleared beat's. Beats arrive one a cycle; a beat driven in
/// cycle k is in the verifier's stage B in cycle k + 2, where its error is
/// held at the cycle's edge.
#[test]
fn clear_in_the_cycle_of_an_error_restarts_the_capture() {
    models::each(DATAPATH_MODELS, "clear_in_the_cycle_of_an_error_restarts_the_capture", |m| {
        let mut dut = Dut::new(&(m.top)());
        let b = dut.beat_bytes;
        let s = 0;
        let mut beats: Vec<Beat> = (0..8).map(|j| pattern_beat(j, b, b)).collect();
        let (first, second) = (beats[2].byte(0), beats[3].byte(b - 1));
        beats[2].set_byte(0, first ^ 0x01);
        beats[3].set_byte(b - 1, second ^ 0x80);
        dut.start(s, 8 * b as u64, 0, true, true, false, true);
        let (ready, clear) = (dut.sessions[s].rx_tready, dut.sessions[s].rx_clear);
        for k in 0..beats.len() + 2 {
            dut.drive_rx(s, beats.get(k));
            dut.model.set(clear, (k == 4) as u64);
            dut.model.eval();
            assert!(k >= beats.len() || dut.model.bit(ready), "{}-bit: beat {k} not taken", 8 * b);
            dut.model.cycle();
        }
        dut.model.set(clear, 0);
        dut.drive_rx(s, None);
        dut.idle(b / 4 + 8);
        let p = &dut.sessions[s];
        let at = (3 * b + b - 1) as u64;
        let got = Record {
            cause: dut.model.get(p.rx_err_cause),
            offset: dut.model.get(p.rx_err_offset),
            expected: dut.model.get(p.rx_err_expected) as u32,
            received: dut.model.get(p.rx_err_received) as u32,
        };
        let want = Record {
            cause: CAUSE_MISMATCH,
            offset: at,
            expected: pattern::word_at(at / 4),
            received: beats[3].data[(b - 1) / 4],
        };
        assert!(dut.model.bit(p.rx_err_valid), "{}-bit: no record", 8 * b);
        assert_eq!(got, want, "{}-bit: the record after a clear in the error's cycle", 8 * b);
        assert_eq!(dut.model.get(p.rx_err_count), 1, "{}-bit: errors counted after the clear", 8 * b);
    });
}
