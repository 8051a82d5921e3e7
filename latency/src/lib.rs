//! Round-trip statistics as the latency test keeps them (issue 29): exact
//! integer moments and a log-linear histogram, in plain Rust.
//!
//! The same arithmetic serves three places, so they agree to the bucket:
//! the PC tool `tcp_latency`, which records its own round trips in
//! nanoseconds; the console, which reads the hardware's counters and
//! buckets (cycles); and the testbenches, as the independent model the
//! hardware's histogram is checked against.
//!
//! ```text
//! value v          bucket                              bounds
//! 0 .. 31          v (one value each)                  [v, v]
//! 2^e .. 2^(e+1)-1 16 * (e - 3) + (v >> (e - 4)) % 16  16 sub-buckets, each 2^(e-4) wide
//! ```
//!
//! From 32 up every bucket is at most 1/16 of its lower bound wide
//! (HdrHistogram's scheme with 16 sub-buckets per power of two), so a
//! percentile read from the buckets is within 1/16 of the true one.
//! Values below `2^bits` use the first [`buckets_below`]`(bits)` buckets:
//! 464 for 32-bit values.

use std::fmt;

/// Sub-buckets per power of two.
pub const SUB_BUCKETS: u64 = 16;
const SUB_BITS: u32 = SUB_BUCKETS.trailing_zeros();
/// Buckets for every `u64`.
pub const BUCKETS: usize = buckets_below(64);

/// The number of buckets that hold every value below `2^bits` (`bits` from
/// 5 to 64).
pub const fn buckets_below(bits: u32) -> usize {
    assert!(bits > SUB_BITS && bits <= 64, "buckets_below: bits must be 5..=64");
    (SUB_BUCKETS as usize) * (bits - SUB_BITS + 1) as usize
}

/// The bucket that holds `v`.
pub fn bucket_of(v: u64) -> usize {
    if v < SUB_BUCKETS {
        return v as usize;
    }
    let e = 63 - v.leading_zeros();
    let shift = e - SUB_BITS;
    (SUB_BUCKETS * u64::from(shift + 1) + ((v >> shift) & (SUB_BUCKETS - 1))) as usize
}

/// The smallest and largest value of bucket `index` (below [`BUCKETS`]).
pub fn bounds(index: usize) -> (u64, u64) {
    assert!(index < BUCKETS, "bounds: bucket {index} is not below {BUCKETS}");
    let i = index as u64;
    if i < SUB_BUCKETS {
        return (i, i);
    }
    let shift = i / SUB_BUCKETS - 1;
    let lo = (SUB_BUCKETS + i % SUB_BUCKETS) << shift;
    (lo, lo + ((1u64 << shift) - 1))
}

/// One bucket of a histogram, or several adjacent ones merged for a text
/// rendering: every value from `lo` to `hi`, and how many samples fell there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bucket {
    pub lo: u64,
    pub hi: u64,
    pub count: u64,
}

/// Sample counts per bucket.
#[derive(Clone, PartialEq, Eq)]
pub struct Histogram {
    counts: Vec<u64>,
}

impl fmt::Debug for Histogram {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.buckets()).finish()
    }
}

impl Default for Histogram {
    fn default() -> Self {
        Self::new()
    }
}

impl Histogram {
    pub fn new() -> Self {
        Histogram { counts: vec![0; BUCKETS] }
    }

    /// Counts one sample of value `v`.
    pub fn record(&mut self, v: u64) {
        self.add(bucket_of(v), 1);
    }

    /// Adds `count` samples to bucket `index` (a count read back from the
    /// hardware). Saturates rather than wrapping.
    pub fn add(&mut self, index: usize, count: u64) {
        assert!(index < BUCKETS, "Histogram::add: bucket {index} is not below {BUCKETS}");
        self.counts[index] = self.counts[index].saturating_add(count);
    }

    /// The count of bucket `index`.
    pub fn count(&self, index: usize) -> u64 {
        self.counts[index]
    }

    /// Samples counted.
    pub fn total(&self) -> u64 {
        self.counts.iter().fold(0u64, |t, &c| t.saturating_add(c))
    }

