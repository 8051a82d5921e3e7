//! Opening, closing, refusing and resetting connections with real loopback peers.

mod common;

use std::io::{ErrorKind, Read};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use common::*;
use socket_toe::{Error, HostToe, NetConfig, INIT_CYCLES};

const MAX: u64 = 50_000_000;

/// A listener with backlog 0 whose only queue slot is taken: Linux drops
/// further SYNs, so a connect to it stays pending (no traffic leaves loopback).
fn full_backlog() -> (socket2::Socket, TcpStream, u16) {
    use socket2::{Domain, Socket, Type};
    let l = Socket::new(Domain::IPV4, Type::STREAM, None).unwrap();
    l.bind(&"127.0.0.1:0".parse::<SocketAddr>().unwrap().into()).unwrap();
    l.listen(0).unwrap();
    let addr = l.local_addr().unwrap().as_socket().unwrap();
    let queued = TcpStream::connect_timeout(&addr, Duration::from_secs(2)).expect("first connect is queued");
    (l, queued, addr.port())
}

/// A bench whose session 0 connects to a [`full_backlog`] listener with a
/// 300 ms connect timeout, so the connect stays pending until then; also the
/// listener's port, and the listener and its queued connection, to be kept
/// alive while the test runs.
fn connect_to_full_backlog() -> (Tb, u16, (socket2::Socket, TcpStream)) {
    let (l, queued, port) = full_backlog();
    let mut cfg = net();
    cfg.connect_timeout = Duration::from_millis(300);
    let mut tb = Tb::new(1, 64, cfg);
    tb.connect_to(0, 0, port);
    (tb, port, (l, queued))
}

#[test]
fn active_open_refused() {
    let port = free_port();
    let mut tb = Tb::new(1, 64, net());
    tb.connect_to(0, 0, port);
    let mut rose = false;
    tb.run_until("conn_error after a refused connect", MAX, |tb| {
        rose |= tb.ins[0].established;
        tb.ins[0].conn_error
    });
    tb.run(1000);
    assert!(!rose && !tb.ins[0].established, "established rose for a refused connect");
    assert!(tb.ins[0].conn_error, "conn_error is a level");
    assert!(tb.has_event(&format!("connect to 127.0.0.1:{port} refused")), "{:#?}", tb.events);
    let st = tb.toe.stats(0);
    assert_eq!((st.connects, st.errors), (0, 1));
    tb.assert_no_violations();
}

#[test]
fn active_open_times_out() {
    let (mut tb, _, _backlog) = connect_to_full_backlog();
    let t0 = Instant::now();
    let mut rose = false;
    tb.run_until("conn_error after the connect timeout", u64::MAX, |tb| {
        rose |= tb.ins[0].established;
        tb.ins[0].conn_error
    });
    let took = t0.elapsed();
    assert!(!rose, "established rose");
    assert!(took >= Duration::from_millis(300), "timed out after {took:?}, before connect_timeout");
    assert!(tb.has_event("timed out after 300ms"), "{:#?}", tb.events);
}

#[test]
fn close_cancels_pending_connect() {
    let (mut tb, port, _backlog) = connect_to_full_backlog();
    tb.run(2000);
    assert!(tb.toe.busy(), "a pending connect needs polling");
    assert_eq!(tb.toe.peer_addr(0).map(|a| a.port()), Some(port), "connect pending");
    tb.ul[0].req = Some(Req::Close);
    let end = Instant::now() + Duration::from_millis(600);
    while Instant::now() < end {
        tb.run(256);
        assert!(!tb.ins[0].established && !tb.ins[0].conn_error, "a cancelled open raised a flag");
    }
    assert!(tb.has_event(&format!("connect to 127.0.0.1:{port} cancelled")), "{:#?}", tb.events);
    assert!(!tb.toe.busy());
    assert_eq!(tb.toe.stats(0).errors, 0);
}

