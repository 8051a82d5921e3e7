//! The rules a register map keeps. Checks run in a fixed order (names, blocks,
//! registers, fields, wide values, generated names) and the first broken rule
//! is reported, so one mistake gives one message.

use std::collections::{BTreeMap, BTreeSet};

use crate::render::{c, csv, rust};
use crate::{field_id, register_id, Access, Block, Field, RegisterMap, RegmapError, Reset};

/// Words a name must not be, because it becomes a Rust or C identifier.
const KEYWORDS: &[&str] = &[
    // Rust (strict and reserved)
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate", "do", "dyn", "else",
    "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "macro", "match", "mod",
    "move", "mut", "override", "priv", "pub", "ref", "return", "self", "static", "struct", "super", "trait", "true",
    "try", "type", "typeof", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
    // C11 not already listed
    "auto", "case", "char", "default", "double", "float", "goto", "inline", "int", "long", "register", "restrict",
    "short", "signed", "sizeof", "switch", "typedef", "union", "unsigned", "void", "volatile",
];

fn check_name(what: &'static str, name: &str) -> Result<(), RegmapError> {
    let invalid = |reason| Err(RegmapError::InvalidName { what, name: name.to_string(), reason });
    let mut chars = name.chars();
    let starts_ok = matches!(chars.next(), Some(c) if c.is_ascii_lowercase());
    if !starts_ok || !chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_') {
        return invalid("use lower-case letters, digits and `_`, starting with a letter");
    }
    if name.ends_with('_') || name.contains("__") {
        return invalid("`_` must separate words (no trailing or doubled `_`)");
    }
    if KEYWORDS.contains(&name) {
        return invalid("it is a Rust or C keyword");
    }
    Ok(())
}

impl RegisterMap {
    /// Checks every rule; [`RegisterMap::for_design`] calls it on the built-in
    /// map. The error names the offending block, register or field.
    pub fn validate(&self) -> Result<(), RegmapError> {
        self.check_names()?;
        self.check_blocks()?;
        for block in &self.blocks {
            check_registers(block)?;
            for reg in &block.registers {
                for field in &reg.fields {
                    check_field(block, &field_id(&block.name, &reg.name, &field.name), field)?;
                }
                check_field_overlap(&block.name, reg)?;
                check_claim(&block.name, reg)?;
            }
            check_wides(block)?;
            check_bank(block)?;
        }
        check_collisions(c::generated_names(self))?;
        check_collisions(rust::generated_names(self))?;
        check_collisions(csv::generated_names(self))?;
        Ok(())
    }

    fn check_names(&self) -> Result<(), RegmapError> {
        let mut blocks = BTreeSet::new();
        let mut registers: BTreeMap<&str, String> = BTreeMap::new();
        for block in &self.blocks {
            check_name("block", &block.name)?;
            if !blocks.insert(block.name.as_str()) {
                return Err(RegmapError::DuplicateBlock { name: block.name.clone() });
            }
            for reg in &block.registers {
                check_name("register", &reg.name)?;
                let id = register_id(&block.name, &reg.name);
                if let Some(first) = registers.insert(&reg.name, id.clone()) {
                    return Err(RegmapError::DuplicateRegister { name: reg.name.clone(), first, second: id });
                }
                let mut fields = BTreeSet::new();
                for field in &reg.fields {
                    check_name("field", &field.name)?;
                    if !fields.insert(field.name.as_str()) {
                        return Err(RegmapError::DuplicateField { register: id.clone(), field: field.name.clone() });
                    }
                    let mut values = BTreeSet::new();
                    for value in &field.enum_values {
                        check_name("enum value", &value.name)?;
                        if !values.insert(value.name.as_str()) {
                            return Err(RegmapError::DuplicateEnumValue {
                                field: field_id(&block.name, &reg.name, &field.name),
                                name: value.name.clone(),
                            });
                        }
                    }
                }
            }
            let mut wides = BTreeSet::new();
            for wide in &block.wides {
                check_name("wide value", &wide.name)?;
                if !wides.insert(wide.name.as_str()) {
                    return Err(RegmapError::DuplicateWide { block: block.name.clone(), name: wide.name.clone() });
                }
            }
        }
        Ok(())
    }

