//! `pending_blocks`: writes the blocks that are built and tested but not yet
//! part of the generated top into a folder, as `gen` writes a build's RTL
//! (`rtl/<module>.v`, `rtl/files.f`, children first), for `make
//! synth-estimate` to size them per session. Today: issue 29's round trips
//! at the default design's width (docs/latency.md), which hold its meter,
//! histogram, message source (with the pattern at any byte) and message
//! ends, so one row sizes what the latency modes add to a session. Prints
//! each root module's name, one a line. A measurement artefact; `gen` never
//! writes these blocks.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use gen::GeneratedFile;

/// Write the blocks not yet in the top, for the synthesis estimate.
#[derive(Parser, Debug)]
#[command(name = "pending_blocks", about, long_about = None)]
struct Args {
    /// Output folder, replaced as a whole once every file is generated; it
    /// must be new, empty or a folder gen wrote (as `gen --out`).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

fn run(args: &Args) -> Result<String, String> {
    let design = gen::parse_config(config::DEFAULT_TOML).map_err(|e| format!("the default configuration: {e}"))?;
    let blocks = [hdl::verilog::round_trips_modules(design.data_width, &design.name)];
    let mut files = Vec::new();
    let mut roots = String::new();
    for modules in blocks {
        let modules = modules.map_err(|e| e.to_string())?;
        if let Some(root) = modules.last() {
            roots.push_str(&format!("{}\n", root.name));
        }
        for m in modules {
            let path = format!("rtl/{}.v", m.name);
            let contents = design.verilog_file(&m.text);
            // A module two blocks share is written once; one name with two
            // texts would be a bug.
            match files.iter().find(|f: &&GeneratedFile| f.path == path) {
                Some(f) if f.contents == contents => {}
                Some(_) => return Err(format!("two different modules named {}", m.name)),
                None => files.push(GeneratedFile { path, contents }),
            }
        }
    }
    let list: String = files.iter().map(|f| format!("{}\n", f.path)).collect();
    files.push(GeneratedFile { path: "rtl/files.f".into(), contents: list });
    gen::write_atomically(&args.out, &files).map_err(|e| e.to_string())?;
    Ok(roots)
}

fn main() -> ExitCode {
    match run(&Args::parse()) {
        Ok(text) => match gen::print_stdout(&text) {
            Ok(()) => ExitCode::SUCCESS,
            Err(message) => {
                gen::print_stderr(&format!("pending_blocks: error: {message}"));
                ExitCode::FAILURE
            }
        },
        Err(message) => {
            gen::print_stderr(&format!("pending_blocks: error: {message}"));
            ExitCode::from(2)
        }
    }
}
