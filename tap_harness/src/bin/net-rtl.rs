//! `net-rtl`: writes the open engine's network node's Verilog at one width
//! and MTU as a build folder for the synthesis estimate: DIR/rtl/<module>.v
//! and DIR/rtl/files.f (paths relative to DIR, the node `<prefix>_net_node`
//! last). `scripts/synth-estimate.sh` runs it once per width.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;
use tap_harness::rtl::parse_width;

/// Writes the network node's Verilog (hdl::net) at one data width and MTU:
/// DIR/rtl/*.v and DIR/rtl/files.f, the node's module last.
#[derive(Parser, Debug)]
#[command(name = "net-rtl", version)]
struct Args {
    /// Data width (64, 128, 256, 512, 1024).
    #[arg(long, value_name = "W", value_parser = parse_width)]
    width: usize,

    /// MTU, 576 ..= 9000.
    #[arg(long, value_name = "BYTES", default_value_t = 1500)]
    mtu: usize,

    /// Prefix of the module names [default: net<W>_<MTU>].
    #[arg(long, value_name = "NAME")]
    prefix: Option<String>,

    /// The build folder written (its rtl/ is created).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

fn write(args: &Args) -> Result<String, String> {
    let prefix = args.prefix.clone().unwrap_or_else(|| format!("net{}_{}", args.width, args.mtu));
    let modules = hdl::net::node_modules(args.width, args.mtu, &prefix).map_err(|e| e.0)?;
    let rtl = args.out.join("rtl");
    std::fs::create_dir_all(&rtl).map_err(|e| format!("cannot create {}: {e}", rtl.display()))?;
    let mut list = String::new();
    for m in &modules {
        let file = rtl.join(format!("{}.v", m.name));
        std::fs::write(&file, m.file_text()).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
        list.push_str(&format!("{}\n", Path::new("rtl").join(format!("{}.v", m.name)).display()));
    }
    let files = rtl.join("files.f");
    std::fs::write(&files, list).map_err(|e| format!("cannot write {}: {e}", files.display()))?;
    Ok(modules.last().map(|m| m.name.clone()).unwrap_or_default())
}

fn main() -> ExitCode {
    let args = Args::parse();
    match write(&args) {
        Ok(top) => {
            println!("{top}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("net-rtl: {e}");
            ExitCode::from(1)
        }
    }
}