#[test]
fn passive_open_peer_connects() {
    const DOWN: u64 = 100_001;
    const UP: u64 = 77_777;
    let port = free_port();
    let mut tb = Tb::new(1, 64, net());
    tb.ul[0].req = Some(Req::Listen { port });
    tb.run_until("listening", 10_000, |tb| tb.toe.local_addr(0).is_some());
    assert_eq!(tb.toe.local_addr(0).unwrap().port(), port);
    assert!(!tb.toe.busy(), "listening needs no fast polling");
    let peer = thread::spawn(move || {
        let mut s = connect(port);
        let me = s.local_addr().unwrap().port();
        let mut r = s.try_clone().unwrap();
        let reader = thread::spawn(move || read_all(&mut r));
        send_pattern(&mut s, DOWN);
        s.shutdown(std::net::Shutdown::Write).unwrap();
        (me, reader.join().unwrap())
    });
    tb.run_until("established", MAX, |tb| tb.ins[0].established);
    assert!(tb.toe.local_addr(0).is_some());
    tb.ul[0].tx_total = UP;
    tb.ul[0].tx_enable = true;
    tb.ul[0].close_after_tx = true;
    tb.run_until("fully closed", MAX, |tb| !tb.ins[0].established);
    let (peer_port, got) = peer.join().expect("peer");
    assert_eq!(tb.ins[0].peer_port, peer_port, "peer_port is the connecting peer's port");
    assert!(tb.ins[0].peer_closed && !tb.ins[0].conn_error);
    tb.check_rx(0, DOWN);
    check_pattern("peer", &got, UP);
    assert!(tb.has_event(&format!("accepted 127.0.0.1:{peer_port} on 127.0.0.1:{port}")), "{:#?}", tb.events);
    tb.assert_no_violations();
}

/// Sessions listening on one port share it, as iperf's `-P` streams need
/// of several server sessions: each of three peers connecting to the port
/// gets a session of its own, every session receives its peer's bytes, and
/// once all three took a connection a fourth peer is refused.
#[test]
fn sessions_listening_on_one_port_each_take_one_connection() {
    const SESSIONS: usize = 3;
    let port = free_port();
    let mut tb = Tb::new(SESSIONS, 64, net());
    for s in 0..SESSIONS {
        tb.ul[s].req = Some(Req::Listen { port });
    }
    tb.run_until("listening", 10_000, |tb| (0..SESSIONS).all(|s| tb.toe.local_addr(s).is_some()));
    let sizes = [10_001u64, 20_002, 30_003];
    let peers: Vec<_> = sizes
        .iter()
        .map(|&n| {
            thread::spawn(move || {
                let mut c = connect(port);
                let me = c.local_addr().unwrap().port();
                send_pattern(&mut c, n);
                c.shutdown(std::net::Shutdown::Write).unwrap();
                (me, read_all(&mut c))
            })
        })
        .collect();
    tb.run_until("every session established", MAX, |tb| (0..SESSIONS).all(|s| tb.ins[s].established));
    tb.run_until("every peer closed", MAX, |tb| (0..SESSIONS).all(|s| tb.ins[s].peer_closed));
    let mut by_peer = Vec::new();
    for s in 0..SESSIONS {
        tb.ul[s].req = Some(Req::Close);
        by_peer.push(tb.ins[s].peer_port);
    }
    tb.run_until("fully closed", MAX, |tb| (0..SESSIONS).all(|s| !tb.ins[s].established));
    for (k, p) in peers.into_iter().enumerate() {
        let (me, _) = p.join().expect("peer");
        let s = by_peer.iter().position(|&q| q == me).unwrap_or_else(|| panic!("peer {k} ({me}) has no session"));
        tb.check_rx(s, sizes[k]);
    }
    let e = TcpStream::connect(("127.0.0.1", port)).expect_err("every listening session took its connection");
    assert_eq!(e.kind(), ErrorKind::ConnectionRefused);
    assert!(tb.has_event(&format!("listening on 127.0.0.1:{port} (with 2 other session(s))")), "{:#?}", tb.events);
    tb.assert_no_violations();
}

#[test]
fn close_cancels_listen() {
    let port = free_port();
    let mut tb = Tb::new(1, 64, net());
    tb.ul[0].req = Some(Req::Listen { port });
    tb.run_until("listening", 10_000, |tb| tb.toe.local_addr(0).is_some());
    tb.ul[0].req = Some(Req::Close);
    tb.run(1000);
    assert!(!tb.ins[0].established && !tb.ins[0].conn_error, "a cancelled listen raised a flag");
    assert!(tb.toe.local_addr(0).is_none());
    let e = TcpStream::connect(("127.0.0.1", port)).expect_err("nobody listens after the cancel");
    assert_eq!(e.kind(), ErrorKind::ConnectionRefused);
    assert!(tb.has_event(&format!("listen on 127.0.0.1:{port} cancelled")), "{:#?}", tb.events);
    // A close with nothing open: taken, no effect.
    let n = tb.all_events().len();
    tb.ul[0].req = Some(Req::Close);
    tb.run(1000);
    assert!(tb.ul[0].req.is_none(), "close taken");
    assert!(!tb.ins[0].established && !tb.ins[0].conn_error);
    assert_eq!(tb.all_events().len(), n, "no event for a close with nothing open");
    tb.assert_no_violations();
}

