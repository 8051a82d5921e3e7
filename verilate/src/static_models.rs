//! Build time: models verilated by a build script and linked into its crate.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::thread;

use crate::recipe::{
    find_archive, parse_ports, read, render_rust, render_shim, verilator_root, VerilatedCode, Verilation,
};

/// One model for [`StaticModels::add_all`]: `top` of `sources` as model
/// `model`, documented as ``Model `<model>`: <summary>.``, with `consts`
/// (lines of the module body) before `PORTS`; `cost` is a rough measure of
/// its verilation's work (any unit), to start the largest first.
#[derive(Clone, Copy, Debug)]
pub struct StaticModel<'a> {
    pub model: &'a str,
    pub top: &'a str,
    pub sources: &'a [PathBuf],
    pub summary: &'a str,
    pub consts: &'a str,
    pub cost: usize,
}

/// The models one build script verilates, in the order added.
///
/// ```ignore
/// let mut models = verilate::StaticModels::new(&out_dir, Some(&waivers), trace, "crate::verilated");
/// models.add("top", "top", &sources, "the top", "");
/// let mut build = cc::Build::new();
/// build.cpp(true).std("c++17").opt_level(2).includes(models.include_dirs()).files(models.cpp_files());
/// for (name, value) in models.defines() { build.define(name, value); }
/// build.compile("shims");
/// models.finish(&out_dir.join("models.rs"));
/// ```
///
/// Every method panics with a message naming the model on failure.
#[derive(Debug)]
pub struct StaticModels {
    out_dir: PathBuf,
    waivers: Option<PathBuf>,
    trace: bool,
    types: String,
    include: PathBuf,
    rust: String,
    /// (shim, Verilator's output folder) per model.
    shims: Vec<(PathBuf, PathBuf)>,
    /// (folder, library name) of each model archive.
    archives: Vec<(PathBuf, String)>,
}

impl StaticModels {
    /// Models built under `out_dir/<model>/obj`, with `waivers` given to
    /// Verilator, FST tracing if `trace`; the Rust table names `PortInfo` and
    /// `ModelFns` as `<types>::PortInfo` (e.g. `crate::verilated`).
    pub fn new(out_dir: &Path, waivers: Option<&Path>, trace: bool, types: &str) -> Self {
        let root = verilator_root().unwrap_or_else(|e| panic!("{e}"));
        StaticModels {
            out_dir: out_dir.to_path_buf(),
            waivers: waivers.map(Path::to_path_buf),
            trace,
            types: types.to_string(),
            include: root.join("include"),
            rust: String::new(),
            shims: Vec::new(),
            archives: Vec::new(),
        }
    }

    /// `$VERILATOR_ROOT/include`.
    pub fn verilator_include(&self) -> &Path {
        &self.include
    }

    /// Verilates `top` of `sources` as model `model` into `out_dir/<model>/obj`
    /// (Verilator's output goes to the build script's), writes its shim there
    /// and adds its module to the Rust table, documented as
    /// ``Model `<model>`: <summary>.``, with `consts` (lines of the module
    /// body) before `PORTS`.
    pub fn add(&mut self, model: &str, top: &str, sources: &[PathBuf], summary: &str, consts: &str) {
        self.add_all(&[StaticModel { model, top, sources, summary, consts, cost: 0 }], 1);
    }

