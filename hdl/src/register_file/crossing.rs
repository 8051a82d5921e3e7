//! The clock crossing of the register file: one transaction at a time
//! crosses as a request held still in the bus domain while a toggle
//! (`req_tog`) goes through a two-flip-flop synchroniser ([`SyncBit`],
//! `req_sync`); the user domain sees the toggle's edge (`strobe`), performs
//! the access in that one cycle, and answers with `resp_data`/`resp_err` held
//! still and a toggle (`ack_tog`) that comes back through `ack_sync`, whose
//! edge (`ack_edge`) the AXI4-Lite slave answers on. Its registers are fields
//! of the core block (`block.rs`), so their instance paths are the core's
//! (`core/req_sync/ff1`); which of them the implementation constraints must
//! cover is said here once, as data ([`crossings`]), and checked against the
//! core's Verilog by this file's tests.

use config::crossings::Crossings;
use rust_hdl::prelude::*;

use super::block::part::Part;
use super::block::RegisterFileCore;
use crate::cdc::SyncBit;

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

/// What the implementation constraints must cover, as instance paths
/// relative to the register-file core (`<module>$core`, instance `core` of
/// the wrapper): each synchroniser's flip-flops, then the held registers of
/// each direction.
pub fn crossings() -> Crossings {
    let names = |list: &[&str]| list.iter().map(|n| n.to_string()).collect();
    Crossings {
        sync_flops: SYNCHRONISERS.iter().flat_map(|s| SyncBit::FLOPS.iter().map(move |f| format!("{s}/{f}"))).collect(),
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
    use crate::register_file::Layout;
    use crate::verilog::block_verilog;

    /// The core's Verilog as module `core`: the crossing's paths are relative to it.
    fn core_verilog() -> String {
        let design = config::parse(&config::default_toml_with_sessions(1)).unwrap();
        let layout = Layout::new(&regmap::RegisterMap::for_design(&design)).unwrap();
        block_verilog(&mut RegisterFileCore::new(&layout), "core").unwrap()
    }

    #[test]
    fn the_flows_get_todays_names_in_todays_order() {
        let c = crossings();
        assert_eq!(c.sync_flops, ["req_sync/ff1", "req_sync/ff2", "ack_sync/ff1", "ack_sync/ff2"]);
        assert_eq!(c.to_user, ["req_addr", "req_write", "req_wdata", "req_wstrb", "req_tog"]);
        assert_eq!(c.to_bus, ["resp_data", "resp_err", "ack_tog"]);
    }

    #[test]
    fn every_exported_path_is_an_instance_of_the_core() {
        let text = core_verilog();
        let c = crossings();
        for path in c.sync_flops.iter().chain(&c.to_user).chain(&c.to_bus) {
            let mut module = "core".to_string();
            for inst in path.split('/') {
                let child = format!("{module}${inst}");
                assert!(
                    text.contains(&format!("    {child} {inst}(")),
                    "`{path}`: `{module}` has no instance `{inst}`"
                );
                module = child;
            }
        }
    }

    #[test]
    fn held_registers_are_launched_in_their_domain_and_synchronisers_receive_in_the_other() {
        let text = core_verilog();
        let clocked = |name: &str, clock: &str| text.contains(&format!("        {name}$clock = {clock};"));
        for name in TO_USER {
            assert!(clocked(name, "s_axil_aclk"), "`{name}` is not launched in s_axil_aclk");
        }
        for name in TO_BUS {
            assert!(clocked(name, "user_clk"), "`{name}` is not launched in user_clk");
        }
        for sync in SYNCHRONISERS {
            let from = text
                .lines()
                .find_map(|l| l.trim().strip_prefix(&format!("{sync}$d = "))?.strip_suffix("$q;"))
                .unwrap_or_else(|| panic!("`{sync}` does not sample a register"));
            let into = match () {
                _ if TO_USER.contains(&from) => "user_clk",
                _ if TO_BUS.contains(&from) => "s_axil_aclk",
                _ => panic!("`{sync}` samples `{from}`, which is not an exported held register"),
            };
            assert!(clocked(sync, into), "`{sync}` samples `{from}` but is not clocked by {into}");
        }
    }

    #[test]
    fn every_synchroniser_of_the_core_is_exported() {
        let text = core_verilog();
        let first = SyncBit::FLOPS[0];
        let found: BTreeSet<&str> = text
            .lines()
            .filter_map(|l| l.trim().strip_prefix("core$")?.strip_suffix(&format!("${first} {first}(")))
            .collect();
        assert_eq!(found, SYNCHRONISERS.into_iter().collect());
    }
}
