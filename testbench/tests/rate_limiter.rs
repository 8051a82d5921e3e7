//! The TX and RX rate limiters on the verilated tops, cycle by cycle against
//! the token-bucket model, on the datapath harness of every data width
//! (`models::DATAPATH_MODELS`; each test prints which models it ran).

use rand::Rng;
use testbench::dut::{Beat, Dut};
use testbench::models::{self, dp64, DATAPATH_MODELS};
use testbench::seed;
use testbench::token_bucket::TokenBucket;
use testbench::verilated::Port;

const SETTINGS: [u32; 8] = [1, 5, 25, 33, 50, 77, 99, 100];
const WINDOW: usize = 100_000;

/// Beats passed in every window of `WINDOW` cycles of `passed`: (min, max).
fn window_extremes(passed: &[bool]) -> (u64, u64) {
    let mut sum: u64 = passed[..WINDOW].iter().map(|&p| p as u64).sum();
    let (mut lo, mut hi) = (sum, sum);
    for i in WINDOW..passed.len() {
        sum = sum + passed[i] as u64 - passed[i - WINDOW] as u64;
        lo = lo.min(sum);
        hi = hi.max(sum);
    }
    (lo, hi)
}

fn assert_rate(what: &str, percent: u32, passed: &[bool]) {
    let target = (WINDOW as u64 * percent as u64) / 100;
    let tolerance = target / 1000; // 0.1 %
    let (lo, hi) = window_extremes(passed);
    println!("{what} {percent:3}%: {lo}..={hi} beats in every window of {WINDOW} cycles (target {target})");
    assert!(
        lo + tolerance >= target && hi <= target + tolerance,
        "{what} {percent}%: windows hold {lo}..={hi} beats, target {target} +- {tolerance}"
    );
    if percent == 100 {
        assert!(passed.iter().all(|&p| p), "{what} 100%: a gap");
    }
}

/// Runs `WINDOW + 20_000` cycles in which the other side is always ready,
/// checking every cycle that `gate` (the limited handshake signal) equals the
/// model's decision; returns which cycles passed a beat.
fn compare_with_bucket(dut: &mut Dut, gate: Port, percent: u32) -> Vec<bool> {
    compare_with_bucket_at(dut, gate, percent, percent)
}

/// [`compare_with_bucket`] with the model at `model_percent` while the
/// hardware is set to `percent`.
fn compare_with_bucket_at(dut: &mut Dut, gate: Port, percent: u32, model_percent: u32) -> Vec<bool> {
    let mut bucket = TokenBucket::new(model_percent);
    let mut passed = Vec::with_capacity(WINDOW + 20_000);
    for cycle in 0..WINDOW + 20_000 {
        let open = dut.model.bit(gate);
        assert_eq!(open, bucket.allows(), "{}-bit, {percent}%: cycle {cycle}", dut.beat_bytes * 8);
        bucket.step(open);
        passed.push(open);
        dut.model.cycle();
    }
    passed
}

/// TX: the generator always has data and the TOE is always ready, so the
/// limiter alone decides; every cycle must match the model.
#[test]
fn tx_rate_matches_the_token_bucket_for_every_setting() {
    models::each(DATAPATH_MODELS, "tx_rate_matches_the_token_bucket_for_every_setting", |m| {
        let mut dut = Dut::new(&(m.top)());
        let p = &dut.sessions[0];
        let (pct, valid, ready) = (p.tx_percent, p.tx_tvalid, p.tx_tready);
        for percent in SETTINGS {
            // Reset: the bucket is exactly full, as the model starts.
            dut.reset();
            dut.model.set(pct, percent as u64);
            dut.start(0, 1 << 46, 0, true, false, true, false);
            // The generator's first beat takes two cycles (setup, load); a full bucket stays full.
            dut.idle(2);
            dut.model.set(ready, 1);
            dut.model.eval();
            let passed = compare_with_bucket(&mut dut, valid, percent);
            assert_rate(&format!("{}-bit TX", dut.beat_bytes * 8), percent, &passed);
        }
    });
}

/// A setting the register file would refuse (docs/register_file.md), driven
/// straight into the harness: 0 acts as 1 % and 101..=127 as 100 %, cycle
/// for cycle, on both directions.
#[test]
fn out_of_range_settings_act_as_the_nearest_valid_one() {
    let mut dut = Dut::new(&dp64::top());
    let words = dut.words();
    let keep = dut.keep_words();
    let beat = Beat { data: vec![0; words], keep: vec![u32::MAX; keep], last: false };
    for (set, acts_as) in [(0, 1), (101, 100), (127, 100)] {
        let p = &dut.sessions[0];
        let (pct, valid, ready) = (p.tx_percent, p.tx_tvalid, p.tx_tready);
        dut.reset();
        dut.model.set(pct, set);
        dut.start(0, 1 << 46, 0, true, false, true, false);
        dut.idle(2);
        dut.model.set(ready, 1);
        dut.model.eval();
        let passed = compare_with_bucket_at(&mut dut, valid, set as u32, acts_as);
        assert_rate(&format!("TX set to {set}"), acts_as, &passed);

        let p = &dut.sessions[1];
        let (pct, ready) = (p.rx_percent, p.rx_tready);
        dut.reset();
        dut.model.set(pct, set);
        dut.start(1, 1 << 46, 0, false, false, false, true);
        dut.drive_rx(1, Some(&beat));
        dut.model.eval();
        let passed = compare_with_bucket_at(&mut dut, ready, set as u32, acts_as);
        assert_rate(&format!("RX set to {set}"), acts_as, &passed);
        dut.drive_rx(1, None);
        dut.model.eval();
    }
}