    fn check_blocks(&self) -> Result<(), RegmapError> {
        // (start, end, block name) of every instance, in bytes.
        let mut spans: Vec<(u64, u64, &str)> = Vec::new();
        for block in &self.blocks {
            let misaligned = |what, value| Err(RegmapError::BlockMisaligned { block: block.name.clone(), what, value });
            if block.base % 4 != 0 {
                return misaligned("base", block.base);
            }
            if block.size == 0 || block.size % 4 != 0 {
                return misaligned("size", block.size);
            }
            if let Some(repeat) = block.repeat {
                if repeat.count == 0 {
                    return Err(RegmapError::NoInstances { block: block.name.clone() });
                }
                if repeat.stride % 4 != 0 {
                    return misaligned("stride", repeat.stride);
                }
                if repeat.stride < block.size {
                    return Err(RegmapError::StrideTooSmall {
                        block: block.name.clone(),
                        stride: repeat.stride,
                        size: block.size,
                    });
                }
            }
            for instance in 0..block.instances() {
                let start = u64::from(block.base) + instance as u64 * u64::from(block.stride());
                let end = start + u64::from(block.size);
                if end > 1u64 << 32 {
                    return Err(RegmapError::BlockPastAddressSpace { block: block.name.clone() });
                }
                spans.push((start, end, &block.name));
            }
        }
        spans.sort();
        for pair in spans.windows(2) {
            let ((_, first_end, first), (second_start, _, second)) = (pair[0], pair[1]);
            if second_start < first_end {
                return Err(RegmapError::BlockOverlap {
                    first: first.to_string(),
                    second: second.to_string(),
                    addr: second_start as u32,
                });
            }
        }
        Ok(())
    }
}

fn check_registers(block: &Block) -> Result<(), RegmapError> {
    let mut at: BTreeMap<u32, String> = BTreeMap::new();
    for reg in &block.registers {
        let id = register_id(&block.name, &reg.name);
        if reg.offset % 4 != 0 {
            return Err(RegmapError::Misaligned { register: id, offset: reg.offset });
        }
        if u64::from(reg.offset) + 4 > u64::from(block.size) {
            return Err(RegmapError::RegisterOutsideBlock { register: id, offset: reg.offset, size: block.size });
        }
        if let Some(first) = at.insert(reg.offset, id.clone()) {
            return Err(RegmapError::RegisterOverlap { first, second: id, offset: reg.offset });
        }
        if reg.fields.is_empty() {
            return Err(RegmapError::NoFields { register: id });
        }
    }
    Ok(())
}

fn check_field(block: &Block, id: &str, field: &Field) -> Result<(), RegmapError> {
    let id = id.to_string();
    if field.width == 0 {
        return Err(RegmapError::EmptyField { field: id });
    }
    if u64::from(field.lsb) + u64::from(field.width) > 32 {
        return Err(RegmapError::FieldPastBit31 { field: id, lsb: field.lsb, width: field.width });
    }
    if let Reset::PerInstance(values) = &field.reset {
        if values.len() != block.instances() {
            return Err(RegmapError::ResetCount { field: id, values: values.len(), instances: block.instances() });
        }
    }
    let max = field.max_value();
    for reset in field.reset.values() {
        if u64::from(reset) > max {
            return Err(RegmapError::ResetTooWide { field: id, reset, width: field.width });
        }
    }
    let mut numbers = BTreeSet::new();
    for value in &field.enum_values {
        if u64::from(value.value) > max {
            return Err(RegmapError::EnumValueOutOfRange {
                field: id,
                name: value.name.clone(),
                value: value.value,
                width: field.width,
            });
        }
        if !numbers.insert(value.value) {
            return Err(RegmapError::DuplicateEnumNumber { field: id, value: value.value });
        }
    }
    // A command or write-only field has no value to reset to; the others must
    // reset to a named value.
    if !field.enum_values.is_empty() && field.access != Access::WPulse {
        for reset in field.reset.values() {
            if !numbers.contains(&reset) {
                return Err(RegmapError::ResetNotInEnum { field: id, reset });
            }
        }
    }
    if field.range.is_none() {
        if let Some((min, max_code)) = field.write_range() {
            if let Some(missing) = (min..=max_code).find(|v| !numbers.contains(v)) {
                return Err(RegmapError::CodeGap { field: id, missing });
            }
        }
    }
    if let Some((min, max_valid)) = field.range {
        if min > max_valid || u64::from(max_valid) > max {
            return Err(RegmapError::InvalidRange { field: id, min, max: max_valid, width: field.width });
        }
        for reset in field.reset.values() {
            if !(min..=max_valid).contains(&reset) {
                return Err(RegmapError::ResetOutOfRange { field: id, reset, min, max: max_valid });
            }
        }
    }
    Ok(())
}

