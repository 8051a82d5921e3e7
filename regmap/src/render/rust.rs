//! Typed Rust accessors for testbenches and host software: one module `regs`
//! to `include!`. Addresses come only from it, so a test never holds a literal
//! address:
//!
//! ```text
//! let s = regs::session(1).unwrap();               // None past the last session
//! bus.write(s.ctrl().addr, regs::session::ctrl::START.word(1).unwrap());
//! let status = bus.read(s.status().addr);
//! let done = regs::session::status::DONE.get(status) == 1;
//! let bytes = { let lo = bus.read(s.tx_bytes().lo.addr); s.tx_bytes().join(lo, bus.read(s.tx_bytes().hi.addr)) };
//! let info_id = bus.read(regs::info::ID.addr);
//! ```
//!
//! Layout of the generated module:
//! - `Register` (id, instance, addr, reset, bits per access type, volatile
//!   bits), `Field` (shift, width, mask, valid range; `get`, `set`, `word`),
//!   `Wide` (lo and hi `Register`, width; `join`, `split`, `reset`).
//! - per block a module: `BASE`, `SIZE` (and `STRIDE`, `COUNT` when it
//!   repeats); per register a sub-module with `OFFSET`, `RESET` (or `RESETS`
//!   per instance), one `Field` const per field and one enum per enumerated
//!   field (`bits`, `from_bits`, `name`).
//! - a block that does not repeat has a `Register` const per register and a
//!   `Wide` const per wide value in its module; a repeated block has an
//!   instance type (`Session`) with one method per register and wide value, and
//!   a constructor `session(index) -> Option<Session>`.
//! - `ALL`: every register instance in address order.
//!
//! The module carries `#[allow(dead_code)]`, so a test that uses part of it
//! compiles without warnings.

use config::Design;

use super::{camel, hex};
use crate::{Access, Block, Field, Register, RegisterMap};

fn up(name: &str) -> String {
    name.to_ascii_uppercase()
}

/// Doc-comment lines at `indent`.
fn doc(out: &mut String, indent: &str, text: &str) {
    for line in text.lines() {
        if line.is_empty() {
            *out += &format!("{indent}///\n");
        } else {
            *out += &format!("{indent}/// {line}\n");
        }
    }
}

/// Items of `regs` whose names come from the map, with their namespace, for
/// the collision check: (`namespace:name`, origin).
pub(crate) fn generated_names(map: &RegisterMap) -> Vec<(String, String)> {
    let mut names: Vec<(String, String)> = Vec::new();
    let mut add = |scope: String, name: String, origin: String| names.push((format!("{scope}::{name}"), origin));
    for fixed in ["Register", "Field", "Wide"] {
        add("regs/type".into(), fixed.into(), "the accessor support types".into());
    }
    for fixed in ["ID_MAGIC", "VERSION_MAJOR", "VERSION_MINOR", "ADDRESS_BITS", "ALL"] {
        add("regs/value".into(), fixed.into(), "the accessor constants".into());
    }
    for block in &map.blocks {
        let origin = format!("block `{}`", block.name);
        add("regs/type".into(), block.name.clone(), origin.clone());
        let scope = format!("regs::{}/value", block.name);
        for fixed in ["BASE", "SIZE", "STRIDE", "COUNT"] {
            add(scope.clone(), fixed.into(), origin.clone());
        }
        if block.repeat.is_some() {
            add("regs/type".into(), camel(&block.name), origin.clone());
            add("regs/value".into(), block.name.clone(), origin.clone());
            for fixed in ["ALL", "index", "base"] {
                add(format!("{}/method", camel(&block.name)), fixed.into(), origin.clone());
            }
        }
        for reg in &block.registers {
            let origin = format!("register `{}`", crate::register_id(&block.name, &reg.name));
            add(format!("regs::{}/type", block.name), reg.name.clone(), origin.clone());
            if block.repeat.is_some() {
                add(format!("{}/method", camel(&block.name)), reg.name.clone(), origin.clone());
            } else {
                add(scope.clone(), up(&reg.name), origin.clone());
            }
            let reg_scope = format!("regs::{}::{}", block.name, reg.name);
            for fixed in ["OFFSET", "RESET", "RESETS"] {
                add(format!("{reg_scope}/value"), fixed.into(), origin.clone());
            }
            for field in &reg.fields {
                let origin = format!("field `{}`", crate::field_id(&block.name, &reg.name, &field.name));
                add(format!("{reg_scope}/value"), up(&field.name), origin.clone());
                if !field.enum_values.is_empty() {
                    add(format!("{reg_scope}/type"), camel(&field.name), origin.clone());
                    for value in &field.enum_values {
                        add(
                            format!("{reg_scope}::{}", camel(&field.name)),
                            camel(&value.name),
                            format!("enum value `{}` of {origin}", value.name),
                        );
                    }
                }
            }
        }
        for wide in &block.wides {
            let origin = format!("wide value `{}`", crate::register_id(&block.name, &wide.name));
            if block.repeat.is_some() {
                add(format!("{}/method", camel(&block.name)), wide.name.clone(), origin);
            } else {
                add(scope.clone(), up(&wide.name), origin);
            }
        }
    }
    names
}

