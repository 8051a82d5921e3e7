//! Round-trip histogram: the count of samples per bucket (crate `latency`'s
//! scheme, 464 buckets), kept in block RAM at up to one sample a cycle and
//! readable by index while it counts (docs/latency.md).
//!
//! ```text
//!   sample_valid, sample_bucket --> R: read the bucket's count (RAM port A)
//!                                   W: count + 1 written back; the count just
//!                                      written when the previous sample hit the
//!                                      same bucket a cycle before (forwarded)
//!   clear, reset ----------------> sweep: a zero into every bucket, one a cycle
//!   read_index --(RAM port B)----> read_count, the next cycle
//! ```
//!
//! Ports (one-cycle pulses unless said otherwise):
//! - `clear` (or `reset`, a level): empty every bucket; the sweep takes
//!   `BUCKETS` cycles, `clearing` high meanwhile. A sample during the sweep
//!   is not counted and sets `missed` (sticky until the next `clear`); the
//!   session starts a test only once `clearing` is low, so none is;
//! - a sample presented in cycle t is in its bucket's count from cycle
//!   t + 2 (read through `read_index` in t + 2, shown in t + 3).

use rust_hdl::prelude::*;

use crate::bucket_ram::BucketRam;

/// Buckets counted: every 32-bit round trip (`latency::buckets_below(32)`).
pub const BUCKETS: u64 = 464;

#[derive(LogicBlock)]
pub struct RttHistogram {
    // ---- Clock and reset.
    /// User clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: as `clear` (the RAM holds anything at power-up).
    pub reset: Signal<In, Bit>,
    // ---- Samples.
    /// Empty every bucket (one-cycle pulse).
    pub clear: Signal<In, Bit>,
    /// A round trip was measured (one-cycle pulse).
    pub sample_valid: Signal<In, Bit>,
    /// Its bucket, 0 .. 463.
    pub sample_bucket: Signal<In, Bits<9>>,
    /// The sweep of a `clear` is running.
    pub clearing: Signal<Out, Bit>,
    /// Sticky: a sample came during the sweep and was not counted.
    pub missed: Signal<Out, Bit>,
    // ---- Read port (software).
    /// The bucket read.
    pub read_index: Signal<In, Bits<9>>,
    /// Its count, the cycle after `read_index`.
    pub read_count: Signal<Out, Bits<32>>,
    counts: BucketRam,
    // W: the sample whose count RAM port A is reading.
    w_valid: DFF<Bit>,
    w_bucket: DFF<Bits<9>>,
    // The count written at the last edge, for the next sample of that
    // bucket, and whether the sample at W now is of that bucket (compared a
    // cycle early, one stage before, so the compare stays out of the
    // increment's path).
    same: DFF<Bit>,
    p_count: DFF<Bits<32>>,
    sweeping: DFF<Bit>,
    sweep_index: DFF<Bits<9>>,
    lost: DFF<Bit>,
    // Combinational.
    /// The bucket's count plus this sample.
    counted: Signal<Local, Bits<32>>,
    c_zero9: Constant<Bits<9>>,
    c_one9: Constant<Bits<9>>,
    c_last: Constant<Bits<9>>,
    c_zero32: Constant<Bits<32>>,
    c_one32: Constant<Bits<32>>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
}

impl Default for RttHistogram {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            clear: Default::default(),
            sample_valid: Default::default(),
            sample_bucket: Default::default(),
            clearing: Default::default(),
            missed: Default::default(),
            read_index: Default::default(),
            read_count: Default::default(),
            counts: Default::default(),
            w_valid: Default::default(),
            w_bucket: Default::default(),
            same: Default::default(),
            p_count: Default::default(),
            sweeping: Default::default(),
            sweep_index: Default::default(),
            lost: Default::default(),
            counted: Default::default(),
            c_zero9: Constant::new(bits(0)),
            c_one9: Constant::new(bits(1)),
            c_last: Constant::new(bits(BUCKETS - 1)),
            c_zero32: Constant::new(bits(0)),
            c_one32: Constant::new(bits(1)),
            verilog_name: Default::default(),
        }
    }
}

impl Logic for RttHistogram {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, w_valid, w_bucket, same, p_count, sweeping, sweep_index, lost);
        self.counts.clock.next = self.clock.val();
        self.clearing.next = self.sweeping.q.val();
        self.missed.next = self.lost.q.val();
        self.counts.read_b_index.next = self.read_index.val();
        self.read_count.next = self.counts.read_b.val();

        // R: read the sample's bucket.
        self.counts.read_a_index.next = self.sample_bucket.val();
        self.w_valid.d.next = self.sample_valid.val() & !self.sweeping.q.val();
        self.w_bucket.d.next = self.sample_bucket.val();
        if self.sample_valid.val() & self.sweeping.q.val() {
            self.lost.d.next = true;
        }

        // W: write the count back; the RAM's read missed a write of the same
        // bucket at the same edge, so that count comes from `p_count`.
        if self.same.q.val() {
            self.counted.next = self.p_count.q.val() + self.c_one32.val();
        } else {
            self.counted.next = self.counts.read_a.val() + self.c_one32.val();
        }
        self.same.d.next = self.w_valid.q.val() & (self.sample_bucket.val() == self.w_bucket.q.val());
        self.p_count.d.next = self.counted.val();
        if self.sweeping.q.val() {
            self.counts.write.next = true;
            self.counts.write_index.next = self.sweep_index.q.val();
            self.counts.write_count.next = self.c_zero32.val();
            self.sweep_index.d.next = self.sweep_index.q.val() + self.c_one9.val();
            if self.sweep_index.q.val() == self.c_last.val() {
                self.sweeping.d.next = false;
            }
        } else {
            self.counts.write.next = self.w_valid.q.val();
            self.counts.write_index.next = self.w_bucket.q.val();
            self.counts.write_count.next = self.counted.val();
        }

        if self.clear.val() | self.reset.val() {
            self.sweeping.d.next = true;
            self.sweep_index.d.next = self.c_zero9.val();
            self.w_valid.d.next = false;
            self.same.d.next = false;
            self.lost.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{cycle, settle};

    fn step(h: &mut RttHistogram, sample: Option<u64>, read: u64) {
        h.sample_valid.next = sample.is_some();
        h.sample_bucket.next = bits(sample.unwrap_or(0));
        h.read_index.next = bits(read);
        settle(h);
        cycle(h, |h: &mut RttHistogram, level: bool| h.clock.next = Clock::from(level));
    }

    /// rust-hdl's simulation of the histogram (the RAM's `update` model):
    /// after the reset's sweep, three samples of bucket 5 back to back (the
    /// forwarded count), one of bucket 7; read back by index.
    #[test]
    fn back_to_back_samples_in_rust_hdl_simulation() {
        let mut h = RttHistogram::default();
        h.connect_all();
        h.reset.next = true;
        settle(&mut h);
        step(&mut h, None, 0);
        h.reset.next = false;
        let mut sweep = 0;
        while h.clearing.val() {
            step(&mut h, None, 0);
            sweep += 1;
        }
        assert_eq!(sweep, BUCKETS);
        for s in [Some(5), Some(5), Some(5), Some(7), None, None] {
            step(&mut h, s, 0);
        }
        let mut read = |index: u64| {
            step(&mut h, None, index);
            h.read_count.val().index()
        };
        assert_eq!((read(5), read(7), read(6)), (3, 1, 0));
    }
}
