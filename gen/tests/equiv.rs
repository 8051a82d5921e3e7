//! `scripts/equiv.sh` (`make equiv`), the yosys proof that a change to the
//! generator left each generated module's logic the same, on folders made
//! from the small example's golden RTL:
//!
//! - the same files: nothing to prove, and it says so;
//! - one module's logic rewritten into an equal form (`x & y` as
//!   `x & ~~y`): proven, the module named;
//! - the same term changed (`x & y` as `x | y`): not proven, the module
//!   named, a non-zero exit.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The module the tests rewrite, and the golden example it comes from.
const MODULE: &str = "toe_user_logic_round_trips";
const EXAMPLE: &str = "small_2s_256";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("gen sits in the workspace").to_path_buf()
}

/// A copy of the example's golden folder in `dir`, with `MODULE`'s first
/// ` & ` inside its first `always @(*)` replaced by `with`.
fn side(dir: &Path, with: Option<&str>) -> PathBuf {
    let golden = repo().join("examples").join("golden").join(EXAMPLE);
    let out = dir.join(match with {
        None => "same".to_string(),
        Some(w) => format!("with{}", w.trim().len()),
    });
    let list = fs::read_to_string(golden.join("rtl/files.f")).expect("the golden files.f");
    fs::create_dir_all(out.join("rtl")).unwrap();
    fs::copy(golden.join("rtl/files.f"), out.join("rtl/files.f")).unwrap();
    for f in list.lines().filter(|l| !l.trim().is_empty()) {
        let mut text = fs::read_to_string(golden.join(f)).unwrap_or_else(|e| panic!("golden {f}: {e}"));
        if let (Some(w), true) = (with, f.ends_with(&format!("{MODULE}.v"))) {
            let body = text.find("always @(*)").unwrap_or_else(|| panic!("{f} has no `always @(*)`"));
            let at = body + text[body..].find(" & ").unwrap_or_else(|| panic!("{f}'s always block has no ` & `"));
            text.replace_range(at..at + 3, w);
        }
        fs::write(out.join(f), text).unwrap();
    }
    out
}

/// `bash scripts/equiv.sh` on two folders: its exit code and output.
fn equiv(before: &Path, after: &Path) -> (i32, String) {
    let o = Command::new("bash")
        .arg(repo().join("scripts/equiv.sh"))
        .env("BEFORE_DIR", before)
        .env("AFTER_DIR", after)
        .output()
        .expect("cannot run bash scripts/equiv.sh");
    let log = String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    (o.status.code().unwrap_or(-1), log)
}

#[test]
fn equiv_proves_an_equal_rewrite_and_refuses_a_changed_one() {
    let dir = tempfile::tempdir().unwrap();
    let same = side(dir.path(), None);

    let (rc, log) = equiv(&same, &same);
    assert_eq!(rc, 0, "identical folders:\n{log}");
    assert!(log.contains("no module's text changed"), "identical folders:\n{log}");

    let equal = side(dir.path(), Some(" & ~~"));
    let (rc, log) = equiv(&same, &equal);
    assert_eq!(rc, 0, "`x & ~~y` for `x & y`:\n{log}");
    assert!(log.contains(&format!("{MODULE}: equivalent")), "`x & ~~y` for `x & y`:\n{log}");
    assert!(log.contains("1 changed module(s), every one proven"), "`x & ~~y` for `x & y`:\n{log}");

    let changed = side(dir.path(), Some(" | "));
    let (rc, log) = equiv(&same, &changed);
    assert_eq!(rc, 1, "`x | y` for `x & y`:\n{log}");
    assert!(log.contains(&format!("{MODULE}: NOT proven equivalent")), "`x | y` for `x & y`:\n{log}");
    assert!(log.contains("Unproven $equiv"), "yosys's unproven cells are shown:\n{log}");
}
