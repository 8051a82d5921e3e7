//! Argument validation through the real binaries: one error line naming the
//! argument and its range, exit status 2, no panic, no connection attempt.

mod common;

use common::*;

fn assert_usage_error(o: &Outcome, tool: &str, message: &str) {
    assert_eq!(o.code, 2, "exit status; stderr: {}", o.stderr);
    assert_eq!(o.stderr.trim_end(), format!("{tool}: error: {message} (see {tool} --help)"));
    assert!(o.stdout.is_empty(), "nothing runs on a usage error: {}", o.stdout);
}

#[test]
fn tcpdatatest_rejects_each_bad_argument() {
    let cases: [(&[&str], &str); 10] = [
        (&[], "expected 7 arguments <mode> <dir> <server IP> <server port> <bytelen> <pattern> <buffer>, got 0"),
        (&["c", "r", "127.0.0.1", "5000", "100", "1", "1", "9"], "expected 7 arguments <mode> <dir> <server IP> <server port> <bytelen> <pattern> <buffer>, got 8"),
        (&["client", "r", "127.0.0.1", "5000", "100", "1", "1"], "argument <mode>: 'client' is not valid; use c (client) or s (server)"),
        (&["c", "x", "127.0.0.1", "5000", "100", "1", "1"], "argument <dir>: 'x' is not valid; use t (transmit) or r (receive)"),
        (&["c", "r", "localhost", "5000", "100", "1", "1"], "argument <server IP>: 'localhost' is not an IPv4 or IPv6 address"),
        (&["c", "r", "127.0.0.1", "70000", "100", "1", "1"], "argument <server port>: '70000' is out of range; valid range is 1 to 65535"),
        // Port 0 is no port to connect to (issue 25, item 9); a server's 0 picks a free port and prints it.
        (&["c", "t", "127.0.0.1", "0", "100", "1", "1"], "argument <server port>: '0' is out of range; valid range is 1 to 65535"),
        (&["c", "r", "127.0.0.1", "5000", "0x1_0000_0000_0000", "1", "1"], "argument <bytelen>: '0x1_0000_0000_0000' is out of range; valid range is 1 to 0xFFFF_FFFF_FFFF (281474976710655), decimal or 0x hex"),
        (&["c", "r", "127.0.0.1", "5000", "100", "3", "1"], "argument <pattern>: '3' is not valid; use 1 (incremental, verified) or 0 (dummy)"),
        (&["c", "r", "127.0.0.1", "5000", "100", "1", "6"], "argument <buffer>: '6' is out of range; valid range is 1 to 5 (64 KB, 128 KB, 256 KB, 512 KB, 1 MB)"),
    ];
    for (args, message) in cases {
        assert_usage_error(&run(DATATEST, args), "tcpdatatest", message);
    }
    assert_usage_error(
        &run(DATATEST, &["c", "r", "127.0.0.1", "5000", "100", "1", "1", "--bogus"]),
        "tcpdatatest",
        "unknown option '--bogus'; valid options are --sessions N, --timeout S, --corrupt N, --quiet, --json, --help",
    );
}

#[test]
fn tcp_client_txrx_single_rejects_each_bad_argument() {
    let cases: [(&[&str], &str); 4] = [
        (&["c", "r", "127.0.0.1", "5000", "100", "1", "1"], "expected 5 arguments <server IP> <server port> <bytelen> <pattern> <buffer>, got 7"),
        (&["127.0.0.1", "0", "100", "1", "1"], "argument <server port>: '0' is out of range; valid range is 1 to 65535"),
        (&["127.0.0.1", "5000", "abc", "1", "1"], "argument <bytelen>: 'abc' is not a number; valid range is 1 to 0xFFFF_FFFF_FFFF (281474976710655), decimal or 0x hex"),
        (&["127.0.0.1", "5000", "100", "1", "1", "--sessions", "100"], "option --sessions: '100' is out of range; valid range is 1 to 64"),
    ];
    for (args, message) in cases {
        assert_usage_error(&run(TXRX, args), "tcp_client_txrx_single", message);
    }
}

#[test]
fn help_prints_usage_and_exits_zero() {
    for (tool, head) in [
        (DATATEST, "usage: tcpdatatest <mode> <dir> <server IP> <server port> <bytelen> <pattern> <buffer> [options]"),
        (
            TXRX,
            "usage: tcp_client_txrx_single [--server] <server IP> <server port> <bytelen> <pattern> <buffer> [options]",
        ),
    ] {
        let o = run(tool, &["--help"]);
        assert_eq!(o.code, 0);
        assert_eq!(o.stdout.lines().next(), Some(head));
        assert!(o.stderr.is_empty());
    }
}

/// An argument that is not UTF-8 (`tcpdatatest $'\xff'`) is one usage line
/// naming its position, exit 2, for all four tools (issue 51, item 10):
/// they read their arguments through one function, where `std::env::args`
/// panicked (exit 101 and a backtrace).
#[test]
fn every_tool_refuses_an_argument_that_is_not_utf8_with_one_line_and_exit_2() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    let bad = OsStr::from_bytes(b"\xff");
    for (tool, name, args) in [
        (DATATEST, "tcpdatatest", &[bad][..]),
        (TXRX, "tcp_client_txrx_single", &[OsStr::new("127.0.0.1"), bad][..]),
        (LATENCY, "tcp_latency", &[OsStr::new("c"), OsStr::new("i"), bad][..]),
        (env!("CARGO_BIN_EXE_pc-check"), "pc-check", &[OsStr::new("lo"), bad][..]),
    ] {
        let mut child = Command::new(tool)
            .args(args)
            .env("RUST_BACKTRACE", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the tool starts");
        let deadline = Instant::now() + Duration::from_secs(20);
        while child.try_wait().expect("try_wait").is_none() {
            if Instant::now() >= deadline {
                let _ = child.kill();
                panic!("{name} still running after 20 s");
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let o = child.wait_with_output().expect("output");
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{name}: {stderr}");
        let position = args.len();
        assert_eq!(
            stderr,
            format!("{name}: error: argument {position}: '\\xFF' is not valid UTF-8 text (see {name} --help)\n"),
            "{name}"
        );
        assert!(o.stdout.is_empty(), "{name}: {}", String::from_utf8_lossy(&o.stdout));
    }
}
