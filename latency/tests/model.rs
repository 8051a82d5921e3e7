//! The bucket scheme against its definition, and the statistics against
//! plain computations over the samples themselves (seeded: `TB_SEED=<n>`
//! replays a run).

use latency::{bounds, bucket_of, buckets_below, Histogram, Moments, BUCKETS, SUB_BUCKETS};
use rand::Rng;

/// Every value in exactly one bucket: the buckets tile 0..=u64::MAX in
/// order, each bucket's bounds map back to it, one value each below 32 and
/// at most 1/16 of the lower bound wide from 32 up.
#[test]
fn buckets_tile_every_value_in_order() {
    let mut next = 0u64;
    for i in 0..BUCKETS {
        let (lo, hi) = bounds(i);
        assert_eq!(lo, next, "bucket {i} starts where bucket {} ended", i.saturating_sub(1));
        assert!(hi >= lo);
        assert_eq!((bucket_of(lo), bucket_of(hi)), (i, i), "bucket {i}: [{lo}, {hi}]");
        if lo < 2 * SUB_BUCKETS {
            assert_eq!(lo, hi, "bucket {i} holds one value");
        } else {
            assert!((hi - lo + 1) * SUB_BUCKETS <= lo, "bucket {i}: [{lo}, {hi}] is wider than 1/16 of {lo}");
        }
        next = hi.wrapping_add(1);
    }
    assert_eq!(bounds(BUCKETS - 1).1, u64::MAX, "the last bucket ends at u64::MAX");
    // 32-bit values (the hardware's cycle counts) need the first 464 buckets.
    assert_eq!(buckets_below(32), 464);
    assert_eq!(bucket_of(u32::MAX as u64), 463);
    assert_eq!(bucket_of(1 << 32), 464);
}

#[test]
fn random_values_fall_in_their_bucket() {
    let mut rng = seeded_inputs::seed::rng("random_values_fall_in_their_bucket");
    for _ in 0..200_000 {
        let v: u64 = rng.gen::<u64>() >> rng.gen_range(0..64);
        let (lo, hi) = bounds(bucket_of(v));
        assert!(lo <= v && v <= hi, "{v} outside its bucket [{lo}, {hi}]");
    }
}

