//! The map-to-slots layout: [`Layout::new`] walks a [`RegisterMap`] and turns
//! every register instance into slots by the access of its fields (storage
//! for `rw`/`wo`, pulse for `wpulse`, sticky for `w1c`, status for volatile
//! `ro`, constant for other `ro`, and a latch for the volatile `ro` bits of a
//! wide value's high half), each with its address, masks and reset from the
//! map, and into the user ports of the wrapper ([`UserPort`]), each in the
//! port group of its block instance. Everything the core and the wrapper are
//! built from is decided here; nothing here is hardware.

use config::ports::Group;
use regmap::{Access, RegisterMap};

use super::block::{BUS_TIMEOUT_BITS, OUT_OF_MAP};
use crate::verilog::HdlError;

/// The wide value the register file drives itself: the free-running counter
/// of user-clock cycles, `(block, wide value)`.
pub const CYCLE_COUNTER: (&str, &str) = ("info", "cycle_count");

/// The constant the bus side's timeout counts to: `(block, register,
/// field)` of the map ([`regmap::bus_timeout_cycles`]).
pub const BUS_TIMEOUT: (&str, &str, &str) = ("info", "bus_timeout", "cycles");

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
/// Naming: the port's [`Group`] forms the name from `<name>`
/// ([`Group::top_name`]): `s<n>_<name>` for session instance n
/// ([`Group::RegisterSession`]), `toe_<name>` ([`Group::ToeGlobal`]) and
/// `info_<name>` ([`Group::Info`]) for the blocks that do not repeat. `<name>` is the wide
/// value's name for both halves of a value wider than 32 bits
/// (`s0_transfer_size`), the bank's name for every word of a bank
/// (`shared_tx_prefix`, [`regmap::Block::bank`]), the field's name for a field of a register with
/// several fields or a one-bit field (`s0_start`, `toe_mode`,
/// `toe_init_done`), and the register's name for the one multi-bit field of a
/// register (`toe_fpga_ip`, `s0_peer_mss`). A `w1c` field has `<name>` (sticky
/// output) and `<name>_set` (input).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UserPort {
    /// Full name, `group.top_name(&local)`.
    pub name: String,
    /// Name inside the group (`<name>` above).
    pub local: String,
    /// Port group of the block instance ([`port_group`]).
    pub group: Group,
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
    /// Storage: bits a read returns (`rw` and `claim`, not `wo`). Others: `mask`.
    pub read_mask: u32,
    /// Storage: the bits of a `claim` field (a write is taken only while
    /// they are 0, or when it frees them); 0 in every other slot.
    pub claim: u32,
    /// Reset value (storage, sticky, latch) or the constant value.
    pub reset: u32,
    /// Latch: the low half whose read loads it.
    pub lo_addr: u32,
    /// The register's name on the ports of its block instance
    /// (`s0_test_config`, `toe_fpga_mac_lo`): what the Verilog calls the slot.
    pub label: String,
    /// The comment above the slot's logic in the Verilog: the register, its
    /// address and the fields of this slot's bits.
    pub note: String,
}

/// A field whose writes the bus side checks ([`regmap::Field::write_range`]):
/// a write to `addr` whose strobes cover any of `bytes` must cover all of
/// them and put a value in `min..=max` under `mask`, or it is refused
/// (SLVERR, nothing changes). The bounds are in place (shifted to the
/// field's bits), so they compare with the masked word directly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    pub addr: u32,
    /// The field's bits in the register word.
    pub mask: u32,
    /// Smallest valid value, in place.
    pub min: u32,
    /// Largest valid value, in place.
    pub max: u32,
    /// The byte strobes (`wstrb` bits) the field lies in.
    pub bytes: u32,
    /// The register and field (`s0_speed_tx_percent`): what the Verilog calls the check.
    pub label: String,
    /// The comment above the check's logic in the Verilog: the field and its range.
    pub note: String,
}

/// The slot list a piece of a port lives in (sticky slots have two: the
/// sticky output and its set input).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Cat {
    Storage,
    Pulse,
    Sticky,
    Set,
    Status,
    Latch,
}

