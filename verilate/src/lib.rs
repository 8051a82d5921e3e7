//! The one recipe that verilates a generated top and binds its ports to Rust.
//!
//! # The recipe
//!
//! 1. Run Verilator on the top's sources ([`Verilation`]):
//!    `verilator --cc --build -j 2 -O3 --x-assign fast --x-initial fast
//!    --prefix V<model> --top-module <top> -Mdir <obj> -CFLAGS "-fPIC -O2"
//!    -MAKEFLAGS OPT_FAST=-O2
//!    [<waivers.vlt>] <sources> [--trace-fst]`. Verilator writes the C++ model
//!    and compiles it into one archive ([`find_archive`]).
//! 2. Read the ports from the verilated header `V<model>.h`
//!    ([`parse_ports`]): `VL_IN8(&name,msb,lsb);`, `VL_OUTW(&name,msb,lsb,words);`...
//! 3. Render a C++ shim ([`render_shim`]) with C entry points per model:
//!    `<model>_new`, `_eval`, `_delete`, `_port(model, index)` (a pointer
//!    into the model's storage of port `index`, in header order),
//!    `_trace_open` and `_trace_dump` (no-ops unless built with tracing),
//!    and `_fall(model, index)`, which lowers a clock whose logic is all on
//!    its rising edge without an `eval()` ([`VerilatedCode::rising_only_clocks`] reads which
//!    from the verilated code; [`Model::fall`] uses it only when no other
//!    clock moved since the last `eval()`). `_eval` skips the
//!    input-combinational region while the inputs it reads hold the values
//!    of the last full `eval()` ([`VerilatedCode::clocked_eval`] cuts that
//!    region out of Verilator's own `eval()` and lists the inputs).
//!    Each model gets its own `VerilatedContext`.
//! 4. Describe the ports to Rust as a [`PortInfo`] table, and the entry
//!    points as a [`ModelFns`]; a driver (the testbench's `Model`) finds
//!    ports by name in the table and reads and writes them through `_port`.
//!    The table marks the ports that matter only at clock edges
//!    ([`VerilatedCode::mark_edge_only`] reads which from the verilated code), so that
//!    [`Model`] runs one `eval()` per clock edge where a driver asks for
//!    more (see its docs).
//!
//! # Build time: models linked into a crate
//!
//! [`StaticModels`] is for a build script (the testbench's `build.rs`): for
//! each model it runs the recipe under `OUT_DIR/<model>/obj`, and renders the
//! Rust port table (`models.rs`: one module per model with `extern "C"`
//! declarations, `PORTS` and `FNS`). The build script compiles the shims and
//! the Verilator runtime with the `cc` crate from the lists
//! [`StaticModels`] gives, then [`StaticModels::finish`] prints the link lines
//! of the model archives and writes the table. Failures panic with a message
//! naming the model, as a build script should.
//!
//! # Run time: models built on first use, cached
//!
//! [`load_cached`] runs the same recipe for sources known only at run time
//! (a user's configuration), links the result into one shared library, loads
//! it and returns its [`ModelFns`]. The port table comes from the same parsed
//! header: the run-time shim also exports `<model>_port_count()` and
//! `<model>_port_info(index, &kind, &width, &words, &output) -> name`
//! ([`render_port_table`]), so the library describes itself and no side file
//! can disagree with it. Failures are [`Error`]s that say what failed
//! (Verilator missing, Verilator's complaint, the compiler's complaint).
//!
//! The cache, under a root the caller chooses, one folder per key (the
//! caller's choice: the virtual board uses its configuration's hash):
//!
//! ```text
//! <cache_root>/
//!   <key>/
//!     stamp                  what was built: recipe, key, model, top, Verilator
//!                            version, sources fingerprint, library file name
//!     src/<path>             the sources as given
//!     obj/                   Verilator's output (V<model>.h, the archive...)
//!     <model>_shim.cpp       the C entry points and the port table
//!     exports.map            the linker version script: only those entry points
//!     lib<model>.<id>.so     the shared model
//!   .tmp-<key>-<pid>-<id>/   a build under way (or interrupted: swept later)
//!   .lock-<key>              empty; the flock held while <key> is checked
//!                            and built, so concurrent first loads build once
//! ```
//!
//! A folder is reused only when its stamp records the same recipe, key, model,
//! top, Verilator version and sources, and its library exists; `rebuild`
//! forces a fresh build. A build happens in a `.tmp-` folder that is renamed
//! into place once complete (the stamp written last), so an interrupted build
//! never leaves a half cache. Each build names its library with a fresh `<id>`
//! because the dynamic loader returns an already loaded library for a path it
//! has seen, so a model rebuilt within one process would otherwise not load.
//!
//! The shared library is one `g++ -shared -fPIC -O2 -std=c++17` of the shim,
//! `$VERILATOR_ROOT/include/verilated.cpp`, `verilated_threads.cpp` and the
//! model archive (`-Wl,--whole-archive`), so it carries its own copy of the
//! Verilator runtime. An executable may contain other copies: statically
//! linked models (the testbench's, possibly of another Verilator version),
//! and every other run-time model brings one. Three things keep the copies
//! apart. `-Wl,-Bsymbolic` binds the library's references to its own
//! definitions, never to another copy in the process. A version script
//! (`exports.map`) exports only the model's entry points, so nothing else
//! can bind to the library's runtime, and its runtime cannot bind to another:
//! without it, the thread-local "unique" statics of Verilator's inline
//! functions (`VerilatedThreadMsgQueue::threadton()::t_s`) still bind to
//! an executable's exported copy despite `-Bsymbolic`. And the library is
//! loaded with `RTLD_LOCAL`. The library and its port
//! table are leaked: the process keeps a model for its lifetime.

