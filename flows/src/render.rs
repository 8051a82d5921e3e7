//! Templates and their typed contexts. Every value that reaches Tcl, XDC, SDC
//! or QSF text is prepared here: names through [`tcl_word`], numbers with a
//! fixed number of decimals, so the output is byte-identical for the same
//! inputs.

use askama::Template;

use crate::board::{board_names, load_board, Board, BoardClock, FlowError, RegisterKind, Vendor};
use crate::board_top::{render_board_top, BoardFiles};
use crate::{tcl_word, FlowInputs, REG_CLOCK_PORT, USER_CLOCK_PORT};

/// One held-value crossing: source registers, destination clock and its period.
struct Crossing {
    /// Vivado `get_cells -hierarchical -filter` expression, as a Tcl word.
    vivado_cells: String,
    /// Quartus `get_registers` patterns, as Tcl words.
    quartus_regs: Vec<String>,
    /// Destination clock port.
    clock: String,
    /// `u_user_logic/<clock>` as a Tcl word, for the board XDC.
    clock_pin: String,
    period: String,
    what: &'static str,
}

/// The crossing constraints of [`FlowInputs::crossings`] (the register file's,
/// docs/register_file.md, "Implementation constraints"). rust-hdl names the
/// modules `<regs>$core$req_sync$ff1`; the instance path of the flip-flop is
/// `.../core/req_sync/ff1/q` (`|` in Quartus), which is what the constraints
/// match.
struct Cdc {
    /// Vivado filter of each synchroniser flip-flop, as Tcl words.
    vivado_sync: Vec<String>,
    /// Quartus pattern of each synchroniser flip-flop, as Tcl words.
    quartus_sync: Vec<String>,
    crossings: Vec<Crossing>,
}

/// `None` (no crossing section: the templates then put the clocks in
/// asynchronous groups) when there are no crossings or the top lacks the user
/// or the register clock; a crossing without registers is left out.
fn cdc(inputs: &FlowInputs) -> Option<Cdc> {
    let x = &inputs.crossings;
    if x.sync_flops.is_empty() && x.to_user.is_empty() && x.to_bus.is_empty() {
        return None;
    }
    let user = inputs.clocks.iter().find(|c| c.port == USER_CLOCK_PORT)?;
    let reg = inputs.clocks.iter().find(|c| c.port == REG_CLOCK_PORT)?;
    let vivado = |names: &[String]| {
        let terms: Vec<String> = names.iter().map(|n| format!("NAME =~ */{n}/*")).collect();
        tcl_word(&format!("IS_SEQUENTIAL && ({})", terms.join(" || ")))
    };
    let quartus = |n: &str| tcl_word(&format!("*|{}|*", n.replace('/', "|")));
    let crossing = |names: &[String], clock: &crate::ClockPort, what| Crossing {
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

/// Instance names the board top must use (the CDC constraints find the
/// user logic's clock pins through them).
pub const USER_INST: &str = "u_user_logic";
pub const TOE_INST: &str = "u_toe";

fn period(ns: f64) -> String {
    format!("{ns:.3}")
}

pub(crate) fn mhz(f: f64) -> String {
    // Shortest exact decimal: 161.1328125 stays whole, 100.0 prints as 100.
    let s = format!("{f}");
    s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
}

struct ClockCtx {
    name: String,
    period: String,
}

fn clock_ctxs(inputs: &FlowInputs) -> Vec<ClockCtx> {
    inputs
        .clocks
        .iter()
        .map(|c| ClockCtx {
            name: tcl_word(&c.port),
            period: period(c.period_ns),
        })
        .collect()
}

fn rtl_words(inputs: &FlowInputs) -> Vec<String> {
    inputs.rtl_files.iter().map(|f| tcl_word(f)).collect()
}

#[derive(Template)]
#[template(path = "vivado_ooc_synth.tcl", escape = "none")]
struct VivadoOocTcl<'a> {
    banner: &'a [String; 2],
    top: String,
    top_plain: &'a str,
    part: &'a str,
    part_note: String,
    rtl: Vec<String>,
}

#[derive(Template)]
#[template(path = "vivado_ooc.xdc", escape = "none")]
struct VivadoOocXdc<'a> {
    banner: &'a [String; 2],
    clocks: Vec<ClockCtx>,
    cdc: Option<Cdc>,
}

