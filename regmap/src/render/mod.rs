//! Text outputs derived from a [`RegisterMap`]. Each renderer is a pure
//! function of the map and the design: the same input gives the same bytes
//! (no time, no hash-map order). Every output opens with the design's banner.

use config::Design;

use crate::{Access, Block, Field, Register, RegisterMap};

pub mod c;
pub mod csv;
pub mod json;
pub mod markdown;
pub mod rust;

pub use c::{c_header, c_static_asserts};
pub use csv::csr_csv;
pub use json::json;
pub use markdown::markdown;
pub use rust::rust_accessors;

/// A generated file: its name (no directory) and contents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Output {
    pub file_name: String,
    pub contents: String,
}

/// File name of the C header: `<design name>.h`. The static-assert file
/// includes it by this name, so both go in the same directory.
pub fn header_file_name(design: &Design) -> String {
    format!("{}.h", design.name)
}

/// Every derived output with its file name, in a fixed order:
/// `<name>.h`, `<name>_selftest.c`, `REGISTERS.md`, `regmap.json`,
/// `regmap_accessors.rs`, `csr.csv` (LiteX).
pub fn outputs(map: &RegisterMap, design: &Design) -> Vec<Output> {
    let out = |file_name: String, contents: String| Output { file_name, contents };
    vec![
        out(header_file_name(design), c_header(map, design)),
        out(format!("{}_selftest.c", design.name), c_static_asserts(map, design)),
        out("REGISTERS.md".to_string(), markdown(map, design)),
        out("regmap.json".to_string(), json(map, design)),
        out("regmap_accessors.rs".to_string(), rust_accessors(map, design)),
        out(csv::FILE_NAME.to_string(), csr_csv(map, design)),
    ]
}

/// `0x` and upper-case hex digits, at least `digits` of them.
pub(crate) fn hex(value: u64, digits: usize) -> String {
    format!("0x{value:0digits$X}")
}

/// `31:16`, or `4` for a one-bit field.
pub(crate) fn bits(field: &Field) -> String {
    if field.width == 1 {
        field.lsb.to_string()
    } else {
        format!("{}:{}", field.msb(), field.lsb)
    }
}

/// `snake_case` to `CamelCase`.
pub(crate) fn camel(name: &str) -> String {
    name.split('_')
        .map(|word| {
            let mut chars = word.chars();
            match chars.next() {
                Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

/// Sentences on a field's side effects and constraints, shared by the docs.
pub(crate) fn field_notes(block: &Block, reg: &Register, field: &Field) -> Vec<String> {
    let mut notes = Vec::new();
    if field.is_constant() {
        notes.push("Constant.".to_string());
    } else if field.volatile {
        notes.push("Volatile: the hardware updates it.".to_string());
    }
    match field.access {
        Access::W1c => notes.push("Write 1 to clear.".to_string()),
        Access::WPulse => notes.push("Write 1 to fire; reads 0.".to_string()),
        Access::Wo => notes.push("Reads 0.".to_string()),
        Access::Claim => notes.push(
            "Write a nonzero value while it reads 0 to claim it, read it back to see who holds it, write 0 to free it."
                .to_string(),
        ),
        Access::Ro | Access::Rw => {}
    }
    if let Some(wide) = block.wide_with_lo(&reg.name) {
        notes.push(format!("Reading it latches `{}`.", wide.hi));
    }
    if let Some((min, max)) = field.range {
        notes.push(format!("Valid range {min}..={max}."));
    }
    if let Some((min, max)) = field.write_range() {
        notes.push(format!("A write outside {min}..={max} is refused: SLVERR, the register keeps its value."));
    }
    notes
}
