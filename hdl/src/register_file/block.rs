//! The register file's core block: the one flat rust-hdl block
//! ([`RegisterFileCore`]) holding every register and signal of the AXI4-Lite
//! slave (`axi_lite.rs`), the clock crossing (`crossing.rs`) and the field
//! logic (`fields.rs`), its constructor from a [`Layout`], and the order in
//! which those parts' logic runs. Each part is a [`Part`](part::Part) of the
//! core, written with `#[hdl_gen]` in its own file; [`Logic`] for the core
//! runs (and emits the Verilog of) the parts in a fixed order, so the core is
//! one module with one update block, exactly as if it were written in one
//! function. Keeping the parts' registers here rather than in child blocks
//! keeps the register names the implementation constraints name
//! (`u_core/u_req_sync/ff1_reg`, `u_core/req_addr_reg`).

use rust_hdl::prelude::*;

use super::axi_lite::{Channels, Transactions};
use super::crossing::{AckIn, Answer, RequestIn};
use super::fields::Access;
use super::layout::{Layout, Slot};
use crate::cdc::SyncBit;

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

/// The trait of the core's parts, in a module of its own: in scope beside
/// the core, its `update` and `connect` would clash with [`Logic`]'s in the
/// code `#[derive(LogicBlock)]` writes.
pub(super) mod part {
    use rust_hdl::prelude::*;

    /// One part `P` of the core's logic: `#[hdl_gen]` on `update` writes
    /// `connect` and `hdl` for it, as it does for a [`Logic`]. `P` is a
    /// marker type naming the part, so one core has many parts.
    pub trait Part<P> {
        fn update(&mut self);
        fn connect(&mut self);
        fn hdl(&self) -> Verilog;
    }
}

