//! What the templates of both vendors share: the words every file of one
//! render is made from ([`Job`]), the contexts of clocks, the board's pins and
//! lanes ([`PinsCtx`], for every board constraint file) and what both board
//! build scripts name ([`BoardCtx`]), each prepared once as Tcl words and
//! fixed-decimal numbers.

use askama::Template;

use crate::board::{Board, BoardClock, FlowError, RegisterKind};
use crate::names::{BoardFiles, MAC_INST, PLATFORM_INST, TOE_INST, USER_INST};
use crate::text::{mhz, period, tcl_word};
use crate::FlowInputs;

/// One render: its inputs and the words made from them once.
pub(super) struct Job<'a> {
    pub(super) design: &'a config::Design,
    pub(super) board: &'a Board,
    pub(super) inputs: &'a FlowInputs,
    pub(super) banner: [String; 2],
    /// The top's module name, as a Tcl word and plain.
    pub(super) top: String,
    pub(super) top_plain: &'a str,
    /// The RTL files, as Tcl words.
    pub(super) rtl: Vec<String>,
    /// The board top's module name, plain and as a Tcl word.
    pub(super) board_top_plain: String,
    pub(super) board_top: String,
    pub(super) toe_netlist: String,
    /// The design holds the open engine (`toe.core = "open"`): no TOE
    /// netlist, the board's MAC wrapper in its place.
    pub(super) open: bool,
}

/// The folder of the board files the user supplies (the platform, and with
/// the open engine the MAC wrapper): the folder of `toe.netlist`, relative to
/// the build folder unless absolute; the build folder itself when the path
/// has no folder.
pub(super) fn supply_dir(design: &config::Design) -> String {
    std::path::Path::new(&design.toe_netlist)
        .parent()
        .map(|p| p.display().to_string())
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| ".".into())
}

impl<'a> Job<'a> {
    pub(super) fn new(design: &'a config::Design, board: &'a Board, inputs: &'a FlowInputs) -> Job<'a> {
        let board_top_plain = format!("{}_board", inputs.top_module);
        Job {
            design,
            board,
            inputs,
            banner: design.banner(),
            top: tcl_word(&inputs.top_module),
            top_plain: &inputs.top_module,
            rtl: inputs.rtl_files.iter().map(|f| tcl_word(f)).collect(),
            board_top: tcl_word(&board_top_plain),
            board_top_plain,
            toe_netlist: tcl_word(&design.toe_netlist),
            open: matches!(design.toe_core, config::ToeCore::Open { .. }),
        }
    }

    /// The clocks of the top, for the OOC constraints.
    pub(super) fn clocks(&self) -> Vec<ClockCtx> {
        self.inputs.clocks.iter().map(|c| ClockCtx { name: tcl_word(&c.port), period: period(c.period_ns) }).collect()
    }

    /// The board's free-running and QSFP reference clocks, as Tcl words: the
    /// first asynchronous clock groups of the board constraints.
    pub(super) fn board_clocks(&self) -> Vec<String> {
        vec![tcl_word(&self.board.free_clock.port), tcl_word(&self.board.qsfp.refclk.port)]
    }

    /// The board's pins and clocks for a board constraint file.
    pub(super) fn pins(&self) -> PinsCtx<'a> {
        let board = self.board;
        PinsCtx {
            board_desc: &board.description,
            board_file: &board.file,
            board_top_plain: self.board_top_plain.clone(),
            free: pin_clock(&board.free_clock),
            qsfp_name: &board.qsfp.name,
            refclk: pin_clock(&board.qsfp.refclk),
            lanes: lane_ctxs(board),
        }
    }

