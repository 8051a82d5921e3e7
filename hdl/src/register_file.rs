//! The register file: an AXI4-Lite slave in its own clock whose registers
//! live in the user clock, built from the `regmap` definition.
//!
//! ```text
//!  s_axil_aclk domain                      |  user_clk domain
//!                                          |
//!  AW --> [aw]--+                          |
//!  W  --> [w ]--+--> arbiter --> req_addr/write/wdata/wstrb (held) -------> decode, storage,
//!  AR --> [ar]--+        |       req_tog ----------> SyncBit --> edge = one access per request
//!                        |                          |                        |
//!  B  <-- [b ]<--+       |                          |         resp_data/err (held)
//!  R  <-- [r ]<--+-- ack edge <-- SyncBit <---------+-------- ack_tog
//!                                          |
//!                                          |  value/pulse/sticky --> user logic
//!                                          |  status/set/latch_in <-- user logic
//! ```
//!
//! **Crossing.** One transaction at a time crosses as a request held still in
//! the bus domain while a toggle (`req_tog`) goes through a two-flip-flop
//! synchroniser ([`SyncBit`]); the user domain sees the toggle's edge, performs
//! the access in that one cycle (write into storage, or read into `resp_data`),
//! and toggles `ack_tog`, which comes back through another synchroniser; the bus
//! domain then takes `resp_data`/`resp_err`, held still in the user domain, into
//! B or R. Every multi-bit value crosses while its source holds it, so nothing
//! is torn, and each write is performed exactly once in the user domain, so a
//! write-pulse field is exactly one user-clock pulse. Latency
//! (`docs/register_file.md`): the access happens 2 to 3 user cycles after the
//! bus cycle that follows the acceptance of AW+W or AR; BVALID/RVALID rise 3
//! to 4 bus cycles plus 2 to 3 user cycles after that acceptance.
//!
//! **From the map.** [`Layout::new`] walks the [`regmap::RegisterMap`]: every
//! register instance becomes slots by the access of its fields (storage for
//! `rw`/`wo`, pulse for `wpulse`, sticky for `w1c`, status for volatile `ro`,
//! constant for other `ro`, and a latch for the volatile `ro` bits of a wide
//! value's high half), each with its address, masks and reset from the map.
//! [`RegisterFileCore`] is the rust-hdl logic over those slot lists (loops over
//! `Vec`s of constants); [`register_file_verilog`] wraps it in a module with
//! plain port names, one group per block instance (`toe_*`, `s<n>_*` for
//! exactly `design.sessions` sessions): rust-hdl cannot give a block a number
//! of ports that depends on the configuration, so that wrapper is written
//! here as text, pure wiring. Port names follow one rule ([`UserPort`]).

use std::fmt::Write as _;

use regmap::{Access, RegisterMap};
use rust_hdl::prelude::*;

use crate::cdc::SyncBit;
use crate::verilog::{block_verilog, HdlError};

/// Address width of the core; the wrapper zero-extends the map's address bits
/// to it, so one core serves every map up to 64 KiB.
pub const CORE_ADDRESS_BITS: usize = 16;

/// The wide value the register file drives itself: the free-running counter
/// of user-clock cycles, `(block, wide value)`.
pub const CYCLE_COUNTER: (&str, &str) = ("info", "cycle_count");

/// What a port of the register file carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PortKind {
    /// `rw`/`wo` field: output, the stored value (a level).
    Value,
    /// `wpulse` field: output, high for one user-clock cycle per write of 1.
    Pulse,
    /// `w1c` field: output, the sticky bit (a level).
    Sticky,
    /// `w1c` field: input, a one-cycle pulse (or any high cycles) sets the sticky bit.
    Set,
    /// Volatile `ro` field: input, a level sampled when software reads it.
    Status,
    /// The free-running 64-bit cycle counter: output.
    Counter,
}

/// Which register bits a port connects to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortBits {
    /// Bus address of the register instance.
    pub addr: u32,
    /// Lowest bit in the register.
    pub reg_lsb: u32,
    pub width: u32,
    /// Lowest bit in the port.
    pub port_lsb: u32,
}

/// A port of the register file toward the user logic, in the user clock
/// domain.
///
/// Naming: `<group>_<name>`, group `s<n>` for session instance n, the block
/// name for a block that does not repeat (`toe`, `info`). `<name>` is the wide
/// value's name for both halves of a value wider than 32 bits
/// (`s0_transfer_size`), the field's name for a field of a register with
/// several fields or a one-bit field (`s0_start`, `toe_mode`,
/// `toe_init_done`), and the register's name for the one multi-bit field of a
/// register (`toe_fpga_ip`, `s0_peer_mss`). A `w1c` field has `<name>` (sticky
/// output) and `<name>_set` (input).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UserPort {
    pub name: String,
    pub width: u32,
    pub output: bool,
    pub kind: PortKind,
    /// `block.register.field`, or `block.wide` for a wide value.
    pub source: String,
    pub block: String,
    /// Instance of a repeated block.
    pub instance: usize,
    pub bits: Vec<PortBits>,
}

/// One register word of one kind of behaviour.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Slot {
    pub addr: u32,
    /// Bits of this behaviour.
    pub mask: u32,
    /// Storage: bits a read returns (`rw`, not `wo`). Others: `mask`.
    pub read_mask: u32,
    /// Reset value (storage, sticky, latch) or the constant value.
    pub reset: u32,
    /// Latch: the low half whose read loads it.
    pub lo_addr: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cat {
    Storage,
    Pulse,
    Sticky,
    Set,
    Status,
    Latch,
}

#[derive(Clone, Debug)]
struct Piece {
    cat: Cat,
    slot: usize,
    reg_lsb: u32,
    width: u32,
    port_lsb: u32,
}

