//! Round-trip meter: one session's request-response round trips, measured
//! at the clock edge, as issue 29's latency test keeps them
//! (docs/latency.md).
//!
//! ```text
//!   request --> stamp `now` into the queue (16 in flight at most)
//!   response -> S0: the oldest stamp, popped, and `now - response_lag`
//!               S1: rtt = now - stamp, saturated to 32 bits
//!               S2: its leading one, 16 x 16 products, |rtt - previous|
//!               S3: square = rtt^2 (64 bits), bucket
//!               S4: count, min, max, sum, sum of squares, jitter sum  --> outputs
//!                   sample_valid, sample, sample_bucket (for a histogram)
//! ```
//!
//! A round trip runs from the cycle of a request's `request` pulse (its first
//! beat taken by the TOE) to the cycle its response's last byte was taken:
//! that of its `response` pulse less `response_lag` (when several messages
//! end in one beat, `MessageEnds` shows them one a cycle after it, each with
//! its lag). Requests and responses are in order, so the oldest stamp is
//! the response's. `now` is a free-running 40-bit count, so no round trip
//! under 2^40 cycles wraps; a round trip of 2^32 cycles or more is counted
//! as 2^32 - 1.
//!
//! Ports (one-cycle pulses unless said otherwise):
//! - `clear`: empty the queue, drop the samples on their way, zero the
//!   moments (a test starts);
//! - `request` with 16 stamps held and no `response` in the same cycle is
//!   not stamped and sets `overflow`; `response` with none held is not
//!   measured and sets `orphan` (both sticky until `clear`; the session
//!   never lets either happen);
//! - a sample whose `response` came in cycle t shows in `sample*` in cycle
//!   t + 4, and in the moments from t + 5;
//! - `reset` (level, synchronous): as `clear`.
//!
//! The moments are exact: count (32 bits), min and max (32), sum (64), sum
//! of squares (96: 2^32 samples of up to 2^32 - 1 cycles), and the sum of
//! |rtt(i) - rtt(i-1)| over consecutive samples (64), whose mean is the
//! jitter RFC 3550 smooths. `latency::Moments` is their model.

use rust_hdl::prelude::*;

use crate::bucket_index::BucketIndex;
use crate::leading_one::LeadingOne;
use crate::stamp_ram::StampRam;

