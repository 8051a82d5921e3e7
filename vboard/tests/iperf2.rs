//! iperf 2.x, the tool network engineers reach for first, against the
//! virtual board (issue 30, part 2): the board's sessions as iperf clients
//! sending to a real `iperf -s`, and as servers taking a real `iperf -c`,
//! programmed only through the board's registers over Etherbone. Every
//! count is checked twice: iperf's own CSV report (`-y C`, the transferred
//! bytes of each connection) against the board's `tx_bytes`/`rx_bytes`,
//! exactly.
//!
//! iperf's payload is not the test pattern, so a receiving session runs
//! with verification off; an FPGA client's stream opens with the pattern's
//! word 0 (four zero bytes), which iperf 2 reads as a header with no flags:
//! plain data. Addresses and ports are loopback only.

use std::process::Command;
use std::time::Duration;

use driver::ops;
use driver::{Mode, SessionResult, SessionTest};
use vboard::pc::{
    connect, free_port, wait_idle, wait_listening, Iperf2Report as Report, Proc, Remote, IPERF2_HEADER_BYTES,
};
use vboard::{Options, VirtualBoard};

/// The longest any step may take.
const LIMIT: Duration = Duration::from_secs(120);

/// The iperf 2 binary, checked once: `make deps` installs Debian's `iperf`.
fn iperf() -> Command {
    let probe = Command::new("iperf").arg("-v").output();
    match probe {
        Ok(out)
            if String::from_utf8_lossy(&out.stdout).contains("iperf version 2")
                || String::from_utf8_lossy(&out.stderr).contains("iperf version 2") => {}
        Ok(out) => panic!("`iperf -v` is not iperf 2.x: {}", String::from_utf8_lossy(&out.stderr)),
        Err(e) => panic!("iperf (2.x) cannot run ({e}); `make deps` installs it (Debian package `iperf`)"),
    }
    Command::new("iperf")
}

/// A default virtual board and a register client.
fn board() -> (VirtualBoard, Remote) {
    let vb = VirtualBoard::start(&Options { port: 0, ..Options::default() }, |l| eprintln!("vboard: {l}"))
        .expect("the virtual board starts");
    let mut bus = connect(vb.register_addrs()[0]).expect("Etherbone connect");
    ops::check_identity(&mut bus, vb.design.sessions).expect("the board's identity");
    (vb, bus)
}

/// `iperf -s` on a free loopback port, listening when returned.
fn iperf_server() -> (Proc, u16) {
    let port = free_port();
    let mut cmd = iperf();
    cmd.args(["-s", "-B", "127.0.0.1", "-p", &port.to_string(), "-y", "C"]);
    let server = Proc::spawn(cmd).expect("iperf -s starts");
    assert!(wait_listening(port, Duration::from_secs(10)), "iperf -s does not listen on {port}");
    (server, port)
}

/// Programs session `s` with `t` and its ports, and starts it.
fn start(bus: &mut Remote, s: usize, t: &SessionTest, fpga_port: u16, target_port: u16) {
    ops::program(bus, s, t).expect("program");
    ops::ports(bus, s, fpga_port, target_port).expect("ports");
    ops::start(bus, s).expect("start");
}

/// Waits for `sessions` to end and returns their results, each `done`.
fn done(bus: &mut Remote, sessions: &[usize]) -> Vec<SessionResult> {
    assert!(
        wait_idle(bus, sessions, LIMIT).expect("register access"),
        "sessions {sessions:?} still busy after {LIMIT:?}"
    );
    sessions
        .iter()
        .map(|&s| {
            let r = ops::result(bus, s).expect("result");
            assert!(r.done && !r.error && r.closed && !r.busy, "session {s}: {r:?}");
            r
        })
        .collect()
}

/// A send from the FPGA (client) of `size` bytes, or open-ended for `duration` cycles.
fn fpga_send(size: u64, duration: Option<u64>) -> SessionTest {
    let mut t = SessionTest::new(Mode::Send, size, true);
    if let Some(d) = duration {
        (t.open_ended, t.duration) = (true, d);
    }
    t
}

/// An open-ended receive on the FPGA (server), any payload.
fn fpga_receive() -> SessionTest {
    let mut t = SessionTest::new(Mode::Receive, 1, false);
    (t.open_ended, t.verify) = (true, false);
    t
}