/// The bits of one port in one slot word.
#[derive(Clone, Debug)]
pub(super) struct Piece {
    pub(super) cat: Cat,
    pub(super) slot: usize,
    pub(super) reg_lsb: u32,
    pub(super) width: u32,
    pub(super) port_lsb: u32,
}

/// The register file derived from a map: slot lists for the core and the
/// user ports of the wrapper.
#[derive(Clone, Debug)]
pub struct Layout {
    /// The map's span in address bits (`RegisterMap::address_bits`): every
    /// mapped address is below `1 << address_bits`. The bus address is
    /// wider ([`BUS_ADDRESS_BITS`](super::BUS_ADDRESS_BITS)).
    pub address_bits: u32,
    pub storage: Vec<Slot>,
    pub pulse: Vec<Slot>,
    pub sticky: Vec<Slot>,
    pub status: Vec<Slot>,
    pub latch: Vec<Slot>,
    pub constant: Vec<Slot>,
    /// Every mapped register address (anything else answers SLVERR).
    pub mapped: Vec<u32>,
    /// The fields whose writes are checked (a refused write answers SLVERR).
    pub checks: Vec<Check>,
    /// Register-bus cycles an access waits for the user domain before it
    /// answers SLVERR (the map's [`BUS_TIMEOUT`]), 1..=2^16.
    pub bus_timeout: u32,
    pub ports: Vec<UserPort>,
    /// Field ids the block implements (every field of the map).
    pub implemented: Vec<String>,
    /// The pieces of each port of `ports`, same order.
    pub(super) pieces: Vec<Vec<Piece>>,
}

impl Layout {
    /// The Verilog stem of the core's register word, port element or
    /// read-back input `path` ([`crate::emit::Naming`]): the slot's register
    /// and kind. The word `storage_words$3` is `s0_test_config_storage`
    /// (instance `u_s0_test_config_storage`), the port `value$3` is
    /// `s0_test_config_value`, the read-back's `read_back.storage_hit$3` is
    /// `s0_test_config_storage_hit`, and the check `bus.checks$1` is
    /// `s0_speed_tx_percent_check`; `None` for anything else. The core's
    /// writer and the wrapper both name the slots through it, so a
    /// register's logic and ports carry its name.
    pub fn slot_name(&self, path: &str) -> Option<String> {
        let (field, k) = element(path)?;
        if field == "bus.checks" {
            return Some(format!("{}_check", self.checks.get(k)?.label));
        }
        let (kind, suffix) = match field {
            "value" => ("storage", "value"),
            "set" => ("sticky", "set"),
            "latch_in" => ("latch", "latch_in"),
            "pulse" | "sticky" | "status" => (field, field),
            _ => match field.strip_prefix("read_back.") {
                Some(port) => {
                    let (kind, _) = port.rsplit_once('_')?;
                    (kind, port)
                }
                None => {
                    let kind = field.strip_suffix("_words")?;
                    (kind, kind)
                }
            },
        };
        let label = &self.slots(kind)?.get(k)?.label;
        Some(format!("{label}_{suffix}"))
    }

    /// The slots of `kind` (`storage`, `pulse`, `sticky`, `status`,
    /// `latch`, `constant`).
    fn slots(&self, kind: &str) -> Option<&[Slot]> {
        Some(match kind {
            "storage" => &self.storage,
            "pulse" => &self.pulse,
            "sticky" => &self.sticky,
            "status" => &self.status,
            "latch" => &self.latch,
            "constant" => &self.constant,
            _ => return None,
        })
    }
}

impl crate::emit::Naming for Layout {
    fn name(&self, path: &str) -> Option<String> {
        self.slot_name(path)
    }

    /// Above each register word, the register, its address and the fields
    /// it holds; above each check, the field and its valid range.
    fn note(&self, path: &str) -> Option<String> {
        let (field, k) = element(path)?;
        if field == "bus.checks" {
            return Some(self.checks.get(k)?.note.clone());
        }
        Some(self.slots(field.strip_suffix("_words")?)?.get(k)?.note.clone())
    }
}