/// RX: the TOE always offers data, the limiter gates tready.
#[test]
fn rx_rate_matches_the_token_bucket_for_every_setting() {
    models::each(DATAPATH_MODELS, "rx_rate_matches_the_token_bucket_for_every_setting", |m| {
        let mut dut = Dut::new(&(m.top)());
        let p = &dut.sessions[1];
        let (pct, ready) = (p.rx_percent, p.rx_tready);
        let words = dut.words();
        let keep = dut.keep_words();
        let beat = Beat { data: vec![0; words], keep: vec![u32::MAX; keep], last: false };
        for percent in SETTINGS {
            dut.reset();
            dut.model.set(pct, percent as u64);
            dut.start(1, 1 << 46, 0, false, false, false, true);
            dut.drive_rx(1, Some(&beat));
            dut.model.eval();
            let passed = compare_with_bucket(&mut dut, ready, percent);
            assert_rate(&format!("{}-bit RX", dut.beat_bytes * 8), percent, &passed);
            dut.drive_rx(1, None);
            dut.model.eval();
        }
    });
}

/// After a long stall the session sends one stored beat, then its rate: never
/// more than one beat above the rate over any stretch after the stall.
#[test]
fn burst_after_a_long_stall_is_at_most_one_beat() {
    let mut rng = seed::rng("burst");
    models::each(DATAPATH_MODELS, "burst_after_a_long_stall_is_at_most_one_beat", |m| {
        let mut dut = Dut::new(&(m.top)());
        let p = &dut.sessions[0];
        let (pct, valid, ready) = (p.tx_percent, p.tx_tvalid, p.tx_tready);
        for percent in [1, 5, 33, 77, 99] {
            dut.reset();
            dut.model.set(pct, percent as u64);
            dut.start(0, 1 << 46, 0, true, false, true, false);
            let mut bucket = TokenBucket::new(percent);
            dut.idle(2);
            // Random stalls, then a long one, then always ready.
            let mut history = Vec::new();
            for phase in 0..3 {
                let cycles = if phase == 1 { 50_000 } else { 5_000 };
                for _ in 0..cycles {
                    let r = match phase {
                        0 => rng.gen_bool(0.5),
                        1 => false,
                        _ => true,
                    };
                    dut.model.set(ready, r as u64);
                    dut.model.eval();
                    let v = dut.model.bit(valid);
                    assert_eq!(v, bucket.allows(), "{percent}%: valid against the model");
                    bucket.step(v && r);
                    if phase == 2 {
                        history.push(v && r);
                    }
                    dut.model.cycle();
                }
            }
            let mut passed = 0u64;
            for (n, &p) in history.iter().enumerate() {
                passed += p as u64;
                let allowed = ((n as u64 + 1) * percent as u64) / 100 + 1;
                assert!(
                    passed <= allowed,
                    "{percent}%: {passed} beats in the {} cycles after the stall, bound {allowed}",
                    n + 1
                );
            }
            dut.model.set(ready, 0);
        }
    });
}

/// A new setting takes effect one cycle after it is set (the limiter
/// registers it), without a reset or a restart.
#[test]
fn a_new_setting_takes_effect_a_cycle_later_without_a_reset() {
    let mut dut = Dut::new(&dp64::top());
    let p = &dut.sessions[0];
    let (pct, valid, ready) = (p.tx_percent, p.tx_tvalid, p.tx_tready);
    dut.model.set(pct, 25);
    dut.start(0, 1 << 46, 0, true, false, true, false);
    dut.idle(2);
    dut.model.set(ready, 1);
    let mut bucket = TokenBucket::new(25);
    let mut counts = [0u32; 3];
    for (phase, percent) in [25u32, 77, 3].into_iter().enumerate() {
        dut.model.set(pct, percent as u64);
        dut.model.eval();
        for cycle in 0..10_000 {
            if cycle == 1 {
                bucket.set_percent(percent);
            }
            let v = dut.model.bit(valid);
            assert_eq!(v, bucket.allows(), "{percent}%");
            bucket.step(v);
            counts[phase] += v as u32;
            dut.model.cycle();
        }
    }
    assert!((2499..=2501).contains(&counts[0]), "{counts:?}");
    assert!((7699..=7701).contains(&counts[1]), "{counts:?}");
    // The 3 % phase's first cycle still adds 77 % of a beat of credit (the
    // setting takes effect a cycle later): one beat more is possible.
    assert!((299..=302).contains(&counts[2]), "{counts:?}");
}
