//! `toe-console iperf3` against the real iperf3 server (Debian's `iperf3`,
//! installed by `make deps`) on loopback, with a virtual board's sessions
//! as the data streams. Every count is checked three ways: the server's own
//! JSON report (`iperf3 -s -J`: what it received or sent per connection,
//! found by the FPGA session's port), the console's JSON, and the board's
//! registers read over Etherbone afterwards. A busy server and a server
//! that goes away mid-test end the console with one clear line, status 1,
//! and every session idle.

mod common;

use std::process::Command;
use std::time::Duration;

use common::{console, console_cmd, loopback_params, spawn, Proc};
use console::ops;
use vboard::pc::{free_port, wait_listening};

const LIMIT: Duration = Duration::from_secs(300);
/// iperf3's cookie, the FPGA's TX prefix, which the server does not count.
const COOKIE: u64 = 37;

/// `iperf3 -s -1 -J` on a free loopback port, listening when returned.
fn iperf3_server() -> (Proc, u16) {
    let port = free_port();
    let mut cmd = Command::new("iperf3");
    cmd.args(["-s", "-1", "-J", "-B", "127.0.0.1", "-p", &port.to_string()]);
    let server = spawn(cmd);
    assert!(wait_listening(port, Duration::from_secs(10)), "iperf3 -s does not listen on {port}");
    (server, port)
}

/// The server's JSON report (printed over many lines at its end).
fn server_report(server: Proc) -> serde_json::Value {
    let f = server.finish(LIMIT);
    serde_json::from_str(&f.stdout.join("\n")).unwrap_or_else(|e| panic!("iperf3 -s -J: {e}\n{}", f.all()))
}

/// Per connection of the server's report: the peer's port and the bytes
/// the server received and sent (its JSON holds its own counts only).
fn per_port(report: &serde_json::Value) -> Vec<(u16, u64, u64)> {
    let connected = report["start"]["connected"].as_array().expect("start.connected");
    let streams = report["end"]["streams"].as_array().expect("end.streams");
    streams
        .iter()
        .map(|s| {
            let socket = &s["receiver"]["socket"];
            let port = connected.iter().find(|c| &c["socket"] == socket).expect("a connection per stream")
                ["remote_port"]
                .as_u64()
                .expect("remote_port") as u16;
            (port, s["receiver"]["bytes"].as_u64().unwrap(), s["sender"]["bytes"].as_u64().unwrap())
        })
        .collect()
}

/// Runs `toe-console --json iperf3 -c 127.0.0.1 -p PORT <args>` against a
/// fresh board and server; returns the console's JSON, the server's report
/// and each session's registers afterwards.
fn run(args: &[&str], streams: usize) -> (serde_json::Value, serde_json::Value, Vec<(u16, driver::SessionResult)>) {
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    loopback_params(addr, vb.design.sessions);
    let (server, port) = iperf3_server();
    let port = port.to_string();
    let mut a = vec!["--json", "iperf3", "-c", "127.0.0.1", "-p", &port];
    a.extend(args);
    let f = console(addr, &a);
    eprintln!("{}", f.all());
    assert_eq!(f.code, Some(0), "{}", f.all());
    let report = server_report(server);
    let mut bus = vboard::pc::connect(addr).expect("Etherbone");
    let sessions = (0..streams)
        .map(|s| {
            let (fpga_port, _) = ops::read_ports(&mut bus, s).expect("ports");
            let r = ops::result(&mut bus, s).expect("result");
            assert!(r.done && !r.error && !r.busy, "session {s}: {r:?}");
            (fpga_port, r)
        })
        .collect();
    (f.json(), report, sessions)
}

/// Forward: each session's `tx_bytes` less the cookie is what the server
/// received on its connection and what the console reported for it.
fn check_forward(json: &serde_json::Value, report: &serde_json::Value, sessions: &[(u16, driver::SessionResult)]) {
    let conns = per_port(report);
    assert_eq!(conns.len(), sessions.len(), "{report}");
    for (s, (fpga_port, r)) in sessions.iter().enumerate() {
        let &(_, received, _) =
            conns.iter().find(|c| c.0 == *fpga_port).unwrap_or_else(|| panic!("no connection from port {fpga_port}"));
        let sent = r.tx_bytes - COOKIE;
        assert_eq!(received, sent, "session {s}: server received / FPGA sent");
        let stream = &json["streams"][s];
        assert_eq!(stream["fpga_bytes"].as_u64(), Some(sent), "{json}");
        assert_eq!(stream["server_bytes"].as_u64(), Some(received), "{json}");
    }
}

