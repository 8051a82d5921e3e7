//! What the virtual board writes into its registers at start (issue 25,
//! items 4 and 12): a stall timeout in simulated ms that fires within a
//! bounded wall time, loopback addresses for the console's recommended PC
//! commands, and session ports moved for a second board on the host, with a
//! line naming the port, the session and the option when a port is taken.

use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use driver::ops;
use driver::regs;
use driver::regs::session::status::ErrorCause;
use driver::{Mode, SessionTest};
use vboard::pc::{connect, free_port, wait_listening, Remote};
use vboard::{Options, VirtualBoard};

/// A board whose log lines are kept for the test.
fn board(opts: Options) -> (VirtualBoard, Remote, Arc<Mutex<Vec<String>>>) {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let keep = Arc::clone(&lines);
    let vb = VirtualBoard::start(&opts, move |l| {
        eprintln!("vboard: {l}");
        keep.lock().unwrap().push(l);
    })
    .expect("the virtual board starts");
    let mut bus = connect(vb.register_addrs()[0]).expect("Etherbone");
    ops::init_toe(&mut bus, 16, 0, 200, |_| std::thread::sleep(Duration::from_millis(5))).unwrap();
    (vb, bus, lines)
}

fn logged(lines: &Arc<Mutex<Vec<String>>>, needle: &str) -> bool {
    lines.lock().unwrap().iter().any(|l| l.contains(needle))
}

/// Starts session 0 as a server on `port` and waits until it listens.
fn listen(bus: &mut Remote, mode: Mode, port: u16) {
    ops::program(bus, 0, &SessionTest::new(mode, 1 << 30, false)).unwrap();
    ops::ports(bus, 0, port, 1).unwrap();
    ops::start(bus, 0).unwrap();
    assert!(wait_listening(port, Duration::from_secs(10)), "session 0 does not listen on {port}");
}

/// Polls `busy` every `every` until session 0 is idle, then checks that its
/// test ended `stalled`; the wall time it took.
fn ends_stalled_within(bus: &mut Remote, limit: Duration, every: Duration) -> Duration {
    let t = Instant::now();
    while ops::busy(bus, 0).unwrap() {
        assert!(t.elapsed() < limit, "session 0 still busy after {limit:?}: the stall watchdog did not fire");
        std::thread::sleep(every);
    }
    let took = t.elapsed();
    let r = ops::result(bus, 0).unwrap();
    assert!(r.error && r.error_cause == ErrorCause::Stalled.bits(), "{r:?}");
    took
}

/// Item 4: a peer that connects and then stays silent ends the test
/// `stalled` within a bounded wall time (with the design's 1,000 ms it
/// would take 1-2 hours here). 2 ms keep the test short; the default (20 ms)
/// is written at start too (`the_default_stall_timeout_is_written_at_start`).
#[test]
fn a_silent_peer_ends_stalled_within_a_bounded_wall_time() {
    let (_vb, mut bus, lines) = board(Options { port: 0, stall_timeout_ms: 2, ..Options::default() });
    assert_eq!(ops::read_stall_timeout(&mut bus, 0).unwrap(), 2);
    assert!(logged(&lines, "stall_timeout = 2 ms of simulated time in every session"), "the start-up line");
    let port = free_port();
    listen(&mut bus, Mode::Receive, port);
    let _peer = TcpStream::connect(("127.0.0.1", port)).expect("connect to the session");
    let took = ends_stalled_within(&mut bus, Duration::from_secs(300), Duration::from_millis(200));
    eprintln!("a silent peer: stalled after {took:?} of wall time");
}

/// Item 4: a server session nobody connects to ends `stalled` too.
#[test]
fn a_session_nobody_connects_to_ends_stalled() {
    let (_vb, mut bus, _) = board(Options { port: 0, stall_timeout_ms: 1, ..Options::default() });
    for s in 0..4 {
        assert_eq!(ops::read_stall_timeout(&mut bus, s).unwrap(), 1, "session {s}");
    }
    listen(&mut bus, Mode::Send, free_port());
    let took = ends_stalled_within(&mut bus, Duration::from_secs(120), Duration::from_secs(1));
    eprintln!("nobody connects: stalled after {took:?} of wall time");
}

/// Item 4: without `--stall-timeout` every session gets the board's default.
#[test]
fn the_default_stall_timeout_is_written_at_start() {
    let (vb, mut bus, lines) = board(Options { port: 0, ..Options::default() });
    for s in 0..vb.design.sessions {
        assert_eq!(ops::read_stall_timeout(&mut bus, s).unwrap(), vboard::DEFAULT_STALL_TIMEOUT_MS, "session {s}");
    }
    assert!(logged(&lines, "start-up: stall_timeout = 20 ms of simulated time in every session (--stall-timeout)"));
    // 0 keeps the design's reset value.
    let (_vb, mut bus, _) = board(Options { port: 0, stall_timeout_ms: 0, ..Options::default() });
    assert_eq!(ops::read_stall_timeout(&mut bus, 0).unwrap(), 1000);
}

