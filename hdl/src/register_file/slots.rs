//! The field logic of the register file, one block per kind of register
//! word ([`Layout`](super::Layout)'s slots), all in `user_clk`. Each
//! instance is one register word of the map, its address and masks set as
//! module parameters; the core (`block.rs`) has one instance per slot,
//! named after its register.
//!
//! Every kind decodes the request's address one cycle ahead into a select
//! (`sel`): the request is held still from its toggle to its acknowledge,
//! and the toggle takes two user cycles through its synchroniser, so the
//! select is of the request by the access cycle, and the compare stays out
//! of the access's and the read-back's cone. In the access cycle (`write` or
//! `read` from the crossing) a selected word is written under the byte mask,
//! or sampled. `hit` is the select (the read-back answers an unmapped
//! address with an error); `rdata` is the word's read value, which the
//! read-back takes while `hit` (a latch's high half reads 0 while only its
//! low half is addressed).

use rust_hdl::prelude::*;

use super::block::DECODE_ADDRESS_BITS;

/// A writable word (`rw`, `wo` and `claim` fields): written under the byte
/// mask, reset to the map's value; a read returns its `rw` and `claim` bits.
/// A word with `claim` bits takes a write only while they are 0 or when the
/// write frees them: of two masters that each write their own tag, the first
/// holds the word and the second's write is ignored.
#[derive(LogicBlock)]
pub struct RegsStorage {
    // ---- Clock and reset.
    /// User clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: the word takes its reset value.
    pub reset: Signal<In, Bit>,
    // ---- Access, from the crossing.
    /// The request's address, held still from its toggle to its acknowledge.
    pub addr: Signal<In, Bits<DECODE_ADDRESS_BITS>>,
    /// The one cycle of a write access.
    pub write: Signal<In, Bit>,
    /// The write's data.
    pub wdata: Signal<In, Bits<32>>,
    /// The write's byte strobes as a bit mask.
    pub wmask: Signal<In, Bits<32>>,
    // ---- Read-back and field ports.
    /// The request addresses this word.
    pub hit: Signal<Out, Bit>,
    /// The word's readable bits (taken by the read-back while `hit`).
    pub rdata: Signal<Out, Bits<32>>,
    /// The word (writable bits; others 0), to the field ports.
    pub value: Signal<Out, Bits<32>>,
    /// The word's address.
    pub(super) address: Constant<Bits<DECODE_ADDRESS_BITS>>,
    /// The writable bits.
    pub(super) mask: Constant<Bits<32>>,
    /// The bits a read returns (`rw` and `claim`, not `wo`).
    pub(super) read_mask: Constant<Bits<32>>,
    /// The reset value.
    pub(super) reset_value: Constant<Bits<32>>,
    /// The `claim` bits (0: a plain word).
    pub(super) claim_mask: Constant<Bits<32>>,
    /// The word as the selected write would leave it.
    written: Signal<Local, Bits<32>>,
    sel: DFF<Bit>,
    word: DFF<Bits<32>>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
}

impl RegsStorage {
    pub fn new(addr: u32, mask: u32, read_mask: u32, reset: u32, claim: u32) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            addr: Default::default(),
            write: Default::default(),
            wdata: Default::default(),
            wmask: Default::default(),
            hit: Default::default(),
            rdata: Default::default(),
            value: Default::default(),
            address: Constant::new(bits(u64::from(addr))),
            mask: Constant::new(bits(u64::from(mask))),
            read_mask: Constant::new(bits(u64::from(read_mask))),
            reset_value: Constant::new(bits(u64::from(reset))),
            claim_mask: Constant::new(bits(u64::from(claim))),
            written: Default::default(),
            sel: Default::default(),
            word: Default::default(),
            verilog_name: Default::default(),
        }
    }
}