/// A `Vec` element's path, `storage_words$3`, as its field and index.
fn element(path: &str) -> Option<(&str, usize)> {
    let (field, k) = path.rsplit_once('$')?;
    Some((field, k.parse().ok()?))
}

pub(super) fn err(msg: impl Into<String>) -> HdlError {
    HdlError(msg.into())
}

/// The port group of instance `instance` of `block`: the repeated `session`
/// block's instances are [`Group::RegisterSession`], `toe` is
/// [`Group::ToeGlobal`], `info` is [`Group::Info`], `net` (the open engine's
/// node) is [`Group::Net`], a bank (`tx_prefix`) is
/// [`Group::RegisterShared`]: one port for every session. A block the port plan has
/// no group for is an error.
pub fn port_group(block: &regmap::Block, instance: usize) -> Result<Group, HdlError> {
    match (block.name.as_str(), block.repeat.is_some()) {
        ("session", true) => Ok(Group::RegisterSession(instance)),
        ("toe", false) => Ok(Group::ToeGlobal),
        ("info", false) => Ok(Group::Info),
        ("net", false) => Ok(Group::Net),
        (_, false) if block.bank.is_some() => Ok(Group::RegisterShared),
        _ => Err(err(format!("register file: block `{}` has no port group", block.name))),
    }
}

