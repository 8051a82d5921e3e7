//! The register file: an AXI4-Lite slave in its own clock whose registers
//! live in the user clock, built from the `regmap` definition.
//!
//! ```text
//!  s_axil_aclk domain                      |  user_clk domain
//!                                          |
//!  AW --> [aw]--+                          |
//!  W  --> [w ]--+--> arbiter --> req_addr/write/wdata/wstrb (held) -------> decode, storage,
//!  AR --> [ar]--+        |       req_tog ----------> SyncBit --> edge = one access per request
//!                        |                          |                        |
//!  B  <-- [b ]<--+       |                          |         resp_data/err (held)
//!  R  <-- [r ]<--+-- ack edge <-- SyncBit <---------+-------- ack_tog
//!                                          |
//!                                          |  value/pulse/sticky --> user logic
//!                                          |  status/set/latch_in <-- user logic
//! ```
//!
//! **Crossing.** One transaction at a time crosses as a request held still in
//! the bus domain while a toggle (`req_tog`) goes through a two-flip-flop
//! synchroniser ([`SyncBit`]); the user domain sees the toggle's edge, performs
//! the access in that one cycle (write into storage, or read into `resp_data`),
//! and toggles `ack_tog`, which comes back through another synchroniser; the bus
//! domain then takes `resp_data`/`resp_err`, held still in the user domain, into
//! B or R. Every multi-bit value crosses while its source holds it, so nothing
//! is torn, and each write is performed exactly once in the user domain, so a
//! write-pulse field is exactly one user-clock pulse. Latency
//! (`docs/register_file.md`): the access happens 2 to 3 user cycles after the
//! bus cycle that follows the acceptance of AW+W or AR; BVALID/RVALID rise 3
//! to 4 bus cycles plus 2 to 3 user cycles after that acceptance.
//!
//! **Address.** The AXI4-Lite address is [`BUS_ADDRESS_BITS`] (32) wide
//! whatever the map's span (`RegisterMap::address_bits`, 11 for the default
//! map), as wide as the masters in front of it, and every bit is decoded:
//! the AW or AR beat's address is held as its bits within the span, or as
//! [`OUT_OF_MAP`] when a bit above the span is set, so `0x854` is not
//! `0x054`; an address outside the map answers SLVERR and changes nothing.
//!
//! **From the map.** [`Layout::new`] walks the [`regmap::RegisterMap`]: every
//! register instance becomes slots by the access of its fields (storage for
//! `rw`/`wo`, pulse for `wpulse`, sticky for `w1c`, status for volatile `ro`,
//! constant for other `ro`, and a latch for the volatile `ro` bits of a wide
//! value's high half), each with its address, masks and reset from the map.
//! [`RegisterFileCore`] is the rust-hdl logic over those slot lists: one
//! register-word block per slot (its address, masks and reset as constants,
//! module parameters in the Verilog), the AXI4-Lite slave, the crossing and
//! the read-back; [`register_file_modules`] wraps it in a module with
//! plain port names, one group per block instance (`toe_*`, `s<n>_*` for
//! exactly `design.sessions` sessions): rust-hdl cannot give a block a number
//! of ports that depends on the configuration, so that wrapper is written
//! here as text, pure wiring. Port names follow one rule ([`UserPort`]).
//!
//! **Files.** `layout.rs` (map to slots and user ports), `block.rs` (the core
//! block, which wires the parts), `axi_lite.rs` (the AXI4-Lite slave),
//! `check.rs` (a checked field's write check), `crossing.rs` (the clock
//! crossing and the names its constraints need), `slots.rs` (one block per
//! kind of register word), `read_back.rs` (the read multiplexer), `wrapper.rs` (the Verilog wrapper and its port list). This file
//! holds the entry points: the Verilog ([`register_file_modules`], and
//! rust-hdl's form of it as the lockstep test's reference), the
//! wrapper's ports as data ([`register_file_ports`]) and the crossing's
//! registers as data ([`crossings`]).

mod axi_lite;
mod block;
mod check;
mod crossing;
mod layout;
mod read_back;
mod slots;
mod wrapper;

use config::ports::PortPlan;
use regmap::RegisterMap;

use crate::verilog::{block_verilog, HdlError};
use layout::err;

pub use axi_lite::bus_ports;
pub use block::{RegisterFileCore, BUS_ADDRESS_BITS, DECODE_ADDRESS_BITS, OUT_OF_MAP};
pub use crossing::{crossings, SYNCHRONISERS, TO_BUS, TO_USER};
pub use layout::{port_group, Layout, PortBits, PortKind, Slot, UserPort, CYCLE_COUNTER};

