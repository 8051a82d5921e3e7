//! The board top `<top>_board` and the black-box stubs of the two modules it
//! instantiates besides the user logic, derived from the user logic's port
//! plan (each port placed by its [`Group`]) and the board model:
//!
//! ```text
//!  board pins ──> u_platform (<top>_platform: clocks, resets, register master) ──┐
//!                  user_clk, user_rst, s_axil_aclk, s_axil_aresetn, m_axil_* ────┤
//!                                                                                 v
//!                                                      u_user_logic (<top>) <──> u_toe (<top>_toe) <──> QSFP pins
//! ```
//!
//! - `u_toe`: every [`Group::ToeGlobal`] and [`Group::ToeSession`] port of
//!   the user logic (`toe_*` / `toe<s>_*`) with the opposite direction, plus `user_clk`, `user_rst` and the QSFP reference
//!   clock and lanes of the board file. The licensed core fills it (a netlist
//!   of that name, or one wrapper adapting its pin names).
//! - `u_platform`: the vendor shell the user supplies: the user-logic clocks
//!   and resets from the free-running board clock, and the register master
//!   (XDMA over PCIe on Alveo, JTAG-to-Avalon bridge on the Agilex kit)
//!   driving every [`Group::Bus`] port (`s_axil_*`) as `m_axil_*`.
//!
//! A port of any other group (register-file fields, pins, or a clock other
//! than `user_clk`/`user_rst`) is an error naming it, so a new port cannot be
//! left dangling on the board.

use config::ports::{range, Direction, Group, Port, PortPlan};

use crate::board::{Board, FlowError, RegisterKind};
use crate::names::{BoardFiles, PLATFORM_INST, TOE_INST, USER_INST};
use crate::text::mhz;
use crate::FlowInputs;

/// Address width of the register master every board's platform has (the
/// XDMA's AXI4-Lite master on Alveo, the JTAG-to-Avalon bridge's AXI4-Lite
/// export on the Agilex kit): 32 bits. The user logic's `s_axil_awaddr` and
/// `s_axil_araddr` must be as wide, so the board top wires the master's
/// whole address through; the register file decodes every bit, and an
/// address outside the map answers SLVERR instead of aliasing onto it.
pub const MASTER_ADDRESS_BITS: usize = 32;

/// The [`Group::Bus`] ports that carry the master's address.
const BUS_ADDRESS: [&str; 2] = ["awaddr", "araddr"];

/// The user clock and reset, which the platform drives and the TOE shares.
const USER_CLOCK: [(Group, &str); 2] = [(Group::Clock, "user_clk"), (Group::Clock, "user_rst")];
/// The register bus clock and reset, which the platform drives.
const BUS_CLOCK: [(Group, &str); 2] = [(Group::Bus, "aclk"), (Group::Bus, "aresetn")];

/// 1-bit ports of `direction` for the (group, local name) pairs `names`.
fn clock_ports(names: &[(Group, &str)], direction: Direction) -> Vec<Port> {
    names.iter().map(|(g, l)| Port::new(*g, l, direction, 1)).collect()
}

/// Every clock and reset of the user logic, as inputs, in board-top order.
fn all_clocks() -> Vec<Port> {
    clock_ports(&[USER_CLOCK, BUS_CLOCK].concat(), Direction::Input)
}

/// The board pins: (group comment, ports), and which of them the TOE and the platform take.
struct Pins {
    toe: Vec<Port>,
    platform: Vec<Port>,
}

fn pin(name: &str, direction: Direction, width: usize) -> Port {
    Port::new(Group::Pin, name, direction, width)
}

fn clock_pins(port: &str, has_n: bool) -> Vec<Port> {
    let mut v = vec![pin(&format!("{port}_p"), Direction::Input, 1)];
    if has_n {
        v.push(pin(&format!("{port}_n"), Direction::Input, 1));
    }
    v
}

fn lane_pins(prefix: &str, n: usize) -> Vec<Port> {
    vec![
        pin(&format!("{prefix}_tx_p"), Direction::Output, n),
        pin(&format!("{prefix}_tx_n"), Direction::Output, n),
        pin(&format!("{prefix}_rx_p"), Direction::Input, n),
        pin(&format!("{prefix}_rx_n"), Direction::Input, n),
    ]
}

