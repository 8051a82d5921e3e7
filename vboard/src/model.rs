//! The verilated model of a configuration: verilated on first use into a
//! cache keyed by the configuration's hash (`verilate::load_cached`, the same
//! recipe as the testbench's build), then loaded from there. The default
//! design is no exception: the virtual board links no model at build time.

use std::path::{Path, PathBuf};

use board_sim::verilated::Top;

/// The environment variable that moves the default cache.
pub const CACHE_ENV: &str = "VBOARD_CACHE";

/// A model ready to simulate, and where it came from (for the log).
pub struct Resolved {
    /// The model and its port plan.
    pub top: Top,
    pub origin: String,
}

/// The default cache folder: `$VBOARD_CACHE`, else `toe-vboard` in the
/// user's cache folder (`$XDG_CACHE_HOME`, else `~/.cache`), else in the
/// system's temporary folder.
pub fn default_cache() -> PathBuf {
    let env = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(dir) = env(CACHE_ENV) {
        return dir;
    }
    let user_cache = env("XDG_CACHE_HOME").or_else(|| env("HOME").map(|h| h.join(".cache")));
    user_cache.unwrap_or_else(std::env::temp_dir).join("toe-vboard")
}

/// The model of `design`, from the cache under `cache` (verilated there
/// first if missing, or if `rebuild`).
pub fn resolve(
    design: &config::Design,
    cache: &Path,
    rebuild: bool,
    log: &mut dyn FnMut(&str),
) -> Result<Resolved, String> {
    let gen::Build { files, plan } = gen::build(design).map_err(|e| format!("generating the Verilog: {e}"))?;
    let list = files
        .iter()
        .find(|f| f.path == gen::rtl::FILELIST)
        .ok_or_else(|| format!("gen wrote no {}", gen::rtl::FILELIST))?;
    let mut sources = Vec::new();
    for line in list.contents.lines().filter(|l| !l.trim().is_empty()) {
        let f = files
            .iter()
            .find(|f| f.path == line.trim())
            .ok_or_else(|| format!("{line} is in the file list but was not generated"))?;
        sources.push(verilate::Source { path: PathBuf::from(&f.path), contents: f.contents.clone() });
    }
    // The top in its simulation shell (resets registered, `gen::sim_shell`),
    // as the testbench's models are.
    let shell = gen::sim_shell::sim_shell(design, &plan).map_err(|e| format!("generating the Verilog: {e}"))?;
    sources.push(verilate::Source { path: PathBuf::from(&shell.path), contents: shell.contents });
    let waivers = verilate::write_waivers(cache).map_err(|e| format!("the model cache: {e}"))?;
    let model = format!("vb_{}", design.config_hash);
    let top = gen::sim_shell::module(&design.name);
    let fns = verilate::load_cached(&model, &top, &sources, Some(&waivers), &design.config_hash, cache, rebuild, log)
        .map_err(|e| e.to_string())?;
    Ok(Resolved {
        top: Top::new(fns, plan),
        origin: format!("model verilated for configuration {} in {}", design.config_hash, cache.display()),
    })
}