#[derive(Template)]
#[template(path = "quartus_ooc_synth.tcl", escape = "none")]
struct QuartusOocTcl<'a> {
    banner: &'a [String; 2],
    top: String,
    top_plain: &'a str,
    family: String,
    part: &'a str,
    part_note: String,
    rtl: Vec<String>,
    clocks: Vec<ClockCtx>,
    cdc: Option<Cdc>,
}

#[derive(Template)]
#[template(path = "quartus_ooc.sdc", escape = "none")]
struct QuartusOocSdc<'a> {
    banner: &'a [String; 2],
    clocks: Vec<ClockCtx>,
    cdc: Option<Cdc>,
}

#[derive(Template)]
#[template(path = "quartus_sta_report.tcl", escape = "none")]
struct QuartusStaReport<'a> {
    banner: &'a [String; 2],
}

/// A board clock as the constraint templates need it.
struct PinClock {
    name: String,
    freq: String,
    period: String,
    pin_p: String,
    pin_n: Option<String>,
    port_p: String,
    port_n: String,
    port_n_quartus: String,
    io_standard: Option<String>,
    io_standard_word: Option<String>,
}

fn pin_clock(c: &BoardClock) -> PinClock {
    PinClock {
        name: tcl_word(&c.port),
        freq: mhz(c.freq_mhz),
        period: period(c.period_ns()),
        pin_p: c.pin_p.clone(),
        pin_n: c.pin_n.clone(),
        port_p: tcl_word(&format!("{}_p", c.port)),
        port_n: tcl_word(&format!("{}_n", c.port)),
        port_n_quartus: tcl_word(&format!("{}_p(n)", c.port)),
        io_standard: c.io_standard.clone(),
        io_standard_word: c.io_standard.as_deref().map(tcl_word),
    }
}

struct LaneCtx {
    gt: String,
    tx_p: String,
    tx_n: String,
    rx_p: String,
    rx_n: String,
    port_tx_p: String,
    port_tx_n: String,
    port_rx_p: String,
    port_rx_n: String,
}

fn lane_ctxs(board: &Board) -> Vec<LaneCtx> {
    let q = &board.qsfp;
    q.lanes
        .iter()
        .enumerate()
        .map(|(i, l)| LaneCtx {
            gt: l.gt.clone(),
            tx_p: l.tx_p.clone(),
            tx_n: l.tx_n.clone(),
            rx_p: l.rx_p.clone(),
            rx_n: l.rx_n.clone(),
            port_tx_p: tcl_word(&format!("{}_tx_p[{i}]", q.name)),
            port_tx_n: tcl_word(&format!("{}_tx_n[{i}]", q.name)),
            port_rx_p: tcl_word(&format!("{}_rx_p[{i}]", q.name)),
            port_rx_n: tcl_word(&format!("{}_rx_n[{i}]", q.name)),
        })
        .collect()
}

struct PcieCtx {
    lanes: u32,
    refclk: PinClock,
    perst_pin: String,
    perst_port: String,
    perst_io_standard: String,
}

#[derive(Template)]
#[template(path = "vivado_board.xdc", escape = "none")]
struct VivadoBoardXdc<'a> {
    banner: &'a [String; 2],
    board_desc: &'a str,
    board_file: &'a str,
    board_top_plain: String,
    free: PinClock,
    qsfp_name: &'a str,
    refclk: PinClock,
    lanes: Vec<LaneCtx>,
    pcie: Option<PcieCtx>,
    board_clocks: Vec<String>,
    user_clock_pins: Vec<String>,
    cdc: Option<Cdc>,
}

#[derive(Template)]
#[template(path = "vivado_build.tcl", escape = "none")]
struct VivadoBuildTcl<'a> {
    banner: &'a [String; 2],
    board_desc: &'a str,
    board_file: &'a str,
    part: &'a str,
    mac_desc: &'a str,
    reg_desc: &'a str,
    toe_netlist: String,
    board_top: String,
    top: String,
    user_inst_plain: &'a str,
    toe_inst_plain: &'a str,
    board: BoardCtx,
    rtl: Vec<String>,
}

#[derive(Template)]
#[template(path = "vivado_ip.tcl", escape = "none")]
struct VivadoIpTcl<'a> {
    banner: &'a [String; 2],
    part: &'a str,
    pcie_lanes: u32,
    xdma_name: &'a str,
    cmac_name: &'a str,
    qsfp_name: &'a str,
    mac_site: Option<String>,
    gt_first: String,
    gt_last: String,
    gt_group: String,
    gt_locs: Vec<String>,
    refclk_mhz: String,
}

