//! The clock crossing of the register file: one transaction at a time
//! crosses as a request held still in the bus domain while a toggle
//! (`req_tog`) goes through a two-flip-flop synchroniser ([`SyncBit`],
//! `req_sync`); the user domain sees the toggle's edge, performs the access
//! in that one cycle (`write` or `read`), and answers with
//! `resp_data`/`resp_err` held still and a toggle (`ack_tog`) that comes back
//! through `ack_sync`, whose edge (`ack`) the AXI4-Lite slave answers on.
//! Every multi-bit value crosses while its source holds it, so nothing is
//! torn. Which of its registers the implementation constraints must cover is
//! said here once, as data ([`crossings`]), and checked against the
//! Verilog by this file's tests.
//!
//! ```text
//!   s_axil_aclk                          |  user_clk
//!   issue --> req_addr/write/wdata/wstrb (held) ---------> addr, wdata, wmask
//!             req_tog ---------------------> req_sync --> edge --> write / read
//!   ack <-- edge <-- ack_sync <------------------------- ack_tog
//!   resp_data/err <------------------------------------- resp_data/err (held) <-- answer
//! ```

use config::crossings::Crossings;
use rust_hdl::prelude::*;

use super::block::DECODE_ADDRESS_BITS;
use crate::cdc::SyncBit;
use crate::emit::{instance_name, register_name};

/// The crossing's instance in the core (`u_crossing`): the constraints'
/// paths start there.
pub const INSTANCE: &str = "crossing";

/// The crossing's synchronisers ([`SyncBit`] fields): the request toggle into
/// `user_clk`, the acknowledge toggle back into `s_axil_aclk`.
pub const SYNCHRONISERS: [&str; 2] = ["req_sync", "ack_sync"];

/// The crossing's registers launched in `s_axil_aclk` and read in
/// `user_clk`: the request, held from its toggle to its acknowledge, and the
/// toggle.
pub const TO_USER: [&str; 5] = ["req_addr", "req_write", "req_wdata", "req_wstrb", "req_tog"];

/// The crossing's registers launched in `user_clk` and read in
/// `s_axil_aclk`: the response, held from the acknowledge to the next
/// request, and the acknowledge toggle.
pub const TO_BUS: [&str; 3] = ["resp_data", "resp_err", "ack_tog"];

/// What the implementation constraints must cover, as Verilog paths
/// relative to the register-file core (`<module>_core`, instance `u_core` of
/// the wrapper): each synchroniser's registers
/// (`u_crossing/u_req_sync/ff1_reg`), then the held registers of each
/// direction (`u_crossing/req_addr_reg`).
pub fn crossings() -> Crossings {
    let inst = instance_name(INSTANCE);
    let names = |list: &[&str]| list.iter().map(|n| format!("{inst}/{}", register_name(n))).collect();
    Crossings {
        sync_flops: SYNCHRONISERS
            .iter()
            .flat_map(|s| {
                let inst = &inst;
                SyncBit::FLOPS.iter().map(move |f| format!("{inst}/{}/{}", instance_name(s), register_name(f)))
            })
            .collect(),
        to_user: names(&TO_USER),
        to_bus: names(&TO_BUS),
    }
}

