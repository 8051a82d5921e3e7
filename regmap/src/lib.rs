//! The register map of the TOE user logic, defined once, as data.
//!
//! [`RegisterMap::for_design`] builds the map of a validated [`config::Design`]
//! (the contents are in `definition.rs`); everything else is derived from it:
//! the register-file hardware (walks [`RegisterMap::blocks`]), and the text
//! outputs in [`render`] (C header, C static asserts, Markdown, JSON, Rust
//! accessors and LiteX's `csr.csv`). Addresses exist only here: a block has an explicit base, a
//! register an explicit offset inside its block, a field an explicit lsb.
//!
//! ```
//! let design = config::parse(config::DEFAULT_TOML).unwrap();
//! let map = regmap::RegisterMap::for_design(&design);
//! let (block, reg) = map.find_register("status").unwrap();
//! assert_eq!(block.address(2, reg), Some(block.base + 2 * block.stride() + reg.offset));
//! assert_eq!(map.lookup(block.address(2, reg).unwrap()).unwrap().instance, 2);
//! ```
//!
//! Conventions every consumer shares:
//! - Registers are 32 bits wide and 4-byte aligned; bits no field covers read 0
//!   and ignore writes.
//! - A value wider than 32 bits (a [`Wide`]) spans a `_lo` register (bits 31:0)
//!   and the `_hi` register 4 bytes above it. Reading the low half latches the
//!   high half: read `_lo` first, then `_hi`, and the pair is coherent even while
//!   the value changes.
//! - Writable wide values are used by the hardware when the command that
//!   consumes them fires (session `start`, TOE `init`), so both halves are
//!   written, in any order, before that command.

use std::fmt;

mod definition;
pub mod render;

pub use render::{c_header, c_static_asserts, csr_csv, json, markdown, outputs, rust_accessors, Output};

pub use definition::{bus_timeout_cycles, DEFAULT_STALL_TIMEOUT_MS, ID_MAGIC, VERSION_MAJOR, VERSION_MINOR};

/// How software may access a field, and the side effect of doing so.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Access {
    /// Read-only; writes are ignored.
    Ro,
    /// Read-write storage.
    Rw,
    /// Write-only storage; reads return 0.
    Wo,
    /// Read; writing 1 to a bit clears it, writing 0 leaves it.
    W1c,
    /// Write-pulse command: writing 1 fires a single event; reads return 0.
    WPulse,
    /// A claim several bus masters arbitrate for: a write that sets the
    /// field while it reads 0 takes it, a write of 0 frees it, a write that
    /// would change one nonzero value into another is ignored; reads return
    /// the field. The register file applies writes one at a time, so of two
    /// masters that write their own values, one reads its value back.
    Claim,
}

impl Access {
    /// All access types, in documentation order.
    pub const ALL: [Access; 6] = [Access::Ro, Access::Rw, Access::Wo, Access::W1c, Access::WPulse, Access::Claim];

    /// The short name used in every output.
    pub fn as_str(self) -> &'static str {
        match self {
            Access::Ro => "ro",
            Access::Rw => "rw",
            Access::Wo => "wo",
            Access::W1c => "w1c",
            Access::WPulse => "wpulse",
            Access::Claim => "claim",
        }
    }

    /// One sentence on the behaviour, for documentation.
    pub fn meaning(self) -> &'static str {
        match self {
            Access::Ro => "read-only: writes are ignored",
            Access::Rw => "read-write: reads return the last value written",
            Access::Wo => "write-only: reads return 0",
            Access::W1c => "read, write 1 to clear: writing 1 to a bit clears it, writing 0 leaves it unchanged",
            Access::WPulse => "write-pulse command: writing 1 fires one event in the user clock domain; reads return 0",
            Access::Claim => {
                "claim: a nonzero write while the field is 0 takes it, writing 0 frees it, a write that would replace \
                 one nonzero value by another is ignored; reads return the field (the first of several masters wins)"
            }
        }
    }

    /// Whether a read returns the field's value.
    pub fn readable(self) -> bool {
        matches!(self, Access::Ro | Access::Rw | Access::W1c | Access::Claim)
    }
}

impl fmt::Display for Access {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The reset value of a field: one for every instance of its block, or one per
/// instance (the session ports come from per-session defaults).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reset {
    Fixed(u32),
    PerInstance(Vec<u32>),
}

impl Reset {
    /// The reset value in instance `instance`; 0 for an instance a validated
    /// map does not have.
    pub fn for_instance(&self, instance: usize) -> u32 {
        match self {
            Reset::Fixed(v) => *v,
            Reset::PerInstance(values) => values.get(instance).copied().unwrap_or(0),
        }
    }

