//! The clock-domain crossing constraints: the register file's crossings
//! ([`FlowInputs::crossings`], docs/register_file.md, "Implementation
//! constraints") as the Vivado filters and Quartus patterns every constraint
//! template writes, with the destination clock and period of each held-value
//! crossing.

use crate::names::USER_INST;
use crate::text::{period, tcl_word};
use crate::{ClockPort, FlowInputs, REG_CLOCK_PORT, USER_CLOCK_PORT};

/// One held-value crossing: source registers, destination clock and its period.
pub(super) struct Crossing {
    /// Vivado `get_cells -hierarchical -filter` expression, as a Tcl word.
    pub(super) vivado_cells: String,
    /// Quartus `get_registers` patterns, as Tcl words.
    pub(super) quartus_regs: Vec<String>,
    /// Destination clock port.
    pub(super) clock: String,
    /// `u_user_logic/<clock>` as a Tcl word, for the board XDC.
    pub(super) clock_pin: String,
    pub(super) period: String,
    pub(super) what: &'static str,
}

/// The crossing constraints. The names are Verilog paths relative to the
/// register-file core (`u_req_sync/ff1_reg`, `req_addr_reg`); the cells the
/// tools infer from a register take its name and more (Vivado:
/// `.../u_core/u_req_sync/ff1_reg_reg`, `.../req_addr_reg_reg[3]`; Quartus:
/// `...|u_core|req_addr_reg[3]`), so each name matches as a prefix of the
/// cell's last path element.
pub(super) struct Cdc {
    /// Vivado filter of each synchroniser flip-flop, as Tcl words.
    pub(super) vivado_sync: Vec<String>,
    /// Quartus pattern of each synchroniser flip-flop, as Tcl words.
    pub(super) quartus_sync: Vec<String>,
    pub(super) crossings: Vec<Crossing>,
}

/// `None` (no crossing section: the templates then put the clocks in
/// asynchronous groups) when there are no crossings or the top lacks the user
/// or the register clock; a crossing without registers is left out.
pub(super) fn cdc(inputs: &FlowInputs) -> Option<Cdc> {
    let x = &inputs.crossings;
    if x.sync_flops.is_empty() && x.to_user.is_empty() && x.to_bus.is_empty() {
        return None;
    }
    let user = inputs.clocks.iter().find(|c| c.port == USER_CLOCK_PORT)?;
    let reg = inputs.clocks.iter().find(|c| c.port == REG_CLOCK_PORT)?;
    let vivado = |names: &[String]| {
        let terms: Vec<String> = names.iter().map(|n| format!("NAME =~ */{n}*")).collect();
        tcl_word(&format!("IS_SEQUENTIAL && ({})", terms.join(" || ")))
    };
    let quartus = |n: &str| tcl_word(&format!("*|{}*", n.replace('/', "|")));
    let crossing = |names: &[String], clock: &ClockPort, what| Crossing {
        vivado_cells: vivado(names),
        quartus_regs: names.iter().map(|n| quartus(n)).collect(),
        clock: tcl_word(&clock.port),
        clock_pin: tcl_word(&format!("{USER_INST}/{}", clock.port)),
        period: period(clock.period_ns),
        what,
    };
    Some(Cdc {
        vivado_sync: x.sync_flops.iter().map(|n| vivado(std::slice::from_ref(n))).collect(),
        quartus_sync: x.sync_flops.iter().map(|n| quartus(n)).collect(),
        crossings: [
            (&x.to_user, user, "request (bus domain) into the user domain"),
            (&x.to_bus, reg, "response (user domain) into the bus domain"),
        ]
        .into_iter()
        .filter(|(names, _, _)| !names.is_empty())
        .map(|(names, clock, what)| crossing(names, clock, what))
        .collect(),
    })
}
