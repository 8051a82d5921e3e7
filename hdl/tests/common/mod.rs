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