const SUPPORT: &str = r#"    /// One register instance: its bus address, reset word and the bits of
    /// each access type.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub struct Register {
        /// Stable identifier `block.register`, the same in every output.
        pub id: &'static str,
        /// Instance of its block (the session); 0 for a block that does not repeat.
        pub instance: usize,
        /// Byte address on the register bus.
        pub addr: u32,
        /// Value after reset.
        pub reset: u32,
        /// Bits of read-only fields.
        pub ro_mask: u32,
        /// Bits of read-write fields.
        pub rw_mask: u32,
        /// Bits of write-only fields (read 0).
        pub wo_mask: u32,
        /// Bits of write-1-to-clear fields.
        pub w1c_mask: u32,
        /// Bits of write-pulse command fields (read 0).
        pub wpulse_mask: u32,
        /// Bits of claim fields (the first nonzero write while 0 takes them, 0 frees them).
        pub claim_mask: u32,
        /// Bits the hardware updates on its own.
        pub volatile_mask: u32,
    }

    impl Register {
        /// Bits a read returns (read-only, read-write, write-1-to-clear and claim fields).
        pub const fn readable_mask(self) -> u32 {
            self.ro_mask | self.rw_mask | self.w1c_mask | self.claim_mask
        }
    }

    /// A bit field: where it is in its register and which values are valid.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub struct Field {
        /// Stable identifier `block.register.field`.
        pub id: &'static str,
        /// Lowest bit.
        pub shift: u32,
        /// Width in bits.
        pub width: u32,
        /// The field's bits in the register word.
        pub mask: u32,
        /// Smallest valid value.
        pub min: u32,
        /// Largest valid value.
        pub max: u32,
    }

    impl Field {
        /// The field's value in a register word.
        pub const fn get(self, word: u32) -> u32 {
            (word & self.mask) >> self.shift
        }

        /// `word` with the field replaced by `value`; `None` when `value` is
        /// outside `min..=max` (so out-of-range values never reach the bus).
        pub const fn set(self, word: u32, value: u32) -> Option<u32> {
            if value < self.min || value > self.max {
                return None;
            }
            Some((word & !self.mask) | ((value << self.shift) & self.mask))
        }

        /// A word with only this field set to `value`; `None` when out of range.
        pub const fn word(self, value: u32) -> Option<u32> {
            self.set(0, value)
        }
    }

    /// A value wider than 32 bits over two registers. Reading `lo` latches
    /// `hi`: read `lo` first, then `hi`, then `join` the two words.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub struct Wide {
        /// Stable identifier `block.value`.
        pub id: &'static str,
        /// Bits 31:0; reading it latches `hi`.
        pub lo: Register,
        /// The bits above 31, as latched by the last read of `lo`.
        pub hi: Register,
        /// Total width in bits.
        pub width: u32,
    }

    impl Wide {
        /// The value's bits.
        pub const fn mask(self) -> u64 {
            if self.width >= 64 {
                u64::MAX
            } else {
                (1u64 << self.width) - 1
            }
        }

        /// The value from the word read at `lo` and the word read after it at `hi`.
        pub const fn join(self, lo: u32, hi: u32) -> u64 {
            (((hi as u64) << 32) | lo as u64) & self.mask()
        }

        /// The words to write at `lo` and `hi`; `None` when `value` does not fit.
        pub const fn split(self, value: u64) -> Option<(u32, u32)> {
            if value & !self.mask() != 0 {
                return None;
            }
            Some((value as u32, (value >> 32) as u32))
        }

        /// Value after reset.
        pub const fn reset(self) -> u64 {
            self.join(self.lo.reset, self.hi.reset)
        }
    }