    /// What a board build script names: the board, the top, the sources and
    /// the generated and supplied board files.
    pub(super) fn build(&self) -> BoardCtx<'a> {
        let board = self.board;
        let top = self.top_plain;
        let f = BoardFiles::new(top);
        BoardCtx {
            board_desc: &board.description,
            board_file: &board.file,
            part: &board.part,
            reg_desc: match board.register_path.kind {
                RegisterKind::PcieXdma => "PCIe BAR -> XDMA AXI4-Lite master",
                RegisterKind::JtagAvalon => "JTAG to Avalon Master Bridge -> AXI4-Lite",
            },
            toe_netlist: self.toe_netlist.clone(),
            board_top: self.board_top.clone(),
            top: self.top.clone(),
            user_inst_plain: USER_INST,
            toe_inst_plain: TOE_INST,
            rtl: self.rtl.clone(),
            board_top_file: tcl_word(&f.top),
            toe_stub: tcl_word(&f.toe_stub),
            platform_file: tcl_word(&format!("{top}_platform.v")),
            platform_stub: tcl_word(&f.platform_stub),
            platform_stub_plain: f.platform_stub,
            platform_inst_plain: PLATFORM_INST,
            open: self.open,
            supply_dir: tcl_word(&supply_dir(self.design)),
            mac_inst_plain: MAC_INST,
            mac_file: tcl_word(&format!("{top}_mac.v")),
            mac_stub: tcl_word(&f.mac_stub),
        }
    }
}

/// Renders `tpl` as the file `path`, ending in a newline.
pub(super) fn file<T: Template>(path: &str, tpl: T) -> Result<(String, String), FlowError> {
    let mut text = tpl.render().map_err(|e| FlowError::Template(format!("{path}: {e}")))?;
    if !text.ends_with('\n') {
        text.push('\n');
    }
    Ok((path.to_string(), text))
}

/// The part note of an OOC script: the configured board's, or the other
/// vendor's reference part.
pub(super) fn part_note(target: &Board, board: &Board) -> String {
    if target.name == board.name {
        format!("board {}", board.name)
    } else {
        format!(
            "reference part of board {}; the configured board {} is built by the other vendor's tools",
            target.name, board.name
        )
    }
}

pub(super) struct ClockCtx {
    pub(super) name: String,
    pub(super) period: String,
}

/// A board clock as the constraint templates need it.
pub(super) struct PinClock {
    pub(super) name: String,
    pub(super) freq: String,
    pub(super) period: String,
    pub(super) pin_p: String,
    pub(super) pin_n: Option<String>,
    pub(super) port_p: String,
    pub(super) port_n: String,
    pub(super) port_n_quartus: String,
    pub(super) io_standard: Option<String>,
    pub(super) io_standard_word: Option<String>,
}

pub(super) fn pin_clock(c: &BoardClock) -> PinClock {
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

pub(super) struct LaneCtx {
    pub(super) gt: String,
    pub(super) tx_p: String,
    pub(super) tx_n: String,
    pub(super) rx_p: String,
    pub(super) rx_n: String,
    pub(super) port_tx_p: String,
    pub(super) port_tx_n: String,
    pub(super) port_rx_p: String,
    pub(super) port_rx_n: String,
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

/// The board's pins and clocks, as every board constraint file names them.
pub(super) struct PinsCtx<'a> {
    pub(super) board_desc: &'a str,
    pub(super) board_file: &'a str,
    pub(super) board_top_plain: String,
    pub(super) free: PinClock,
    pub(super) qsfp_name: &'a str,
    pub(super) refclk: PinClock,
    pub(super) lanes: Vec<LaneCtx>,
}

/// What both board build scripts name: the board and its part, how it reaches
/// the registers, the TOE netlist, the tops, the sources, and the generated
/// board files and the platform file the user supplies.
pub(super) struct BoardCtx<'a> {
    pub(super) board_desc: &'a str,
    pub(super) board_file: &'a str,
    pub(super) part: &'a str,
    pub(super) reg_desc: &'static str,
    pub(super) toe_netlist: String,
    pub(super) board_top: String,
    pub(super) top: String,
    pub(super) user_inst_plain: &'static str,
    pub(super) toe_inst_plain: &'static str,
    /// The RTL files, as Tcl words.
    pub(super) rtl: Vec<String>,
    pub(super) board_top_file: String,
    pub(super) toe_stub: String,
    pub(super) platform_file: String,
    pub(super) platform_stub: String,
    pub(super) platform_stub_plain: String,
    pub(super) platform_inst_plain: &'static str,
    /// The open engine: no TOE netlist; the MAC wrapper `mac_file` the user
    /// supplies, in `supply_dir` beside the platform, instead.
    pub(super) open: bool,
    pub(super) supply_dir: String,
    pub(super) mac_inst_plain: &'static str,
    pub(super) mac_file: String,
    pub(super) mac_stub: String,
}