mod cache;
pub mod lockstep;
mod model;
mod recipe;
mod static_models;

use std::ffi::{c_char, c_void};
use std::fmt;

pub use cache::{load_cached, load_library, Source, RECIPE_VERSION};
pub use model::{Model, Port};
pub use recipe::{
    find_archive, parse_ports, render_port_table, render_rust, render_shim, verilator_root, verilator_version,
    ClockedEval, PortDecl, VerilatedCode, Verilation,
};
pub use static_models::{StaticModel, StaticModels};

/// The Verilator configuration every generated file is verilated and linted
/// with (`verilator_waivers.vlt` of this crate): the waivers of rust-hdl's
/// code-generation artefacts, each with its reason, and nothing else.
pub const WAIVERS: &str = include_str!("../verilator_waivers.vlt");

/// File name of [`WAIVERS`] when written out.
pub const WAIVERS_FILE: &str = "verilator_waivers.vlt";

/// Writes [`WAIVERS`] to `dir/verilator_waivers.vlt` (creating `dir`) and
/// returns its path, for a Verilator command line.
pub fn write_waivers(dir: &std::path::Path) -> Result<std::path::PathBuf, Error> {
    std::fs::create_dir_all(dir).map_err(io(format!("cannot create {}", dir.display())))?;
    let path = dir.join(WAIVERS_FILE);
    std::fs::write(&path, WAIVERS).map_err(io(format!("cannot write {}", path.display())))?;
    Ok(path)
}

/// `verilator --lint-only -Wall` on `sources` (written into `dir`, which is
/// removed afterwards) with top module `top` and the workspace waivers:
/// `Err` with Verilator's output when it fails or warns.
pub fn lint_wall(top: &str, sources: &[Source], dir: &std::path::Path) -> Result<(), String> {
    let waivers = write_waivers(dir).map_err(|e| e.to_string())?;
    let mut files = Vec::new();
    for s in sources {
        let file = dir.join(&s.path);
        std::fs::write(&file, &s.contents).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
        files.push(file);
    }
    let out = std::process::Command::new("verilator")
        .args(["--lint-only", "-Wall", "--top-module", top])
        .arg(&waivers)
        .args(&files)
        .output();
    let _ = std::fs::remove_dir_all(dir);
    let out = out.map_err(|e| format!("cannot run verilator ({e}): install it with `make deps`"))?;
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    if out.status.success() && !log.contains("%Warning") {
        Ok(())
    } else {
        Err(log)
    }
}

/// One port as the verilated header declares it.
#[derive(Clone, Copy, Debug)]
pub struct PortInfo {
    pub name: &'static str,
    /// 8, 16, 32 or 64 for scalar storage; 0 for a wide (`VlWide`) port.
    pub kind: u32,
    pub width: usize,
    /// 32-bit words of a wide port.
    pub words: usize,
    pub output: bool,
    /// The port matters only at clock edges (`VerilatedCode::mark_edge_only`): an
    /// output that no `eval()` without a clock edge changes, or an input
    /// that no edge is taken from. [`Model`] leaves the `eval()` after such
    /// inputs change for the next edge, and reads such outputs without it.
    pub edge_only: bool,
}

/// The C entry points of one model kind.
pub struct ModelFns {
    pub name: &'static str,
    pub new: unsafe extern "C" fn() -> *mut c_void,
    pub eval: unsafe extern "C" fn(*mut c_void),
    pub delete: unsafe extern "C" fn(*mut c_void),
    pub port: unsafe extern "C" fn(*mut c_void, u32) -> *mut c_void,
    pub trace_open: unsafe extern "C" fn(*mut c_void, *const c_char),
    pub trace_dump: unsafe extern "C" fn(*mut c_void, u64),
    /// Lowers a clock input without an `eval()` if the model allows it
    /// (1), else does nothing (0): [`render_shim`]'s `fall`.
    pub fall: unsafe extern "C" fn(*mut c_void, u32) -> i32,
    /// Verilated with `--trace-fst`: `trace_open` writes an FST trace
    /// (otherwise `trace_open` and `trace_dump` do nothing).
    pub traced: bool,
    pub ports: &'static [PortInfo],
}

impl fmt::Debug for ModelFns {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ModelFns").field("name", &self.name).field("ports", &self.ports).finish_non_exhaustive()
    }
}

/// What went wrong verilating, compiling or loading a model at run time.
#[derive(Debug)]
pub enum Error {
    /// `verilator` (or `g++`) could not be run at all.
    ToolMissing { tool: &'static str, detail: String },
    /// Verilator ran and failed: its output.
    Verilator { top: String, output: String },
    /// The compiler failed on the shared model: its output.
    Compiler { model: String, output: String },
    /// The shared library could not be loaded or lacks an entry point.
    Load { path: String, detail: String },
    /// A file could not be read or written.
    Io { what: String, source: std::io::Error },
    /// Bad arguments, or a Verilator output this recipe cannot read.
    Invalid(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::ToolMissing { tool, detail } => {
                write!(f, "cannot run `{tool}` ({detail}): install it with `make deps` or put it on PATH")
            }
            Error::Verilator { top, output } => write!(f, "verilator failed on top `{top}`:\n{}", output.trim_end()),
            Error::Compiler { model, output } => {
                write!(f, "g++ failed on the shared model `{model}`:\n{}", output.trim_end())
            }
            Error::Load { path, detail } => write!(f, "cannot load the shared model {path}: {detail}"),
            Error::Io { what, source } => write!(f, "{what}: {source}"),
            Error::Invalid(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// `Error::Io` with what was being done.
pub(crate) fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> Error {
    let what = what.into();
    move |source| Error::Io { what, source }
}