#[derive(LogicBlock)]
pub struct RttMeter {
    // ---- Clock and reset.
    /// User clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: as `clear`.
    pub reset: Signal<In, Bit>,
    // ---- Events.
    /// Empty the queue and zero the moments (one-cycle pulse).
    pub clear: Signal<In, Bit>,
    /// A request's first beat was taken by the TOE (one-cycle pulse).
    pub request: Signal<In, Bit>,
    /// A response's last byte was taken (one-cycle pulse).
    pub response: Signal<In, Bit>,
    /// How many cycles before this `response` its last byte was taken
    /// (`MessageEnds`'s `lag`; 0 when it was taken in this cycle).
    pub response_lag: Signal<In, Bits<8>>,
    // ---- Queue.
    /// Requests stamped and not yet answered, 0 .. 16.
    pub in_flight: Signal<Out, Bits<5>>,
    /// Sticky: a request found the queue full and was not stamped.
    pub overflow: Signal<Out, Bit>,
    /// Sticky: a response came with no request in flight.
    pub orphan: Signal<Out, Bit>,
    // ---- Samples.
    /// A round trip was measured (one-cycle pulse).
    pub sample_valid: Signal<Out, Bit>,
    /// Its cycles (saturated at 2^32 - 1).
    pub sample: Signal<Out, Bits<32>>,
    /// Its histogram bucket (`latency::bucket_of`).
    pub sample_bucket: Signal<Out, Bits<9>>,
    // ---- Moments.
    /// Round trips measured.
    pub count: Signal<Out, Bits<32>>,
    /// Shortest round trip (0 before the first).
    pub min: Signal<Out, Bits<32>>,
    /// Longest round trip.
    pub max: Signal<Out, Bits<32>>,
    /// Sum of the round trips.
    pub sum: Signal<Out, Bits<64>>,
    /// Sum of their squares.
    pub sum_sq: Signal<Out, Bits<96>>,
    /// Sum of |rtt(i) - rtt(i-1)| over consecutive round trips.
    pub jitter_sum: Signal<Out, Bits<64>>,
    // The queue.
    now: DFF<Bits<40>>,
    write_index: DFF<Bits<4>>,
    read_index: DFF<Bits<4>>,
    fill: DFF<Bits<5>>,
    overflowed: DFF<Bit>,
    orphaned: DFF<Bit>,
    stamps: StampRam,
    // S1: the stamp and the time of the response.
    s1_valid: DFF<Bit>,
    s1_stamp: DFF<Bits<40>>,
    s1_now: DFF<Bits<40>>,
    // S2: the round trip.
    s2_valid: DFF<Bit>,
    s2_rtt: DFF<Bits<32>>,
    // S3: its leading one, partial squares and step from the previous one.
    s3_valid: DFF<Bit>,
    s3_rtt: DFF<Bits<32>>,
    s3_lead: DFF<Bits<5>>,
    s3_hh: DFF<Bits<32>>,
    s3_hl: DFF<Bits<32>>,
    s3_ll: DFF<Bits<32>>,
    s3_step: DFF<Bits<32>>,
    s3_first: DFF<Bit>,
    /// The previous round trip, for the step.
    last: DFF<Bits<32>>,
    has_last: DFF<Bit>,
    // S4: its square and bucket.
    s4_valid: DFF<Bit>,
    s4_rtt: DFF<Bits<32>>,
    s4_bucket: DFF<Bits<9>>,
    s4_square: DFF<Bits<64>>,
    s4_step: DFF<Bits<32>>,
    s4_first: DFF<Bit>,
    // The moments.
    n: DFF<Bits<32>>,
    lo: DFF<Bits<32>>,
    hi: DFF<Bits<32>>,
    total: DFF<Bits<64>>,
    total_sq: DFF<Bits<96>>,
    steps: DFF<Bits<64>>,
    lead: LeadingOne,
    index: BucketIndex,
    // Combinational.
    /// `request` stamps this cycle.
    push: Signal<Local, Bit>,
    /// `response` pops this cycle.
    pop: Signal<Local, Bit>,
    rtt40: Signal<Local, Bits<40>>,
    rtt_hi: Signal<Local, Bits<16>>,
    rtt_lo: Signal<Local, Bits<16>>,
    hh: Signal<Local, Bits<32>>,
    hl: Signal<Local, Bits<32>>,
    ll: Signal<Local, Bits<32>>,
    c_zero4: Constant<Bits<4>>,
    c_one4: Constant<Bits<4>>,
    c_zero5: Constant<Bits<5>>,
    c_one5: Constant<Bits<5>>,
    c_full: Constant<Bits<5>>,
    c_one40: Constant<Bits<40>>,
    c_zero8: Constant<Bits<8>>,
    c_zero32: Constant<Bits<32>>,
    c_one32: Constant<Bits<32>>,
    c_max32: Constant<Bits<32>>,
    c_zero64: Constant<Bits<64>>,
    c_zero96: Constant<Bits<96>>,
    c_17: Constant<Bits<64>>,
    c_32: Constant<Bits<64>>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
}

impl Default for RttMeter {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            clear: Default::default(),
            request: Default::default(),
            response: Default::default(),
            response_lag: Default::default(),
            in_flight: Default::default(),
            overflow: Default::default(),
            orphan: Default::default(),
            sample_valid: Default::default(),
            sample: Default::default(),
            sample_bucket: Default::default(),
            count: Default::default(),
            min: Default::default(),
            max: Default::default(),
            sum: Default::default(),
            sum_sq: Default::default(),
            jitter_sum: Default::default(),
            now: Default::default(),
            write_index: Default::default(),
            read_index: Default::default(),
            fill: Default::default(),
            overflowed: Default::default(),
            orphaned: Default::default(),
            stamps: Default::default(),
            s1_valid: Default::default(),
            s1_stamp: Default::default(),
            s1_now: Default::default(),
            s2_valid: Default::default(),
            s2_rtt: Default::default(),
            s3_valid: Default::default(),
            s3_rtt: Default::default(),
            s3_lead: Default::default(),
            s3_hh: Default::default(),
            s3_hl: Default::default(),
            s3_ll: Default::default(),
            s3_step: Default::default(),
            s3_first: Default::default(),
            last: Default::default(),
            has_last: Default::default(),
            s4_valid: Default::default(),
            s4_rtt: Default::default(),
            s4_bucket: Default::default(),
            s4_square: Default::default(),
            s4_step: Default::default(),
            s4_first: Default::default(),
            n: Default::default(),
            lo: Default::default(),
            hi: Default::default(),
            total: Default::default(),
            total_sq: Default::default(),
            steps: Default::default(),
            lead: Default::default(),
            index: Default::default(),
            push: Default::default(),
            pop: Default::default(),
            rtt40: Default::default(),
            rtt_hi: Default::default(),
            rtt_lo: Default::default(),
            hh: Default::default(),
            hl: Default::default(),
            ll: Default::default(),
            c_zero4: Constant::new(bits(0)),
            c_one4: Constant::new(bits(1)),
            c_zero5: Constant::new(bits(0)),
            c_one5: Constant::new(bits(1)),
            c_full: Constant::new(bits(crate::stamp_ram::SLOTS as u64)),
            c_one40: Constant::new(bits(1)),
            c_zero8: Constant::new(bits(0)),
            c_zero32: Constant::new(bits(0)),
            c_one32: Constant::new(bits(1)),
            c_max32: Constant::new(bits(u32::MAX as u64)),
            c_zero64: Constant::new(bits(0)),
            c_zero96: Constant::new(bits(0)),
            c_17: Constant::new(bits(17)),
            c_32: Constant::new(bits(32)),
            verilog_name: Default::default(),
        }
    }
}

