//! REGISTERS.md: conventions, the address map, then per block a register
//! table (offset, name, access, reset, description) and the fields of each
//! register.

use config::Design;

use super::{bits, field_notes, hex};
use crate::{Access, Block, Field, Register, RegisterMap, Reset};

/// Table-cell text: no line breaks, `|` escaped.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

fn reset_cell(block: &Block, uniform: bool, value: impl Fn(usize) -> u64, digits: usize) -> String {
    if uniform {
        hex(value(0), digits)
    } else {
        let per: Vec<String> = (0..block.instances()).map(|s| format!("s{s}: {}", hex(value(s), digits))).collect();
        per.join(", ")
    }
}

/// The address for a block that does not repeat, the offset from the
/// instance base for a repeated one.
fn offset_text(block: &Block, reg: &Register) -> String {
    let offset = if block.repeat.is_some() { reg.offset } else { block.base.wrapping_add(reg.offset) };
    hex(u64::from(offset), 3)
}

fn field_description(block: &Block, reg: &Register, field: &Field) -> String {
    let mut text = field.description.clone();
    for note in field_notes(block, reg, field) {
        text.push(' ');
        text += &note;
    }
    if !field.enum_values.is_empty() {
        let values: Vec<String> =
            field.enum_values.iter().map(|v| format!("{} `{}`: {}", v.value, v.name, v.description)).collect();
        text += &format!(" Values: {}", values.join(" "));
    }
    cell(&text)
}

fn block_section(out: &mut String, block: &Block) {
    *out += &format!("\n## Block `{}`\n\n{}\n\n", block.name, block.description);
    match block.repeat {
        Some(r) => {
            *out += &format!(
                "{} instances; instance s starts at {} + s × {}. Offsets below are from the instance base.\n\n",
                r.count,
                hex(u64::from(block.base), 3),
                hex(u64::from(r.stride), 3)
            )
        }
        None => {
            *out += &format!(
                "Base {}; the offsets below are bus addresses (base included).\n\n",
                hex(u64::from(block.base), 3)
            )
        }
    }
    *out += "| Offset | Name | Access | Reset | Description |\n|---|---|---|---|---|\n";
    let mut regs: Vec<&Register> = block.registers.iter().collect();
    regs.sort_by_key(|r| r.offset);
    for reg in &regs {
        let reset = reset_cell(block, reg.reset_is_uniform(), |s| u64::from(reg.reset_for(s)), 8);
        *out += &format!(
            "| {} | `{}` | {} | {} | {} |\n",
            offset_text(block, reg),
            reg.name,
            reg.access_summary(),
            reset,
            cell(&reg.description)
        );
    }
    if !block.wides.is_empty() {
        *out += "\nValues wider than 32 bits (read `_lo` first: it latches `_hi`):\n\n";
        *out += "| Value | Bits | Low half | High half | Description |\n|---|---|---|---|---|\n";
        for wide in &block.wides {
            let (lo, hi) = (block.register(&wide.lo), block.register(&wide.hi));
            let offset = |r: Option<&Register>| r.map_or(String::new(), |r| offset_text(block, r));
            *out += &format!(
                "| `{}` | {} | `{}` ({}) | `{}` ({}) | {} |\n",
                wide.name,
                wide.width,
                wide.lo,
                offset(lo),
                wide.hi,
                offset(hi),
                cell(&wide.description)
            );
        }
    }
    *out += &format!("\n### Fields of block `{}`\n", block.name);
    for reg in &regs {
        *out += &format!("\n#### `{}` ({})\n\n", reg.name, offset_text(block, reg));
        *out += "| Bits | Field | Access | Reset | Description |\n|---|---|---|---|---|\n";
        let mut fields: Vec<&Field> = reg.fields.iter().collect();
        fields.sort_by_key(|f| std::cmp::Reverse(f.lsb));
        for field in fields {
            let digits = (field.width as usize).div_ceil(4).max(1);
            let reset = reset_cell(
                block,
                matches!(field.reset, Reset::Fixed(_)),
                |s| u64::from(field.reset.for_instance(s)),
                digits,
            );
            *out += &format!(
                "| {} | `{}` | {} | {} | {} |\n",
                bits(field),
                field.name,
                field.access,
                reset,
                field_description(block, reg, field)
            );
        }
    }
}

/// REGISTERS.md for `map`.
pub fn markdown(map: &RegisterMap, design: &Design) -> String {
    let [a, b] = design.banner();
    let mut out = format!("<!-- {a}\n     {b} -->\n\n");
    out += &format!("# Registers of `{}`\n\n", design.name);
    out += &format!(
        "Register-map version {}.{}; the `id` register reads {} (ASCII \"TOEU\"). {} session(s), {}-bit data at {} kHz. \
         The register bus (AXI4-Lite, 32-bit address and data) decodes all 32 address bits; the map spans {} of them, and an unmapped address \
         (any address with a bit set above the map's span included) answers SLVERR and changes nothing, and so does a write that would put a value outside a field's valid values \
         (its range, or its codes) or that covers only some bytes of such a field: the register keeps its value.\n",
        crate::VERSION_MAJOR,
        crate::VERSION_MINOR,
        hex(u64::from(crate::ID_MAGIC), 8),
        design.sessions,
        design.data_width,
        design.user_clock_khz(),
        map.address_bits()
    );
    out += "\n## Conventions\n\n";
    out += "- Registers are 32 bits wide and 4-byte aligned. Bits that no field covers read 0 and ignore writes.\n";
    out += "- A value wider than 32 bits spans a `_lo` register (bits 31:0) and a `_hi` register at `_lo` + 4. \
            **Reading the low half latches the high half**: read `_lo`, then `_hi`, and the pair is one coherent value \
            even while a counter runs.\n";
    out += "- Writable wide values and the other parameters are taken by the command that uses them \
            (`session.ctrl.start`, `toe.toe_ctrl.init`): write every half before the command, in any order.\n";
    out += "- Volatile fields are updated by the hardware; constant fields are properties of the generated design.\n";
    out += "\nAccess types:\n\n| Access | Behaviour |\n|---|---|\n";
    for access in Access::ALL {
        out += &format!("| {} | {} |\n", access, cell(access.meaning()));
    }
    out +=
        "\n## Address map\n\n| Block | Base | Size | Instances | Stride | Description |\n|---|---|---|---|---|---|\n";
    for block in &map.blocks {
        let stride = block.repeat.map_or("-".to_string(), |r| hex(u64::from(r.stride), 3));
        out += &format!(
            "| `{}` | {} | {} | {} | {} | {} |\n",
            block.name,
            hex(u64::from(block.base), 3),
            hex(u64::from(block.size), 3),
            block.instances(),
            stride,
            cell(&block.description)
        );
    }
    for block in &map.blocks {
        block_section(&mut out, block);
    }
    out
}
