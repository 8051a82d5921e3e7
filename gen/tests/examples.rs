//! The example configurations `examples/*.toml`, each built as a user builds
//! it (`gen --config examples/<name>.toml --out DIR`: [`gen::read_config`],
//! [`gen::generate`], [`gen::write_atomically`]):
//!
//! - it resolves over the default and is valid;
//! - two builds, written to two different folders, are byte-identical, and
//!   no file holds anything of the machine (paths, home, host, today's date);
//! - the tree matches its golden copy `examples/golden/<name>/` byte for
//!   byte: a differing, missing or extra file fails, naming the example and
//!   the file (with the first differing line), and so does a golden tree
//!   whose example is gone. The default design's and one small example's
//!   trees are whole ([`WHOLE_TREES`]); the others keep every file a person
//!   edits or reads around the RTL (the top, the board top, the scripts, the
//!   constraints, the register outputs, the README) and, for the blocks'
//!   RTL (every file of `rtl/files.f` but the top, written by `hdl::emit`
//!   and proven by `hdl/tests/lockstep.rs`), a recorded hash of each in
//!   `rtl/blocks.sha256` (`sha256sum -c` reads it in the build folder);
//! - its Verilog lints clean (`scripts/lint.sh`, Verilator `-Wall`).
//!
//! After an intended change, `make golden` (`UPDATE_GOLDEN=1 cargo test
//! --workspace golden`) rewrites the golden trees and removes stale ones;
//! review the diff.

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::tree;
use sha2::{Digest, Sha256};

/// The examples whose golden tree is whole, block RTL included: the small
/// two-session example, and the one that is the embedded default (what
/// plain `cargo run -p gen` writes; `examples_cover_the_default_and_every_board`
/// checks it is listed here).
const WHOLE_TREES: [&str; 2] = ["small_2s_256", "toe200g_agilex7"];

/// The file that stands for the block RTL in a golden tree that is not whole.
const BLOCK_HASHES: &str = "rtl/blocks.sha256";

/// `tree` as the golden copy of example `name` holds it: whole for
/// [`WHOLE_TREES`], else with the block RTL (the files of `rtl/files.f` but
/// the last, the top) replaced by [`BLOCK_HASHES`], one `<sha256>  <path>`
/// line per file in list order.
fn golden_form(name: &str, mut tree: BTreeMap<String, Vec<u8>>) -> BTreeMap<String, Vec<u8>> {
    if WHOLE_TREES.contains(&name) {
        return tree;
    }
    let list = String::from_utf8(tree.get("rtl/files.f").cloned().unwrap_or_default()).expect("files.f is text");
    let files: Vec<&str> = list.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut hashes = String::new();
    for path in files.iter().take(files.len().saturating_sub(1)) {
        let bytes = tree.remove(*path).unwrap_or_else(|| panic!("example {name}: {path} is listed but not built"));
        let digest = Sha256::digest(&bytes);
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        hashes.push_str(&format!("{hex}  {path}\n"));
    }
    tree.insert(BLOCK_HASHES.to_string(), hashes.into_bytes());
    tree
}

/// Replaces the folder `dir` with the files of `tree`.
fn write_tree(dir: &Path, tree: &BTreeMap<String, Vec<u8>>) {
    if dir.exists() {
        fs::remove_dir_all(dir).unwrap_or_else(|e| panic!("cannot remove {}: {e}", dir.display()));
    }
    for (path, bytes) in tree {
        let file = dir.join(path);
        fs::create_dir_all(file.parent().unwrap())
            .unwrap_or_else(|e| panic!("cannot create a folder for {}: {e}", file.display()));
        fs::write(&file, bytes).unwrap_or_else(|e| panic!("cannot write {}: {e}", file.display()));
    }
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("gen sits in the workspace").to_path_buf()
}

fn examples_dir() -> PathBuf {
    repo().join("examples")
}

fn golden_dir() -> PathBuf {
    examples_dir().join("golden")
}

/// `examples/*.toml`, sorted by name: (name, path).
fn examples() -> Vec<(String, PathBuf)> {
    let dir = examples_dir();
    let entries = fs::read_dir(&dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()));
    let mut out: Vec<(String, PathBuf)> = entries
        .map(|e| e.unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display())).path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "toml"))
        .map(|p| (p.file_stem().unwrap().to_string_lossy().into_owned(), p))
        .collect();
    out.sort();
    assert!(!out.is_empty(), "{} holds no *.toml example configuration", dir.display());
    out
}

/// The build folder of `config` as `gen --config` writes it, into `out`.
fn build_into(name: &str, config: &Path, out: &Path) {
    let design = gen::read_config(config).unwrap_or_else(|e| panic!("example {name}: {e}"));
    let files = gen::generate(&design).unwrap_or_else(|e| panic!("example {name}: {}: {e}", config.display()));
    gen::write_atomically(out, &files).unwrap_or_else(|e| panic!("example {name}: {e}"));
}