/// The request/acknowledge toggle handshake between the bus and the user
/// clock, with the request and the response held still while they cross.
#[derive(LogicBlock)]
pub struct RegsCrossing {
    // ---- Bus side, s_axil_aclk domain.
    /// Register-bus clock.
    pub bus_clk: Signal<In, Clock>,
    /// Send a request: take `issue_*` and toggle.
    pub issue: Signal<In, Bit>,
    /// The request is a write.
    pub issue_write: Signal<In, Bit>,
    /// The request's address, as the core decodes it.
    pub issue_addr: Signal<In, Bits<DECODE_ADDRESS_BITS>>,
    /// A write's data.
    pub issue_wdata: Signal<In, Bits<32>>,
    /// A write's byte strobes.
    pub issue_wstrb: Signal<In, Bits<4>>,
    /// The request in flight is a write.
    pub pending_write: Signal<Out, Bit>,
    /// The acknowledge toggle's edge has arrived: the response is held.
    pub ack: Signal<Out, Bit>,
    /// The response's read data, held.
    pub response_data: Signal<Out, Bits<32>>,
    /// The response is an error, held.
    pub response_err: Signal<Out, Bit>,
    // ---- User side, user_clk domain.
    /// User clock.
    pub user_clk: Signal<In, Clock>,
    /// The one cycle of a write access.
    pub write: Signal<Out, Bit>,
    /// The one cycle of a read access.
    pub read: Signal<Out, Bit>,
    /// The request's address, held still from its toggle to its acknowledge.
    pub addr: Signal<Out, Bits<DECODE_ADDRESS_BITS>>,
    /// A write's data.
    pub wdata: Signal<Out, Bits<32>>,
    /// A write's byte strobes as a bit mask.
    pub wmask: Signal<Out, Bits<32>>,
    /// The answer's read data, taken in the access cycle.
    pub answer_data: Signal<In, Bits<32>>,
    /// The answer is an error, taken in the access cycle.
    pub answer_err: Signal<In, Bit>,
    // Bus domain: the request, held until the acknowledge.
    req_write: DFF<Bit>,
    req_addr: DFF<Bits<DECODE_ADDRESS_BITS>>,
    req_wdata: DFF<Bits<32>>,
    req_wstrb: DFF<Bits<4>>,
    req_tog: DFF<Bit>,
    ack_sync: SyncBit,
    ack_seen: DFF<Bit>,
    // User domain: the response, held until the next request.
    req_sync: SyncBit,
    req_seen: DFF<Bit>,
    strobe: Signal<Local, Bit>,
    ack_tog: DFF<Bit>,
    resp_data: DFF<Bits<32>>,
    resp_err: DFF<Bit>,
    /// The bits of byte 0 of the word; byte `b` is these shifted by `8 b`.
    byte0: Constant<Bits<32>>,
    byte1: Constant<Bits<32>>,
    byte2: Constant<Bits<32>>,
    byte3: Constant<Bits<32>>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
}

impl Default for RegsCrossing {
    fn default() -> Self {
        let byte = |b: u64| Constant::new(bits(0xFF << (8 * b)));
        Self {
            bus_clk: Default::default(),
            issue: Default::default(),
            issue_write: Default::default(),
            issue_addr: Default::default(),
            issue_wdata: Default::default(),
            issue_wstrb: Default::default(),
            pending_write: Default::default(),
            ack: Default::default(),
            response_data: Default::default(),
            response_err: Default::default(),
            user_clk: Default::default(),
            write: Default::default(),
            read: Default::default(),
            addr: Default::default(),
            wdata: Default::default(),
            wmask: Default::default(),
            answer_data: Default::default(),
            answer_err: Default::default(),
            req_write: Default::default(),
            req_addr: Default::default(),
            req_wdata: Default::default(),
            req_wstrb: Default::default(),
            req_tog: Default::default(),
            ack_sync: Default::default(),
            ack_seen: Default::default(),
            req_sync: Default::default(),
            req_seen: Default::default(),
            strobe: Default::default(),
            ack_tog: Default::default(),
            resp_data: Default::default(),
            resp_err: Default::default(),
            byte0: byte(0),
            byte1: byte(1),
            byte2: byte(2),
            byte3: byte(3),
            verilog_name: Default::default(),
        }
    }
}