/// Nearest rank over the sorted samples: the reference for the histogram's.
fn exact_percentile(sorted: &[u64], q: f64) -> u64 {
    sorted[((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1]
}

/// The histogram's percentiles are the bucket's top of the exact
/// nearest-rank sample: never below it, above it by less than 1/16 (and
/// equal below 32), for spreads from a few cycles to hours in nanoseconds.
#[test]
fn percentiles_are_within_a_sixteenth_of_the_exact_ones() {
    let mut rng = seeded_inputs::seed::rng("percentiles_are_within_a_sixteenth_of_the_exact_ones");
    for round in 0..200 {
        let n = rng.gen_range(1..5_000);
        let base: u64 = rng.gen_range(0..1_000_000);
        let spread_bits = rng.gen_range(0..40);
        let samples: Vec<u64> = (0..n).map(|_| base + (rng.gen::<u64>() >> (64 - spread_bits.max(1)))).collect();
        let mut h = Histogram::new();
        samples.iter().for_each(|&v| h.record(v));
        assert_eq!(h.total(), n as u64);
        let mut sorted = samples.clone();
        sorted.sort_unstable();
        for q in [0.0001, 0.5, 0.9, 0.99, 0.999, 1.0] {
            let exact = exact_percentile(&sorted, q);
            let got = h.percentile(q).expect("samples were recorded");
            assert!(got >= exact, "round {round}, q {q}: {got} below the exact {exact}");
            if exact < 2 * SUB_BUCKETS {
                assert_eq!(got, exact, "round {round}, q {q}");
            } else {
                assert!((got - exact) * SUB_BUCKETS < exact, "round {round}, q {q}: {got} vs exact {exact}");
            }
        }
    }
    assert_eq!(Histogram::new().percentile(0.5), None);
}

/// The moments against the same quantities computed from the whole list
/// (u128 sums, f64 deviation around the mean).
#[test]
fn moments_match_the_samples() {
    let mut rng = seeded_inputs::seed::rng("moments_match_the_samples");
    for _ in 0..100 {
        let n = rng.gen_range(1..3_000);
        let samples: Vec<u64> = (0..n).map(|_| rng.gen_range(0..=u32::MAX as u64) >> rng.gen_range(0..32)).collect();
        let mut m = Moments::new();
        samples.iter().for_each(|&v| m.record(v));
        assert_eq!(m.count, n as u64);
        assert_eq!(m.min, *samples.iter().min().unwrap());
        assert_eq!(m.max, *samples.iter().max().unwrap());
        assert_eq!(m.sum, samples.iter().map(|&v| v as u128).sum::<u128>());
        assert_eq!(m.sum_sq, samples.iter().map(|&v| v as u128 * v as u128).sum::<u128>());
        let jitter: u128 = samples.windows(2).map(|w| w[0].abs_diff(w[1]) as u128).sum();
        assert_eq!(m.jitter_sum, jitter);
        let mean = samples.iter().map(|&v| v as f64).sum::<f64>() / n as f64;
        let sd = (samples.iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / n as f64).sqrt();
        assert!((m.mean() - mean).abs() <= 1e-9 * mean.max(1.0), "mean {} vs {mean}", m.mean());
        assert!((m.stddev() - sd).abs() <= 1e-6 * sd.max(1.0), "stddev {} vs {sd}", m.stddev());
        let expect_jitter = if n < 2 { 0.0 } else { jitter as f64 / (n - 1) as f64 };
        assert_eq!(m.jitter(), expect_jitter);
    }
}

/// A constant sequence of large values: exactly no deviation and no jitter
/// (a rounding f64 formula would report thousands).
#[test]
fn constant_samples_have_no_deviation() {
    let mut m = Moments::new();
    for _ in 0..1000 {
        m.record(u32::MAX as u64 - 7);
    }
    assert_eq!((m.stddev(), m.jitter(), m.min, m.max), (0.0, 0.0, u32::MAX as u64 - 7, u32::MAX as u64 - 7));
    let empty = Moments::new();
    assert_eq!((empty.mean(), empty.stddev(), empty.jitter()), (0.0, 0.0, 0.0));
}

/// Rows merge aligned neighbours until they fit, keep every sample, and
/// the text has one line per row with a bar scaled to the largest.
#[test]
fn rows_and_text_keep_every_sample() {
    let mut h = Histogram::new();
    for v in 1000..3000u64 {
        h.record(v);
    }
    h.record(5);
    let all: Vec<_> = h.buckets().collect();
    assert!(all.len() > 16, "{} buckets", all.len());
    for limit in [1, 4, 8, 100] {
        let rows = h.rows(limit);
        assert_eq!(rows.iter().map(|b| b.count).sum::<u64>(), 2001, "limit {limit}");
        assert!(rows.windows(2).all(|w| w[0].hi < w[1].lo), "rows in order, disjoint: {rows:?}");
        if limit >= all.len() {
            assert_eq!(rows, all);
        }
    }
    assert!(h.rows(8).len() <= 8);
    let text = h.text(8, 20, &|v| format!("{v} ns"));
    assert_eq!(text.len(), h.rows(8).len());
    let first = h.rows(8)[0];
    assert!(first.lo <= 5 && 5 <= first.hi && first.count == 1, "{first:?}");
    assert!(text[0].trim_start().starts_with(&format!("{} ns - {} ns", first.lo, first.hi + 1)), "{text:?}");
    assert!(text.iter().any(|l| l.ends_with(&"#".repeat(20))), "the largest row fills the width: {text:?}");
    assert!(text[0].ends_with(" #"), "a row of one sample still shows a mark: {text:?}");
}
