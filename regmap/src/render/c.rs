//! The C header and the C file of `_Static_assert`s that checks it.
//!
//! Names: `<NAME>_<REG>_OFFSET` for a register of a block that does not
//! repeat (its bus address, block base included), `<NAME>_<BLOCK>_<REG>_OFFSET` for one of a
//! repeated block (an offset from the instance base; `<NAME>_<BLOCK>_ADDR(s,
//! offset)` gives the address in instance s). Per field `_MASK` (in place),
//! `_SHIFT`, `_WIDTH`, `_RESET` (the field value), `_ACCESS`, `_VOLATILE`,
//! `_MIN`/`_MAX` for a restricted range, and one constant per enum value. A
//! reset that differs per instance is `_RESET_S<s>`. No bitfield unions: their
//! layout is implementation-defined.

use config::Design;

use super::hex;
use crate::{Access, Block, Field, Register, RegisterMap, Reset};

enum Value {
    /// Unsigned, hex with this many digits.
    Hex(u64, usize),
    /// Unsigned, decimal.
    Dec(u64),
    /// Another macro of this header (name without the prefix).
    Ref(String),
}

enum Item {
    Blank,
    Comment(String),
    Define {
        name: String,
        value: Value,
        origin: String,
    },
    /// `<BLOCK>_ADDR(s, offset)` of a repeated block (its stem).
    AddrMacro {
        stem: String,
        origin: String,
    },
}

fn access_name(access: Access) -> String {
    format!("ACCESS_{}", access.as_str().to_ascii_uppercase())
}

fn up(name: &str) -> String {
    name.to_ascii_uppercase()
}

/// Stem of a register's names: `REG`, or `BLOCK_REG` in a repeated block.
fn reg_stem(block: &Block, name: &str) -> String {
    if block.repeat.is_some() {
        format!("{}_{}", up(&block.name), up(name))
    } else {
        up(name)
    }
}

/// What `_OFFSET` holds: the address for a block that does not repeat, the
/// offset from the instance base for a repeated one.
fn header_offset(block: &Block, reg: &Register) -> u32 {
    if block.repeat.is_some() {
        reg.offset
    } else {
        block.base.wrapping_add(reg.offset)
    }
}

fn define(items: &mut Vec<Item>, name: String, value: Value, origin: &str) {
    items.push(Item::Define { name, value, origin: origin.to_string() });
}

/// Defines a reset: `<stem>_RESET`, or `<stem>_RESET_S<s>` per instance.
fn resets(
    items: &mut Vec<Item>,
    block: &Block,
    stem: &str,
    origin: &str,
    uniform: bool,
    value: impl Fn(usize) -> u64,
    digits: usize,
) {
    if uniform {
        define(items, format!("{stem}_RESET"), Value::Hex(value(0), digits), origin);
    } else {
        for s in 0..block.instances() {
            define(items, format!("{stem}_RESET_S{s}"), Value::Hex(value(s), digits), origin);
        }
    }
}

fn field_items(items: &mut Vec<Item>, block: &Block, reg: &Register, field: &Field) {
    let stem = format!("{}_{}", reg_stem(block, &reg.name), up(&field.name));
    let origin = format!("field `{}`", crate::field_id(&block.name, &reg.name, &field.name));
    define(items, format!("{stem}_MASK"), Value::Hex(u64::from(field.mask()), 8), &origin);
    define(items, format!("{stem}_SHIFT"), Value::Dec(u64::from(field.lsb)), &origin);
    define(items, format!("{stem}_WIDTH"), Value::Dec(u64::from(field.width)), &origin);
    let digits = (field.width as usize).div_ceil(4).max(1);
    let uniform = matches!(field.reset, Reset::Fixed(_));
    resets(items, block, &stem, &origin, uniform, |s| u64::from(field.reset.for_instance(s)), digits);
    define(items, format!("{stem}_ACCESS"), Value::Ref(access_name(field.access)), &origin);
    define(items, format!("{stem}_VOLATILE"), Value::Dec(u64::from(field.volatile)), &origin);
    if let Some((min, max)) = field.range {
        define(items, format!("{stem}_MIN"), Value::Dec(u64::from(min)), &origin);
        define(items, format!("{stem}_MAX"), Value::Dec(u64::from(max)), &origin);
    }
    for value in &field.enum_values {
        define(
            items,
            format!("{stem}_{}", up(&value.name)),
            Value::Dec(u64::from(value.value)),
            &format!("enum value `{}` of {origin}", value.name),
        );
    }
}

