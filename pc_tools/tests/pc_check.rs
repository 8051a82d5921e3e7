//! `pc-check` on this machine's own interfaces: every one present is read
//! without error, the MTU it shows is the kernel's, the loopback driver
//! reports no flow control or interrupt moderation; a missing interface, a
//! bad name or option, and no argument get one clear line and exit 2.

use std::process::{Command, Output};

fn pc_check(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pc-check")).args(args).output().expect("pc-check runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The report's line for `setting`.
fn line<'a>(report: &'a str, setting: &str) -> &'a str {
    report.lines().find(|l| l.contains(setting)).unwrap_or_else(|| panic!("no `{setting}` line in:\n{report}"))
}

#[test]
fn every_interface_present_is_read_and_its_mtu_is_the_kernels() {
    let present = pc_tools::nic::interfaces();
    assert!(present.iter().any(|i| i == "lo"), "no loopback among {present:?}");
    for iface in &present {
        let out = pc_check(&[iface]);
        let report = text(&out.stdout);
        let status = out.status.code();
        assert!(matches!(status, Some(0 | 1)), "{iface}: exit {status:?}, stderr {}", text(&out.stderr));
        assert!(out.stderr.is_empty(), "{iface}: {}", text(&out.stderr));
        assert!(report.starts_with(&format!("pc-check: {iface}: ")), "{report}");
        assert_eq!(report.lines().count(), 6, "{iface}: a heading and five settings:\n{report}");
        let mtu: u32 = std::fs::read_to_string(format!("/sys/class/net/{iface}/mtu")).unwrap().trim().parse().unwrap();
        let expect = if mtu >= pc_tools::nic::JUMBO_MTU { "matches" } else { "differs" };
        assert!(line(&report, "MTU").contains(&format!("{expect}  MTU")), "{iface}:\n{report}");
        assert!(line(&report, "MTU").contains(&format!(" {mtu}; ")), "{iface}: MTU {mtu}:\n{report}");
        let differs = report.lines().any(|l| l.trim_start().starts_with("differs"));
        assert_eq!(status, Some(i32::from(differs)), "{iface}: the exit status follows the verdicts:\n{report}");
    }
    // All of them in one run: one report each, in order.
    let args: Vec<&str> = present.iter().map(String::as_str).collect();
    let out = pc_check(&args);
    let headings: Vec<String> = text(&out.stdout)
        .lines()
        .filter_map(|l| l.strip_prefix("pc-check: ").and_then(|r| r.split(':').next()).map(str::to_string))
        .collect();
    assert_eq!(headings, present);
}

#[test]
fn the_loopback_driver_reports_no_flow_control_or_interrupt_moderation() {
    let report = text(&pc_check(&["lo"]).stdout);
    for setting in ["flow control", "interrupt moderation"] {
        let l = line(&report, setting);
        assert!(l.contains("unknown") && l.contains("not supported by the driver"), "{l}");
    }
    assert!(line(&report, "IRQ affinity").contains("no MSI interrupts"), "{report}");
}

#[test]
fn a_missing_interface_a_bad_name_or_option_and_no_argument_exit_2_with_one_clear_line() {
    let out = pc_check(&["nosuch9"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = text(&out.stderr);
    assert!(err.starts_with("pc-check: error: no interface \"nosuch9\" (present: "), "{err}");
    assert!(err.contains("lo"), "the error lists the interfaces present: {err}");
    assert_eq!(err.lines().count(), 1, "{err}");

    let out = pc_check(&["much_too_long_name0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("is not an interface name (1-15 bytes"), "{}", text(&out.stderr));

    // A good interface before a missing one still reports, and the status says 2.
    let out = pc_check(&["lo", "nosuch9"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stdout).starts_with("pc-check: lo: "));

    for args in [&["--frobnicate", "lo"][..], &[][..]] {
        let out = pc_check(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = text(&out.stderr);
        assert!(err.starts_with("pc-check: error: ") && err.contains("usage: pc-check IFACE..."), "{args:?}: {err}");
    }
    let out = pc_check(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).starts_with("usage: pc-check IFACE..."));
}