#[test]
fn one_stream_sends_a_size_to_iperf3() {
    let (json, report, sessions) = run(&["-n", "1M"], 1);
    check_forward(&json, &report, &sessions);
    assert_eq!(sessions[0].1.tx_bytes, (1 << 20) + COOKIE);
}

#[test]
fn four_streams_share_a_size_sent_to_iperf3() {
    let (json, report, sessions) = run(&["-n", "4000003", "-P", "4"], 4);
    check_forward(&json, &report, &sessions);
    let total: u64 = sessions.iter().map(|(_, r)| r.tx_bytes - COOKIE).sum();
    assert_eq!(total, 4_000_003);
    assert_eq!(report["end"]["sum_received"]["bytes"].as_u64(), Some(total));
}

#[test]
fn one_and_four_streams_send_for_a_time_to_iperf3() {
    for streams in [1, 4] {
        let p = streams.to_string();
        let (json, report, sessions) = run(&["-t", "1", "-P", &p], streams);
        check_forward(&json, &report, &sessions);
        for (s, (_, r)) in sessions.iter().enumerate() {
            assert!(r.tx_bytes > COOKIE, "session {s}: {r:?}");
            assert_eq!(json["streams"][s]["fpga_prefix_bytes"].as_u64(), Some(COOKIE), "{json}");
        }
    }
}

/// `-R`: the server sends, each FPGA session receives everything it sent,
/// and the server's count and the FPGA's agree per stream.
#[test]
fn reverse_streams_receive_what_iperf3_sends() {
    for (args, streams) in [(vec!["-R", "-n", "2M", "-P", "4"], 4), (vec!["-R", "-t", "1"], 1)] {
        let (json, report, sessions) = run(&args, streams);
        let conns = per_port(&report);
        for (s, (fpga_port, r)) in sessions.iter().enumerate() {
            let &(_, _, sent) = conns.iter().find(|c| c.0 == *fpga_port).expect("the session's connection");
            assert_eq!(r.tx_bytes, COOKIE, "session {s} sends the cookie alone");
            assert_eq!(r.rx_bytes, sent, "session {s}: FPGA received / server sent");
            assert_eq!(json["streams"][s]["fpga_bytes"].as_u64(), Some(sent), "{json}");
            assert_eq!(json["streams"][s]["server_bytes"].as_u64(), Some(sent), "{json}");
        }
        if streams == 4 {
            assert!(sessions.iter().map(|(_, r)| r.rx_bytes).sum::<u64>() >= 2 << 20);
        }
    }
}

/// Every session of the board idle, none started by a refused run.
fn assert_idle(addr: std::net::SocketAddr, sessions: usize) {
    let mut bus = vboard::pc::connect(addr).expect("Etherbone");
    for s in 0..sessions {
        assert!(!ops::busy(&mut bus, s).unwrap(), "session {s} still busy");
    }
}

/// A server busy with another client's test answers `ACCESS_DENIED`: one
/// line, status 1, nothing left running.
#[test]
fn a_busy_server_is_one_clear_error() {
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    loopback_params(addr, vb.design.sessions);
    let (server, port) = iperf3_server();
    let mut other = Command::new("iperf3");
    other.args(["-c", "127.0.0.1", "-p", &port.to_string(), "-t", "4"]);
    let other = spawn(other);
    std::thread::sleep(Duration::from_millis(1500));
    let f = console(addr, &["iperf3", "-c", "127.0.0.1", "-p", &port.to_string(), "-n", "1M"]);
    assert_eq!(f.code, Some(1), "{}", f.all());
    let errors: Vec<&String> = f.stderr.iter().filter(|l| l.starts_with("toe-console: error:")).collect();
    assert_eq!(errors.len(), 1, "{}", f.all());
    assert!(errors[0].contains("busy"), "{}", f.all());
    assert_idle(addr, vb.design.sessions);
    other.finish(LIMIT);
    server.kill();
}

