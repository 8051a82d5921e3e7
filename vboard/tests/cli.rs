//! The `vboard` and `demo-pc` binaries: bad input gets one clear line and
//! exit 2; a good start serves the registers and stops after `--seconds`;
//! a closed stdout or stderr never makes them panic.

use std::io::Read;
use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn vboard(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_vboard")).args(args).output().expect("vboard runs")
}

/// A loopback port that was free a moment ago.
fn free_port() -> String {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port().to_string()
}

/// Exactly one line on stderr, exit 2, containing `needle`.
fn refused(args: &[&str], needle: &str) {
    let out = vboard(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err}");
    assert!(err.contains(needle), "{args:?}: {err}");
    assert!(out.stdout.is_empty(), "{args:?}: nothing on stdout");
}

#[test]
fn a_non_loopback_bind_is_refused() {
    let port = free_port();
    refused(
        &["--bind", "192.168.200.42", "--port", &port, "--seconds", "1"],
        "--bind 192.168.200.42 is not a loopback address",
    );
}

#[test]
fn a_bad_configuration_names_its_key() {
    let dir = std::env::temp_dir().join(format!("vboard-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.toml");
    std::fs::write(&path, config::Variant::default().set("design.sessions", 9).to_toml()).unwrap();
    let out = vboard(&["--config", path.to_str().unwrap(), "--port", &free_port(), "--seconds", "1"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("`design.sessions`") && err.contains("1..=4"), "{err}");
    let missing = vboard(&["--config", "/nonexistent/x.toml", "--port", &free_port()]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("cannot read /nonexistent/x.toml"));
}

/// Issue 25, item 9: every port a person types is 1..=65535.
#[test]
fn ports_outside_1_to_65535_are_refused_in_one_line() {
    refused(&["--port", "0"], "invalid value '0' for '--port <PORT>': 0 is not in 1..=65535");
    refused(&["--port", "65536"], "invalid value '65536' for '--port <PORT>': 65536 is not in 1..=65535");
    refused(&["--port", "x"], "invalid value 'x' for '--port <PORT>'");
    refused(&["--session-ports", "0"], "invalid value '0' for '--session-ports <BASE>': 0 is not in 1..=65535");
    refused(&["--session-ports", "99999"], "--session-ports <BASE>': 99999 is not in 1..=65535");
    let port = free_port();
    // In 1..=65535, but session 3's target port would pass 65535.
    refused(&["--port", &port, "--session-ports", "65000"], "--session-ports 65000: valid range is 1..=64532");
    refused(
        &["--port", &port, "--stall-timeout", "70000"],
        "--stall-timeout 70000: valid range is 1..=65535 simulated ms",
    );
    refused(&["--port", &port, "--idle-timeout", "90000"], "'--idle-timeout <S>': 90000 is not in 0..=86400");
    refused(&["--port", "65535", "--pair"], "--port 65535: no room for the second board's port");
}

/// Issue 25, item 12 (b): a taken register port is named with the option that moves it.
#[test]
fn a_taken_register_port_names_the_option() {
    let held = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = held.local_addr().unwrap().port().to_string();
    refused(&["--port", &port, "--seconds", "1"], "choose another with --port");
}

#[test]
fn the_default_board_starts_serves_and_stops() {
    let out = vboard(&["--port", &free_port(), "--seconds", "1"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(text.contains("registers on Etherbone/TCP 127.0.0.1:"), "{text}");
    assert!(err.contains("4 session(s) of 1024 bits"), "{err}");
    assert!(err.contains("start-up: stall_timeout = 20 ms of simulated time"), "{err}");
    assert!(err.contains("start-up: fpga_ip = 127.0.0.1, target_ip = 127.0.0.1"), "{err}");
}

/// Runs `cmd` with stdout and/or stderr a pipe whose reading end is closed
/// at once; waits at most `limit`. The exit code, and stderr if it was kept.
fn with_closed(mut cmd: Command, close_stdout: bool, close_stderr: bool, limit: Duration) -> (Option<i32>, String) {
    let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn");
    let mut keep_err = None;
    if close_stdout {
        drop(child.stdout.take());
    }
    if close_stderr {
        drop(child.stderr.take());
    } else {
        keep_err = child.stderr.take();
    }
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(mut e) = keep_err {
            let _ = e.read_to_string(&mut s);
        }
        s
    });
    let t = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if t.elapsed() > limit {
            let _ = child.kill();
            panic!("{cmd:?} did not end within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (status.code(), reader.join().unwrap())
}

/// Issue 25, item 7: `vboard | head -1` and `vboard 2>&- ...` must not panic
/// (exit 101); the board goes on serving and stops after `--seconds`.
#[test]
fn vboard_does_not_panic_on_a_closed_stdout_or_stderr() {
    for (out, err) in [(true, false), (false, true), (true, true)] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_vboard"));
        cmd.args(["--port", &free_port(), "--seconds", "2"]);
        let (code, stderr) = with_closed(cmd, out, err, Duration::from_secs(60));
        assert_eq!(code, Some(0), "stdout closed {out}, stderr closed {err}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    // A bad command line with stderr closed: still exit 2.
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_vboard"));
    cmd.args(["--port", "0"]);
    assert_eq!(with_closed(cmd, true, true, Duration::from_secs(30)).0, Some(2));
}

/// Issue 25, item 7: `demo-pc | head -3` ends quietly; an error with stderr
/// closed still exits 2.
#[test]
fn demo_pc_does_not_panic_on_a_closed_stdout_or_stderr() {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_demo-pc"));
    cmd.env("DEMO_PC_BYTES", "nonsense");
    assert_eq!(with_closed(cmd, true, true, Duration::from_secs(30)).0, Some(2));
    // With the PC tools beside it (built with the host crate) it starts the
    // board and stops at its first line; without them it says so, exit 2.
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_demo-pc"));
    cmd.env("DEMO_PC_BYTES", "1000");
    let (code, stderr) = with_closed(cmd, true, false, Duration::from_secs(120));
    assert!(!stderr.contains("panicked"), "{stderr}");
    if stderr.contains("is missing: build the PC tools") {
        assert_eq!(code, Some(2), "{stderr}");
    } else {
        assert_eq!(code, Some(0), "{stderr}");
    }
}