impl Logic for RegsStorage {
    #[hdl_gen]
    fn update(&mut self) {
        self.sel.clock.next = self.clock.val();
        self.word.clock.next = self.clock.val();
        self.sel.d.next = self.addr.val() == self.address.val();
        self.hit.next = self.sel.q.val();
        self.rdata.next = self.word.q.val() & self.read_mask.val();
        self.word.d.next = self.word.q.val();
        self.written.next = (self.word.q.val() & !(self.wmask.val() & self.mask.val()))
            | (self.wdata.val() & self.wmask.val() & self.mask.val());
        // A held claim changes only to free.
        if self.sel.q.val()
            & self.write.val()
            & (!(self.word.q.val() & self.claim_mask.val()).any() | !(self.written.val() & self.claim_mask.val()).any())
        {
            self.word.d.next = self.written.val();
        }
        if self.reset.val() {
            self.word.d.next = self.reset_value.val();
        }
        self.value.next = self.word.q.val();
    }
}

/// A write-pulse word (`wpulse` fields): the written ones for one cycle;
/// reads as 0.
#[derive(LogicBlock)]
pub struct RegsPulse {
    // ---- Clock and reset.
    /// User clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: no pulse.
    pub reset: Signal<In, Bit>,
    // ---- Access, from the crossing.
    /// The request's address, held still from its toggle to its acknowledge.
    pub addr: Signal<In, Bits<DECODE_ADDRESS_BITS>>,
    /// The one cycle of a write access.
    pub write: Signal<In, Bit>,
    /// The write's data.
    pub wdata: Signal<In, Bits<32>>,
    /// The write's byte strobes as a bit mask.
    pub wmask: Signal<In, Bits<32>>,
    // ---- Read-back and field ports.
    /// The request addresses this word.
    pub hit: Signal<Out, Bit>,
    /// The written ones, for one cycle, to the field ports.
    pub pulse: Signal<Out, Bits<32>>,
    /// The word's address.
    pub(super) address: Constant<Bits<DECODE_ADDRESS_BITS>>,
    /// The pulse bits.
    pub(super) mask: Constant<Bits<32>>,
    sel: DFF<Bit>,
    word: DFF<Bits<32>>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
}

impl RegsPulse {
    pub fn new(addr: u32, mask: u32) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            addr: Default::default(),
            write: Default::default(),
            wdata: Default::default(),
            wmask: Default::default(),
            hit: Default::default(),
            pulse: Default::default(),
            address: Constant::new(bits(u64::from(addr))),
            mask: Constant::new(bits(u64::from(mask))),
            sel: Default::default(),
            word: Default::default(),
            verilog_name: Default::default(),
        }
    }
}

impl Logic for RegsPulse {
    #[hdl_gen]
    fn update(&mut self) {
        self.sel.clock.next = self.clock.val();
        self.word.clock.next = self.clock.val();
        self.sel.d.next = self.addr.val() == self.address.val();
        self.hit.next = self.sel.q.val();
        self.word.d.next = 0.into();
        if self.write.val() & self.sel.q.val() {
            self.word.d.next = self.wdata.val() & self.wmask.val() & self.mask.val();
        }
        if self.reset.val() {
            self.word.d.next = 0.into();
        }
        self.pulse.next = self.word.q.val();
    }
}

/// A sticky word (`w1c` fields): set by the user logic, cleared by writing
/// ones. A set in the cycle of a clearing write wins: no event is lost.
#[derive(LogicBlock)]
pub struct RegsSticky {
    // ---- Clock and reset.
    /// User clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: the word takes its reset value.
    pub reset: Signal<In, Bit>,
    // ---- Access, from the crossing.
    /// The request's address, held still from its toggle to its acknowledge.
    pub addr: Signal<In, Bits<DECODE_ADDRESS_BITS>>,
    /// The one cycle of a write access.
    pub write: Signal<In, Bit>,
    /// The write's data: its ones clear.
    pub wdata: Signal<In, Bits<32>>,
    /// The write's byte strobes as a bit mask.
    pub wmask: Signal<In, Bits<32>>,
    // ---- Read-back and field ports.
    /// The request addresses this word.
    pub hit: Signal<Out, Bit>,
    /// The word (taken by the read-back while `hit`).
    pub rdata: Signal<Out, Bits<32>>,
    /// Bits to set, from the user logic.
    pub set_bits: Signal<In, Bits<32>>,
    /// The word, to the field ports.
    pub sticky: Signal<Out, Bits<32>>,
    /// The word's address.
    pub(super) address: Constant<Bits<DECODE_ADDRESS_BITS>>,
    /// The sticky bits.
    pub(super) mask: Constant<Bits<32>>,
    /// The reset value.
    pub(super) reset_value: Constant<Bits<32>>,
    sel: DFF<Bit>,
    word: DFF<Bits<32>>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
}

