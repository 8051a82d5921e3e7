//! The data path: connect or accept, send and/or receive one transfer per
//! connection, verify the incremental pattern in place.
//!
//! One buffer per direction is allocated per session and reused for every
//! chunk; the sender refills it from [`pattern::Generator`] (or leaves the
//! zeros of the dummy pattern), the receiver verifies each `read` in place
//! with [`pattern::Checker`]. Progress is published through relaxed atomics
//! that a reporter thread samples once a second.

use std::fmt;
use std::io::{self, ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use pattern::{Checker, Generator, Mismatch};

/// Process exit status of each outcome (documented in pc_tools/README.md).
pub mod exit {
    pub const OK: i32 = 0;
    pub const USAGE: i32 = 2;
    pub const CONNECT: i32 = 3;
    pub const RESET: i32 = 4;
    pub const CLOSED_EARLY: i32 = 5;
    pub const TOO_MUCH: i32 = 6;
    pub const MISMATCH: i32 = 7;
    /// `tcp_latency --plot`: the run ended, its picture could not be written.
    pub const PLOT: i32 = 8;
}

/// What a session was doing when it failed, for messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    /// Writing its data.
    Tx,
    /// Reading the peer's data.
    Rx,
    /// A sending-only session, everything sent, waiting for the peer's close.
    Close,
}

impl Way {
    fn doing(self) -> &'static str {
        match self {
            Way::Tx => "sending",
            Way::Rx => "receiving",
            Way::Close => "waiting for the peer to close",
        }
    }
}

/// How far each direction of a session's plan got: `(done, total)` bytes of
/// the directions the plan uses, so a message says what a tool sent, what
/// it received, or both for a full-duplex session.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub sent: Option<(u64, u64)>,
    pub received: Option<(u64, u64)>,
}

impl Counts {
    /// The counts of `plan` as `progress` has them now.
    pub fn of(plan: &Plan, progress: &Progress) -> Self {
        let dir = |total: u64, done: &AtomicU64| (total > 0).then(|| (done.load(Ordering::Relaxed), total));
        Counts { sent: dir(plan.tx_len, &progress.tx), received: dir(plan.rx_len, &progress.rx) }
    }

    /// "sending N of M bytes and receiving K of L bytes" (the plan's directions).
    fn progressive(&self) -> String {
        self.join("sending", "receiving", " and ")
    }

    /// "sent N of M bytes, received K of L bytes" (the plan's directions).
    fn past(&self) -> String {
        self.join("sent", "received", ", ")
    }

    fn join(&self, tx: &str, rx: &str, sep: &str) -> String {
        let parts: Vec<String> = [(tx, self.sent), (rx, self.received)]
            .into_iter()
            .filter_map(|(verb, c)| c.map(|(done, total)| format!("{verb} {done} of {total} bytes")))
            .collect();
        if parts.is_empty() {
            "nothing to transfer".to_string()
        } else {
            parts.join(sep)
        }
    }
}

/// Everything that can end a session unsuccessfully.
#[derive(Debug)]
pub enum TransferError {
    /// The server refused the connection.
    Refused { addr: SocketAddr },
    /// No answer to the connection request within the timeout.
    ConnectTimeout { addr: SocketAddr, after: Duration },
    /// Any other failure to connect.
    Connect { addr: SocketAddr, err: io::Error },
    /// The listening socket could not be opened.
    Listen { addr: SocketAddr, err: io::Error },
    /// No client connected within the timeout.
    AcceptTimeout { addr: SocketAddr, after: Duration },
    /// The peer reset the connection (or it broke) mid-transfer.
    Reset { way: Way, counts: Counts },
    /// A read or write waited longer than the timeout.
    Stalled { way: Way, counts: Counts, after: Duration },
    /// Any other socket error mid-transfer.
    Io { way: Way, counts: Counts, err: io::Error },
    /// The peer closed before `bytelen` bytes arrived.
    ClosedEarly { received: u64, expected: u64 },
    /// The peer sent more than `bytelen` bytes.
    TooMuch { received: u64, expected: u64 },
    /// The first received byte that differs from the incremental pattern.
    Mismatch(Mismatch),
}

