//! regmap.json: the whole map for tools in other languages. Keys appear in the
//! order of the structs below (serde keeps declaration order), lists in
//! definition order; numbers are plain JSON integers (a 64-bit reset can
//! exceed 2^53, so wide resets are also given as hex strings).

use config::Design;
use serde::Serialize;

use crate::{Block, Field, Register, RegisterMap};

#[derive(Serialize)]
struct Document<'a> {
    /// The banner lines every generated file carries.
    banner: [String; 2],
    design: DesignInfo<'a>,
    version: Version,
    id: u32,
    address_bits: u32,
    conventions: Vec<&'static str>,
    access_types: Vec<AccessInfo>,
    blocks: Vec<BlockInfo<'a>>,
}

#[derive(Serialize)]
struct DesignInfo<'a> {
    name: &'a str,
    sessions: usize,
    data_width: usize,
    user_clock_khz: u32,
    config_hash: &'a str,
}

#[derive(Serialize)]
struct Version {
    major: u32,
    minor: u32,
}

#[derive(Serialize)]
struct AccessInfo {
    name: &'static str,
    meaning: &'static str,
}

#[derive(Serialize)]
struct BlockInfo<'a> {
    name: &'a str,
    description: &'a str,
    base: u32,
    size: u32,
    instances: usize,
    stride: u32,
    registers: Vec<RegisterInfo<'a>>,
    wides: Vec<WideInfo<'a>>,
}

#[derive(Serialize)]
struct RegisterInfo<'a> {
    id: String,
    name: &'a str,
    offset: u32,
    /// Bus address in each instance.
    addresses: Vec<u32>,
    access: String,
    /// Reset word in each instance.
    resets: Vec<u32>,
    /// Name of the register a read of this one latches.
    #[serde(skip_serializing_if = "Option::is_none")]
    read_latches: Option<&'a str>,
    description: &'a str,
    fields: Vec<FieldInfo<'a>>,
}

#[derive(Serialize)]
struct FieldInfo<'a> {
    id: String,
    name: &'a str,
    lsb: u32,
    width: u32,
    mask: u32,
    access: &'static str,
    volatile: bool,
    /// Field value at reset in each instance.
    resets: Vec<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    range: Option<[u32; 2]>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    values: Vec<ValueInfo<'a>>,
    description: &'a str,
}

#[derive(Serialize)]
struct ValueInfo<'a> {
    name: &'a str,
    value: u32,
    description: &'a str,
}

#[derive(Serialize)]
struct WideInfo<'a> {
    id: String,
    name: &'a str,
    width: u32,
    lo: &'a str,
    hi: &'a str,
    /// Reset in each instance, as `0x` + 16 hex digits.
    resets: Vec<String>,
    description: &'a str,
}

fn field_info<'a>(block: &'a Block, reg: &'a Register, field: &'a Field) -> FieldInfo<'a> {
    FieldInfo {
        id: crate::field_id(&block.name, &reg.name, &field.name),
        name: &field.name,
        lsb: field.lsb,
        width: field.width,
        mask: field.mask(),
        access: field.access.as_str(),
        volatile: field.volatile,
        resets: (0..block.instances()).map(|s| field.reset.for_instance(s)).collect(),
        range: field.range.map(|(a, b)| [a, b]),
        values: field
            .enum_values
            .iter()
            .map(|v| ValueInfo { name: &v.name, value: v.value, description: &v.description })
            .collect(),
        description: &field.description,
    }
}

fn block_info(block: &Block) -> BlockInfo<'_> {
    let registers = block
        .registers
        .iter()
        .map(|reg| RegisterInfo {
            id: crate::register_id(&block.name, &reg.name),
            name: &reg.name,
            offset: reg.offset,
            addresses: (0..block.instances()).filter_map(|s| block.address(s, reg)).collect(),
            access: reg.access_summary(),
            resets: (0..block.instances()).map(|s| reg.reset_for(s)).collect(),
            read_latches: block.wide_with_lo(&reg.name).map(|w| w.hi.as_str()),
            description: &reg.description,
            fields: reg.fields.iter().map(|f| field_info(block, reg, f)).collect(),
        })
        .collect();
    let wides = block
        .wides
        .iter()
        .map(|w| {
            let half = |name: &str, s: usize| u64::from(block.register(name).map_or(0, |r| r.reset_for(s)));
            WideInfo {
                id: crate::register_id(&block.name, &w.name),
                name: &w.name,
                width: w.width,
                lo: &w.lo,
                hi: &w.hi,
                resets: (0..block.instances())
                    .map(|s| format!("0x{:016X}", half(&w.hi, s) << 32 | half(&w.lo, s)))
                    .collect(),
                description: &w.description,
            }
        })
        .collect();
    BlockInfo {
        name: &block.name,
        description: &block.description,
        base: block.base,
        size: block.size,
        instances: block.instances(),
        stride: block.stride(),
        registers,
        wides,
    }
}

/// regmap.json for `map`, pretty-printed, ending with a newline.
pub fn json(map: &RegisterMap, design: &Design) -> String {
    let doc = Document {
        banner: design.banner(),
        design: DesignInfo {
            name: &design.name,
            sessions: design.sessions,
            data_width: design.data_width,
            user_clock_khz: design.user_clock_khz(),
            config_hash: &design.config_hash,
        },
        version: Version { major: crate::VERSION_MAJOR, minor: crate::VERSION_MINOR },
        id: crate::ID_MAGIC,
        address_bits: map.address_bits(),
        conventions: vec![
            "Registers are 32 bits wide and 4-byte aligned; bits no field covers read 0 and ignore writes.",
            "A value wider than 32 bits spans the `lo` register (bits 31:0) and the `hi` register at lo + 4; reading lo latches hi, so read lo first.",
            "Writable parameters are taken by the command that uses them (session ctrl.start, toe_ctrl.init).",
            "Offsets are from the block instance's base; `addresses` lists the bus address in each instance.",
        ],
        access_types: crate::Access::ALL.iter().map(|a| AccessInfo { name: a.as_str(), meaning: a.meaning() }).collect(),
        blocks: map.blocks.iter().map(block_info).collect(),
    };
    // Serialising these plain structs cannot fail (string keys, no maps with
    // non-string keys, no custom serialisers); fall back to an empty object
    // rather than panic.
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".to_string());
    text.push('\n');
    text
}
