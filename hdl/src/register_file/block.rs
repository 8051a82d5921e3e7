//! The register file's core block ([`RegisterFileCore`]): the AXI4-Lite
//! slave (`axi_lite.rs`, with a range check per checked field in
//! `check.rs`), the clock crossing (`crossing.rs`), one register word per
//! slot of the [`Layout`] (`slots.rs`), each named after its register, the
//! read-back (`read_back.rs`) and the free-running cycle counter, wired
//! together. Every block is a module of its own in the Verilog; this one
//! holds the wiring and the counter.
//!
//! ```text
//!   s_axil_* <--> u_bus <--> u_crossing ---> addr/write/read/wdata/wmask --> u_<register>_<kind>
//!                                ^                                              |  value/pulse/sticky -->
//!                                |                                              |  <-- set/status/latch_in
//!                                +---- data/error <-- u_read_back <-- hit, rdata +
//! ```

use rust_hdl::prelude::*;

use super::axi_lite::RegsAxiLite;
use super::crossing::RegsCrossing;
use super::layout::Layout;
use super::read_back::RegsReadBack;
use super::slots::{RegsConstant, RegsLatch, RegsPulse, RegsStatus, RegsSticky, RegsStorage};

/// Width of the AXI4-Lite address (`s_axil_awaddr`, `s_axil_araddr`) of the
/// register file and of the generated top: the width of the masters that sit
/// in front of it (XDMA's AXI4-Lite master, Intel's bridges, the
/// Etherbone/LiteX bus are all 32-bit), so none of them drops address bits.
/// Every one of the 32 bits is decoded: an address with a bit set at or above
/// the map's span (`RegisterMap::address_bits`) is unmapped like any other.
pub const BUS_ADDRESS_BITS: usize = 32;

/// Width of the address the core holds and decodes past the AXI4-Lite
/// channels: the map's span of bits, and the top bit for an address outside
/// the span ([`OUT_OF_MAP`]). So one core serves every map of up to 15
/// address bits (32 KiB).
pub const DECODE_ADDRESS_BITS: usize = 16;

/// The held address of a request whose bus address has a bit set at or above
/// the map's span: no register of a map the core serves has it, so the
/// request misses every slot and is answered SLVERR.
pub const OUT_OF_MAP: u32 = 1 << (DECODE_ADDRESS_BITS - 1);

/// Width of the bus side's timeout count: a timeout of up to 2^16 bus
/// cycles (`Layout::bus_timeout`).
pub const BUS_TIMEOUT_BITS: usize = 16;