/// The register file derived from a map: slot lists for the core and the
/// user ports of the wrapper.
#[derive(Clone, Debug)]
pub struct Layout {
    /// Address bits of the bus (`RegisterMap::address_bits`).
    pub address_bits: u32,
    pub storage: Vec<Slot>,
    pub pulse: Vec<Slot>,
    pub sticky: Vec<Slot>,
    pub status: Vec<Slot>,
    pub latch: Vec<Slot>,
    pub constant: Vec<Slot>,
    /// Every mapped register address (anything else answers SLVERR).
    pub mapped: Vec<u32>,
    pub ports: Vec<UserPort>,
    /// Field ids the block implements (every field of the map).
    pub implemented: Vec<String>,
    pieces: Vec<Vec<Piece>>,
}

fn err(msg: impl Into<String>) -> HdlError {
    HdlError(msg.into())
}

impl Layout {
    /// Walks the map. Errors: a map wider than the core's address bits, two
    /// fields that would get the same port name, a missing cycle counter.
    pub fn new(map: &RegisterMap) -> Result<Layout, HdlError> {
        let address_bits = map.address_bits();
        if address_bits as usize > CORE_ADDRESS_BITS {
            return Err(err(format!(
                "register file: the map needs {address_bits} address bits, the block decodes at most {CORE_ADDRESS_BITS}"
            )));
        }
        let mut l = Layout {
            address_bits,
            storage: Vec::new(),
            pulse: Vec::new(),
            sticky: Vec::new(),
            status: Vec::new(),
            latch: Vec::new(),
            constant: Vec::new(),
            mapped: Vec::new(),
            ports: Vec::new(),
            implemented: Vec::new(),
            pieces: Vec::new(),
        };
        let mut counter_seen = false;
        for block in &map.blocks {
            for instance in 0..block.instances() {
                let group = match block.repeat {
                    Some(_) if block.name == "session" => format!("s{instance}"),
                    Some(_) => format!("{}{instance}", block.name),
                    None => block.name.clone(),
                };
                for reg in &block.registers {
                    let addr = block
                        .address(instance, reg)
                        .ok_or_else(|| err(format!("register file: `{}.{}` has no address", block.name, reg.name)))?;
                    l.mapped.push(addr);
                    let reset = reg.reset_for(instance);
                    let wide_lo = block.wide_with_lo(&reg.name);
                    let wide_hi = block.wide_with_hi(&reg.name);
                    let wide = wide_lo.or(wide_hi);
                    let is_counter = wide.is_some_and(|w| (block.name.as_str(), w.name.as_str()) == CYCLE_COUNTER);
                    counter_seen |= is_counter;
                    let writable = reg.mask_of(Access::Rw) | reg.mask_of(Access::Wo);
                    let mut storage = None;
                    if writable != 0 {
                        storage = Some(l.storage.len());
                        l.storage.push(Slot { addr, mask: writable, read_mask: reg.mask_of(Access::Rw), reset: reset & writable, lo_addr: 0 });
                    }
                    let pulse_mask = reg.mask_of(Access::WPulse);
                    let mut pulse = None;
                    if pulse_mask != 0 {
                        pulse = Some(l.pulse.len());
                        l.pulse.push(Slot { addr, mask: pulse_mask, read_mask: 0, reset: 0, lo_addr: 0 });
                    }
                    let w1c = reg.mask_of(Access::W1c);
                    let mut sticky = None;
                    if w1c != 0 {
                        sticky = Some(l.sticky.len());
                        l.sticky.push(Slot { addr, mask: w1c, read_mask: w1c, reset: reset & w1c, lo_addr: 0 });
                    }
                    let ro = reg.mask_of(Access::Ro);
                    let volatile = ro & reg.volatile_mask();
                    let constant = ro & !volatile;
                    if constant != 0 {
                        l.constant.push(Slot { addr, mask: constant, read_mask: constant, reset: reset & constant, lo_addr: 0 });
                    }
                    let mut status = None;
                    let mut latch = None;
                    if volatile != 0 {
                        match wide_hi {
                            Some(w) => {
                                let lo = block.register(&w.lo).ok_or_else(|| err(format!("register file: `{}` has no `{}`", w.name, w.lo)))?;
                                let lo_addr = block.address(instance, lo).unwrap_or(0);
                                latch = Some(l.latch.len());
                                l.latch.push(Slot { addr, mask: volatile, read_mask: volatile, reset: reset & volatile, lo_addr });
                            }
                            None => {
                                status = Some(l.status.len());
                                l.status.push(Slot { addr, mask: volatile, read_mask: volatile, reset: 0, lo_addr: 0 });
                            }
                        }
                    }
                    for f in &reg.fields {
                        l.implemented.push(regmap::field_id(&block.name, &reg.name, &f.name));
                        let (name, source, port_lsb) = match wide {
                            Some(w) => (w.name.clone(), format!("{}.{}", block.name, w.name), if wide_hi.is_some() { 32 } else { 0 }),
                            None if reg.fields.len() > 1 || f.width == 1 => {
                                (f.name.clone(), regmap::field_id(&block.name, &reg.name, &f.name), 0)
                            }
                            None => (reg.name.clone(), regmap::field_id(&block.name, &reg.name, &f.name), 0),
                        };
                        let bits = |slot: Option<usize>, cat: Cat| -> Result<Piece, HdlError> {
                            let slot = slot.ok_or_else(|| err(format!("register file: no slot for `{source}`")))?;
                            Ok(Piece { cat, slot, reg_lsb: f.lsb, width: f.width, port_lsb })
                        };
                        let port = format!("{group}_{name}");
                        match f.access {
                            Access::Rw | Access::Wo => l.add(&port, PortKind::Value, &source, block, instance, addr, bits(storage, Cat::Storage)?)?,
                            Access::WPulse => l.add(&port, PortKind::Pulse, &source, block, instance, addr, bits(pulse, Cat::Pulse)?)?,
                            Access::W1c => {
                                l.add(&port, PortKind::Sticky, &source, block, instance, addr, bits(sticky, Cat::Sticky)?)?;
                                l.add(&format!("{port}_set"), PortKind::Set, &source, block, instance, addr, bits(sticky, Cat::Set)?)?;
                            }
                            Access::Ro if f.volatile => {
                                let piece = match latch {
                                    Some(_) => bits(latch, Cat::Latch)?,
                                    None => bits(status, Cat::Status)?,
                                };
                                let kind = if is_counter { PortKind::Counter } else { PortKind::Status };
                                l.add(&port, kind, &source, block, instance, addr, piece)?;
                            }
                            Access::Ro => {}
                        }
                    }
                }
            }
        }
        if !counter_seen {
            return Err(err(format!("register file: the map has no `{}.{}` (the cycle counter)", CYCLE_COUNTER.0, CYCLE_COUNTER.1)));
        }
        Ok(l)
    }

