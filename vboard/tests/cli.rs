//! The `vboard` binary: bad input gets one clear line and a non-zero exit;
//! a good start serves the registers and stops after `--seconds`.

use std::process::Command;

fn vboard(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_vboard")).args(args).output().expect("vboard runs")
}

#[test]
fn a_non_loopback_bind_is_refused() {
    let out = vboard(&["--bind", "192.168.200.42", "--port", "0", "--seconds", "1"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--bind 192.168.200.42 is not a loopback address"), "{err}");
}

#[test]
fn a_bad_configuration_names_its_key() {
    let dir = std::env::temp_dir().join(format!("vboard-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.toml");
    std::fs::write(&path, config::Variant::default().set("design.sessions", 9).to_toml()).unwrap();
    let out = vboard(&["--config", path.to_str().unwrap(), "--port", "0", "--seconds", "1"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("`design.sessions`") && err.contains("1..=4"), "{err}");
    let missing = vboard(&["--config", "/nonexistent/x.toml", "--port", "0"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("cannot read /nonexistent/x.toml"));
}

#[test]
fn the_default_board_starts_serves_and_stops() {
    let out = vboard(&["--port", "0", "--seconds", "1"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("registers on Etherbone/TCP 127.0.0.1:"), "{text}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("4 session(s) of 1024 bits"));
}
