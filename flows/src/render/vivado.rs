//! The Vivado files: the out-of-context synthesis of the user logic (script
//! and XDC) on any board, and on an AMD board the board build (script, IP
//! generation, pin and clock XDC). Each template's context is filled here
//! from the render's [`Job`].

use askama::Template;

use super::cdc::{cdc, Cdc};
use super::context::{file, part_note, pin_clock, BoardCtx, ClockCtx, Job, PinClock, PinsCtx};
use crate::board::{Board, FlowError};
use crate::names::USER_INST;
use crate::text::{mhz, tcl_word};

/// Vivado IP instance names in the board build.
const XDMA_NAME: &str = "xdma_regs";
const CMAC_NAME: &str = "cmac_eth";

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
    pins: PinsCtx<'a>,
    pcie: Option<PcieCtx>,
    board_clocks: Vec<String>,
    user_clock_pins: Vec<String>,
    cdc: Option<Cdc>,
}

#[derive(Template)]
#[template(path = "vivado_build.tcl", escape = "none")]
struct VivadoBuildTcl<'a> {
    banner: &'a [String; 2],
    mac_desc: &'a str,
    board: BoardCtx<'a>,
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

/// `vivado/ooc_synth.tcl` and `vivado/ooc.xdc` for the part of `target`.
pub(super) fn ooc(job: &Job, target: &Board) -> Result<Vec<(String, String)>, FlowError> {
    let banner = &job.banner;
    Ok(vec![
        file(
            "vivado/ooc_synth.tcl",
            VivadoOocTcl {
                banner,
                top: job.top.clone(),
                top_plain: job.top_plain,
                part: &target.part,
                part_note: part_note(target, job.board),
                rtl: job.rtl.clone(),
            },
        )?,
        file("vivado/ooc.xdc", VivadoOocXdc { banner, clocks: job.clocks(), cdc: cdc(job.inputs) })?,
    ])
}

/// The board build of an AMD board: `vivado/build.tcl`, `vivado/ip.tcl`, `vivado/board.xdc`.
pub(super) fn board_build(job: &Job) -> Result<Vec<(String, String)>, FlowError> {
    let (banner, board, inputs) = (&job.banner, job.board, job.inputs);
    let pcie = board.register_path.pcie.as_ref().ok_or_else(|| FlowError::Board {
        file: board.file.clone(),
        key: "register_path.pcie".into(),
        message: "missing: amd boards reach registers over PCIe and need `[register_path.pcie]`".into(),
    })?;
    let mut board_clocks = job.board_clocks();
    board_clocks.push(tcl_word(&pcie.refclk.port));
    let mut files =
        vec![file("vivado/build.tcl", VivadoBuildTcl { banner, mac_desc: &board.qsfp.mac, board: job.build() })?];
    let sites: Vec<String> =
        board.qsfp.lanes.iter().map(|l| l.gt.rsplit('_').next().unwrap_or(&l.gt).to_string()).collect();
    let first = sites.first().cloned().unwrap_or_default();
    let last = sites.last().cloned().unwrap_or_default();
    files.push(file(
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
    files.push(file(
        "vivado/board.xdc",
        VivadoBoardXdc {
            banner,
            pins: job.pins(),
            pcie: Some(PcieCtx {
                lanes: pcie.lanes,
                refclk: pin_clock(&pcie.refclk),
                perst_pin: pcie.perst_pin.clone(),
                perst_port: tcl_word(&pcie.perst_port),
                perst_io_standard: pcie.perst_io_standard.clone(),
            }),
            board_clocks,
            user_clock_pins: inputs.clocks.iter().map(|c| tcl_word(&format!("{USER_INST}/{}", c.port))).collect(),
            cdc: cdc(inputs),
        },
    )?);
    Ok(files)
}