    #[allow(clippy::too_many_arguments)]
    fn add(
        &mut self,
        name: &str,
        kind: PortKind,
        source: &str,
        block: &regmap::Block,
        instance: usize,
        addr: u32,
        piece: Piece,
    ) -> Result<(), HdlError> {
        let bits = PortBits { addr, reg_lsb: piece.reg_lsb, width: piece.width, port_lsb: piece.port_lsb };
        if let Some(i) = self.ports.iter().position(|p| p.name == name) {
            let p = &mut self.ports[i];
            if p.source != source || p.kind != kind {
                return Err(err(format!("register file: `{source}` and `{}` would both be port `{name}`", p.source)));
            }
            p.width = p.width.max(piece.port_lsb + piece.width);
            p.bits.push(bits);
            self.pieces[i].push(piece);
            return Ok(());
        }
        let output = matches!(kind, PortKind::Value | PortKind::Pulse | PortKind::Sticky | PortKind::Counter);
        self.ports.push(UserPort {
            name: name.to_string(),
            width: piece.port_lsb + piece.width,
            output,
            kind,
            source: source.to_string(),
            block: block.name.clone(),
            instance,
            bits: vec![bits],
        });
        self.pieces.push(vec![piece]);
        Ok(())
    }

    /// The port named `name`.
    pub fn port(&self, name: &str) -> Option<&UserPort> {
        self.ports.iter().find(|p| p.name == name)
    }
}

/// The rust-hdl logic of the register file over the slot lists of a
/// [`Layout`]: the AXI4-Lite slave and the request side of the crossing in
/// `s_axil_aclk`, the registers in `user_clk`. Slot `k` of each kind is port
/// element `k` (`value$k`, `pulse$k`, ...); the wrapper of
/// [`register_file_verilog`] gives them their field names.
#[derive(LogicBlock)]
pub struct RegisterFileCore {
    /// Register-bus clock.
    pub s_axil_aclk: Signal<In, Clock>,
    /// Register-bus reset, active low, synchronous to `s_axil_aclk`.
    pub s_axil_aresetn: Signal<In, Bit>,
    pub s_axil_awaddr: Signal<In, Bits<CORE_ADDRESS_BITS>>,
    pub s_axil_awvalid: Signal<In, Bit>,
    pub s_axil_awready: Signal<Out, Bit>,
    pub s_axil_wdata: Signal<In, Bits<32>>,
    pub s_axil_wstrb: Signal<In, Bits<4>>,
    pub s_axil_wvalid: Signal<In, Bit>,
    pub s_axil_wready: Signal<Out, Bit>,
    pub s_axil_bresp: Signal<Out, Bits<2>>,
    pub s_axil_bvalid: Signal<Out, Bit>,
    pub s_axil_bready: Signal<In, Bit>,
    pub s_axil_araddr: Signal<In, Bits<CORE_ADDRESS_BITS>>,
    pub s_axil_arvalid: Signal<In, Bit>,
    pub s_axil_arready: Signal<Out, Bit>,
    pub s_axil_rdata: Signal<Out, Bits<32>>,
    pub s_axil_rresp: Signal<Out, Bits<2>>,
    pub s_axil_rvalid: Signal<Out, Bit>,
    pub s_axil_rready: Signal<In, Bit>,
    /// User clock: the registers live here.
    pub user_clk: Signal<In, Clock>,
    /// Synchronous reset of the registers, active high.
    pub user_rst: Signal<In, Bit>,
    /// Free-running user-clock cycle count.
    pub cycle_count: Signal<Out, Bits<64>>,
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
    // Bus domain: holding registers of AW, W and AR.
    aw_full: DFF<Bit>,
    aw_addr: DFF<Bits<CORE_ADDRESS_BITS>>,
    w_full: DFF<Bit>,
    w_data: DFF<Bits<32>>,
    w_strb: DFF<Bits<4>>,
    ar_full: DFF<Bit>,
    ar_addr: DFF<Bits<CORE_ADDRESS_BITS>>,
    // Bus domain: the request in flight (held until the acknowledge) and the response.
    busy: DFF<Bit>,
    last_write: DFF<Bit>,
    req_write: DFF<Bit>,
    req_addr: DFF<Bits<CORE_ADDRESS_BITS>>,
    req_wdata: DFF<Bits<32>>,
    req_wstrb: DFF<Bits<4>>,
    req_tog: DFF<Bit>,
    ack_sync: SyncBit,
    ack_seen: DFF<Bit>,
    ack_edge: Signal<Local, Bit>,
    /// The bus was reset with a request in flight: wait for its acknowledge, answer nothing.
    drop_resp: DFF<Bit>,
    b_valid: DFF<Bit>,
    b_resp: DFF<Bits<2>>,
    r_valid: DFF<Bit>,
    r_data: DFF<Bits<32>>,
    r_resp: DFF<Bits<2>>,
    // User domain.
    req_sync: SyncBit,
    req_seen: DFF<Bit>,
    ack_tog: DFF<Bit>,
    resp_data: DFF<Bits<32>>,
    resp_err: DFF<Bit>,
    counter: DFF<Bits<64>>,
    storage_q: Vec<DFF<Bits<32>>>,
    pulse_q: Vec<DFF<Bits<32>>>,
    sticky_q: Vec<DFF<Bits<32>>>,
    latch_q: Vec<DFF<Bits<32>>>,
    strobe: Signal<Local, Bit>,
    do_write: Signal<Local, Bit>,
    do_read: Signal<Local, Bit>,
    wmask: Signal<Local, Bits<32>>,
    hit: Signal<Local, Bit>,
    rd_storage: Signal<Local, Bits<32>>,
    rd_sticky: Signal<Local, Bits<32>>,
    rd_status: Signal<Local, Bits<32>>,
    rd_latch: Signal<Local, Bits<32>>,
    rd_const: Signal<Local, Bits<32>>,
    // From the map.
    storage_addr: Vec<Constant<Bits<CORE_ADDRESS_BITS>>>,
    storage_mask: Vec<Constant<Bits<32>>>,
    storage_rmask: Vec<Constant<Bits<32>>>,
    storage_reset: Vec<Constant<Bits<32>>>,
    pulse_addr: Vec<Constant<Bits<CORE_ADDRESS_BITS>>>,
    pulse_mask: Vec<Constant<Bits<32>>>,
    sticky_addr: Vec<Constant<Bits<CORE_ADDRESS_BITS>>>,
    sticky_mask: Vec<Constant<Bits<32>>>,
    sticky_reset: Vec<Constant<Bits<32>>>,
    status_addr: Vec<Constant<Bits<CORE_ADDRESS_BITS>>>,
    status_mask: Vec<Constant<Bits<32>>>,
    latch_lo_addr: Vec<Constant<Bits<CORE_ADDRESS_BITS>>>,
    latch_hi_addr: Vec<Constant<Bits<CORE_ADDRESS_BITS>>>,
    latch_mask: Vec<Constant<Bits<32>>>,
    latch_reset: Vec<Constant<Bits<32>>>,
    const_addr: Vec<Constant<Bits<CORE_ADDRESS_BITS>>>,
    const_value: Vec<Constant<Bits<32>>>,
    mapped_addr: Vec<Constant<Bits<CORE_ADDRESS_BITS>>>,
    // Byte-enable expansion: entry s is the bit mask of strobe pattern s.
    strobe_mask: Vec<Constant<Bits<32>>>,
    resp_okay: Constant<Bits<2>>,
    resp_slverr: Constant<Bits<2>>,
    one64: Constant<Bits<64>>,
    zero64: Constant<Bits<64>>,
}