/// Name of the core module of the register file `module`: the wrapper's
/// child (instance `u_core`).
pub fn core_module(module: &str) -> String {
    format!("{module}_core")
}

/// The layout of `map` after checking that it has the sessions of `design`.
fn checked_layout(design: &config::Design, map: &RegisterMap) -> Result<Layout, HdlError> {
    let sessions = map.block("session").map_or(0, |b| b.instances());
    if sessions != design.sessions {
        return Err(err(format!(
            "register file: the map has {sessions} session block(s), the design {} session(s)",
            design.sessions
        )));
    }
    Layout::new(map)
}

/// The register file of `map` as module `module` (plain ports, see
/// [`UserPort`]) and the modules under it, one per block type, from the
/// project's writer ([`crate::emit`]): its core `<module>_core` and the
/// synchroniser `<prefix>_sync_bit`; children first, `module` last. `design`
/// names the sessions the map must have.
pub fn register_file_modules(
    design: &config::Design,
    map: &RegisterMap,
    module: &str,
    prefix: &str,
) -> Result<Vec<crate::emit::Module>, HdlError> {
    let layout = checked_layout(design, map)?;
    let mut modules =
        crate::emit::emit_named(&mut RegisterFileCore::new(&layout), &core_module(module), prefix, &layout)?;
    modules.push(crate::emit::Module {
        name: module.to_string(),
        text: wrapper::wrapper(&layout, map, module, wrapper::CoreWriter::Emit),
    });
    Ok(modules)
}

/// The same register file with its core written by rust-hdl's own writer
/// (`<module>$core` and its `$` children, one text): the reference the
/// lockstep test compares [`register_file_modules`] with.
pub fn register_file_reference_verilog(
    design: &config::Design,
    map: &RegisterMap,
    module: &str,
) -> Result<String, HdlError> {
    let layout = checked_layout(design, map)?;
    let core = block_verilog(&mut RegisterFileCore::new(&layout), &format!("{module}$core"))?;
    Ok(format!("{}\n{core}", wrapper::wrapper(&layout, map, module, wrapper::CoreWriter::RustHdl)))
}