impl RegsSticky {
    pub fn new(addr: u32, mask: u32, reset: u32) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            addr: Default::default(),
            write: Default::default(),
            wdata: Default::default(),
            wmask: Default::default(),
            hit: Default::default(),
            rdata: Default::default(),
            set_bits: Default::default(),
            sticky: Default::default(),
            address: Constant::new(bits(u64::from(addr))),
            mask: Constant::new(bits(u64::from(mask))),
            reset_value: Constant::new(bits(u64::from(reset))),
            sel: Default::default(),
            word: Default::default(),
            verilog_name: Default::default(),
        }
    }
}

impl Logic for RegsSticky {
    #[hdl_gen]
    fn update(&mut self) {
        self.sel.clock.next = self.clock.val();
        self.word.clock.next = self.clock.val();
        self.sel.d.next = self.addr.val() == self.address.val();
        self.hit.next = self.sel.q.val();
        self.rdata.next = self.word.q.val();
        self.word.d.next = self.word.q.val() | (self.set_bits.val() & self.mask.val());
        if self.sel.q.val() & self.write.val() {
            self.word.d.next =
                (self.word.q.val() & !(self.wdata.val() & self.wmask.val())) | (self.set_bits.val() & self.mask.val());
        }
        if self.reset.val() {
            self.word.d.next = self.reset_value.val();
        }
        self.sticky.next = self.word.q.val();
    }
}

/// A status word (volatile `ro` fields): the user logic's value, sampled by
/// the read.
#[derive(LogicBlock)]
pub struct RegsStatus {
    // ---- Clock.
    /// User clock.
    pub clock: Signal<In, Clock>,
    // ---- Access, from the crossing.
    /// The request's address, held still from its toggle to its acknowledge.
    pub addr: Signal<In, Bits<DECODE_ADDRESS_BITS>>,
    // ---- Read-back and field ports.
    /// The request addresses this word.
    pub hit: Signal<Out, Bit>,
    /// The status (taken by the read-back while `hit`).
    pub rdata: Signal<Out, Bits<32>>,
    /// The status, from the user logic.
    pub status: Signal<In, Bits<32>>,
    /// The word's address.
    pub(super) address: Constant<Bits<DECODE_ADDRESS_BITS>>,
    /// The status bits.
    pub(super) mask: Constant<Bits<32>>,
    sel: DFF<Bit>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
}

impl RegsStatus {
    pub fn new(addr: u32, mask: u32) -> Self {
        Self {
            clock: Default::default(),
            addr: Default::default(),
            hit: Default::default(),
            rdata: Default::default(),
            status: Default::default(),
            address: Constant::new(bits(u64::from(addr))),
            mask: Constant::new(bits(u64::from(mask))),
            sel: Default::default(),
            verilog_name: Default::default(),
        }
    }
}

impl Logic for RegsStatus {
    #[hdl_gen]
    fn update(&mut self) {
        self.sel.clock.next = self.clock.val();
        self.sel.d.next = self.addr.val() == self.address.val();
        self.hit.next = self.sel.q.val();
        self.rdata.next = self.status.val() & self.mask.val();
    }
}

