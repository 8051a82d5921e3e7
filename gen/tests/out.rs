//! `gen --out PATH` replaces only a folder gen wrote (issue 25, item 3): a
//! folder of other files, a file or a symbolic link (however its name is
//! written) is refused with one line and exit 2, before anything is
//! generated, and no run, refused or failed, leaves anything behind.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::tree;

fn gen_out(out: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gen")).arg("--out").arg(out).output().expect("run gen")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The names directly in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    v.sort();
    v
}

/// gen refused `out` with exactly `why`, one line, exit 2.
fn assert_refused(o: &Output, out: &Path, why: &str) {
    assert_eq!(o.status.code(), Some(2), "{}", stderr(o));
    assert_eq!(stderr(o), format!("gen: error: refusing to write to --out {}: {why}\n", out.display()));
}

const NOT_GENS: &str = "the folder holds files gen did not write (it has no gen-manifest.txt); \
                        give a new or empty folder, or move its files away yourself";

#[test]
fn a_folder_of_other_files_is_refused_and_left_intact() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("mine");
    fs::create_dir_all(out.join("notes")).unwrap();
    fs::write(out.join("important.txt"), "keep me").unwrap();
    fs::write(out.join("notes/a.md"), "and me").unwrap();
    let before = tree(&out);
    assert_refused(&gen_out(&out), &out, NOT_GENS);
    assert_eq!(tree(&out), before, "the folder changed");
    assert_eq!(names(tmp.path()), ["mine"], "something was left beside it");
    // A folder that only looks like a build (rtl/files.f, but no Verilog of gen's) is not one.
    fs::create_dir_all(out.join("rtl")).unwrap();
    fs::write(out.join("rtl/files.f"), "rtl/x.v\n").unwrap();
    fs::write(out.join("rtl/x.v"), "module x; endmodule\n").unwrap();
    assert_refused(&gen_out(&out), &out, NOT_GENS);
    assert_eq!(fs::read_to_string(out.join("important.txt")).unwrap(), "keep me");
}

#[test]
fn a_file_is_refused_and_left_intact_with_nothing_beside_it() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("important.txt");
    fs::write(&out, "keep me").unwrap();
    assert_refused(&gen_out(&out), &out, "it is a file, not a folder; give a new path or a folder gen wrote");
    assert_eq!(fs::read_to_string(&out).unwrap(), "keep me");
    assert_eq!(names(tmp.path()), ["important.txt"], "a stray file or folder was left");
}

#[test]
fn a_symbolic_link_is_refused_even_to_a_folder_gen_wrote() {
    let tmp = tempfile::tempdir().unwrap();
    let real = tmp.path().join("real");
    assert!(gen_out(&real).status.success());
    let before = tree(&real);
    let link = tmp.path().join("link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    assert_refused(&gen_out(&link), &link, "it is a symbolic link; give the folder itself, or a new path");
    assert_eq!(tree(&real), before);
    assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(names(tmp.path()), ["link", "real"]);
}

/// Issue 51, item 16: `link/` and `link/.` make the system follow the link
/// to its folder, where gen replaces the name itself: refused as the link it
/// is, with the line that names `--out`, before anything is generated (a
/// configuration only the generation refuses is not reached), nothing
/// written; a real folder named so (`real/.`) is that folder, replaced.
#[test]
fn a_link_named_with_a_trailing_slash_is_refused_before_anything_is_generated() {
    let tmp = tempfile::tempdir().unwrap();
    let real = tmp.path().join("real");
    assert!(gen_out(&real).status.success());
    let before = tree(&real);
    std::os::unix::fs::symlink(&real, tmp.path().join("link")).unwrap();
    // Parsed, refused only by the generation (the board's tools cannot read the netlist).
    let cfg = tmp.path().join("late.toml");
    fs::write(&cfg, "[toe]\nnetlist = \"toe/core.edf\"\n").unwrap();
    let why = "it is a symbolic link (a trailing / or /. does not make it the folder: gen replaces the name \
               itself); give the folder itself, or a new path";
    for name in ["link/", "link/.", "link//"] {
        let link = PathBuf::from(format!("{}/{name}", tmp.path().display()));
        assert_refused(&gen_out(&link), &link, why);
        let o =
            Command::new(env!("CARGO_BIN_EXE_gen")).arg("--config").arg(&cfg).arg("--out").arg(&link).output().unwrap();
        assert_refused(&o, &link, why);
        assert_eq!(tree(&real), before, "{name}");
        assert!(fs::symlink_metadata(tmp.path().join("link")).unwrap().file_type().is_symlink(), "{name}");
        assert_eq!(names(tmp.path()), ["late.toml", "link", "real"], "{name}: something was left beside them");
    }
    let dot = PathBuf::from(format!("{}/real/.", tmp.path().display()));
    let o = gen_out(&dot);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(tree(&real), before);
    assert_eq!(names(tmp.path()), ["late.toml", "link", "real"]);
}

#[test]
fn gen_replaces_its_own_folder_and_runs_again() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("build");
    let o = gen_out(&out);
    assert!(o.status.success(), "{}", stderr(&o));
    let first = tree(&out);
    // The manifest lists every other file of the folder, in path order.
    let manifest = String::from_utf8(first["gen-manifest.txt"].clone()).unwrap();
    let listed: Vec<&str> = manifest.lines().filter(|l| !l.starts_with('#')).collect();
    let files: Vec<&str> = first.keys().map(String::as_str).filter(|p| *p != "gen-manifest.txt").collect();
    assert_eq!(listed, files);
    assert!(manifest.starts_with("# gen-manifest: "), "{manifest}");
    // What a vendor run leaves in the folder (reports) goes with it.
    fs::create_dir_all(out.join("vivado/out/ooc")).unwrap();
    fs::write(out.join("vivado/out/ooc/timing.rpt"), "report").unwrap();
    for _ in 0..2 {
        let o = gen_out(&out);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(tree(&out), first, "a re-run gives the same folder");
    }
    assert_eq!(names(tmp.path()), ["build"], "temporary folders left");
}

