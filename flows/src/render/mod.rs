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

/// The files of the build folder for `design` on `board`, as (path relative
/// to the build folder, contents), in a fixed order.
pub fn render(design: &config::Design, board: &Board, inputs: &FlowInputs) -> Result<Vec<(String, String)>, FlowError> {
    inputs.check()?;
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