/// Item 12 (a): the IP registers hold the loopback addresses the sessions
/// use, so the console recommends PC commands the host can run.
#[test]
fn the_ip_registers_hold_the_loopback_addresses_in_use() {
    let target = Ipv4Addr::new(127, 0, 0, 3);
    let (vb, mut bus, lines) = board(Options { port: 0, target, ..Options::default() });
    assert_eq!(Ipv4Addr::from(ops::read(&mut bus, regs::toe::FPGA_IP).unwrap()), Ipv4Addr::LOCALHOST);
    assert_eq!(Ipv4Addr::from(ops::read(&mut bus, regs::toe::TARGET_IP).unwrap()), target);
    assert!(logged(&lines, "start-up: fpga_ip = 127.0.0.1, target_ip = 127.0.0.3"));
    let written: Vec<&str> = vb.startup.writes.iter().map(|w| w.name.as_str()).collect();
    assert!(written.contains(&"toe.fpga_ip") && written.contains(&"toe.target_ip"), "{written:?}");
}

/// A base for `--session-ports` whose ports are free now: BASE..BASE+3 and
/// BASE+1000..BASE+1003 (the design's layout).
fn free_base() -> u16 {
    for _ in 0..100 {
        let p = free_port();
        if p <= 64_000 && (0..4).all(|i| TcpListener::bind(("127.0.0.1", p + i)).is_ok()) {
            return p;
        }
    }
    panic!("no free range of session ports");
}

/// Item 12 (b): `--session-ports` moves every session's ports; a port that
/// another program holds is named with its session and the option, at
/// start and when a test listens there.
#[test]
fn session_ports_move_and_a_taken_port_is_named() {
    let base = free_base();
    let taken = TcpListener::bind(("127.0.0.1", base + 2)).expect("hold session 2's port");
    let (vb, mut bus, lines) = board(Options { port: 0, session_ports: Some(base), ..Options::default() });
    for s in 0..vb.design.sessions {
        let want = (base + s as u16, base + 1000 + s as u16);
        assert_eq!(ops::read_ports(&mut bus, s).unwrap(), want, "session {s}");
    }
    assert!(
        logged(&lines, &format!("session 2: port {} on 127.0.0.1 is taken (another virtual board?)", base + 2))
            && logged(&lines, "move this board's session ports with --session-ports BASE"),
        "{:#?}",
        lines.lock().unwrap()
    );
    // Session 2 listens on its (taken) port: refused, and the event says why and what to do.
    ops::program(&mut bus, 2, &SessionTest::new(Mode::Send, 1000, false)).unwrap();
    ops::start(&mut bus, 2).unwrap();
    let t = Instant::now();
    while ops::busy(&mut bus, 2).unwrap() {
        assert!(t.elapsed() < Duration::from_secs(30), "session 2 still busy");
        std::thread::sleep(Duration::from_millis(20));
    }
    let r = ops::result(&mut bus, 2).unwrap();
    assert!(r.error && r.error_cause == ErrorCause::Refused.bits(), "{r:?}");
    let want = format!(
        "session 2: cannot listen on port {} (127.0.0.1:{}): another socket holds the port",
        base + 2,
        base + 2
    );
    let t = Instant::now();
    while !(logged(&lines, &want) && logged(&lines, "vboard --session-ports BASE")) {
        assert!(t.elapsed() < Duration::from_secs(10), "no event {want:?}: {:#?}", lines.lock().unwrap());
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(taken);
}

/// Bad values are refused before anything starts, naming the option and its range.
#[test]
fn bad_start_up_values_name_the_option_and_range() {
    let e = VirtualBoard::start(&Options { port: 0, session_ports: Some(65_000), ..Options::default() }, |_| {})
        .err()
        .expect("refused");
    assert!(e.starts_with("--session-ports 65000: valid range is 1..=64532"), "{e}");
    let e = VirtualBoard::start(&Options { port: 0, stall_timeout_ms: 70_000, ..Options::default() }, |_| {})
        .err()
        .expect("refused");
    assert!(e.starts_with("--stall-timeout 70000: valid range is 1..=65535 simulated ms"), "{e}");
    let e = VirtualBoard::start(
        &Options { port: 0, pair: true, session_ports: Some(62_000), ..Options::default() },
        |_| {},
    )
    .err()
    .expect("refused");
    assert!(e.starts_with("--session-ports moves the sessions' host sockets; --pair has none"), "{e}");
}
