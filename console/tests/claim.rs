//! Issue 51, item 3: one console at a time per session. Two consoles that
//! start a test on the same session at the same moment used to both pass
//! the busy check and follow the same test; now the hardware's claim
//! (`session.claim`) lets exactly one program and start it, and the other
//! is refused by name with nothing written.

mod common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use common::{console, console_cmd, loopback_params, pc_tool, recommended, spawn, tools};
use console::ops;
use vboard::pc::{wait_listening, Proc, ToolProcess};

const LIMIT: Duration = Duration::from_secs(300);

fn client(addr: SocketAddr) -> etherbone::Client {
    etherbone::Client::connect(addr, Duration::from_secs(5)).expect("Etherbone")
}

/// The registers a test programs first: equal before and after means a
/// refused console wrote nothing there.
fn session_setup(bus: &mut etherbone::Client, s: usize) -> (u32, u32, u64, u64) {
    let r = console::regs::session(s).unwrap();
    (
        ops::read(bus, r.test_config()).unwrap(),
        ops::read(bus, r.speed()).unwrap(),
        ops::read_wide(bus, r.transfer_size()).unwrap(),
        ops::read_wide(bus, r.packet_size()).unwrap(),
    )
}

fn no_watchdog(addr: SocketAddr) {
    let f = console(addr, &["params", "set", "stall_timeout=0", "--no-init"]);
    assert_eq!(f.code, Some(0), "{}", f.all());
}

/// Waits (bounded) until one of `procs` has exited; its index.
fn first_to_exit(procs: &mut [Proc], limit: Duration) -> usize {
    let until = Instant::now() + limit;
    loop {
        for (i, p) in procs.iter_mut().enumerate() {
            if matches!(p.child.try_wait(), Ok(Some(_))) {
                return i;
            }
        }
        assert!(Instant::now() < until, "neither console ended within {limit:?}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn two_consoles_started_at_once_on_one_session_one_runs_it_and_the_other_is_refused_by_name() {
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    let ports = loopback_params(addr, vb.design.sessions);
    no_watchdog(addr);
    // Session 0 receives as a server, 300,000 bytes for one console and
    // 123,456 for the other: the winner waits for its PC client, so the
    // loser meets the test while it runs, and a transfer of the loser's
    // size would show.
    let args = [300_000u64, 123_456].map(|size| {
        ["--json", "test", "half", "--session"]
            .map(String::from)
            .into_iter()
            .chain([format!("0:2:{size}")])
            .collect::<Vec<_>>()
    });
    let argv = |i: usize| args[i].iter().map(String::as_str).collect::<Vec<_>>();
    let mut procs = vec![spawn(console_cmd(addr, &argv(0))), spawn(console_cmd(addr, &argv(1)))];
    let first = first_to_exit(&mut procs, Duration::from_secs(60));
    let refused = procs.remove(first).finish(LIMIT);
    let running = procs.remove(0);
    assert_eq!(refused.code, Some(1), "{}", refused.all());
    let expected = format!("toe-console: error: session 0 is claimed by another console (session0.claim = 0x");
    assert!(refused.stderr.iter().any(|l| l.starts_with(&expected)), "{}", refused.all());
    assert!(
        refused.all().contains(&format!("`toe-console --connect {addr} abort --session 0`")),
        "the refusal names the command that frees a claim: {}",
        refused.all()
    );
    // The test that runs is the winner's alone, whichever console it was.
    let won_by = 1 - first;
    let size = [300_000, 123_456][won_by];
    let mut bus = client(addr);
    assert_eq!(ops::read_wide(&mut bus, console::regs::session(0).unwrap().transfer_size()).unwrap(), size);
    let line = recommended(addr, &argv(won_by))[0].1.clone();
    assert!(wait_listening(ports[0], Duration::from_secs(30)), "session 0 listens");
    let tool = ToolProcess::spawn(pc_tool(&tools(), &line), false).expect("PC client").finish(LIMIT);
    assert!(tool.ok(), "the PC tool: {:?} {}", tool.exit, tool.stderr);
    assert_eq!(tool.direction("tx").map(|d| d.0), Some(size), "the PC sent what the winner asked");
    let won = running.finish(LIMIT);
    assert_eq!(won.code, Some(0), "{}", won.all());
    assert_eq!(won.json()["sessions"][0]["rx"]["bytes"].as_u64(), Some(size), "{}", won.all());
    assert_eq!(ops::claim_owner(&mut bus, 0).unwrap(), 0, "the winner freed its claim");
}

/// A console killed with SIGKILL leaves its claim: the next console is
/// refused by name and writes nothing; `abort --session N`, which the
/// refusal names, frees it, and the next test runs.
#[test]
fn a_claim_a_killed_console_left_is_freed_by_abort() {
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    loopback_params(addr, vb.design.sessions);
    let mut bus = client(addr);
    assert_eq!(ops::claim(&mut bus, 1, 0x0BAD_CAFE).unwrap(), Ok(()));
    let before = session_setup(&mut bus, 1);
    let f = console(addr, &["test", "half", "--session", "1:1:7777:2048:1:30", "--timeout", "5"]);
    assert_eq!(f.code, Some(1), "{}", f.all());
    let expected = format!(
        "toe-console: error: session 1 is claimed by another console (session1.claim = 0x0badcafe): it is \
         preparing or running a test; if no console is using it (one was killed), `toe-console --connect {addr} \
         abort --session 1` ends its test and frees it; nothing was written"
    );
    assert!(f.stderr.contains(&expected), "expected {expected:?} in {}", f.all());
    assert_eq!(session_setup(&mut bus, 1), before, "nothing written");
    let f = console(addr, &["abort", "--session", "1"]);
    assert_eq!(f.code, Some(0), "{}", f.all());
    assert_eq!(ops::claim_owner(&mut bus, 1).unwrap(), 0, "abort frees the claim: {}", f.all());
    let f = console(addr, &["test", "half", "--session", "1:2:1000", "--timeout", "1"]);
    assert!(f.stdout.iter().any(|l| l.contains("time limit of 1 s reached")), "{}", f.all());
    assert_eq!(ops::claim_owner(&mut bus, 1).unwrap(), 0, "a failed test frees its claim too");
}
