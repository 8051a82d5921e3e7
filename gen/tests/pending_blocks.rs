//! `pending_blocks`: the blocks not yet in the top, written as a build's
//! RTL for `make synth-estimate`: every module in a file of its name, listed
//! in `rtl/files.f` children first, the roots printed; a folder gen did not
//! write is refused and left as it was.

use std::process::Command;

#[test]
fn the_binary_writes_each_block_children_first_and_names_the_roots() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("pending");
    let o = Command::new(env!("CARGO_BIN_EXE_pending_blocks")).arg("--out").arg(&out).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let roots: Vec<String> = String::from_utf8(o.stdout).unwrap().lines().map(str::to_string).collect();
    assert_eq!(roots, ["toe_user_logic_round_trips"]);
    let list = std::fs::read_to_string(out.join("rtl/files.f")).unwrap();
    let files: Vec<&str> = list.lines().collect();
    for f in &files {
        let text = std::fs::read_to_string(out.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
        let module = f.trim_start_matches("rtl/").trim_end_matches(".v");
        assert!(text.contains(&format!("module {module} (")), "{f} holds module {module}");
        // Every module it instantiates comes earlier in the list.
        let at = files.iter().position(|g| g == f).unwrap();
        for g in &files[at + 1..] {
            let child = g.trim_start_matches("rtl/").trim_end_matches(".v");
            assert!(!text.contains(&format!("{child} u_")), "{f} instantiates {child}, listed after it");
        }
    }
    for root in &roots {
        assert!(files.contains(&format!("rtl/{root}.v").as_str()), "{root} in {files:?}");
    }
    // The message source's pattern at any byte is written as its child,
    // and no file twice.
    assert!(files.contains(&"rtl/toe_user_logic_pattern_at.v"), "{files:?}");
    let mut unique = files.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), files.len(), "{files:?}");
    assert!(files.len() >= 6, "{files:?}");
}

#[test]
fn a_folder_gen_did_not_write_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("notes.txt"), "mine").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_pending_blocks")).arg("--out").arg(tmp.path()).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read_to_string(tmp.path().join("notes.txt")).unwrap(), "mine");
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 1);
}