#[derive(Template)]
#[template(path = "quartus_build.tcl", escape = "none")]
struct QuartusBuildTcl<'a> {
    banner: &'a [String; 2],
    board_desc: &'a str,
    board_file: &'a str,
    part: &'a str,
    family: String,
    reg_desc: &'a str,
    toe_netlist: String,
    board_top: String,
    top: String,
    user_inst_plain: &'a str,
    toe_inst_plain: &'a str,
    board: BoardCtx,
    ip_files: Vec<String>,
    rtl: Vec<String>,
}

#[derive(Template)]
#[template(path = "quartus_board.qsf", escape = "none")]
struct QuartusBoardQsf<'a> {
    banner: &'a [String; 2],
    board_desc: &'a str,
    board_file: &'a str,
    board_top_plain: String,
    free: PinClock,
    qsfp_name: &'a str,
    refclk: PinClock,
    lanes: Vec<LaneCtx>,
    lane_io_standard: Option<String>,
    cdc: Option<Cdc>,
}

#[derive(Template)]
#[template(path = "quartus_board.sdc", escape = "none")]
struct QuartusBoardSdc<'a> {
    banner: &'a [String; 2],
    board_desc: &'a str,
    board_file: &'a str,
    board_top_plain: String,
    free: PinClock,
    refclk: PinClock,
    jtag: bool,
    board_clocks: Vec<String>,
    user_clocks: Vec<String>,
    cdc: Option<Cdc>,
}

/// The generated board files and the platform file the user supplies, as the build scripts name them.
struct BoardCtx {
    board_top_file: String,
    toe_stub: String,
    platform_file: String,
    platform_stub: String,
    platform_stub_plain: String,
    platform_inst_plain: &'static str,
}

fn board_ctx(top: &str) -> BoardCtx {
    let f = BoardFiles::new(top);
    BoardCtx {
        board_top_file: tcl_word(&f.top),
        toe_stub: tcl_word(&f.toe_stub),
        platform_file: tcl_word(&format!("{top}_platform.v")),
        platform_stub: tcl_word(&f.platform_stub),
        platform_stub_plain: f.platform_stub,
        platform_inst_plain: crate::PLATFORM_INST,
    }
}

/// One OOC target in the README.
struct OocLine {
    tool: &'static str,
    script: &'static str,
    make: &'static str,
    part: String,
    board: String,
}

#[derive(Template)]
#[template(path = "build_readme.md", escape = "none")]
struct BuildReadme<'a> {
    banner: &'a [String; 2],
    design: &'a config::Design,
    board: &'a Board,
    peak_mb_per_s: String,
    user_mhz: String,
    reg_mhz: String,
    ooc: Vec<OocLine>,
    board_top: String,
    user_inst: &'a str,
    toe_inst: &'a str,
    platform_inst: &'a str,
    toe_stub: String,
    platform_stub: String,
    platform_module: String,
    toe_module: String,
    toe_netlist_dir: String,
    cdc: bool,
    amd: bool,
    rtl: &'a [String],
    clocks: Vec<(String, String)>,
    ports: Vec<String>,
    quartus_ip: Vec<(String, String)>,
    missing: &'a [String],
}

/// Vivado IP instance names in the board build.
const XDMA_NAME: &str = "xdma_regs";
const CMAC_NAME: &str = "cmac_eth";
/// Quartus IP the user creates, relative to `quartus/`, with what it must be.
const QUARTUS_IP: &[(&str, &str)] = &[
    (
        "ip/reg_bridge.ip",
        "Platform Designer system exporting an AXI4-Lite master (32-bit address and data) driven by a JTAG to Avalon Master Bridge, clocked by the register clock",
    ),
    (
        "ip/eth_mac.ip",
        "E-tile Hard IP for Ethernet on the QSFP-DD0 lanes, at the rate your TOE core expects, reference clock as in board.qsf",
    ),
];

