//! The write check of one field with a valid range
//! ([`Check`](super::layout::Check)), in `s_axil_aclk`: a write that would put
//! an invalid value in the field, or that covers only some of its bytes, is
//! refused by the AXI4-Lite slave (`axi_lite.rs`) and never crosses. The
//! verdict is taken with the beats: whether the AW beat addresses the field
//! (`hit`), and whether the W beat writes some of its bytes with a value out
//! of range or only some of them (`fault`). `value - min > max - min`
//! (32-bit, wrapping) is one compare for both bounds, and no constant
//! compare when `min` is 0. The address compare is of the span's bits alone:
//! a write outside the map that aliases a checked field is answered SLVERR
//! either way (refused here, or missing every register), and changes
//! nothing.
//!
//! ```text
//!   AW beat: awaddr == ADDRESS ----------------------------> [hit]   --+
//!   W beat:  strobes partly over BYTES, or value out of range --> [fault] --AND--> refuse
//! ```

use rust_hdl::prelude::*;

use super::block::BUS_ADDRESS_BITS;

/// The range check of one field's writes.
#[derive(LogicBlock)]
pub struct RegsCheck {
    // ---- AXI4-Lite slave, s_axil_aclk domain.
    /// Register-bus clock.
    pub clock: Signal<In, Clock>,
    /// Write address.
    pub awaddr: Signal<In, Bits<BUS_ADDRESS_BITS>>,
    /// Write address valid.
    pub awvalid: Signal<In, Bit>,
    /// The slave holds a write address already (it takes no beat).
    pub aw_full: Signal<In, Bit>,
    /// Write data.
    pub wdata: Signal<In, Bits<32>>,
    /// Write byte strobes.
    pub wstrb: Signal<In, Bits<4>>,
    /// Write data valid.
    pub wvalid: Signal<In, Bit>,
    /// The slave holds write data already (it takes no beat).
    pub w_full: Signal<In, Bit>,
    // ---- Verdict.
    /// The held write addresses the field with a value it refuses.
    pub refuse: Signal<Out, Bit>,
    /// The register's address.
    pub(super) address: Constant<Bits<BUS_ADDRESS_BITS>>,
    /// The field's bits in the register word.
    pub(super) mask: Constant<Bits<32>>,
    /// The smallest valid value, in place.
    pub(super) min: Constant<Bits<32>>,
    /// The largest valid value less the smallest, in place.
    pub(super) span: Constant<Bits<32>>,
    /// The byte strobes the field lies in.
    pub(super) bytes: Constant<Bits<4>>,
    /// The bits of an address within the map's span.
    span_low: Constant<Bits<BUS_ADDRESS_BITS>>,
    zero4: Constant<Bits<4>>,
    hit: DFF<Bit>,
    fault: DFF<Bit>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
}

impl RegsCheck {
    pub fn new(check: &super::layout::Check, span_low: u64) -> Self {
        Self {
            clock: Default::default(),
            awaddr: Default::default(),
            awvalid: Default::default(),
            aw_full: Default::default(),
            wdata: Default::default(),
            wstrb: Default::default(),
            wvalid: Default::default(),
            w_full: Default::default(),
            refuse: Default::default(),
            address: Constant::new(bits(u64::from(check.addr))),
            mask: Constant::new(bits(u64::from(check.mask))),
            min: Constant::new(bits(u64::from(check.min))),
            span: Constant::new(bits(u64::from(check.max - check.min))),
            bytes: Constant::new(bits(u64::from(check.bytes))),
            span_low: Constant::new(bits(span_low)),
            zero4: Constant::new(bits(0)),
            hit: Default::default(),
            fault: Default::default(),
            verilog_name: Default::default(),
        }
    }
}

impl Logic for RegsCheck {
    #[hdl_gen]
    fn update(&mut self) {
        self.hit.clock.next = self.clock.val();
        self.fault.clock.next = self.clock.val();
        self.hit.d.next = self.hit.q.val();
        self.fault.d.next = self.fault.q.val();
        if self.awvalid.val() & !self.aw_full.val() {
            self.hit.d.next = (self.awaddr.val() & self.span_low.val()) == self.address.val();
        }
        if self.wvalid.val() & !self.w_full.val() {
            self.fault.d.next = ((self.wstrb.val() & self.bytes.val()) != self.zero4.val())
                & (((self.wstrb.val() & self.bytes.val()) != self.bytes.val())
                    | (((self.wdata.val() & self.mask.val()) - self.min.val()) > self.span.val()));
        }
        self.refuse.next = self.hit.q.val() & self.fault.q.val();
    }
}