/// The first line where `want` and `got` differ: "line N: golden ... / built ...".
fn first_difference(want: &[u8], got: &[u8]) -> String {
    let (w, g) = (String::from_utf8_lossy(want), String::from_utf8_lossy(got));
    let (mut wl, mut gl) = (w.split_inclusive('\n'), g.split_inclusive('\n'));
    for n in 1.. {
        match (wl.next(), gl.next()) {
            (Some(a), Some(b)) if a == b => continue,
            (None, None) => return "identical text".to_string(),
            (a, b) => {
                let show = |l: Option<&str>| l.map_or("<end of file>".to_string(), |l| format!("{l:?}"));
                return format!("line {n}: golden {} / built {}", show(a), show(b));
            }
        }
    }
    unreachable!()
}

/// What differs between the golden tree `want` and the built tree `got` of `name`.
fn compare(name: &str, want: &BTreeMap<String, Vec<u8>>, got: &BTreeMap<String, Vec<u8>>) -> Vec<String> {
    let mut problems = Vec::new();
    for (path, bytes) in got {
        match want.get(path) {
            None => problems.push(format!("{name}: {path} is built but missing from examples/golden/{name}/")),
            Some(w) if w != bytes => {
                problems.push(format!("{name}: {path} differs from its golden copy; {}", first_difference(w, bytes)))
            }
            Some(_) => {}
        }
    }
    for path in want.keys().filter(|p| !got.contains_key(*p)) {
        problems.push(format!("{name}: examples/golden/{name}/{path} is not built (an extra file)"));
    }
    problems
}

/// Golden entries without an example: stale trees and stray files.
fn stale(names: &[String]) -> Vec<PathBuf> {
    let dir = golden_dir();
    let Ok(entries) = fs::read_dir(&dir) else { return Vec::new() };
    let mut out: Vec<PathBuf> = entries
        .map(|e| e.unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display())).path())
        .filter(|p| !(p.is_dir() && names.iter().any(|n| p.file_name().is_some_and(|f| f == n.as_str()))))
        .collect();
    out.sort();
    out
}

/// Today's date as YYYY-MM-DD (UTC), from the system clock.
fn today() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
    // Days since 1970-01-01 to a civil date (H. Hinnant's algorithm).
    let z = secs.div_euclid(86_400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + (m <= 2) as i64;
    format!("{y:04}-{m:02}-{d:02}")
}

/// Strings that would make a generated file depend on the machine or the day.
fn machine_specific(tmp: &Path) -> Vec<String> {
    let mut out = vec![repo().display().to_string(), tmp.display().to_string(), today()];
    out.extend(std::env::var("HOME").ok().filter(|h| h.len() > 1));
    if let Ok(host) = fs::read_to_string("/etc/hostname") {
        out.extend(Some(host.trim().to_string()).filter(|h| h.len() >= 6));
    }
    out
}

#[test]
fn examples_resolve_are_valid_and_build_deterministically_without_machine_facts() {
    let tmp = tempfile::tempdir().unwrap();
    let tmp_path = tmp.path().canonicalize().unwrap();
    let forbidden = machine_specific(&tmp_path);
    for (name, path) in examples() {
        let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let resolved = config::resolve(&text).unwrap_or_else(|e| panic!("example {name}: {}: {e}", path.display()));
        let design = gen::read_config(&path).unwrap_or_else(|e| panic!("example {name}: {e}"));
        assert_eq!(
            gen::parse_config(&resolved.annotated()).unwrap_or_else(|e| panic!("example {name}: {e}")),
            design,
            "example {name}: the resolved configuration gives another design"
        );
        let (a, b) = (tmp_path.join(format!("{name}-a")), tmp_path.join("elsewhere").join(&name));
        build_into(&name, &path, &a);
        build_into(&name, &path, &b);
        let (ta, tb) = (tree(&a), tree(&b));
        assert!(ta.len() > 10, "example {name}: only {} files built", ta.len());
        let differing: Vec<&String> = ta.keys().chain(tb.keys()).filter(|f| ta.get(*f) != tb.get(*f)).collect();
        assert!(differing.is_empty(), "example {name}: two builds differ in {differing:?}");
        for (file, bytes) in &ta {
            let text = String::from_utf8_lossy(bytes);
            for f in &forbidden {
                assert!(!text.contains(f.as_str()), "example {name}: {file} holds the machine-specific {f:?}");
            }
        }
    }
}

/// The examples cover the product: one is the embedded default exactly (the
/// reference 200G demo, so what plain `cargo run -p gen` writes has a golden
/// tree), and every board under `constraints/` is the target of at least one.
#[test]
fn examples_cover_the_default_and_every_board() {
    let designs: Vec<(String, config::Design)> = examples()
        .into_iter()
        .map(|(name, path)| {
            let d = gen::read_config(&path).unwrap_or_else(|e| panic!("example {name}: {e}"));
            (name, d)
        })
        .collect();
    let default = gen::parse_config(config::DEFAULT_TOML).expect("the default is valid");
    let Some((name, _)) = designs.iter().find(|(_, d)| d.config_hash == default.config_hash) else {
        panic!("no example resolves to the embedded default (configuration {})", default.config_hash)
    };
    assert!(WHOLE_TREES.contains(&name.as_str()), "the default's example {name} must keep a whole golden tree");
    for board in flows::board_names() {
        assert!(designs.iter().any(|(_, d)| d.board == board), "no example targets board {board}");
    }
}