#[test]
fn listen_on_busy_port_fails() {
    let (_busy, port) = listener();
    let hint = "move it with --session-ports".to_string();
    let mut tb = Tb::new(1, 64, NetConfig { port_taken_hint: hint, ..net() });
    tb.ul[0].req = Some(Req::Listen { port });
    tb.run_until("conn_error", 1000, |tb| tb.ins[0].conn_error);
    assert!(!tb.ins[0].established);
    // One line naming the session, the port, why, and how to move it.
    let line = format!(
        "session 0: cannot listen on port {port} (127.0.0.1:{port}): another socket holds the port (Address already in use (os error 98)); move it with --session-ports"
    );
    assert!(tb.has_event(&line), "{:#?}", tb.events);
}

#[test]
fn busy_source_port_falls_back_to_ephemeral() {
    // Another socket listens on the source port the user logic asks for.
    let (_busy, busy_port) = listener();
    let (l, port) = listener();
    let peer = thread::spawn(move || accept(&l).1);
    let mut tb = Tb::new(1, 64, net());
    tb.connect_to(0, busy_port, port);
    tb.run_until("established", MAX, |tb| tb.ins[0].established || tb.ins[0].conn_error);
    assert!(tb.ins[0].established, "{:#?}", tb.all_events());
    let seen = peer.join().expect("peer");
    let local = tb.toe.local_addr(0).unwrap();
    assert_ne!(local.port(), busy_port);
    assert_eq!(seen, local, "the peer sees the ephemeral source port");
    assert!(
        tb.has_event(&format!("source port 127.0.0.1:{busy_port} unusable"))
            && tb.has_event(&format!("ephemeral port {}", local.port())),
        "{:#?}",
        tb.events
    );
}

#[test]
fn non_loopback_config_refused() {
    let cfg = NetConfig { bind: Ipv4Addr::new(10, 1, 2, 3), ..Default::default() };
    let e = HostToe::new(1, 64, cfg).unwrap_err();
    assert_eq!(e, Error::NotLoopback { field: "bind", addr: Ipv4Addr::new(10, 1, 2, 3) });
    let msg = e.to_string();
    assert!(msg.contains("10.1.2.3") && msg.contains("127.0.0.0/8") && msg.contains("bind"), "{msg}");
    let cfg = NetConfig { target: Ipv4Addr::new(192, 0, 2, 1), ..Default::default() };
    let e = HostToe::new(1, 64, cfg).unwrap_err();
    assert!(e.to_string().contains("target = 192.0.2.1"), "{e}");
    // Other loopback addresses are fine; buffers must hold a beat.
    let cfg =
        NetConfig { bind: Ipv4Addr::new(127, 0, 0, 2), target: Ipv4Addr::new(127, 1, 2, 3), ..Default::default() };
    assert!(HostToe::new(1, 64, cfg).is_ok());
    let cfg = NetConfig { rx_buffer: 32, ..Default::default() };
    assert!(matches!(HostToe::new(1, 64, cfg), Err(Error::Config(_))));
    assert!(matches!(HostToe::new(0, 64, NetConfig::default()), Err(Error::Config(_))));
    let d = NetConfig::default();
    assert_eq!((d.bind, d.target), (Ipv4Addr::LOCALHOST, Ipv4Addr::LOCALHOST));
}