    /// Every distinct value (one for `Fixed`), for checks.
    pub fn values(&self) -> Vec<u32> {
        match self {
            Reset::Fixed(v) => vec![*v],
            Reset::PerInstance(values) => values.clone(),
        }
    }
}

/// One named value of an enumerated field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnumValue {
    pub name: String,
    pub value: u32,
    pub description: String,
}

/// A bit field of a register.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub name: String,
    /// Lowest bit.
    pub lsb: u32,
    /// Width in bits, 1..=32.
    pub width: u32,
    pub access: Access,
    pub reset: Reset,
    /// The hardware changes the value on its own (status, counters): software
    /// must not cache it. A read-only field that is not volatile is a constant.
    pub volatile: bool,
    /// Valid values, inclusive, when narrower than the field (`1..=100` for a
    /// percentage); software must not write others.
    pub range: Option<(u32, u32)>,
    /// Named values; empty for a plain number.
    pub enum_values: Vec<EnumValue>,
    pub description: String,
}

impl Field {
    /// The field's bits in the register word. Never panics, also on a field
    /// that fails validation.
    pub fn mask(&self) -> u32 {
        let ones = if self.width >= 32 { u64::from(u32::MAX) } else { (1u64 << self.width) - 1 };
        ((ones << self.lsb.min(63)) & u64::from(u32::MAX)) as u32
    }

    /// Highest bit, `lsb + width - 1`.
    pub fn msb(&self) -> u32 {
        self.lsb.saturating_add(self.width).saturating_sub(1)
    }

    /// Largest value the field holds.
    pub fn max_value(&self) -> u64 {
        if self.width >= 64 {
            u64::MAX
        } else {
            (1u64 << self.width) - 1
        }
    }

    /// Valid values, inclusive: `range`, or the whole field.
    pub fn valid_range(&self) -> (u32, u32) {
        self.range.unwrap_or((0, self.max_value().min(u64::from(u32::MAX)) as u32))
    }

    /// The values a write may put in the field when some of its bit
    /// patterns are not valid: `range`, or the span of its code table (the
    /// codes are consecutive, see validation). The register file refuses a
    /// write that would put anything else there (SLVERR, register unchanged).
    /// `None` for a field every pattern of which is valid, and for fields
    /// software does not write.
    pub fn write_range(&self) -> Option<(u32, u32)> {
        if !matches!(self.access, Access::Rw | Access::Wo) {
            return None;
        }
        let (min, max) = match self.range {
            Some(r) => r,
            None => {
                let codes = self.enum_values.iter().map(|v| v.value);
                (codes.clone().min()?, codes.max()?)
            }
        };
        (min > 0 || u64::from(max) < self.max_value()).then_some((min, max))
    }

    /// Whether the hardware ignores software writes and the value never
    /// changes: the value is a property of the design.
    pub fn is_constant(&self) -> bool {
        self.access == Access::Ro && !self.volatile
    }
}

/// A 32-bit register at an explicit offset inside its block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Register {
    pub name: String,
    /// Byte offset from the block instance's base.
    pub offset: u32,
    pub description: String,
    pub fields: Vec<Field>,
}

impl Register {
    /// The whole register's reset word in instance `instance`.
    pub fn reset_for(&self, instance: usize) -> u32 {
        self.fields
            .iter()
            .fold(0, |word, f| word | ((u64::from(f.reset.for_instance(instance)) << f.lsb.min(63)) as u32 & f.mask()))
    }

    /// Whether every instance has the same reset word.
    pub fn reset_is_uniform(&self) -> bool {
        self.fields.iter().all(|f| matches!(f.reset, Reset::Fixed(_)))
    }

    /// The bits whose fields have access `access`.
    pub fn mask_of(&self, access: Access) -> u32 {
        self.fields.iter().filter(|f| f.access == access).fold(0, |m, f| m | f.mask())
    }

    /// The bits the hardware changes on its own.
    pub fn volatile_mask(&self) -> u32 {
        self.fields.iter().filter(|f| f.volatile).fold(0, |m, f| m | f.mask())
    }

    /// The distinct access types of the fields, joined by `/` (`ro/w1c`).
    pub fn access_summary(&self) -> String {
        let mut kinds: Vec<Access> = self.fields.iter().map(|f| f.access).collect();
        kinds.sort();
        kinds.dedup();
        kinds.iter().map(|a| a.as_str()).collect::<Vec<_>>().join("/")
    }

    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    pub fn field_mut(&mut self, name: &str) -> Option<&mut Field> {
        self.fields.iter_mut().find(|f| f.name == name)
    }
}