/// The server killed while the FPGA sends: the console ends with status 1
/// and one line saying so, and aborts its sessions.
#[test]
fn a_server_that_goes_away_mid_test_is_one_clear_error() {
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    loopback_params(addr, vb.design.sessions);
    let (mut server, port) = iperf3_server();
    let mut con = spawn(console_cmd(addr, &["iperf3", "-c", "127.0.0.1", "-p", &port.to_string(), "-t", "60"]));
    con.wait_stdout(Duration::from_secs(60), |l| l.starts_with("Connecting to host").then_some(())).expect("started");
    std::thread::sleep(Duration::from_secs(2));
    let _ = server.child.kill();
    let _ = server.child.wait();
    let f = con.finish(Duration::from_secs(120));
    assert_eq!(f.code, Some(1), "{}", f.all());
    let errors: Vec<&String> = f.stderr.iter().filter(|l| l.starts_with("toe-console: error:")).collect();
    assert_eq!(errors.len(), 1, "{}", f.all());
    assert!(errors[0].contains("iperf3 server"), "{}", f.all());
    assert_idle(addr, vb.design.sessions);
}

#[test]
fn bad_flags_are_refused_with_status_2() {
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    loopback_params(addr, vb.design.sessions);
    for args in [
        vec!["iperf3", "-c", "127.0.0.1", "-P", "5"],
        vec!["iperf3", "-c", "127.0.0.1", "-n", "1X"],
        vec!["iperf3", "-c", "127.0.0.1", "-t", "0"],
        vec!["iperf3", "-c", "127.0.0.1", "-t", "1", "-n", "1M"],
    ] {
        let f = console(addr, &args);
        assert_eq!(f.code, Some(2), "{args:?}: {}", f.all());
    }
    // A server address the TOE does not connect to.
    let f = console(addr, &["iperf3", "-c", "127.0.0.2", "-n", "1M"]);
    assert_eq!(f.code, Some(1), "{}", f.all());
    assert!(f.all().contains("target_ip"), "{}", f.all());
    assert_idle(addr, vb.design.sessions);
}

/// A server that refuses the parameters answers `SERVER_ERROR` with
/// iperf3's error number: one line naming it, status 1. (The real iperf3
/// refuses little; this server speaks the protocol's first steps by hand.)
#[test]
fn a_server_error_is_one_line_with_iperf3s_error_number() {
    use std::io::{Read, Write};
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    loopback_params(addr, vb.design.sessions);
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = std::thread::spawn(move || {
        let (mut c, _) = listener.accept().unwrap();
        c.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let mut cookie = [0u8; 37];
        c.read_exact(&mut cookie).unwrap();
        c.write_all(&[9]).unwrap(); // PARAM_EXCHANGE
        let mut len = [0u8; 4];
        c.read_exact(&mut len).unwrap();
        let mut params = vec![0u8; u32::from_be_bytes(len) as usize];
        c.read_exact(&mut params).unwrap();
        // SERVER_ERROR, i_errno 104 (cannot receive the parameters), errno 0.
        c.write_all(&[0xFE, 0, 0, 0, 104, 0, 0, 0, 0]).unwrap();
        (cookie, serde_json::from_slice::<serde_json::Value>(&params).unwrap())
    });
    let f = console(addr, &["iperf3", "-c", "127.0.0.1", "-p", &port.to_string(), "-n", "1M", "-P", "2"]);
    let (cookie, params) = server.join().unwrap();
    assert_eq!(cookie[36], 0, "the cookie ends with a NUL");
    assert_eq!(
        (params["tcp"].as_bool(), params["parallel"].as_u64(), params["num"].as_u64()),
        (Some(true), Some(2), Some(1 << 20))
    );
    assert_eq!(f.code, Some(1), "{}", f.all());
    let errors: Vec<&String> = f.stderr.iter().filter(|l| l.starts_with("toe-console: error:")).collect();
    assert_eq!(errors.len(), 1, "{}", f.all());
    assert!(errors[0].contains("iperf3 error 104"), "{}", f.all());
    assert_idle(addr, vb.design.sessions);
}