fn items(map: &RegisterMap) -> Vec<Item> {
    let mut items = Vec::new();
    items.push(Item::Comment("Access types of the `_ACCESS` constants.".to_string()));
    for access in Access::ALL {
        define(&mut items, access_name(access), Value::Dec(access as u64), &format!("access type `{access}`"));
    }
    items.push(Item::Blank);
    define(
        &mut items,
        "ADDRESS_BITS".to_string(),
        Value::Dec(u64::from(map.address_bits())),
        "the map's address span; the bus decodes all 32 bits",
    );
    for block in &map.blocks {
        let b = up(&block.name);
        let origin = format!("block `{}`", block.name);
        items.push(Item::Blank);
        items.push(Item::Comment(format!("Block `{}`: {}", block.name, block.description)));
        define(&mut items, format!("{b}_BASE"), Value::Hex(u64::from(block.base), 3), &origin);
        define(&mut items, format!("{b}_SIZE"), Value::Hex(u64::from(block.size), 3), &origin);
        if let Some(repeat) = block.repeat {
            define(&mut items, format!("{b}_STRIDE"), Value::Hex(u64::from(repeat.stride), 3), &origin);
            define(&mut items, format!("{b}_COUNT"), Value::Dec(repeat.count as u64), &origin);
            items.push(Item::AddrMacro { stem: b.clone(), origin: origin.clone() });
        }
        for reg in &block.registers {
            let stem = reg_stem(block, &reg.name);
            let origin = format!("register `{}`", crate::register_id(&block.name, &reg.name));
            items.push(Item::Blank);
            let place = if block.repeat.is_some() { "offset in the instance" } else { "address" };
            items.push(Item::Comment(format!(
                "{} ({}, {place} {}): {}",
                reg.name,
                reg.access_summary(),
                hex(u64::from(header_offset(block, reg)), 3),
                reg.description
            )));
            define(&mut items, format!("{stem}_OFFSET"), Value::Hex(u64::from(header_offset(block, reg)), 3), &origin);
            resets(&mut items, block, &stem, &origin, reg.reset_is_uniform(), |s| u64::from(reg.reset_for(s)), 8);
            for field in &reg.fields {
                field_items(&mut items, block, reg, field);
            }
        }
        for wide in &block.wides {
            let stem = reg_stem(block, &wide.name);
            let origin = format!("wide value `{}`", crate::register_id(&block.name, &wide.name));
            items.push(Item::Blank);
            items.push(Item::Comment(format!(
                "{} ({} bits): `{}` holds bits 31:0 and latches `{}` when read; read `_LO` first. {}",
                wide.name, wide.width, wide.lo, wide.hi, wide.description
            )));
            define(&mut items, format!("{stem}_WIDTH"), Value::Dec(u64::from(wide.width)), &origin);
            let (lo, hi) = (block.register(&wide.lo), block.register(&wide.hi));
            let value = |s: usize| {
                let half = |r: Option<&Register>| u64::from(r.map_or(0, |r| r.reset_for(s)));
                half(hi) << 32 | half(lo)
            };
            let uniform = lo.map_or(true, |r| r.reset_is_uniform()) && hi.map_or(true, |r| r.reset_is_uniform());
            resets(&mut items, block, &stem, &origin, uniform, value, 16);
        }
    }
    items
}

/// Every name the header defines (without the `<NAME>_` prefix) and what
/// produces it, for the collision check.
pub(crate) fn generated_names(map: &RegisterMap) -> Vec<(String, String)> {
    items(map)
        .into_iter()
        .filter_map(|item| match item {
            Item::Define { name, origin, .. } => Some((name, origin)),
            Item::AddrMacro { stem, origin } => Some((format!("{stem}_ADDR"), origin)),
            _ => None,
        })
        .collect()
}

