//! Helpers of the loopback tests: run the built tools as processes with
//! bounded waits, and small in-test peers that misbehave on purpose.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

pub const DATATEST: &str = env!("CARGO_BIN_EXE_tcpdatatest");
pub const TXRX: &str = env!("CARGO_BIN_EXE_tcp_client_txrx_single");
pub const LATENCY: &str = env!("CARGO_BIN_EXE_tcp_latency");

/// Upper bound on any single tool run in these tests.
pub const RUN_LIMIT: Duration = Duration::from_secs(60);

/// A finished tool run.
#[derive(Debug)]
pub struct Outcome {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// A tool process whose output is collected on background threads.
pub struct Running {
    child: Child,
    lines: mpsc::Receiver<String>,
    stdout: Vec<String>,
    stderr: thread::JoinHandle<String>,
}

pub fn spawn(tool: &str, args: &[&str]) -> Running {
    let mut child = Command::new(tool)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tool starts");
    let out = child.stdout.take().expect("stdout piped");
    let mut err = child.stderr.take().expect("stderr piped");
    let (tx, lines) = mpsc::channel();
    thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let stderr = thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    Running { child, lines, stdout: Vec::new(), stderr }
}

impl Running {
    /// Waits (bounded) for a stdout line containing `needle` and returns it.
    pub fn wait_line(&mut self, needle: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) => {
                    self.stdout.push(l.clone());
                    if l.contains(needle) {
                        return l;
                    }
                }
                Err(_) => {
                    let _ = self.child.kill();
                    panic!("no line with {needle:?}; stdout so far: {:?}", self.stdout);
                }
            }
        }
    }

    /// Port of the first "listening on IP:PORT" line.
    pub fn listening_port(&mut self) -> u16 {
        let line = self.wait_line("listening on ");
        line.rsplit(':').next().and_then(|p| p.trim().parse().ok()).expect("port in listening line")
    }

    /// Waits (bounded by [`RUN_LIMIT`]) for the process to end.
    pub fn finish(mut self) -> Outcome {
        let deadline = Instant::now() + RUN_LIMIT;
        let status = loop {
            if let Some(s) = self.child.try_wait().expect("try_wait") {
                break s;
            }
            if Instant::now() >= deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("tool still running after {RUN_LIMIT:?}; stdout so far: {:?}", self.stdout);
            }
            thread::sleep(Duration::from_millis(5));
        };
        // The reader thread ends at EOF, which follows the exit.
        while let Ok(l) = self.lines.recv_timeout(Duration::from_secs(5)) {
            self.stdout.push(l);
        }
        let stderr = self.stderr.join().expect("stderr reader");
        Outcome { code: status.code().unwrap_or(-1), stdout: self.stdout.join("\n"), stderr }
    }
}

/// Runs a tool to completion.
pub fn run(tool: &str, args: &[&str]) -> Outcome {
    spawn(tool, args).finish()
}

/// Starts a server-side tool on an ephemeral port and returns it with the port.
pub fn server(tool: &str, args: &[&str]) -> (Running, u16) {
    let mut s = spawn(tool, args);
    let port = s.listening_port();
    (s, port)
}

/// An echo peer ([`peer`]) answering every `request`-byte request with
/// `len` bytes that go on with the response stream's pattern (so every byte
/// the tool reads is right), until the initiator closes; then it closes too,
/// as an echo does. A `len` other than the tool's response size is an echo
/// of the wrong length.
pub fn echo_answering(request: usize, len: usize) -> (SocketAddr, thread::JoinHandle<()>) {
    peer(move |mut s| {
        use std::io::{Read, Write};
        let (mut req, mut sent) = (vec![0u8; request], 0u64);
        let mut resp = vec![0u8; len];
        while s.read_exact(&mut req).is_ok() {
            pattern::fill(&mut resp, sent);
            if s.write_all(&resp).is_err() {
                return;
            }
            sent += len as u64;
        }
    })
}

/// A one-connection peer on an ephemeral loopback port: `serve` runs on the
/// accepted stream in a thread; the accept is bounded in time.
pub fn peer<F>(serve: F) -> (SocketAddr, thread::JoinHandle<()>)
where
    F: FnOnce(TcpStream) + Send + 'static,
{
    let l = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = l.local_addr().expect("addr");
    let h = thread::spawn(move || {
        l.set_nonblocking(true).expect("nonblocking");
        let deadline = Instant::now() + Duration::from_secs(20);
        let s = loop {
            match l.accept() {
                Ok((s, _)) => break s,
                Err(_) if Instant::now() < deadline => thread::sleep(Duration::from_millis(2)),
                Err(e) => panic!("peer: no connection: {e}"),
            }
        };
        s.set_nonblocking(false).expect("blocking");
        s.set_read_timeout(Some(Duration::from_secs(20))).expect("timeout");
        s.set_write_timeout(Some(Duration::from_secs(20))).expect("timeout");
        serve(s)
    });
    (addr, h)
}

/// The first `len` bytes of the incremental pattern.
pub fn pattern_bytes(len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    pattern::fill(&mut v, 0);
    v
}

/// Reads until EOF or error (bounded by the stream's read timeout); returns the count.
pub fn drain(s: &mut TcpStream) -> u64 {
    let mut buf = vec![0u8; 64 << 10];
    let mut n = 0u64;
    loop {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => return n,
            Ok(k) => n += k as u64,
        }
    }
}

/// Writes all of `data`, ignoring a peer that stops reading.
pub fn send_all(s: &mut TcpStream, data: &[u8]) {
    let _ = s.write_all(data);
}

/// Closes `s` with a TCP reset instead of a FIN.
pub fn reset(s: TcpStream) {
    socket2::SockRef::from(&s).set_linger(Some(Duration::ZERO)).expect("linger 0");
    drop(s);
}

/// Binds `count` consecutive free loopback ports (bounded number of tries).
pub fn consecutive_listeners(count: u16) -> Vec<TcpListener> {
    for _ in 0..200 {
        let first = TcpListener::bind("127.0.0.1:0").expect("bind");
        let base = first.local_addr().expect("addr").port();
        if u32::from(base) + u32::from(count) > 65536 {
            continue;
        }
        let mut ls = vec![first];
        for k in 1..count {
            match TcpListener::bind(("127.0.0.1", base + k)) {
                Ok(l) => ls.push(l),
                Err(_) => break,
            }
        }
        if ls.len() == usize::from(count) {
            return ls;
        }
    }
    panic!("no {count} consecutive free ports");
}
