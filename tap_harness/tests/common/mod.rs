//! Shared by the binaries' tests: a child process waited for with a bound,
//! and where the PC tools' binaries are. Each test binary uses some of them.
#![allow(dead_code)]

use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Starts `bin` with `args` (stdin empty, stdout and stderr piped) and
/// waits at most `limit` for it: past that it is killed and the test fails.
pub fn run_bounded_bin(bin: &str, args: &[&str], limit: Duration) -> Output {
    let child = Command::new(bin)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {bin}: {e}"));
    wait_bounded(child, limit, &format!("{bin} {}", args.join(" ")))
}

/// Waits at most `limit` for `child`; past that it is killed and the test
/// fails naming `what`.
pub fn wait_bounded(mut child: Child, limit: Duration, what: &str) -> Output {
    let deadline = Instant::now() + limit;
    while child.try_wait().expect("try_wait").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("{what}: still running after {limit:?}; killed");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child.wait_with_output().expect("output")
}

/// The PC tools' `tcpdatatest`, built beside the test by the workspace build
/// (`make test` builds every binary first).
pub fn tcpdatatest() -> String {
    let bin = tap_harness::workspace_binary("tcpdatatest")
        .unwrap_or_else(|| panic!("tcpdatatest is missing beside this test: build it with `cargo build -p pc_tools`"));
    bin.to_string_lossy().into_owned()
}