impl Logic for RegsCrossing {
    #[hdl_gen]
    fn update(&mut self) {
        // Bus side: the request, toggled out; the acknowledge, synchronised in.
        self.req_write.clock.next = self.bus_clk.val();
        self.req_addr.clock.next = self.bus_clk.val();
        self.req_wdata.clock.next = self.bus_clk.val();
        self.req_wstrb.clock.next = self.bus_clk.val();
        self.req_tog.clock.next = self.bus_clk.val();
        self.ack_sync.clock.next = self.bus_clk.val();
        self.ack_seen.clock.next = self.bus_clk.val();
        // The toggles and the request they announce are not reset: a reset
        // of one domain alone must not make an edge the other side would
        // take for a request or an acknowledge.
        self.req_write.d.next = self.req_write.q.val();
        self.req_addr.d.next = self.req_addr.q.val();
        self.req_wdata.d.next = self.req_wdata.q.val();
        self.req_wstrb.d.next = self.req_wstrb.q.val();
        self.req_tog.d.next = self.req_tog.q.val();
        if self.issue.val() {
            self.req_write.d.next = self.issue_write.val();
            self.req_addr.d.next = self.issue_addr.val();
            self.req_tog.d.next = !self.req_tog.q.val();
            if self.issue_write.val() {
                self.req_wdata.d.next = self.issue_wdata.val();
                self.req_wstrb.d.next = self.issue_wstrb.val();
            }
        }
        self.pending_write.next = self.req_write.q.val();
        self.ack_sync.d.next = self.ack_tog.q.val();
        self.ack_seen.d.next = self.ack_sync.q.val();
        self.ack.next = self.ack_sync.q.val() != self.ack_seen.q.val();
        self.response_data.next = self.resp_data.q.val();
        self.response_err.next = self.resp_err.q.val();

        // User side: `strobe` is high for the one cycle after the request
        // toggle's edge arrives: the access cycle.
        self.req_sync.clock.next = self.user_clk.val();
        self.req_seen.clock.next = self.user_clk.val();
        self.ack_tog.clock.next = self.user_clk.val();
        self.resp_data.clock.next = self.user_clk.val();
        self.resp_err.clock.next = self.user_clk.val();
        self.req_sync.d.next = self.req_tog.q.val();
        self.req_seen.d.next = self.req_sync.q.val();
        self.strobe.next = self.req_sync.q.val() != self.req_seen.q.val();
        self.write.next = self.strobe.val() & self.req_write.q.val();
        self.read.next = self.strobe.val() & !self.req_write.q.val();
        self.addr.next = self.req_addr.q.val();
        self.wdata.next = self.req_wdata.q.val();
        self.wmask.next = 0.into();
        if self.req_wstrb.q.val().get_bit(0) {
            self.wmask.next = self.wmask.val() | self.byte0.val();
        }
        if self.req_wstrb.q.val().get_bit(1) {
            self.wmask.next = self.wmask.val() | self.byte1.val();
        }
        if self.req_wstrb.q.val().get_bit(2) {
            self.wmask.next = self.wmask.val() | self.byte2.val();
        }
        if self.req_wstrb.q.val().get_bit(3) {
            self.wmask.next = self.wmask.val() | self.byte3.val();
        }
        // The answer, held still, and the acknowledge toggle, taken in the
        // access cycle. Its test is `strobe` written out: the answer comes
        // from status words that show TOE inputs, and a local shared with
        // `write`/`read` would make Verilator schedule those two, and with
        // them every register word's next value, as input-dependent logic,
        // recomputed at every evaluation (issue 27). The logic is the same.
        self.ack_tog.d.next = self.ack_tog.q.val();
        self.resp_data.d.next = self.resp_data.q.val();
        self.resp_err.d.next = self.resp_err.q.val();
        if self.req_sync.q.val() != self.req_seen.q.val() {
            self.ack_tog.d.next = !self.ack_tog.q.val();
            self.resp_err.d.next = self.answer_err.val();
            self.resp_data.d.next = self.answer_data.val();
        }
    }
}
#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::emit::Module;

    /// The register file's modules as the writer emits them (prefix `t`,
    /// core `rf_core`).
    fn modules() -> Vec<Module> {
        let design = config::parse(&config::default_toml_with_sessions(1)).unwrap();
        let map = regmap::RegisterMap::for_design(&design);
        super::super::register_file_modules(&design, &map, "rf", "t").unwrap()
    }

    fn text_of<'a>(modules: &'a [Module], name: &str) -> &'a str {
        &modules.iter().find(|m| m.name == name).unwrap_or_else(|| panic!("no module {name}")).text
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

    /// The net connected to port `port` of instance `inst` in `text`.
    fn connection(text: &str, inst: &str, port: &str) -> Option<String> {
        let start = text.find(&format!(" {inst} ("))?;
        let conns = &text[start..start + text[start..].find(");")?];
        conns.lines().find_map(|l| {
            let rest = l.trim().strip_prefix(&format!(".{port}"))?;
            let rest = rest.trim_start();
            rest.strip_prefix('(').map(|r| r.trim_end_matches(',').trim_end_matches(')').trim().to_string())
        })
    }

    #[test]
    fn the_flows_get_the_writers_names_in_order() {
        let c = crossings();
        assert_eq!(
            c.sync_flops,
            [
                "u_crossing/u_req_sync/ff1_reg",
                "u_crossing/u_req_sync/ff2_reg",
                "u_crossing/u_ack_sync/ff1_reg",
                "u_crossing/u_ack_sync/ff2_reg"
            ]
        );
        assert_eq!(
            c.to_user,
            [
                "u_crossing/req_addr_reg",
                "u_crossing/req_write_reg",
                "u_crossing/req_wdata_reg",
                "u_crossing/req_wstrb_reg",
                "u_crossing/req_tog_reg"
            ]
        );
        assert_eq!(c.to_bus, ["u_crossing/resp_data_reg", "u_crossing/resp_err_reg", "u_crossing/ack_tog_reg"]);
    }

    #[test]
    fn every_exported_path_names_a_register_of_the_crossing() {
        let modules = modules();
        let core = text_of(&modules, "rf_core");
        let crossing = text_of(&modules, "t_regs_crossing");
        let sync = text_of(&modules, "t_sync_bit");
        let c = crossings();
        for path in c.sync_flops.iter().chain(&c.to_user).chain(&c.to_bus) {
            let parts: Vec<&str> = path.split('/').collect();
            assert!(
                core.contains(&format!("t_regs_crossing {} (", parts[0])),
                "`{path}`: no `{}` in the core",
                parts[0]
            );
            match parts[1..] {
                [inst, reg] => {
                    assert!(crossing.contains(&format!("t_sync_bit {inst} (")), "`{path}`: no instance `{inst}`");
                    assert!(sync.contains(&format!(" {reg} = ")), "`{path}`: no register `{reg}` in the synchroniser");
                }
                [reg] => assert!(crossing.contains(&format!(" {reg} = ")), "`{path}`: no register `{reg}`"),
                _ => panic!("`{path}`: not a register path"),
            }
        }
        assert!(sync.contains("ASYNC_REG"), "the synchroniser's registers carry ASYNC_REG");
    }

    #[test]
    fn held_registers_are_launched_in_their_domain_and_synchronisers_receive_in_the_other() {
        let modules = modules();
        let core = text_of(&modules, "rf_core");
        let text = text_of(&modules, "t_regs_crossing");
        let inst = instance_name(INSTANCE);
        // The crossing's two clocks are the register file's.
        assert_eq!(connection(core, &inst, "bus_clk").as_deref(), Some("s_axil_aclk"));
        assert_eq!(connection(core, &inst, "user_clk").as_deref(), Some("user_clk"));
        for name in TO_USER {
            assert_eq!(clock_of(text, &register_name(name)).as_deref(), Some("bus_clk"), "`{name}`");
        }
        for name in TO_BUS {
            assert_eq!(clock_of(text, &register_name(name)).as_deref(), Some("user_clk"), "`{name}`");
        }
        for sync in SYNCHRONISERS {
            let inst = instance_name(sync);
            let from = connection(text, &inst, "d").unwrap_or_else(|| panic!("{inst}: no d"));
            let from = from.strip_suffix("_reg").unwrap_or_else(|| panic!("`{sync}` samples `{from}`, not a register"));
            let into = match () {
                _ if TO_USER.contains(&from) => "user_clk",
                _ if TO_BUS.contains(&from) => "bus_clk",
                _ => panic!("`{sync}` samples `{from}`, which is not an exported held register"),
            };
            assert_eq!(
                connection(text, &inst, "clock").as_deref(),
                Some(into),
                "`{sync}` samples `{from}` but is not clocked by {into}"
            );
        }
    }

    #[test]
    fn every_synchroniser_of_the_crossing_is_exported() {
        let modules = modules();
        let found: BTreeSet<String> = modules
            .iter()
            .flat_map(|m| m.text.lines())
            .filter_map(|l| l.trim().strip_prefix("t_sync_bit u_")?.strip_suffix(" (").map(str::to_string))
            .collect();
        assert_eq!(found, SYNCHRONISERS.into_iter().map(str::to_string).collect());
    }
}
