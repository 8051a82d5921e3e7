//! `yardstick`: writes the yardstick loopback wrapper (`top.v`) and the
//! session datapath it instantiates into a folder, for `make yardstick`
//! (`scripts/yardstick.sh`), and prints what `compare.sh` needs, one
//! `key value` line each: `wrapper` (the wrapper's file), `datapath` (one
//! line per module file of the datapath, children first), `generator` and
//! `verifier` (their Verilog module names). A testbench artefact; `gen`
//! never writes it.
//! `--record pruned` leaves the first-error record out of `err_cnt`, so its
//! logic is pruned (the second simulation figure of issue 14).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use gen::yardstick::Record;

/// Write the yardstick wrapper and the datapath it wraps.
#[derive(Parser, Debug)]
#[command(name = "yardstick", about, long_about = None)]
struct Args {
    /// Configuration file (TOML), resolved over the default as `gen --config`
    /// does; the default design when absent. Its data width is the datapath's.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Output folder, replaced as a whole once both files are generated; it
    /// must be new, empty or a folder gen wrote (as `gen --out`).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Keep the first-error record live or let it be pruned.
    #[arg(long, value_enum, default_value = "live")]
    record: Record,
}

fn run(args: &Args) -> Result<String, String> {
    let design = match &args.config {
        Some(path) => gen::read_config(path)?,
        None => gen::parse_config(config::DEFAULT_TOML).map_err(|e| format!("the default configuration: {e}"))?,
    };
    let y = gen::yardstick::yardstick_with(&design, args.record).map_err(|e| e.to_string())?;
    let files: Vec<_> = y.files().into_iter().cloned().collect();
    gen::write_atomically(&args.out, &files).map_err(|e| e.to_string())?;
    let path = |f: &gen::GeneratedFile| args.out.join(&f.path).display().to_string();
    let datapath: String = y.datapath.iter().map(|f| format!("datapath {}\n", path(f))).collect();
    Ok(format!(
        "wrapper {}\n{datapath}generator {}\nverifier {}\n",
        path(&y.wrapper),
        y.generator_module,
        y.verifier_module
    ))
}

fn main() -> ExitCode {
    match run(&Args::parse()) {
        Ok(text) => match gen::print_stdout(&text) {
            Ok(()) => ExitCode::SUCCESS,
            Err(message) => {
                gen::print_stderr(&format!("yardstick: error: {message}"));
                ExitCode::FAILURE
            }
        },
        Err(message) => {
            gen::print_stderr(&format!("yardstick: error: {message}"));
            ExitCode::from(2)
        }
    }
}
