//! The `tap-node` binary as a person runs it: a command in its own private
//! namespace, the attach mode in a namespace the test made, signals, exit
//! statuses, and the one-line errors for bad arguments and missing rights.

use std::io::Read;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;

use common::{tcpdatatest, wait_bounded};
use tap_harness::{in_private_namespace, ip, run_bounded};

const BIN: &str = env!("CARGO_BIN_EXE_tap-node");

/// Runs tap-node with `args`, at most `limit`.
fn tap_node(args: &[&str], limit: Duration) -> Output {
    common::run_bounded_bin(BIN, args, limit)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The value tap-node printed for `counter`, if it printed it.
fn counter(stderr: &str, counter: &str) -> Option<u64> {
    stderr.lines().find_map(|l| {
        let mut words = l.split_whitespace();
        (words.next() == Some(counter)).then(|| words.next()?.parse().ok())?
    })
}

#[test]
fn runs_ping_in_its_namespace_and_prints_the_counters() {
    let out = tap_node(&["--", "ping", "-c", "3", "-i", "0.2", "-W", "3", "10.0.0.2"], Duration::from_secs(30));
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{}\n{stdout}\n{stderr}", out.status);
    assert!(stdout.contains("3 packets transmitted, 3 received, 0% packet loss"), "{stdout}");
    assert_eq!(counter(&stderr, "icmp_echoes_answered"), Some(3), "{stderr}");
    assert_eq!(counter(&stderr, "arp_requests_answered"), Some(1), "{stderr}");
    // Only nonzero counters are printed.
    assert_eq!(counter(&stderr, "dropped_runt"), None, "{stderr}");
}

#[test]
fn exits_with_the_commands_status() {
    let out = tap_node(&["--", "sh", "-c", "exit 7"], Duration::from_secs(20));
    assert_eq!(out.status.code(), Some(7), "{}", text(&out.stderr));
    let out = tap_node(&["--", "/nonexistent/command"], Duration::from_secs(20));
    assert_eq!(out.status.code(), Some(127), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("tap-node: cannot run `/nonexistent/command`"), "{}", text(&out.stderr));
}

#[test]
fn fixed_mode_pings_without_arp_and_jumbo_frames_pass_at_mtu_9000() {
    let out = tap_node(
        &[
            "--mode", "fixed", "--mtu", "9000", "--", "ping", "-c", "2", "-i", "0.2", "-W", "3", "-s", "8972", "-M",
            "do", "10.0.0.2",
        ],
        Duration::from_secs(30),
    );
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{}\n{stdout}\n{stderr}", out.status);
    assert!(stdout.contains("8980 bytes from 10.0.0.2"), "{stdout}");
    assert_eq!(counter(&stderr, "icmp_echoes_answered"), Some(2), "{stderr}");
    assert_eq!(counter(&stderr, "frames_in"), Some(2), "the kernel sent only the two requests, no ARP:\n{stderr}");
}

#[test]
fn sigterm_reaches_the_command_and_the_counters_are_still_printed() {
    let child = Command::new(BIN)
        .args(["--", "sleep", "30"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn tap-node");
    // Past the namespace and TAP set-up, so the command is running.
    std::thread::sleep(Duration::from_millis(500));
    // SAFETY: kill(2) on our own child.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) }, 0);
    let out = wait_bounded(child, Duration::from_secs(10), "-- sleep 30");
    assert_eq!(out.status.code(), Some(128 + libc::SIGTERM), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("tap-node: node counters (nonzero):"), "{}", text(&out.stderr));
}

#[test]
fn attach_serves_a_tap_made_by_someone_else_until_sigterm() {
    let (ping, out) = in_private_namespace(|| {
        for args in [
            &["tuntap", "add", "tapx", "mode", "tap"][..],
            &["link", "set", "tapx", "up"],
            &["addr", "add", "10.9.0.1/24", "dev", "tapx"],
        ] {
            ip(args).unwrap_or_else(|e| panic!("{e}"));
        }
        // Spawned from the namespace thread: tap-node starts in this namespace.
        let mut child = Command::new(BIN)
            .args(["--attach", "tapx", "--fpga-ip", "10.9.0.2", "--target-ip", "10.9.0.1"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn tap-node --attach");
        // Its first line says the node is serving: ping only after it.
        let mut stderr = child.stderr.take().unwrap();
        let (first_tx, first_rx) = std::sync::mpsc::channel();
        let reader = std::thread::spawn(move || {
            let mut seen = Vec::new();
            let mut byte = [0u8; 1];
            while stderr.read(&mut byte).unwrap_or(0) == 1 {
                seen.push(byte[0]);
                if byte[0] == b'\n' {
                    break;
                }
            }
            let _ = first_tx.send(());
            let mut rest = Vec::new();
            let _ = stderr.read_to_end(&mut rest);
            seen.extend(rest);
            seen
        });
        if first_rx.recv_timeout(Duration::from_secs(10)).is_err() {
            let _ = child.kill();
            panic!("tap-node --attach printed nothing within 10 s");
        }
        let ping = run_bounded("ping", &["-c", "3", "-i", "0.2", "-W", "2", "10.9.0.2"], Duration::from_secs(15))
            .unwrap_or_else(|e| panic!("{e}"));
        // SAFETY: kill(2) on our own child.
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
        let status = {
            let deadline = Instant::now() + Duration::from_secs(10);
            loop {
                if let Some(s) = child.try_wait().unwrap() {
                    break s;
                }
                if Instant::now() > deadline {
                    let _ = child.kill();
                    panic!("tap-node --attach did not end within 10 s of SIGTERM");
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        };
        let stderr = text(&reader.join().unwrap());
        // The TAP is persistent: it outlives tap-node, until we delete it.
        ip(&["link", "show", "tapx"]).unwrap_or_else(|e| panic!("{e}"));
        ip(&["tuntap", "del", "tapx", "mode", "tap"]).unwrap_or_else(|e| panic!("{e}"));
        (ping, (status, stderr))
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let (status, stderr) = out;
    assert!(ping.status.success(), "{}\n{}{}\n{stderr}", ping.status, ping.stdout, ping.stderr);
    assert!(stderr.starts_with("tap-node: node 10.9.0.2 (02:00:5e:10:00:02) in server mode serving tapx"), "{stderr}");
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert_eq!(counter(&stderr, "icmp_echoes_answered"), Some(3), "{stderr}");
}

/// `--rtl 64`: the kernel pings the node's verilated RTL, as a person would.
#[test]
fn pings_the_verilated_rtl() {
    let cache = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tap_rtl");
    let child = Command::new(BIN)
        .args(["--rtl", "64", "--", "ping", "-c", "3", "-i", "0.2", "-W", "3", "-s", "300", "10.0.0.2"])
        .env("TAP_NODE_CACHE", &cache)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {BIN}: {e}"));
    // A cold Verilator build of the node comes first.
    let out = wait_bounded(child, Duration::from_secs(600), "--rtl 64");
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{}\n{stdout}\n{stderr}", out.status);
    assert!(stderr.contains("the node's RTL at 64 bits"), "{stderr}");
    assert!(stdout.contains("3 packets transmitted, 3 received, 0% packet loss"), "{stdout}");
    assert_eq!(counter(&stderr, "icmp_echoes_answered"), Some(3), "{stderr}");
}

#[test]
fn bad_arguments_name_the_option_and_exit_2() {
    let cases: &[(&[&str], &str)] = &[
        (&["--mtu", "575", "--", "true"], "'--mtu <MTU>': 575 is not in 576..=9000"),
        (&["--mtu", "9001", "--", "true"], "'--mtu <MTU>': 9001 is not in 576..=9000"),
        (&["--fpga-mac", "02:00:00:00:00", "--", "true"], "'--fpga-mac <FPGA_MAC>': \"02:00:00:00:00\" is not a MAC"),
        (&["--fpga-mac", "01:00:5e:00:00:01", "--", "true"], "fpga_mac = 01:00:5e:00:00:01 is not a unicast MAC"),
        (&["--fpga-ip", "10.0.0.300", "--", "true"], "invalid value '10.0.0.300' for '--fpga-ip <FPGA_IP>'"),
        (&["--fpga-ip", "10.0.1.2", "--", "true"], "--fpga-ip 10.0.1.2 is outside the TAP's subnet 10.0.0.0/24"),
        (&["--fpga-ip", "10.0.0.1", "--", "true"], "target_ip = 10.0.0.1 is fpga_ip"),
        (&["--prefix-len", "31", "--", "true"], "'--prefix-len <PREFIX_LEN>': 31 is not in 1..=30"),
        (&["--mode", "dhcp", "--", "true"], "invalid value 'dhcp' for '--mode <MODE>'"),
        (&["--tap", "a-name-far-too-long", "--", "true"], "is not an interface name: 1..=15 bytes"),
        (&[], "give a COMMAND after `--`"),
        (&["--attach", "tap0", "--", "true"], "--attach NAME serves a TAP until Ctrl-C and takes no COMMAND"),
        (&["--attach", "tap0", "--mode", "fixed"], "--mode fixed with --attach needs --target-mac"),
        (&["--rtl", "96", "--", "true"], "'--rtl <WIDTH>': \"96\" is not a data width: use 64, 128, 256, 512 or 1024"),
    ];
    for (args, expected) in cases {
        let out = tap_node(args, Duration::from_secs(10));
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: expected {expected:?} in:\n{stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[test]
fn help_is_true() {
    let out = tap_node(&["--help"], Duration::from_secs(10));
    let help = text(&out.stdout);
    assert!(out.status.success());
    for needle in
        ["--mode <MODE>", "--pcap <FILE>", "--attach <NAME>", "tap-node -- ping -c 3 10.0.0.2", "ip netns add"]
    {
        assert!(help.contains(needle), "--help lacks {needle:?}");
    }
}

#[test]
fn without_the_right_to_make_a_namespace_it_says_so_in_one_line() {
    // Root without capabilities: unshare(CLONE_NEWNET) is refused.
    let out = Command::new("setpriv")
        .args(["--bounding-set=-all", "--inh-caps=-all", "--", BIN, "--", "true"])
        .stdin(Stdio::null())
        .output()
        .expect("run setpriv");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(
        stderr,
        "tap_harness: cannot create a private network namespace: unshare(CLONE_NEWNET): \
         Operation not permitted (run as root)\n"
    );
}

#[test]
fn tcp_sessions_take_tcpdatatest_and_report_each_connection() {
    let tool = tcpdatatest();
    let out = tap_node(
        &[
            "--tcp",
            "2",
            "--port",
            "6000",
            "--",
            &tool,
            "c",
            "t",
            "10.0.0.2",
            "6000",
            "3000001",
            "1",
            "1",
            "--sessions",
            "2",
        ],
        Duration::from_secs(60),
    );
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{}\n{stdout}\n{stderr}", out.status);
    for s in 0..2 {
        let line = format!("tap-node: session {s} connection 0: 3000001 bytes, verified, closed by the peer");
        assert!(stderr.contains(&line), "no `{line}` in:\n{stderr}");
    }
}

#[test]
fn tcp_is_refused_with_rtl_and_beyond_64_sessions() {
    let out = tap_node(&["--tcp", "1", "--rtl", "64", "--", "true"], Duration::from_secs(20));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("--rtl"), "{}", text(&out.stderr));
    let out = tap_node(&["--tcp", "65", "--", "true"], Duration::from_secs(20));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("--tcp"), "{}", text(&out.stderr));
}
