//! A client that pipelines reads and never reads the answers (issue 51,
//! item 9): the server's write limit closes it, and other clients are served
//! while it is stuck and after, also when stuck clients fill the connection
//! limit.

mod common;

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use common::wait_until;
use etherbone::codec::{Packet, Record};
use etherbone::{
    serve_requests, spawn_server_with, BusError, Client, RegisterBus, ServerHandle, ServerInfo, ServerOptions,
};

/// The server's write limit in these tests: long enough that a stuck client
/// is still open when the test looks, short enough for a quick test.
const WRITE_LIMIT: Duration = Duration::from_secs(3);
/// How long the stuck client's write makes no progress before it stops:
/// the server's connection thread then waits in its own write.
const BLOCKED: Duration = Duration::from_secs(1);
const TIMEOUT: Duration = Duration::from_secs(5);
const VALUE: u32 = 0x5a5a_5a5a;

/// Answers every read with [`VALUE`] and keeps nothing, so that a flood of
/// reads costs the test no memory.
struct Constant;

impl RegisterBus for Constant {
    fn read32(&mut self, _addr: u32) -> Result<u32, BusError> {
        Ok(VALUE)
    }
    fn write32(&mut self, _addr: u32, _value: u32) -> Result<(), BusError> {
        Ok(())
    }
}

/// A server whose only limits are the write limit and `max_connections`:
/// no idle limit, so that only the write limit can close a stuck client.
fn start(max_connections: usize) -> (ServerHandle, JoinHandle<Constant>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    let info = ServerInfo::for_addr(ServerInfo::DEFAULT_COMM, listener.local_addr().unwrap()).unwrap();
    let opts = ServerOptions { idle_timeout: None, write_timeout: WRITE_LIMIT, max_connections, register_span: None };
    let (server, requests) = spawn_server_with(listener, info, opts).expect("spawn server");
    (server, serve_requests(requests, Constant))
}

/// Connects and sends records of 255 reads, never reading a byte, until the
/// server takes no more (its answers fill both sockets' buffers, then its
/// requests do): no byte leaves for [`BLOCKED`], longer than a server busy
/// on a loaded machine would take to read some. Returns the socket, still
/// open, and the bytes sent.
fn stuck_client(addr: SocketAddr) -> (TcpStream, usize) {
    let s = TcpStream::connect(addr).unwrap();
    s.set_write_timeout(Some(BLOCKED)).unwrap();
    let record = Packet::new(vec![Record::reads((0..255).map(|k| 4 * k))]).encode().unwrap();
    let started = Instant::now();
    let mut sent = 0usize;
    loop {
        assert!(started.elapsed() < Duration::from_secs(20), "the server still takes requests after {sent} bytes");
        let mut rest = &record[..];
        while !rest.is_empty() {
            match (&s).write(rest) {
                Ok(n) => {
                    rest = &rest[n..];
                    sent += n;
                }
                Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => return (s, sent),
                Err(e) => panic!("the stuck client's write failed after {sent} bytes: {e}"),
            }
        }
    }
}

/// True once the server has closed `s`: the queued answers drain, then end
/// of stream (or a reset, as the server had requests left unread).
fn closed_by_server(mut s: TcpStream) -> bool {
    s.set_read_timeout(Some(TIMEOUT)).unwrap();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::ConnectionReset => return true,
            Err(e) => {
                eprintln!("the stuck client's socket: {e}");
                return false;
            }
        }
    }
}

#[test]
fn clients_that_never_read_are_closed_within_the_write_limit_and_others_are_served() {
    let (server, _sim) = start(ServerOptions::DEFAULT_MAX_CONNECTIONS);
    let addr = server.local_addr();
    let mut good = Client::connect(addr, TIMEOUT).unwrap();
    assert_eq!(good.read32(0x10), Ok(VALUE));

    // Three at once, each until the server takes no more from it.
    let floods: Vec<_> = (0..3).map(|_| thread::spawn(move || stuck_client(addr))).collect();
    let stuck: Vec<(TcpStream, usize)> = floods.into_iter().map(|f| f.join().unwrap()).collect();
    let stuck_at = Instant::now();
    eprintln!("the stuck clients sent {:?} bytes of reads", stuck.iter().map(|s| s.1).collect::<Vec<_>>());
    // Served while the other connections' threads wait to write.
    assert_eq!(good.read32(0x14), Ok(VALUE));
    good.write32(0x18, 1).unwrap();

    // No idle limit here: only the write limit closes them.
    wait_until(WRITE_LIMIT + TIMEOUT, "the stuck connections closed", || server.connections() == 1);
    let closed_after = stuck_at.elapsed();
    assert!(closed_after < WRITE_LIMIT + Duration::from_secs(3), "closed {closed_after:?} after the clients stopped");
    for (s, _) in stuck {
        assert!(closed_by_server(s), "each stuck client's socket ends: the server closed it");
    }
    assert_eq!(good.read32(0x1c), Ok(VALUE), "served after");
    assert_eq!(server.connections(), 1);
}

#[test]
fn a_stuck_client_in_the_last_connection_place_locks_a_new_client_out_only_until_the_write_limit() {
    let (server, _sim) = start(2);
    let addr = server.local_addr();
    let mut good = Client::connect(addr, TIMEOUT).unwrap();
    let (stuck, _) = stuck_client(addr);
    // The server has waited to write to it for about BLOCKED: within the limit.
    let full_at = Instant::now();
    assert_eq!(server.connections(), 2, "the stuck client and the good one fill the limit");
    assert!(Client::connect(addr, TIMEOUT).is_err(), "a third client is refused while the stuck one holds its place");
    assert_eq!(good.read32(0x20), Ok(VALUE), "a client already connected is served meanwhile");

    // Within the write limit the stuck client is closed and a new client gets in.
    let mut late = None;
    wait_until(WRITE_LIMIT + TIMEOUT, "a new client connected and served", || {
        match Client::connect(addr, TIMEOUT) {
            Ok(mut c) => {
                if c.read32(0x24) == Ok(VALUE) {
                    late = Some(c);
                }
            }
            Err(_) => thread::sleep(Duration::from_millis(50)),
        }
        late.is_some()
    });
    let waited = full_at.elapsed();
    assert!(waited < WRITE_LIMIT + Duration::from_secs(3), "locked out for {waited:?}");
    assert!(closed_by_server(stuck), "the stuck client was closed");
    assert_eq!(server.connections(), 2, "the good client and the new one");
    assert_eq!(good.read32(0x28), Ok(VALUE));
}

#[test]
fn a_write_limit_of_zero_is_refused() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let info = ServerInfo::for_addr(ServerInfo::DEFAULT_COMM, listener.local_addr().unwrap()).unwrap();
    let opts = ServerOptions { write_timeout: Duration::ZERO, ..ServerOptions::default() };
    let e = spawn_server_with(listener, info, opts).err().expect("a zero write limit");
    assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
    assert_eq!(e.to_string(), "write_timeout must be above 0");
}