/// The ports of the module [`register_file_modules`] writes, in declaration
/// order, each in its group: `user_clk`/`user_rst` in [`Group::Clock`], the
/// AXI4-Lite slave in [`Group::Bus`], the `toe` block's ports in
/// [`Group::ToeGlobal`], the `info` block's in [`Group::Info`], session
/// instance n's in [`Group::RegisterSession`]`(n)`. The wrapper declares its
/// ports from this same list.
///
/// [`Group::Clock`]: config::ports::Group::Clock
/// [`Group::Bus`]: config::ports::Group::Bus
/// [`Group::ToeGlobal`]: config::ports::Group::ToeGlobal
/// [`Group::Info`]: config::ports::Group::Info
/// [`Group::RegisterSession`]: config::ports::Group::RegisterSession
pub fn register_file_ports(design: &config::Design, map: &RegisterMap) -> Result<PortPlan, HdlError> {
    Ok(PortPlan::new(wrapper::ports(&checked_layout(design, map)?)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verilog::module_ports;

    fn design(sessions: usize) -> config::Design {
        config::parse(&config::default_toml_with_sessions(sessions)).unwrap()
    }

    /// Every module of the register file `module`, one text, the wrapper last.
    fn register_file_verilog(d: &config::Design, map: &RegisterMap, module: &str) -> Result<String, HdlError> {
        Ok(register_file_modules(d, map, module, "t")?.into_iter().map(|m| m.text).collect::<Vec<_>>().join("\n"))
    }

    #[test]
    fn verilog_declares_exactly_the_layout_ports() {
        let d = design(2);
        let map = RegisterMap::for_design(&d);
        let text = register_file_verilog(&d, &map, "regfile").unwrap();
        let ports = module_ports(&text, "regfile").unwrap();
        let layout = Layout::new(&map).unwrap();
        for p in &layout.ports {
            let found = ports.iter().find(|q| q.0 == p.name).unwrap_or_else(|| panic!("no port {}", p.name));
            assert_eq!(
                (found.2 as u32, found.1 == config::ports::Direction::Output),
                (p.width, p.output),
                "{}",
                p.name
            );
        }
        assert_eq!(ports.len(), layout.ports.len() + 21);
        // The bus address is the masters' 32 bits, not the map's span.
        for name in ["s_axil_awaddr", "s_axil_araddr"] {
            let port = ports.iter().find(|q| q.0 == name).unwrap();
            assert_eq!(port.2, BUS_ADDRESS_BITS, "{name}");
        }
        assert!(map.address_bits() < BUS_ADDRESS_BITS as u32);
        assert!(text.contains("module regfile_core ("));
        assert!(text.contains("    regfile_core u_core ("));
        let dollar = text.lines().find(|l| l.contains('$'));
        assert!(dollar.is_none(), "`$` in the register file: {dollar:?}");
    }

    /// The instance lines of module `module` in `text`: (instance, the
    /// comment line above its block).
    fn instances_of(text: &str, module: &str) -> Vec<(String, String)> {
        let lines: Vec<&str> = text.lines().collect();
        let mut found = Vec::new();
        for (i, l) in lines.iter().enumerate() {
            if l.trim() == format!("{module} #(") || l.trim().starts_with(&format!("{module} u_")) {
                let inst = lines[i..].iter().find_map(|x| {
                    let x = x.trim();
                    let x = x.strip_prefix(&format!("{module} ")).or_else(|| x.strip_prefix(") ")).unwrap_or(x);
                    x.strip_prefix("u_").and_then(|r| r.strip_suffix(" (")).map(str::to_string)
                });
                let note = lines[..i].iter().rev().find(|x| x.trim().starts_with("//")).map_or("", |x| x.trim());
                found.push((inst.unwrap_or_default(), note.to_string()));
            }
        }
        found
    }

    /// Every register word is an instance of its kind's module named after
    /// its register, under a comment naming the register, its address and
    /// its fields; every check is named after its field; no anonymous
    /// `storage_words_3` is left.
    #[test]
    fn every_slot_is_named_after_its_register() {
        let d = design(2);
        let map = RegisterMap::for_design(&d);
        let layout = Layout::new(&map).unwrap();
        let modules = register_file_modules(&d, &map, "rf", "t").unwrap();
        let text = |name: &str| &modules.iter().find(|m| m.name == name).unwrap().text;
        let core = text("rf_core");
        let wrapper = &modules.last().unwrap().text;
        for (kind, slots) in [
            ("storage", &layout.storage),
            ("pulse", &layout.pulse),
            ("sticky", &layout.sticky),
            ("status", &layout.status),
            ("latch", &layout.latch),
            ("constant", &layout.constant),
        ] {
            let found = instances_of(core, &format!("t_regs_{kind}"));
            let expected: Vec<(String, String)> =
                slots.iter().map(|s| (format!("{}_{kind}", s.label), format!("// {}", s.note))).collect();
            assert_eq!(found, expected, "{kind}");
            assert!(!slots.is_empty(), "the default map has {kind} words");
        }
        let test_config = layout.storage.iter().find(|s| s.label == "s1_test_config").expect("s1_test_config");
        assert!(test_config.note.starts_with("session[1].test_config at 0x"), "{}", test_config.note);
        assert!(test_config.note.contains("test_mode [2:0] rw"), "{}", test_config.note);
        assert!(wrapper.contains(".s1_test_config_value(s1_test_config_value)"), "the wrapper wires it by name");
        let checks = instances_of(text("t_regs_axi_lite"), "t_regs_check");
        let expected: Vec<(String, String)> =
            layout.checks.iter().map(|c| (format!("{}_check", c.label), format!("// {}", c.note))).collect();
        assert_eq!(checks, expected);
        assert!(!checks.is_empty());
        let read_back = text("t_regs_read_back");
        assert!(read_back.contains(" s1_test_config_storage_hit,"), "the read-back names its inputs");
        for anonymous in ["_words_", "storage_hit_0", "value_0", "checks_0"] {
            for m in &modules {
                assert!(!m.text.contains(anonymous), "an anonymous slot `{anonymous}...` in {}", m.name);
            }
        }
    }

    #[test]
    fn the_port_plan_is_what_the_wrapper_declares() {
        for sessions in 1..=config::MAX_SESSIONS {
            let d = design(sessions);
            let map = RegisterMap::for_design(&d);
            let plan = register_file_ports(&d, &map).unwrap();
            let text = register_file_verilog(&d, &map, "regfile").unwrap();
            let planned: Vec<(&str, &str, usize)> =
                plan.ports().iter().map(|p| (p.name.as_str(), p.direction.keyword(), p.width)).collect();
            let declared = module_ports(&text, "regfile").unwrap();
            let declared: Vec<(&str, &str, usize)> =
                declared.iter().map(|p| (p.0.as_str(), p.1.keyword(), p.2)).collect();
            assert_eq!(planned, declared, "{sessions} sessions");
        }
    }

    #[test]
    fn the_port_plan_groups_ports_by_block_instance() {
        let d = design(2);
        let map = RegisterMap::for_design(&d);
        let plan = register_file_ports(&d, &map).unwrap();
        use config::ports::{Direction, Group};
        assert_eq!(
            plan.groups(),
            [
                Group::Bus,
                Group::Clock,
                Group::Info,
                Group::ToeGlobal,
                Group::RegisterShared,
                Group::RegisterSession(0),
                Group::RegisterSession(1)
            ]
        );
        let get = |g: Group, local: &str| plan.get(g, local).unwrap().clone();
        assert_eq!(get(Group::Bus, "awaddr").width, BUS_ADDRESS_BITS);
        assert_eq!(get(Group::Bus, "araddr").width, BUS_ADDRESS_BITS);
        assert_eq!(get(Group::Bus, "aclk").name, "s_axil_aclk");
        assert_eq!(get(Group::Clock, "user_rst").name, "user_rst");
        assert_eq!(get(Group::Info, "cycle_count").direction, Direction::Output);
        assert_eq!(get(Group::ToeGlobal, "init_done").direction, Direction::Input);
        assert_eq!(get(Group::RegisterSession(1), "done_set").name, "s1_done_set");
        assert_eq!(
            (get(Group::RegisterShared, "tx_prefix").name.as_str(), get(Group::RegisterShared, "tx_prefix").width),
            ("shared_tx_prefix", 512)
        );
        assert_eq!(plan.group(Group::Bus).count(), 19);
        let layout = Layout::new(&map).unwrap();
        for (port, user) in plan.ports()[21..].iter().zip(&layout.ports) {
            assert_eq!(
                (&port.name, port.group, port.width),
                (&user.name, port_group(map.block(&user.block).unwrap(), user.instance).unwrap(), user.width as usize)
            );
        }
        assert_eq!(plan.ports().len(), 21 + layout.ports.len());
        let e = register_file_ports(&design(3), &map).unwrap_err();
        assert_eq!(e.0, "register file: the map has 2 session block(s), the design 3 session(s)");
    }

    #[test]
    fn moving_a_register_in_the_map_moves_its_decode() {
        let d = design(1);
        let map = RegisterMap::for_design(&d);
        let mut moved = map.clone();
        let reg = moved.block_mut("toe").unwrap().register_mut("target_ip").unwrap();
        reg.offset = 0x70;
        moved.validate().unwrap();
        let old = Layout::new(&map).unwrap();
        let new = Layout::new(&moved).unwrap();
        let reset = map.find_register("target_ip").unwrap().1.reset_for(0);
        let ip = |l: &Layout| l.storage.iter().find(|s| s.reset == reset).map(|s| s.addr);
        assert_eq!(ip(&old), Some(0x60));
        assert_eq!(ip(&new), Some(0xB0));
        let a = register_file_verilog(&d, &map, "rf").unwrap();
        let b = register_file_verilog(&d, &moved, "rf").unwrap();
        assert!(a.contains("16'h60") && !a.contains("16'hb0"), "old decode");
        assert!(b.contains("16'hb0"), "new decode constant");
        assert_ne!(a, b);
    }

    #[test]
    fn a_map_with_other_sessions_than_the_design_is_refused() {
        let map = RegisterMap::for_design(&design(2));
        let e = register_file_verilog(&design(3), &map, "rf").unwrap_err();
        assert_eq!(e.0, "register file: the map has 2 session block(s), the design 3 session(s)");
    }

    /// `verilator --lint-only -Wall` with the workspace waivers, in a folder
    /// of this test's own.
    fn lint(sessions: usize) {
        let d = design(sessions);
        let map = RegisterMap::for_design(&d);
        let dir = std::env::temp_dir().join(format!("regfile-lint-{}-{sessions}", std::process::id()));
        let sources: Vec<verilate::Source> = register_file_modules(&d, &map, "regfile", "t")
            .unwrap()
            .iter()
            .map(|m| verilate::Source { path: format!("{}.v", m.name).into(), contents: m.file_text() })
            .collect();
        if let Err(log) = verilate::lint_wall("regfile", &sources, &dir) {
            panic!("{sessions} sessions:\n{log}");
        }
    }

    #[test]
    fn verilator_lint_is_clean_for_one_and_four_sessions() {
        lint(1);
        lint(4);
    }
}