fn prefix(design: &Design) -> String {
    up(&design.name)
}

fn banner(design: &Design) -> String {
    let [a, b] = design.banner();
    format!("/* {a}\n * {b}\n */\n")
}

/// Comment text safe inside `/* */`.
fn comment_text(text: &str) -> String {
    text.replace("*/", "* /")
}

/// The C header: offsets, masks, shifts, widths, resets, access types, enum
/// values, block bases, stride and count. Include guard `<NAME>_H`.
pub fn c_header(map: &RegisterMap, design: &Design) -> String {
    let p = prefix(design);
    let mut out = banner(design);
    out += &format!("#ifndef {p}_H\n#define {p}_H\n\n");
    out += &format!(
        "/* Register map of `{}`, version {}.{}, on a 32-bit register bus (AXI4-Lite).\n",
        design.name,
        crate::VERSION_MAJOR,
        crate::VERSION_MINOR
    );
    out += " *\n";
    out += " * Registers are 32 bits, 4-byte aligned; bits no field covers read 0 and ignore writes.\n";
    out += " * Fields: value = (word & _MASK) >> _SHIFT; word = (word & ~_MASK) | ((value << _SHIFT) & _MASK).\n";
    out += " * A value wider than 32 bits spans _LO (bits 31:0) and _HI (at _LO + 4): reading _LO latches\n";
    out += " * _HI, so read _LO first, then _HI, for a coherent value. Writable wide values are taken by\n";
    out += " * the command that uses them (session start, TOE init): write both halves before it.\n";
    out +=
        &format!(" * Registers of a repeated block: address = {p}_<BLOCK>_ADDR(instance, {p}_<BLOCK>_<REG>_OFFSET).\n");
    out += " */\n\n";
    for item in items(map) {
        match item {
            Item::Blank => out.push('\n'),
            Item::Comment(text) => out += &format!("/* {} */\n", comment_text(&text)),
            Item::Define { name, value, .. } => {
                let value = match value {
                    Value::Hex(v, digits) if v > u64::from(u32::MAX) => format!("{}ull", hex(v, digits)),
                    Value::Hex(v, digits) => format!("{}u", hex(v, digits)),
                    Value::Dec(v) => format!("{v}u"),
                    Value::Ref(r) => format!("{p}_{r}"),
                };
                out += &format!("#define {p}_{name} {value}\n");
            }
            Item::AddrMacro { stem, .. } => {
                out += &format!("#define {p}_{stem}_ADDR(instance, offset) ({p}_{stem}_BASE + (instance) * {p}_{stem}_STRIDE + (offset))\n");
            }
        }
    }
    out += &format!("\n#endif /* {p}_H */\n");
    out
}

fn sa(out: &mut String, condition: String, message: String) {
    *out += &format!("_Static_assert({condition}, \"{message}\");\n");
}

fn field_asserts(out: &mut String, p: &str, block: &Block, reg: &Register, field: &Field) {
    let stem = format!("{p}_{}_{}", reg_stem(block, &reg.name), up(&field.name));
    let id = crate::field_id(&block.name, &reg.name, &field.name);
    sa(out, format!("{stem}_SHIFT == {}u && {stem}_WIDTH == {}u", field.lsb, field.width), format!("{id}: position"));
    sa(out, format!("{stem}_WIDTH >= 1u && {stem}_SHIFT + {stem}_WIDTH <= 32u"), format!("{id}: inside bits 31:0"));
    sa(
        out,
        format!("{stem}_MASK == ((0xFFFFFFFFu >> (32u - {stem}_WIDTH)) << {stem}_SHIFT)"),
        format!("{id}: mask matches shift and width"),
    );
    let resets: Vec<String> = match &field.reset {
        Reset::Fixed(_) => vec![format!("{stem}_RESET")],
        Reset::PerInstance(v) => (0..v.len()).map(|s| format!("{stem}_RESET_S{s}")).collect(),
    };
    for r in resets {
        sa(out, format!("({r} & ~({stem}_MASK >> {stem}_SHIFT)) == 0u"), format!("{id}: reset fits the field"));
    }
    if field.range.is_some() {
        sa(
            out,
            format!("{stem}_MIN <= {stem}_MAX && ({stem}_MAX & ~({stem}_MASK >> {stem}_SHIFT)) == 0u"),
            format!("{id}: range fits the field"),
        );
    }
    for value in &field.enum_values {
        let v = format!("{stem}_{}", up(&value.name));
        sa(
            out,
            format!("{v} == {}u && ({v} & ~({stem}_MASK >> {stem}_SHIFT)) == 0u", value.value),
            format!("{id}: value {} fits the field", value.name),
        );
    }
}