fn addrs(slots: &[Slot], f: impl Fn(&Slot) -> u32) -> Vec<Constant<Bits<CORE_ADDRESS_BITS>>> {
    slots.iter().map(|s| Constant::new(bits::<CORE_ADDRESS_BITS>(u64::from(f(s))))).collect()
}

fn words(slots: &[Slot], f: impl Fn(&Slot) -> u32) -> Vec<Constant<Bits<32>>> {
    slots.iter().map(|s| Constant::new(bits::<32>(u64::from(f(s))))).collect()
}

fn signals<D: Direction>(n: usize) -> Vec<Signal<D, Bits<32>>> {
    (0..n).map(|_| Default::default()).collect()
}

// rust-hdl's DFF powers up at 0; `user_rst` loads the map's reset values.
fn regs(n: usize) -> Vec<DFF<Bits<32>>> {
    (0..n).map(|_| DFF::default()).collect()
}

impl RegisterFileCore {
    pub fn new(layout: &Layout) -> Self {
        let strobe_mask = (0..16u64)
            .map(|s| Constant::new(bits::<32>((0..4).filter(|b| s >> b & 1 == 1).fold(0, |m, b| m | 0xFF << (8 * b)))))
            .collect();
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
            value: signals(layout.storage.len()),
            pulse: signals(layout.pulse.len()),
            sticky: signals(layout.sticky.len()),
            set: signals(layout.sticky.len()),
            status: signals(layout.status.len()),
            latch_in: signals(layout.latch.len()),
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
            storage_q: regs(layout.storage.len()),
            pulse_q: regs(layout.pulse.len()),
            sticky_q: regs(layout.sticky.len()),
            latch_q: regs(layout.latch.len()),
            strobe: Default::default(),
            do_write: Default::default(),
            do_read: Default::default(),
            wmask: Default::default(),
            hit: Default::default(),
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
            mapped_addr: layout.mapped.iter().map(|a| Constant::new(bits::<CORE_ADDRESS_BITS>(u64::from(*a)))).collect(),
            strobe_mask,
            resp_okay: Constant::new(bits::<2>(0)),
            resp_slverr: Constant::new(bits::<2>(2)),
            one64: Constant::new(bits::<64>(1)),
            zero64: Constant::new(bits::<64>(0)),
        }
    }
}