impl TransferError {
    /// The process exit status for this error.
    pub fn exit_code(&self) -> i32 {
        use TransferError::*;
        match self {
            Refused { .. } | ConnectTimeout { .. } | Connect { .. } | Listen { .. } | AcceptTimeout { .. } => {
                exit::CONNECT
            }
            Reset { .. } | Stalled { .. } | Io { .. } => exit::RESET,
            ClosedEarly { .. } => exit::CLOSED_EARLY,
            TooMuch { .. } => exit::TOO_MUCH,
            Mismatch(_) => exit::MISMATCH,
        }
    }
}

fn secs(d: Duration) -> String {
    format!("{} s", d.as_secs_f64())
}

impl fmt::Display for TransferError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use TransferError::*;
        match self {
            Refused { addr } => write!(f, "connect to {addr} failed: connection refused (is the server listening?)"),
            ConnectTimeout { addr, after } => write!(f, "connect to {addr} timed out after {}", secs(*after)),
            Connect { addr, err } => write!(f, "connect to {addr} failed: {err}"),
            Listen { addr, err } => write!(f, "cannot listen on {addr}: {err}"),
            AcceptTimeout { addr, after } => write!(f, "no client connected to {addr} within {}", secs(*after)),
            Reset { counts, .. } => write!(f, "connection reset by peer after {}", counts.progressive()),
            Stalled { way, counts, after } => write!(
                f,
                "connection stalled: no progress for {} while {} ({})",
                secs(*after),
                way.doing(),
                counts.past()
            ),
            Io { way, counts, err } => write!(f, "socket error while {} ({}): {err}", way.doing(), counts.past()),
            ClosedEarly { received, expected } => {
                write!(f, "peer closed early: received {received} bytes, expected {expected} bytes")
            }
            TooMuch { received, expected } => write!(
                f,
                "peer sent more data than expected: received at least {received} bytes, expected {expected} bytes"
            ),
            Mismatch(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for TransferError {}

/// What one session does on its connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Bytes to send, then shut down the sending side (0: send nothing).
    pub tx_len: u64,
    /// Bytes the peer must send before closing (0: any byte is an error).
    pub rx_len: u64,
    /// Send the incremental pattern and verify it on receive (else zeros, unverified).
    pub pattern: bool,
    /// Application buffer size of each direction.
    pub buffer: usize,
    /// Bound on every blocking read and write.
    pub timeout: Option<Duration>,
    /// Fault injection: the stream offset whose byte is sent with its lowest bit flipped.
    pub corrupt: Option<u64>,
}

/// Byte counts a reporter thread reads while the session runs.
#[derive(Debug, Default)]
pub struct Progress {
    pub tx: AtomicU64,
    pub rx: AtomicU64,
}

/// A finished direction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Leg {
    pub bytes: u64,
    /// From the session start to the last byte sent (after shutdown) or to
    /// the peer's close (receive).
    pub elapsed: Duration,
}

impl Leg {
    /// Throughput in MB/s (10^6 bytes per second), if the time is long
    /// enough to give one ([`MIN_RATE_TIME`]).
    pub fn mb_per_s(&self) -> Option<f64> {
        mb_per_s(self.bytes, self.elapsed)
    }
}

/// The shortest time a rate is given for: below it the time says more
/// about the start and end of the measurement (a send that only filled the
/// kernel's buffers, a thread waking up) than about the transfer.
pub const MIN_RATE_TIME: Duration = Duration::from_millis(1);

/// Throughput in MB/s (10^6 bytes per second), or `None` when `elapsed` is
/// shorter than [`MIN_RATE_TIME`].
pub fn mb_per_s(bytes: u64, elapsed: Duration) -> Option<f64> {
    (elapsed >= MIN_RATE_TIME).then(|| bytes as f64 / elapsed.as_secs_f64() / 1e6)
}

/// A successful session.
#[derive(Clone, Debug)]
pub struct SessionReport {
    pub local: SocketAddr,
    pub peer: SocketAddr,
    pub start: Instant,
    pub end: Instant,
    /// Present when the plan sends.
    pub tx: Option<Leg>,
    /// Present when the plan receives.
    pub rx: Option<Leg>,
}

