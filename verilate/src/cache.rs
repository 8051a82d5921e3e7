//! Run time: models verilated on first use into a cache, linked into shared
//! libraries and loaded (see the crate docs for the layout).

use std::ffi::{c_char, c_void, CStr};
use std::fs;
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::recipe::{
    find_archive, parse_ports, read, render_port_table, render_shim, verilator_root, verilator_version, VerilatedCode,
};
use crate::{io, Error, ModelFns, PortInfo, Verilation};

/// Version of what this crate builds into a cache folder; a folder stamped
/// with another version is rebuilt. Bump it when the shim, the port table or
/// the compile changes.
pub const RECIPE_VERSION: u32 = 5;

/// The suffixes of the C entry points a shared model exports (`<model>_<suffix>`).
const ENTRY_POINTS: [&str; 9] =
    ["new", "eval", "delete", "port", "trace_open", "trace_dump", "fall", "port_count", "port_info"];

/// One source file of a model: `path` relative to the cache folder's `src/`.
/// Every source is given to Verilator, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    pub path: PathBuf,
    pub contents: String,
}

/// What a cache folder holds, as its `stamp` records it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Stamp {
    recipe: String,
    key: String,
    model: String,
    top: String,
    verilator: String,
    sources: String,
    library: String,
}

impl Stamp {
    const FILE: &'static str = "stamp";

    fn render(&self) -> String {
        format!(
            "recipe={}\nkey={}\nmodel={}\ntop={}\nverilator={}\nsources={}\nlibrary={}\n",
            self.recipe, self.key, self.model, self.top, self.verilator, self.sources, self.library
        )
    }

    fn read(dir: &Path) -> Option<Stamp> {
        let text = fs::read_to_string(dir.join(Self::FILE)).ok()?;
        let field = |name: &str| {
            text.lines().find_map(|l| l.strip_prefix(name).and_then(|r| r.strip_prefix('='))).map(str::to_string)
        };
        Some(Stamp {
            recipe: field("recipe")?,
            key: field("key")?,
            model: field("model")?,
            top: field("top")?,
            verilator: field("verilator")?,
            sources: field("sources")?,
            library: field("library")?,
        })
    }

    /// Why `self` (found) does not serve `want`, if it does not.
    fn mismatch(&self, want: &Stamp) -> Option<&'static str> {
        if self.recipe != want.recipe {
            Some("built by another recipe version")
        } else if self.key != want.key {
            Some("another key")
        } else if self.model != want.model || self.top != want.top {
            Some("another model or top")
        } else if self.verilator != want.verilator {
            Some("built by another Verilator")
        } else if self.sources != want.sources {
            Some("other sources")
        } else {
            None
        }
    }
}

/// Loads model `model` (top module `top` of `sources`) from the cache folder
/// `cache_root/<key>`, building it there first if the folder is missing,
/// stale or `rebuild` is set. `waivers` is a Verilator configuration file
/// given before the sources. Each step is reported through `log`, with its
/// duration when it ends.
///
/// `model` must be a C identifier (it prefixes the entry points); `key` a
/// folder name of letters, digits, `-`, `_` and `.` that does not start with
/// a dot; source paths relative, without `..`. The returned entry points and
/// port table live as long as the process.
#[allow(clippy::too_many_arguments)]
pub fn load_cached(
    model: &str,
    top: &str,
    sources: &[Source],
    waivers: Option<&Path>,
    key: &str,
    cache_root: &Path,
    rebuild: bool,
    log: &mut dyn FnMut(&str),
) -> Result<&'static ModelFns, Error> {
    check_arguments(model, top, sources, key)?;
    let waiver_text = match waivers {
        Some(w) => Some(read(w)?),
        None => None,
    };
    let want = Stamp {
        recipe: RECIPE_VERSION.to_string(),
        key: key.to_string(),
        model: model.to_string(),
        top: top.to_string(),
        verilator: verilator_version()?,
        sources: fingerprint(sources, waiver_text.as_deref()),
        library: String::new(),
    };
    let dir = cache_root.join(key);
    // One process builds a key at a time; the others wait, then hit the cache.
    let _lock = KeyLock::acquire(cache_root, key, log)?;
    let reason = if rebuild {
        "rebuild requested"
    } else {
        match Stamp::read(&dir) {
            None if dir.exists() => "no stamp",
            None => "not cached",
            Some(found) => match found.mismatch(&want) {
                Some(reason) => reason,
                None if !dir.join(&found.library).is_file() => "library missing",
                None => {
                    log(&format!("cache hit {}", dir.display()));
                    return load_library(&dir.join(&found.library), model);
                }
            },
        }
    };
    log(&format!("building {} ({reason})", dir.display()));
    let library = build(&want, sources, waivers, cache_root, &dir, log)?;
    load_library(&dir.join(library), model)
}

