//! The build folder's `README.md`: what to run for the out-of-context and
//! the board builds, what the user must supply (TOE netlist, platform, vendor
//! IP), the clocks and pins the constraints assume, and what the board file
//! leaves open.

use askama::Template;

use super::cdc::cdc;
use super::context::{file, supply_dir, Job};
use super::quartus::quartus_ip;
use crate::board::{Board, FlowError, Vendor};
use crate::names::{BoardFiles, MAC_INST, PLATFORM_INST, TOE_INST, USER_INST};
use crate::text::{mhz, period};

/// One OOC target in the README.
pub(super) struct OocLine {
    tool: &'static str,
    script: &'static str,
    make: &'static str,
    part: String,
    board: String,
}

impl OocLine {
    /// The OOC synthesis of `vendor`'s tools on the part of `target`.
    pub(super) fn new(vendor: Vendor, target: &Board) -> OocLine {
        let (script, make) = match vendor {
            Vendor::Amd => ("vivado/ooc_synth.tcl", "make vivado-ooc"),
            Vendor::Intel => ("quartus/ooc_synth.tcl", "make quartus-ooc"),
        };
        OocLine { tool: vendor.tool(), script, make, part: target.part.clone(), board: target.name.clone() }
    }
}

#[derive(Template)]
#[template(path = "build_readme.md", escape = "none")]
struct BuildReadme<'a> {
    banner: &'a [String; 2],
    design: &'a config::Design,
    board: &'a Board,
    peak_mb_per_s: String,
    fit: String,
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
    /// The open engine: the MAC wrapper `mac_module` in place of a TOE core.
    open: bool,
    mtu: usize,
    mac_module: String,
    mac_inst: &'a str,
    mac_stub: String,
    cdc: bool,
    amd: bool,
    rtl: &'a [String],
    clocks: Vec<(String, String)>,
    ports: Vec<String>,
    quartus_ip: Vec<(String, String)>,
    missing: &'a [String],
}

/// MB/s with thousands separators, rounded to whole MB/s: `32,000`.
fn mb_per_s(v: f64) -> String {
    let digits = format!("{:.0}", v);
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Whether the user logic can fill the board's Ethernet link: the design's
/// user bandwidth (data width x user clock, per session and direction, and
/// with every session running) against the cage's line rate (Gb/s x 125 =
/// MB/s), for the README.
pub(crate) fn fit_line(design: &config::Design, board: &Board) -> String {
    let one = design.peak_mb_per_s();
    let all = one * design.sessions as f64;
    let gbps = board.qsfp.line_rate_gbps;
    let link = f64::from(gbps) * 1000.0 / 8.0;
    let sessions = match design.sessions {
        1 => String::new(),
        n => format!(", {} MB/s with all {n} sessions", mb_per_s(all)),
    };
    let head = format!(
        "User bandwidth {} MB/s per session and direction ({} bits x {} MHz{sessions}) against the {}G link of `{}` ({} MB/s, {}):",
        mb_per_s(one),
        design.data_width,
        mhz(design.user_clock_mhz),
        gbps,
        board.qsfp.name,
        mb_per_s(link),
        board.qsfp.mac
    );
    let headers = "Ethernet, IP and TCP headers take the rest";
    if one > link {
        format!(
            "{head} the link is the limit: one session can fill it, and a transfer stays below {} MB/s ({headers}).",
            mb_per_s(link)
        )
    } else if one == link {
        format!("{head} one session exactly fills the link ({headers}).")
    } else if all >= link {
        format!(
            "{head} one session cannot fill the link; all {} sessions together can, and then the link is the limit ({headers}).",
            design.sessions
        )
    } else {
        format!(
            "{head} **warning:** the link is faster than the user logic can feed: a test moves at most {} MB/s{}; raise `design.data_width` or `design.user_clock_mhz` to fill it.",
            mb_per_s(all),
            if design.sessions > 1 { " with every session running" } else { "" }
        )
    }
}

/// The board pins the README lists.
fn pin_names(board: &Board) -> Vec<String> {
    let mut ports = vec![
        format!("{}_p", board.free_clock.port),
        format!("{}_p", board.qsfp.refclk.port),
        format!("{0}_tx_p/_tx_n/_rx_p/_rx_n[{1}:0]", board.qsfp.name, board.qsfp.lanes.len() - 1),
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
    ports
}

/// `README.md`, listing the OOC targets `ooc`.
pub(super) fn readme(job: &Job, ooc: Vec<OocLine>) -> Result<(String, String), FlowError> {
    let (design, board, inputs, top_plain) = (job.design, job.board, job.inputs, job.top_plain);
    let files = BoardFiles::new(top_plain);
    let mac_module = format!("{top_plain}_mac");
    let (open, mtu) = match design.toe_core {
        config::ToeCore::Open { mtu } => (true, mtu),
        config::ToeCore::Licensed => (false, 0),
    };
    file(
        "README.md",
        BuildReadme {
            banner: &job.banner,
            design,
            board,
            peak_mb_per_s: format!("{:.0}", design.peak_mb_per_s()),
            fit: fit_line(design, board),
            user_mhz: mhz(design.user_clock_mhz),
            reg_mhz: mhz(design.reg_clock_mhz),
            ooc,
            board_top: job.board_top_plain.clone(),
            user_inst: USER_INST,
            toe_inst: TOE_INST,
            platform_inst: PLATFORM_INST,
            toe_stub: files.toe_stub,
            platform_stub: files.platform_stub,
            platform_module: format!("{top_plain}_platform"),
            toe_module: format!("{top_plain}_toe"),
            toe_netlist_dir: supply_dir(design),
            open,
            mtu,
            mac_inst: MAC_INST,
            mac_stub: files.mac_stub,
            cdc: cdc(inputs).is_some(),
            amd: board.vendor == Vendor::Amd,
            rtl: &inputs.rtl_files,
            clocks: inputs.clocks.iter().map(|c| (c.port.clone(), period(c.period_ns))).collect(),
            ports: pin_names(board),
            quartus_ip: quartus_ip(board, open.then_some(mac_module.as_str())),
            mac_module,
            missing: &board.missing,
        },
    )
}