fn board_pins(board: &Board) -> Pins {
    let mut toe = clock_pins(&board.qsfp.refclk.port, board.qsfp.refclk.pin_n.is_some());
    toe.extend(lane_pins(&board.qsfp.name, board.qsfp.lanes.len()));
    let mut platform = clock_pins(&board.free_clock.port, board.free_clock.pin_n.is_some());
    if let Some(p) = &board.register_path.pcie {
        platform.extend(clock_pins(&p.refclk.port, p.refclk.pin_n.is_some()));
        platform.push(pin(&p.perst_port, Direction::Input, 1));
        platform.extend(lane_pins("pcie", p.lanes as usize));
    }
    Pins { toe, platform }
}

/// Where each user-logic port goes on the board.
struct Split {
    /// User-logic TOE ports, [`Group::ToeGlobal`] and [`Group::ToeSession`]
    /// (as the user logic has them).
    toe: Vec<Port>,
    /// [`Group::Bus`] ports other than clock and reset (as the user logic has them).
    bus: Vec<Port>,
}

/// Places every port of the plan by its group; a port the board top cannot
/// place (a register-file or pin group, or an unknown clock) is an error naming it.
fn split(plan: &PortPlan) -> Result<Split, FlowError> {
    let bad = |field: String, message: String| FlowError::Inputs { field, message };
    let clocks = [USER_CLOCK, BUS_CLOCK].concat();
    let mut toe = Vec::new();
    let mut bus = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for (i, p) in plan.ports().iter().enumerate() {
        if p.name.is_empty() || !p.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') || p.width == 0 {
            return Err(bad(
                format!("ports[{i}]"),
                format!("{:?} width {}: must be a plain Verilog identifier of width >= 1", p.name, p.width),
            ));
        }
        if seen.contains(&p.name.as_str()) {
            return Err(bad(format!("ports[{i}]"), format!("{:?} appears twice", p.name)));
        }
        seen.push(&p.name);
        if clocks.iter().any(|(g, l)| p.group == *g && p.local == *l) {
            if p.direction != Direction::Input || p.width != 1 {
                return Err(bad(format!("ports[{i}]"), format!("{:?} must be a 1-bit {:?}", p.name, Direction::Input)));
            }
            continue;
        }
        match p.group {
            Group::Bus if BUS_ADDRESS.contains(&p.local.as_str()) && p.width != MASTER_ADDRESS_BITS => {
                return Err(bad(
                    format!("ports[{i}]"),
                    format!(
                        "{:?} is {} bits wide: the register master's address is {MASTER_ADDRESS_BITS} bits, and a narrower port would drop its upper bits (addresses outside the map would alias onto it)",
                        p.name, p.width
                    ),
                ))
            }
            Group::Bus => bus.push(p.clone()),
            Group::ToeGlobal | Group::ToeSession(_) => toe.push(p.clone()),
            Group::Clock
            | Group::RegisterSession(_)
            | Group::RegisterShared
            | Group::Datapath(_)
            | Group::Info
            | Group::Pin => {
                return Err(bad(
                    format!("ports[{i}]"),
                    format!("{:?} ({:?}) is none of user_clk/user_rst, a register bus port (Bus) or a TOE port (ToeGlobal, ToeSession): the board top cannot place it", p.name, p.group),
                ))
            }
        }
    }
    for (group, local) in clocks {
        if plan.get(group, local).is_err() {
            return Err(bad("ports".into(), format!("the user logic has no `{}` port", group.top_name(local))));
        }
    }
    Ok(Split { toe, bus })
}

fn port_list(groups: &[(String, Vec<Port>)]) -> String {
    let mut out = String::new();
    let total: usize = groups.iter().map(|(_, g)| g.len()).sum();
    let mut k = 0;
    for (comment, ports) in groups {
        if ports.is_empty() {
            continue;
        }
        out.push_str(&format!("    // {comment}\n"));
        for p in ports {
            k += 1;
            out.push_str(&format!("    {}{}\n", p.declaration(), if k == total { "" } else { "," }));
        }
    }
    out
}

fn conns(pairs: &[(String, String)]) -> String {
    let width = pairs.iter().map(|(p, _)| p.len()).max().unwrap_or(0);
    pairs
        .iter()
        .enumerate()
        .map(|(i, (p, n))| format!("        .{p:<width$} ({n}){}\n", if i + 1 == pairs.len() { "" } else { "," }))
        .collect()
}

