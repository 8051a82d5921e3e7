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
//! With the open engine (`toe.core = "open"`) the generated top holds the
//! engine itself and its network port is the MAC's AXI4-Stream
//! ([`Group::Mac`]), so the board's Ethernet MAC takes the licensed core's
//! place:
//!
//! ```text
//!  u_user_logic (<top>: user logic + open engine) mac_* <──> u_mac (<top>_mac) <──> QSFP pins
//! ```
//!
//! - `u_mac`: every [`Group::Mac`] port of the top with the opposite
//!   direction, `user_clk`, `user_rst` and the QSFP reference clock and
//!   lanes. The user fills it with a wrapper of that name around the vendor
//!   MAC IP, its streams crossed to `user_clk`; there is no `<top>_toe` stub
//!   (the engine `<top>_toe` is generated RTL).
//!
//! A port of any other group (register-file fields, pins, a clock other
//! than `user_clk`/`user_rst`, or the other core's network ports) is an
//! error naming it, so a new port cannot be left dangling on the board.

use config::ports::{range, Direction, Group, Port, PortPlan};
use config::ToeCore;

use crate::board::{Board, FlowError, RegisterKind, Vendor};
use crate::names::{BoardFiles, MAC_INST, PLATFORM_INST, TOE_INST, USER_INST};
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
    /// The user logic's network ports (as the user logic has them): with the
    /// licensed core its TOE ports, [`Group::ToeGlobal`] and
    /// [`Group::ToeSession`]; with the open engine its MAC port, [`Group::Mac`].
    net: Vec<Port>,
    /// [`Group::Bus`] ports other than clock and reset (as the user logic has them).
    bus: Vec<Port>,
}

/// Places every port of the plan by its group; a port the board top cannot
/// place (a register-file or pin group, an unknown clock, a network port of
/// the other TOE core, or a MAC port unlike [`mac_ports`]) is an error naming it.
///
/// [`mac_ports`]: config::ports::mac_ports
fn split(plan: &PortPlan, design: &config::Design) -> Result<Split, FlowError> {
    let bad = |field: String, message: String| FlowError::Inputs { field, message };
    let clocks = [USER_CLOCK, BUS_CLOCK].concat();
    let open = matches!(design.toe_core, ToeCore::Open { .. });
    let mac = config::ports::mac_ports(design.data_width);
    let mut net = Vec::new();
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
            Group::ToeGlobal | Group::ToeSession(_) if !open => net.push(p.clone()),
            Group::ToeGlobal | Group::ToeSession(_) => {
                return Err(bad(
                    format!("ports[{i}]"),
                    format!("{:?} ({:?}) is a port of the licensed TOE core's interface, but toe.core is \"open\": the open engine is inside the top, whose network port is the MAC stream (Mac); the board top cannot place it", p.name, p.group),
                ))
            }
            Group::Mac if open => {
                let Some(want) = mac.iter().find(|m| m.local == p.local) else {
                    let locals: Vec<&str> = mac.iter().map(|m| m.local.as_str()).collect();
                    return Err(bad(
                        format!("ports[{i}]"),
                        format!("{:?} (Mac) is not a port of the MAC stream: its ports are mac_{{{}}}", p.name, locals.join(", ")),
                    ));
                };
                if p.direction != want.direction {
                    let driver = if want.direction == Direction::Input { "the MAC drives it" } else { "the engine drives it" };
                    return Err(bad(
                        format!("ports[{i}]"),
                        format!("{:?} (Mac) is an {}: it must be an {} of the top ({driver})", p.name, p.direction.keyword(), want.direction.keyword()),
                    ));
                }
                if p.width != want.width {
                    return Err(bad(
                        format!("ports[{i}]"),
                        format!("{:?} (Mac) is {} bits wide: it must be {} bits for design.data_width {}", p.name, p.width, want.width, design.data_width),
                    ));
                }
                net.push(p.clone());
            }
            Group::Mac => {
                return Err(bad(
                    format!("ports[{i}]"),
                    format!("{:?} (Mac) is the open engine's MAC port, but toe.core is \"licensed\": the licensed core's user logic has TOE ports (ToeGlobal, ToeSession); the board top cannot place it", p.name),
                ))
            }
            Group::Clock if open => return Err(unplaceable_open(i, p)),
            Group::RegisterSession(_)
            | Group::RegisterShared
            | Group::Datapath(_)
            | Group::Info
            | Group::Pin
            | Group::Net
                if open =>
            {
                return Err(unplaceable_open(i, p))
            }
            Group::Clock
            | Group::RegisterSession(_)
            | Group::RegisterShared
            | Group::Datapath(_)
            | Group::Info
            | Group::Pin
            | Group::Net => {
                return Err(bad(
                    format!("ports[{i}]"),
                    format!("{:?} ({:?}) is none of user_clk/user_rst, a register bus port (Bus) or a TOE port (ToeGlobal, ToeSession): the board top cannot place it", p.name, p.group),
                ))
            }
        }
    }
    let mut needed: Vec<(Group, &str)> = clocks;
    if open {
        needed.extend(mac.iter().map(|m| (m.group, m.local.as_str())));
    }
    for (group, local) in needed {
        if plan.get(group, local).is_err() {
            return Err(bad("ports".into(), format!("the user logic has no `{}` port", group.top_name(local))));
        }
    }
    Ok(Split { net, bus })
}