impl Layout {
    /// Walks the map. Errors: a map wider than the core decodes (its
    /// addresses must stay below [`OUT_OF_MAP`]), two fields that would get
    /// the same port name, a missing cycle counter.
    pub fn new(map: &RegisterMap) -> Result<Layout, HdlError> {
        let address_bits = map.address_bits();
        let most = OUT_OF_MAP.trailing_zeros();
        if address_bits > most {
            return Err(err(format!(
                "register file: the map needs {address_bits} address bits, the block decodes at most {most}"
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
            checks: Vec::new(),
            bus_timeout: 0,
            ports: Vec::new(),
            implemented: Vec::new(),
            pieces: Vec::new(),
        };
        let mut counter_seen = false;
        for block in &map.blocks {
            for instance in 0..block.instances() {
                let group = port_group(block, instance)?;
                for reg in &block.registers {
                    let addr = block
                        .address(instance, reg)
                        .ok_or_else(|| err(format!("register file: `{}.{}` has no address", block.name, reg.name)))?;
                    l.mapped.push(addr);
                    let label = group.top_name(&reg.name);
                    let place = match block.repeat {
                        Some(_) => format!("{}[{instance}]", block.name),
                        None => block.name.clone(),
                    };
                    // The comment above a slot's logic: the register, its
                    // address, and the fields among `mask`'s bits.
                    let note = |mask: u32| {
                        let fields: Vec<String> = reg
                            .fields
                            .iter()
                            .filter(|f| f.mask() & mask != 0)
                            .map(|f| {
                                let bits = if f.width == 1 {
                                    format!("[{}]", f.lsb)
                                } else {
                                    format!("[{}:{}]", f.lsb + f.width - 1, f.lsb)
                                };
                                format!("{} {bits} {}", f.name, f.access)
                            })
                            .collect();
                        format!("{place}.{} at 0x{addr:04x}: {}", reg.name, fields.join(", "))
                    };
                    let reset = reg.reset_for(instance);
                    let wide_lo = block.wide_with_lo(&reg.name);
                    let wide_hi = block.wide_with_hi(&reg.name);
                    let wide = wide_lo.or(wide_hi);
                    let is_counter = wide.is_some_and(|w| (block.name.as_str(), w.name.as_str()) == CYCLE_COUNTER);
                    counter_seen |= is_counter;
                    let claim = reg.mask_of(Access::Claim);
                    let writable = reg.mask_of(Access::Rw) | reg.mask_of(Access::Wo) | claim;
                    let mut storage = None;
                    if writable != 0 {
                        storage = Some(l.storage.len());
                        l.storage.push(Slot {
                            addr,
                            mask: writable,
                            read_mask: reg.mask_of(Access::Rw) | claim,
                            reset: reset & writable,
                            lo_addr: 0,
                            claim,
                            label: label.clone(),
                            note: note(writable),
                        });
                    }
                    let pulse_mask = reg.mask_of(Access::WPulse);
                    let mut pulse = None;
                    if pulse_mask != 0 {
                        pulse = Some(l.pulse.len());
                        l.pulse.push(Slot {
                            addr,
                            mask: pulse_mask,
                            read_mask: 0,
                            reset: 0,
                            lo_addr: 0,
                            claim: 0,
                            label: label.clone(),
                            note: note(pulse_mask),
                        });
                    }
                    let w1c = reg.mask_of(Access::W1c);
                    let mut sticky = None;
                    if w1c != 0 {
                        sticky = Some(l.sticky.len());
                        l.sticky.push(Slot {
                            addr,
                            mask: w1c,
                            read_mask: w1c,
                            reset: reset & w1c,
                            lo_addr: 0,
                            claim: 0,
                            label: label.clone(),
                            note: note(w1c),
                        });
                    }
                    let ro = reg.mask_of(Access::Ro);
                    let volatile = ro & reg.volatile_mask();
                    let constant = ro & !volatile;
                    if constant != 0 {
                        l.constant.push(Slot {
                            addr,
                            mask: constant,
                            read_mask: constant,
                            reset: reset & constant,
                            lo_addr: 0,
                            claim: 0,
                            label: label.clone(),
                            note: note(constant),
                        });
                    }
                    let mut status = None;
                    let mut latch = None;
                    if volatile != 0 {
                        match wide_hi {
                            Some(w) => {
                                let lo = block
                                    .register(&w.lo)
                                    .ok_or_else(|| err(format!("register file: `{}` has no `{}`", w.name, w.lo)))?;
                                let lo_addr = block.address(instance, lo).unwrap_or(0);
                                latch = Some(l.latch.len());
                                l.latch.push(Slot {
                                    addr,
                                    mask: volatile,
                                    read_mask: volatile,
                                    reset: reset & volatile,
                                    lo_addr,
                                    claim: 0,
                                    label: label.clone(),
                                    note: note(volatile),
                                });
                            }
                            None => {
                                status = Some(l.status.len());
                                l.status.push(Slot {
                                    addr,
                                    mask: volatile,
                                    read_mask: volatile,
                                    reset: 0,
                                    lo_addr: 0,
                                    claim: 0,
                                    label: label.clone(),
                                    note: note(volatile),
                                });
                            }
                        }
                    }
                    for f in &reg.fields {
                        l.implemented.push(regmap::field_id(&block.name, &reg.name, &f.name));
                        if let Some((min, max)) = f.write_range() {
                            let bytes = (0..4).filter(|b| f.mask() >> (8 * b) & 0xFF != 0).fold(0, |m, b| m | 1 << b);
                            l.checks.push(Check {
                                addr,
                                mask: f.mask(),
                                min: min << f.lsb,
                                max: max << f.lsb,
                                bytes,
                                label: format!("{label}_{}", f.name),
                                note: format!(
                                    "{place}.{}.{} at 0x{addr:04x}: a write outside {min}..={max} is refused",
                                    reg.name, f.name
                                ),
                            });
                        }
                        let word = block.registers.iter().position(|r| r.name == reg.name).unwrap_or(0) as u32;
                        let (name, source, port_lsb) = match (&block.bank, wide) {
                            (Some(bank), _) => (bank.clone(), format!("{}.{bank}", block.name), 32 * word),
                            (None, Some(w)) => (
                                w.name.clone(),
                                format!("{}.{}", block.name, w.name),
                                if wide_hi.is_some() { 32 } else { 0 },
                            ),
                            (None, None) if reg.fields.len() > 1 || f.width == 1 => {
                                (f.name.clone(), regmap::field_id(&block.name, &reg.name, &f.name), 0)
                            }
                            (None, None) => (reg.name.clone(), regmap::field_id(&block.name, &reg.name, &f.name), 0),
                        };
                        let bits = |slot: Option<usize>, cat: Cat| -> Result<Piece, HdlError> {
                            let slot = slot.ok_or_else(|| err(format!("register file: no slot for `{source}`")))?;
                            Ok(Piece { cat, slot, reg_lsb: f.lsb, width: f.width, port_lsb })
                        };
                        let port = name;
                        match f.access {
                            Access::Rw | Access::Wo => l.add(
                                group,
                                &port,
                                PortKind::Value,
                                &source,
                                block,
                                instance,
                                addr,
                                bits(storage, Cat::Storage)?,
                            )?,
                            Access::WPulse => l.add(
                                group,
                                &port,
                                PortKind::Pulse,
                                &source,
                                block,
                                instance,
                                addr,
                                bits(pulse, Cat::Pulse)?,
                            )?,
                            Access::W1c => {
                                l.add(
                                    group,
                                    &port,
                                    PortKind::Sticky,
                                    &source,
                                    block,
                                    instance,
                                    addr,
                                    bits(sticky, Cat::Sticky)?,
                                )?;
                                l.add(
                                    group,
                                    &format!("{port}_set"),
                                    PortKind::Set,
                                    &source,
                                    block,
                                    instance,
                                    addr,
                                    bits(sticky, Cat::Set)?,
                                )?;
                            }
                            Access::Ro if f.volatile => {
                                let piece = match latch {
                                    Some(_) => bits(latch, Cat::Latch)?,
                                    None => bits(status, Cat::Status)?,
                                };
                                let kind = if is_counter { PortKind::Counter } else { PortKind::Status };
                                l.add(group, &port, kind, &source, block, instance, addr, piece)?;
                            }
                            // Software's alone: no port reaches the user logic.
                            Access::Ro | Access::Claim => {}
                        }
                    }
                }
            }
        }
        if !counter_seen {
            return Err(err(format!(
                "register file: the map has no `{}.{}` (the cycle counter)",
                CYCLE_COUNTER.0, CYCLE_COUNTER.1
            )));
        }
        let (block, reg, field) = BUS_TIMEOUT;
        let name = format!("{block}.{reg}.{field}");
        let timeout = map.block(block).and_then(|b| b.register(reg)).and_then(|r| r.field(field));
        let timeout =
            timeout.ok_or_else(|| err(format!("register file: the map has no `{name}` (the bus timeout)")))?;
        let max = 1u32 << BUS_TIMEOUT_BITS;
        l.bus_timeout = match (&timeout.access, &timeout.reset) {
            (Access::Ro, regmap::Reset::Fixed(v)) if (1..=max).contains(v) => *v,
            (access, reset) => {
                let why = format!("must be a read-only constant in 1..={max}, not {reset:?} ({access:?})");
                return Err(err(format!("register file: `{name}` {why}")));
            }
        };
        Ok(l)
    }

    #[allow(clippy::too_many_arguments)]
    fn add(
        &mut self,
        group: Group,
        local: &str,
        kind: PortKind,
        source: &str,
        block: &regmap::Block,
        instance: usize,
        addr: u32,
        piece: Piece,
    ) -> Result<(), HdlError> {
        let bits = PortBits { addr, reg_lsb: piece.reg_lsb, width: piece.width, port_lsb: piece.port_lsb };
        let name = group.top_name(local);
        let name = name.as_str();
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
            local: local.to_string(),
            group,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn design(sessions: usize) -> config::Design {
        config::parse(&config::default_toml_with_sessions(sessions)).unwrap()
    }

    /// The core decodes a hit as "some slot's select is high"
    /// (`read_back.rs`: any word's `hit`): that needs every mapped register
    /// in a slot of some kind.
    #[test]
    fn every_mapped_register_is_in_a_slot() {
        for sessions in 1..=config::MAX_SESSIONS {
            let l = Layout::new(&regmap::RegisterMap::for_design(&design(sessions))).unwrap();
            let in_slot: std::collections::BTreeSet<u32> = [&l.storage, &l.pulse, &l.sticky, &l.status, &l.constant]
                .into_iter()
                .flatten()
                .map(|s| s.addr)
                .chain(l.latch.iter().map(|s| s.addr))
                .collect();
            let outside: Vec<u32> = l.mapped.iter().copied().filter(|a| !in_slot.contains(a)).collect();
            assert!(outside.is_empty(), "{sessions} sessions: {outside:#x?} in no slot");
            assert_eq!(in_slot.len(), l.mapped.len(), "{sessions} sessions: a slot outside the map");
        }
    }

    #[test]
    fn the_bus_timeout_is_the_maps_constant_and_nothing_else() {
        let map = regmap::RegisterMap::for_design(&design(2));
        assert_eq!(Layout::new(&map).unwrap().bus_timeout, regmap::bus_timeout_cycles(&design(2)));
        let timeout = |m: &mut regmap::RegisterMap| {
            m.block_mut("info").unwrap().register_mut("bus_timeout").unwrap().field_mut("cycles").unwrap().clone()
        };
        for (what, change) in [
            ("writable", (|f: &mut regmap::Field| f.access = Access::Rw) as fn(&mut regmap::Field)),
            ("zero", |f| f.reset = regmap::Reset::Fixed(0)),
            ("too large", |f| f.reset = regmap::Reset::Fixed((1 << BUS_TIMEOUT_BITS) + 1)),
        ] {
            let mut m = map.clone();
            let mut f = timeout(&mut m);
            change(&mut f);
            *m.block_mut("info").unwrap().register_mut("bus_timeout").unwrap().field_mut("cycles").unwrap() = f;
            let e = Layout::new(&m).unwrap_err().0;
            assert!(e.contains("`info.bus_timeout.cycles` must be a read-only constant in 1..=65536"), "{what}: {e}");
        }
        let mut m = map.clone();
        m.block_mut("info").unwrap().registers.retain(|r| r.name != "bus_timeout");
        assert!(Layout::new(&m).unwrap_err().0.contains("has no `info.bus_timeout.cycles`"));
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
            // Every field reaches a port but the constants and the claims
            // (software's alone); every bit of a port is one field's.
            for f in map.fields() {
                let constant = f.field.is_constant() || f.field.access == regmap::Access::Claim;
                let wide = f.block.wide_with_lo(&f.register.name).or(f.block.wide_with_hi(&f.register.name));
                let source = match (&f.block.bank, wide) {
                    (Some(bank), _) => format!("{}.{bank}", f.block.name),
                    (None, Some(w)) => format!("{}.{}", f.block.name, w.name),
                    (None, None) => f.id(),
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
    fn two_fields_with_one_port_name_are_refused() {
        let mut map = RegisterMap::for_design(&design(1));
        let ctrl = map.block_mut("toe").unwrap().register_mut("toe_ctrl").unwrap();
        ctrl.fields[0].name = "init_done".into();
        let e = Layout::new(&map).unwrap_err();
        assert!(e.0.contains("would both be port `toe_init_done`"), "{e}");
    }

    /// The core holds an address outside the span as `OUT_OF_MAP` (bit 15),
    /// so a map must stay below it: 15 address bits at most.
    #[test]
    fn a_map_reaching_the_out_of_map_address_is_refused() {
        let mut map = RegisterMap::for_design(&design(1));
        let toe = map.block_mut("toe").unwrap();
        toe.base = 0x4000;
        assert_eq!(map.address_bits(), 15);
        let l = Layout::new(&map).unwrap();
        assert!(l.mapped.iter().all(|&a| a < OUT_OF_MAP), "{:#x?}", l.mapped);
        map.block_mut("toe").unwrap().base = 0x8000;
        let e = Layout::new(&map).unwrap_err();
        assert_eq!(e.0, "register file: the map needs 16 address bits, the block decodes at most 15");
    }

    #[test]
    fn a_block_without_a_port_group_is_refused() {
        let mut map = RegisterMap::for_design(&design(1));
        map.blocks.iter_mut().find(|b| b.name == "toe").unwrap().name = "tow".into();
        let e = Layout::new(&map).unwrap_err();
        assert_eq!(e.0, "register file: block `tow` has no port group");
    }
}
