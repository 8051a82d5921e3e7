//! csr.csv read the way LiteX's `tools/remote/csr_builder.py` reads it: lines
//! whose first character is `#` dropped, the rest split into rows of exactly
//! five columns, grouped by row type into `bases`, `regs`, `constants` and
//! `mems` (addresses `int(x, 16)`, sizes and constants `int(x)`). Every
//! register instance of the map must appear once, with its address and mode;
//! expected names follow the documented scheme and are built here from the
//! map, not taken from the renderer, and no address is typed in.

use std::collections::BTreeMap;

use regmap::{Access, RegisterMap};

fn design(sessions: usize) -> config::Design {
    config::parse(&config::default_toml_with_sessions(sessions)).unwrap()
}

struct Csr {
    addr: u64,
    length: u64,
    mode: String,
}

/// What `CSRBuilder` builds from the file: name -> item, per row type, plus
/// the register names in file order (the order `litex_cli --regs` reads).
#[derive(Default)]
struct Parsed {
    bases: BTreeMap<String, u64>,
    regs: BTreeMap<String, Csr>,
    order: Vec<String>,
    constants: BTreeMap<String, u64>,
    mems: BTreeMap<String, (u64, u64, String)>,
}

/// `int(x.replace("0x", ""), 16)`, insisting on LiteX's `0x` + 8 digits.
fn hex(cell: &str) -> u64 {
    let digits = cell.strip_prefix("0x").unwrap_or_else(|| panic!("address {cell:?} without 0x"));
    assert_eq!(digits.len(), 8, "address {cell:?}: LiteX writes 8 hex digits");
    u64::from_str_radix(digits, 16).unwrap_or_else(|e| panic!("address {cell:?}: {e}"))
}

fn dec(cell: &str) -> u64 {
    cell.parse().unwrap_or_else(|e| panic!("{cell:?} is not a decimal integer: {e}"))
}

fn parse(text: &str) -> Parsed {
    let mut p = Parsed::default();
    let mut seen: BTreeMap<(String, String), usize> = BTreeMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        // csv.reader: no quoting is needed, so none may appear.
        assert!(!line.contains('"'), "quoted cell in {line:?}");
        let cols: Vec<&str> = line.split(',').collect();
        // `group, name, addr, length, mode = item`: five columns or a ValueError.
        assert_eq!(cols.len(), 5, "row {line:?} does not have five columns");
        let (kind, name) = (cols[0], cols[1].to_string());
        assert!(
            !name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
            "name {name:?}"
        );
        assert!(name.starts_with(|c: char| c.is_ascii_lowercase()), "name {name:?} must be an identifier");
        *seen.entry((kind.to_string(), name.clone())).or_default() += 1;
        match kind {
            "csr_base" => {
                p.bases.insert(name, hex(cols[2]));
            }
            "csr_register" => {
                p.order.push(name.clone());
                p.regs.insert(name, Csr { addr: hex(cols[2]), length: dec(cols[3]), mode: cols[4].to_string() });
            }
            "constant" => {
                p.constants.insert(name, dec(cols[2]));
            }
            "memory_region" => {
                p.mems.insert(name, (hex(cols[2]), dec(cols[3]), cols[4].to_string()));
            }
            other => panic!("unknown row type {other:?} in {line:?}"),
        }
    }
    // Python dicts keep the last of two rows with one name: a duplicate would
    // silently hide a register.
    for ((kind, name), count) in seen {
        assert_eq!(count, 1, "{kind} `{name}` appears {count} times");
    }
    p
}

/// The documented name of a block instance: the block name, plus the
/// instance number when the block repeats.
fn region(block: &regmap::Block, instance: usize) -> String {
    if block.repeat.is_some() {
        format!("{}{instance}", block.name)
    } else {
        block.name.clone()
    }
}