/// An exclusive `flock` on `<cache_root>/.lock-<key>`, held while a key is
/// checked and built, so that processes (or threads) starting the same
/// model at once build it once. The kernel drops the lock when its holder
/// exits, so a killed build never leaves a stale lock.
struct KeyLock {
    _file: fs::File,
}

impl KeyLock {
    /// How long to wait for another build of the same key.
    const WAIT: Duration = Duration::from_secs(20 * 60);

    fn acquire(cache_root: &Path, key: &str, log: &mut dyn FnMut(&str)) -> Result<KeyLock, Error> {
        use std::os::fd::AsRawFd;
        fs::create_dir_all(cache_root).map_err(io(format!("cannot create the cache {}", cache_root.display())))?;
        let path = cache_root.join(format!(".lock-{key}"));
        let file = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(io(format!("cannot open {}", path.display())))?;
        let started = Instant::now();
        let mut said = false;
        loop {
            // SAFETY: a valid descriptor of a file this function keeps open.
            if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
                return Ok(KeyLock { _file: file });
            }
            let e = std::io::Error::last_os_error();
            if e.raw_os_error() != Some(libc::EWOULDBLOCK) && e.kind() != std::io::ErrorKind::Interrupted {
                return Err(io(format!("cannot lock {}", path.display()))(e));
            }
            if started.elapsed() > Self::WAIT {
                return Err(Error::Invalid(format!(
                    "another process has been building {} for over {} minutes (it holds {}); stop it or use another cache",
                    cache_root.join(key).display(),
                    Self::WAIT.as_secs() / 60,
                    path.display()
                )));
            }
            if !said {
                log(&format!("waiting for another process building {}", cache_root.join(key).display()));
                said = true;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

fn check_arguments(model: &str, top: &str, sources: &[Source], key: &str) -> Result<(), Error> {
    let identifier = |s: &str| {
        s.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    if !identifier(model) {
        return Err(Error::Invalid(format!("model name {model:?} is not a C identifier")));
    }
    if top.is_empty() || top.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(Error::Invalid(format!("top module name {top:?} is not a Verilog identifier")));
    }
    if key.is_empty()
        || key.starts_with('.')
        || key.len() > 200
        || !key.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
    {
        return Err(Error::Invalid(format!(
            "cache key {key:?} is not a folder name of letters, digits, '-', '_' and '.' (not starting with '.')"
        )));
    }
    if sources.is_empty() {
        return Err(Error::Invalid(format!("model {model}: no sources")));
    }
    for s in sources {
        let plain = s.path.components().all(|c| matches!(c, Component::Normal(_)));
        if !plain || s.path.as_os_str().is_empty() {
            return Err(Error::Invalid(format!("source path {} must be relative, without `..`", s.path.display())));
        }
    }
    Ok(())
}

/// FNV-1a (64 bits) of the source paths and contents and the waivers: stable
/// across Rust versions, unlike `DefaultHasher`.
fn fingerprint(sources: &[Source], waivers: Option<&str>) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for chunk in [&(bytes.len() as u64).to_le_bytes()[..], bytes] {
            for b in chunk {
                h ^= u64::from(*b);
                h = h.wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
    };
    for s in sources {
        eat(s.path.to_string_lossy().as_bytes());
        eat(s.contents.as_bytes());
    }
    eat(waivers.unwrap_or("").as_bytes());
    format!("fnv1a64:{h:016x}:{}", sources.len())
}

/// A fresh id: unique within the process and, with the pid, across processes.
fn fresh_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    format!("{}-{nanos:x}{}", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed))
}

/// Removes a folder on drop unless disarmed.
struct Cleanup(Option<PathBuf>);

impl Drop for Cleanup {
    fn drop(&mut self) {
        if let Some(dir) = self.0.take() {
            let _ = fs::remove_dir_all(dir);
        }
    }
}

/// Removes `.tmp-<key>-<pid>-<id>` and `.old-<key>-<pid>-<id>` folders left by
/// processes that are gone (an interrupted build).
fn sweep(cache_root: &Path, key: &str) {
    let Ok(entries) = fs::read_dir(cache_root) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let rest = [".tmp-", ".old-"].iter().find_map(|p| name.strip_prefix(p)).and_then(|r| r.strip_prefix(key));
        let Some(rest) = rest.and_then(|r| r.strip_prefix('-')) else {
            continue;
        };
        let parts: Vec<&str> = rest.split('-').collect();
        let [pid, _id] = parts[..] else {
            continue;
        };
        if pid.parse::<u32>().is_ok() && !Path::new("/proc").join(pid).exists() {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

/// Runs `cmd`; `Err(output)` if it ran and failed (stderr, then stdout).
fn run(mut cmd: Command, tool: &'static str) -> Result<Result<(), String>, Error> {
    let out: Output = cmd.output().map_err(|e| Error::ToolMissing { tool, detail: e.to_string() })?;
    if out.status.success() {
        return Ok(Ok(()));
    }
    let mut text = String::from_utf8_lossy(&out.stderr).into_owned();
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !stdout.trim().is_empty() {
        text.push('\n');
        text.push_str(&stdout);
    }
    text.push_str(&format!("\n({tool} exited with {})", out.status));
    Ok(Err(text))
}

/// Logs `what...` now and `what... <seconds> s` when `f` is done.
fn step<T>(log: &mut dyn FnMut(&str), what: &str, f: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
    log(&format!("{what}..."));
    let start = Instant::now();
    let result = f();
    let secs = start.elapsed().as_secs_f64();
    log(&format!("{what}... {secs:.1} s{}", if result.is_err() { " (failed)" } else { "" }));
    result
}

/// Builds `want` into a temporary folder and renames it to `dir`; returns
/// the library's file name.
fn build(
    want: &Stamp,
    sources: &[Source],
    waivers: Option<&Path>,
    cache_root: &Path,
    dir: &Path,
    log: &mut dyn FnMut(&str),
) -> Result<String, Error> {
    let model = want.model.as_str();
    fs::create_dir_all(cache_root).map_err(io(format!("cannot create the cache folder {}", cache_root.display())))?;
    sweep(cache_root, &want.key);
    let id = fresh_id();
    let tmp = cache_root.join(format!(".tmp-{}-{id}", want.key));
    fs::create_dir(&tmp).map_err(io(format!("cannot create {}", tmp.display())))?;
    let mut cleanup = Cleanup(Some(tmp.clone()));

    let mut paths = Vec::with_capacity(sources.len());
    for s in sources {
        let p = tmp.join("src").join(&s.path);
        if let Some(parent) = p.parent() {
            fs::create_dir_all(parent).map_err(io(format!("cannot create {}", parent.display())))?;
        }
        fs::write(&p, &s.contents).map_err(io(format!("cannot write {}", p.display())))?;
        paths.push(p);
    }
    let obj = tmp.join("obj");
    let v = Verilation { model, top: &want.top, sources: &paths, waivers, obj_dir: &obj, trace: false };
    step(log, &format!("verilating {} into {}", want.top, dir.display()), || {
        run(v.command(), "verilator")?.map_err(|output| Error::Verilator { top: want.top.clone(), output })
    })?;
    let prefix = v.prefix();
    let archive = find_archive(&obj, &prefix)?;
    let mut ports = parse_ports(&read(&v.header())?)?;
    let code = VerilatedCode::read(&obj, &prefix)?;
    code.mark_edge_only(&mut ports);
    let shim = tmp.join(format!("{model}_shim.cpp"));
    let rising_only = code.rising_only_clocks(&ports);
    let clocked = code.clocked_eval(&ports);
    let text =
        render_shim(model, &prefix, &ports, false, &rising_only, clocked.as_ref()) + &render_port_table(model, &ports);
    fs::write(&shim, text).map_err(io(format!("cannot write {}", shim.display())))?;

    // Only the entry points are exported: everything else, the Verilator
    // runtime included, stays local to the library (see the crate docs).
    let exports = tmp.join("exports.map");
    let names: String = ENTRY_POINTS.iter().map(|e| format!("    {model}_{e};\n")).collect();
    fs::write(&exports, format!("{{\n  global:\n{names}  local: *;\n}};\n"))
        .map_err(io(format!("cannot write {}", exports.display())))?;

    let library = format!("lib{model}.{}.so", id.rsplit('-').next().unwrap_or("0"));
    let include = verilator_root()?.join("include");
    let mut cxx = Command::new("g++");
    cxx.args(["-shared", "-fPIC", "-O2", "-std=c++17", "-faligned-new", "-Wno-unused-parameter", "-Wno-sign-compare"])
        .arg("-I")
        .arg(&include)
        .arg("-I")
        .arg(include.join("vltstd"))
        .arg("-I")
        .arg(&obj)
        .arg(&shim)
        .arg(include.join("verilated.cpp"))
        .arg(include.join("verilated_threads.cpp"))
        .arg("-Wl,--whole-archive")
        .arg(&archive)
        .arg("-Wl,--no-whole-archive")
        .args(["-Wl,-Bsymbolic", "-Wl,--no-undefined"])
        .arg(format!("-Wl,--version-script={}", exports.display()))
        .arg("-o")
        .arg(tmp.join(&library))
        .arg("-lpthread");
    step(log, &format!("compiling shared model {library}"), || {
        run(cxx, "g++")?.map_err(|output| Error::Compiler { model: model.to_string(), output })
    })?;

    let stamp = Stamp { library: library.clone(), ..want.clone() };
    let stamp_path = tmp.join(Stamp::FILE);
    fs::write(&stamp_path, stamp.render()).map_err(io(format!("cannot write {}", stamp_path.display())))?;

    // Into place: the old folder (if any) aside first, since a folder cannot
    // be renamed onto a non-empty one.
    // A concurrent build of the same key may put its folder in place between
    // the two renames: then move that one aside too (both are complete).
    let mut attempt = 0;
    loop {
        let old = cache_root.join(format!(".old-{}-{id}x{attempt}", want.key));
        let moved_old = fs::rename(dir, &old).is_ok();
        let result = fs::rename(&tmp, dir);
        if moved_old {
            let _ = fs::remove_dir_all(&old);
        }
        match result {
            Ok(()) => break,
            Err(_) if attempt < 3 => attempt += 1,
            Err(e) => return Err(io(format!("cannot rename {} to {}", tmp.display(), dir.display()))(e)),
        }
    }
    cleanup.0 = None;
    Ok(library)
}

/// Loads a shared model that [`load_cached`] built (`<cache_root>/<key>/lib<model>.<id>.so`),
/// resolves its entry points and port table, and leaks them.
pub fn load_library(path: &Path, model: &str) -> Result<&'static ModelFns, Error> {
    use libloading::os::unix::{Library, RTLD_LOCAL, RTLD_NOW};
    let load_error = |detail: String| Error::Load { path: path.display().to_string(), detail };
    // SAFETY: the library is a model this crate built: its initialisers are
    // the Verilator runtime's and the C++ library's.
    let lib = unsafe { Library::open(Some(path), RTLD_NOW | RTLD_LOCAL) }.map_err(|e| load_error(e.to_string()))?;
    // Never unloaded: the entry points and port names below point into it.
    let lib: &'static Library = Box::leak(Box::new(lib));
    macro_rules! entry {
        ($suffix:literal, $ty:ty) => {{
            let name = format!("{model}_{}", $suffix);
            // SAFETY: the shim defines `name` with this C signature (render_shim, render_port_table).
            let symbol = unsafe { lib.get::<$ty>(name.as_bytes()) }.map_err(|e| load_error(e.to_string()))?;
            *symbol
        }};
    }
    type PortInfoFn = unsafe extern "C" fn(u32, *mut u32, *mut u32, *mut u32, *mut u32, *mut u32) -> *const c_char;
    let port_count = entry!("port_count", unsafe extern "C" fn() -> u32);
    let port_info = entry!("port_info", PortInfoFn);
    // SAFETY: no arguments; a constant.
    let count = unsafe { port_count() };
    let mut ports = Vec::with_capacity(count as usize);
    for i in 0..count {
        let (mut kind, mut width, mut words, mut output, mut edge_only) = (0u32, 0u32, 0u32, 0u32, 0u32);
        // SAFETY: i < count; the out-pointers are live locals.
        let name = unsafe { port_info(i, &mut kind, &mut width, &mut words, &mut output, &mut edge_only) };
        if name.is_null() || ![0, 8, 16, 32, 64].contains(&kind) {
            return Err(load_error(format!("port {i} of {count} is not described")));
        }
        // SAFETY: a NUL-terminated literal of the (leaked) library.
        let name = unsafe { CStr::from_ptr(name) }.to_str().map_err(|e| load_error(e.to_string()))?;
        let name: &'static str = Box::leak(name.to_string().into_boxed_str());
        ports.push(PortInfo {
            name,
            kind,
            width: width as usize,
            words: words as usize,
            output: output != 0,
            edge_only: edge_only != 0,
        });
    }
    let fns = ModelFns {
        name: Box::leak(model.to_string().into_boxed_str()),
        new: entry!("new", unsafe extern "C" fn() -> *mut c_void),
        eval: entry!("eval", unsafe extern "C" fn(*mut c_void)),
        delete: entry!("delete", unsafe extern "C" fn(*mut c_void)),
        port: entry!("port", unsafe extern "C" fn(*mut c_void, u32) -> *mut c_void),
        trace_open: entry!("trace_open", unsafe extern "C" fn(*mut c_void, *const c_char)),
        trace_dump: entry!("trace_dump", unsafe extern "C" fn(*mut c_void, u64)),
        fall: entry!("fall", unsafe extern "C" fn(*mut c_void, u32) -> i32),
        traced: false,
        ports: Box::leak(ports.into_boxed_slice()),
    };
    Ok(Box::leak(Box::new(fns)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(path: &str, contents: &str) -> Source {
        Source { path: path.into(), contents: contents.into() }
    }

    #[test]
    fn arguments_are_checked() {
        let s = [src("a.v", "module a; endmodule")];
        assert!(check_arguments("a", "a", &s, "k0-1.x_").is_ok());
        assert!(check_arguments("1a", "a", &s, "k").is_err());
        assert!(check_arguments("a", "a", &s, "../k").is_err());
        assert!(check_arguments("a", "a", &s, ".k").is_err());
        assert!(check_arguments("a", "a", &s, "").is_err());
        assert!(check_arguments("a", "a", &[], "k").is_err());
        assert!(check_arguments("a", "a", &[src("../a.v", "")], "k").is_err());
        assert!(check_arguments("a", "a", &[src("/a.v", "")], "k").is_err());
    }

    #[test]
    fn fingerprint_sees_paths_contents_and_waivers() {
        let a = fingerprint(&[src("a.v", "x")], None);
        assert_eq!(a, fingerprint(&[src("a.v", "x")], None));
        assert_ne!(a, fingerprint(&[src("b.v", "x")], None));
        assert_ne!(a, fingerprint(&[src("a.v", "y")], None));
        assert_ne!(a, fingerprint(&[src("a.v", "x")], Some("lint_off")));
        assert_ne!(fingerprint(&[src("a.v", "xy")], None), fingerprint(&[src("a.vx", "y")], None));
    }

    #[test]
    fn stamp_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let s = Stamp {
            recipe: "1".into(),
            key: "k".into(),
            model: "m".into(),
            top: "t".into(),
            verilator: "Verilator 5.006 2023-01-22 rev (Debian 5.006-3)".into(),
            sources: "fnv1a64:0:1".into(),
            library: "libm.1.so".into(),
        };
        fs::write(dir.path().join(Stamp::FILE), s.render()).unwrap();
        let back = Stamp::read(dir.path()).unwrap();
        assert_eq!(back, s);
        assert_eq!(back.mismatch(&s), None);
        let other = Stamp { verilator: "Verilator 5.020".into(), ..s.clone() };
        assert_eq!(back.mismatch(&other), Some("built by another Verilator"));
    }

    #[test]
    fn sweep_removes_only_dead_builds_of_the_key() {
        let root = tempfile::tempdir().unwrap();
        let me = std::process::id();
        let dead = u32::MAX - 1; // no such pid
        for name in [
            format!(".tmp-k-{dead}-1"),
            format!(".old-k-{dead}-2"),
            format!(".tmp-k-{me}-3"),
            format!(".tmp-k-x-{dead}-4"),
            "k".to_string(),
        ] {
            fs::create_dir(root.path().join(name)).unwrap();
        }
        sweep(root.path(), "k");
        let mut left: Vec<String> =
            fs::read_dir(root.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        left.sort();
        let mut want = [format!(".tmp-k-{me}-3"), format!(".tmp-k-x-{dead}-4"), "k".to_string()];
        want.sort();
        assert_eq!(left, want);
    }
}
