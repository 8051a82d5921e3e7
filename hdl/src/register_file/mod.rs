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
//! **From the map.** [`Layout::new`] walks the [`regmap::RegisterMap`]: every
//! register instance becomes slots by the access of its fields (storage for
//! `rw`/`wo`, pulse for `wpulse`, sticky for `w1c`, status for volatile `ro`,
//! constant for other `ro`, and a latch for the volatile `ro` bits of a wide
//! value's high half), each with its address, masks and reset from the map.
//! [`RegisterFileCore`] is the rust-hdl logic over those slot lists (loops over
//! `Vec`s of constants); [`register_file_verilog`] wraps it in a module with
//! plain port names, one group per block instance (`toe_*`, `s<n>_*` for
//! exactly `design.sessions` sessions): rust-hdl cannot give a block a number
//! of ports that depends on the configuration, so that wrapper is written
//! here as text, pure wiring. Port names follow one rule ([`UserPort`]).
//!
//! **Files.** `layout.rs` (map to slots and user ports), `block.rs` (the core
//! block: its registers, its constructor, the order of its parts),
//! `axi_lite.rs` (the AXI4-Lite slave), `crossing.rs` (the clock crossing and
//! the names its constraints need), `fields.rs` (the logic of each kind of
//! field), `wrapper.rs` (the Verilog wrapper and its port list). This file
//! holds the entry points: the Verilog ([`register_file_verilog`]), the
//! wrapper's ports as data ([`register_file_ports`]) and the crossing's
//! registers as data ([`crossings`]).

mod axi_lite;
mod block;
mod crossing;
mod fields;
mod layout;
mod wrapper;

use config::ports::PortPlan;
use regmap::RegisterMap;

use crate::verilog::{block_verilog, HdlError};
use layout::err;

pub use axi_lite::bus_ports;
pub use block::{RegisterFileCore, CORE_ADDRESS_BITS};
pub use crossing::{crossings, SYNCHRONISERS, TO_BUS, TO_USER};
pub use layout::{port_group, Layout, PortBits, PortKind, Slot, UserPort, CYCLE_COUNTER};