/// How a fake iperf3 server ([`fake_server`]) behaves.
#[derive(Clone, Copy, Debug)]
enum Fake {
    /// Takes the cookie and never answers.
    Silent,
    /// Runs the test, reads every stream to its end, and reports `bytes`
    /// (`None`: what it counted) per stream received (forward) or sent
    /// (`-R`, after sending `send` bytes on each stream); its results
    /// come one byte every `drip` (`None`: at once).
    Runs { bytes: Option<u64>, send: u64, drip: Option<Duration> },
}

/// What the fake server saw: per stream, the bytes it read after the cookie.
type Seen = Vec<u64>;

fn read_json(c: &mut std::net::TcpStream) -> serde_json::Value {
    use std::io::Read;
    let mut len = [0u8; 4];
    c.read_exact(&mut len).unwrap();
    let mut text = vec![0u8; u32::from_be_bytes(len) as usize];
    c.read_exact(&mut text).unwrap();
    serde_json::from_slice(&text).unwrap()
}

/// A fake iperf3 server on 127.0.0.1 speaking the control protocol as
/// `console/src/iperf3.rs` describes it, for `streams` streams; returns its
/// port and its thread. Its `started` channel says when it began sending
/// its results (for a test that signals the console then).
fn fake_server(
    how: Fake,
    streams: usize,
    started: std::sync::mpsc::Sender<()>,
) -> (u16, std::thread::JoinHandle<Option<Seen>>) {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = std::thread::spawn(move || {
        let (mut c, _) = listener.accept().unwrap();
        c.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        let mut cookie = [0u8; 37];
        c.read_exact(&mut cookie).unwrap();
        let Fake::Runs { bytes, send, drip } = how else {
            // Silent: hold the connection until the client closes it.
            let _ = c.read(&mut [0u8; 1]);
            return None;
        };
        c.write_all(&[9]).unwrap(); // PARAM_EXCHANGE
        let params = read_json(&mut c);
        let reverse = params["reverse"].as_bool() == Some(true);
        c.write_all(&[10]).unwrap(); // CREATE_STREAMS
        let mut data = Vec::new();
        for _ in 0..streams {
            let (mut d, _) = listener.accept().unwrap();
            d.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
            let mut theirs = [0u8; 37];
            d.read_exact(&mut theirs).unwrap();
            assert_eq!(theirs, cookie, "each stream opens with the test's cookie");
            data.push(d);
        }
        c.write_all(&[1, 2]).unwrap(); // TEST_START, TEST_RUNNING
        let readers: Vec<_> = data
            .iter()
            .map(|d| {
                let mut d = d.try_clone().unwrap();
                std::thread::spawn(move || {
                    if reverse {
                        d.write_all(&vec![0x5A; send as usize]).unwrap();
                    }
                    let mut n = 0u64;
                    let mut buf = vec![0u8; 1 << 16];
                    while let Ok(k) = d.read(&mut buf) {
                        if k == 0 {
                            break;
                        }
                        n += k as u64;
                    }
                    n
                })
            })
            .collect();
        let mut end = [0u8];
        c.read_exact(&mut end).unwrap();
        assert_eq!(end[0], 4, "TEST_END");
        for d in &data {
            let _ = d.shutdown(std::net::Shutdown::Write);
        }
        // Forward, the console waits for the streams to end before it
        // sends its results: the server reads each to its end, as iperf3.
        let seen: Seen =
            if reverse { vec![send; streams] } else { readers.into_iter().map(|r| r.join().unwrap()).collect() };
        c.write_all(&[13]).unwrap(); // EXCHANGE_RESULTS
        let _client = read_json(&mut c);
        let ids: Vec<u32> = (0..streams).map(console::iperf3::stream_id).collect();
        let figures: Vec<(u64, f64)> = seen.iter().map(|&n| (bytes.unwrap_or(n), 1.0)).collect();
        let text = console::iperf3::client_results(&ids, &figures, reverse).to_string();
        let mut msg = (text.len() as u32).to_be_bytes().to_vec();
        msg.extend(text.as_bytes());
        let _ = started.send(());
        match drip {
            None => c.write_all(&msg).unwrap(),
            Some(every) => {
                for b in msg {
                    if c.write_all(&[b]).is_err() {
                        return Some(seen);
                    }
                    std::thread::sleep(every);
                }
            }
        }
        c.write_all(&[14]).unwrap(); // DISPLAY_RESULTS
        let mut done = [0u8];
        let _ = c.read_exact(&mut done);
        Some(seen)
    });
    (port, server)
}