/// The register file over the slot lists of a [`Layout`]: the AXI4-Lite
/// slave in `s_axil_aclk`, the registers in `user_clk`. Slot `k` of each
/// kind is port element `k` (`value_k`, `pulse_k`, ...); the emitter and the
/// wrapper of [`register_file_modules`](super::register_file_modules) name
/// each after its register.
#[derive(LogicBlock)]
pub struct RegisterFileCore {
    // ---- AXI4-Lite slave, s_axil_aclk domain.
    /// Register-bus clock.
    pub s_axil_aclk: Signal<In, Clock>,
    /// Register-bus reset, active low, synchronous to `s_axil_aclk`.
    pub s_axil_aresetn: Signal<In, Bit>,
    /// Write address (every bit decoded).
    pub s_axil_awaddr: Signal<In, Bits<BUS_ADDRESS_BITS>>,
    /// Write address valid.
    pub s_axil_awvalid: Signal<In, Bit>,
    /// Write address taken.
    pub s_axil_awready: Signal<Out, Bit>,
    /// Write data.
    pub s_axil_wdata: Signal<In, Bits<32>>,
    /// Write byte strobes.
    pub s_axil_wstrb: Signal<In, Bits<4>>,
    /// Write data valid.
    pub s_axil_wvalid: Signal<In, Bit>,
    /// Write data taken.
    pub s_axil_wready: Signal<Out, Bit>,
    /// Write response: OKAY, or SLVERR (unmapped, refused, timed out).
    pub s_axil_bresp: Signal<Out, Bits<2>>,
    /// Write response valid.
    pub s_axil_bvalid: Signal<Out, Bit>,
    /// The master takes the write response.
    pub s_axil_bready: Signal<In, Bit>,
    /// Read address (every bit decoded).
    pub s_axil_araddr: Signal<In, Bits<BUS_ADDRESS_BITS>>,
    /// Read address valid.
    pub s_axil_arvalid: Signal<In, Bit>,
    /// Read address taken.
    pub s_axil_arready: Signal<Out, Bit>,
    /// Read data.
    pub s_axil_rdata: Signal<Out, Bits<32>>,
    /// Read response: OKAY, or SLVERR (unmapped, timed out).
    pub s_axil_rresp: Signal<Out, Bits<2>>,
    /// Read data valid.
    pub s_axil_rvalid: Signal<Out, Bit>,
    /// The master takes the read data.
    pub s_axil_rready: Signal<In, Bit>,
    // ---- User clock domain.
    /// User clock: the registers live here.
    pub user_clk: Signal<In, Clock>,
    /// Synchronous reset of the registers, active high.
    pub user_rst: Signal<In, Bit>,
    /// Free-running user-clock cycle count.
    pub cycle_count: Signal<Out, Bits<64>>,
    // ---- Register words, to and from the wrapper's field ports.
    /// Writable word (writable bits; others 0).
    pub value: Vec<Signal<Out, Bits<32>>>,
    /// Write-pulse word: written ones, for one cycle.
    pub pulse: Vec<Signal<Out, Bits<32>>>,
    /// Sticky word.
    pub sticky: Vec<Signal<Out, Bits<32>>>,
    /// Sticky word: bits to set.
    pub set: Vec<Signal<In, Bits<32>>>,
    /// Status word, sampled by a read.
    pub status: Vec<Signal<In, Bits<32>>>,
    /// High half of a wide value, latched by a read of the low half.
    pub latch_in: Vec<Signal<In, Bits<32>>>,
    bus: RegsAxiLite,
    crossing: RegsCrossing,
    storage_words: Vec<RegsStorage>,
    pulse_words: Vec<RegsPulse>,
    sticky_words: Vec<RegsSticky>,
    status_words: Vec<RegsStatus>,
    latch_words: Vec<RegsLatch>,
    constant_words: Vec<RegsConstant>,
    read_back: RegsReadBack,
    counter: DFF<Bits<64>>,
    one64: Constant<Bits<64>>,
    zero64: Constant<Bits<64>>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
}

/// `n` default signals, one per slot.
pub(super) fn per_slot<T: Default>(n: usize) -> Vec<T> {
    (0..n).map(|_| T::default()).collect()
}