fn check_inputs(inputs: &FlowInputs) -> Result<(), FlowError> {
    let bad = |field: &str, message: String| {
        Err(FlowError::Inputs {
            field: field.to_string(),
            message,
        })
    };
    if inputs.top_module.is_empty() || inputs.top_module.chars().any(char::is_whitespace) {
        return bad(
            "top_module",
            format!(
                "{:?} must be a non-empty module name without whitespace",
                inputs.top_module
            ),
        );
    }
    if inputs.rtl_files.is_empty() {
        return bad("rtl_files", "must list at least one Verilog file".into());
    }
    for (i, f) in inputs.rtl_files.iter().enumerate() {
        if f.is_empty() || f.contains('\n') || f.starts_with('/') {
            return bad(
                &format!("rtl_files[{i}]"),
                format!("{f:?} must be a non-empty path relative to the build folder"),
            );
        }
    }
    if inputs.ports.ports().is_empty() {
        return bad(
            "ports",
            "must list the top's ports: the board top is derived from them".into(),
        );
    }
    if inputs.clocks.is_empty() {
        return bad("clocks", "must list at least one clock port".into());
    }
    for (i, c) in inputs.clocks.iter().enumerate() {
        if c.port.is_empty() || c.port.chars().any(char::is_whitespace) {
            return bad(
                &format!("clocks[{i}].port"),
                format!("{:?} must be a port name without whitespace", c.port),
            );
        }
        if !(c.period_ns.is_finite() && c.period_ns > 0.0) {
            return bad(
                &format!("clocks[{i}].period_ns"),
                format!("{} must be a positive number of ns", c.period_ns),
            );
        }
        if inputs.clocks[..i].iter().any(|o| o.port == c.port) {
            return bad(
                &format!("clocks[{i}].port"),
                format!("{:?} appears twice: each clock port once", c.port),
            );
        }
    }
    Ok(())
}

/// The board the other vendor's OOC synthesis targets: the first of that
/// vendor in name order.
fn reference_board(vendor: Vendor) -> Result<Option<Board>, FlowError> {
    for name in board_names() {
        let b = load_board(name)?;
        if b.vendor == vendor {
            return Ok(Some(b));
        }
    }
    Ok(None)
}

fn part_note(target: &Board, board: &Board) -> String {
    if target.name == board.name {
        format!("board {}", board.name)
    } else {
        format!(
            "reference part of board {}; the configured board {} is built by the other vendor's tools",
            target.name, board.name
        )
    }
}

fn t<T: Template>(path: &str, tpl: T) -> Result<(String, String), FlowError> {
    let mut text = tpl
        .render()
        .map_err(|e| FlowError::Template(format!("{path}: {e}")))?;
    if !text.ends_with('\n') {
        text.push('\n');
    }
    Ok((path.to_string(), text))
}