/// Sessions `0..n`'s ports and test registers, as a later test finds them.
fn session_registers(addr: std::net::SocketAddr, n: usize) -> Vec<(u16, u16, u32, u32, u64, u64, u64)> {
    let mut bus = vboard::pc::connect(addr).expect("Etherbone");
    (0..n)
        .map(|s| {
            let r = console::regs::session(s).unwrap();
            let (f, t) = ops::read_ports(&mut bus, s).unwrap();
            (
                f,
                t,
                ops::read(&mut bus, r.test_config()).unwrap(),
                ops::read(&mut bus, r.speed()).unwrap(),
                ops::read_wide(&mut bus, r.transfer_size()).unwrap(),
                ops::read_wide(&mut bus, r.packet_size()).unwrap(),
                ops::read_wide(&mut bus, r.duration()).unwrap(),
            )
        })
        .collect()
}

/// The console's one error line.
fn error_line(f: &common::Finished) -> String {
    let errors: Vec<&String> = f.stderr.iter().filter(|l| l.starts_with("toe-console: error:")).collect();
    assert_eq!(errors.len(), 1, "{}", f.all());
    errors[0].clone()
}

/// Issue 51, item 6: exit 0 means the server counted what the FPGA sent.
/// A server that reports 0 bytes received: the figures are printed, and
/// the console fails naming the stream and both counts.
#[test]
fn a_server_count_that_differs_from_the_fpgas_fails_the_test() {
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    loopback_params(addr, vb.design.sessions);
    let (tx, _rx) = std::sync::mpsc::channel();
    let (port, server) = fake_server(Fake::Runs { bytes: Some(0), send: 0, drip: None }, 2, tx);
    let f = console(addr, &["--json", "iperf3", "-c", "127.0.0.1", "-p", &port.to_string(), "-n", "1M", "-P", "2"]);
    let seen = server.join().unwrap().unwrap();
    assert_eq!(seen, [1 << 19, 1 << 19], "the fake server read every byte");
    assert_eq!(f.code, Some(1), "{}", f.all());
    let e = error_line(&f);
    assert!(e.contains("stream 1 (session 0): the FPGA sent 524288 bytes, the server received 0"), "{e}");
    assert!(e.contains("stream 3 (session 1)"), "{e}");
    let json = f.json();
    assert_eq!(json["ok"], false, "{json}");
    assert_eq!(json["streams"][0]["fpga_bytes"].as_u64(), Some(1 << 19), "{json}");
    // The same server reporting what it counted: status 0.
    let (tx, _rx) = std::sync::mpsc::channel();
    let (port, server) = fake_server(Fake::Runs { bytes: None, send: 0, drip: None }, 2, tx);
    let f = console(addr, &["--json", "iperf3", "-c", "127.0.0.1", "-p", &port.to_string(), "-n", "1M", "-P", "2"]);
    server.join().unwrap();
    assert_eq!(f.code, Some(0), "{}", f.all());
    assert_eq!(f.json()["ok"], true);
}

/// Item 6 with `-R`: the FPGA must have received what the server says it
/// sent; a server that claims more fails the test.
#[test]
fn a_reverse_server_that_claims_more_than_the_fpga_received_fails_the_test() {
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    loopback_params(addr, vb.design.sessions);
    let (tx, _rx) = std::sync::mpsc::channel();
    let (port, server) = fake_server(Fake::Runs { bytes: Some(200_000), send: 100_000, drip: None }, 1, tx);
    let f = console(addr, &["iperf3", "-c", "127.0.0.1", "-p", &port.to_string(), "-R", "-n", "100000"]);
    server.join().unwrap();
    assert_eq!(f.code, Some(1), "{}", f.all());
    let e = error_line(&f);
    assert!(e.contains("stream 1 (session 0): the server sent 200000 bytes, the FPGA received 100000"), "{e}");
}

