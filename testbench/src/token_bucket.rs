//! Reference model of the rate limiter: a token bucket in units of 1 % of a
//! beat, one beat deep, written from the specification (ARCHITECTURE
//! section 3, issue "rate limiter"), not from the hardware.
//!
//! Each cycle the bucket gains `percent` tokens unless it already holds a
//! whole beat (100); a beat may pass only while it holds a whole beat, and
//! passing one spends 100 (the cycle's gain still counts). Percent outside
//! 1..=100 is clamped.

#[derive(Clone, Debug)]
pub struct TokenBucket {
    tokens: u32,
    percent: u32,
}

impl TokenBucket {
    /// A full bucket, as after reset.
    pub fn new(percent: u32) -> Self {
        TokenBucket { tokens: 100, percent: percent.clamp(1, 100) }
    }

    pub fn set_percent(&mut self, percent: u32) {
        self.percent = percent.clamp(1, 100);
    }

    /// May a beat pass this cycle?
    pub fn allows(&self) -> bool {
        self.tokens >= 100
    }

    /// Ends a cycle; `passed` is whether a beat passed in it.
    pub fn step(&mut self, passed: bool) {
        assert!(!passed || self.allows(), "a beat passed without a whole beat of tokens");
        if passed {
            self.tokens = self.tokens + self.percent - 100;
        } else if !self.allows() {
            self.tokens += self.percent;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_run_rate_is_exact_and_full_rate_has_no_gap() {
        for percent in [1, 5, 33, 77, 100] {
            let mut b = TokenBucket::new(percent);
            let mut passed = 0;
            for _ in 0..100_000 {
                let p = b.allows();
                passed += p as u32;
                b.step(p);
            }
            assert!((passed as i64 - 1000 * percent as i64).abs() <= 1, "{percent}%: {passed}");
        }
    }

    #[test]
    fn a_stall_leaves_at_most_one_beat_of_credit() {
        let mut b = TokenBucket::new(10);
        for _ in 0..10_000 {
            b.step(false);
        }
        let burst: u32 = (0..10)
            .map(|_| {
                let p = b.allows();
                b.step(p);
                p as u32
            })
            .sum();
        assert_eq!(burst, 1, "only the stored beat passes in the first 10 cycles");
    }
}
