//! The register file's reference model, built from the `regmap` definition
//! alone: every register of every block instance with its address, reset
//! value and fields (access, volatility, the user port each field joins), and
//! what a read should return and a write should change, including the wide
//! values' latched high halves, the sticky (write-1-to-clear) bits the user
//! logic sets and the write pulses a write should fire. `tests/register_file.rs`
//! checks the verilated register file against it through
//! [`crate::register_bench::Bench`]; like [`crate::token_bucket`], it is
//! plain Rust that never looks at the hardware's own code.

use std::collections::HashMap;

use config::ports::Group;
use regmap::{Access, RegisterMap};

/// A field as the test sees it.
pub struct FieldModel {
    pub lsb: u32,
    pub mask: u32,
    pub access: Access,
    pub volatile: bool,
    /// The user port it connects to and the port bit of the field's bit 0.
    pub port: Option<(String, u32)>,
    /// Values a write may put in it, when not every bit pattern is valid:
    /// the map's [`regmap::Field::write_range`] (REGISTERS.md: "A write
    /// outside min..=max is refused").
    pub valid: Option<(u32, u32)>,
}

/// One register instance: what the map says of it and the state the model keeps.
pub struct RegModel {
    pub addr: u32,
    /// `block[instance].register`, for messages.
    pub id: String,
    pub reset: u32,
    pub fields: Vec<FieldModel>,
    /// Low half of a volatile wide value: address of its high half.
    pub latches: Option<u32>,
    /// High half of a volatile wide value.
    pub latched: bool,
    /// The cycle counter: the model cannot know its value.
    pub counter: bool,
    /// Written bits of read-write and write-only fields.
    pub storage: u32,
    /// Write-1-to-clear bits.
    pub sticky: u32,
    /// The high half latched by the last low-half read.
    pub latch: u32,
}

/// The group of the register file's user-side ports that instance
/// `instance` of `block` belongs to: a repeated block's instance is a
/// session's group (`s<n>_`), the `toe` and `info` blocks their own, a
/// bank (`tx_prefix`) the group every session shares (`shared_`).
pub fn group(block: &regmap::Block, instance: usize) -> Group {
    match block.name.as_str() {
        _ if block.repeat.is_some() => Group::RegisterSession(instance),
        _ if block.bank.is_some() => Group::RegisterShared,
        "toe" => Group::ToeGlobal,
        "info" => Group::Info,
        other => panic!("block `{other}` has no port group"),
    }
}

/// The user port of a field and the port bit of the field's bit 0: the name
/// inside the group follows `docs/register_file.md`, written again here so
/// the test does not take it from the code under test; the group's prefix
/// comes from [`Group::top_name`], the one place that forms port names.
pub fn port_name(
    block: &regmap::Block,
    instance: usize,
    reg: &regmap::Register,
    field: &regmap::Field,
) -> (String, u32) {
    let hi = block.wide_with_hi(&reg.name);
    if let Some(bank) = &block.bank {
        // Word k of a bank is bits 32k+31:32k of one port.
        let k = reg.offset / 4;
        return (group(block, instance).top_name(bank), 32 * k);
    }
    let name = match block.wide_with_lo(&reg.name).or(hi) {
        Some(w) => w.name.clone(),
        None if reg.fields.len() > 1 || field.width == 1 => field.name.clone(),
        None => reg.name.clone(),
    };
    (group(block, instance).top_name(&name), if hi.is_some() { 32 } else { 0 })
}

/// The whole register file as the model has it.
pub struct Expect {
    pub regs: Vec<RegModel>,
    pub by_addr: HashMap<u32, usize>,
    /// Values the test drives on status inputs, by port.
    pub status: HashMap<String, u64>,
    /// Pulses each write-pulse port should have given.
    pub pulses: HashMap<String, u64>,
}

pub fn strobe_mask(strb: u8) -> u32 {
    (0..4).filter(|b| strb >> b & 1 == 1).fold(0, |m, b| m | 0xFF << (8 * b))
}

impl Expect {
    pub fn new(map: &RegisterMap) -> Self {
        let mut regs = Vec::new();
        for loc in map.instances() {
            let (block, instance, reg) = (loc.block, loc.instance, loc.register);
            let addr = block.address(instance, reg).unwrap();
            let volatile_hi = |w: &regmap::Wide| {
                block.register(&w.hi).is_some_and(|r| r.fields.iter().any(|f| f.volatile && f.access == Access::Ro))
            };
            let latches = block
                .wide_with_lo(&reg.name)
                .filter(|w| volatile_hi(w))
                .map(|w| block.address(instance, block.register(&w.hi).unwrap()).unwrap());
            let latched = block.wide_with_hi(&reg.name).is_some_and(volatile_hi);
            let counter = block.name == "info" && reg.name.starts_with("cycle_count");
            let fields = reg
                .fields
                .iter()
                .map(|f| FieldModel {
                    lsb: f.lsb,
                    mask: f.mask(),
                    access: f.access,
                    volatile: f.volatile,
                    port: (!f.is_constant()).then(|| port_name(block, instance, reg, f)),
                    valid: f.write_range(),
                })
                .collect();
            let reset = reg.reset_for(instance);
            regs.push(RegModel {
                addr,
                id: format!("{}[{instance}].{}", block.name, reg.name),
                reset,
                fields,
                latches,
                latched,
                counter,
                storage: reset,
                sticky: reset,
                latch: if latched { reset } else { 0 },
            });
        }
        let by_addr = regs.iter().enumerate().map(|(i, r)| (r.addr, i)).collect();
        Expect { regs, by_addr, status: HashMap::new(), pulses: HashMap::new() }
    }