/// Issue 51, item 8: SIGTERM while the console waits on a server that
/// never answers ends it at once (status 1, naming the signal), not after
/// the server's time limit.
#[test]
fn sigterm_ends_the_wait_on_a_server_that_never_answers_at_once() {
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    loopback_params(addr, vb.design.sessions);
    let before = session_registers(addr, 2);
    let (tx, _rx) = std::sync::mpsc::channel();
    let (port, _server) = fake_server(Fake::Silent, 2, tx);
    let mut con = spawn(console_cmd(addr, &["iperf3", "-c", "127.0.0.1", "-p", &port.to_string(), "-P", "2"]));
    con.wait_stdout(Duration::from_secs(60), |l| l.starts_with("Connecting to host").then_some(())).expect("started");
    std::thread::sleep(Duration::from_millis(500));
    sigterm_ends_the_wait_at_once(con);
    assert_eq!(session_registers(addr, 2), before, "the registers as they were");
}

/// Sends SIGTERM to a console waiting on its iperf3 server: it must end
/// within 3 s, status 1, naming the signal.
fn sigterm_ends_the_wait_at_once(con: Proc) {
    let sent = std::time::Instant::now();
    // SAFETY: a signal to the child this test started.
    assert_eq!(unsafe { libc::kill(con.child.id() as i32, libc::SIGTERM) }, 0);
    let f = con.finish(Duration::from_secs(60));
    let took = sent.elapsed();
    assert_eq!(f.code, Some(1), "{}", f.all());
    assert!(took < Duration::from_secs(3), "ended {took:?} after SIGTERM");
    assert!(error_line(&f).contains("SIGTERM received while waiting for the iperf3 server"), "{}", f.all());
}

/// Item 8: a server that sends its results one byte a second holds the
/// console only until SIGTERM, which aborts the sessions and puts the
/// registers back (item 5).
#[test]
fn sigterm_ends_the_wait_on_a_server_that_answers_a_byte_at_a_time() {
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    loopback_params(addr, vb.design.sessions);
    let before = session_registers(addr, 2);
    let (tx, rx) = std::sync::mpsc::channel();
    let drip = Some(Duration::from_secs(1));
    let (port, _server) = fake_server(Fake::Runs { bytes: None, send: 0, drip }, 2, tx);
    let con = spawn(console_cmd(addr, &["iperf3", "-c", "127.0.0.1", "-p", &port.to_string(), "-n", "1M", "-P", "2"]));
    rx.recv_timeout(Duration::from_secs(120)).expect("the fake server sends its results");
    std::thread::sleep(Duration::from_millis(2500));
    sigterm_ends_the_wait_at_once(con);
    assert_idle(addr, vb.design.sessions);
    assert_eq!(session_registers(addr, 2), before, "the registers as they were");
}

/// Issue 51, item 1: a session not yet started may still show an earlier
/// test's `error` (here a refused connection); the iperf3 run judges only
/// what its own sessions did since their start.
#[test]
fn a_stale_error_on_a_session_not_yet_started_does_not_fail_a_later_run() {
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    loopback_params(addr, vb.design.sessions);
    // Session 1 as a client to its target port, where nothing listens.
    let f = console(addr, &["test", "half", "--session", "1:1:1000:8192:1:100:0", "--timeout", "30"]);
    assert_eq!(f.code, Some(1), "{}", f.all());
    let mut bus = vboard::pc::connect(addr).expect("Etherbone");
    let r = ops::result(&mut bus, 1).unwrap();
    assert!(r.error && !r.busy, "session 1 holds a stale error: {r:?}");
    let (server, port) = iperf3_server();
    let f = console(addr, &["--json", "iperf3", "-c", "127.0.0.1", "-p", &port.to_string(), "-n", "1M", "-P", "2"]);
    assert_eq!(f.code, Some(0), "{}", f.all());
    let report = server_report(server);
    assert_eq!(report["end"]["sum_received"]["bytes"].as_u64(), Some(1 << 20));
}