"#;

/// The `Register { .. }` literal of `reg` in instance `instance`; `base` and
/// `reset` are Rust expressions, `path` leads to the register's module.
fn register_literal(
    block: &Block,
    reg: &Register,
    base: &str,
    reset: &str,
    instance: &str,
    indent: &str,
    path: &str,
) -> String {
    let m = |a: Access| hex(u64::from(reg.mask_of(a)), 8);
    format!(
        "Register {{\n{indent}    id: \"{}\",\n{indent}    instance: {instance},\n{indent}    addr: {base} + {path}{}::OFFSET,\n{indent}    reset: {reset},\n\
         {indent}    ro_mask: {},\n{indent}    rw_mask: {},\n{indent}    wo_mask: {},\n{indent}    w1c_mask: {},\n{indent}    wpulse_mask: {},\n\
         {indent}    claim_mask: {},\n{indent}    volatile_mask: {},\n{indent}}}",
        crate::register_id(&block.name, &reg.name),
        reg.name,
        m(Access::Ro),
        m(Access::Rw),
        m(Access::Wo),
        m(Access::W1c),
        m(Access::WPulse),
        m(Access::Claim),
        hex(u64::from(reg.volatile_mask()), 8),
    )
}

fn field_items(out: &mut String, block: &Block, reg: &Register, field: &Field) {
    let i = "            ";
    let notes = super::field_notes(block, reg, field).join(" ");
    let text = format!(
        "{} {}, {}. {} {}",
        if field.width == 1 { "Bit" } else { "Bits" },
        super::bits(field),
        field.access,
        field.description,
        notes
    );
    doc(out, i, text.trim_end());
    let (min, max) = field.valid_range();
    *out += &format!(
        "{i}pub const {}: super::super::Field = super::super::Field {{ id: \"{}\", shift: {}, width: {}, mask: {}, min: {min}, max: {max} }};\n",
        up(&field.name),
        crate::field_id(&block.name, &reg.name, &field.name),
        field.lsb,
        field.width,
        hex(u64::from(field.mask()), 8),
    );
    if field.enum_values.is_empty() {
        return;
    }
    let ty = camel(&field.name);
    doc(out, i, &format!("Values of `{}`.", field.name));
    *out += &format!("{i}#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]\n{i}pub enum {ty} {{\n");
    for value in &field.enum_values {
        doc(out, &format!("{i}    "), &value.description);
        *out += &format!("{i}    {} = {},\n", camel(&value.name), value.value);
    }
    *out += &format!("{i}}}\n\n{i}impl {ty} {{\n");
    *out += &format!(
        "{i}    /// The field value.\n{i}    pub const fn bits(self) -> u32 {{\n{i}        self as u32\n{i}    }}\n\n"
    );
    *out += &format!("{i}    /// The named value of `bits`; `None` for a value with no name.\n");
    *out += &format!("{i}    pub const fn from_bits(bits: u32) -> Option<Self> {{\n{i}        match bits {{\n");
    for value in &field.enum_values {
        *out += &format!("{i}            {} => Some(Self::{}),\n", value.value, camel(&value.name));
    }
    *out += &format!("{i}            _ => None,\n{i}        }}\n{i}    }}\n\n");
    *out += &format!("{i}    /// The value's name in the register map.\n");
    *out += &format!("{i}    pub const fn name(self) -> &'static str {{\n{i}        match self {{\n");
    for value in &field.enum_values {
        *out += &format!("{i}            Self::{} => {:?},\n", camel(&value.name), value.name);
    }
    *out += &format!("{i}        }}\n{i}    }}\n{i}}}\n");
}