impl RegisterFileCore {
    pub fn new(layout: &Layout) -> Self {
        Self {
            s_axil_aclk: Default::default(),
            s_axil_aresetn: Default::default(),
            s_axil_awaddr: Default::default(),
            s_axil_awvalid: Default::default(),
            s_axil_awready: Default::default(),
            s_axil_wdata: Default::default(),
            s_axil_wstrb: Default::default(),
            s_axil_wvalid: Default::default(),
            s_axil_wready: Default::default(),
            s_axil_bresp: Default::default(),
            s_axil_bvalid: Default::default(),
            s_axil_bready: Default::default(),
            s_axil_araddr: Default::default(),
            s_axil_arvalid: Default::default(),
            s_axil_arready: Default::default(),
            s_axil_rdata: Default::default(),
            s_axil_rresp: Default::default(),
            s_axil_rvalid: Default::default(),
            s_axil_rready: Default::default(),
            user_clk: Default::default(),
            user_rst: Default::default(),
            cycle_count: Default::default(),
            value: per_slot(layout.storage.len()),
            pulse: per_slot(layout.pulse.len()),
            sticky: per_slot(layout.sticky.len()),
            set: per_slot(layout.sticky.len()),
            status: per_slot(layout.status.len()),
            latch_in: per_slot(layout.latch.len()),
            bus: RegsAxiLite::new(layout),
            crossing: Default::default(),
            storage_words: layout
                .storage
                .iter()
                .map(|s| RegsStorage::new(s.addr, s.mask, s.read_mask, s.reset, s.claim))
                .collect(),
            pulse_words: layout.pulse.iter().map(|s| RegsPulse::new(s.addr, s.mask)).collect(),
            sticky_words: layout.sticky.iter().map(|s| RegsSticky::new(s.addr, s.mask, s.reset)).collect(),
            status_words: layout.status.iter().map(|s| RegsStatus::new(s.addr, s.mask)).collect(),
            latch_words: layout.latch.iter().map(|s| RegsLatch::new(s.addr, s.lo_addr, s.mask, s.reset)).collect(),
            constant_words: layout.constant.iter().map(|s| RegsConstant::new(s.addr, s.reset)).collect(),
            read_back: RegsReadBack::new(layout),
            counter: Default::default(),
            one64: Constant::new(bits(1)),
            zero64: Constant::new(bits(0)),
            verilog_name: Default::default(),
        }
    }
}