/// A C11 file of `_Static_assert`s over the header: frozen offsets, alignment,
/// registers inside their block and not overlapping, masks consistent with
/// shift and width, disjoint fields, resets and enum values that fit, register
/// resets composed of their field resets, wide halves adjacent, blocks apart.
/// Compiling it (`gcc -std=c11 -c`) is the check; it defines nothing.
pub fn c_static_asserts(map: &RegisterMap, design: &Design) -> String {
    let p = prefix(design);
    let mut out = banner(design);
    out += &format!(
        "/* Compile-time self-test of {}: compiling this file is the test. */\n",
        super::header_file_name(design)
    );
    out += &format!("#include \"{}\"\n", super::header_file_name(design));
    out += &format!(
        "#include \"{}\" /* the include guard makes a second inclusion harmless */\n",
        super::header_file_name(design)
    );
    let mut blocks: Vec<&Block> = map.blocks.iter().collect();
    blocks.sort_by_key(|b| b.base);
    out += "\n/* Blocks do not overlap. */\n";
    for block in &blocks {
        let b = format!("{p}_{}", up(&block.name));
        sa(
            &mut out,
            format!("{b}_BASE == {}u && {b}_SIZE == {}u", hex(u64::from(block.base), 3), hex(u64::from(block.size), 3)),
            format!("{}: base and size", block.name),
        );
        sa(&mut out, format!("{b}_BASE % 4u == 0u && {b}_SIZE % 4u == 0u"), format!("{}: aligned", block.name));
        if let Some(repeat) = block.repeat {
            sa(
                &mut out,
                format!("{b}_STRIDE == {}u && {b}_COUNT == {}u", hex(u64::from(repeat.stride), 3), repeat.count),
                format!("{}: stride and count", block.name),
            );
            sa(&mut out, format!("{b}_STRIDE >= {b}_SIZE"), format!("{}: instances do not overlap", block.name));
            sa(&mut out, format!("{b}_ADDR(1, 0u) == {b}_BASE + {b}_STRIDE"), format!("{}: address macro", block.name));
        }
    }
    let end = |block: &Block| {
        let b = format!("{p}_{}", up(&block.name));
        match block.repeat {
            Some(_) => format!("{b}_BASE + ({b}_COUNT - 1u) * {b}_STRIDE + {b}_SIZE"),
            None => format!("{b}_BASE + {b}_SIZE"),
        }
    };
    for pair in blocks.windows(2) {
        let next = format!("{p}_{}_BASE", up(&pair[1].name));
        sa(&mut out, format!("{} <= {next}", end(pair[0])), format!("{} ends before {}", pair[0].name, pair[1].name));
    }
    if let Some(last) = blocks.last() {
        sa(
            &mut out,
            format!("{} <= (1ull << {p}_ADDRESS_BITS)", end(last)),
            "address bits cover every block".to_string(),
        );
    }
    for block in &map.blocks {
        out += &format!("\n/* Block `{}`. */\n", block.name);
        let b = format!("{p}_{}", up(&block.name));
        let mut regs: Vec<&Register> = block.registers.iter().collect();
        regs.sort_by_key(|r| r.offset);
        for reg in &regs {
            let stem = format!("{p}_{}", reg_stem(block, &reg.name));
            let id = crate::register_id(&block.name, &reg.name);
            sa(
                &mut out,
                format!("{stem}_OFFSET == {}u", hex(u64::from(header_offset(block, reg)), 3)),
                format!("{id}: offset"),
            );
            let rel =
                if block.repeat.is_some() { format!("{stem}_OFFSET") } else { format!("({stem}_OFFSET - {b}_BASE)") };
            sa(
                &mut out,
                format!("{rel} % 4u == 0u && {rel} + 4u <= {b}_SIZE"),
                format!("{id}: aligned, inside the block"),
            );
            for field in &reg.fields {
                field_asserts(&mut out, &p, block, reg, field);
            }
            for (i, a) in reg.fields.iter().enumerate() {
                for f in &reg.fields[i + 1..] {
                    let (ma, mf) = (format!("{stem}_{}_MASK", up(&a.name)), format!("{stem}_{}_MASK", up(&f.name)));
                    sa(
                        &mut out,
                        format!("({ma} & {mf}) == 0u"),
                        format!("{id}: {} and {} do not overlap", a.name, f.name),
                    );
                }
            }
            let instances: Vec<(String, String)> = if reg.reset_is_uniform() {
                vec![(format!("{stem}_RESET"), "RESET".to_string())]
            } else {
                (0..block.instances()).map(|s| (format!("{stem}_RESET_S{s}"), format!("RESET_S{s}"))).collect()
            };
            for (reg_reset, suffix) in instances {
                let composed: Vec<String> = reg
                    .fields
                    .iter()
                    .map(|f| {
                        let fs = format!("{stem}_{}", up(&f.name));
                        let fr = if matches!(f.reset, Reset::Fixed(_)) {
                            format!("{fs}_RESET")
                        } else {
                            format!("{fs}_{suffix}")
                        };
                        format!("({fr} << {fs}_SHIFT)")
                    })
                    .collect();
                sa(
                    &mut out,
                    format!("{reg_reset} == ({})", composed.join(" | ")),
                    format!("{id}: reset composed of its fields"),
                );
            }
        }
        for pair in regs.windows(2) {
            let (a, n) = (
                format!("{p}_{}_OFFSET", reg_stem(block, &pair[0].name)),
                format!("{p}_{}_OFFSET", reg_stem(block, &pair[1].name)),
            );
            sa(
                &mut out,
                format!("{a} + 4u <= {n}"),
                format!("{}: {} and {} do not overlap", block.name, pair[0].name, pair[1].name),
            );
        }
        for wide in &block.wides {
            let (lo, hi, w) = (
                format!("{p}_{}", reg_stem(block, &wide.lo)),
                format!("{p}_{}", reg_stem(block, &wide.hi)),
                format!("{p}_{}", reg_stem(block, &wide.name)),
            );
            let id = crate::register_id(&block.name, &wide.name);
            sa(&mut out, format!("{hi}_OFFSET == {lo}_OFFSET + 4u"), format!("{id}: high half follows the low half"));
            let field_of =
                |name: &str| block.register(name).and_then(|r| r.fields.first()).map_or(String::new(), |f| up(&f.name));
            let (lo_field, hi_field) = (field_of(&wide.lo), field_of(&wide.hi));
            sa(
                &mut out,
                format!("{w}_WIDTH == 32u + {hi}_{hi_field}_WIDTH && {lo}_{lo_field}_WIDTH == 32u"),
                format!("{id}: halves cover the width"),
            );
            if lo_hi_uniform(block, wide) {
                sa(
                    &mut out,
                    format!("{w}_RESET == (((unsigned long long){hi}_RESET << 32) | {lo}_RESET)"),
                    format!("{id}: reset matches the halves"),
                );
            }
        }
    }
    out
}

fn lo_hi_uniform(block: &Block, wide: &crate::Wide) -> bool {
    [&wide.lo, &wide.hi].iter().all(|r| block.register(r).is_some_and(|r| r.reset_is_uniform()))
}
