//! The clock crossing of the register file: one transaction at a time
//! crosses as a request held still in the bus domain while a toggle
//! (`req_tog`) goes through a two-flip-flop synchroniser ([`SyncBit`],
//! `req_sync`); the user domain sees the toggle's edge (`strobe`), performs
//! the access in that one cycle, and answers with `resp_data`/`resp_err` held
//! still and a toggle (`ack_tog`) that comes back through `ack_sync`, whose
//! edge (`ack_edge`) the AXI4-Lite slave answers on. Its registers are fields
//! of the core block (`block.rs`), so their Verilog names are the core's
//! (`u_req_sync/ff1_reg`, `req_addr_reg`, as `crate::emit` names instances
//! and registers); which of them the implementation constraints must cover
//! is said here once, as data ([`crossings`]), and checked against the
//! core's Verilog by this file's tests.

use config::crossings::Crossings;
use rust_hdl::prelude::*;

use super::block::part::Part;
use super::block::RegisterFileCore;
use crate::cdc::SyncBit;
use crate::emit::{instance_name, register_name};

/// The core's synchronisers ([`SyncBit`] fields): the request toggle into
/// `user_clk`, the acknowledge toggle back into `s_axil_aclk`.
pub const SYNCHRONISERS: [&str; 2] = ["req_sync", "ack_sync"];

/// The core's registers launched in `s_axil_aclk` and read in `user_clk`:
/// the request, held from its toggle to its acknowledge, and the toggle.
pub const TO_USER: [&str; 5] = ["req_addr", "req_write", "req_wdata", "req_wstrb", "req_tog"];

/// The core's registers launched in `user_clk` and read in `s_axil_aclk`:
/// the response, held from the acknowledge to the next request, and the
/// acknowledge toggle.
pub const TO_BUS: [&str; 3] = ["resp_data", "resp_err", "ack_tog"];

/// What the implementation constraints must cover, as Verilog paths
/// relative to the register-file core (`<module>_core`, instance `u_core` of
/// the wrapper): each synchroniser's registers (`u_req_sync/ff1_reg`), then
/// the held registers of each direction (`req_addr_reg`).
pub fn crossings() -> Crossings {
    let names = |list: &[&str]| list.iter().map(|n| register_name(n)).collect();
    Crossings {
        sync_flops: SYNCHRONISERS
            .iter()
            .flat_map(|s| SyncBit::FLOPS.iter().map(move |f| format!("{}/{}", instance_name(s), register_name(f))))
            .collect(),
        to_user: names(&TO_USER),
        to_bus: names(&TO_BUS),
    }
}

/// The bus side receives the acknowledge: its edge means the user domain has
/// performed the request and holds its result still.
pub(super) struct AckIn;

impl Part<AckIn> for RegisterFileCore {
    #[hdl_gen]
    fn update(&mut self) {
        self.ack_sync.d.next = self.ack_tog.q.val();
        self.ack_seen.d.next = self.ack_sync.q.val();
        self.ack_edge.next = self.busy.q.val() & (self.ack_sync.q.val() != self.ack_seen.q.val());
    }
}

/// The user side receives the request: `strobe` is high for the one cycle
/// after the request toggle's edge arrives.
pub(super) struct RequestIn;

impl Part<RequestIn> for RegisterFileCore {
    #[hdl_gen]
    fn update(&mut self) {
        self.req_sync.d.next = self.req_tog.q.val();
        self.req_seen.d.next = self.req_sync.q.val();
        self.strobe.next = self.req_sync.q.val() != self.req_seen.q.val();
    }
}

/// The user side answers: in the strobe cycle, the response (the read data
/// of every kind, which a write's answer ignores; an error for an unmapped
/// address or while `user_rst` is high) is held still and the acknowledge
/// toggles.
pub(super) struct Answer;