/// The high half of a volatile wide value: loaded in the cycle its low half
/// is read, so the two halves are one sample. Either half's address hits.
#[derive(LogicBlock)]
pub struct RegsLatch {
    // ---- Clock and reset.
    /// User clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: the word takes its reset value.
    pub reset: Signal<In, Bit>,
    // ---- Access, from the crossing.
    /// The request's address, held still from its toggle to its acknowledge.
    pub addr: Signal<In, Bits<DECODE_ADDRESS_BITS>>,
    /// The one cycle of a read access.
    pub read: Signal<In, Bit>,
    // ---- Read-back and field ports.
    /// The request addresses the low or the high half.
    pub hit: Signal<Out, Bit>,
    /// The latched high half while it is addressed, else 0.
    pub rdata: Signal<Out, Bits<32>>,
    /// The high half, from the user logic.
    pub latch_in: Signal<In, Bits<32>>,
    /// The address of the high half.
    pub(super) address: Constant<Bits<DECODE_ADDRESS_BITS>>,
    /// The address of the low half, whose read loads the latch.
    pub(super) lo_address: Constant<Bits<DECODE_ADDRESS_BITS>>,
    /// The latched bits.
    pub(super) mask: Constant<Bits<32>>,
    /// The reset value.
    pub(super) reset_value: Constant<Bits<32>>,
    lo_sel: DFF<Bit>,
    hi_sel: DFF<Bit>,
    word: DFF<Bits<32>>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
}

impl RegsLatch {
    pub fn new(addr: u32, lo_addr: u32, mask: u32, reset: u32) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            addr: Default::default(),
            read: Default::default(),
            hit: Default::default(),
            rdata: Default::default(),
            latch_in: Default::default(),
            address: Constant::new(bits(u64::from(addr))),
            lo_address: Constant::new(bits(u64::from(lo_addr))),
            mask: Constant::new(bits(u64::from(mask))),
            reset_value: Constant::new(bits(u64::from(reset))),
            lo_sel: Default::default(),
            hi_sel: Default::default(),
            word: Default::default(),
            verilog_name: Default::default(),
        }
    }
}

impl Logic for RegsLatch {
    #[hdl_gen]
    fn update(&mut self) {
        self.lo_sel.clock.next = self.clock.val();
        self.hi_sel.clock.next = self.clock.val();
        self.word.clock.next = self.clock.val();
        self.lo_sel.d.next = self.addr.val() == self.lo_address.val();
        self.hi_sel.d.next = self.addr.val() == self.address.val();
        self.hit.next = self.lo_sel.q.val() | self.hi_sel.q.val();
        self.word.d.next = self.word.q.val();
        if self.read.val() & self.lo_sel.q.val() {
            self.word.d.next = self.latch_in.val() & self.mask.val();
        }
        self.rdata.next = 0.into();
        if self.hi_sel.q.val() {
            self.rdata.next = self.word.q.val();
        }
        if self.reset.val() {
            self.word.d.next = self.reset_value.val();
        }
    }
}

/// A constant word (`ro` fields that are not volatile): the map's value.
#[derive(LogicBlock)]
pub struct RegsConstant {
    // ---- Clock.
    /// User clock.
    pub clock: Signal<In, Clock>,
    // ---- Access, from the crossing.
    /// The request's address, held still from its toggle to its acknowledge.
    pub addr: Signal<In, Bits<DECODE_ADDRESS_BITS>>,
    // ---- Read-back.
    /// The request addresses this word.
    pub hit: Signal<Out, Bit>,
    /// The value (taken by the read-back while `hit`).
    pub rdata: Signal<Out, Bits<32>>,
    /// The word's address.
    pub(super) address: Constant<Bits<DECODE_ADDRESS_BITS>>,
    /// The value.
    pub(super) value: Constant<Bits<32>>,
    sel: DFF<Bit>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
}

impl RegsConstant {
    pub fn new(addr: u32, value: u32) -> Self {
        Self {
            clock: Default::default(),
            addr: Default::default(),
            hit: Default::default(),
            rdata: Default::default(),
            address: Constant::new(bits(u64::from(addr))),
            value: Constant::new(bits(u64::from(value))),
            sel: Default::default(),
            verilog_name: Default::default(),
        }
    }
}

impl Logic for RegsConstant {
    #[hdl_gen]
    fn update(&mut self) {
        self.sel.clock.next = self.clock.val();
        self.sel.d.next = self.addr.val() == self.address.val();
        self.hit.next = self.sel.q.val();
        self.rdata.next = self.value.val();
    }
}
