//! Which verilated model simulates a configuration: one the testbench built
//! at compile time when the configuration is one of those, otherwise one
//! verilated on first use into a cache keyed by the configuration hash
//! (`verilate::load_cached`, the same recipe as the testbench's build).

use std::path::{Path, PathBuf};

use testbench::verilated::Top;

/// The Verilator waivers every generated top is verilated with.
const WAIVERS: &str = include_str!("../../scripts/verilator_waivers.vlt");

/// A model ready to simulate, and where it came from (for the log).
pub struct Resolved {
    /// The model and its port plan.
    pub top: Top,
    pub origin: String,
}

/// The models the testbench built at compile time: (configuration hash, model).
fn built_in() -> [(&'static str, fn() -> Top); 2] {
    use testbench::models::{top1024, top64};
    [(top1024::CONFIG_HASH, top1024::top), (top64::CONFIG_HASH, top64::top)]
}

/// The default cache folder: `target/vboard-cache` of this workspace.
pub fn default_cache() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/vboard-cache")
}

/// The model of `design`: built in, or from the cache under `cache`
/// (verilated there first if missing, or if `rebuild`).
pub fn resolve(
    design: &config::Design,
    cache: &Path,
    rebuild: bool,
    log: &mut dyn FnMut(&str),
) -> Result<Resolved, String> {
    if !rebuild {
        if let Some((_, top)) = built_in().into_iter().find(|(hash, _)| *hash == design.config_hash) {
            let top = top();
            return Ok(Resolved { origin: format!("model `{}`, built in", top.fns.name), top });
        }
    }
    let toe_gen::Build { files, plan } = toe_gen::build(design).map_err(|e| format!("generating the Verilog: {e}"))?;
    let list = files
        .iter()
        .find(|f| f.path == toe_gen::rtl::FILELIST)
        .ok_or_else(|| format!("gen wrote no {}", toe_gen::rtl::FILELIST))?;
    let mut sources = Vec::new();
    for line in list.contents.lines().filter(|l| !l.trim().is_empty()) {
        let f = files
            .iter()
            .find(|f| f.path == line.trim())
            .ok_or_else(|| format!("{line} is in the file list but was not generated"))?;
        sources.push(verilate::Source { path: PathBuf::from(&f.path), contents: f.contents.clone() });
    }
    std::fs::create_dir_all(cache).map_err(|e| format!("cannot create the model cache {}: {e}", cache.display()))?;
    let waivers = cache.join("verilator_waivers.vlt");
    std::fs::write(&waivers, WAIVERS).map_err(|e| format!("cannot write {}: {e}", waivers.display()))?;
    let model = format!("vb_{}", design.config_hash);
    let fns =
        verilate::load_cached(&model, &design.name, &sources, Some(&waivers), &design.config_hash, cache, rebuild, log)
            .map_err(|e| e.to_string())?;
    Ok(Resolved {
        top: Top::new(fns, plan),
        origin: format!("model verilated for configuration {} in {}", design.config_hash, cache.display()),
    })
}