impl Logic for RttMeter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            now,
            write_index,
            read_index,
            fill,
            overflowed,
            orphaned,
            s1_valid,
            s1_stamp,
            s1_now,
            s2_valid,
            s2_rtt,
            s3_valid,
            s3_rtt,
            s3_lead,
            s3_hh,
            s3_hl,
            s3_ll,
            s3_step,
            s3_first,
            last,
            has_last,
            s4_valid,
            s4_rtt,
            s4_bucket,
            s4_square,
            s4_step,
            s4_first,
            n,
            lo,
            hi,
            total,
            total_sq,
            steps
        );
        self.stamps.clock.next = self.clock.val();
        self.in_flight.next = self.fill.q.val();
        self.overflow.next = self.overflowed.q.val();
        self.orphan.next = self.orphaned.q.val();
        self.sample_valid.next = self.s4_valid.q.val();
        self.sample.next = self.s4_rtt.q.val();
        self.sample_bucket.next = self.s4_bucket.q.val();
        self.count.next = self.n.q.val();
        self.min.next = self.lo.q.val();
        self.max.next = self.hi.q.val();
        self.sum.next = self.total.q.val();
        self.sum_sq.next = self.total_sq.q.val();
        self.jitter_sum.next = self.steps.q.val();

        // The queue: stamp a request, pop the oldest stamp for a response (a
        // full queue still takes a request in the cycle of a pop).
        self.now.d.next = self.now.q.val() + self.c_one40.val();
        self.pop.next = self.response.val() & (self.fill.q.val() != self.c_zero5.val());
        self.push.next = self.request.val() & ((self.fill.q.val() != self.c_full.val()) | self.pop.val());
        self.stamps.write.next = self.push.val();
        self.stamps.write_index.next = self.write_index.q.val();
        self.stamps.write_stamp.next = self.now.q.val();
        self.stamps.read_index.next = self.read_index.q.val();
        if self.push.val() {
            self.write_index.d.next = self.write_index.q.val() + self.c_one4.val();
        }
        if self.pop.val() {
            self.read_index.d.next = self.read_index.q.val() + self.c_one4.val();
        }
        if self.push.val() & !self.pop.val() {
            self.fill.d.next = self.fill.q.val() + self.c_one5.val();
        }
        if self.pop.val() & !self.push.val() {
            self.fill.d.next = self.fill.q.val() - self.c_one5.val();
        }
        if self.request.val() & !self.push.val() {
            self.overflowed.d.next = true;
        }
        if self.response.val() & !self.pop.val() {
            self.orphaned.d.next = true;
        }

        // S0 -> S1: the stamp popped, and the time its response's last byte
        // was taken.
        self.s1_valid.d.next = self.pop.val();
        self.s1_stamp.d.next = self.stamps.read_stamp.val();
        self.s1_now.d.next = self.now.q.val() - bit_cast::<40, 8>(self.response_lag.val());

        // S1 -> S2: the round trip, saturated to 32 bits.
        self.rtt40.next = self.s1_now.q.val() - self.s1_stamp.q.val();
        self.s2_valid.d.next = self.s1_valid.q.val();
        if self.rtt40.val().get_bits::<8>(32) != self.c_zero8.val() {
            self.s2_rtt.d.next = self.c_max32.val();
        } else {
            self.s2_rtt.d.next = self.rtt40.val().get_bits::<32>(0);
        }

        // S2 -> S3: the leading one, the three 16 x 16 products of the
        // square, and the step from the previous round trip.
        self.lead.value.next = self.s2_rtt.q.val();
        self.rtt_hi.next = self.s2_rtt.q.val().get_bits::<16>(16);
        self.rtt_lo.next = self.s2_rtt.q.val().get_bits::<16>(0);
        self.hh.next = self.rtt_hi.val() * self.rtt_hi.val();
        self.hl.next = self.rtt_hi.val() * self.rtt_lo.val();
        self.ll.next = self.rtt_lo.val() * self.rtt_lo.val();
        self.s3_valid.d.next = self.s2_valid.q.val();
        self.s3_rtt.d.next = self.s2_rtt.q.val();
        self.s3_lead.d.next = self.lead.lead.val();
        self.s3_hh.d.next = self.hh.val();
        self.s3_hl.d.next = self.hl.val();
        self.s3_ll.d.next = self.ll.val();
        self.s3_first.d.next = !self.has_last.q.val();
        if self.s2_rtt.q.val() >= self.last.q.val() {
            self.s3_step.d.next = self.s2_rtt.q.val() - self.last.q.val();
        } else {
            self.s3_step.d.next = self.last.q.val() - self.s2_rtt.q.val();
        }
        if self.s2_valid.q.val() {
            self.last.d.next = self.s2_rtt.q.val();
            self.has_last.d.next = true;
        }

        // S3 -> S4: the bucket, and the square, hh * 2^32 + hl * 2^17 + ll
        // (hh * 2^32 and ll do not overlap, so that sum is a concatenation).
        self.index.value.next = self.s3_rtt.q.val();
        self.index.lead.next = self.s3_lead.q.val();
        self.s4_valid.d.next = self.s3_valid.q.val();
        self.s4_rtt.d.next = self.s3_rtt.q.val();
        self.s4_bucket.d.next = self.index.bucket.val();
        self.s4_step.d.next = self.s3_step.q.val();
        self.s4_first.d.next = self.s3_first.q.val();
        self.s4_square.d.next = ((bit_cast::<64, 32>(self.s3_hh.q.val()) << self.c_32.val())
            | bit_cast::<64, 32>(self.s3_ll.q.val()))
            + (bit_cast::<64, 32>(self.s3_hl.q.val()) << self.c_17.val());

        // S4: the moments.
        if self.s4_valid.q.val() {
            self.n.d.next = self.n.q.val() + self.c_one32.val();
            if (self.n.q.val() == self.c_zero32.val()) | (self.s4_rtt.q.val() < self.lo.q.val()) {
                self.lo.d.next = self.s4_rtt.q.val();
            }
            if self.s4_rtt.q.val() > self.hi.q.val() {
                self.hi.d.next = self.s4_rtt.q.val();
            }
            self.total.d.next = self.total.q.val() + bit_cast::<64, 32>(self.s4_rtt.q.val());
            self.total_sq.d.next = self.total_sq.q.val() + bit_cast::<96, 64>(self.s4_square.q.val());
            if !self.s4_first.q.val() {
                self.steps.d.next = self.steps.q.val() + bit_cast::<64, 32>(self.s4_step.q.val());
            }
        }

        if self.clear.val() | self.reset.val() {
            self.write_index.d.next = self.c_zero4.val();
            self.read_index.d.next = self.c_zero4.val();
            self.fill.d.next = self.c_zero5.val();
            self.overflowed.d.next = false;
            self.orphaned.d.next = false;
            self.s1_valid.d.next = false;
            self.s2_valid.d.next = false;
            self.s3_valid.d.next = false;
            self.s4_valid.d.next = false;
            self.has_last.d.next = false;
            self.n.d.next = self.c_zero32.val();
            self.lo.d.next = self.c_zero32.val();
            self.hi.d.next = self.c_zero32.val();
            self.total.d.next = self.c_zero64.val();
            self.total_sq.d.next = self.c_zero96.val();
            self.steps.d.next = self.c_zero64.val();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{cycle, settle};

    fn step(m: &mut RttMeter, request: bool, response: bool) {
        m.request.next = request;
        m.response.next = response;
        settle(m);
        cycle(m, |m: &mut RttMeter, level: bool| m.clock.next = Clock::from(level));
    }

    /// rust-hdl's simulation of the meter (the leaves' `update` models):
    /// requests in cycles 0 and 3, responses in cycles 10 and 20, so round
    /// trips of 10 and 17 cycles.
    #[test]
    fn two_round_trips_in_rust_hdl_simulation() {
        let mut m = RttMeter::default();
        m.connect_all();
        m.reset.next = true;
        settle(&mut m);
        step(&mut m, false, false);
        m.reset.next = false;
        let mut samples = Vec::new();
        for c in 0..30 {
            if m.sample_valid.val() {
                samples.push((m.sample.val().index() as u64, m.sample_bucket.val().index()));
            }
            step(&mut m, c == 0 || c == 3, c == 10 || c == 20);
        }
        assert_eq!(samples, vec![(10, 10), (17, 17)]);
        assert_eq!((m.count.val().index(), m.min.val().index(), m.max.val().index()), (2, 10, 17));
        assert_eq!((m.sum.val(), m.jitter_sum.val()), (bits::<64>(27), bits::<64>(7)));
        assert_eq!(m.sum_sq.val(), bits::<96>(100 + 289));
        assert_eq!((m.in_flight.val().index(), m.overflow.val(), m.orphan.val()), (0, false, false));
    }
}
