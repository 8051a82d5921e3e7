//! Verilog of rust-hdl blocks under a chosen module name.

use std::fmt;

use rust_hdl::prelude::*;

use crate::datapath::Datapath;
use crate::session::Session;

/// A block that rust-hdl cannot turn into sound Verilog.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HdlError(pub String);

impl fmt::Display for HdlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for HdlError {}

/// The Verilog of `block` with its top module named `module` (rust-hdl names
/// it `top`; submodules are `module$child...`). Runs rust-hdl's checks first
/// (unconnected signals, logic loops, writes to inputs) and refuses a body
/// without code: a missing `#[hdl_gen]` silently emits an empty module.
pub fn block_verilog<B: Block>(block: &mut B, module: &str) -> Result<String, HdlError> {
    block.connect_all();
    check_all(block).map_err(|e| HdlError(format!("rust-hdl check of `{module}` failed: {e:?}")))?;
    let mut defines = ModuleDefines::default();
    block.accept(module, &mut defines);
    let text = defines.defines();
    let header = format!("module {module}(");
    let start = text.find(&header).ok_or_else(|| HdlError(format!("rust-hdl emitted no module `{module}`")))?;
    let body = &text[start..text[start..].find("endmodule").map_or(text.len(), |e| start + e)];
    if !body.contains("// Update code") && !body.contains("// Sub module instances") {
        return Err(HdlError(format!("module `{module}` has an empty body (is `#[hdl_gen]` missing?)")));
    }
    Ok(text)
}

/// Builds `$block::<W, K>` for a configured width (one of
/// [`config::DATA_WIDTHS`]; an arm per entry) and returns its Verilog.
macro_rules! by_width {
    ($width:expr, $block:ident, $module:expr) => {
        match $width {
            64 => block_verilog(&mut $block::<64, 8>::default(), $module),
            128 => block_verilog(&mut $block::<128, 16>::default(), $module),
            256 => block_verilog(&mut $block::<256, 32>::default(), $module),
            512 => block_verilog(&mut $block::<512, 64>::default(), $module),
            1024 => block_verilog(&mut $block::<1024, 128>::default(), $module),
            other => Err(HdlError(format!("unsupported data width {other}: use {}", config::data_widths_text()))),
        }
    };
}

/// The per-session module `module` of the product for a data width of
/// `width` bits: the session with its datapath ([`Session`]); its ports
/// face the register file and the TOE.
pub fn session_verilog(width: usize, module: &str) -> Result<String, HdlError> {
    by_width!(width, Session, module)
}

/// The session datapath alone ([`Datapath`]: generator, verifier, rate
/// limiters, with plain start/abort ports): the testbench drives it directly
/// to test those blocks without a TOE.
pub fn datapath_verilog(width: usize, module: &str) -> Result<String, HdlError> {
    by_width!(width, Datapath, module)
}

/// A port of a generated module, as its declaration reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Port {
    pub name: String,
    /// `input` or `output`.
    pub direction: &'static str,
    pub width: usize,
}

/// The ports of `module` in `text` (rust-hdl output), in declaration order.
/// The assembly derives the top's ports from these, so a port added to a
/// block reaches the top without a second list to keep in step.
pub fn module_ports(text: &str, module: &str) -> Result<Vec<Port>, HdlError> {
    let header = format!("module {module}(");
    let start = text.find(&header).ok_or_else(|| HdlError(format!("no module `{module}` in the Verilog")))?;
    let end = start + text[start..].find("endmodule").unwrap_or(text.len() - start);
    let mut ports = Vec::new();
    for line in text[start..end].lines().map(str::trim) {
        let (direction, rest) = if let Some(rest) = line.strip_prefix("input wire") {
            ("input", rest)
        } else if let Some(rest) = line.strip_prefix("output reg").or_else(|| line.strip_prefix("output wire")) {
            ("output", rest)
        } else {
            continue;
        };
        let rest = rest.trim().trim_end_matches(';');
        let (width, name) = match rest.strip_prefix('[') {
            Some(range) => {
                let (msb, name) =
                    range.split_once(":0]").ok_or_else(|| HdlError(format!("unexpected port declaration `{line}`")))?;
                let msb: usize = msb.parse().map_err(|_| HdlError(format!("unexpected port range in `{line}`")))?;
                (msb + 1, name.trim())
            }
            None => (1, rest.trim()),
        };
        ports.push(Port { name: name.to_string(), direction, width });
    }
    Ok(ports)
}
