//! The message-end logic (`MessageEnds`, issue 29's receive side), as the
//! project's writer emits it and Verilator builds it, cycle by cycle against
//! a model that counts bytes one at a time: seeded random sizes (below,
//! at and above a 1,024-bit beat), beat sizes, gaps and restarts
//! (`TB_SEED=<n>` replays a run). Also `verilator --lint-only -Wall`.

mod common;

use std::collections::VecDeque;
use std::path::PathBuf;

use rand::Rng;
use verilate::{Model, Source};

/// Bytes of a 1,024-bit beat, the widest the product builds.
const BEAT: u64 = 128;
const TOP: &str = "dut_message_ends";

fn cache() -> PathBuf {
    common::cache("message_ends")
}

fn sources() -> Vec<Source> {
    common::sources(&hdl::verilog::message_ends_modules("dut").unwrap())
}

#[test]
fn verilator_lint_is_clean() {
    common::lint(TOP, &sources(), &cache());
}

/// The model: a byte at a time, an end where a message's last byte is; the
/// ends of a beat taken in cycle t show in cycles t + 1, t + 2, ... with
/// lags 1, 2, ..., and no beat is taken before the last of them shows.
struct Reference {
    size: u64,
    left: u64,
    /// (cycle, lag) of the ends still to show.
    due: VecDeque<(u64, u64)>,
}

impl Reference {
    fn new(size: u64) -> Self {
        Reference { size, left: size, due: VecDeque::new() }
    }

    /// May a beat be taken in `cycle`?
    fn ready(&self, cycle: u64) -> bool {
        self.due.iter().all(|&(c, _)| c <= cycle)
    }

    fn take(&mut self, cycle: u64, bytes: u64) {
        let mut lag = 0;
        for _ in 0..bytes {
            self.left -= 1;
            if self.left == 0 {
                lag += 1;
                self.due.push_back((cycle + lag, lag));
                self.left = self.size;
            }
        }
    }

    /// The end shown in `cycle`, if any: its lag.
    fn shown(&mut self, cycle: u64) -> Option<u64> {
        while self.due.front().is_some_and(|&(c, _)| c < cycle) {
            self.due.pop_front();
        }
        self.due.front().filter(|&&(c, _)| c == cycle).map(|&(_, lag)| lag)
    }
}

fn random_size(rng: &mut impl Rng) -> u64 {
    match rng.gen_range(0..8) {
        0 => 1,
        1 => rng.gen_range(2..8),
        2 => rng.gen_range(8..BEAT),
        3 => BEAT,
        4 => BEAT + rng.gen_range(1..4),
        5 => rng.gen_range(BEAT..2_000),
        6 => 65_535,
        _ => rng.gen_range(1..=300),
    }
}

#[test]
fn every_end_shows_once_with_the_cycles_since_its_beat() {
    let mut rng = seeded_inputs::seed::rng("every_end_shows_once_with_the_cycles_since_its_beat");
    let mut m = Model::new(common::model(TOP, &sources(), &cache()));
    m.set_clock("clock");
    let [start, size, take, bytes, ready, ended, lag, mid] =
        ["start", "size", "take", "bytes", "ready", "ended", "lag", "mid"].map(|p| m.port(p));
    // Verilator's first evaluation sees no edge: an idle cycle before the run.
    m.cycle();
    let mut reference = Reference::new(1);
    let (mut total_ends, mut several, mut partial) = (0u64, 0u64, 0u64);
    let mut restart = true;
    for cycle in 0..400_000u64 {
        if cycle > 0 {
            let want = reference.shown(cycle);
            assert_eq!(
                m.bit(ended),
                want.is_some(),
                "ended, cycle {cycle}, size {}, left {}, due {:?}",
                reference.size,
                reference.left,
                reference.due
            );
            if let Some(l) = want {
                assert_eq!(m.get(lag), l, "lag, cycle {cycle}");
                total_ends += 1;
                several += u64::from(l > 1);
            }
            assert_eq!(m.bit(ready), reference.ready(cycle), "ready, cycle {cycle}");
            // Once a beat's ends have shown, `mid` says a message has begun
            // and not ended.
            if reference.ready(cycle) {
                let want = reference.left != reference.size;
                assert_eq!(m.bit(mid), want, "mid, cycle {cycle}, size {}, left {}", reference.size, reference.left);
                partial += u64::from(want);
            }
        }
        if restart {
            let s = random_size(&mut rng);
            m.set(start, 1);
            m.set(size, s);
            m.set(take, u64::from(rng.gen_bool(0.5)));
            m.set(bytes, BEAT);
            reference = Reference::new(s);
            restart = false;
        } else {
            m.set(start, 0);
            let taking = reference.ready(cycle) && rng.gen_bool(0.8);
            // Full beats mostly, an empty one (a null beat: no byte kept)
            // now and then.
            let n = match rng.gen_range(0..20) {
                0 => 0,
                1..=14 => BEAT,
                _ => rng.gen_range(1..=BEAT),
            };
            m.set(take, u64::from(taking));
            m.set(bytes, n);
            if taking {
                reference.take(cycle, n);
            }
            restart = rng.gen_ratio(1, 3_000);
        }
        m.cycle();
    }
    assert!(total_ends > 50_000 && several > 10_000, "{total_ends} ends, {several} held");
    assert!(partial > 50_000, "{partial} cycles mid-message");
}