/// Name of the core module inside `module`'s Verilog: a child of the wrapper,
/// named as rust-hdl names children, so the file holds `module` and its
/// `$` children only.
pub fn core_module(module: &str) -> String {
    format!("{module}$core")
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

/// The Verilog of the register file of `map` as module `module` (plain
/// ports, see [`UserPort`]) and its core `<module>$core` with the rust-hdl
/// submodules. `design` names the sessions the map must have.
pub fn register_file_verilog(design: &config::Design, map: &RegisterMap, module: &str) -> Result<String, HdlError> {
    let layout = checked_layout(design, map)?;
    let core = block_verilog(&mut RegisterFileCore::new(&layout), &core_module(module))?;
    Ok(format!("{}\n{core}", wrapper::wrapper(&layout, module)))
}

/// The ports of the module [`register_file_verilog`] writes, in declaration
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
        config::parse(&config::default_toml_with_sessions(sessions), &["alveo-u50"]).unwrap()
    }

    #[test]
    fn every_field_of_the_map_is_implemented() {
        for sessions in 1..=config::MAX_SESSIONS {
            let d = design(sessions);
            let map = RegisterMap::for_design(&d);
            let layout = Layout::new(&map).unwrap();
            let ids: Vec<String> = map.fields().map(|f| f.id()).collect();
            let implemented: std::collections::BTreeSet<&String> = layout.implemented.iter().collect();
            assert_eq!(implemented, ids.iter().collect(), "{sessions} sessions");
            // Every non-constant field reaches a port; every bit of a port is one field's.
            for f in map.fields() {
                let constant = f.field.is_constant();
                let wide = f.block.wide_with_lo(&f.register.name).or(f.block.wide_with_hi(&f.register.name));
                let source = match wide {
                    Some(w) => format!("{}.{}", f.block.name, w.name),
                    None => f.id(),
                };
                let n = layout.ports.iter().filter(|p| p.source == source).count();
                assert_eq!(n == 0, constant, "field {} ({} ports)", f.id(), n);
            }
        }
    }

    #[test]
    fn ports_follow_the_naming_rule() {
        let map = RegisterMap::for_design(&design(2));
        let layout = Layout::new(&map).unwrap();
        let port = |name: &str| layout.port(name).unwrap_or_else(|| panic!("no port {name}"));
        assert_eq!((port("s0_transfer_size").width, port("s0_transfer_size").kind), (48, PortKind::Value));
        assert_eq!((port("s1_start").width, port("s1_start").kind), (1, PortKind::Pulse));
        assert_eq!((port("s0_tx_bytes").width, port("s0_tx_bytes").output), (64, false));
        assert_eq!((port("toe_fpga_mac").width, port("toe_fpga_mac").output), (48, true));
        assert_eq!(port("toe_init").kind, PortKind::Pulse);
        assert_eq!(port("toe_init_done").kind, PortKind::Status);
        assert_eq!(port("toe_fpga_ip").width, 32);
        assert_eq!(port("s0_peer_mss").width, 16);
        assert_eq!(port("s0_done").kind, PortKind::Sticky);
        assert_eq!(port("s0_done_set").kind, PortKind::Set);
        assert_eq!(port("s0_error_cause").width, 4);
        assert_eq!(port("info_cycle_count").kind, PortKind::Counter);
        assert!(layout.port("s2_start").is_none(), "exactly design.sessions groups");
    }

    #[test]
    fn verilog_declares_exactly_the_layout_ports() {
        let d = design(2);
        let map = RegisterMap::for_design(&d);
        let text = register_file_verilog(&d, &map, "regfile").unwrap();
        let ports = module_ports(&text, "regfile").unwrap();
        let layout = Layout::new(&map).unwrap();
        for p in &layout.ports {
            let found = ports.iter().find(|q| q.name == p.name).unwrap_or_else(|| panic!("no port {}", p.name));
            assert_eq!((found.width as u32, found.direction == "output"), (p.width, p.output), "{}", p.name);
        }
        assert_eq!(ports.len(), layout.ports.len() + 21);
        let awaddr = ports.iter().find(|q| q.name == "s_axil_awaddr").unwrap();
        assert_eq!(awaddr.width as u32, map.address_bits());
        assert!(text.contains("module regfile$core("));
    }

    #[test]
    fn moving_a_register_in_the_map_moves_its_decode() {
        let d = design(1);
        let map = RegisterMap::for_design(&d);
        let mut moved = map.clone();
        let reg = moved.block_mut("toe").unwrap().register_mut("target_ip").unwrap();
        reg.offset = 0x80;
        moved.validate().unwrap();
        let old = Layout::new(&map).unwrap();
        let new = Layout::new(&moved).unwrap();
        let reset = map.find_register("target_ip").unwrap().1.reset_for(0);
        let ip = |l: &Layout| l.storage.iter().find(|s| s.reset == reset).map(|s| s.addr);
        assert_eq!(ip(&old), Some(0x60));
        assert_eq!(ip(&new), Some(0xC0));
        let a = register_file_verilog(&d, &map, "rf").unwrap();
        let b = register_file_verilog(&d, &moved, "rf").unwrap();
        assert!(a.contains("16'h60") && !a.contains("16'hc0"), "old decode");
        assert!(b.contains("16'hc0"), "new decode constant");
        assert_ne!(a, b);
    }

    #[test]
    fn a_map_with_other_sessions_than_the_design_is_refused() {
        let map = RegisterMap::for_design(&design(2));
        let e = register_file_verilog(&design(3), &map, "rf").unwrap_err();
        assert_eq!(e.0, "register file: the map has 2 session block(s), the design 3 session(s)");
    }

    #[test]
    fn two_fields_with_one_port_name_are_refused() {
        let mut map = RegisterMap::for_design(&design(1));
        let ctrl = map.block_mut("toe").unwrap().register_mut("toe_ctrl").unwrap();
        ctrl.fields[0].name = "init_done".into();
        let e = Layout::new(&map).unwrap_err();
        assert!(e.0.contains("would both be port `toe_init_done`"), "{e}");
    }

    /// `verilator --lint-only -Wall` with the workspace waivers, in a folder
    /// of this test's own.
    fn lint(sessions: usize) {
        let d = design(sessions);
        let map = RegisterMap::for_design(&d);
        let body = register_file_verilog(&d, &map, "regfile").unwrap();
        let text = format!("`resetall\n`timescale 1ns / 1ps\n`default_nettype none\n\n{body}\n`resetall\n`default_nettype wire\n");
        let dir = std::env::temp_dir().join(format!("regfile-lint-{}-{sessions}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("regfile.v");
        std::fs::write(&file, &text).unwrap();
        if let Ok(path) = std::env::var("REGFILE_DUMP") {
            std::fs::write(path, &text).unwrap();
        }
        let waivers = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/verilator_waivers.vlt");
        let out = std::process::Command::new("verilator")
            .args(["--lint-only", "-Wall", "--top-module", "regfile"])
            .arg(&waivers)
            .arg(&file)
            .output()
            .expect("verilator (make deps)");
        let _ = std::fs::remove_dir_all(&dir);
        let log = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success() && !log.contains("%Warning"), "{sessions} sessions:\n{log}");
    }

    #[test]
    fn verilator_lint_is_clean_for_one_and_four_sessions() {
        lint(1);
        lint(4);
    }
}