fn register_module(out: &mut String, block: &Block, reg: &Register) {
    let i = "        ";
    doc(out, i, &format!("Offset and fields of `{}`: {}", reg.name, reg.description));
    *out += &format!("{i}pub mod {} {{\n", reg.name);
    *out += &format!(
        "{i}    /// Offset from the block instance's base.\n{i}    pub const OFFSET: u32 = {};\n",
        hex(u64::from(reg.offset), 3)
    );
    if reg.reset_is_uniform() {
        *out += &format!(
            "{i}    /// Value after reset.\n{i}    pub const RESET: u32 = {};\n",
            hex(u64::from(reg.reset_for(0)), 8)
        );
    } else {
        let values: Vec<String> = (0..block.instances()).map(|s| hex(u64::from(reg.reset_for(s)), 8)).collect();
        *out += &format!(
            "{i}    /// Value after reset, per instance.\n{i}    pub const RESETS: [u32; {}] = [{}];\n",
            block.instances(),
            values.join(", ")
        );
    }
    for field in &reg.fields {
        field_items(out, block, reg, field);
    }
    *out += &format!("{i}}}\n");
}

fn wide_literal(block: &Block, wide: &crate::Wide, lo: &str, hi: &str) -> String {
    format!(
        "Wide {{ id: \"{}\", lo: {lo}, hi: {hi}, width: {} }}",
        crate::register_id(&block.name, &wide.name),
        wide.width
    )
}

fn block_module(out: &mut String, block: &Block) {
    let mut regs: Vec<&Register> = block.registers.iter().collect();
    regs.sort_by_key(|r| r.offset);
    doc(out, "    ", &format!("Block `{}`: {}", block.name, block.description));
    *out += &format!("    pub mod {} {{\n", block.name);
    *out += &format!(
        "        /// Base address of instance 0.\n        pub const BASE: u32 = {};\n",
        hex(u64::from(block.base), 3)
    );
    *out += &format!(
        "        /// Bytes reserved per instance.\n        pub const SIZE: u32 = {};\n",
        hex(u64::from(block.size), 3)
    );
    if let Some(repeat) = block.repeat {
        *out += &format!(
            "        /// Bytes between instances.\n        pub const STRIDE: u32 = {};\n",
            hex(u64::from(repeat.stride), 3)
        );
        *out += &format!("        /// Number of instances.\n        pub const COUNT: usize = {};\n", repeat.count);
    } else {
        for reg in &regs {
            doc(out, "        ", &format!("`{}` ({}): {}", reg.name, reg.access_summary(), reg.description));
            let lit = register_literal(block, reg, "BASE", &format!("{}::RESET", reg.name), "0", "        ", "");
            *out += &format!("        pub const {}: super::Register = super::{lit};\n", up(&reg.name));
        }
        for wide in &block.wides {
            doc(
                out,
                "        ",
                &format!(
                    "`{}` ({} bits): {} Read `lo` first: it latches `hi`.",
                    wide.name, wide.width, wide.description
                ),
            );
            *out += &format!(
                "        pub const {}: super::Wide = super::{};\n",
                up(&wide.name),
                wide_literal(block, wide, &up(&wide.lo), &up(&wide.hi))
            );
        }
    }
    for reg in &regs {
        out.push('\n');
        register_module(out, block, reg);
    }
    *out += "    }\n";
    if block.repeat.is_none() {
        return;
    }
    let ty = camel(&block.name);
    let b = &block.name;
    out.push('\n');
    doc(out, "    ", &format!("One instance of block `{b}`; get it from [`{b}`] or `{ty}::ALL`."));
    *out += &format!("    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]\n    pub struct {ty} {{\n        index: usize,\n    }}\n\n");
    doc(out, "    ", &format!("Instance `index` of block `{b}`; `None` when the design has no such instance."));
    *out += &format!("    pub const fn {b}(index: usize) -> Option<{ty}> {{\n        if index < {b}::COUNT {{\n            Some({ty} {{ index }})\n        }} else {{\n            None\n        }}\n    }}\n\n");
    *out += &format!(
        "    impl {ty} {{\n        /// Every instance, in index order.\n        pub const ALL: [{ty}; {b}::COUNT] = ["
    );
    let all: Vec<String> = (0..block.instances()).map(|s| format!("{ty} {{ index: {s} }}")).collect();
    *out += &all.join(", ");
    *out += "];\n\n";
    *out += "        /// The instance number.\n        pub const fn index(self) -> usize {\n            self.index\n        }\n\n";
    *out += &format!("        /// Base address of this instance.\n        pub const fn base(self) -> u32 {{\n            {b}::BASE + self.index as u32 * {b}::STRIDE\n        }}\n");
    for reg in &regs {
        let reset = if reg.reset_is_uniform() {
            format!("{b}::{}::RESET", reg.name)
        } else {
            format!("{b}::{}::RESETS[self.index]", reg.name)
        };
        out.push('\n');
        doc(out, "        ", &format!("`{}` ({}): {}", reg.name, reg.access_summary(), reg.description));
        let lit = register_literal(block, reg, "self.base()", &reset, "self.index", "            ", &format!("{b}::"));
        *out += &format!("        pub const fn {}(self) -> Register {{\n            {lit}\n        }}\n", reg.name);
    }
    for wide in &block.wides {
        out.push('\n');
        doc(
            out,
            "        ",
            &format!("`{}` ({} bits): {} Read `lo` first: it latches `hi`.", wide.name, wide.width, wide.description),
        );
        let lit = wide_literal(block, wide, &format!("self.{}()", wide.lo), &format!("self.{}()", wide.hi));
        *out += &format!("        pub const fn {}(self) -> Wide {{\n            {lit}\n        }}\n", wide.name);
    }
    *out += "    }\n";
}