fn check(map: &RegisterMap, text: &str) {
    let p = parse(text);

    // csr_builder refuses a file without these two.
    assert_eq!(p.constants.get("config_csr_data_width"), Some(&32), "registers are 32-bit words");
    assert_eq!(p.constants.get("config_bus_address_width"), Some(&32), "addresses are 32-bit");

    // Every register instance once, with its address, one word, and its mode.
    let instances = map.instances();
    assert_eq!(p.regs.len(), instances.len(), "one csr_register row per register instance, no more");
    let mut expected_order = Vec::new();
    for loc in &instances {
        let name = format!("{}_{}", region(loc.block, loc.instance), loc.register.name);
        let csr = p.regs.get(&name).unwrap_or_else(|| panic!("register `{name}` missing"));
        let addr = loc.block.address(loc.instance, loc.register).unwrap();
        assert_eq!(csr.addr, u64::from(addr), "{name}: address");
        assert_eq!(csr.length, 1, "{name}: one 32-bit word");
        let read_only = loc.register.fields.iter().all(|f| f.access == Access::Ro);
        assert_eq!(csr.mode, if read_only { "ro" } else { "rw" }, "{name}: mode");
        expected_order.push(name);
    }
    // Address order: `--regs` reads each `_lo` before its `_hi` (the latch).
    assert_eq!(p.order, expected_order, "registers in address order");
    for block in &map.blocks {
        for wide in &block.wides {
            for s in 0..block.instances() {
                let at = |r: &str| p.order.iter().position(|n| *n == format!("{}_{r}", region(block, s))).unwrap();
                assert!(at(&wide.lo) < at(&wide.hi), "{}: lo is read before hi", wide.name);
            }
        }
    }

    // One base per block instance.
    let bases: usize = map.blocks.iter().map(|b| b.instances()).sum();
    assert_eq!(p.bases.len(), bases);
    for block in &map.blocks {
        for s in 0..block.instances() {
            assert_eq!(
                p.bases.get(&region(block, s)),
                Some(&u64::from(block.instance_base(s).unwrap())),
                "base of {}",
                region(block, s)
            );
        }
    }

    // The bus base is 0 and the region spans every register.
    assert_eq!(p.mems.len(), 1);
    let (base, size, kind) = &p.mems["csr"];
    assert_eq!((*base, kind.as_str()), (0, "io"));
    assert_eq!(*size, 1u64 << map.address_bits());
    assert!(instances.iter().all(|l| u64::from(l.block.address(l.instance, l.register).unwrap()) < *size));

    // Constants: every all-constant register's read value under its register
    // name (and its fields when it has several), every constant wide joined.
    let mut expected_constants = 2;
    for block in &map.blocks {
        for s in 0..block.instances() {
            for reg in block.registers.iter().filter(|r| r.fields.iter().all(|f| f.is_constant())) {
                let name = format!("{}_{}", region(block, s), reg.name);
                assert_eq!(p.constants.get(&name), Some(&u64::from(reg.reset_for(s))), "constant {name}");
                assert!(p.regs.contains_key(&name), "constant {name} names a register");
                expected_constants += 1;
                if reg.fields.len() > 1 {
                    for f in &reg.fields {
                        assert_eq!(
                            p.constants.get(&format!("{name}_{}", f.name)),
                            Some(&u64::from(f.reset.for_instance(s))),
                            "{name}.{}",
                            f.name
                        );
                        expected_constants += 1;
                    }
                }
            }
            for wide in &block.wides {
                let (lo, hi) = (block.register(&wide.lo).unwrap(), block.register(&wide.hi).unwrap());
                if lo.fields[0].is_constant() {
                    let value = u64::from(hi.reset_for(s)) << 32 | u64::from(lo.reset_for(s));
                    assert_eq!(
                        p.constants.get(&format!("{}_{}", region(block, s), wide.name)),
                        Some(&value),
                        "wide {}",
                        wide.name
                    );
                    expected_constants += 1;
                }
            }
        }
    }
    assert_eq!(p.constants.len(), expected_constants, "no constant the map does not define");
}

#[test]
fn golden_csr_csv_lists_every_register_as_litex_reads_it() {
    let map = RegisterMap::for_design(&design(4));
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/csr.csv")).unwrap();
    check(&map, &text);
}

#[test]
fn csr_csv_of_every_session_count_lists_every_register() {
    for sessions in 1..=config::MAX_SESSIONS {
        let d = design(sessions);
        let map = RegisterMap::for_design(&d);
        let text = regmap::csr_csv(&map, &d);
        check(&map, &text);
        let p = parse(&text);
        let (_, count) = map.find_register("sessions").unwrap();
        assert_eq!(p.constants.get("info_sessions"), Some(&u64::from(count.reset_for(0))));
        assert_eq!(p.constants["info_sessions"], sessions as u64);
        assert!(!p.regs.contains_key(&format!("session{sessions}_status")), "no session past the last");
    }
}

#[test]
fn the_file_has_no_blank_line_and_opens_with_comment_lines_only() {
    let d = design(4);
    let text = regmap::csr_csv(&RegisterMap::for_design(&d), &d);
    assert!(text.ends_with('\n') && !text.contains("\r"));
    // csr_builder keeps a blank line and fails to unpack its empty row.
    assert!(text.lines().all(|l| !l.is_empty()), "blank line");
    let comments: Vec<&str> = text.lines().take_while(|l| l.starts_with('#')).collect();
    assert_eq!(comments.len(), 2);
    assert_eq!(text.lines().filter(|l| l.starts_with('#')).count(), 2, "comments only at the top");
}

#[test]
fn a_missing_row_is_caught() {
    // The check above fails when one register row is dropped.
    let d = design(4);
    let map = RegisterMap::for_design(&d);
    let text = regmap::csr_csv(&map, &d);
    let dropped: String =
        text.lines().filter(|l| !l.starts_with("csr_register,session2_status,")).map(|l| format!("{l}\n")).collect();
    assert_ne!(dropped, text);
    let result = std::panic::catch_unwind(|| check(&map, &dropped));
    assert!(result.is_err(), "dropping a register row must fail the check");
}