#[test]
fn an_empty_folder_is_used() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("empty");
    fs::create_dir(&out).unwrap();
    let o = gen_out(&out);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.join("gen-manifest.txt").is_file() && out.join("rtl/files.f").is_file());
    assert_eq!(names(tmp.path()), ["empty"]);
}

/// The `build/` of a checkout from before the manifest is still gen's: it
/// has `rtl/files.f` and Verilog opening with gen's banner.
#[test]
fn a_build_folder_of_an_older_gen_is_replaced_once_and_marked() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("build");
    assert!(gen_out(&out).status.success());
    let want = tree(&out);
    fs::remove_file(out.join("gen-manifest.txt")).unwrap();
    fs::write(out.join("rtl/old_name_session.v"), "// Generated by toe-user-logic gen 0.0.9\n").unwrap();
    let o = gen_out(&out);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(tree(&out), want);
}

#[test]
fn missing_parent_folders_are_created() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("a/b/build");
    let o = gen_out(&out);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.join("gen-manifest.txt").is_file());
    assert_eq!(names(&tmp.path().join("a/b")), ["build"]);
}

#[test]
fn a_path_without_a_folder_name_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_gen")).args(["--out", "."]).current_dir(tmp.path()).output().unwrap();
    assert_refused(&o, Path::new("."), "it names no folder of its own; give a folder name such as build");
    assert!(names(tmp.path()).is_empty());
}

/// A file that cannot be written (a path below another file): the run fails
/// with the write error, and leaves neither a temporary folder nor the
/// parent folders it created, nor a change to the previous build.
fn failing_files() -> Vec<gen::GeneratedFile> {
    let f = |path: &str| gen::GeneratedFile { path: path.to_string(), contents: "x".to_string() };
    vec![f("README.md"), f("rtl"), f("rtl/top.v")]
}

#[test]
fn a_failure_while_writing_leaves_nothing_behind() {
    let tmp = tempfile::tempdir().unwrap();
    // Into a new path under parents it had to create.
    let out: PathBuf = tmp.path().join("new/deeper/build");
    let e = gen::write_atomically(&out, &failing_files()).unwrap_err().to_string();
    assert!(e.starts_with("cannot create ") && e.contains("/rtl"), "{e}");
    assert!(names(tmp.path()).is_empty(), "left behind: {:?}", names(tmp.path()));
    // Over a folder gen wrote: it stays as it was.
    let out = tmp.path().join("build");
    assert!(gen_out(&out).status.success());
    let before = tree(&out);
    assert!(gen::write_atomically(&out, &failing_files()).is_err());
    assert_eq!(tree(&out), before);
    assert_eq!(names(tmp.path()), ["build"]);
}
