//! The generator behind `cargo run -p gen`: a validated [`config::Design`] in,
//! the files of the build folder out.
//!
//! [`generate`] is pure (no I/O) so the testbench's build script produces the
//! very same Verilog; [`write_atomically`] puts the files in place so that a
//! failure never leaves half a build, and replaces only a folder gen wrote
//! (marked by its [`MANIFEST`]).

pub mod open_toe;
pub mod rtl;
pub mod sim_shell;
pub mod write;
pub mod yardstick;

pub use write::{check_out, write_atomically, MANIFEST};

use std::fmt;

/// One generated file: path relative to the build folder, and its bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedFile {
    pub path: String,
    pub contents: String,
}

/// Why generation failed.
#[derive(Debug)]
pub enum GenError {
    Config(config::ConfigError),
    Hdl(hdl::verilog::HdlError),
    Template(String),
    Flow(String),
    Regmap(String),
    Io(String),
}

impl fmt::Display for GenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GenError::Config(e) => write!(f, "invalid configuration: {e}"),
            GenError::Hdl(e) => write!(f, "hardware description: {e}"),
            GenError::Template(e) => write!(f, "template: {e}"),
            GenError::Flow(e) => write!(f, "build flow: {e}"),
            GenError::Regmap(e) => write!(f, "register map: {e}"),
            GenError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for GenError {}

impl From<config::ConfigError> for GenError {
    fn from(e: config::ConfigError) -> Self {
        GenError::Config(e)
    }
}

impl From<hdl::verilog::HdlError> for GenError {
    fn from(e: hdl::verilog::HdlError) -> Self {
        GenError::Hdl(e)
    }
}

/// Prints `text` on stdout for the binaries of this crate. A reader that
/// stopped reading (`gen --print-default-config | head -1`) is no error: the
/// output just ends there. Any other failure is the one line returned.
pub fn print_stdout(text: &str) -> Result<(), String> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(format!("cannot write to stdout: {e}")),
        _ => Ok(()),
    }
}

/// Prints one line on stderr; a closed stderr is ignored (there is nowhere
/// left to say anything), so it never panics as `eprintln!` would.
pub fn print_stderr(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// Parses and validates configuration text (its board among those under
/// `constraints/`).
pub fn parse_config(text: &str) -> Result<config::Design, GenError> {
    Ok(config::parse(text)?)
}

/// Reads, resolves over the default and validates the configuration file
/// `path`, as `gen --config FILE` does; every error names the file.
pub fn read_config(path: &std::path::Path) -> Result<config::Design, String> {
    let text = config::read_file(path)?;
    parse_config(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// What one generation produces: the files, and the top's ports as data
/// for whatever drives the generated top (testbench, virtual board).
pub struct Build {
    /// Every file of the build folder, sorted by path.
    pub files: Vec<GeneratedFile>,
    /// The ports of the top, grouped ([`rtl::Rtl::plan`]).
    pub plan: config::ports::PortPlan,
}

/// Every file of the build folder, sorted by path.
pub fn generate(design: &config::Design) -> Result<Vec<GeneratedFile>, GenError> {
    build(design).map(|b| b.files)
}

/// Every file of the build folder and the top's port plan.
pub fn build(design: &config::Design) -> Result<Build, GenError> {
    let map = regmap::RegisterMap::try_for_design(design).map_err(|e| GenError::Regmap(e.to_string()))?;
    let rtl = rtl::generate(design, &map)?;
    let board = flows::load_board(&design.board).map_err(|e| GenError::Flow(e.to_string()))?;
    let rtl::Rtl { mut files, sources, plan, crossings } = rtl;
    let mut inputs = flows::FlowInputs::standard(design, sources).with_ports(plan.clone()).with_crossings(crossings);
    // Constrain only the clocks the top has.
    inputs.clocks.retain(|c| plan.inputs().any(|p| p.name == c.port));
    let scripts = flows::render(design, &board, &inputs).map_err(|e| GenError::Flow(e.to_string()))?;
    files.extend(scripts.into_iter().map(|(path, contents)| GeneratedFile { path, contents }));
    for out in regmap::outputs(&map, design) {
        // The Markdown is documentation; header, self-test, JSON, accessors and
        // LiteX's csr.csv (`litex_cli --csr-csv build/sw/csr.csv --regs`) are for software.
        let dir = if out.file_name.ends_with(".md") { "doc" } else { "sw" };
        files.push(GeneratedFile { path: format!("{dir}/{}", out.file_name), contents: out.contents });
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(Build { files, plan })
}
