//! No binary of this crate panics when its reader has gone (issue 25, item
//! 7): `gen --print-default-config | head -1` ends quietly. Each binary runs
//! with stdout a socket whose other end is closed before it starts, so every
//! write fails with a broken pipe, as after `head` exits; stderr is kept.

use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::process::{Command, Output, Stdio};

/// Runs `bin args` with stdout already closed at the reading end.
fn with_closed_stdout(bin: &str, args: &[&str]) -> Output {
    let (write_end, read_end) = UnixStream::pair().expect("socket pair");
    drop(read_end);
    Command::new(bin)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::from(OwnedFd::from(write_end)))
        .stderr(Stdio::piped())
        .output()
        .expect("the binary starts")
}

fn assert_quiet(o: &Output, what: &str, code: i32) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked") && !err.contains("Broken pipe"), "{what}: {err}");
    assert_eq!(o.status.code(), Some(code), "{what}: {err}");
}

#[test]
fn gen_ends_quietly_when_the_reader_has_gone() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("my.toml");
    std::fs::write(&cfg, "[design]\nsessions = 2\n").unwrap();
    let gen = env!("CARGO_BIN_EXE_gen");
    assert_quiet(&with_closed_stdout(gen, &["--print-default-config"]), "--print-default-config", 0);
    assert_quiet(&with_closed_stdout(gen, &["--print-config", cfg.to_str().unwrap()]), "--print-config", 0);
    assert_quiet(&with_closed_stdout(gen, &["--help"]), "--help", 0);
    let out = tmp.path().join("build");
    let o = with_closed_stdout(gen, &["--out", out.to_str().unwrap()]);
    assert_quiet(&o, "a build", 0);
    assert!(String::from_utf8_lossy(&o.stderr).starts_with("gen: wrote "));
}

#[test]
fn yardstick_and_synth_report_end_quietly_when_the_reader_has_gone() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("ys");
    let o = with_closed_stdout(env!("CARGO_BIN_EXE_yardstick"), &["--out", out.to_str().unwrap()]);
    assert_quiet(&o, "yardstick", 0);
    assert!(out.join("top.v").is_file(), "the files are written all the same");
    let report = env!("CARGO_BIN_EXE_synth_report");
    assert_quiet(&with_closed_stdout(report, &["header"]), "synth_report header", 0);
    assert_quiet(&with_closed_stdout(report, &["example-header"]), "synth_report example-header", 0);
}
