//! `gen`: configuration in, build folder out.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

/// Generate the TOE user logic (Verilog, Vivado and Quartus scripts,
/// constraints, register map) from one TOML configuration.
#[derive(Parser, Debug)]
#[command(name = "gen", version, about, long_about = None)]
struct Args {
    /// Configuration file (TOML, UTF-8, at most 1 MiB): the keys it sets
    /// override the embedded default (the reference demo); the default
    /// alone when absent.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Output folder, replaced as a whole once every file is generated; it
    /// must be new, empty or a folder gen wrote (it holds gen-manifest.txt),
    /// anything else (a symbolic link too, with or without a trailing /) is
    /// refused before anything is generated.
    #[arg(long, value_name = "DIR", default_value = "build")]
    out: PathBuf,
    /// Print the default configuration and exit.
    #[arg(long)]
    print_default_config: bool,
    /// Print the configuration FILE resolves to (every key, each marked
    /// `file` or `default`), check it, and exit.
    #[arg(long, value_name = "FILE", conflicts_with = "config")]
    print_config: Option<PathBuf>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    if args.print_default_config {
        return print(config::DEFAULT_TOML);
    }
    if let Some(path) = &args.print_config {
        return match print_config(path) {
            Ok(text) => print(&text),
            Err(message) => fail(&message),
        };
    }
    match run(&args) {
        Ok(count) => {
            gen::print_stderr(&format!("gen: wrote {count} files to {}", args.out.display()));
            ExitCode::SUCCESS
        }
        Err(message) => fail(&message),
    }
}

/// `text` on stdout; a reader that closed early ends the output quietly.
fn print(text: &str) -> ExitCode {
    match gen::print_stdout(text) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            gen::print_stderr(&format!("gen: error: {message}"));
            ExitCode::FAILURE
        }
    }
}

/// One error line, exit status 2 (a bad configuration or output path).
fn fail(message: &str) -> ExitCode {
    gen::print_stderr(&format!("gen: error: {message}"));
    ExitCode::from(2)
}

/// The resolved configuration of `path`, annotated, once it passes every
/// check a build makes (the build is generated in memory and dropped, so
/// what this accepts `gen --config` builds, and what it refuses is refused
/// with the same line).
fn print_config(path: &std::path::Path) -> Result<String, String> {
    let origin = path.display().to_string();
    let text = config::read_file(path)?;
    let resolved = config::resolve(&text).map_err(|e| format!("{origin}: {e}"))?;
    let design = gen::parse_config(&text).map_err(|e| format!("{origin}: {e}"))?;
    gen::generate(&design).map_err(|e| format!("{origin}: {e}"))?;
    Ok(format!("# {origin} over the embedded default configuration\n\n{}", resolved.annotated()))
}

fn run(args: &Args) -> Result<usize, String> {
    let (design, origin) = match &args.config {
        Some(path) => (gen::read_config(path)?, path.display().to_string()),
        None => (
            gen::parse_config(config::DEFAULT_TOML).map_err(|e| format!("the default configuration: {e}"))?,
            "the default configuration".to_string(),
        ),
    };
    // A path gen may not replace is refused before anything is generated.
    gen::check_out(&args.out).map_err(|e| e.to_string())?;
    let files = gen::generate(&design).map_err(|e| format!("{origin}: {e}"))?;
    gen::write_atomically(&args.out, &files).map_err(|e| e.to_string())?;
    Ok(files.len())
}
