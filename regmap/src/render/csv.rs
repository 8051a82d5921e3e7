//! csr.csv: the map in LiteX's CSV format, so that LiteX's host tools list
//! and access every register by name:
//! `litex_cli --csr-csv build/sw/csr.csv --regs` over Etherbone
//! (`litex_server --udp`, the virtual board) or PCIe (`litex_server --pcie`).
//!
//! # Format (LiteX `export.get_csr_csv`, read by `tools/remote/csr_builder.py`)
//!
//! Every row has exactly five columns, `type,name,value,value,value`, in
//! LiteX's order: `csr_base` rows, `csr_register` rows, `constant` rows,
//! `memory_region` rows:
//!
//! | row | columns 3..5 |
//! |---|---|
//! | `csr_base,<region>,0x<addr>,,` | base of one block instance (`bus.bases.<region>`) |
//! | `csr_register,<name>,0x<addr>,<words>,<mode>` | one register (`bus.regs.<name>`); `<words>` is 1 |
//! | `constant,<name>,<value>,,` | decimal integer (`bus.constants.<name>`) |
//! | `memory_region,csr,0x00000000,<bytes>,io` | the span the register bus decodes |
//!
//! Addresses are `0x` + 8 lower-case hex digits: byte addresses on the
//! register bus, whose base is 0 (block bases and offsets as the map defines
//! them). The `memory_region` named `csr` at 0 states that: `litex_client`
//! subtracts the `csr` region's base when the server is PCIe (LiteX maps its
//! CSRs to BAR0 offset 0), and here there is nothing to subtract, so Etherbone
//! and PCIe use the same addresses.
//!
//! # Names
//!
//! LiteX names a register `<region>_<csr>`. Here the region is the block name
//! for a block that does not repeat (`info`, `toe`) and the block name followed
//! by the instance number for a repeated one (`session0`, `session1`, ...):
//! `info_id`, `toe_toe_ctrl`, `toe_fpga_mac_lo`, `session2_status`,
//! `session2_tx_bytes_hi`. Block and register names are validated lower-case
//! identifiers, so these are too; validation also rejects a map in which two
//! of them coincide.
//!
//! # Modes
//!
//! `ro` when every field of the register is read-only, `rw` otherwise
//! (`rw`, `w1c`, `wo` and `wpulse` fields). LiteX knows a third mode, `wo`, but
//! `CSRRegister.read` raises on it, which would stop `--regs` half way; every
//! register of this map answers reads (write-only and write-pulse bits read 0,
//! reads have no side effect but the wide-value latch below), so `rw` is safe.
//!
//! # Wide values
//!
//! The `_lo` and `_hi` halves are two one-word registers, as in the map. A
//! LiteX CSR of 2 words is read and written most significant word first at the
//! lower address (`CSRRegister.read` shifts the first word up), so a 2-word
//! row at `_lo` would return `lo << 32 | hi`: LiteX cannot describe the map's
//! low-word-first layout. Rows are in address order, so `_lo` comes before its
//! `_hi` and `--regs`, which reads in file order, reads each pair coherently
//! (reading `_lo` latches `_hi`).
//!
//! # Constants
//!
//! `config_csr_data_width` (32: registers are 32-bit words) and
//! `config_bus_address_width` (32: addresses are 32-bit), which `csr_builder`
//! requires. Then, for every register whose fields are all constants (read-only
//! and not volatile: the design parameters of block `info`), the value a read
//! returns, under the register's name (`info_sessions`, `info_data_width`,
//! `info_user_clock_khz`, `info_id`, `info_version`), plus one constant per
//! field when it has several (`info_version_major`), plus the joined value of
//! a constant wide value (`info_config_hash`). So
//! `bus.regs.X.read() == bus.constants.X` for each of them on a board built
//! from the same configuration.
//!
//! # Banner
//!
//! The file opens with the design's banner as two `#` lines. LiteX's own
//! csr.csv opens with a `#` banner and `csr_builder` drops every line whose
//! first character is `#` before parsing; it does not accept blank lines (an
//! empty row fails its five-column unpacking), so there are none.

use config::Design;

use crate::{Block, Register, RegisterMap};

/// File name LiteX's tools look for by default.
pub const FILE_NAME: &str = "csr.csv";

/// Bits per register word (`config_csr_data_width`): registers are `u32`.
const CSR_DATA_WIDTH: u32 = u32::BITS;
/// Bits of a bus address (`config_bus_address_width`): addresses are `u32`.
const BUS_ADDRESS_WIDTH: u32 = u32::BITS;

/// The LiteX region name of one block instance: the block name, followed by
/// the instance number when the block repeats (`session0`).
pub fn region_name(block: &Block, instance: usize) -> String {
    match block.repeat {
        Some(_) => format!("{}{instance}", block.name),
        None => block.name.clone(),
    }
}

