//! The Quartus files: the out-of-context synthesis of the user logic (script,
//! SDC, timing report) on any board, and on an Intel board the board build
//! (script, pin QSF, clock SDC) with the Platform Designer IP the user
//! creates. Each template's context is filled here from the render's [`Job`].

use askama::Template;

use super::cdc::{cdc, Cdc};
use super::context::{file, part_note, BoardCtx, ClockCtx, Job, PinsCtx};
use crate::board::{Board, FlowError, RegisterKind};
use crate::text::tcl_word;

/// Quartus IP the user creates on `board`, relative to `quartus/`, with what
/// it must be: the register bridge and the board's Ethernet hard IP on its cage.
/// With the open engine (`mac_wrapper`: the wrapper's module) the MAC IP
/// lives in the user's MAC wrapper instead of serving a TOE core.
pub(super) fn quartus_ip(board: &Board, mac_wrapper: Option<&str>) -> Vec<(String, String)> {
    let q = &board.qsfp;
    let eth = match mac_wrapper {
        None => format!(
            "{} on the {} lanes ({}G, as your TOE core expects), reference clock as in board.qsf",
            q.mac, q.name, q.line_rate_gbps
        ),
        Some(wrapper) => format!(
            "{} on the {} lanes ({}G), reference clock as in board.qsf; instantiated in your MAC wrapper `{wrapper}`",
            q.mac, q.name, q.line_rate_gbps
        ),
    };
    vec![
        (
            "ip/reg_bridge.ip".into(),
            "Platform Designer system exporting an AXI4-Lite master (32-bit address and data) driven by a JTAG to Avalon Master Bridge, clocked by the register clock".into(),
        ),
        ("ip/eth_mac.ip".into(), eth),
    ]
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

#[derive(Template)]
#[template(path = "quartus_build.tcl", escape = "none")]
struct QuartusBuildTcl<'a> {
    banner: &'a [String; 2],
    family: String,
    board: BoardCtx<'a>,
    ip_files: Vec<String>,
}

#[derive(Template)]
#[template(path = "quartus_board.qsf", escape = "none")]
struct QuartusBoardQsf<'a> {
    banner: &'a [String; 2],
    pins: PinsCtx<'a>,
    lane_io_standard: Option<String>,
    cdc: Option<Cdc>,
}

#[derive(Template)]
#[template(path = "quartus_board.sdc", escape = "none")]
struct QuartusBoardSdc<'a> {
    banner: &'a [String; 2],
    pins: PinsCtx<'a>,
    jtag: bool,
    board_clocks: Vec<String>,
    user_clocks: Vec<String>,
    cdc: Option<Cdc>,
}

/// `quartus/ooc_synth.tcl`, `quartus/ooc.sdc` and `quartus/sta_report.tcl`
/// for the part of `target`.
pub(super) fn ooc(job: &Job, target: &Board) -> Result<Vec<(String, String)>, FlowError> {
    let banner = &job.banner;
    Ok(vec![
        file(
            "quartus/ooc_synth.tcl",
            QuartusOocTcl {
                banner,
                top: job.top.clone(),
                top_plain: job.top_plain,
                family: tcl_word(&target.family),
                part: &target.part,
                part_note: part_note(target, job.board),
                rtl: job.rtl.clone(),
                clocks: job.clocks(),
                cdc: cdc(job.inputs),
            },
        )?,
        file("quartus/ooc.sdc", QuartusOocSdc { banner, clocks: job.clocks(), cdc: cdc(job.inputs) })?,
        file("quartus/sta_report.tcl", QuartusStaReport { banner })?,
    ])
}

/// The board build of an Intel board: `quartus/build.tcl`, `quartus/board.qsf`, `quartus/board.sdc`.
pub(super) fn board_build(job: &Job) -> Result<Vec<(String, String)>, FlowError> {
    let (banner, board, inputs) = (&job.banner, job.board, job.inputs);
    let jtag = board.register_path.kind == RegisterKind::JtagAvalon;
    let mut board_clocks = job.board_clocks();
    if jtag {
        board_clocks.push(tcl_word("altera_reserved_tck"));
    }
    Ok(vec![
        file(
            "quartus/build.tcl",
            QuartusBuildTcl {
                banner,
                family: tcl_word(&board.family),
                board: job.build(),
                ip_files: quartus_ip(board, None).iter().map(|(p, _)| tcl_word(p)).collect(),
            },
        )?,
        file(
            "quartus/board.qsf",
            QuartusBoardQsf {
                banner,
                pins: job.pins(),
                lane_io_standard: board.qsfp.lane_io_standard.as_deref().map(tcl_word),
                cdc: cdc(inputs),
            },
        )?,
        file(
            "quartus/board.sdc",
            QuartusBoardSdc {
                banner,
                pins: job.pins(),
                jtag,
                board_clocks,
                user_clocks: inputs.clocks.iter().map(|c| tcl_word(&c.port)).collect(),
                cdc: cdc(inputs),
            },
        )?,
    ])
}