/// A value wider than 32 bits held in two registers of one block: `lo` has one
/// 32-bit field at bit 0, `hi` (at `lo + 4`) one field of `width - 32` bits at
/// bit 0. Reading `lo` latches `hi`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wide {
    pub name: String,
    /// Name of the register with bits 31:0.
    pub lo: String,
    /// Name of the register with the bits above 31.
    pub hi: String,
    /// Total width, 33..=64.
    pub width: u32,
    pub description: String,
}

/// How often a block repeats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Repeat {
    /// Number of instances (sessions).
    pub count: usize,
    /// Bytes from one instance's base to the next.
    pub stride: u32,
}

/// A group of registers at an explicit base address, optionally repeated at a
/// fixed stride (the per-session block).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    pub name: String,
    pub description: String,
    /// Address of instance 0.
    pub base: u32,
    /// Bytes the block reserves per instance; registers lie below it.
    pub size: u32,
    pub repeat: Option<Repeat>,
    pub registers: Vec<Register>,
    pub wides: Vec<Wide>,
    /// A bank: every register of the block, in address order, is 32 bits of
    /// one value of this name (register k holds bits 32k+31:32k), which the
    /// hardware takes as one port. Each register holds one 32-bit field at
    /// bit 0. `None` for an ordinary block.
    pub bank: Option<String>,
}

impl Block {
    /// Number of instances, 1 for a block that does not repeat.
    pub fn instances(&self) -> usize {
        self.repeat.map_or(1, |r| r.count)
    }

    /// Bytes between instances; the size for a block that does not repeat.
    pub fn stride(&self) -> u32 {
        self.repeat.map_or(self.size, |r| r.stride)
    }

    /// Base address of instance `instance`, or `None` past the last instance.
    pub fn instance_base(&self, instance: usize) -> Option<u32> {
        if instance >= self.instances() {
            return None;
        }
        let addr = u64::from(self.base) + instance as u64 * u64::from(self.stride());
        u32::try_from(addr).ok()
    }

    /// Bus address of `reg` in instance `instance`.
    pub fn address(&self, instance: usize, reg: &Register) -> Option<u32> {
        self.instance_base(instance)?.checked_add(reg.offset)
    }

    pub fn register(&self, name: &str) -> Option<&Register> {
        self.registers.iter().find(|r| r.name == name)
    }

    pub fn register_mut(&mut self, name: &str) -> Option<&mut Register> {
        self.registers.iter_mut().find(|r| r.name == name)
    }

    /// The wide value whose low half is `reg`, if any (its read latches the high half).
    pub fn wide_with_lo(&self, reg: &str) -> Option<&Wide> {
        self.wides.iter().find(|w| w.lo == reg)
    }

    /// The wide value whose high half is `reg`, if any.
    pub fn wide_with_hi(&self, reg: &str) -> Option<&Wide> {
        self.wides.iter().find(|w| w.hi == reg)
    }
}

/// What a bus address decodes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location<'a> {
    pub block: &'a Block,
    pub instance: usize,
    pub register: &'a Register,
}

/// One field with where it lives, for generators that walk the whole map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldRef<'a> {
    pub block: &'a Block,
    pub register: &'a Register,
    pub field: &'a Field,
}

impl FieldRef<'_> {
    /// Stable identifier `block.register.field`, the same in every output.
    pub fn id(&self) -> String {
        field_id(&self.block.name, &self.register.name, &self.field.name)
    }
}

/// Stable identifier of a register: `block.register`.
pub fn register_id(block: &str, register: &str) -> String {
    format!("{block}.{register}")
}

/// Stable identifier of a field: `block.register.field`.
pub fn field_id(block: &str, register: &str, field: &str) -> String {
    format!("{block}.{register}.{field}")
}

/// The whole register map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegisterMap {
    pub blocks: Vec<Block>,
}

impl RegisterMap {
    pub fn block(&self, name: &str) -> Option<&Block> {
        self.blocks.iter().find(|b| b.name == name)
    }

    pub fn block_mut(&mut self, name: &str) -> Option<&mut Block> {
        self.blocks.iter_mut().find(|b| b.name == name)
    }

    /// The register named `name` (names are unique across blocks) and its block.
    pub fn find_register(&self, name: &str) -> Option<(&Block, &Register)> {
        self.blocks.iter().find_map(|b| b.register(name).map(|r| (b, r)))
    }