fn check_field_overlap(block: &str, reg: &crate::Register) -> Result<(), RegmapError> {
    for (i, a) in reg.fields.iter().enumerate() {
        for b in &reg.fields[i + 1..] {
            let common = a.mask() & b.mask();
            if common != 0 {
                return Err(RegmapError::FieldOverlap {
                    first: field_id(block, &reg.name, &a.name),
                    second: field_id(block, &reg.name, &b.name),
                    bit: common.trailing_zeros(),
                });
            }
        }
    }
    Ok(())
}

/// A claim is the only field of its register and resets free (0): the
/// register file decides a write to the word as a whole (taken, freed or
/// ignored), so another field beside it would share its fate.
fn check_claim(block: &str, reg: &crate::Register) -> Result<(), RegmapError> {
    for f in reg.fields.iter().filter(|f| f.access == Access::Claim) {
        let problem = if reg.fields.len() > 1 {
            "must be the only field of its register"
        } else if f.reset.values().iter().any(|&v| v != 0) {
            "must reset to 0 (free)"
        } else {
            continue;
        };
        return Err(RegmapError::ClaimRegister { field: field_id(block, &reg.name, &f.name), problem });
    }
    Ok(())
}

/// A bank's registers are plain 32-bit words, so that the value is their
/// concatenation in address order and nothing else.
fn check_bank(block: &Block) -> Result<(), RegmapError> {
    if block.bank.is_none() {
        return Ok(());
    }
    let problem = |problem: String| Err(RegmapError::BankRegister { block: block.name.clone(), problem });
    if !block.wides.is_empty() {
        return problem("a bank has no wide values".to_string());
    }
    if block.registers.is_empty() {
        return problem("a bank has at least one register".to_string());
    }
    for (k, reg) in block.registers.iter().enumerate() {
        if reg.offset != 4 * k as u32 {
            return problem(format!("register `{}` must be at offset 0x{:03X}, word {k} of the bank", reg.name, 4 * k));
        }
        if reg.fields.len() != 1 || reg.fields[0].lsb != 0 || reg.fields[0].width != 32 {
            return problem(format!("register `{}` must hold exactly one field of 32 bits at bit 0", reg.name));
        }
    }
    Ok(())
}

fn check_wides(block: &Block) -> Result<(), RegmapError> {
    for wide in &block.wides {
        let problem =
            |problem: String| Err(RegmapError::WideRegister { wide: register_id(&block.name, &wide.name), problem });
        if !(33..=64).contains(&wide.width) {
            return problem(format!(
                "width {} is not in 33..=64 (a value of 32 bits or less fits one register)",
                wide.width
            ));
        }
        let Some(lo) = block.register(&wide.lo) else {
            return problem(format!("low register `{}` is not in block `{}`", wide.lo, block.name));
        };
        let Some(hi) = block.register(&wide.hi) else {
            return problem(format!("high register `{}` is not in block `{}`", wide.hi, block.name));
        };
        if u64::from(hi.offset) != u64::from(lo.offset) + 4 {
            return problem(format!("high register `{}` must be at the low register's offset + 4", wide.hi));
        }
        let single = |reg: &crate::Register, width: u32| {
            reg.fields.len() == 1 && reg.fields[0].lsb == 0 && reg.fields[0].width == width
        };
        if !single(lo, 32) {
            return problem(format!("low register `{}` must hold exactly one field of 32 bits at bit 0", wide.lo));
        }
        if !single(hi, wide.width - 32) {
            return problem(format!(
                "high register `{}` must hold exactly one field of {} bits at bit 0",
                wide.hi,
                wide.width - 32
            ));
        }
        if lo.fields[0].access != hi.fields[0].access || lo.fields[0].volatile != hi.fields[0].volatile {
            return problem("both halves must have the same access and volatility".to_string());
        }
        let others = block.wides.iter().filter(|w| w.name != wide.name);
        if let Some(other) = others.clone().find(|w| [&w.lo, &w.hi].iter().any(|r| **r == wide.lo || **r == wide.hi)) {
            return problem(format!("shares a register with wide value `{}`", other.name));
        }
    }
    Ok(())
}

fn check_collisions(names: Vec<(String, String)>) -> Result<(), RegmapError> {
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    for (name, origin) in names {
        if let Some(first) = seen.get(&name) {
            return Err(RegmapError::NameCollision { name, first: first.clone(), second: origin });
        }
        seen.insert(name, origin);
    }
    Ok(())
}