#[test]
fn init_drops_connection() {
    let (l, port) = listener();
    let peer = thread::spawn(move || {
        let (mut s, _) = accept(&l);
        let mut b = [0u8; 16];
        s.read(&mut b).map_err(|e| e.kind())
    });
    let mut tb = Tb::new(1, 64, net());
    assert!(tb.toe.init_done(), "init_done is high after new");
    tb.connect_to(0, 0, port);
    tb.run_until("established", MAX, |tb| tb.ins[0].established);
    tb.init_pulse = true;
    tb.step(); // the edge with toe_init
    tb.step(); // the next drive shows its effect
    assert!(!tb.init_done, "init_done falls at once");
    assert!(tb.ins[0].conn_error && !tb.ins[0].established, "init drops the connection");
    // An open while not initialised is refused at once.
    tb.connect_to(0, 0, port);
    tb.step();
    tb.step();
    assert!(!tb.init_done);
    assert!(tb.ins[0].conn_error, "open while not initialised");
    assert!(tb.has_event("not initialised"), "{:#?}", tb.events);
    tb.run_until("init_done", INIT_CYCLES + 2, |tb| tb.init_done);
    assert_eq!(peer.join().expect("peer"), Err(ErrorKind::ConnectionReset), "the peer gets a reset");
    assert!(tb.has_event("toe_init: connection dropped"), "{:#?}", tb.events);
    assert_eq!(tb.toe.stats(0).errors, 2);
}

#[test]
fn open_on_live_connection_resets_it() {
    let (la, pa) = listener();
    let (lb, pb) = listener();
    let peer_a = thread::spawn(move || {
        let (mut s, _) = accept(&la);
        let mut b = [0u8; 16];
        s.read(&mut b).map_err(|e| e.kind())
    });
    let peer_b = thread::spawn(move || accept(&lb).1);
    let mut tb = Tb::new(1, 64, net());
    tb.connect_to(0, 0, pa);
    tb.run_until("established to A", MAX, |tb| tb.ins[0].established);
    assert_eq!(tb.ins[0].peer_port, pa);
    tb.connect_to(0, 0, pb);
    tb.step();
    tb.step();
    assert!(!tb.ins[0].established && tb.ins[0].peer_port == 0, "the open request drops the old connection at once");
    tb.run_until("established to B", MAX, |tb| tb.ins[0].established);
    assert_eq!(tb.ins[0].peer_port, pb);
    assert!(!tb.ins[0].conn_error);
    assert_eq!(peer_a.join().expect("peer A"), Err(ErrorKind::ConnectionReset), "A gets a reset");
    assert_eq!(peer_b.join().expect("peer B"), tb.toe.local_addr(0).unwrap());
    assert!(tb.has_event("resetting it"), "{:#?}", tb.events);
}

#[test]
fn peer_reset_raises_conn_error() {
    let (l, port) = listener();
    let (go_tx, go_rx) = mpsc::channel::<()>();
    let peer = thread::spawn(move || {
        let (mut s, _) = accept(&l);
        send_pattern(&mut s, 1000);
        go_rx.recv_timeout(WALL_LIMIT).expect("go");
        reset(s);
    });
    let mut tb = Tb::new(1, 64, net());
    tb.ul[0].rx_ready = false; // keep the bytes buffered
    tb.connect_to(0, 0, port);
    tb.run_until("established and 1000 bytes buffered", MAX, |tb| {
        tb.ins[0].established && tb.toe.stats(0).rx_bytes == 1000
    });
    tb.run(2);
    assert!(tb.ins[0].rx_tvalid, "a beat waits");
    go_tx.send(()).unwrap();
    peer.join().expect("peer");
    tb.run_until("conn_error after the reset", MAX, |tb| tb.ins[0].conn_error);
    assert!(!tb.ins[0].established && !tb.ins[0].rx_tvalid, "buffered data is discarded");
    tb.run(1000);
    assert!(!tb.ins[0].rx_tvalid && tb.ul[0].rx.is_empty());
    assert!(tb.has_event("connection reset by peer"), "{:#?}", tb.events);
    assert!(!tb.toe.busy());
}

/// The window scale `s` announced and the MSS it uses (tcpi_rcv_wscale, tcpi_snd_mss).
fn own_tcp_info(s: &TcpStream) -> (u8, u32) {
    use std::os::fd::AsRawFd;
    // SAFETY: tcp_info is plain old data; getsockopt writes at most `len` bytes.
    unsafe {
        let mut info: libc::tcp_info = std::mem::zeroed();
        let mut len = std::mem::size_of::<libc::tcp_info>() as libc::socklen_t;
        let r = libc::getsockopt(
            s.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            (&mut info as *mut libc::tcp_info).cast(),
            &mut len,
        );
        assert_eq!(r, 0, "TCP_INFO");
        (info.tcpi_snd_rcv_wscale >> 4, info.tcpi_snd_mss)
    }
}

