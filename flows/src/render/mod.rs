//! [`render`]: the files of the build folder, in a fixed order. It checks the
//! inputs, picks the boards the out-of-context syntheses target and hands one
//! [`Job`] to each room: `vivado` and `quartus` (each vendor's scripts and
//! constraints, with `cdc` for the crossing constraints and `context` for
//! what their templates share), `readme` and the board top.

mod cdc;
mod context;
mod quartus;
mod readme;
mod vivado;

use crate::board::{board_names, load_board, Board, FlowError, Vendor};
use crate::board_top::render_board_top;
use crate::FlowInputs;
use context::Job;
use readme::OocLine;

/// The board whose part `vendor`'s OOC synthesis targets: the configured
/// board if it is that vendor's, otherwise the first of that vendor in name
/// order.
fn ooc_target(board: &Board, vendor: Vendor) -> Result<Option<Board>, FlowError> {
    if board.vendor == vendor {
        return Ok(Some(board.clone()));
    }
    for name in board_names() {
        let b = load_board(name)?;
        if b.vendor == vendor {
            return Ok(Some(b));
        }
    }
    Ok(None)
}

/// The TOE netlist types each vendor's board build reads (`vivado/build.tcl`,
/// `quartus/build.tcl`), lower case, with the dot.
pub fn netlist_types(vendor: Vendor) -> &'static [&'static str] {
    match vendor {
        Vendor::Amd => &[".edf", ".edn", ".edif", ".v", ".sv", ".xci"],
        Vendor::Intel => &[".v", ".sv", ".vqm", ".ip"],
    }
}

/// `toe.netlist` must be a file the board's vendor tools read: otherwise the
/// board build would stop late with "unsupported file type". The open engine
/// has no netlist, so any path passes.
fn check_netlist(design: &config::Design, board: &Board) -> Result<(), FlowError> {
    if let config::ToeCore::Open { .. } = design.toe_core {
        return Ok(());
    }
    let path = std::path::Path::new(&design.toe_netlist);
    let ext = path.extension().map(|e| format!(".{}", e.to_string_lossy().to_lowercase())).unwrap_or_default();
    let types = netlist_types(board.vendor);
    if types.contains(&ext.as_str()) {
        return Ok(());
    }
    Err(FlowError::Inputs {
        field: "toe.netlist".into(),
        message: format!(
            "{:?} is not a file the {} board build reads: for board {} ({}) use one of {}",
            design.toe_netlist,
            board.vendor.tool(),
            board.name,
            board.vendor.as_str(),
            types.join(", ")
        ),
    })
}

/// The files of the build folder for `design` on `board`, as (path relative
/// to the build folder, contents), in a fixed order.
pub fn render(design: &config::Design, board: &Board, inputs: &FlowInputs) -> Result<Vec<(String, String)>, FlowError> {
    inputs.check()?;
    check_netlist(design, board)?;
    let job = Job::new(design, board, inputs);
    let mut files = Vec::new();
    let mut ooc = Vec::new();
    if let Some(amd) = ooc_target(board, Vendor::Amd)? {
        files.extend(vivado::ooc(&job, &amd)?);
        ooc.push(OocLine::new(Vendor::Amd, &amd));
    }
    if let Some(intel) = ooc_target(board, Vendor::Intel)? {
        files.extend(quartus::ooc(&job, &intel)?);
        ooc.push(OocLine::new(Vendor::Intel, &intel));
    }
    files.extend(match board.vendor {
        Vendor::Amd => vivado::board_build(&job)?,
        Vendor::Intel => quartus::board_build(&job)?,
    });
    files.push(readme::readme(&job, ooc)?);
    files.extend(render_board_top(design, board, inputs)?);
    Ok(files)
}