/// Connects to `addr`, bounded by `timeout`.
pub fn connect(addr: SocketAddr, timeout: Option<Duration>) -> Result<TcpStream, TransferError> {
    let result = match timeout {
        Some(t) => TcpStream::connect_timeout(&addr, t),
        None => TcpStream::connect(addr),
    };
    result.map_err(|err| match err.kind() {
        ErrorKind::ConnectionRefused => TransferError::Refused { addr },
        ErrorKind::TimedOut | ErrorKind::WouldBlock => {
            TransferError::ConnectTimeout { addr, after: timeout.unwrap_or_default() }
        }
        _ => TransferError::Connect { addr, err },
    })
}

/// Opens a listening socket on `addr` (port 0 picks a free port).
pub fn listen(addr: SocketAddr) -> Result<TcpListener, TransferError> {
    TcpListener::bind(addr).map_err(|err| TransferError::Listen { addr, err })
}

/// Waits for one client, bounded by `timeout`.
pub fn accept(listener: &TcpListener, timeout: Option<Duration>) -> Result<TcpStream, TransferError> {
    let addr = listener.local_addr().map_err(|err| TransferError::Listen { addr: unspecified(), err })?;
    let listen_err = |err| TransferError::Listen { addr, err };
    let Some(limit) = timeout else {
        return listener.accept().map(|(s, _)| s).map_err(listen_err);
    };
    // std has no accept timeout: poll a non-blocking listener, briefly sleeping.
    let deadline = Instant::now() + limit;
    listener.set_nonblocking(true).map_err(listen_err)?;
    let stream = loop {
        match listener.accept() {
            Ok((s, _)) => break s,
            Err(e) if e.kind() == ErrorKind::WouldBlock || e.kind() == ErrorKind::Interrupted => {
                if Instant::now() >= deadline {
                    return Err(TransferError::AcceptTimeout { addr, after: limit });
                }
                thread::sleep(Duration::from_millis(2));
            }
            Err(e) => return Err(listen_err(e)),
        }
    };
    stream.set_nonblocking(false).map_err(listen_err)?;
    Ok(stream)
}

fn unspecified() -> SocketAddr {
    SocketAddr::from(([0, 0, 0, 0], 0))
}

/// Runs `plan` on a connected stream: sending and receiving at the same time
/// when it does both, then closes the connection.
pub fn run_session(stream: TcpStream, plan: &Plan, progress: &Progress) -> Result<SessionReport, TransferError> {
    let start = Instant::now();
    let io_err = |err| TransferError::Io { way: Way::Rx, counts: Counts::of(plan, progress), err };
    let local = stream.local_addr().map_err(io_err)?;
    let peer = stream.peer_addr().map_err(io_err)?;
    stream.set_read_timeout(plan.timeout).map_err(io_err)?;
    stream.set_write_timeout(plan.timeout).map_err(io_err)?;

    let (tx, rx) = if plan.tx_len > 0 && plan.rx_len > 0 {
        // Full duplex: send on a second thread; both share the socket by reference.
        thread::scope(|s| {
            let sender = s.spawn(|| send(&stream, plan, progress, start));
            let rx = receive(&stream, plan, progress, start);
            if rx.is_err() {
                // Wake the sender at once instead of letting it wait for the timeout.
                let _ = stream.shutdown(Shutdown::Both);
            }
            let tx = sender.join().unwrap_or_else(|_| {
                Err(TransferError::Io {
                    way: Way::Tx,
                    counts: Counts::of(plan, progress),
                    err: io::Error::other("sender thread panicked"),
                })
            });
            (tx.map(Some), rx.map(Some))
        })
    } else if plan.tx_len > 0 {
        let tx = send(&stream, plan, progress, start);
        // Wait for the peer to close after reading everything: the transfer
        // only succeeded once the receiver has all of it. Any data it sends
        // back on a transmit-only connection is an error.
        let rx = if tx.is_ok() { receive(&stream, plan, progress, start).map(|_| None) } else { Ok(None) };
        (tx.map(Some), rx)
    } else {
        (Ok(None), receive(&stream, plan, progress, start).map(Some))
    };
    // The receive error wins: it is either a data error (more telling than
    // the send error it causes) or the reason the sender was woken up above.
    let (tx, rx) = match (tx, rx) {
        (_, Err(e)) | (Err(e), _) => return Err(e),
        (Ok(tx), Ok(rx)) => (tx, rx),
    };
    drop(stream);
    Ok(SessionReport { local, peer, start, end: Instant::now(), tx, rx })
}

