//! Rate limiter: passes at most `percent` % of the bus peak, one direction
//! of one session.
//!
//! ```text
//!   s_tvalid --->| AND |---> m_tvalid           credit += percent every cycle
//!   s_tready <---| AND |<--- m_tready           credit -= 100 per beat passed
//!                  ^                            allow  = credit >= 100
//!                allow (register)
//! ```
//!
//! A token bucket in units of 1 % of a beat: every cycle adds `percent` to
//! the credit, every beat that passes takes 100, and beats pass only while the
//! credit holds a whole beat. With the other side always ready the long-run
//! rate is exactly `percent / 100` beats per cycle (the remainder carries).
//!
//! Burst bound: credit stops growing once it holds a whole beat, so after any
//! stall at most one beat passes ahead of the steady rate. At 100 % the
//! bucket starts and stays full, so there is no gap at all.
//!
//! AXI4-Stream safety: `allow` is a register that falls only on the cycle
//! after a beat passes, so a beat presented while allowed stays presented
//! (`m_tvalid` never drops before its handshake). On TX the limiter sits
//! between the generator and the TOE (gating `tvalid`); on RX between the TOE
//! and the verifier (gating `tready`, so a slow receiver pushes back).
//!
//! `percent` is read every cycle into a register (a new setting takes effect
//! one cycle later, no reset); values above 100 act as 100, and 0 as 1. The
//! register holds the clamped rate and the rate less a beat (`rate - 100`),
//! so a cycle's credit update is one adder from flip-flops. In the product
//! `percent` is the session's setting latched at `start`, cycles before the
//! first beat.

use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct RateLimiter<const W: usize, const K: usize> {
    // ---- Clock and reset.
    /// User clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: bucket full.
    pub reset: Signal<In, Bit>,
    // ---- Setting.
    /// Max speed in % of the bus peak, 1..=100.
    pub percent: Signal<In, Bits<7>>,
    // ---- Stream in (AXI4-Stream).
    /// Beat in.
    pub s_tdata: Signal<In, Bits<W>>,
    /// Byte enables.
    pub s_tkeep: Signal<In, Bits<K>>,
    /// Last beat of a packet.
    pub s_tlast: Signal<In, Bit>,
    /// Beat valid.
    pub s_tvalid: Signal<In, Bit>,
    /// Beat taken (gated by the credit).
    pub s_tready: Signal<Out, Bit>,
    // ---- Stream out (AXI4-Stream).
    /// Beat out.
    pub m_tdata: Signal<Out, Bits<W>>,
    /// Byte enables.
    pub m_tkeep: Signal<Out, Bits<K>>,
    /// Last beat of a packet.
    pub m_tlast: Signal<Out, Bit>,
    /// Beat valid (gated by the credit).
    pub m_tvalid: Signal<Out, Bit>,
    /// Downstream ready.
    pub m_tready: Signal<In, Bit>,
    credit: DFF<Bits<8>>,
    /// The clamped `percent` of the cycle before.
    rate: DFF<Bits<8>>,
    /// `rate - 100` (8-bit, wrapping): the credit's change when a beat passes.
    surplus: DFF<Bits<8>>,
    clamped: Signal<Local, Bits<8>>,
    take: Signal<Local, Bit>,
    c_full: Constant<Bits<8>>,
    c_one: Constant<Bits<8>>,
    c_zero7: Constant<Bits<7>>,
    c_hundred7: Constant<Bits<7>>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
}

impl<const W: usize, const K: usize> RateLimiter<W, K> {
    pub fn new() -> Self {
        assert_eq!(K * 8, W, "RateLimiter: K must be W / 8");
        Self {
            verilog_name: Default::default(),
            clock: Default::default(),
            reset: Default::default(),
            percent: Default::default(),
            s_tdata: Default::default(),
            s_tkeep: Default::default(),
            s_tlast: Default::default(),
            s_tvalid: Default::default(),
            s_tready: Default::default(),
            m_tdata: Default::default(),
            m_tkeep: Default::default(),
            m_tlast: Default::default(),
            m_tvalid: Default::default(),
            m_tready: Default::default(),
            credit: Default::default(),
            rate: Default::default(),
            surplus: Default::default(),
            clamped: Default::default(),
            take: Default::default(),
            c_full: Constant::new(bits(100)),
            c_one: Constant::new(bits(1)),
            c_zero7: Constant::new(bits(0)),
            c_hundred7: Constant::new(bits(100)),
        }
    }
}

impl<const W: usize, const K: usize> Default for RateLimiter<W, K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const K: usize> Logic for RateLimiter<W, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, credit, rate, surplus);
        if self.percent.val() == self.c_zero7.val() {
            self.clamped.next = self.c_one.val();
        } else if self.percent.val() > self.c_hundred7.val() {
            self.clamped.next = self.c_full.val();
        } else {
            self.clamped.next = bit_cast::<8, 7>(self.percent.val());
        }
        self.rate.d.next = self.clamped.val();
        self.surplus.d.next = self.clamped.val() - self.c_full.val();
        // `allow` (credit >= 100) is written out in each use rather than
        // kept in a local signal: one local read by both the flip-flop-only
        // outputs (`m_tvalid`, `s_tready`) and the input-dependent `take`
        // makes Verilator schedule them as one block, recomputed with the
        // input-combinational logic at every evaluation, so the outputs
        // would look input-dependent to the simulation (issue 27). The
        // logic is the same.
        self.m_tdata.next = self.s_tdata.val();
        self.m_tkeep.next = self.s_tkeep.val();
        self.m_tlast.next = self.s_tlast.val();
        self.m_tvalid.next = self.s_tvalid.val() & (self.credit.q.val() >= self.c_full.val());
        self.s_tready.next = self.m_tready.val() & (self.credit.q.val() >= self.c_full.val());
        self.take.next = self.s_tvalid.val() & self.m_tready.val() & (self.credit.q.val() >= self.c_full.val());
        if self.take.val() {
            self.credit.d.next = self.credit.q.val() + self.surplus.q.val();
        } else if self.credit.q.val() < self.c_full.val() {
            self.credit.d.next = self.credit.q.val() + self.rate.q.val();
        }
        if self.reset.val() {
            self.credit.d.next = self.c_full.val();
        }
    }
}