/// The rust-hdl logic of the register file over the slot lists of a
/// [`Layout`]: the AXI4-Lite slave and the request side of the crossing in
/// `s_axil_aclk`, the registers in `user_clk`. Slot `k` of each kind is port
/// element `k` (`value_k`, `pulse_k`, ... in the Verilog); the wrapper of
/// [`register_file_modules`](super::register_file_modules) gives them their
/// field names. The fields of the parts live here, in one flat block, so
/// every register keeps its name in the core (`u_req_sync/ff1_reg`,
/// `req_addr_reg`); the logic of each part is in the file of its job.
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
    // ---- Slot words, to and from the wrapper's field ports.
    /// Storage slot words (writable bits; others 0).
    pub value: Vec<Signal<Out, Bits<32>>>,
    /// Pulse slot words: written ones, for one cycle.
    pub pulse: Vec<Signal<Out, Bits<32>>>,
    /// Sticky slot words.
    pub sticky: Vec<Signal<Out, Bits<32>>>,
    /// Sticky slot set inputs.
    pub set: Vec<Signal<In, Bits<32>>>,
    /// Status slot inputs, sampled by a read.
    pub status: Vec<Signal<In, Bits<32>>>,
    /// Latch slot inputs, sampled by a read of the low half.
    pub latch_in: Vec<Signal<In, Bits<32>>>,
    // Bus domain: holding registers of AW, W and AR. `aw_addr` and `ar_addr`
    // hold the beat's address as the core decodes it: its bits within the
    // map's span, or `OUT_OF_MAP` when a bit above the span is set (the
    // compare against `span_high` is taken with the beat, so the request's
    // decode stays a compare of the span's bits and one more).
    pub(super) aw_full: DFF<Bit>,
    pub(super) aw_addr: DFF<Bits<DECODE_ADDRESS_BITS>>,
    pub(super) w_full: DFF<Bit>,
    pub(super) w_data: DFF<Bits<32>>,
    pub(super) w_strb: DFF<Bits<4>>,
    pub(super) ar_full: DFF<Bit>,
    pub(super) ar_addr: DFF<Bits<DECODE_ADDRESS_BITS>>,
    // Bus domain: the request in flight (held until the acknowledge) and the response.
    pub(super) busy: DFF<Bit>,
    pub(super) last_write: DFF<Bit>,
    pub(super) req_write: DFF<Bit>,
    pub(super) req_addr: DFF<Bits<DECODE_ADDRESS_BITS>>,
    pub(super) req_wdata: DFF<Bits<32>>,
    pub(super) req_wstrb: DFF<Bits<4>>,
    pub(super) req_tog: DFF<Bit>,
    pub(super) ack_sync: SyncBit,
    pub(super) ack_seen: DFF<Bit>,
    pub(super) ack_edge: Signal<Local, Bit>,
    /// The request in flight has been answered already (the bus was reset, or
    /// it timed out): wait for its acknowledge, answer nothing.
    pub(super) drop_resp: DFF<Bit>,
    /// An access waits on the user domain alone: the one in flight, or one
    /// held behind a request that timed out.
    pub(super) blocked: Signal<Local, Bit>,
    /// Bus cycles `blocked` has lasted.
    pub(super) wait_q: DFF<Bits<BUS_TIMEOUT_BITS>>,
    /// `wait_q` reached the timeout in the cycle before.
    pub(super) expired: DFF<Bit>,
    pub(super) timeout_last: Constant<Bits<BUS_TIMEOUT_BITS>>,
    pub(super) wait_zero: Constant<Bits<BUS_TIMEOUT_BITS>>,
    pub(super) wait_one: Constant<Bits<BUS_TIMEOUT_BITS>>,
    pub(super) b_valid: DFF<Bit>,
    pub(super) b_resp: DFF<Bits<2>>,
    pub(super) r_valid: DFF<Bit>,
    pub(super) r_data: DFF<Bits<32>>,
    pub(super) r_resp: DFF<Bits<2>>,
    // User domain.
    pub(super) req_sync: SyncBit,
    pub(super) req_seen: DFF<Bit>,
    pub(super) ack_tog: DFF<Bit>,
    pub(super) resp_data: DFF<Bits<32>>,
    pub(super) resp_err: DFF<Bit>,
    pub(super) counter: DFF<Bits<64>>,
    pub(super) storage_q: Vec<DFF<Bits<32>>>,
    pub(super) pulse_q: Vec<DFF<Bits<32>>>,
    pub(super) sticky_q: Vec<DFF<Bits<32>>>,
    pub(super) latch_q: Vec<DFF<Bits<32>>>,
    pub(super) strobe: Signal<Local, Bit>,
    pub(super) do_write: Signal<Local, Bit>,
    pub(super) do_read: Signal<Local, Bit>,
    pub(super) wmask: Signal<Local, Bits<32>>,
    pub(super) hit: Signal<Local, Bit>,
    /// The request's address decoded one user cycle ahead, per slot of each
    /// kind (`<kind>_addr[k]`). Every mapped register is in a slot of some
    /// kind (`Layout::mapped`), so a request hits when one of them is high.
    /// The request is held still from its toggle to its acknowledge, and
    /// the toggle takes two user cycles through its synchroniser, so the
    /// decode is of the request by the `strobe` cycle. The selects keep the
    /// compares out of the access's and the read multiplexer's cone.
    pub(super) storage_sel: Vec<DFF<Bit>>,
    pub(super) pulse_sel: Vec<DFF<Bit>>,
    pub(super) sticky_sel: Vec<DFF<Bit>>,
    pub(super) status_sel: Vec<DFF<Bit>>,
    pub(super) latch_lo_sel: Vec<DFF<Bit>>,
    pub(super) latch_hi_sel: Vec<DFF<Bit>>,
    pub(super) const_sel: Vec<DFF<Bit>>,
    pub(super) rd_storage: Signal<Local, Bits<32>>,
    pub(super) rd_sticky: Signal<Local, Bits<32>>,
    pub(super) rd_status: Signal<Local, Bits<32>>,
    pub(super) rd_latch: Signal<Local, Bits<32>>,
    pub(super) rd_const: Signal<Local, Bits<32>>,
    // From the map.
    pub(super) storage_addr: Vec<Constant<Bits<DECODE_ADDRESS_BITS>>>,
    pub(super) storage_mask: Vec<Constant<Bits<32>>>,
    pub(super) storage_rmask: Vec<Constant<Bits<32>>>,
    pub(super) storage_reset: Vec<Constant<Bits<32>>>,
    pub(super) pulse_addr: Vec<Constant<Bits<DECODE_ADDRESS_BITS>>>,
    pub(super) pulse_mask: Vec<Constant<Bits<32>>>,
    pub(super) sticky_addr: Vec<Constant<Bits<DECODE_ADDRESS_BITS>>>,
    pub(super) sticky_mask: Vec<Constant<Bits<32>>>,
    pub(super) sticky_reset: Vec<Constant<Bits<32>>>,
    pub(super) status_addr: Vec<Constant<Bits<DECODE_ADDRESS_BITS>>>,
    pub(super) status_mask: Vec<Constant<Bits<32>>>,
    pub(super) latch_lo_addr: Vec<Constant<Bits<DECODE_ADDRESS_BITS>>>,
    pub(super) latch_hi_addr: Vec<Constant<Bits<DECODE_ADDRESS_BITS>>>,
    pub(super) latch_mask: Vec<Constant<Bits<32>>>,
    pub(super) latch_reset: Vec<Constant<Bits<32>>>,
    pub(super) const_addr: Vec<Constant<Bits<DECODE_ADDRESS_BITS>>>,
    pub(super) const_value: Vec<Constant<Bits<32>>>,
    /// The bits of a held address within the map's span.
    pub(super) span_low: Constant<Bits<DECODE_ADDRESS_BITS>>,
    /// The bus address bits at or above the map's span: any of them set is
    /// an address outside the map.
    pub(super) span_high: Constant<Bits<BUS_ADDRESS_BITS>>,
    /// [`OUT_OF_MAP`].
    pub(super) out_of_map: Constant<Bits<DECODE_ADDRESS_BITS>>,
    pub(super) zero_bus: Constant<Bits<BUS_ADDRESS_BITS>>,
    // Checked fields (`Layout::checks`): address, field bits, lower bound and span (max - min) in place, byte strobes.
    pub(super) check_addr: Vec<Constant<Bits<DECODE_ADDRESS_BITS>>>,
    pub(super) check_mask: Vec<Constant<Bits<32>>>,
    pub(super) check_min: Vec<Constant<Bits<32>>>,
    pub(super) check_span: Vec<Constant<Bits<32>>>,
    pub(super) check_bytes: Vec<Constant<Bits<4>>>,
    /// Per checked field, taken with the AW beat: its address is the field's.
    pub(super) check_hit: Vec<DFF<Bit>>,
    /// Per checked field, taken with the W beat: it writes the field's bytes
    /// and would put an invalid value in the field, or covers only some of
    /// its bytes.
    pub(super) check_fault: Vec<DFF<Bit>>,
    /// The write waiting in the AW and W registers is refused: it would put
    /// an invalid value in a checked field, or cover only part of one.
    pub(super) w_refused: Signal<Local, Bit>,
    /// `w_refused` of the AW and W held in the cycle before.
    pub(super) w_refused_q: DFF<Bit>,
    /// AW and W are held, were both held in the cycle before (so
    /// `w_refused_q` judges them), and did not leave: the write may issue.
    pub(super) w_checked: DFF<Bit>,
    pub(super) zero4: Constant<Bits<4>>,
    // Byte-enable expansion: entry s is the bit mask of strobe pattern s.
    pub(super) strobe_mask: Vec<Constant<Bits<32>>>,
    pub(super) resp_okay: Constant<Bits<2>>,
    pub(super) resp_slverr: Constant<Bits<2>>,
    pub(super) one64: Constant<Bits<64>>,
    pub(super) zero64: Constant<Bits<64>>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
}