/// The files of the build folder for `design` on `board`, as (path relative
/// to the build folder, contents), in a fixed order.
pub fn render(
    design: &config::Design,
    board: &Board,
    inputs: &FlowInputs,
) -> Result<Vec<(String, String)>, FlowError> {
    check_inputs(inputs)?;
    let banner = design.banner();
    let banner = &banner;
    let top = tcl_word(&inputs.top_module);
    let top_plain = inputs.top_module.as_str();
    let rtl = rtl_words(inputs);
    let board_top_plain = format!("{}_board", inputs.top_module);
    let board_top = tcl_word(&board_top_plain);
    let toe_netlist = tcl_word(&design.toe_netlist);

    let amd_board = if board.vendor == Vendor::Amd {
        Some(board.clone())
    } else {
        reference_board(Vendor::Amd)?
    };
    let intel_board = if board.vendor == Vendor::Intel {
        Some(board.clone())
    } else {
        reference_board(Vendor::Intel)?
    };

    let mut files = Vec::new();
    let mut ooc = Vec::new();
    if let Some(amd) = &amd_board {
        files.push(t(
            "vivado/ooc_synth.tcl",
            VivadoOocTcl {
                banner,
                top: top.clone(),
                top_plain,
                part: &amd.part,
                part_note: part_note(amd, board),
                rtl: rtl.clone(),
            },
        )?);
        files.push(t(
            "vivado/ooc.xdc",
            VivadoOocXdc {
                banner,
                clocks: clock_ctxs(inputs),
                cdc: cdc(inputs),
            },
        )?);
        ooc.push(OocLine {
            tool: "Vivado",
            script: "vivado/ooc_synth.tcl",
            make: "make vivado-ooc",
            part: amd.part.clone(),
            board: amd.name.clone(),
        });
    }
    if let Some(intel) = &intel_board {
        files.push(t(
            "quartus/ooc_synth.tcl",
            QuartusOocTcl {
                banner,
                top: top.clone(),
                top_plain,
                family: tcl_word(&intel.family),
                part: &intel.part,
                part_note: part_note(intel, board),
                rtl: rtl.clone(),
                clocks: clock_ctxs(inputs),
                cdc: cdc(inputs),
            },
        )?);
        files.push(t(
            "quartus/ooc.sdc",
            QuartusOocSdc {
                banner,
                clocks: clock_ctxs(inputs),
                cdc: cdc(inputs),
            },
        )?);
        files.push(t("quartus/sta_report.tcl", QuartusStaReport { banner })?);
        ooc.push(OocLine {
            tool: "Quartus",
            script: "quartus/ooc_synth.tcl",
            make: "make quartus-ooc",
            part: intel.part.clone(),
            board: intel.name.clone(),
        });
    }

    let user_clock_names: Vec<String> = inputs.clocks.iter().map(|c| tcl_word(&c.port)).collect();
    let reg_desc = match board.register_path.kind {
        RegisterKind::PcieXdma => "PCIe BAR -> XDMA AXI4-Lite master",
        RegisterKind::JtagAvalon => "JTAG to Avalon Master Bridge -> AXI4-Lite",
    };
    let mut board_clocks = vec![
        tcl_word(&board.free_clock.port),
        tcl_word(&board.qsfp.refclk.port),
    ];
    match board.vendor {
        Vendor::Amd => {
            let pcie = board.register_path.pcie.as_ref().ok_or_else(|| FlowError::Board {
                file: board.file.clone(),
                key: "register_path.pcie".into(),
                message: "missing: amd boards reach registers over PCIe and need `[register_path.pcie]`".into(),
            })?;
            board_clocks.push(tcl_word(&pcie.refclk.port));
            files.push(t(
                "vivado/build.tcl",
                VivadoBuildTcl {
                    banner,
                    board_desc: &board.description,
                    board_file: &board.file,
                    part: &board.part,
                    mac_desc: "100G CMAC",
                    reg_desc,
                    toe_netlist: toe_netlist.clone(),
                    board_top: board_top.clone(),
                    top: top.clone(),
                    user_inst_plain: USER_INST,
                    toe_inst_plain: TOE_INST,
                    board: board_ctx(top_plain),
                    rtl: rtl.clone(),
                },
            )?);
            let sites: Vec<String> = board
                .qsfp
                .lanes
                .iter()
                .map(|l| l.gt.rsplit('_').next().unwrap_or(&l.gt).to_string())
                .collect();
            let first = sites.first().cloned().unwrap_or_default();
            let last = sites.last().cloned().unwrap_or_default();
            files.push(t(
                "vivado/ip.tcl",
                VivadoIpTcl {
                    banner,
                    part: &board.part,
                    pcie_lanes: pcie.lanes,
                    xdma_name: XDMA_NAME,
                    cmac_name: CMAC_NAME,
                    qsfp_name: &board.qsfp.name,
                    mac_site: board.qsfp.mac_site.clone(),
                    gt_group: format!("{first}~{last}"),
                    gt_first: first,
                    gt_last: last,
                    gt_locs: sites,
                    refclk_mhz: mhz(board.qsfp.refclk.freq_mhz),
                },
            )?);
            files.push(t(
                "vivado/board.xdc",
                VivadoBoardXdc {
                    banner,
                    board_desc: &board.description,
                    board_file: &board.file,
                    board_top_plain: board_top_plain.clone(),
                    free: pin_clock(&board.free_clock),
                    qsfp_name: &board.qsfp.name,
                    refclk: pin_clock(&board.qsfp.refclk),
                    lanes: lane_ctxs(board),
                    pcie: Some(PcieCtx {
                        lanes: pcie.lanes,
                        refclk: pin_clock(&pcie.refclk),
                        perst_pin: pcie.perst_pin.clone(),
                        perst_port: tcl_word(&pcie.perst_port),
                        perst_io_standard: pcie.perst_io_standard.clone(),
                    }),
                    board_clocks,
                    user_clock_pins: inputs
                        .clocks
                        .iter()
                        .map(|c| tcl_word(&format!("{USER_INST}/{}", c.port)))
                        .collect(),
                    cdc: cdc(inputs),
                },
            )?);
        }
        Vendor::Intel => {
            let jtag = board.register_path.kind == RegisterKind::JtagAvalon;
            if jtag {
                board_clocks.push(tcl_word("altera_reserved_tck"));
            }
            files.push(t(
                "quartus/build.tcl",
                QuartusBuildTcl {
                    banner,
                    board_desc: &board.description,
                    board_file: &board.file,
                    part: &board.part,
                    family: tcl_word(&board.family),
                    reg_desc,
                    toe_netlist: toe_netlist.clone(),
                    board_top: board_top.clone(),
                    top: top.clone(),
                    user_inst_plain: USER_INST,
                    toe_inst_plain: TOE_INST,
                    board: board_ctx(top_plain),
                    ip_files: QUARTUS_IP.iter().map(|(p, _)| tcl_word(p)).collect(),
                    rtl: rtl.clone(),
                },
            )?);
            files.push(t(
                "quartus/board.qsf",
                QuartusBoardQsf {
                    banner,
                    board_desc: &board.description,
                    board_file: &board.file,
                    board_top_plain: board_top_plain.clone(),
                    free: pin_clock(&board.free_clock),
                    qsfp_name: &board.qsfp.name,
                    refclk: pin_clock(&board.qsfp.refclk),
                    lanes: lane_ctxs(board),
                    lane_io_standard: board.qsfp.lane_io_standard.as_deref().map(tcl_word),
                    cdc: cdc(inputs),
                },
            )?);
            files.push(t(
                "quartus/board.sdc",
                QuartusBoardSdc {
                    banner,
                    board_desc: &board.description,
                    board_file: &board.file,
                    board_top_plain: board_top_plain.clone(),
                    free: pin_clock(&board.free_clock),
                    refclk: pin_clock(&board.qsfp.refclk),
                    jtag,
                    board_clocks,
                    user_clocks: user_clock_names.clone(),
                    cdc: cdc(inputs),
                },
            )?);
        }
    }

    let mut ports = vec![
        format!("{}_p", board.free_clock.port),
        format!("{}_p", board.qsfp.refclk.port),
        format!(
            "{0}_tx_p/_tx_n/_rx_p/_rx_n[{1}:0]",
            board.qsfp.name,
            board.qsfp.lanes.len() - 1
        ),
    ];
    if board.free_clock.pin_n.is_some() {
        ports[0] = format!("{0}_p / {0}_n", board.free_clock.port);
    }
    if board.qsfp.refclk.pin_n.is_some() {
        ports[1] = format!("{0}_p / {0}_n", board.qsfp.refclk.port);
    }
    if let Some(p) = &board.register_path.pcie {
        ports.push(format!("{0}_p / {0}_n", p.refclk.port));
        ports.push(p.perst_port.clone());
    }
    files.push(t(
        "README.md",
        BuildReadme {
            banner,
            design,
            board,
            peak_mb_per_s: format!("{:.0}", design.peak_mb_per_s()),
            user_mhz: mhz(design.user_clock_mhz),
            reg_mhz: mhz(design.reg_clock_mhz),
            ooc,
            board_top: board_top_plain,
            user_inst: USER_INST,
            toe_inst: TOE_INST,
            platform_inst: crate::PLATFORM_INST,
            toe_stub: BoardFiles::new(top_plain).toe_stub,
            platform_stub: BoardFiles::new(top_plain).platform_stub,
            platform_module: format!("{top_plain}_platform"),
            toe_module: format!("{top_plain}_toe"),
            toe_netlist_dir: std::path::Path::new(&design.toe_netlist)
                .parent()
                .map(|p| p.display().to_string())
                .filter(|p| !p.is_empty())
                .unwrap_or_else(|| ".".into()),
            cdc: cdc(inputs).is_some(),
            amd: board.vendor == Vendor::Amd,
            rtl: &inputs.rtl_files,
            clocks: inputs
                .clocks
                .iter()
                .map(|c| (c.port.clone(), period(c.period_ns)))
                .collect(),
            ports,
            quartus_ip: QUARTUS_IP
                .iter()
                .map(|(p, d)| (p.to_string(), d.to_string()))
                .collect(),
            missing: &board.missing,
        },
    )?);
    files.extend(render_board_top(design, board, inputs)?);
    Ok(files)
}