    /// Decodes a bus address; `None` for an unmapped one (the register file
    /// answers SLVERR there).
    pub fn lookup(&self, addr: u32) -> Option<Location<'_>> {
        self.blocks.iter().find_map(|block| {
            let offset = u64::from(addr).checked_sub(u64::from(block.base))?;
            let stride = u64::from(block.stride().max(1));
            let instance = usize::try_from(offset / stride).ok()?;
            let within = u32::try_from(offset % stride).ok()?;
            if instance >= block.instances() {
                return None;
            }
            let register = block.registers.iter().find(|r| r.offset == within)?;
            Some(Location { block, instance, register })
        })
    }

    /// Every field in definition order.
    pub fn fields(&self) -> impl Iterator<Item = FieldRef<'_>> {
        self.blocks.iter().flat_map(|block| {
            block
                .registers
                .iter()
                .flat_map(move |register| register.fields.iter().map(move |field| FieldRef { block, register, field }))
        })
    }

    /// Every register instance with its address, in address order.
    pub fn instances(&self) -> Vec<Location<'_>> {
        let mut all: Vec<(u32, Location<'_>)> = Vec::new();
        for block in &self.blocks {
            for instance in 0..block.instances() {
                for register in &block.registers {
                    if let Some(addr) = block.address(instance, register) {
                        all.push((addr, Location { block, instance, register }));
                    }
                }
            }
        }
        all.sort_by_key(|(addr, _)| *addr);
        all.into_iter().map(|(_, l)| l).collect()
    }

    /// Bits of address the register bus needs to reach every block instance.
    pub fn address_bits(&self) -> u32 {
        let end = self
            .blocks
            .iter()
            .map(|b| u64::from(b.base) + b.instances() as u64 * u64::from(b.stride()))
            .max()
            .unwrap_or(4);
        (64 - (end.max(2) - 1).leading_zeros()).max(2)
    }
}

/// A register map that breaks a rule; the message names the block, register
/// or field and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegmapError {
    /// A name that is not a lower-case identifier, or is a Rust or C keyword.
    InvalidName {
        what: &'static str,
        name: String,
        reason: &'static str,
    },
    DuplicateBlock {
        name: String,
    },
    /// Register names are unique across the whole map.
    DuplicateRegister {
        name: String,
        first: String,
        second: String,
    },
    DuplicateField {
        register: String,
        field: String,
    },
    DuplicateEnumValue {
        field: String,
        name: String,
    },
    DuplicateWide {
        block: String,
        name: String,
    },
    /// A bank block whose register is not one 32-bit field at bit 0, or
    /// that has wide values.
    BankRegister {
        block: String,
        problem: String,
    },
    BlockMisaligned {
        block: String,
        what: &'static str,
        value: u32,
    },
    StrideTooSmall {
        block: String,
        stride: u32,
        size: u32,
    },
    NoInstances {
        block: String,
    },
    BlockOverlap {
        first: String,
        second: String,
        addr: u32,
    },
    BlockPastAddressSpace {
        block: String,
    },
    Misaligned {
        register: String,
        offset: u32,
    },
    RegisterOutsideBlock {
        register: String,
        offset: u32,
        size: u32,
    },
    RegisterOverlap {
        first: String,
        second: String,
        offset: u32,
    },
    NoFields {
        register: String,
    },
    EmptyField {
        field: String,
    },
    FieldPastBit31 {
        field: String,
        lsb: u32,
        width: u32,
    },
    FieldOverlap {
        first: String,
        second: String,
        bit: u32,
    },
    /// A claim field shares its register with another field, or resets to
    /// a held value: the register file arbitrates whole words, free at reset.
    ClaimRegister {
        field: String,
        problem: &'static str,
    },
    ResetTooWide {
        field: String,
        reset: u32,
        width: u32,
    },
    ResetCount {
        field: String,
        values: usize,
        instances: usize,
    },
    EnumValueOutOfRange {
        field: String,
        name: String,
        value: u32,
        width: u32,
    },
    DuplicateEnumNumber {
        field: String,
        value: u32,
    },
    ResetNotInEnum {
        field: String,
        reset: u32,
    },
    InvalidRange {
        field: String,
        min: u32,
        max: u32,
        width: u32,
    },
    /// A written field's code table with a gap: the register file checks
    /// writes against the span of the codes.
    CodeGap {
        field: String,
        missing: u32,
    },
    ResetOutOfRange {
        field: String,
        reset: u32,
        min: u32,
        max: u32,
    },
    WideRegister {
        wide: String,
        problem: String,
    },
    NameCollision {
        name: String,
        first: String,
        second: String,
    },
}