#[test]
fn examples_match_their_golden_build_trees() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let examples = examples();
    let names: Vec<String> = examples.iter().map(|(n, _)| n.clone()).collect();
    let mut problems = Vec::new();
    for p in stale(&names) {
        if update {
            let removed = if p.is_dir() { fs::remove_dir_all(&p) } else { fs::remove_file(&p) };
            removed.unwrap_or_else(|e| panic!("cannot remove the stale {}: {e}", p.display()));
        } else {
            problems.push(format!(
                "{}: stale golden entry, no examples/<name>.toml builds it (remove it, or run `make golden`)",
                p.display()
            ));
        }
    }
    let tmp = tempfile::tempdir().unwrap();
    for (name, path) in &examples {
        let golden = golden_dir().join(name);
        let built = tmp.path().join(name);
        build_into(name, path, &built);
        let built = golden_form(name, tree(&built));
        if update {
            write_tree(&golden, &built);
        }
        if !golden.is_dir() {
            problems.push(format!("{name}: no golden tree {} (run `make golden`)", golden.display()));
            continue;
        }
        problems.extend(compare(name, &tree(&golden), &built));
    }
    assert!(
        problems.is_empty(),
        "{} problem(s) with the example build trees; if the change is intended, run `make golden` and review the diff:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// `tool` on the search path `path` (a PATH value), or how to install it.
fn require_tool(tool: &str, path: &str) -> Result<PathBuf, String> {
    std::env::split_paths(path)
        .map(|d| d.join(tool))
        .find(|p| p.is_file())
        .ok_or_else(|| format!("cannot run `{tool}` (not on PATH): install it with `make deps` or put it on PATH"))
}

#[test]
fn a_missing_verilator_says_make_deps() {
    let empty = tempfile::tempdir().unwrap();
    let err = require_tool("verilator", &empty.path().display().to_string()).unwrap_err();
    assert!(err.contains("`verilator`") && err.contains("install it with `make deps`"), "{err}");
    let bin = empty.path().join("verilator");
    fs::write(&bin, "").unwrap();
    assert_eq!(require_tool("verilator", &empty.path().display().to_string()), Ok(bin));
}

/// `bash scripts/lint.sh` on the build of example `name`: its complaint, if any.
fn lint(name: &str, config: &Path, out: &Path) -> Option<String> {
    build_into(name, config, out);
    let script = repo().join("scripts").join("lint.sh");
    let o = Command::new("bash")
        .arg(&script)
        .arg(out)
        .output()
        .unwrap_or_else(|e| panic!("cannot run bash {}: {e}", script.display()));
    let log = String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    if o.status.success() && log.contains("lint: clean") {
        return None;
    }
    let lines: Vec<&str> = log.lines().collect();
    let more = lines.len().saturating_sub(40);
    Some(format!(
        "example {name} ({}) does not lint clean (`bash scripts/lint.sh DIR`):\n{}{}",
        config.display(),
        lines[..lines.len().min(40)].join("\n"),
        if more > 0 { format!("\n... {more} more lines") } else { String::new() }
    ))
}

/// Every example's Verilog through `scripts/lint.sh` (Verilator `-Wall`,
/// the project's waivers), as `make lint` checks `build/`; the examples run
/// side by side, one thread each.
#[test]
fn every_example_lints_clean() {
    require_tool("verilator", &std::env::var("PATH").unwrap_or_default()).unwrap_or_else(|e| panic!("{e}"));
    let tmp = tempfile::tempdir().unwrap();
    let (examples, root) = (examples(), tmp.path());
    let failures: Vec<String> = std::thread::scope(|scope| {
        let runs: Vec<_> =
            examples.iter().map(|(name, path)| scope.spawn(move || lint(name, path, &root.join(name)))).collect();
        runs.into_iter()
            .filter_map(|run| {
                run.join().unwrap_or_else(|e| {
                    Some(e.downcast_ref::<String>().cloned().unwrap_or_else(|| "a lint thread panicked".into()))
                })
            })
            .collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// No generated name holds a `$` (rust-hdl's hierarchy separator, which
/// every XDC/SDC/Tcl query would have to escape): in every example's build,
/// a `$` appears only in the Tcl scripts, as a Tcl variable (`$build_dir`).
#[test]
fn no_generated_name_holds_a_dollar() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, path) in examples() {
        let out = tmp.path().join(&name);
        build_into(&name, &path, &out);
        for (file, bytes) in tree(&out) {
            let text = String::from_utf8_lossy(&bytes);
            for (i, _) in text.match_indices('$') {
                let next = text[i + 1..].chars().next().unwrap_or(' ');
                let tcl_variable = file.ends_with(".tcl") && (next.is_ascii_lowercase() || next == '_' || next == '{');
                assert!(
                    tcl_variable,
                    "example {name}: {file} has a `$` that is no Tcl variable: {:?}",
                    &text[i.saturating_sub(30)..(i + 30).min(text.len())]
                );
            }
        }
    }
}
