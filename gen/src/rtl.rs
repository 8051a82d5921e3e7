//! The user logic's Verilog: rust-hdl modules and the askama top around them.

use askama::Template;

use crate::{GenError, GeneratedFile};

/// Folder of the Verilog inside the build folder.
pub const RTL_DIR: &str = "rtl";
/// The source list, in compile order, one path per line relative to the build
/// folder: lint, synthesis, the testbench and the vendor scripts all read it.
pub const FILELIST: &str = "rtl/files.f";

struct TopPort {
    direction: &'static str,
    range: String,
    name: String,
}

#[derive(Template)]
#[template(path = "top.v", escape = "none")]
struct TopTemplate<'a> {
    name: &'a str,
    data_width: usize,
    session_module: &'a str,
    sessions: Vec<usize>,
    ports: Vec<TopPort>,
}

/// Name of the per-session module of a design.
pub fn session_module(design: &config::Design) -> String {
    format!("{}_session", design.name)
}

/// Wraps a Verilog body in the house prologue and epilogue, after the banner.
pub fn verilog_file(design: &config::Design, body: &str) -> String {
    let mut out = String::new();
    for line in design.banner() {
        out.push_str("// ");
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str("`resetall\n`timescale 1ns / 1ps\n`default_nettype none\n\n");
    out.push_str(body.trim_matches('\n'));
    out.push_str("\n\n`resetall\n`default_nettype wire\n");
    out
}

/// The Verilog files and what the rest of the build needs to know of them.
pub struct Rtl {
    pub files: Vec<GeneratedFile>,
    /// Source paths relative to the build folder, in compile order.
    pub sources: Vec<String>,
    /// Input ports of the top.
    pub input_ports: Vec<String>,
}

/// Name of the register-file module of a design.
pub fn register_file_module(design: &config::Design) -> String {
    format!("{}_regs", design.name)
}

/// The session module, the register file (generated from the map; the
/// session controller that connects it to the sessions is the next step, so
/// the top does not instantiate it yet) and the top.
pub fn generate(design: &config::Design, map: &regmap::RegisterMap) -> Result<Rtl, GenError> {
    let session = session_module(design);
    let session_text = hdl::verilog::session_verilog(design.data_width, &session)?;
    let session_ports = hdl::verilog::module_ports(&session_text, &session)?;
    let mut input_ports = vec!["user_clk".to_string(), "user_rst".to_string()];
    for s in 0..design.sessions {
        for p in session_ports.iter().filter(|p| p.direction == "input" && p.name != "clock" && p.name != "reset") {
            input_ports.push(format!("s{s}_{}", p.name));
        }
    }
    let ports = session_ports
        .into_iter()
        .filter(|p| p.name != "clock" && p.name != "reset")
        .map(|p| TopPort {
            direction: if p.direction == "input" { "input " } else { "output" },
            range: if p.width == 1 { String::new() } else { format!("[{}:0] ", p.width - 1) },
            name: p.name,
        })
        .collect();
    let top = TopTemplate {
        name: &design.name,
        data_width: design.data_width,
        session_module: &session,
        sessions: (0..design.sessions).collect(),
        ports,
    }
    .render()
    .map_err(|e| GenError::Template(e.to_string()))?;

    let session_path = format!("{RTL_DIR}/{session}.v");
    let top_path = format!("{RTL_DIR}/{}.v", design.name);
    let regs = register_file_module(design);
    let regs_text = hdl::register_file::register_file_verilog(design, map, &regs)?;
    let regs_path = format!("{RTL_DIR}/{regs}.v");
    // The top comes last: lint and the scripts take the last file's module as the top.
    let sources = vec![session_path.clone(), regs_path.clone(), top_path.clone()];
    let filelist = sources.iter().map(|s| format!("{s}\n")).collect();
    Ok(Rtl {
        files: vec![
            GeneratedFile { path: session_path, contents: verilog_file(design, &session_text) },
            GeneratedFile { path: regs_path, contents: verilog_file(design, &regs_text) },
            GeneratedFile { path: top_path, contents: verilog_file(design, &top) },
            GeneratedFile { path: FILELIST.to_string(), contents: filelist },
        ],
        sources,
        input_ports,
    })
}