    /// The buckets with samples, from the smallest values up.
    pub fn buckets(&self) -> impl Iterator<Item = Bucket> + '_ {
        self.counts.iter().enumerate().filter(|(_, &c)| c > 0).map(|(i, &count)| {
            let (lo, hi) = bounds(i);
            Bucket { lo, hi, count }
        })
    }

    /// The nearest-rank percentile `q` (0 < q <= 1) as the largest value of
    /// the bucket that holds it: at least the true value, and above it by
    /// less than the bucket's width (none below 32, at most 1/16 from 32 up).
    /// `None` when empty.
    pub fn percentile(&self, q: f64) -> Option<u64> {
        let n = self.total();
        if n == 0 {
            return None;
        }
        let rank = ((q * n as f64).ceil() as u64).clamp(1, n);
        let mut seen = 0u64;
        for (i, &c) in self.counts.iter().enumerate() {
            seen = seen.saturating_add(c);
            if seen >= rank {
                return Some(bounds(i).1);
            }
        }
        unreachable!("the ranks add up to the total")
    }

    /// The buckets with samples, adjacent ones merged in aligned groups of
    /// 2, 4, 8 or 16 (never across a power of two from 32 up) until at most
    /// `rows` remain, or groups of 16 are reached.
    pub fn rows(&self, rows: usize) -> Vec<Bucket> {
        let mut group = 1usize;
        loop {
            let mut out: Vec<Bucket> = Vec::new();
            let mut last_group = usize::MAX;
            for (i, &c) in self.counts.iter().enumerate() {
                if c == 0 {
                    continue;
                }
                let g = i / group;
                let (glo, ghi) = (bounds(g * group).0, bounds(g * group + group - 1).1);
                match out.last_mut() {
                    Some(b) if g == last_group => b.count = b.count.saturating_add(c),
                    _ => out.push(Bucket { lo: glo, hi: ghi, count: c }),
                }
                last_group = g;
            }
            if out.len() <= rows || group == SUB_BUCKETS as usize {
                return out;
            }
            group *= 2;
        }
    }

    /// A text histogram: one line per row of [`rows`](Self::rows)`(rows)`,
    /// its range as `unit` writes the values (a row of one value shows that
    /// value; a wider one `lo - end`, `end` the first value past it, so the
    /// rows read as adjacent ranges however `unit` rounds), the count, and a
    /// bar of `#` scaled to the largest row (`width` characters).
    pub fn text(&self, rows: usize, width: usize, unit: &dyn Fn(u64) -> String) -> Vec<String> {
        let rows = self.rows(rows);
        let most = rows.iter().map(|b| b.count).max().unwrap_or(0);
        let labels: Vec<String> =
            rows.iter()
                .map(|b| {
                    if b.lo == b.hi {
                        unit(b.lo)
                    } else {
                        format!("{} - {}", unit(b.lo), unit(b.hi.saturating_add(1)))
                    }
                })
                .collect();
        let label_width = labels.iter().map(|l| l.len()).max().unwrap_or(0);
        let count_width = rows.iter().map(|b| b.count.to_string().len()).max().unwrap_or(0);
        rows.iter()
            .zip(labels)
            .map(|(b, label)| {
                // At least one mark for a row with samples.
                let bar = ((b.count as u128 * width as u128).div_ceil(most.max(1) as u128)) as usize;
                format!("{label:>label_width$}  {:>count_width$}  {}", b.count, "#".repeat(bar.max(1)))
            })
            .collect()
    }
}

/// Exact moments of a sequence of samples, kept as the hardware keeps them:
/// count, min, max, sum, sum of squares, and the sum of |v(i) - v(i-1)|.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Moments {
    pub count: u64,
    /// Smallest sample (0 while empty).
    pub min: u64,
    /// Largest sample.
    pub max: u64,
    pub sum: u128,
    pub sum_sq: u128,
    /// Sum of |v(i) - v(i-1)| over consecutive samples.
    pub jitter_sum: u128,
    last: Option<u64>,
}

impl Moments {
    pub fn new() -> Self {
        Self::default()
    }

    /// Moments kept elsewhere (the hardware's round-trip registers): the
    /// statistics of [`mean`](Self::mean), [`stddev`](Self::stddev) and
    /// [`jitter`](Self::jitter) from their totals. Samples recorded after
    /// this start a new jitter chain.
    pub fn from_totals(count: u64, min: u64, max: u64, sum: u128, sum_sq: u128, jitter_sum: u128) -> Self {
        Moments { count, min, max, sum, sum_sq, jitter_sum, last: None }
    }

    /// Adds sample `v`, taken after every sample added before.
    pub fn record(&mut self, v: u64) {
        if self.count == 0 {
            self.min = v;
            self.max = v;
        } else {
            self.min = self.min.min(v);
            self.max = self.max.max(v);
        }
        self.count += 1;
        self.sum += u128::from(v);
        self.sum_sq += u128::from(v) * u128::from(v);
        if let Some(prev) = self.last {
            self.jitter_sum += u128::from(prev.abs_diff(v));
        }
        self.last = Some(v);
    }

    /// The mean (0 while empty).
    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum as f64 / self.count as f64
        }
    }

    /// The population standard deviation (0 while empty). Computed as
    /// sqrt(n * sum_sq - sum^2) / n, exactly in integers where that fits in
    /// 128 bits (so a constant sequence gives exactly 0), else in f64.
    pub fn stddev(&self) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        let n = u128::from(self.count);
        let exact = n.checked_mul(self.sum_sq).zip(self.sum.checked_mul(self.sum)).map(|(a, b)| a.saturating_sub(b));
        match exact {
            Some(scaled) => (scaled as f64).sqrt() / self.count as f64,
            None => {
                let mean = self.mean();
                (self.sum_sq as f64 / self.count as f64 - mean * mean).max(0.0).sqrt()
            }
        }
    }

    /// The mean of |v(i) - v(i-1)| (RFC 3550's jitter before its smoothing):
    /// 0 for fewer than two samples.
    pub fn jitter(&self) -> f64 {
        if self.count < 2 {
            0.0
        } else {
            self.jitter_sum as f64 / (self.count - 1) as f64
        }
    }
}