#[test]
fn peer_info_is_plausible() {
    // A peer with a smaller receive buffer than ours announces a smaller
    // window scale, so the test tells the peer's shift from our own.
    use socket2::{Domain, Socket, Type};
    let l = Socket::new(Domain::IPV4, Type::STREAM, None).unwrap();
    l.set_recv_buffer_size(256 << 10).unwrap();
    l.bind(&"127.0.0.1:0".parse::<SocketAddr>().unwrap().into()).unwrap();
    l.listen(4).unwrap();
    let l: std::net::TcpListener = l.into();
    let port = l.local_addr().unwrap().port();
    let (info_tx, info_rx) = mpsc::channel();
    let peer = thread::spawn(move || {
        let (s, _) = accept(&l);
        info_tx.send(own_tcp_info(&s)).unwrap();
        thread::sleep(Duration::from_millis(100));
        drop(s);
    });
    let mut tb = Tb::new(1, 64, net());
    tb.connect_to(0, 0, port);
    tb.run_until("established", MAX, |tb| tb.ins[0].established);
    let (peer_ws, peer_snd_mss) = info_rx.recv_timeout(WALL_LIMIT).expect("peer TCP_INFO");
    let i = &tb.ins[0];
    assert_eq!(i.peer_port, port);
    assert!((536..=65495).contains(&i.peer_mss), "peer_mss {}", i.peer_mss);
    assert!(
        (i.peer_mss as u32).abs_diff(peer_snd_mss) <= 64,
        "peer_mss {} vs the peer's own {peer_snd_mss}",
        i.peer_mss
    );
    assert_eq!(i.peer_window_scale, peer_ws, "peer_window_scale is the shift the peer announced");
    assert!((1..=14).contains(&i.peer_window_scale), "peer_window_scale {}", i.peer_window_scale);
    assert!(tb.has_event(&format!("(peer mss {}, window scale {})", i.peer_mss, i.peer_window_scale)));
    peer.join().unwrap();
    // The fields keep their values after the connection ends, until the next open request.
    tb.run_until("peer_closed", MAX, |tb| tb.ins[0].peer_closed);
    assert_eq!(tb.ins[0].peer_port, port);
    assert!(tb.ins[0].peer_mss > 0);
    let ours = tb.toe.local_addr(0);
    tb.connect_to(0, 0, free_port());
    tb.run(2);
    assert_eq!(
        (tb.ins[0].peer_port, tb.ins[0].peer_mss, tb.ins[0].peer_window_scale),
        (0, 0, 0),
        "cleared by the next open ({ours:?})"
    );
}

#[test]
fn wait_wakes_on_socket_activity() {
    let port = free_port();
    let mut tb = Tb::new(1, 64, net());
    // Nothing open: wait sleeps for its timeout.
    let t = Instant::now();
    assert!(!tb.toe.busy());
    assert!(!tb.toe.wait(Duration::from_millis(30)));
    assert!(t.elapsed() >= Duration::from_millis(30));
    tb.ul[0].req = Some(Req::Listen { port });
    tb.run_until("listening", 10_000, |tb| tb.toe.local_addr(0).is_some());
    assert!(!tb.toe.busy());
    let peer = thread::spawn(move || {
        thread::sleep(Duration::from_millis(50));
        connect(port)
    });
    let t = Instant::now();
    assert!(tb.toe.wait(Duration::from_secs(10)), "a connecting peer wakes wait");
    assert!(t.elapsed() < Duration::from_secs(5));
    tb.run_until("established", MAX, |tb| tb.ins[0].established);
    let mut s = peer.join().expect("peer");
    tb.run(256);
    assert!(!tb.toe.busy(), "an idle connection needs no fast polling");
    assert!(!tb.toe.wait(Duration::from_millis(20)));
    std::io::Write::write_all(&mut s, b"x").unwrap();
    assert!(tb.toe.wait(Duration::from_secs(10)), "a byte from the peer wakes wait");
    tb.run(256);
    assert!(tb.toe.busy(), "a buffered partial beat needs polling (push timeout)");
}
