//! The PC tools never panic when their reader has gone (issue 25, item 7:
//! `tcpdatatest ... | head -1`): stdout is a socket whose other end is
//! closed before the tool starts, so every write fails with a broken pipe.
//! The transfer runs to its end all the same and the exit status is the
//! transfer's; `pc-check`'s is the run's (issue 51, item 12).

mod common;

use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::process::{Command, Output, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use common::*;

/// Runs `tool args` with stdout already closed at the reading end, bounded
/// by [`RUN_LIMIT`].
fn with_closed_stdout(tool: &str, args: &[&str]) -> Output {
    let (write_end, read_end) = UnixStream::pair().expect("socket pair");
    drop(read_end);
    let mut child = Command::new(tool)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::from(OwnedFd::from(write_end)))
        .stderr(Stdio::piped())
        .spawn()
        .expect("the tool starts");
    let deadline = Instant::now() + RUN_LIMIT;
    while child.try_wait().expect("try_wait").is_none() {
        if Instant::now() >= deadline {
            let _ = child.kill();
            panic!("{tool} still running after {RUN_LIMIT:?}");
        }
        thread::sleep(Duration::from_millis(5));
    }
    child.wait_with_output().expect("output")
}

fn assert_quiet(o: &Output, what: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked") && !err.contains("Broken pipe"), "{what}: {err}");
    assert_eq!(o.status.code(), Some(0), "{what}: {err}");
}

#[test]
fn help_ends_quietly() {
    assert_quiet(&with_closed_stdout(DATATEST, &["--help"]), "tcpdatatest --help");
    assert_quiet(&with_closed_stdout(TXRX, &["--help"]), "tcp_client_txrx_single --help");
}

#[test]
fn a_transfer_runs_to_its_end_with_stdout_closed() {
    let n = 300_000;
    let (addr, h) = peer(move |mut s| send_all(&mut s, &pattern_bytes(n)));
    let port = addr.port().to_string();
    let o = with_closed_stdout(DATATEST, &["c", "r", "127.0.0.1", &port, &n.to_string(), "1", "1"]);
    h.join().unwrap();
    assert_quiet(&o, "tcpdatatest c r");

    // --json: the document is the one stdout write.
    let (addr, h) = peer(|mut s| {
        drain(&mut s);
    });
    let port = addr.port().to_string();
    let o = with_closed_stdout(DATATEST, &["c", "t", "127.0.0.1", &port, "100000", "1", "1", "--json"]);
    h.join().unwrap();
    assert_quiet(&o, "tcpdatatest c t --json");

    // Full duplex against an in-test peer that echoes the pattern back.
    let (addr, h) = peer(move |mut s| {
        let mut r = s.try_clone().unwrap();
        let reader = thread::spawn(move || drain(&mut r));
        send_all(&mut s, &pattern_bytes(n));
        let _ = s.shutdown(std::net::Shutdown::Write);
        assert_eq!(reader.join().unwrap(), n as u64);
    });
    let port = addr.port().to_string();
    let o = with_closed_stdout(TXRX, &["127.0.0.1", &port, &n.to_string(), "1", "1"]);
    h.join().unwrap();
    assert_quiet(&o, "tcp_client_txrx_single");
}

/// `pc-check` with its stdout closed ends with the run's status (issue 51,
/// item 12): the same as with stdout open for every interface present (1
/// when one differs, 0 when all match), and 2 for a missing interface named
/// after a report that could not be written.
#[test]
fn pc_check_exits_with_the_runs_status_when_stdout_is_closed() {
    const PC_CHECK: &str = env!("CARGO_BIN_EXE_pc-check");
    let present = pc_tools::nic::interfaces();
    let names: Vec<&str> = present.iter().map(String::as_str).collect();
    let open = Command::new(PC_CHECK).args(&names).output().expect("pc-check runs");
    let status = open.status.code();
    assert!(matches!(status, Some(0 | 1)), "{names:?}: {open:?}");
    let closed = with_closed_stdout(PC_CHECK, &names);
    assert_eq!(closed.status.code(), status, "{names:?}: {}", String::from_utf8_lossy(&closed.stderr));
    assert!(closed.stderr.is_empty(), "{}", String::from_utf8_lossy(&closed.stderr));

    let closed = with_closed_stdout(PC_CHECK, &["lo", "nosuch9"]);
    let err = String::from_utf8_lossy(&closed.stderr);
    assert_eq!(closed.status.code(), Some(2), "{err}");
    assert!(err.starts_with("pc-check: error: no interface \"nosuch9\"") && err.lines().count() == 1, "{err}");
}

/// `tcp_latency` with its stdout closed: a run's status is still its own,
/// 0 for a clean one and 6 for responses longer than asked (issue 51, item 4).
#[test]
fn tcp_latency_exits_with_the_runs_status_when_stdout_is_closed() {
    for (len, status) in [(8usize, 0), (9, 6)] {
        let (addr, h) = echo_answering(8, len);
        let o = with_closed_stdout(LATENCY, &["c", "i", "127.0.0.1", &addr.port().to_string(), "8", "8", "20"]);
        h.join().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!err.contains("panicked"), "{err}");
        assert_eq!(o.status.code(), Some(status), "{len}-byte responses: {err}");
    }
}