impl Logic for RegisterFileCore {
    #[hdl_gen]
    fn update(&mut self) {
        // ---------------- s_axil_aclk domain ----------------
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
        self.b_valid.clock.next = self.s_axil_aclk.val();
        self.b_resp.clock.next = self.s_axil_aclk.val();
        self.r_valid.clock.next = self.s_axil_aclk.val();
        self.r_data.clock.next = self.s_axil_aclk.val();
        self.r_resp.clock.next = self.s_axil_aclk.val();

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

        // Each channel has a one-entry holding register: ready while it is empty.
        self.s_axil_awready.next = !self.aw_full.q.val() & self.s_axil_aresetn.val();
        self.s_axil_wready.next = !self.w_full.q.val() & self.s_axil_aresetn.val();
        self.s_axil_arready.next = !self.ar_full.q.val() & self.s_axil_aresetn.val();
        self.s_axil_bvalid.next = self.b_valid.q.val();
        self.s_axil_bresp.next = self.b_resp.q.val();
        self.s_axil_rvalid.next = self.r_valid.q.val();
        self.s_axil_rdata.next = self.r_data.q.val();
        self.s_axil_rresp.next = self.r_resp.q.val();

        if self.s_axil_awvalid.val() & !self.aw_full.q.val() {
            self.aw_full.d.next = true;
            self.aw_addr.d.next = self.s_axil_awaddr.val();
        }
        if self.s_axil_wvalid.val() & !self.w_full.q.val() {
            self.w_full.d.next = true;
            self.w_data.d.next = self.s_axil_wdata.val();
            self.w_strb.d.next = self.s_axil_wstrb.val();
        }
        if self.s_axil_arvalid.val() & !self.ar_full.q.val() {
            self.ar_full.d.next = true;
            self.ar_addr.d.next = self.s_axil_araddr.val();
        }
        if self.b_valid.q.val() & self.s_axil_bready.val() {
            self.b_valid.d.next = false;
        }
        if self.r_valid.q.val() & self.s_axil_rready.val() {
            self.r_valid.d.next = false;
        }

        // The acknowledge: the user domain has performed the request and
        // holds its result still.
        self.ack_sync.d.next = self.ack_tog.q.val();
        self.ack_seen.d.next = self.ack_sync.q.val();
        self.ack_edge.next = self.busy.q.val() & (self.ack_sync.q.val() != self.ack_seen.q.val());
        if self.ack_edge.val() {
            self.busy.d.next = false;
            self.drop_resp.d.next = false;
            if self.drop_resp.q.val() {
                // The request of before a bus reset: its answer goes nowhere.
            } else if self.req_write.q.val() {
                self.b_valid.d.next = true;
                self.b_resp.d.next = self.resp_okay.val();
                if self.resp_err.q.val() {
                    self.b_resp.d.next = self.resp_slverr.val();
                }
            } else {
                self.r_valid.d.next = true;
                self.r_data.d.next = self.resp_data.q.val();
                self.r_resp.d.next = self.resp_okay.val();
                if self.resp_err.q.val() {
                    self.r_resp.d.next = self.resp_slverr.val();
                }
            }
        }

        // One request at a time, issued when the previous response has left;
        // a write and a read both waiting take turns.
        if self.s_axil_aresetn.val() & !self.busy.q.val() & !self.b_valid.q.val() & !self.r_valid.q.val() {
            if self.aw_full.q.val() & self.w_full.q.val() & (!self.ar_full.q.val() | !self.last_write.q.val()) {
                self.req_write.d.next = true;
                self.req_addr.d.next = self.aw_addr.q.val();
                self.req_wdata.d.next = self.w_data.q.val();
                self.req_wstrb.d.next = self.w_strb.q.val();
                self.req_tog.d.next = !self.req_tog.q.val();
                self.busy.d.next = true;
                self.last_write.d.next = true;
                self.aw_full.d.next = false;
                self.w_full.d.next = false;
            } else if self.ar_full.q.val() {
                self.req_write.d.next = false;
                self.req_addr.d.next = self.ar_addr.q.val();
                self.req_tog.d.next = !self.req_tog.q.val();
                self.busy.d.next = true;
                self.last_write.d.next = false;
                self.ar_full.d.next = false;
            }
        }

        // The toggles and the request they announce are not reset: a reset of
        // one domain alone must not make an edge the other side would take
        // for a request or an acknowledge. A request in flight at a bus reset
        // still completes its handshake (so request and acknowledge toggles
        // keep alternating) and its response is dropped.
        if !self.s_axil_aresetn.val() {
            self.aw_full.d.next = false;
            self.w_full.d.next = false;
            self.ar_full.d.next = false;
            if self.busy.q.val() & !self.ack_edge.val() {
                self.drop_resp.d.next = true;
            }
            self.b_valid.d.next = false;
            self.r_valid.d.next = false;
            self.last_write.d.next = false;
        }

        // ---------------- user_clk domain ----------------
        self.req_sync.clock.next = self.user_clk.val();
        self.req_seen.clock.next = self.user_clk.val();
        self.ack_tog.clock.next = self.user_clk.val();
        self.resp_data.clock.next = self.user_clk.val();
        self.resp_err.clock.next = self.user_clk.val();
        self.counter.clock.next = self.user_clk.val();

        self.req_sync.d.next = self.req_tog.q.val();
        self.req_seen.d.next = self.req_sync.q.val();
        self.strobe.next = self.req_sync.q.val() != self.req_seen.q.val();
        self.do_write.next = self.strobe.val() & self.req_write.q.val();
        self.do_read.next = self.strobe.val() & !self.req_write.q.val();
        self.wmask.next = 0.into();
        for s in 0..16 {
            if self.req_wstrb.q.val().index() == s {
                self.wmask.next = self.strobe_mask[s].val();
            }
        }

        self.counter.d.next = self.counter.q.val() + self.one64.val();
        if self.user_rst.val() {
            self.counter.d.next = self.zero64.val();
        }
        self.cycle_count.next = self.counter.q.val();

        self.hit.next = false;
        for k in 0..self.mapped_addr.len() {
            if self.req_addr.q.val() == self.mapped_addr[k].val() {
                self.hit.next = true;
            }
        }

        self.rd_storage.next = 0.into();
        for k in 0..self.storage_q.len() {
            self.storage_q[k].clock.next = self.user_clk.val();
            self.storage_q[k].d.next = self.storage_q[k].q.val();
            if self.req_addr.q.val() == self.storage_addr[k].val() {
                self.rd_storage.next = self.storage_q[k].q.val() & self.storage_rmask[k].val();
                if self.do_write.val() {
                    self.storage_q[k].d.next = (self.storage_q[k].q.val() & !(self.wmask.val() & self.storage_mask[k].val()))
                        | (self.req_wdata.q.val() & self.wmask.val() & self.storage_mask[k].val());
                }
            }
            if self.user_rst.val() {
                self.storage_q[k].d.next = self.storage_reset[k].val();
            }
            self.value[k].next = self.storage_q[k].q.val();
        }

        for k in 0..self.pulse_q.len() {
            self.pulse_q[k].clock.next = self.user_clk.val();
            self.pulse_q[k].d.next = 0.into();
            if self.do_write.val() & (self.req_addr.q.val() == self.pulse_addr[k].val()) {
                self.pulse_q[k].d.next = self.req_wdata.q.val() & self.wmask.val() & self.pulse_mask[k].val();
            }
            if self.user_rst.val() {
                self.pulse_q[k].d.next = 0.into();
            }
            self.pulse[k].next = self.pulse_q[k].q.val();
        }

        // A set in the cycle of a clearing write wins: no event is lost.
        self.rd_sticky.next = 0.into();
        for k in 0..self.sticky_q.len() {
            self.sticky_q[k].clock.next = self.user_clk.val();
            self.sticky_q[k].d.next = self.sticky_q[k].q.val() | (self.set[k].val() & self.sticky_mask[k].val());
            if self.req_addr.q.val() == self.sticky_addr[k].val() {
                self.rd_sticky.next = self.sticky_q[k].q.val();
                if self.do_write.val() {
                    self.sticky_q[k].d.next = (self.sticky_q[k].q.val() & !(self.req_wdata.q.val() & self.wmask.val()))
                        | (self.set[k].val() & self.sticky_mask[k].val());
                }
            }
            if self.user_rst.val() {
                self.sticky_q[k].d.next = self.sticky_reset[k].val();
            }
            self.sticky[k].next = self.sticky_q[k].q.val();
        }

        self.rd_status.next = 0.into();
        for k in 0..self.status_addr.len() {
            if self.req_addr.q.val() == self.status_addr[k].val() {
                self.rd_status.next = self.status[k].val() & self.status_mask[k].val();
            }
        }

        // The high half of a volatile wide value is loaded in the cycle its
        // low half is read, so the pair is one sample.
        self.rd_latch.next = 0.into();
        for k in 0..self.latch_q.len() {
            self.latch_q[k].clock.next = self.user_clk.val();
            self.latch_q[k].d.next = self.latch_q[k].q.val();
            if self.do_read.val() & (self.req_addr.q.val() == self.latch_lo_addr[k].val()) {
                self.latch_q[k].d.next = self.latch_in[k].val() & self.latch_mask[k].val();
            }
            if self.req_addr.q.val() == self.latch_hi_addr[k].val() {
                self.rd_latch.next = self.latch_q[k].q.val();
            }
            if self.user_rst.val() {
                self.latch_q[k].d.next = self.latch_reset[k].val();
            }
        }

        self.rd_const.next = 0.into();
        for k in 0..self.const_addr.len() {
            if self.req_addr.q.val() == self.const_addr[k].val() {
                self.rd_const.next = self.const_value[k].val();
            }
        }

        self.ack_tog.d.next = self.ack_tog.q.val();
        self.resp_data.d.next = self.resp_data.q.val();
        self.resp_err.d.next = self.resp_err.q.val();
        if self.strobe.val() {
            self.ack_tog.d.next = !self.ack_tog.q.val();
            self.resp_err.d.next = !self.hit.val();
            self.resp_data.d.next = 0.into();
            if self.do_read.val() & self.hit.val() {
                self.resp_data.d.next = self.rd_storage.val()
                    | self.rd_sticky.val()
                    | self.rd_status.val()
                    | self.rd_latch.val()
                    | self.rd_const.val();
            }
        }
    }
}