/// The error of a failed read or write while `way`, with how far both
/// directions of the plan got.
fn classify(err: io::Error, way: Way, plan: &Plan, progress: &Progress) -> TransferError {
    let counts = Counts::of(plan, progress);
    match err.kind() {
        // NotConnected: the peer's reset arrived before our shutdown (a
        // loaded host can deschedule us between the last write and it).
        ErrorKind::ConnectionReset
        | ErrorKind::BrokenPipe
        | ErrorKind::ConnectionAborted
        | ErrorKind::NotConnected
        | ErrorKind::UnexpectedEof => TransferError::Reset { way, counts },
        ErrorKind::WouldBlock | ErrorKind::TimedOut => {
            TransferError::Stalled { way, counts, after: plan.timeout.unwrap_or_default() }
        }
        _ => TransferError::Io { way, counts, err },
    }
}

/// Sends `plan.tx_len` bytes from one reused buffer, then shuts down the
/// sending side.
fn send(mut stream: &TcpStream, plan: &Plan, progress: &Progress, start: Instant) -> Result<Leg, TransferError> {
    let total = plan.tx_len;
    let cap = (plan.buffer as u64).min(total) as usize;
    // Zeros are the dummy pattern: written once, never refilled.
    let mut buf = vec![0u8; cap];
    let mut gen = Generator::new(0);
    let mut sent = 0u64;
    let (mut pos, mut filled) = (0usize, 0usize);
    while sent < total {
        if pos == filled {
            filled = (total - sent).min(cap as u64) as usize;
            if plan.pattern {
                gen.fill_next(&mut buf[..filled]);
                // Refilled for every chunk, so the flipped bit stays in this one.
                if let Some(at) = plan.corrupt.filter(|at| (sent..sent + filled as u64).contains(at)) {
                    buf[(at - sent) as usize] ^= 1;
                }
            }
            pos = 0;
        }
        match stream.write(&buf[pos..filled]) {
            Ok(0) => return Err(TransferError::Reset { way: Way::Tx, counts: Counts::of(plan, progress) }),
            Ok(n) => {
                pos += n;
                sent += n as u64;
                progress.tx.store(sent, Ordering::Relaxed);
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(classify(e, Way::Tx, plan, progress)),
        }
    }
    stream.shutdown(Shutdown::Write).map_err(|e| classify(e, Way::Tx, plan, progress))?;
    Ok(Leg { bytes: sent, elapsed: start.elapsed() })
}

/// Receives until the peer closes, verifying each chunk in place; the count
/// must equal `plan.rx_len`.
fn receive(mut stream: &TcpStream, plan: &Plan, progress: &Progress, start: Instant) -> Result<Leg, TransferError> {
    let expected = plan.rx_len;
    // A transmit-only session still reads (to see the peer's close): a small
    // buffer is enough for that.
    let (cap, way) = if expected == 0 { (4096, Way::Close) } else { (plan.buffer, Way::Rx) };
    let mut buf = vec![0u8; cap];
    let mut checker = Checker::new(0);
    let mut received = 0u64;
    loop {
        let n = match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(classify(e, way, plan, progress)),
        };
        let in_range = (expected - received).min(n as u64) as usize;
        if plan.pattern {
            checker.check_next(&buf[..in_range]).map_err(TransferError::Mismatch)?;
        }
        received += n as u64;
        progress.rx.store(received, Ordering::Relaxed);
        if in_range < n {
            return Err(TransferError::TooMuch { received, expected });
        }
    }
    if received < expected {
        return Err(TransferError::ClosedEarly { received, expected });
    }
    Ok(Leg { bytes: received, elapsed: start.elapsed() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair() -> (TcpStream, TcpStream) {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let c = TcpStream::connect(l.local_addr().unwrap()).unwrap();
        let (s, _) = l.accept().unwrap();
        (c, s)
    }

    fn plan(tx_len: u64, rx_len: u64) -> Plan {
        Plan { tx_len, rx_len, pattern: true, buffer: 64 << 10, timeout: Some(Duration::from_secs(10)), corrupt: None }
    }

    /// The peer resets the connection after taking every byte but before
    /// the sender's shutdown: shutdown fails with ENOTCONN, which is still
    /// the peer's reset (exit 4), not an unknown I/O error.
    #[test]
    fn a_reset_before_the_shutdown_is_a_reset() {
        let (c, s) = pair();
        socket2::SockRef::from(&s).set_linger(Some(Duration::ZERO)).unwrap();
        drop(s);
        c.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let seen = (&c).read(&mut [0u8; 1]).expect_err("the reset arrives");
        assert_eq!(seen.kind(), ErrorKind::ConnectionReset, "{seen}");
        let err = c.shutdown(Shutdown::Write).expect_err("shutdown after a reset fails");
        let progress = Progress::default();
        let classified = classify(err, Way::Tx, &plan(1_000, 0), &progress);
        assert!(matches!(classified, TransferError::Reset { way: Way::Tx, .. }), "{classified}");
    }

    /// A message names what the session did in each direction of its plan
    /// (issue 25: a transmit test's reset said "after receiving 0 of 0 bytes").
    #[test]
    fn errors_say_what_was_sent_and_what_was_received() {
        let progress = Progress::default();
        progress.tx.store(1_000, Ordering::Relaxed);
        progress.rx.store(300, Ordering::Relaxed);
        let (send_only, receive_only, duplex) = (plan(1_000, 0), plan(0, 500), plan(1_000, 500));
        let reset = |way, p: &Plan| TransferError::Reset { way, counts: Counts::of(p, &progress) }.to_string();
        assert_eq!(reset(Way::Close, &send_only), "connection reset by peer after sending 1000 of 1000 bytes");
        assert_eq!(reset(Way::Rx, &receive_only), "connection reset by peer after receiving 300 of 500 bytes");
        assert_eq!(
            reset(Way::Rx, &duplex),
            "connection reset by peer after sending 1000 of 1000 bytes and receiving 300 of 500 bytes"
        );
        let after = Duration::from_secs(2);
        let stalled =
            |way, p: &Plan| TransferError::Stalled { way, counts: Counts::of(p, &progress), after }.to_string();
        assert_eq!(
            stalled(Way::Close, &send_only),
            "connection stalled: no progress for 2 s while waiting for the peer to close (sent 1000 of 1000 bytes)"
        );
        assert_eq!(
            stalled(Way::Tx, &duplex),
            "connection stalled: no progress for 2 s while sending (sent 1000 of 1000 bytes, received 300 of 500 bytes)"
        );
        let io = TransferError::Io {
            way: Way::Rx,
            counts: Counts::of(&receive_only, &progress),
            err: io::Error::other("boom"),
        };
        assert_eq!(io.to_string(), "socket error while receiving (received 300 of 500 bytes): boom");
    }

    #[test]
    fn duplex_session_pair_verifies_both_directions() {
        let (a, b) = pair();
        let n = 3_000_001;
        let (pa, pb) = (Progress::default(), Progress::default());
        let (ra, rb) = thread::scope(|s| {
            let h = s.spawn(|| run_session(b, &plan(n, n), &pb));
            (run_session(a, &plan(n, n), &pa), h.join().unwrap())
        });
        for r in [ra.unwrap(), rb.unwrap()] {
            assert_eq!(r.tx.unwrap().bytes, n);
            assert_eq!(r.rx.unwrap().bytes, n);
        }
        assert_eq!(pa.rx.load(Ordering::Relaxed), n);
        assert_eq!(pb.tx.load(Ordering::Relaxed), n);
    }

    #[test]
    fn receiver_reports_corruption_offset_in_a_later_chunk() {
        let (mut a, b) = pair();
        let n = 200_000u64;
        let mut data = vec![0u8; n as usize];
        pattern::fill(&mut data, 0);
        data[150_001] ^= 0xFF;
        let h = thread::spawn(move || {
            // Small uneven writes so the error lands mid-read.
            for chunk in data.chunks(7_777) {
                if a.write_all(chunk).is_err() {
                    break;
                }
            }
        });
        let err = run_session(b, &plan(0, n), &Progress::default()).unwrap_err();
        h.join().unwrap();
        let TransferError::Mismatch(m) = err else { panic!("wrong error {err}") };
        assert_eq!(m.offset, 150_001);
        assert_eq!(m.expected, 37_500);
        assert_eq!(m.received, 37_500 ^ 0xFF00);
    }
}