/// A black-box module: its ports, outputs tied low and inputs gathered in an
/// `unused_*` net so the stub itself is lint-clean. Synthesis ignores the body.
fn stub_module(name: &str, header: &str, groups: &[(String, Vec<Port>)]) -> String {
    let mut s = String::new();
    s.push_str(header);
    s.push_str(&format!("(* black_box *)\nmodule {name} (\n"));
    s.push_str(&port_list(groups));
    s.push_str(");\n\n    // Stand-in body for lint only: a black box has no logic of its own.\n");
    let all: Vec<&Port> = groups.iter().flat_map(|(_, g)| g.iter()).collect();
    for p in all.iter().filter(|p| p.direction == Direction::Output) {
        s.push_str(&format!("    assign {} = {{{}{{1'b0}}}};\n", p.name, p.width));
    }
    let ins: Vec<&str> = all.iter().filter(|p| p.direction == Direction::Input).map(|p| p.name.as_str()).collect();
    if !ins.is_empty() {
        s.push_str(&format!("    wire unused_inputs = &{{1'b0, {}}};\n", ins.join(", ")));
    }
    s.push_str(&format!("\nendmodule // {name}\n"));
    s
}

/// `(path, text)` of the board top and the two stubs.
pub fn render_board_top(
    design: &config::Design,
    board: &Board,
    inputs: &FlowInputs,
) -> Result<Vec<(String, String)>, FlowError> {
    let top = &inputs.top_module;
    let files = BoardFiles::new(top);
    let s = split(&inputs.ports)?;
    let pins = board_pins(board);
    let toe_mod = format!("{top}_toe");
    let plat_mod = format!("{top}_platform");
    let board_mod = format!("{top}_board");

    // ---- TOE core black box
    let toe_core: Vec<Port> = s.toe.iter().map(|p| Port { direction: p.direction.flip(), ..p.clone() }).collect();
    let toe_groups = vec![
        (
            "User clock domain (the TOE session interface is synchronous to user_clk)".to_string(),
            clock_ports(&USER_CLOCK, Direction::Input),
        ),
        ("TOE side of the user logic's TOE ports (docs/toe_interface.md), opposite directions".to_string(), toe_core),
        (format!("{} reference clock and lanes ({})", board.qsfp.name, board.file), pins.toe.clone()),
    ];
    let toe_header = format!(
        "// Black box of the TOE core `{toe_mod}` for the board top `{board_mod}`.\n\
         // REPLACE WITH YOUR LICENSED CORE: its netlist (toe.netlist) must define this\n\
         // module with these ports, or you write one wrapper `{toe_mod}` with these ports\n\
         // around the core that adapts the pin names (and instantiates the Ethernet MAC/PHY\n\
         // if the core needs one outside). The ports follow the configuration: {} session(s),\n\
         // {}-bit data. Read by the board build only when toe.netlist is a netlist (.edf/.edn/.edif);\n\
         // not in rtl/files.f.\n",
        design.sessions, design.data_width
    );
    let toe_text = stub_module(&toe_mod, &toe_header, &toe_groups);

    // ---- Platform black box
    // The master side of each bus port: same group and local name, `m_axil_*`, other direction.
    let master: Vec<Port> = s
        .bus
        .iter()
        .map(|p| Port { name: format!("m_axil_{}", p.local), direction: p.direction.flip(), ..p.clone() })
        .collect();
    let clocks = clock_ports(&[USER_CLOCK, BUS_CLOCK].concat(), Direction::Output);
    let reg_desc = match board.register_path.kind {
        RegisterKind::PcieXdma => "the XDMA IP `xdma_regs` of vivado/ip.tcl (its AXI4-Lite master, through an AXI clock converter into s_axil_aclk)",
        RegisterKind::JtagAvalon => "the Platform Designer system quartus/ip/reg_bridge.ip (JTAG to Avalon Master Bridge exporting AXI4-Lite, clocked by s_axil_aclk)",
    };
    let user_mhz = design.user_clock_mhz;
    let reg_mhz = design.reg_clock_mhz;
    let plat_groups = vec![
        (format!("Board pins ({})", board.file), pins.platform.clone()),
        ("User-logic clocks and resets (resets synchronous to their clock, released after lock)".to_string(), clocks),
        ("Register master: AXI4-Lite, s_axil_aclk domain".to_string(), master.clone()),
    ];
    let plat_header = format!(
        "// Black box of the platform `{plat_mod}` for the board top `{board_mod}`: YOU SUPPLY IT\n\
         // (board build: `{plat_mod}.v` beside the TOE netlist). It holds the vendor IP that cannot be generated here:\n\
         // - a PLL / clocking wizard from the free-running {} MHz board clock `{}` to\n\
         //   user_clk ({user_mhz} MHz) and s_axil_aclk ({reg_mhz} MHz), the frequencies the constraints assume;\n\
         // - user_rst (active high) and s_axil_aresetn (active low), each synchronous to its clock;\n\
         // - the register master: {reg_desc};\n\
         //   its whole {MASTER_ADDRESS_BITS}-bit address drives m_axil_awaddr/araddr (drop no bit: the register\n\
         //   file decodes all of them and answers SLVERR outside the map).\n\
         // Lint only reads this stub; it is not in rtl/files.f.\n",
        mhz(board.free_clock.freq_mhz),
        board.free_clock.port
    );
    let plat_text = stub_module(&plat_mod, &plat_header, &plat_groups);

    // ---- The board top
    let mut body = String::new();
    body.push_str(&format!(
        "// Board top of `{top}` on {}: wiring only.\n\
         //\n\
         //   board clock{} --> {PLATFORM_INST} ({plat_mod}) --> user_clk/user_rst, s_axil_aclk/aresetn, AXI4-Lite master\n\
         //   {PLATFORM_INST} m_axil_* <--> {USER_INST} ({top}) s_axil_*\n\
         //   {USER_INST} toe_*, toe<s>_* <--> {TOE_INST} ({toe_mod}) <--> {} refclk + {} lanes\n\
         //\n\
         // {toe_mod} is the licensed TOE core (stub: rtl/stub/{toe_mod}.v); {plat_mod} is yours\n\
         // (stub: rtl/stub/{plat_mod}.v). Pins: vivado/board.xdc or quartus/board.qsf.\n",
        board.description,
        if board.register_path.pcie.is_some() { ", PCIe" } else { "" },
        board.qsfp.name,
        board.qsfp.lanes.len(),
    ));
    let board_groups = vec![
        ("Free-running board clock and register path".to_string(), pins.platform.clone()),
        (format!("{} reference clock and lanes", board.qsfp.name), pins.toe.clone()),
    ];
    body.push_str(&format!("module {board_mod} (\n{});\n\n", port_list(&board_groups)));
    body.push_str("    // User-logic clocks and resets\n");
    for p in all_clocks() {
        body.push_str(&format!("    wire {};\n", p.name));
    }
    body.push_str("    // Register bus\n");
    for p in &s.bus {
        body.push_str(&format!("    wire {}{};\n", range(p.width), p.name));
    }
    body.push_str("    // TOE interface\n");
    for p in &s.toe {
        body.push_str(&format!("    wire {}{};\n", range(p.width), p.name));
    }
    let mut pc: Vec<(String, String)> = pins.platform.iter().map(|p| (p.name.clone(), p.name.clone())).collect();
    for p in all_clocks() {
        pc.push((p.name.clone(), p.name));
    }
    for (m, p) in master.iter().zip(&s.bus) {
        pc.push((m.name.clone(), p.name.clone()));
    }
    body.push_str(&format!("\n    {plat_mod} {PLATFORM_INST} (\n{}    );\n", conns(&pc)));
    let uc: Vec<(String, String)> = inputs.ports.ports().iter().map(|p| (p.name.clone(), p.name.clone())).collect();
    body.push_str(&format!("\n    {top} {USER_INST} (\n{}    );\n", conns(&uc)));
    let mut tc: Vec<(String, String)> =
        clock_ports(&USER_CLOCK, Direction::Input).into_iter().map(|p| (p.name.clone(), p.name)).collect();
    tc.extend(s.toe.iter().map(|p| (p.name.clone(), p.name.clone())));
    tc.extend(pins.toe.iter().map(|p| (p.name.clone(), p.name.clone())));
    body.push_str(&format!("\n    {toe_mod} {TOE_INST} (\n{}    );\n\nendmodule // {board_mod}\n", conns(&tc)));

    Ok(vec![
        (files.top, design.verilog_file(&body)),
        (files.toe_stub, design.verilog_file(&toe_text)),
        (files.platform_stub, design.verilog_file(&plat_text)),
    ])
}