    pub fn reg(&self, addr: u32) -> Option<&RegModel> {
        self.by_addr.get(&addr).map(|&i| &self.regs[i])
    }

    /// What a read returns, `None` for SLVERR, with the bits the model can
    /// predict; updates the latch a low-half read loads.
    pub fn read(&mut self, addr: u32) -> Option<(u32, u32)> {
        let i = *self.by_addr.get(&addr)?;
        let mut value = 0;
        let mut care = u32::MAX;
        let mut load = None;
        {
            let r = &self.regs[i];
            for f in &r.fields {
                let bits = match f.access {
                    Access::Rw | Access::Claim => r.storage & f.mask,
                    Access::Wo | Access::WPulse => 0,
                    Access::W1c => r.sticky & f.mask,
                    Access::Ro if !f.volatile => r.reset & f.mask,
                    Access::Ro if r.counter => {
                        care &= !f.mask;
                        0
                    }
                    Access::Ro if r.latched => r.latch & f.mask,
                    Access::Ro => {
                        let (port, port_lsb) = f.port.clone().unwrap();
                        let v = self.status.get(&port).copied().unwrap_or(0);
                        ((v >> port_lsb) as u32) << f.lsb & f.mask
                    }
                };
                value |= bits;
            }
            if let Some(hi) = r.latches {
                let h = &self.regs[self.by_addr[&hi]];
                let mut latch = 0;
                for f in h.fields.iter().filter(|f| f.access == Access::Ro && f.volatile) {
                    let (port, port_lsb) = f.port.clone().unwrap();
                    let v = self.status.get(&port).copied().unwrap_or(0);
                    latch |= ((v >> port_lsb) as u32) << f.lsb & f.mask;
                }
                load = Some((self.by_addr[&hi], latch));
            }
        }
        if let Some((h, latch)) = load {
            self.regs[h].latch = latch;
        }
        Some((value, care))
    }

    /// Applies a write; false for SLVERR: an unmapped address, or a write
    /// that would put a value outside a field's valid values or covers only
    /// some bytes of such a field (then nothing changes).
    pub fn write(&mut self, addr: u32, data: u32, strb: u8) -> bool {
        let Some(&i) = self.by_addr.get(&addr) else { return false };
        let bytes = strobe_mask(strb);
        let r = &mut self.regs[i];
        for f in &r.fields {
            let Some((min, max)) = f.valid else { continue };
            let written = f.mask & bytes;
            let value = (data & f.mask) >> f.lsb;
            if written != 0 && (written != f.mask || value < min || value > max) {
                return false;
            }
        }
        for f in &r.fields {
            let m = f.mask & bytes;
            match f.access {
                Access::Rw | Access::Wo => r.storage = (r.storage & !m) | (data & m),
                // Taken while free, freed by 0; one holder never becomes another.
                Access::Claim => {
                    let written = (r.storage & !m) | (data & m);
                    if r.storage & f.mask == 0 || written & f.mask == 0 {
                        r.storage = written;
                    }
                }
                Access::W1c => r.sticky &= !(data & m),
                Access::WPulse if data & m != 0 => {
                    *self.pulses.entry(f.port.clone().unwrap().0).or_default() += 1;
                }
                _ => {}
            }
        }
        true
    }

    /// The user logic set sticky bits through `<port>_set`.
    pub fn set_sticky(&mut self, port: &str) {
        for r in &mut self.regs {
            for f in &r.fields {
                if f.access == Access::W1c && f.port.as_ref().is_some_and(|p| p.0 == port) {
                    r.sticky |= f.mask;
                }
            }
        }
    }

    /// The value of an output port of kind value/sticky as the model has
    /// it, in 32-bit words, least significant first (a bank's port is 512
    /// bits wide).
    pub fn output(&self, port: &str) -> Option<Vec<u32>> {
        let mut v: Vec<u32> = Vec::new();
        let mut found = false;
        for r in &self.regs {
            for f in &r.fields {
                if let Some((p, port_lsb)) = &f.port {
                    if p == port {
                        let word = match f.access {
                            Access::Rw | Access::Wo => r.storage,
                            Access::W1c => r.sticky,
                            _ => return None,
                        };
                        let bits = u64::from((word & f.mask) >> f.lsb) << (port_lsb % 32);
                        let at = (port_lsb / 32) as usize;
                        if v.len() < at + 2 {
                            v.resize(at + 2, 0);
                        }
                        v[at] |= bits as u32;
                        v[at + 1] |= (bits >> 32) as u32;
                        found = true;
                    }
                }
            }
        }
        found.then_some(v)
    }
}