impl Logic for RegisterFileCore {
    #[hdl_gen]
    fn update(&mut self) {
        // The AXI4-Lite slave.
        self.bus.s_axil_aclk.next = self.s_axil_aclk.val();
        self.bus.s_axil_aresetn.next = self.s_axil_aresetn.val();
        self.bus.s_axil_awaddr.next = self.s_axil_awaddr.val();
        self.bus.s_axil_awvalid.next = self.s_axil_awvalid.val();
        self.s_axil_awready.next = self.bus.s_axil_awready.val();
        self.bus.s_axil_wdata.next = self.s_axil_wdata.val();
        self.bus.s_axil_wstrb.next = self.s_axil_wstrb.val();
        self.bus.s_axil_wvalid.next = self.s_axil_wvalid.val();
        self.s_axil_wready.next = self.bus.s_axil_wready.val();
        self.s_axil_bresp.next = self.bus.s_axil_bresp.val();
        self.s_axil_bvalid.next = self.bus.s_axil_bvalid.val();
        self.bus.s_axil_bready.next = self.s_axil_bready.val();
        self.bus.s_axil_araddr.next = self.s_axil_araddr.val();
        self.bus.s_axil_arvalid.next = self.s_axil_arvalid.val();
        self.s_axil_arready.next = self.bus.s_axil_arready.val();
        self.s_axil_rdata.next = self.bus.s_axil_rdata.val();
        self.s_axil_rresp.next = self.bus.s_axil_rresp.val();
        self.s_axil_rvalid.next = self.bus.s_axil_rvalid.val();
        self.bus.s_axil_rready.next = self.s_axil_rready.val();
        self.bus.pending_write.next = self.crossing.pending_write.val();
        self.bus.ack.next = self.crossing.ack.val();
        self.bus.response_data.next = self.crossing.response_data.val();
        self.bus.response_err.next = self.crossing.response_err.val();

        // The clock crossing.
        self.crossing.bus_clk.next = self.s_axil_aclk.val();
        self.crossing.issue.next = self.bus.issue.val();
        self.crossing.issue_write.next = self.bus.issue_write.val();
        self.crossing.issue_addr.next = self.bus.issue_addr.val();
        self.crossing.issue_wdata.next = self.bus.issue_wdata.val();
        self.crossing.issue_wstrb.next = self.bus.issue_wstrb.val();
        self.crossing.user_clk.next = self.user_clk.val();
        self.crossing.answer_data.next = self.read_back.data.val();
        self.crossing.answer_err.next = self.read_back.error.val();

        // The cycle counter.
        self.counter.clock.next = self.user_clk.val();
        self.counter.d.next = self.counter.q.val() + self.one64.val();
        if self.user_rst.val() {
            self.counter.d.next = self.zero64.val();
        }
        self.cycle_count.next = self.counter.q.val();

        // The register words and the read-back.
        self.read_back.access.next = self.crossing.read.val() | self.crossing.write.val();
        self.read_back.reset.next = self.user_rst.val();
        for k in 0..self.storage_words.len() {
            self.storage_words[k].clock.next = self.user_clk.val();
            self.storage_words[k].reset.next = self.user_rst.val();
            self.storage_words[k].addr.next = self.crossing.addr.val();
            self.storage_words[k].write.next = self.crossing.write.val();
            self.storage_words[k].wdata.next = self.crossing.wdata.val();
            self.storage_words[k].wmask.next = self.crossing.wmask.val();
            self.value[k].next = self.storage_words[k].value.val();
            self.read_back.storage_hit[k].next = self.storage_words[k].hit.val();
            self.read_back.storage_rdata[k].next = self.storage_words[k].rdata.val();
        }
        for k in 0..self.pulse_words.len() {
            self.pulse_words[k].clock.next = self.user_clk.val();
            self.pulse_words[k].reset.next = self.user_rst.val();
            self.pulse_words[k].addr.next = self.crossing.addr.val();
            self.pulse_words[k].write.next = self.crossing.write.val();
            self.pulse_words[k].wdata.next = self.crossing.wdata.val();
            self.pulse_words[k].wmask.next = self.crossing.wmask.val();
            self.pulse[k].next = self.pulse_words[k].pulse.val();
            self.read_back.pulse_hit[k].next = self.pulse_words[k].hit.val();
        }
        for k in 0..self.sticky_words.len() {
            self.sticky_words[k].clock.next = self.user_clk.val();
            self.sticky_words[k].reset.next = self.user_rst.val();
            self.sticky_words[k].addr.next = self.crossing.addr.val();
            self.sticky_words[k].write.next = self.crossing.write.val();
            self.sticky_words[k].wdata.next = self.crossing.wdata.val();
            self.sticky_words[k].wmask.next = self.crossing.wmask.val();
            self.sticky_words[k].set_bits.next = self.set[k].val();
            self.sticky[k].next = self.sticky_words[k].sticky.val();
            self.read_back.sticky_hit[k].next = self.sticky_words[k].hit.val();
            self.read_back.sticky_rdata[k].next = self.sticky_words[k].rdata.val();
        }
        for k in 0..self.status_words.len() {
            self.status_words[k].clock.next = self.user_clk.val();
            self.status_words[k].addr.next = self.crossing.addr.val();
            self.status_words[k].status.next = self.status[k].val();
            self.read_back.status_hit[k].next = self.status_words[k].hit.val();
            self.read_back.status_rdata[k].next = self.status_words[k].rdata.val();
        }
        for k in 0..self.latch_words.len() {
            self.latch_words[k].clock.next = self.user_clk.val();
            self.latch_words[k].reset.next = self.user_rst.val();
            self.latch_words[k].addr.next = self.crossing.addr.val();
            self.latch_words[k].read.next = self.crossing.read.val();
            self.latch_words[k].latch_in.next = self.latch_in[k].val();
            self.read_back.latch_hit[k].next = self.latch_words[k].hit.val();
            self.read_back.latch_rdata[k].next = self.latch_words[k].rdata.val();
        }
        for k in 0..self.constant_words.len() {
            self.constant_words[k].clock.next = self.user_clk.val();
            self.constant_words[k].addr.next = self.crossing.addr.val();
            self.read_back.constant_hit[k].next = self.constant_words[k].hit.val();
            self.read_back.constant_rdata[k].next = self.constant_words[k].rdata.val();
        }
    }
}