/// The FPGA sends to `iperf -s`: a fixed size on sessions 0 and 1 (the
/// last beat partial), for a fixed time on sessions 2 and 3, all four at
/// once into the one server; iperf's count of each connection, found by
/// the session's port, equals the session's `tx_bytes` less the header
/// word iperf does not count.
#[test]
fn four_fpga_clients_send_a_size_or_for_a_time_to_one_iperf_server() {
    let (vb, mut bus) = board();
    let (mut server, port) = iperf_server();
    let duration = 400_000;
    let tests = [
        fpga_send(1_000_003, None),
        fpga_send(333_333, None),
        fpga_send(64, Some(duration)),
        fpga_send(64, Some(2 * duration)),
    ];
    let fpga_ports: Vec<u16> = (0..4).map(|_| free_port()).collect();
    for (s, t) in tests.iter().enumerate() {
        start(&mut bus, s, t, fpga_ports[s], port);
    }
    let results = done(&mut bus, &[0, 1, 2, 3]);
    assert_eq!((results[0].tx_bytes, results[1].tx_bytes), (1_000_003, 333_333));
    for (s, r) in results.iter().enumerate().skip(2) {
        let d = tests[s].duration;
        assert!(r.elapsed >= d && r.tx_bytes > 0, "session {s}: elapsed {} for a duration of {d}", r.elapsed);
    }
    let mut seen = Vec::new();
    while seen.len() < 4 {
        let rep = server.wait_stdout(LIMIT, Report::parse).unwrap_or_else(|e| panic!("{e}; reports so far {seen:?}"));
        seen.push(rep);
    }
    server.kill();
    for (s, r) in results.iter().enumerate() {
        let rep = seen
            .iter()
            .find(|x| x.src_port == fpga_ports[s])
            .unwrap_or_else(|| panic!("no report of session {s}: {seen:?}"));
        assert_eq!((rep.dst_port, rep.bytes + IPERF2_HEADER_BYTES), (port, r.tx_bytes), "session {s}");
    }
    eprintln!("iperf -s reports {seen:?}; user clock {} kHz", vb.design.user_clock_khz());
}

/// `iperf -c` into an FPGA server session, `-n BYTES` then `-t SECONDS`:
/// the open-ended receive takes whatever arrives and ends `done` at
/// iperf's close, its `rx_bytes` equal to what iperf says it sent.
#[test]
fn iperf_client_sends_a_size_then_for_a_time_into_an_fpga_server() {
    let (_vb, mut bus) = board();
    for args in [["-n", "1000003"], ["-t", "1"]] {
        let fpga_port = free_port();
        start(&mut bus, 0, &fpga_receive(), fpga_port, 0);
        assert!(wait_listening(fpga_port, Duration::from_secs(10)), "the session does not listen on {fpga_port}");
        let mut cmd = iperf();
        cmd.args(["-c", "127.0.0.1", "-p", &fpga_port.to_string(), "-y", "C"]).args(args);
        let run = Proc::spawn(cmd).expect("iperf -c starts").finish(LIMIT);
        assert_eq!(run.code, Some(0), "iperf -c {args:?}: {}", run.all());
        let rep =
            run.stdout.iter().find_map(|l| Report::parse(l)).unwrap_or_else(|| panic!("no CSV report: {}", run.all()));
        let r = done(&mut bus, &[0]).remove(0);
        assert_eq!((rep.dst_port, r.rx_bytes, r.tx_bytes), (fpga_port, rep.bytes, 0), "iperf -c {args:?}");
        if args[0] == "-n" {
            assert_eq!(rep.bytes, 1_000_003);
        }
        assert!(rep.bytes > 0);
    }
}

/// `iperf -c -P 4 -n BYTES` into four FPGA server sessions listening on
/// one port: each stream (BYTES each) lands on a session of its own (the
/// TOE gives each listening session one connection), and iperf's count of
/// each stream equals the `rx_bytes` of the session whose peer port is that
/// stream's.
#[test]
fn iperf_client_with_four_streams_into_four_fpga_servers_on_one_port() {
    const BYTES: u64 = 2_000_000;
    let (_vb, mut bus) = board();
    let fpga_port = free_port();
    for s in 0..4 {
        start(&mut bus, s, &fpga_receive(), fpga_port, 0);
    }
    assert!(wait_listening(fpga_port, Duration::from_secs(10)), "the sessions do not listen on {fpga_port}");
    let mut cmd = iperf();
    cmd.args(["-c", "127.0.0.1", "-p", &fpga_port.to_string(), "-y", "C", "-P", "4", "-n", &BYTES.to_string()]);
    let run = Proc::spawn(cmd).expect("iperf -c starts").finish(LIMIT);
    assert_eq!(run.code, Some(0), "iperf -c -P 4: {}", run.all());
    let reports: Vec<Report> = run.stdout.iter().filter_map(|l| Report::parse(l)).filter(|x| x.src_port != 0).collect();
    assert_eq!(reports.len(), 4, "one report per stream: {}", run.all());
    let results = done(&mut bus, &[0, 1, 2, 3]);
    let mut peers: Vec<u32> = results.iter().map(|r| r.peer_port).collect();
    peers.sort_unstable();
    peers.dedup();
    assert_eq!(peers.len(), 4, "each session took a stream of its own: {results:?}");
    for (s, r) in results.iter().enumerate() {
        let rep = reports
            .iter()
            .find(|x| u32::from(x.src_port) == r.peer_port && x.dst_port == fpga_port)
            .unwrap_or_else(|| panic!("session {s} (peer port {}): no stream of {reports:?}", r.peer_port));
        assert_eq!((r.rx_bytes, r.tx_bytes, rep.bytes), (rep.bytes, 0, BYTES), "session {s}");
    }
}