/// A port an open-core top has no place for on the board, named.
fn unplaceable_open(i: usize, p: &Port) -> FlowError {
    FlowError::Inputs {
        field: format!("ports[{i}]"),
        message: format!(
            "{:?} ({:?}) is none of user_clk/user_rst, a register bus port (Bus) or a MAC port (Mac): the board top cannot place it",
            p.name, p.group
        ),
    }
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
    let s = split(&inputs.ports, design)?;
    let pins = board_pins(board);
    let plat_mod = format!("{top}_platform");
    let board_mod = format!("{top}_board");
    let open = matches!(design.toe_core, ToeCore::Open { .. });
    let core = if open { mac_side(design, board, top, &s, &pins) } else { toe_side(design, board, top, &s, &pins) };
    let core_text = stub_module(&core.module, &core.header, &core.groups);

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
         // (board build: `{plat_mod}.v` beside {}). It holds the vendor IP that cannot be generated here:\n\
         // - a PLL / clocking wizard from the free-running {} MHz board clock `{}` to\n\
         //   user_clk ({user_mhz} MHz) and s_axil_aclk ({reg_mhz} MHz), the frequencies the constraints assume;\n\
         // - user_rst (active high) and s_axil_aresetn (active low), each synchronous to its clock;\n\
         // - the register master: {reg_desc};\n\
         //   its whole {MASTER_ADDRESS_BITS}-bit address drives m_axil_awaddr/araddr (drop no bit: the register\n\
         //   file decodes all of them and answers SLVERR outside the map).\n\
         // Lint only reads this stub; it is not in rtl/files.f.\n",
        if open { "your MAC wrapper" } else { "the TOE netlist" },
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
         //   {USER_INST} {}, {} <--> {} ({}) <--> {} refclk + {} lanes\n\
         //\n\
         // {}",
        board.description,
        if board.register_path.pcie.is_some() { ", PCIe" } else { "" },
        core.user_ports.0,
        core.user_ports.1,
        core.inst,
        core.module,
        board.qsfp.name,
        board.qsfp.lanes.len(),
        core.about,
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
    body.push_str(&format!("    // {}\n", core.wires));
    for p in &s.net {
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
    tc.extend(s.net.iter().map(|p| (p.name.clone(), p.name.clone())));
    tc.extend(pins.toe.iter().map(|p| (p.name.clone(), p.name.clone())));
    body.push_str(&format!(
        "\n    {} {} (\n{}    );\n\nendmodule // {board_mod}\n",
        core.module,
        core.inst,
        conns(&tc)
    ));

    Ok(vec![
        (files.top, design.verilog_file(&body)),
        (if open { files.mac_stub } else { files.toe_stub }, design.verilog_file(&core_text)),
        (files.platform_stub, design.verilog_file(&plat_text)),
    ])
}

/// The block on the board side of the user logic's network ports: the
/// licensed TOE core, or with the open engine the Ethernet MAC wrapper.
struct CoreSide {
    module: String,
    inst: &'static str,
    /// The stub's header comment and port groups.
    header: String,
    groups: Vec<(String, Vec<Port>)>,
    /// The user logic's network ports as the board top's diagram names them.
    user_ports: (&'static str, &'static str),
    /// The board top's comment lines under its diagram, from the core's
    /// name to the end of the comment.
    about: String,
    /// The comment over the wires of the network ports.
    wires: &'static str,
}

/// The licensed TOE core `<top>_toe` as a black box.
fn toe_side(design: &config::Design, board: &Board, top: &str, s: &Split, pins: &Pins) -> CoreSide {
    let toe_mod = format!("{top}_toe");
    let board_mod = format!("{top}_board");
    let plat_mod = format!("{top}_platform");
    let toe_core: Vec<Port> = s.net.iter().map(|p| Port { direction: p.direction.flip(), ..p.clone() }).collect();
    let groups = vec![
        (
            "User clock domain (the TOE session interface is synchronous to user_clk)".to_string(),
            clock_ports(&USER_CLOCK, Direction::Input),
        ),
        ("TOE side of the user logic's TOE ports (docs/toe_interface.md), opposite directions".to_string(), toe_core),
        (format!("{} reference clock and lanes ({})", board.qsfp.name, board.file), pins.toe.clone()),
    ];
    let header = format!(
        "// Black box of the TOE core `{toe_mod}` for the board top `{board_mod}`.\n\
         // REPLACE WITH YOUR LICENSED CORE: its netlist (toe.netlist) must define this\n\
         // module with these ports, or you write one wrapper `{toe_mod}` with these ports\n\
         // around the core that adapts the pin names (and instantiates the Ethernet MAC/PHY\n\
         // if the core needs one outside). The ports follow the configuration: {} session(s),\n\
         // {}-bit data. Read by the board build only when toe.netlist is a netlist (.edf/.edn/.edif);\n\
         // not in rtl/files.f.\n",
        design.sessions, design.data_width
    );
    CoreSide {
        about: format!(
            "{toe_mod} is the licensed TOE core (stub: rtl/stub/{toe_mod}.v); {plat_mod} is yours\n\
             // (stub: rtl/stub/{plat_mod}.v). Pins: vivado/board.xdc or quartus/board.qsf.\n"
        ),
        module: toe_mod,
        inst: TOE_INST,
        header,
        groups,
        user_ports: ("toe_*", "toe<s>_*"),
        wires: "TOE interface",
    }
}

/// The vendor MAC IP for the header of the MAC wrapper's stub: this board's
/// and what else the vendor offers for the cage.
fn mac_ip(board: &Board) -> String {
    let vendor = match board.vendor {
        Vendor::Amd => "AMD offers CMAC (UltraScale+ 100G Ethernet) and the 10G/25G Ethernet Subsystem",
        Vendor::Intel => "Intel offers F-tile Ethernet Hard IP (E-tile Hard IP for Ethernet on E-tile boards)",
    };
    format!(
        "here the {} on {} at {}G ({}); {vendor}",
        board.qsfp.mac, board.qsfp.name, board.qsfp.line_rate_gbps, board.file
    )
}

/// The Ethernet MAC wrapper `<top>_mac` of an open-core design as a black box:
/// the MAC side of the top's [`Group::Mac`] ports.
fn mac_side(design: &config::Design, board: &Board, top: &str, s: &Split, pins: &Pins) -> CoreSide {
    let mac_mod = format!("{top}_mac");
    let board_mod = format!("{top}_board");
    let plat_mod = format!("{top}_platform");
    let mac: Vec<Port> = s.net.iter().map(|p| Port { direction: p.direction.flip(), ..p.clone() }).collect();
    let groups = vec![
        (
            "User clock domain: both streams are synchronous to user_clk, not to the MAC's own clock".to_string(),
            clock_ports(&USER_CLOCK, Direction::Input),
        ),
        (
            "MAC side of the top's MAC stream (Ethernet II frames, no preamble/FCS), opposite directions".to_string(),
            mac,
        ),
        (format!("{} reference clock and lanes ({})", board.qsfp.name, board.file), pins.toe.clone()),
    ];
    let w = design.data_width;
    let header = format!(
        "// Black box of the Ethernet MAC `{mac_mod}` for the board top `{board_mod}`.\n\
         // YOU SUPPLY IT: a wrapper named `{mac_mod}` with these ports around the vendor MAC IP,\n\
         // {}.\n\
         // The top `{top}` holds the open TOE engine (toe.core = \"open\"); the wrapper is only the MAC:\n\
         // - mac_rx_* (outputs here): Ethernet II frames the MAC received, without preamble and FCS:\n\
         //   {w}-bit tdata, first byte on the wire in tdata[7:0], tkeep per byte contiguous from bit 0,\n\
         //   tlast on the last beat; mac_rx_tuser on any beat marks a frame the MAC saw bad (FCS):\n\
         //   the engine drops it. No tready: the engine takes a beat every cycle rx_tvalid is high\n\
         //   (a MAC cannot wait), so the RX crossing must never stall the MAC.\n\
         // - mac_tx_* (inputs here, mac_tx_tready an output): frames to send, the same form;\n\
         //   the MAC adds preamble and FCS; tready may stall the engine.\n\
         // - Both streams are in user_clk ({} MHz); the MAC's own clock (from its transceiver) differs,\n\
         //   so the wrapper crosses each stream (an asynchronous FIFO per direction).\n\
         // Read by the board build as `{mac_mod}.v` beside your platform; lint reads this stub; not in rtl/files.f.\n",
        mac_ip(board),
        mhz(design.user_clock_mhz),
    );
    CoreSide {
        about: format!(
            "{top} holds the open TOE engine ({top}_toe, in rtl/); {mac_mod} is your Ethernet MAC wrapper\n\
             // (stub: rtl/stub/{mac_mod}.v) and {plat_mod} is yours (stub: rtl/stub/{plat_mod}.v).\n\
             // Pins: vivado/board.xdc or quartus/board.qsf.\n"
        ),
        module: mac_mod,
        inst: MAC_INST,
        header,
        groups,
        user_ports: ("mac_rx_*", "mac_tx_*"),
        wires: "MAC stream (AXI4-Stream, user_clk)",
    }
}