/// The `csr_register` name of `register` in one block instance:
/// `<region>_<register>` (`session0_status`, `toe_toe_ctrl`).
pub fn register_name(block: &Block, instance: usize, register: &Register) -> String {
    format!("{}_{}", region_name(block, instance), register.name)
}

/// The LiteX mode of a register: `ro` if every field is read-only, else `rw`.
pub fn mode(register: &Register) -> &'static str {
    if register.fields.iter().all(|f| f.access == crate::Access::Ro) {
        "ro"
    } else {
        "rw"
    }
}

/// One row of the file, and what in the map produced its name.
struct Row {
    kind: &'static str,
    name: String,
    columns: [String; 3],
    origin: String,
}

fn addr(value: u64) -> String {
    format!("0x{value:08x}")
}

fn row(kind: &'static str, name: String, columns: [String; 3], origin: String) -> Row {
    Row { kind, name, columns, origin }
}

fn constant(name: String, value: u64, origin: String) -> Row {
    row("constant", name, [value.to_string(), String::new(), String::new()], origin)
}

fn instance_origin(what: String, block: &Block, instance: usize) -> String {
    if block.repeat.is_some() {
        format!("{what} in instance {instance}")
    } else {
        what
    }
}

fn rows(map: &RegisterMap) -> Vec<Row> {
    let mut bases = Vec::new();
    let mut constants = vec![
        constant("config_csr_data_width".into(), CSR_DATA_WIDTH.into(), "the LiteX bus constants".into()),
        constant("config_bus_address_width".into(), BUS_ADDRESS_WIDTH.into(), "the LiteX bus constants".into()),
    ];
    for block in &map.blocks {
        for instance in 0..block.instances() {
            let Some(base) = block.instance_base(instance) else { continue };
            let region = region_name(block, instance);
            let origin = instance_origin(format!("block `{}`", block.name), block, instance);
            bases.push(row("csr_base", region.clone(), [addr(base.into()), String::new(), String::new()], origin));
            for reg in &block.registers {
                if reg.fields.is_empty() || !reg.fields.iter().all(|f| f.is_constant()) {
                    continue;
                }
                let id = crate::register_id(&block.name, &reg.name);
                let origin = instance_origin(format!("register `{id}`"), block, instance);
                constants.push(constant(register_name(block, instance, reg), reg.reset_for(instance).into(), origin));
                if reg.fields.len() > 1 {
                    for field in &reg.fields {
                        let name = format!("{}_{}", register_name(block, instance, reg), field.name);
                        let id = crate::field_id(&block.name, &reg.name, &field.name);
                        let origin = instance_origin(format!("field `{id}`"), block, instance);
                        constants.push(constant(name, field.reset.for_instance(instance).into(), origin));
                    }
                }
                let Some(wide) = block.wide_with_hi(&reg.name) else { continue };
                let Some(lo) = block.register(&wide.lo) else { continue };
                if lo.fields.iter().all(|f| f.is_constant()) {
                    let value = u64::from(reg.reset_for(instance)) << 32 | u64::from(lo.reset_for(instance));
                    let origin = instance_origin(
                        format!("wide value `{}`", crate::register_id(&block.name, &wide.name)),
                        block,
                        instance,
                    );
                    constants.push(constant(format!("{region}_{}", wide.name), value, origin));
                }
            }
        }
    }
    let registers = map.instances().into_iter().filter_map(|loc| {
        let a = loc.block.address(loc.instance, loc.register)?;
        let id = crate::register_id(&loc.block.name, &loc.register.name);
        let origin = instance_origin(format!("register `{id}`"), loc.block, loc.instance);
        let columns = [addr(a.into()), "1".to_string(), mode(loc.register).to_string()];
        Some(row("csr_register", register_name(loc.block, loc.instance, loc.register), columns, origin))
    });
    let span = 1u64 << map.address_bits();
    let memory =
        row("memory_region", "csr".into(), [addr(0), span.to_string(), "io".into()], "the register bus".into());
    let mut all = bases;
    all.extend(registers);
    all.extend(constants);
    all.push(memory);
    all
}

/// Every name the file defines, with what produced it, for validation: the
/// kind is part of the name, since LiteX keeps bases, registers, constants and
/// memory regions apart (`info_id` is both a register and a constant).
pub(crate) fn generated_names(map: &RegisterMap) -> Vec<(String, String)> {
    rows(map).into_iter().map(|r| (format!("csr.csv {} {}", r.kind, r.name), r.origin)).collect()
}

/// csr.csv for `map`: the banner as `#` lines, then one row per line, `\n`
/// line ends, no quoting (every cell is an identifier or a number).
pub fn csr_csv(map: &RegisterMap, design: &Design) -> String {
    let mut out = String::new();
    for line in design.banner() {
        out += &format!("# {line}\n");
    }
    for r in rows(map) {
        let [a, b, c] = &r.columns;
        out += &format!("{},{},{a},{b},{c}\n", r.kind, r.name);
    }
    out
}