/// Issue 51, item 5: `iperf3 -p PORT` points the sessions at the server for
/// the test only; afterwards every session's ports and test registers are
/// as they were, so the next `test` connects where `params` says.
#[test]
fn iperf3_leaves_the_ports_and_test_registers_as_it_found_them() {
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    loopback_params(addr, vb.design.sessions);
    let before = session_registers(addr, vb.design.sessions);
    let (server, port) = iperf3_server();
    let f = console(addr, &["iperf3", "-c", "127.0.0.1", "-p", &port.to_string(), "-n", "1M", "-P", "2"]);
    assert_eq!(f.code, Some(0), "{}", f.all());
    server.finish(LIMIT);
    assert_eq!(session_registers(addr, vb.design.sessions), before);
    let p = console(addr, &["--json", "params", "show"]);
    let targets: Vec<u64> = p.json()["target_ports"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
    assert!(!targets.contains(&u64::from(port)), "params show names the iperf3 port: {targets:?}");
}

/// Issue 51, item 7: with `-R`, a server that dies mid-test ends the
/// console soon with the docs' line, whether the test is a size (which it
/// would otherwise wait for up to a day) or a time (whose end it would
/// wait out, then blame the cookie).
#[test]
fn a_reverse_test_ends_soon_after_the_server_goes_away() {
    let vb = common::board(false);
    let addr = vb.register_addrs()[0];
    loopback_params(addr, vb.design.sessions);
    let before = session_registers(addr, 2);
    for amount in [["-n", "100G"], ["-t", "60"]] {
        let (mut server, port) = iperf3_server();
        let port = port.to_string();
        let mut args = vec!["iperf3", "-c", "127.0.0.1", "-p", &port, "-R", "-P", "2"];
        args.extend(amount);
        let mut con = spawn(console_cmd(addr, &args));
        con.wait_stdout(Duration::from_secs(60), |l| l.starts_with("Connecting to host").then_some(()))
            .expect("started");
        std::thread::sleep(Duration::from_secs(2));
        let _ = server.child.kill();
        let _ = server.child.wait();
        let killed = std::time::Instant::now();
        let f = con.finish(Duration::from_secs(120));
        let took = killed.elapsed();
        assert_eq!(f.code, Some(1), "{amount:?}: {}", f.all());
        assert!(took < Duration::from_secs(10), "{amount:?}: ended {took:?} after the server");
        let e = error_line(&f);
        assert!(e.contains("went away during the test") && !e.contains("cookie"), "{amount:?}: {e}");
        assert_idle(addr, vb.design.sessions);
        assert_eq!(session_registers(addr, 2), before, "{amount:?}: the registers as they were");
    }
}

/// Issue 51, item 15: every check that does not need the board comes
/// before the bus is opened: with no board at the address, a bad flag is
/// still status 2 with its own message.
#[test]
fn flags_are_checked_before_the_board_is_reached() {
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let max = (0xFFFF_FFFF_FFFFu64 - COOKIE).to_string();
    let over = (0xFFFF_FFFF_FFFFu64 - COOKIE + 1).to_string();
    for (args, says) in [
        (vec!["iperf3", "-c", "127.0.0.1", "-P", "0"], "-P 0 is not in 1..=4"),
        (vec!["iperf3", "-c", "127.0.0.1", "-P", "5"], "-P 5 is not in 1..=4"),
        (vec!["iperf3", "-c", "127.0.0.1", "-n", "281474976710655"], &format!("is not in 1..={max} with -P 1")),
        (vec!["iperf3", "-c", "127.0.0.1", "-n", &over], "cookie"),
        (vec!["test", "half", "--session", "0:1:1000", "--plot", "/nonexistent/dir/p.svg"], "/nonexistent/dir"),
        (vec!["test", "latency", "--session", "0:initiator:64:64:10", "--duration", "1"], "--duration"),
        (vec!["test", "half", "--session", "7:1:1000"], "Session"),
        (vec!["abort", "--session", "9"], "Session"),
    ] {
        let f = console(closed, &args);
        assert_eq!(f.code, Some(2), "{args:?}: {}", f.all());
        let e = error_line(&f);
        assert!(e.contains(says), "{args:?}: {e}");
    }
    // The largest -n that fits passes the checks and meets the missing board.
    let f = console(closed, &["iperf3", "-c", "127.0.0.1", "-n", &max]);
    assert_eq!(f.code, Some(1), "{}", f.all());
    let f = console(closed, &["iperf3", "-c", "127.0.0.1", "-n", "281474976710655", "-P", "2"]);
    assert_eq!(f.code, Some(1), "two streams have room for 2^48-1: {}", f.all());
}
