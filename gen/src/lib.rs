//! The generator behind `cargo run -p gen`: a validated [`config::Design`] in,
//! the files of the build folder out.
//!
//! [`generate`] is pure (no I/O) so the testbench's build script produces the
//! very same Verilog; [`write_atomically`] puts the files in place so that a
//! failure never leaves half a build.

pub mod rtl;
pub mod write;

pub use write::write_atomically;

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
    Io(String),
}

impl fmt::Display for GenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GenError::Config(e) => write!(f, "invalid configuration: {e}"),
            GenError::Hdl(e) => write!(f, "hardware description: {e}"),
            GenError::Template(e) => write!(f, "template: {e}"),
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

/// The boards `gen` knows.
pub fn board_names() -> Vec<&'static str> {
    vec!["alveo-u50", "alveo-u250", "alveo-u55c", "agilex7-f-dk"]
}

/// Parses and validates configuration text against the known boards.
pub fn parse_config(text: &str) -> Result<config::Design, GenError> {
    Ok(config::parse(text, &board_names())?)
}

/// Every file of the build folder, sorted by path.
pub fn generate(design: &config::Design) -> Result<Vec<GeneratedFile>, GenError> {
    let mut files = rtl::generate(design)?;
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}