fn addrs(slots: &[Slot], f: impl Fn(&Slot) -> u32) -> Vec<Constant<Bits<DECODE_ADDRESS_BITS>>> {
    slots.iter().map(|s| Constant::new(bits::<DECODE_ADDRESS_BITS>(u64::from(f(s))))).collect()
}

fn words(slots: &[Slot], f: impl Fn(&Slot) -> u32) -> Vec<Constant<Bits<32>>> {
    slots.iter().map(|s| Constant::new(bits::<32>(u64::from(f(s))))).collect()
}

/// `n` default signals or flip-flops, one per slot (rust-hdl's DFF powers
/// up at 0; `user_rst` loads the map's reset values).
fn per_slot<T: Default>(n: usize) -> Vec<T> {
    (0..n).map(|_| T::default()).collect()
}

impl RegisterFileCore {
    pub fn new(layout: &Layout) -> Self {
        let span_low = (1u64 << layout.address_bits) - 1;
        let strobe_mask = (0..16u64)
            .map(|s| Constant::new(bits::<32>((0..4).filter(|b| s >> b & 1 == 1).fold(0, |m, b| m | 0xFF << (8 * b)))))
            .collect();
        Self {
            verilog_name: Default::default(),
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
            aw_full: Default::default(),
            aw_addr: Default::default(),
            w_full: Default::default(),
            w_data: Default::default(),
            w_strb: Default::default(),
            ar_full: Default::default(),
            ar_addr: Default::default(),
            busy: Default::default(),
            last_write: Default::default(),
            req_write: Default::default(),
            req_addr: Default::default(),
            req_wdata: Default::default(),
            req_wstrb: Default::default(),
            req_tog: Default::default(),
            ack_sync: Default::default(),
            ack_seen: Default::default(),
            ack_edge: Default::default(),
            drop_resp: Default::default(),
            blocked: Default::default(),
            wait_q: Default::default(),
            expired: Default::default(),
            timeout_last: Constant::new(bits(u64::from(layout.bus_timeout) - 1)),
            wait_zero: Constant::new(bits(0)),
            wait_one: Constant::new(bits(1)),
            b_valid: Default::default(),
            b_resp: Default::default(),
            r_valid: Default::default(),
            r_data: Default::default(),
            r_resp: Default::default(),
            req_sync: Default::default(),
            req_seen: Default::default(),
            ack_tog: Default::default(),
            resp_data: Default::default(),
            resp_err: Default::default(),
            counter: Default::default(),
            storage_q: per_slot(layout.storage.len()),
            pulse_q: per_slot(layout.pulse.len()),
            sticky_q: per_slot(layout.sticky.len()),
            latch_q: per_slot(layout.latch.len()),
            strobe: Default::default(),
            do_write: Default::default(),
            do_read: Default::default(),
            wmask: Default::default(),
            hit: Default::default(),
            storage_sel: per_slot(layout.storage.len()),
            pulse_sel: per_slot(layout.pulse.len()),
            sticky_sel: per_slot(layout.sticky.len()),
            status_sel: per_slot(layout.status.len()),
            latch_lo_sel: per_slot(layout.latch.len()),
            latch_hi_sel: per_slot(layout.latch.len()),
            const_sel: per_slot(layout.constant.len()),
            rd_storage: Default::default(),
            rd_sticky: Default::default(),
            rd_status: Default::default(),
            rd_latch: Default::default(),
            rd_const: Default::default(),
            storage_addr: addrs(&layout.storage, |s| s.addr),
            storage_mask: words(&layout.storage, |s| s.mask),
            storage_rmask: words(&layout.storage, |s| s.read_mask),
            storage_reset: words(&layout.storage, |s| s.reset),
            pulse_addr: addrs(&layout.pulse, |s| s.addr),
            pulse_mask: words(&layout.pulse, |s| s.mask),
            sticky_addr: addrs(&layout.sticky, |s| s.addr),
            sticky_mask: words(&layout.sticky, |s| s.mask),
            sticky_reset: words(&layout.sticky, |s| s.reset),
            status_addr: addrs(&layout.status, |s| s.addr),
            status_mask: words(&layout.status, |s| s.mask),
            latch_lo_addr: addrs(&layout.latch, |s| s.lo_addr),
            latch_hi_addr: addrs(&layout.latch, |s| s.addr),
            latch_mask: words(&layout.latch, |s| s.mask),
            latch_reset: words(&layout.latch, |s| s.reset),
            const_addr: addrs(&layout.constant, |s| s.addr),
            const_value: words(&layout.constant, |s| s.reset),
            span_low: Constant::new(bits(span_low)),
            span_high: Constant::new(bits(u64::from(!(span_low as u32)))),
            out_of_map: Constant::new(bits(u64::from(OUT_OF_MAP))),
            zero_bus: Constant::new(bits(0)),
            check_addr: layout.checks.iter().map(|c| Constant::new(bits(u64::from(c.addr)))).collect(),
            check_mask: layout.checks.iter().map(|c| Constant::new(bits(u64::from(c.mask)))).collect(),
            check_min: layout.checks.iter().map(|c| Constant::new(bits(u64::from(c.min)))).collect(),
            check_span: layout.checks.iter().map(|c| Constant::new(bits(u64::from(c.max - c.min)))).collect(),
            check_bytes: layout.checks.iter().map(|c| Constant::new(bits(u64::from(c.bytes)))).collect(),
            check_hit: per_slot(layout.checks.len()),
            check_fault: per_slot(layout.checks.len()),
            w_refused: Default::default(),
            w_refused_q: Default::default(),
            w_checked: Default::default(),
            zero4: Constant::new(bits::<4>(0)),
            strobe_mask,
            resp_okay: Constant::new(bits::<2>(0)),
            resp_slverr: Constant::new(bits::<2>(2)),
            one64: Constant::new(bits::<64>(1)),
            zero64: Constant::new(bits::<64>(0)),
        }
    }
}