/// Rust source defining `pub mod regs`, for `include!` (see the module docs).
/// Compiles without warnings on its own and when partly used.
pub fn rust_accessors(map: &RegisterMap, design: &Design) -> String {
    let [a, b] = design.banner();
    let mut out = format!("// {a}\n// {b}\n\n");
    doc(
        &mut out,
        "",
        &format!(
            "Typed register accessors of `{}`, register-map version {}.{}.\n\n\
             Every address comes from here. Registers are 32 bits; a value wider than 32 bits\n\
             is a `Wide` whose `lo` register latches `hi` when read: read `lo` first.",
            design.name,
            crate::VERSION_MAJOR,
            crate::VERSION_MINOR
        ),
    );
    out += "#[allow(dead_code)]\npub mod regs {\n";
    out += SUPPORT;
    out += &format!(
        "\n    /// Value of `info.id`: ASCII \"TOEU\".\n    pub const ID_MAGIC: u32 = {};\n",
        hex(u64::from(crate::ID_MAGIC), 8)
    );
    out +=
        &format!("    /// Register-map major version.\n    pub const VERSION_MAJOR: u32 = {};\n", crate::VERSION_MAJOR);
    out +=
        &format!("    /// Register-map minor version.\n    pub const VERSION_MINOR: u32 = {};\n", crate::VERSION_MINOR);
    out += &format!(
        "    /// Address bits the map spans: every register is below `1 << ADDRESS_BITS`. The register bus\n    /// decodes all 32 address bits: an address at or above that answers an error.\n    pub const ADDRESS_BITS: u32 = {};\n",
        map.address_bits()
    );
    for block in &map.blocks {
        out.push('\n');
        block_module(&mut out, block);
    }
    let all = map.instances();
    out += &format!(
        "\n    /// Every register instance, in address order.\n    pub const ALL: [Register; {}] = [\n",
        all.len()
    );
    for loc in all {
        let b = &loc.block.name;
        let item = if loc.block.repeat.is_some() {
            format!("{} {{ index: {} }}.{}()", camel(b), loc.instance, loc.register.name)
        } else {
            format!("{b}::{}", up(&loc.register.name))
        };
        out += &format!("        {item},\n");
    }
    out += "    ];\n}\n";
    out
}