/// Name of the core module inside `module`'s Verilog: a child of the wrapper,
/// named as rust-hdl names children, so the file holds `module` and its
/// `$` children only.
pub fn core_module(module: &str) -> String {
    format!("{module}$core")
}

fn range(width: u32) -> String {
    if width == 1 {
        String::new()
    } else {
        format!("[{}:0] ", width - 1)
    }
}

/// `{N'd0, a, M'd0, b}` for pieces `(lsb, width, expr)` of a 32-bit word.
fn word_of(mut parts: Vec<(u32, u32, String)>) -> String {
    parts.sort_by_key(|p| std::cmp::Reverse(p.0));
    let mut items = Vec::new();
    let mut top = 32;
    for (lsb, width, expr) in parts {
        if lsb + width < top {
            items.push(format!("{}'d0", top - lsb - width));
        }
        items.push(expr);
        top = lsb;
    }
    if top > 0 {
        items.push(format!("{top}'d0"));
    }
    format!("{{{}}}", items.join(", "))
}

fn slice(name: &str, lsb: u32, width: u32) -> String {
    if width == 1 {
        format!("{name}[{lsb}]")
    } else {
        format!("{name}[{}:{lsb}]", lsb + width - 1)
    }
}

/// The wrapper `module` around the core: plain ports, pure wiring.
fn wrapper(layout: &Layout, module: &str) -> String {
    let a = layout.address_bits;
    let mut v = String::new();
    let _ = writeln!(v, "// Register file: AXI4-Lite slave in s_axil_aclk, registers in user_clk.");
    let _ = writeln!(v, "// Generated from the register map; see docs/register_file.md.");
    let bus = [
        ("input", 1, "s_axil_aclk"),
        ("input", 1, "s_axil_aresetn"),
        ("input", a, "s_axil_awaddr"),
        ("input", 1, "s_axil_awvalid"),
        ("output", 1, "s_axil_awready"),
        ("input", 32, "s_axil_wdata"),
        ("input", 4, "s_axil_wstrb"),
        ("input", 1, "s_axil_wvalid"),
        ("output", 1, "s_axil_wready"),
        ("output", 2, "s_axil_bresp"),
        ("output", 1, "s_axil_bvalid"),
        ("input", 1, "s_axil_bready"),
        ("input", a, "s_axil_araddr"),
        ("input", 1, "s_axil_arvalid"),
        ("output", 1, "s_axil_arready"),
        ("output", 32, "s_axil_rdata"),
        ("output", 2, "s_axil_rresp"),
        ("output", 1, "s_axil_rvalid"),
        ("input", 1, "s_axil_rready"),
        ("input", 1, "user_clk"),
        ("input", 1, "user_rst"),
    ];
    let mut names: Vec<&str> = bus.iter().map(|b| b.2).collect();
    names.extend(layout.ports.iter().map(|p| p.name.as_str()));
    let _ = writeln!(v, "module {module}({});
", names.join(", "));
    let _ = writeln!(v, "    // AXI4-Lite slave, s_axil_aclk domain");
    for (dir, width, name) in bus {
        if name == "user_clk" {
            let _ = writeln!(v, "\n    // User clock domain: clock, synchronous reset, registers");
        }
        let _ = writeln!(v, "    {dir} wire {}{name};", range(width));
    }
    let mut group = String::new();
    for p in &layout.ports {
        let g = p.name.split('_').next().unwrap_or("");
        if g != group {
            let _ = writeln!(v, "    // {g}");
            group = g.to_string();
        }
        let dir = if p.output { "output" } else { "input" };
        let _ = writeln!(v, "    {dir} wire {}{};", range(p.width), p.name);
    }

    // Core outputs by slot, and the bits of each that reach a port.
    let kinds: [(&str, Cat, usize); 6] = [
        ("value", Cat::Storage, layout.storage.len()),
        ("pulse", Cat::Pulse, layout.pulse.len()),
        ("sticky", Cat::Sticky, layout.sticky.len()),
        ("set", Cat::Set, layout.sticky.len()),
        ("status", Cat::Status, layout.status.len()),
        ("latch_in", Cat::Latch, layout.latch.len()),
    ];
    let _ = writeln!(v, "\n    wire [63:0] cycle_count;");
    for (name, cat, n) in kinds {
        let output = matches!(cat, Cat::Storage | Cat::Pulse | Cat::Sticky);
        for k in 0..n {
            if output {
                let _ = writeln!(v, "    wire [31:0] {name}_{k};");
            } else {
                let mut parts = Vec::new();
                for (p, pieces) in layout.ports.iter().zip(&layout.pieces) {
                    for piece in pieces.iter().filter(|x| x.cat == cat && x.slot == k) {
                        let src = if p.kind == PortKind::Counter { "cycle_count" } else { p.name.as_str() };
                        let expr = if p.width == 1 && p.kind != PortKind::Counter {
                            src.to_string()
                        } else {
                            slice(src, piece.port_lsb, piece.width)
                        };
                        parts.push((piece.reg_lsb, piece.width, expr));
                    }
                }
                let _ = writeln!(v, "    wire [31:0] {name}_{k} = {};", word_of(parts));
            }
        }
    }
    // Bits of a core output word that no port takes (a register's other
    // fields); Verilator's lint ignores signals named unused*.
    for (name, cat, n) in kinds.iter().take(3) {
        for k in 0..*n {
            let used: u32 = layout
                .pieces
                .iter()
                .flatten()
                .filter(|x| x.cat == *cat && x.slot == k)
                .fold(0, |m, x| m | (((1u64 << x.width) - 1) << x.reg_lsb) as u32);
            if used != u32::MAX {
                let _ = writeln!(v, "    wire unused_{name}_{k} = ^{name}_{k};");
            }
        }
    }

    let core = core_module(module);
    let _ = writeln!(v, "\n    {core} core (");
    let mut conns: Vec<String> = Vec::new();
    let wide_a = CORE_ADDRESS_BITS as u32;
    for (_, _, name) in bus {
        let expr = if name.ends_with("addr") && wide_a > a { format!("{{{}'d0, {name}}}", wide_a - a) } else { name.to_string() };
        conns.push(format!("        .{name}({expr})"));
    }
    conns.push("        .cycle_count(cycle_count)".into());
    for (name, _, n) in kinds {
        for k in 0..n {
            conns.push(format!("        .{name}${k}({name}_{k})"));
        }
    }
    let _ = writeln!(v, "{}\n    );\n", conns.join(",\n"));
    for (p, pieces) in layout.ports.iter().zip(&layout.pieces) {
        if !p.output {
            continue;
        }
        if p.kind == PortKind::Counter {
            let _ = writeln!(v, "    assign {} = cycle_count;", p.name);
            continue;
        }
        let mut parts: Vec<&Piece> = pieces.iter().collect();
        parts.sort_by_key(|x| std::cmp::Reverse(x.port_lsb));
        let items: Vec<String> = parts
            .iter()
            .map(|x| {
                let wire = match x.cat {
                    Cat::Storage => "value",
                    Cat::Pulse => "pulse",
                    _ => "sticky",
                };
                slice(&format!("{wire}_{}", x.slot), x.reg_lsb, x.width)
            })
            .collect();
        let rhs = if items.len() == 1 { items[0].clone() } else { format!("{{{}}}", items.join(", ")) };
        let _ = writeln!(v, "    assign {} = {rhs};", p.name);
    }
    let _ = writeln!(v, "endmodule");
    v
}

/// The Verilog of the register file of `map` as module `module` (plain
/// ports, see [`UserPort`]) and its core `<module>$core` with the rust-hdl
/// submodules. `design` names the sessions the map must have.
pub fn register_file_verilog(design: &config::Design, map: &RegisterMap, module: &str) -> Result<String, HdlError> {
    let sessions = map.block("session").map_or(0, |b| b.instances());
    if sessions != design.sessions {
        return Err(err(format!(
            "register file: the map has {sessions} session block(s), the design {} session(s)",
            design.sessions
        )));
    }
    let layout = Layout::new(map)?;
    let core = block_verilog(&mut RegisterFileCore::new(&layout), &core_module(module))?;
    Ok(format!("{}\n{core}", wrapper(&layout, module)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verilog::module_ports;

    fn design(sessions: usize) -> config::Design {
        config::parse(&config::default_toml_with_sessions(sessions), &["alveo-u50"]).unwrap()
    }

    #[test]
    fn every_field_of_the_map_is_implemented() {
        for sessions in 1..=config::MAX_SESSIONS {
            let d = design(sessions);
            let map = RegisterMap::for_design(&d);
            let layout = Layout::new(&map).unwrap();
            let ids: Vec<String> = map.fields().map(|f| f.id()).collect();
            let implemented: std::collections::BTreeSet<&String> = layout.implemented.iter().collect();
            assert_eq!(implemented, ids.iter().collect(), "{sessions} sessions");
            // Every non-constant field reaches a port; every bit of a port is one field's.
            for f in map.fields() {
                let constant = f.field.is_constant();
                let wide = f.block.wide_with_lo(&f.register.name).or(f.block.wide_with_hi(&f.register.name));
                let source = match wide {
                    Some(w) => format!("{}.{}", f.block.name, w.name),
                    None => f.id(),
                };
                let n = layout.ports.iter().filter(|p| p.source == source).count();
                assert_eq!(n == 0, constant, "field {} ({} ports)", f.id(), n);
            }
        }
    }

    #[test]
    fn ports_follow_the_naming_rule() {
        let map = RegisterMap::for_design(&design(2));
        let layout = Layout::new(&map).unwrap();
        let port = |name: &str| layout.port(name).unwrap_or_else(|| panic!("no port {name}"));
        assert_eq!((port("s0_transfer_size").width, port("s0_transfer_size").kind), (48, PortKind::Value));
        assert_eq!((port("s1_start").width, port("s1_start").kind), (1, PortKind::Pulse));
        assert_eq!((port("s0_tx_bytes").width, port("s0_tx_bytes").output), (64, false));
        assert_eq!((port("toe_fpga_mac").width, port("toe_fpga_mac").output), (48, true));
        assert_eq!(port("toe_init").kind, PortKind::Pulse);
        assert_eq!(port("toe_init_done").kind, PortKind::Status);
        assert_eq!(port("toe_fpga_ip").width, 32);
        assert_eq!(port("s0_peer_mss").width, 16);
        assert_eq!(port("s0_done").kind, PortKind::Sticky);
        assert_eq!(port("s0_done_set").kind, PortKind::Set);
        assert_eq!(port("s0_error_cause").width, 4);
        assert_eq!(port("info_cycle_count").kind, PortKind::Counter);
        assert!(layout.port("s2_start").is_none(), "exactly design.sessions groups");
    }

    #[test]
    fn verilog_declares_exactly_the_layout_ports() {
        let d = design(2);
        let map = RegisterMap::for_design(&d);
        let text = register_file_verilog(&d, &map, "regfile").unwrap();
        let ports = module_ports(&text, "regfile").unwrap();
        let layout = Layout::new(&map).unwrap();
        for p in &layout.ports {
            let found = ports.iter().find(|q| q.0 == p.name).unwrap_or_else(|| panic!("no port {}", p.name));
            assert_eq!((found.2 as u32, found.1 == config::ports::Direction::Output), (p.width, p.output), "{}", p.name);
        }
        assert_eq!(ports.len(), layout.ports.len() + 21);
        let awaddr = ports.iter().find(|q| q.0 == "s_axil_awaddr").unwrap();
        assert_eq!(awaddr.2 as u32, map.address_bits());
        assert!(text.contains("module regfile$core("));
    }

    #[test]
    fn moving_a_register_in_the_map_moves_its_decode() {
        let d = design(1);
        let map = RegisterMap::for_design(&d);
        let mut moved = map.clone();
        let reg = moved.block_mut("toe").unwrap().register_mut("target_ip").unwrap();
        reg.offset = 0x80;
        moved.validate().unwrap();
        let old = Layout::new(&map).unwrap();
        let new = Layout::new(&moved).unwrap();
        let reset = map.find_register("target_ip").unwrap().1.reset_for(0);
        let ip = |l: &Layout| l.storage.iter().find(|s| s.reset == reset).map(|s| s.addr);
        assert_eq!(ip(&old), Some(0x60));
        assert_eq!(ip(&new), Some(0xC0));
        let a = register_file_verilog(&d, &map, "rf").unwrap();
        let b = register_file_verilog(&d, &moved, "rf").unwrap();
        assert!(a.contains("16'h60") && !a.contains("16'hc0"), "old decode");
        assert!(b.contains("16'hc0"), "new decode constant");
        assert_ne!(a, b);
    }

    #[test]
    fn a_map_with_other_sessions_than_the_design_is_refused() {
        let map = RegisterMap::for_design(&design(2));
        let e = register_file_verilog(&design(3), &map, "rf").unwrap_err();
        assert_eq!(e.0, "register file: the map has 2 session block(s), the design 3 session(s)");
    }

    #[test]
    fn two_fields_with_one_port_name_are_refused() {
        let mut map = RegisterMap::for_design(&design(1));
        let ctrl = map.block_mut("toe").unwrap().register_mut("toe_ctrl").unwrap();
        ctrl.fields[0].name = "init_done".into();
        let e = Layout::new(&map).unwrap_err();
        assert!(e.0.contains("would both be port `toe_init_done`"), "{e}");
    }

    /// `verilator --lint-only -Wall` with the workspace waivers, in a folder
    /// of this test's own.
    fn lint(sessions: usize) {
        let d = design(sessions);
        let map = RegisterMap::for_design(&d);
        let body = register_file_verilog(&d, &map, "regfile").unwrap();
        let text = format!("`resetall\n`timescale 1ns / 1ps\n`default_nettype none\n\n{body}\n`resetall\n`default_nettype wire\n");
        let dir = std::env::temp_dir().join(format!("regfile-lint-{}-{sessions}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("regfile.v");
        std::fs::write(&file, &text).unwrap();
        if let Ok(path) = std::env::var("REGFILE_DUMP") {
            std::fs::write(path, &text).unwrap();
        }
        let waivers = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/verilator_waivers.vlt");
        let out = std::process::Command::new("verilator")
            .args(["--lint-only", "-Wall", "--top-module", "regfile"])
            .arg(&waivers)
            .arg(&file)
            .output()
            .expect("verilator (make deps)");
        let _ = std::fs::remove_dir_all(&dir);
        let log = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success() && !log.contains("%Warning"), "{sessions} sessions:\n{log}");
    }

    #[test]
    fn verilator_lint_is_clean_for_one_and_four_sessions() {
        lint(1);
        lint(4);
    }
}