impl Part<Answer> for RegisterFileCore {
    #[hdl_gen]
    fn update(&mut self) {
        self.ack_tog.d.next = self.ack_tog.q.val();
        self.resp_data.d.next = self.resp_data.q.val();
        self.resp_err.d.next = self.resp_err.q.val();
        if self.strobe.val() {
            self.ack_tog.d.next = !self.ack_tog.q.val();
            // In reset the registers take their reset values whatever is
            // written: every access then answers an error and reads 0.
            self.resp_err.d.next = !self.hit.val() | self.user_rst.val();
            // Every select is low on a miss, so the read data is 0 then
            // without a term for it; for a write the data goes nowhere (the
            // bus side answers a write with B alone).
            self.resp_data.d.next = 0.into();
            if !self.user_rst.val() {
                self.resp_data.d.next = self.rd_storage.val()
                    | self.rd_sticky.val()
                    | self.rd_status.val()
                    | self.rd_latch.val()
                    | self.rd_const.val();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::emit::Module;
    use crate::register_file::Layout;

    /// The core's modules as the writer emits them, the core (`core`) last.
    fn core_modules() -> Vec<Module> {
        let design = config::parse(&config::default_toml_with_sessions(1)).unwrap();
        let layout = Layout::new(&regmap::RegisterMap::for_design(&design)).unwrap();
        crate::emit::emit(&mut RegisterFileCore::new(&layout), "core", "t").unwrap()
    }

    fn core_text() -> String {
        core_modules().pop().unwrap().text
    }

    /// The `always @(posedge <clock>)` block that registers `reg` (`<reg> <= `).
    fn clock_of(text: &str, reg: &str) -> Option<String> {
        let mut clock = None;
        for line in text.lines().map(str::trim) {
            if let Some(c) = line.strip_prefix("always @(posedge ").and_then(|r| r.strip_suffix(") begin")) {
                clock = Some(c.to_string());
            } else if line.starts_with(&format!("{reg} ")) && line.contains("<=") {
                return clock;
            }
        }
        None
    }

    #[test]
    fn the_flows_get_the_writers_names_in_order() {
        let c = crossings();
        assert_eq!(
            c.sync_flops,
            ["u_req_sync/ff1_reg", "u_req_sync/ff2_reg", "u_ack_sync/ff1_reg", "u_ack_sync/ff2_reg"]
        );
        assert_eq!(c.to_user, ["req_addr_reg", "req_write_reg", "req_wdata_reg", "req_wstrb_reg", "req_tog_reg"]);
        assert_eq!(c.to_bus, ["resp_data_reg", "resp_err_reg", "ack_tog_reg"]);
    }

    #[test]
    fn every_exported_path_names_a_register_of_the_core() {
        let modules = core_modules();
        let core = &modules.last().unwrap().text;
        let sync = &modules.iter().find(|m| m.name == "t_sync_bit").expect("a synchroniser module").text;
        let c = crossings();
        for path in &c.sync_flops {
            let (inst, reg) = path.split_once('/').unwrap();
            assert!(core.contains(&format!("t_sync_bit {inst} (")), "`{path}`: no instance `{inst}` in the core");
            assert!(sync.contains(&format!(" {reg} = ")), "`{path}`: no register `{reg}` in the synchroniser");
            assert!(sync.contains("ASYNC_REG"), "the synchroniser's registers carry ASYNC_REG");
        }
        for reg in c.to_user.iter().chain(&c.to_bus) {
            assert!(core.contains(&format!(" {reg} = ")), "`{reg}` is not a register of the core");
        }
    }

    #[test]
    fn held_registers_are_launched_in_their_domain_and_synchronisers_receive_in_the_other() {
        let text = core_text();
        for name in TO_USER {
            assert_eq!(clock_of(&text, &register_name(name)).as_deref(), Some("s_axil_aclk"), "`{name}`");
        }
        for name in TO_BUS {
            assert_eq!(clock_of(&text, &register_name(name)).as_deref(), Some("user_clk"), "`{name}`");
        }
        for sync in SYNCHRONISERS {
            let inst = instance_name(sync);
            let start = text.find(&format!(" {inst} (")).unwrap_or_else(|| panic!("no instance {inst}"));
            let conns = &text[start..start + text[start..].find(");").unwrap()];
            let port = |p: &str| {
                conns.lines().find_map(|l| {
                    l.trim().strip_prefix(&format!(".{p}")).map(|r| {
                        r.trim().trim_start_matches('(').trim_end_matches(',').trim_end_matches(')').trim().to_string()
                    })
                })
            };
            let from = port("d").unwrap_or_else(|| panic!("{inst}: no d"));
            let from = from.strip_suffix("_reg").unwrap_or_else(|| panic!("`{sync}` samples `{from}`, not a register"));
            let into = match () {
                _ if TO_USER.contains(&from) => "user_clk",
                _ if TO_BUS.contains(&from) => "s_axil_aclk",
                _ => panic!("`{sync}` samples `{from}`, which is not an exported held register"),
            };
            assert_eq!(port("clock").as_deref(), Some(into), "`{sync}` samples `{from}` but is not clocked by {into}");
        }
    }

    #[test]
    fn every_synchroniser_of_the_core_is_exported() {
        let text = core_text();
        let found: BTreeSet<String> = text
            .lines()
            .filter_map(|l| l.trim().strip_prefix("t_sync_bit u_")?.strip_suffix(" (").map(str::to_string))
            .collect();
        assert_eq!(found, SYNCHRONISERS.into_iter().map(str::to_string).collect());
    }
}