    /// [`add`](Self::add) for every model of `models`: Verilator runs on
    /// `jobs` of them at a time, the largest `cost` first, so one model's
    /// single-threaded verilation overlaps another's C++ compile; the models
    /// enter the Rust table in the order given.
    ///
    /// The C++ of Verilator's slow path (construction, initial and settle
    /// code, run once per model instance) is compiled at -O0 instead of the
    /// -O2 of `verilated.mk`: about a quarter less compile time for a large
    /// model, and the per-cycle code (`OPT_FAST`) is untouched. A variable in
    /// MAKEFLAGS acts as one on make's command line, so it overrides
    /// `verilated.mk`'s `OPT_SLOW =`.
    pub fn add_all(&mut self, models: &[StaticModel<'_>], jobs: usize) {
        let makeflags = match std::env::var("MAKEFLAGS") {
            Ok(flags) if !flags.trim().is_empty() => format!("{flags} OPT_SLOW=-O0"),
            _ => "OPT_SLOW=-O0".to_string(),
        };
        let mut order: Vec<&StaticModel> = models.iter().collect();
        order.sort_by_key(|m| std::cmp::Reverse(m.cost));
        let next = Mutex::new(0usize);
        thread::scope(|scope| {
            for _ in 0..jobs.max(1) {
                scope.spawn(|| loop {
                    let i = {
                        let mut n = next.lock().unwrap_or_else(|e| e.into_inner());
                        *n += 1;
                        *n - 1
                    };
                    let Some(m) = order.get(i) else { break };
                    let status = self
                        .verilation(m.model, m.top, m.sources, &self.obj_dir(m.model))
                        .command()
                        .env("MAKEFLAGS", &makeflags)
                        .status()
                        .unwrap_or_else(|e| {
                            panic!("cannot run verilator ({e}): install it with `make deps` or put it on PATH")
                        });
                    assert!(status.success(), "verilator failed on model {}", m.model);
                });
            }
        });
        for m in models {
            self.record(m);
        }
    }

    fn obj_dir(&self, model: &str) -> PathBuf {
        self.out_dir.join(model).join("obj")
    }

    fn verilation<'a>(&'a self, model: &'a str, top: &'a str, sources: &'a [PathBuf], obj: &'a Path) -> Verilation<'a> {
        Verilation { model, top, sources, waivers: self.waivers.as_deref(), obj_dir: obj, trace: self.trace }
    }

    /// The archive, shim and Rust table entry of a model Verilator has built.
    fn record(&mut self, m: &StaticModel<'_>) {
        let model = m.model;
        let obj = self.obj_dir(model);
        let v = self.verilation(model, m.top, m.sources, &obj);
        let prefix = v.prefix();
        let header = v.header();
        let archive = find_archive(&obj, &prefix).unwrap_or_else(|e| panic!("model {model}: {e}"));
        let lib = format!("{prefix}_model");
        fs::copy(&archive, obj.join(format!("lib{lib}.a")))
            .unwrap_or_else(|e| panic!("model {model}: cannot copy {}: {e}", archive.display()));
        let mut ports = read(&header)
            .and_then(|h| parse_ports(&h))
            .unwrap_or_else(|e| panic!("model {model}: {e} ({})", header.display()));
        let code = VerilatedCode::read(&obj, &prefix).unwrap_or_else(|e| panic!("model {model}: {e}"));
        if !self.trace {
            code.mark_edge_only(&mut ports);
        }
        let shim = obj.join(format!("{model}_shim.cpp"));
        let rising_only = code.rising_only_clocks(&ports);
        let clocked = code.clocked_eval(&ports);
        fs::write(&shim, render_shim(model, &prefix, &ports, self.trace, &rising_only, clocked.as_ref()))
            .unwrap_or_else(|e| panic!("model {model}: cannot write {}: {e}", shim.display()));
        self.archives.push((obj.clone(), lib));
        self.shims.push((shim, obj));
        render_rust(&mut self.rust, model, m.summary, m.consts, &ports, &self.types, self.trace);
    }

    /// Include folders for the C++ compile: the Verilator runtime's, then each model's.
    pub fn include_dirs(&self) -> Vec<PathBuf> {
        let mut dirs = vec![self.include.clone(), self.include.join("vltstd")];
        dirs.extend(self.shims.iter().map(|(_, obj)| obj.clone()));
        dirs
    }

    /// The C++ files to compile into one static library: the Verilator runtime
    /// (`verilated.cpp`, `verilated_threads.cpp`, and `verilated_fst_c.cpp`
    /// with tracing), then each model's shim.
    pub fn cpp_files(&self) -> Vec<PathBuf> {
        let mut files = vec![self.include.join("verilated.cpp"), self.include.join("verilated_threads.cpp")];
        if self.trace {
            files.push(self.include.join("verilated_fst_c.cpp"));
        }
        files.extend(self.shims.iter().map(|(shim, _)| shim.clone()));
        files
    }

    /// Preprocessor definitions for that compile (tracing only).
    pub fn defines(&self) -> Vec<(&'static str, &'static str)> {
        if self.trace {
            vec![("VM_TRACE", "1"), ("VM_TRACE_FST", "1")]
        } else {
            Vec::new()
        }
    }

    /// Prints the link lines of the model archives (call it after the shims'
    /// library is compiled, so the archives follow it on the link line) and
    /// writes the Rust table to `rust_file` (each model's `FNS.traced` says
    /// whether it was built with tracing).
    pub fn finish(self, rust_file: &Path) {
        for (obj, lib) in &self.archives {
            println!("cargo:rustc-link-search=native={}", obj.display());
            println!("cargo:rustc-link-lib=static={lib}");
        }
        println!("cargo:rustc-link-lib=dylib=pthread");
        if self.trace {
            println!("cargo:rustc-link-lib=dylib=z");
        }
        fs::write(rust_file, self.rust).unwrap_or_else(|e| panic!("cannot write {}: {e}", rust_file.display()));
    }
}
