//! Shared by the tests that verilate a block's emitted modules on their
//! own (the latency blocks): the modules as sources, their model built
//! once into a cache folder of the test, and `-Wall` lint.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use verilate::{ModelFns, Source};

/// The test's cache folder `name` under Cargo's temporary folder.
pub fn cache(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name)
}

/// Each emitted module as a file of its own, `<module>.v`.
pub fn sources(modules: &[hdl::emit::Module]) -> Vec<Source> {
    modules.iter().map(|m| Source { path: format!("{}.v", m.name).into(), contents: m.file_text() }).collect()
}

/// The model of `top` from `sources`, built (with the project's waivers)
/// or taken from `cache`; a build failure fails the test.
pub fn model(top: &str, sources: &[Source], cache: &Path) -> &'static ModelFns {
    let waivers = verilate::write_waivers(cache).expect("the waivers");
    verilate::load_cached(top, top, sources, Some(&waivers), top, cache, false, &mut |m| eprintln!("{top}: {m}"))
        .unwrap_or_else(|e| panic!("building {top}: {e}"))
}

/// `verilator --lint-only -Wall` on `top` of `sources`, in a folder of this
/// process under `cache`; a warning fails the test with the log.
pub fn lint(top: &str, sources: &[Source], cache: &Path) {
    let dir = cache.join(format!("lint-{}-{top}", std::process::id()));
    if let Err(log) = verilate::lint_wall(top, sources, &dir) {
        panic!("{top}:\n{log}");
    }
}

/// A block emitted at each data width (`modules(width, prefix)`, root
/// `<prefix>_<name>`), verilated as `dut<width>_<name>` with its cache
/// folder `name`: the sources, the model and the lint of one width.
pub struct WidthBlock {
    pub name: &'static str,
    pub modules: fn(usize, &str) -> Result<Vec<hdl::emit::Module>, hdl::verilog::HdlError>,
}

impl WidthBlock {
    /// The test's cache folder.
    pub fn cache(&self) -> PathBuf {
        cache(self.name)
    }

    /// The root module's name and the sources at `width` bits.
    pub fn sources(&self, width: usize) -> (String, Vec<Source>) {
        let prefix = format!("dut{width}");
        let modules = (self.modules)(width, &prefix).unwrap_or_else(|e| panic!("{} at {width}: {e}", self.name));
        (format!("{prefix}_{}", self.name), sources(&modules))
    }

    /// The model at `width` bits, built or taken from the cache.
    pub fn model(&self, width: usize) -> &'static ModelFns {
        let (top, sources) = self.sources(width);
        model(&top, &sources, &self.cache())
    }

    /// `verilator --lint-only -Wall` at every data width.
    pub fn lint_every_width(&self) {
        for width in config::DATA_WIDTHS {
            let (top, sources) = self.sources(width);
            lint(&top, &sources, &self.cache());
        }
    }
}
