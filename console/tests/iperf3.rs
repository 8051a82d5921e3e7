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