/// [`Logic`] of the core from its parts, in the order given: `update` and
/// `connect` run each part's, `hdl` joins their statements into one block.
macro_rules! parts_in_order {
    ($($part:ty),* $(,)?) => {
        impl Logic for RegisterFileCore {
            fn update(&mut self) {
                $(<Self as part::Part<$part>>::update(self);)*
            }

            fn connect(&mut self) {
                $(<Self as part::Part<$part>>::connect(self);)*
            }

            fn hdl(&self) -> Verilog {
                let mut code = Vec::new();
                $(if let Verilog::Combinatorial(block) = <Self as part::Part<$part>>::hdl(self) {
                    code.extend(block);
                })*
                Verilog::Combinatorial(code)
            }
        }
    };
}

// The order is the order of the statements in the one update block: a later
// assignment to a signal wins, as in one function.
parts_in_order!(BusClock, Channels, AckIn, Transactions, UserClock, RequestIn, Access, Answer);

/// The bus-domain registers: clocked by `s_axil_aclk`, holding unless a later
/// part assigns them.
pub(super) struct BusClock;

impl part::Part<BusClock> for RegisterFileCore {
    #[hdl_gen]
    fn update(&mut self) {
        self.aw_full.clock.next = self.s_axil_aclk.val();
        self.aw_addr.clock.next = self.s_axil_aclk.val();
        self.w_full.clock.next = self.s_axil_aclk.val();
        self.w_data.clock.next = self.s_axil_aclk.val();
        self.w_strb.clock.next = self.s_axil_aclk.val();
        self.ar_full.clock.next = self.s_axil_aclk.val();
        self.ar_addr.clock.next = self.s_axil_aclk.val();
        self.busy.clock.next = self.s_axil_aclk.val();
        self.last_write.clock.next = self.s_axil_aclk.val();
        self.req_write.clock.next = self.s_axil_aclk.val();
        self.req_addr.clock.next = self.s_axil_aclk.val();
        self.req_wdata.clock.next = self.s_axil_aclk.val();
        self.req_wstrb.clock.next = self.s_axil_aclk.val();
        self.req_tog.clock.next = self.s_axil_aclk.val();
        self.ack_sync.clock.next = self.s_axil_aclk.val();
        self.ack_seen.clock.next = self.s_axil_aclk.val();
        self.drop_resp.clock.next = self.s_axil_aclk.val();
        self.wait_q.clock.next = self.s_axil_aclk.val();
        self.expired.clock.next = self.s_axil_aclk.val();
        self.b_valid.clock.next = self.s_axil_aclk.val();
        self.b_resp.clock.next = self.s_axil_aclk.val();
        self.r_valid.clock.next = self.s_axil_aclk.val();
        self.r_data.clock.next = self.s_axil_aclk.val();
        self.r_resp.clock.next = self.s_axil_aclk.val();
        self.w_refused_q.clock.next = self.s_axil_aclk.val();
        self.w_checked.clock.next = self.s_axil_aclk.val();

        self.aw_full.d.next = self.aw_full.q.val();
        self.aw_addr.d.next = self.aw_addr.q.val();
        self.w_full.d.next = self.w_full.q.val();
        self.w_data.d.next = self.w_data.q.val();
        self.w_strb.d.next = self.w_strb.q.val();
        self.ar_full.d.next = self.ar_full.q.val();
        self.ar_addr.d.next = self.ar_addr.q.val();
        self.busy.d.next = self.busy.q.val();
        self.drop_resp.d.next = self.drop_resp.q.val();
        self.last_write.d.next = self.last_write.q.val();
        self.req_write.d.next = self.req_write.q.val();
        self.req_addr.d.next = self.req_addr.q.val();
        self.req_wdata.d.next = self.req_wdata.q.val();
        self.req_wstrb.d.next = self.req_wstrb.q.val();
        self.req_tog.d.next = self.req_tog.q.val();
        self.b_valid.d.next = self.b_valid.q.val();
        self.b_resp.d.next = self.b_resp.q.val();
        self.r_valid.d.next = self.r_valid.q.val();
        self.r_data.d.next = self.r_data.q.val();
        self.r_resp.d.next = self.r_resp.q.val();
    }
}

/// The user-domain registers of the crossing and the cycle counter, clocked
/// by `user_clk` (the slot registers are clocked by their own part).
pub(super) struct UserClock;

impl part::Part<UserClock> for RegisterFileCore {
    #[hdl_gen]
    fn update(&mut self) {
        self.req_sync.clock.next = self.user_clk.val();
        self.req_seen.clock.next = self.user_clk.val();
        self.ack_tog.clock.next = self.user_clk.val();
        self.resp_data.clock.next = self.user_clk.val();
        self.resp_err.clock.next = self.user_clk.val();
        self.counter.clock.next = self.user_clk.val();
    }
}
