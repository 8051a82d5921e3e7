//! The C header and its static-assert file compile with gcc
//! (`-std=c11 -Wall -Wextra -Werror`), for every session count; a header whose
//! values disagree with the asserts does not compile (the asserts are live).

use std::path::Path;
use std::process::Command;

fn design(sessions: usize) -> config::Design {
    config::parse(&config::default_toml_with_sessions(sessions)).unwrap()
}

fn gcc_present() -> bool {
    match Command::new("gcc").arg("--version").output() {
        Ok(out) if out.status.success() => true,
        _ => {
            println!("SKIPPED: gcc not found on PATH; the C header and static asserts were not compiled");
            false
        }
    }
}

/// Writes the header (possibly edited) and the self-test into `dir` and
/// compiles the self-test; returns gcc's success and its diagnostics.
fn compile(dir: &Path, design: &config::Design, edit: impl Fn(String) -> String) -> (bool, String) {
    let map = regmap::RegisterMap::for_design(design);
    let header = dir.join(regmap::render::header_file_name(design));
    std::fs::write(&header, edit(regmap::c_header(&map, design))).unwrap();
    let source = dir.join("selftest.c");
    std::fs::write(&source, regmap::c_static_asserts(&map, design)).unwrap();
    let out = Command::new("gcc")
        .args(["-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-c"])
        .arg(&source)
        .arg("-o")
        .arg(dir.join("selftest.o"))
        .output()
        .expect("gcc runs");
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn header_and_static_asserts_compile_for_every_session_count() {
    if !gcc_present() {
        return;
    }
    for sessions in 1..=config::MAX_SESSIONS {
        let dir = tempfile::tempdir().unwrap();
        let (ok, diagnostics) = compile(dir.path(), &design(sessions), |h| h);
        assert!(ok, "{sessions} session(s): gcc failed:\n{diagnostics}");
        assert!(dir.path().join("selftest.o").exists());
    }
}

#[test]
fn static_asserts_catch_a_header_that_disagrees() {
    if !gcc_present() {
        return;
    }
    let d = design(4);
    // Each edit breaks one property the asserts check: a frozen offset, a
    // mask that disagrees with its width, a reset wider than its field, a
    // register reset that is not the composition of its fields.
    let edits: &[(&str, &str, &str)] = &[
        (
            "#define TOE_USER_LOGIC_SESSION_STATUS_OFFSET 0x004u",
            "#define TOE_USER_LOGIC_SESSION_STATUS_OFFSET 0x008u",
            "session.status: offset",
        ),
        (
            "#define TOE_USER_LOGIC_SESSION_SPEED_TX_PERCENT_MASK 0x0000007Fu",
            "#define TOE_USER_LOGIC_SESSION_SPEED_TX_PERCENT_MASK 0x000000FFu",
            "session.speed.tx_percent: mask",
        ),
        (
            "#define TOE_USER_LOGIC_TOE_CONFIG_MODE_RESET 0x0u",
            "#define TOE_USER_LOGIC_TOE_CONFIG_MODE_RESET 0x4u",
            "toe.toe_config.mode: reset fits",
        ),
        (
            "#define TOE_USER_LOGIC_ID_RESET 0x544F4555u",
            "#define TOE_USER_LOGIC_ID_RESET 0x544F4556u",
            "info.id: reset composed",
        ),
        (
            "#define TOE_USER_LOGIC_SESSION_STRIDE 0x100u",
            "#define TOE_USER_LOGIC_SESSION_STRIDE 0x0FCu",
            "session: stride and count",
        ),
    ];
    for (from, to, message) in edits {
        let dir = tempfile::tempdir().unwrap();
        let (ok, diagnostics) = compile(dir.path(), &d, |h| {
            assert!(h.contains(from), "header lacks {from:?}");
            h.replacen(from, to, 1)
        });
        assert!(!ok, "gcc accepted a header with {to:?}");
        assert!(diagnostics.contains(message), "gcc output for {to:?} lacks {message:?}:\n{diagnostics}");
    }
}