fn hex(v: u32) -> String {
    format!("0x{v:03X}")
}

impl fmt::Display for RegmapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use RegmapError::*;
        match self {
            InvalidName { what, name, reason } => write!(f, "{what} name `{name}` is invalid: {reason}"),
            DuplicateBlock { name } => write!(f, "duplicate block name `{name}`"),
            DuplicateRegister { name, first, second } => {
                write!(f, "duplicate register name `{name}`: `{first}` and `{second}` (register names are unique across blocks)")
            }
            DuplicateField { register, field } => write!(f, "duplicate field name `{field}` in register `{register}`"),
            DuplicateEnumValue { field, name } => write!(f, "duplicate enum value name `{name}` in field `{field}`"),
            DuplicateWide { block, name } => write!(f, "duplicate wide value name `{name}` in block `{block}`"),
            BankRegister { block, problem } => write!(f, "bank block `{block}`: {problem}"),
            BlockMisaligned { block, what, value } => {
                write!(f, "block `{block}`: {what} {} is not a multiple of 4 bytes", hex(*value))
            }
            StrideTooSmall { block, stride, size } => {
                write!(
                    f,
                    "block `{block}`: stride {} is smaller than its size {}, so instances would overlap",
                    hex(*stride),
                    hex(*size)
                )
            }
            NoInstances { block } => write!(f, "block `{block}` repeats 0 times: it needs at least one instance"),
            BlockOverlap { first, second, addr } => {
                write!(f, "blocks `{first}` and `{second}` overlap at address {}", hex(*addr))
            }
            BlockPastAddressSpace { block } => write!(f, "block `{block}` extends past the 32-bit address space"),
            Misaligned { register, offset } => {
                write!(f, "register `{register}` at offset {} is not 4-byte aligned", hex(*offset))
            }
            RegisterOutsideBlock { register, offset, size } => {
                write!(
                    f,
                    "register `{register}` at offset {} lies outside its block (size {})",
                    hex(*offset),
                    hex(*size)
                )
            }
            RegisterOverlap { first, second, offset } => {
                write!(f, "registers `{first}` and `{second}` overlap at offset {}", hex(*offset))
            }
            NoFields { register } => write!(f, "register `{register}` has no fields"),
            EmptyField { field } => write!(f, "field `{field}` has width 0"),
            FieldPastBit31 { field, lsb, width } => {
                write!(
                    f,
                    "field `{field}` (lsb {lsb}, width {width}) extends past bit 31 to bit {}",
                    u64::from(*lsb) + u64::from(*width) - 1
                )
            }
            FieldOverlap { first, second, bit } => write!(f, "fields `{first}` and `{second}` overlap at bit {bit}"),
            ClaimRegister { field, problem } => write!(f, "claim field `{field}` {problem}"),
            ResetTooWide { field, reset, width } => {
                write!(f, "reset value {reset:#X} of field `{field}` does not fit in its {width} bit(s)")
            }
            ResetCount { field, values, instances } => {
                write!(f, "field `{field}` has {values} per-instance reset value(s) but its block has {instances} instance(s)")
            }
            EnumValueOutOfRange { field, name, value, width } => {
                write!(f, "enum value `{name}` = {value} of field `{field}` does not fit in its {width} bit(s)")
            }
            DuplicateEnumNumber { field, value } => write!(f, "field `{field}` has two enum values equal to {value}"),
            ResetNotInEnum { field, reset } => {
                write!(f, "reset value {reset} of field `{field}` is not one of its enum values")
            }
            InvalidRange { field, min, max, width } => {
                write!(f, "valid range {min}..={max} of field `{field}` is empty or does not fit in its {width} bit(s)")
            }
            CodeGap { field, missing } => write!(
                f,
                "the codes of field `{field}` skip {missing}: the register file refuses writes outside the span of the codes, so they must be consecutive"
            ),
            ResetOutOfRange { field, reset, min, max } => {
                write!(f, "reset value {reset} of field `{field}` is outside its valid range {min}..={max}")
            }
            WideRegister { wide, problem } => write!(f, "wide value `{wide}`: {problem}"),
            NameCollision { name, first, second } => {
                write!(f, "generated name `{name}` is produced by both {first} and {second}: rename one of them")
            }
        }
    }
}

impl std::error::Error for RegmapError {}

mod validate;
