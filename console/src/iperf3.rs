//! `toe-console iperf3`: an iperf3 client whose data streams are the FPGA's
//! sessions.
//!
//! iperf3 runs a test over a control connection, which hardware cannot
//! speak; the console speaks it from the computer it runs on, and lets the
//! FPGA carry the data:
//!
//! ```text
//!   console --control (TCP, cookie, JSON)--> iperf3 -s <--data streams (cookie, bytes)-- FPGA sessions 0..P-1
//! ```
//!
//! The protocol, as iperf3 (3.x) speaks it: the client sends a 37-byte
//! cookie (36 characters and a NUL) on the control connection; the server
//! answers with one-byte states. `PARAM_EXCHANGE`: the client sends its
//! parameters as JSON (a 4-byte big-endian length, then the text).
//! `CREATE_STREAMS`: the client opens one data connection a stream, each
//! beginning with the cookie; here each is an FPGA session in client mode
//! whose TX prefix (the shared `tx_prefix` bank) is the cookie. The server
//! numbers the streams in the order it accepts them (1, 3, 4, 5, ...), so
//! the console starts the sessions one at a time, each once the one before
//! is connected. `TEST_START`, `TEST_RUNNING`: the test runs; the client
//! ends it with `TEST_END`. `EXCHANGE_RESULTS`: the client sends its
//! results (JSON, per stream id: bytes and times, here the FPGA's
//! registers) and reads the server's. `DISPLAY_RESULTS`: the client sends
//! `IPERF_DONE` and closes. `ACCESS_DENIED` (the server is busy) and
//! `SERVER_ERROR` (with iperf3's error number) end the test.
//!
//! The bytes iperf3 counts are a stream's bytes after the cookie: the
//! FPGA's `tx_bytes` less the prefix. With `-R` the FPGA sessions receive:
//! each sends the cookie alone (`test_config.prefix_only`), then takes what
//! the server sends until it closes.
//!
//! The test passes only when each stream's count is the server's
//! ([`Report::failures`]). It judges only the sessions it has started
//! (another still shows an earlier test's `error`), watches the control
//! connection (and with `-R` the streams) for a server that goes away,
//! bounds each exchange with the server by one deadline, and ends any wait
//! at a stop request (a signal). However it ends, the sessions' ports and
//! test registers are written back as they were, and the write-only TX
//! prefix bank is set back to zeros.

use std::io::{Read, Write};
use std::net::{SocketAddr, SocketAddrV4, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use etherbone::RegisterBus;

use crate::identity::Identity;
use crate::params::Params;
use crate::run::{self, AbortFlag, Stop};
use crate::{ops, Mode, SessionResult, SessionTest};

/// iperf3's cookie: 36 characters and a NUL.
pub const COOKIE_SIZE: usize = 37;
/// iperf3's default port.
pub const DEFAULT_PORT: u16 = 5201;
/// iperf3's default test length, seconds.
pub const DEFAULT_TIME_S: u64 = 10;

/// The control protocol's states (iperf3's `iperf.h`).
mod state {
    pub const TEST_START: u8 = 1;
    pub const TEST_RUNNING: u8 = 2;
    pub const TEST_END: u8 = 4;
    pub const PARAM_EXCHANGE: u8 = 9;
    pub const CREATE_STREAMS: u8 = 10;
    pub const SERVER_TERMINATE: u8 = 11;
    pub const EXCHANGE_RESULTS: u8 = 13;
    pub const DISPLAY_RESULTS: u8 = 14;
    pub const IPERF_DONE: u8 = 16;
    /// -1 as a signed char.
    pub const ACCESS_DENIED: u8 = 0xFF;
    /// -2 as a signed char.
    pub const SERVER_ERROR: u8 = 0xFE;
}

/// How long the server may take over one exchange outside the test itself
/// (the set-up until `TEST_RUNNING`, the results after `TEST_END`): one
/// deadline for all its reads, not a limit per read.
const STEP_LIMIT: Duration = Duration::from_secs(30);
/// How long a session may take to connect, and to end once told to.
const SESSION_LIMIT: Duration = Duration::from_secs(30);
/// After the FPGA's streams have ended, time for the server to read what
/// is still in its socket buffers before `TEST_END` makes it stop counting.
const DRAIN: Duration = Duration::from_millis(500);
/// Register polls while waiting.
const POLL: Duration = Duration::from_millis(20);

/// What ends the FPGA's sends: iperf3's `-t` or `-n`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Amount {
    /// `-t SECONDS`.
    Time(u64),
    /// `-n BYTES`, over all streams.
    Bytes(u64),
}

/// The command line, in iperf3's terms.
#[derive(Clone, Debug)]
pub struct Args {
    pub server: String,
    pub port: u16,
    pub amount: Amount,
    /// `-P`: streams, each an FPGA session (0..P-1).
    pub parallel: usize,
    /// `-R`: the server sends, the FPGA receives.
    pub reverse: bool,
}

/// One stream's figures, the FPGA's beside the server's.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamFigures {
    pub session: usize,
    /// iperf3's stream id.
    pub id: u32,
    /// Bytes the FPGA sent (less the cookie, which its `tx_bytes` count
    /// and `fpga_prefix_bytes` shows) or received.
    pub fpga_bytes: u64,
    /// The FPGA's `elapsed`, seconds.
    pub fpga_seconds: f64,
    /// Bytes the server counted for the stream.
    pub server_bytes: u64,
    /// The server's time for the stream, seconds.
    pub server_seconds: f64,
    /// The FPGA session's result at the end.
    pub result: SessionResult,
}

/// A finished test.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub reverse: bool,
    pub streams: Vec<StreamFigures>,
}

fn mbit_s(bytes: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        bytes as f64 * 8.0 / seconds / 1e6
    } else {
        0.0
    }
}

impl Report {
    /// The table a person reads: per stream and in total, the FPGA's
    /// figures beside the server's.
    pub fn text(&self) -> String {
        let (fpga, server) =
            if self.reverse { ("FPGA received", "server sent") } else { ("FPGA sent", "server received") };
        let mut t = format!(
            "[ ID] session  {fpga:>16} {:>9} {:>13}  {server:>16} {:>9} {:>13}\n",
            "seconds", "Mbit/s", "seconds", "Mbit/s"
        );
        let row = |id: &str, s: &str, fb: u64, fs: f64, sb: u64, ss: f64| {
            format!(
                "[{id:>3}] {s:>7}  {fb:>16} {fs:>9.6} {:>13.1}  {sb:>16} {ss:>9.6} {:>13.1}\n",
                mbit_s(fb, fs),
                mbit_s(sb, ss)
            )
        };
        for s in &self.streams {
            t += &row(
                &s.id.to_string(),
                &s.session.to_string(),
                s.fpga_bytes,
                s.fpga_seconds,
                s.server_bytes,
                s.server_seconds,
            );
        }
        if self.streams.len() > 1 {
            let max = |f: fn(&StreamFigures) -> f64| self.streams.iter().map(f).fold(0.0, f64::max);
            t += &row(
                "SUM",
                "all",
                self.streams.iter().map(|s| s.fpga_bytes).sum(),
                max(|s| s.fpga_seconds),
                self.streams.iter().map(|s| s.server_bytes).sum(),
                max(|s| s.server_seconds),
            );
        }
        t
    }

    /// Why the test failed, per stream; empty when it passed: each
    /// stream's count must be the server's (forward, the server received
    /// every byte the FPGA sent after the cookie; with `-R`, the FPGA
    /// received every byte the server says it sent), and each session must
    /// have ended `done`.
    pub fn failures(&self) -> Vec<String> {
        self.streams
            .iter()
            .filter_map(|s| {
                let who = format!("stream {} (session {})", s.id, s.session);
                if s.result.error {
                    Some(format!("{who}: the FPGA session ended with an error ({})", run::cause_text(&s.result)))
                } else if !s.result.done {
                    Some(format!("{who}: the FPGA session did not end done"))
                } else if s.fpga_bytes != s.server_bytes {
                    Some(if self.reverse {
                        format!("{who}: the server sent {} bytes, the FPGA received {}", s.server_bytes, s.fpga_bytes)
                    } else {
                        format!("{who}: the FPGA sent {} bytes, the server received {}", s.fpga_bytes, s.server_bytes)
                    })
                } else {
                    None
                }
            })
            .collect()
    }

    pub fn json(&self) -> serde_json::Value {
        let failures = self.failures();
        let streams: Vec<serde_json::Value> = self
            .streams
            .iter()
            .map(|s| {
                serde_json::json!({
                    "session": s.session,
                    "id": s.id,
                    "fpga_bytes": s.fpga_bytes,
                    "fpga_prefix_bytes": s.result.tx_bytes.min(COOKIE_SIZE as u64),
                    "fpga_seconds": s.fpga_seconds,
                    "server_bytes": s.server_bytes,
                    "server_seconds": s.server_seconds,
                    "fpga_done": s.result.done,
                    "fpga_error": s.result.error,
                })
            })
            .collect();
        serde_json::json!({
            "reverse": self.reverse,
            "ok": failures.is_empty(),
            "failures": failures,
            "streams": streams,
            "sum": {
                "fpga_bytes": self.streams.iter().map(|s| s.fpga_bytes).sum::<u64>(),
                "server_bytes": self.streams.iter().map(|s| s.server_bytes).sum::<u64>(),
            },
        })
    }
}

/// The stream ids iperf3 gives the streams in accept order: 1, 3, 4, 5, ...
pub fn stream_id(k: usize) -> u32 {
    if k == 0 {
        1
    } else {
        k as u32 + 2
    }
}

/// A cookie of 36 characters from iperf3's alphabet and a NUL, different
/// for every run (clock and process id; it only has to be unique).
pub fn make_cookie() -> [u8; COOKIE_SIZE] {
    const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    let mut x = nanos ^ (u64::from(std::process::id()) << 32);
    let mut cookie = [0u8; COOKIE_SIZE];
    for c in cookie.iter_mut().take(COOKIE_SIZE - 1) {
        // SplitMix64.
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        *c = ALPHABET[((z ^ (z >> 31)) % 32) as usize];
    }
    cookie
}

/// The parameters the client sends at `PARAM_EXCHANGE`.
pub fn parameters(args: &Args) -> serde_json::Value {
    let mut p = serde_json::json!({
        "tcp": true,
        "omit": 0,
        "parallel": args.parallel,
        "len": 131072,
        "pacing_timer": 1000,
        "client_version": "3.12",
    });
    match args.amount {
        Amount::Time(s) => p["time"] = s.into(),
        Amount::Bytes(n) => {
            p["time"] = 0.into();
            p["num"] = n.into();
        }
    }
    if args.reverse {
        p["reverse"] = true.into();
    }
    p
}

/// `-n` bytes shared over `streams`: the first ones take the remainder.
pub fn shares(total: u64, streams: usize) -> Vec<u64> {
    let n = streams as u64;
    (0..n).map(|k| total / n + u64::from(k < total % n)).collect()
}

/// The control connection. Every answer the server owes is read against
/// one deadline for the whole exchange ([`Control::expect_within`]), not a
/// limit per read: a server that answers one byte at a time cannot hold the
/// console past it. A stop request (a signal, [`AbortFlag`]) ends a read
/// within [`POLL`].
struct Control<'a> {
    sock: TcpStream,
    what: String,
    abort: &'a AbortFlag,
    /// When the answers of the current exchange are due.
    deadline: Instant,
    /// The exchange's bound, for the message.
    limit: Duration,
}

impl<'a> Control<'a> {
    fn connect(addr: SocketAddr, abort: &'a AbortFlag) -> Result<Control<'a>, String> {
        let sock = TcpStream::connect_timeout(&addr, Duration::from_secs(5))
            .map_err(|e| format!("cannot reach the iperf3 server at {addr}: {e}"))?;
        let _ = sock.set_nodelay(true);
        // The client's messages are a few hundred bytes; a server that
        // reads none of them cannot hold a write past the step's bound.
        sock.set_write_timeout(Some(STEP_LIMIT)).map_err(|e| e.to_string())?;
        Ok(Control {
            sock,
            what: format!("the iperf3 server at {addr}"),
            abort,
            deadline: Instant::now() + STEP_LIMIT,
            limit: STEP_LIMIT,
        })
    }

    /// Starts an exchange: everything the server sends until the next call
    /// is due within `limit` from now.
    fn expect_within(&mut self, limit: Duration) {
        self.deadline = Instant::now() + limit;
        self.limit = limit;
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.sock.write_all(bytes).map_err(|e| match e.kind() {
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
                format!("{} did not read the client's message within {} s", self.what, STEP_LIMIT.as_secs())
            }
            _ => format!("writing to {}: {e}", self.what),
        })
    }

    /// Fills `buf` by the exchange's deadline; a stop request ends the
    /// wait at once.
    fn read_exact(&mut self, buf: &mut [u8]) -> Result<(), String> {
        let mut got = 0;
        while got < buf.len() {
            if let Some(why) = self.abort.requested() {
                return Err(format!("{} while waiting for {}", Stop::describe(why), self.what));
            }
            let left = self.deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(format!("{} did not answer within {} s", self.what, self.limit.as_secs()));
            }
            self.sock.set_read_timeout(Some(left.min(POLL))).map_err(|e| e.to_string())?;
            match self.sock.read(&mut buf[got..]) {
                Ok(0) => return Err(format!("{} closed the control connection", self.what)),
                Ok(n) => got += n,
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut | std::io::ErrorKind::Interrupted
                    ) => {}
                Err(e) => return Err(format!("reading from {}: {e}", self.what)),
            }
        }
        Ok(())
    }

    /// The next state byte; `ACCESS_DENIED`, `SERVER_ERROR` and
    /// `SERVER_TERMINATE` are errors.
    fn state(&mut self) -> Result<u8, String> {
        let mut b = [0u8];
        self.read_exact(&mut b)?;
        match b[0] {
            state::ACCESS_DENIED => {
                Err(format!("{} is busy running a test (access denied); try again later", self.what))
            }
            state::SERVER_ERROR => {
                let mut e = [0u8; 8];
                self.read_exact(&mut e)?;
                let ierr = i32::from_be_bytes([e[0], e[1], e[2], e[3]]);
                let errno = i32::from_be_bytes([e[4], e[5], e[6], e[7]]);
                Err(format!(
                    "{} reported an error: iperf3 error {ierr} (errno {errno}): {}",
                    self.what,
                    ierr_text(ierr)
                ))
            }
            state::SERVER_TERMINATE => Err(format!("{} was terminated", self.what)),
            s => Ok(s),
        }
    }

    /// The server closed (or reset) the control connection.
    fn gone(&mut self) -> bool {
        if self.sock.set_nonblocking(true).is_err() {
            return true;
        }
        let mut b = [0u8];
        let gone = match self.sock.peek(&mut b) {
            Ok(0) => true,
            Ok(_) => false,
            Err(e) => e.kind() != std::io::ErrorKind::WouldBlock,
        };
        let _ = self.sock.set_nonblocking(false);
        gone
    }

    fn send_json(&mut self, v: &serde_json::Value) -> Result<(), String> {
        let text = v.to_string();
        let mut msg = (text.len() as u32).to_be_bytes().to_vec();
        msg.extend(text.as_bytes());
        self.write(&msg)
    }

    fn read_json(&mut self) -> Result<serde_json::Value, String> {
        let mut len = [0u8; 4];
        self.read_exact(&mut len)?;
        let len = u32::from_be_bytes(len) as usize;
        if len > 1 << 20 {
            return Err(format!("{} sent a result of {len} bytes; expected JSON of a few kB", self.what));
        }
        let mut text = vec![0u8; len];
        self.read_exact(&mut text)?;
        serde_json::from_slice(&text).map_err(|e| format!("{} sent results that are not JSON: {e}", self.what))
    }
}

/// iperf3's text for the error numbers a client meets most (`iperf_error.c`).
fn ierr_text(ierr: i32) -> &'static str {
    match ierr {
        100 => "the server could not create its streams",
        101 => "the server's stream ids do not match the client's results",
        104 => "the server could not receive the parameters (bad or unsupported parameters)",
        114 => "the server could not read a stream's cookie",
        117 => "the server found a stream with a wrong cookie",
        _ => "see iperf3's error list (iperf_error.c)",
    }
}

/// The first IPv4 address of `server:port`.
fn resolve(server: &str, port: u16) -> Result<SocketAddrV4, String> {
    let mut addrs =
        (server, port).to_socket_addrs().map_err(|e| format!("cannot resolve the iperf3 server {server:?}: {e}"))?;
    addrs
        .find_map(|a| match a {
            SocketAddr::V4(v4) => Some(v4),
            SocketAddr::V6(_) => None,
        })
        .ok_or_else(|| format!("the iperf3 server {server:?} has no IPv4 address: the TOE speaks IPv4"))
}

/// What a session held before the command programmed it, put back when the
/// command ends: its ports (`target_port` becomes the iperf3 server's) and
/// its test registers (`test_config` with the prefix settings, `speed`, the
/// sizes, `duration`). A later `test` then finds the board as it was.
#[derive(Clone, Copy, Debug)]
struct Saved {
    session: usize,
    ports: (u16, u16),
    test_config: u32,
    speed: u32,
    transfer_size: u64,
    packet_size: u64,
    duration: u64,
}

impl Saved {
    fn read(bus: &mut dyn RegisterBus, s: usize) -> Result<Saved, String> {
        let r = session_regs(s)?;
        let e = |e: ops::OpError| e.0;
        Ok(Saved {
            session: s,
            ports: ops::read_ports(bus, s).map_err(e)?,
            test_config: ops::read(bus, r.test_config()).map_err(e)?,
            speed: ops::read(bus, r.speed()).map_err(e)?,
            transfer_size: ops::read_wide(bus, r.transfer_size()).map_err(e)?,
            packet_size: ops::read_wide(bus, r.packet_size()).map_err(e)?,
            duration: ops::read_wide(bus, r.duration()).map_err(e)?,
        })
    }

    fn restore(&self, bus: &mut dyn RegisterBus) -> Result<(), ops::OpError> {
        let r = session_regs(self.session).map_err(ops::OpError)?;
        ops::ports(bus, self.session, self.ports.0, self.ports.1)?;
        ops::write(bus, r.test_config(), self.test_config)?;
        ops::write(bus, r.speed(), self.speed)?;
        ops::write_wide(bus, r.transfer_size(), self.transfer_size)?;
        ops::write_wide(bus, r.packet_size(), self.packet_size)?;
        ops::write_wide(bus, r.duration(), self.duration)
    }
}

fn session_regs(s: usize) -> Result<crate::regs::Session, String> {
    crate::regs::session(s).ok_or_else(|| format!("session {s} does not exist in the register map"))
}

/// Puts back what the command programmed: each session's [`Saved`]
/// registers, and the TX prefix bank, which is write-only (it cannot be
/// read back), at its reset value (zeros).
fn restore(bus: &mut dyn RegisterBus, saved: &[Saved]) -> Result<(), String> {
    let sessions: Vec<usize> = saved.iter().map(|s| s.session).collect();
    let failed = |e: ops::OpError| {
        format!("restoring the ports and test registers of sessions {sessions:?} after the iperf3 test: {}", e.0)
    };
    for s in saved {
        s.restore(bus).map_err(failed)?;
    }
    ops::write_tx_prefix(bus, &[]).map_err(failed)
}

/// Runs the test. `say` prints progress lines; `abort` ends it early (every
/// session is aborted then). `bus_args` are the console's bus options, for
/// the command that ends a session still busy. Whatever the end (success,
/// an error, a signal), the sessions' ports and test registers are put back
/// as they were before ([`Saved`]) once the sessions are idle.
pub fn run(
    bus: &mut dyn RegisterBus,
    id: &Identity,
    args: &Args,
    bus_args: &str,
    abort: &AbortFlag,
    say: &mut dyn FnMut(&str),
) -> Result<Report, String> {
    if args.parallel == 0 || args.parallel > id.sessions {
        return Err(format!("-P {} is not in 1..={} (the board's sessions)", args.parallel, id.sessions));
    }
    check_bytes(args)?;
    let addr = resolve(&args.server, args.port)?;
    let server_ip = *addr.ip();
    let params = Params::read(bus, id.sessions).map_err(|e| e.0)?;
    if params.target_ip != server_ip {
        return Err(format!(
            "the FPGA's sessions connect to target_ip {} (`params show`), not to the iperf3 server {server_ip}: \
             set it first with `params set target_ip={server_ip}`",
            params.target_ip
        ));
    }
    let sessions: Vec<usize> = (0..args.parallel).collect();
    // Claimed first, so no other console can program or start these
    // sessions between the busy check and the streams' starts
    // (`crate::claim`); freed after the registers are put back.
    let claimed = crate::claim::with_claims(bus, &sessions, bus_args, |bus| {
        Ok(run_claimed(bus, id, args, bus_args, abort, say, addr, &params, &sessions))
    });
    claimed.map_err(|e| e.0)?
}

/// [`run`] once its sessions are claimed.
#[allow(clippy::too_many_arguments)]
fn run_claimed(
    bus: &mut dyn RegisterBus,
    id: &Identity,
    args: &Args,
    bus_args: &str,
    abort: &AbortFlag,
    say: &mut dyn FnMut(&str),
    addr: SocketAddrV4,
    params: &Params,
    sessions: &[usize],
) -> Result<Report, String> {
    let busy = run::busy_among(bus, sessions).map_err(|e| e.0)?;
    if !busy.is_empty() {
        return Err(run::busy_message(&busy, bus_args));
    }
    let saved = sessions.iter().map(|&s| Saved::read(bus, s)).collect::<Result<Vec<_>, String>>()?;
    let mut test = Test { bus, sessions, started: 0, programmed: false };
    let out = test.run(args, addr, params, id.user_clock_khz, abort, say);
    if out.is_err() && test.started > 0 {
        test.abort_all();
    }
    if !test.programmed {
        return out;
    }
    match (out, restore(&mut *bus, &saved)) {
        (out, Ok(())) => out,
        (Ok(_), Err(e)) => Err(e),
        (Err(e), Err(r)) => Err(format!("{e}; {r}")),
    }
}

/// The largest `-n` a forward test of `streams` streams can send: each
/// stream's share and its 37-byte cookie must fit the 48-bit
/// `transfer_size` ([`shares`] gives the first streams the remainder), and
/// `-n` itself is at most 2^48-1.
pub fn max_bytes(streams: usize) -> u64 {
    (run::MAX_SIZE - COOKIE_SIZE as u64).saturating_mul(streams as u64).min(run::MAX_SIZE)
}

/// `-n` within [`max_bytes`] (forward; with `-R` the FPGA sends the cookie
/// alone and receives open-ended).
pub fn check_bytes(args: &Args) -> Result<(), String> {
    match args.amount {
        Amount::Bytes(n) if !args.reverse && n > max_bytes(args.parallel) => Err(format!(
            "-n {n} is not in 1..={} with -P {}: each stream's share and its {COOKIE_SIZE}-byte cookie must fit \
             the 48-bit transfer size ({})",
            max_bytes(args.parallel),
            args.parallel,
            run::MAX_SIZE
        )),
        _ => Ok(()),
    }
}

struct Test<'a> {
    bus: &'a mut dyn RegisterBus,
    sessions: &'a [usize],
    /// Sessions `sessions[..started]` are started by this test. Only their
    /// status is this test's: the others still show an earlier test's
    /// `done`, `error` or `closed` until their own start clears it, so the
    /// test never reads them.
    started: usize,
    /// The test wrote the TX prefix bank or a session's registers: they
    /// are put back when it ends.
    programmed: bool,
}

/// What a wait watches besides the sessions: the control connection, and
/// (`streams_open`) that every stream stays open, as the server keeps them
/// until `TEST_END`.
struct Watch<'c, 'a> {
    ctl: &'c mut Control<'a>,
    streams_open: bool,
}

impl Test<'_> {
    /// Aborts every session started and waits (bounded) until they are
    /// idle; the test's own error is what the console reports.
    fn abort_all(&mut self) {
        let _ = run::abort_and_wait(self.bus, &self.sessions[..self.started]);
    }

    /// The results of the sessions this test started.
    fn results(&mut self) -> Result<Vec<SessionResult>, String> {
        self.sessions[..self.started].iter().map(|&s| ops::result(self.bus, s).map_err(|e| e.0)).collect()
    }

    /// Programs session `sessions[k]` with `t`, points it at the server's
    /// `port` and starts it: the one place the test starts a session.
    fn start_stream(&mut self, k: usize, t: &SessionTest, fpga_port: u16, port: u16) -> Result<(), String> {
        debug_assert_eq!(k, self.started, "the streams start in order");
        let s = self.sessions[k];
        ops::program(self.bus, s, t).map_err(|e| e.0)?;
        ops::ports(self.bus, s, fpga_port, port).map_err(|e| e.0)?;
        // Counted before the start: a start whose write fails may still
        // have reached the board, and it is aborted with the others.
        self.started = k + 1;
        ops::start(self.bus, s).map_err(|e| e.0)
    }

    /// Waits until `done(results)`: the results, or `None` once `limit`
    /// has passed; an abort request, a session error, or the server going
    /// away (`watch`) ends the wait with an error.
    fn wait(
        &mut self,
        what: &str,
        limit: Duration,
        watch: &mut Watch,
        mut done: impl FnMut(&[SessionResult]) -> bool,
    ) -> Result<Option<Vec<SessionResult>>, String> {
        let end = Instant::now() + limit;
        loop {
            let r = self.results()?;
            if let Some((k, bad)) = r.iter().enumerate().find(|(_, r)| r.error) {
                let e = format!("session {} failed while {what}: {}", self.sessions[k], bad.cause_name());
                return Err(if watch.ctl.gone() { went_away(watch.ctl, &e) } else { e });
            }
            if done(&r) {
                return Ok(Some(r));
            }
            if let Some(why) = watch.ctl.abort.requested() {
                return Err(format!("{} while {what}", Stop::describe(why)));
            }
            if watch.ctl.gone() {
                return Err(format!(
                    "{} went away during the test (control connection closed while {what})",
                    watch.ctl.what
                ));
            }
            if watch.streams_open {
                if let Some((k, r)) = r.iter().enumerate().find(|(_, r)| !r.busy) {
                    return Err(format!(
                        "{} went away during the test: it closed its stream to session {} after {} bytes",
                        watch.ctl.what, self.sessions[k], r.rx_bytes
                    ));
                }
            }
            if Instant::now() >= end {
                return Ok(None);
            }
            std::thread::sleep(POLL);
        }
    }

    /// [`Test::wait`], where reaching `limit` is an error.
    fn wait_for(
        &mut self,
        what: &str,
        limit: Duration,
        watch: &mut Watch,
        done: impl FnMut(&[SessionResult]) -> bool,
    ) -> Result<Vec<SessionResult>, String> {
        self.wait(what, limit, watch, done)?.ok_or_else(|| format!("{what} took longer than {} s", limit.as_secs()))
    }

    fn run(
        &mut self,
        args: &Args,
        addr: SocketAddrV4,
        params: &Params,
        khz: u32,
        abort: &AbortFlag,
        say: &mut dyn FnMut(&str),
    ) -> Result<Report, String> {
        let mut ctl = Control::connect(SocketAddr::V4(addr), abort)?;
        let cookie = make_cookie();
        ctl.write(&cookie)?;
        say(&format!(
            "Connecting to host {}, port {}: FPGA sessions {:?} as the streams",
            addr.ip(),
            args.port,
            self.sessions
        ));
        let cycles = |s: u64| s * u64::from(khz) * 1000;
        let mut ids = Vec::new();
        let mut running = false;
        loop {
            // The test itself runs in `run_streams`, between two reads: the
            // server answers every step at once (a stream it refused, say
            // for a wrong cookie, leaves it waiting: the deadline ends that).
            let next = match ctl.state() {
                Err(e) if !ids.is_empty() && !running && abort.requested().is_none() => {
                    // Streams the server closed at once were refused: their
                    // cookie was not the test's.
                    let r = self.results()?;
                    let refused: Vec<usize> =
                        r.iter().zip(self.sessions).filter(|(r, _)| r.closed).map(|(_, &s)| s).collect();
                    if refused.is_empty() {
                        return Err(e);
                    }
                    return Err(format!(
                        "{} closed the streams of sessions {refused:?} without starting the test \
                         (it did not accept their cookie): {e}",
                        ctl.what
                    ));
                }
                Err(e) if running && ctl.gone() => return Err(went_away(&ctl, &e)),
                other => other?,
            };
            let streams_created = ids.len() == self.sessions.len();
            if matches!(next, state::TEST_START | state::TEST_RUNNING | state::EXCHANGE_RESULTS) && !streams_created {
                return Err(format!(
                    "{} sent state {next} before the client created its streams (CREATE_STREAMS, 10)",
                    ctl.what
                ));
            }
            match next {
                state::PARAM_EXCHANGE => ctl.send_json(&parameters(args))?,
                state::CREATE_STREAMS => {
                    self.programmed = true;
                    ops::write_tx_prefix(self.bus, &cookie).map_err(|e| e.0)?;
                    let shares = match args.amount {
                        Amount::Bytes(n) if !args.reverse => shares(n, self.sessions.len()),
                        _ => vec![0; self.sessions.len()],
                    };
                    for k in 0..self.sessions.len() {
                        let s = self.sessions[k];
                        let mut t = SessionTest::new(Mode::Send, shares[k] + COOKIE_SIZE as u64, true);
                        t.verify = false;
                        t.prefix_length = COOKIE_SIZE as u8;
                        if args.reverse {
                            // The cookie alone out, then receive until
                            // the server closes.
                            t.mode = Mode::FullDuplex;
                            t.open_ended = true;
                            t.prefix_only = true;
                        } else if let Amount::Time(secs) = args.amount {
                            t.open_ended = true;
                            t.duration = cycles(secs);
                        }
                        self.start_stream(k, &t, params.fpga_ports[s], args.port)?;
                        // One at a time: the server numbers the streams in
                        // the order it accepts them.
                        let mut watch = Watch { ctl: &mut ctl, streams_open: false };
                        self.wait_for("connecting", SESSION_LIMIT, &mut watch, |r| r[k].connected || r[k].done)?;
                        ids.push(stream_id(k));
                    }
                    ctl.expect_within(STEP_LIMIT);
                }
                state::TEST_START => {}
                state::TEST_RUNNING => {
                    running = true;
                    self.run_streams(args, &mut ctl, say)?;
                    std::thread::sleep(DRAIN);
                    ctl.write(&[state::TEST_END])?;
                    ctl.expect_within(STEP_LIMIT);
                }
                state::EXCHANGE_RESULTS => {
                    // Reverse, the server has closed its streams: each
                    // receive ends `done` once it holds every byte sent.
                    let mut watch = Watch { ctl: &mut ctl, streams_open: false };
                    let r = self.wait_for("ending", SESSION_LIMIT, &mut watch, |r| r.iter().all(|r| !r.busy))?;
                    ctl.expect_within(STEP_LIMIT);
                    let figures: Vec<(u64, f64)> = r
                        .iter()
                        .map(|r| {
                            let bytes =
                                if args.reverse { r.rx_bytes } else { r.tx_bytes.saturating_sub(COOKIE_SIZE as u64) };
                            (bytes, r.elapsed as f64 / (f64::from(khz) * 1000.0))
                        })
                        .collect();
                    ctl.send_json(&client_results(&ids, &figures, args.reverse))?;
                    let theirs = ctl.read_json()?;
                    let streams = self
                        .sessions
                        .iter()
                        .enumerate()
                        .map(|(k, &s)| {
                            let (bytes, seconds) = server_stream(&theirs, ids[k]).ok_or_else(|| {
                                format!("the iperf3 server's results have no stream {}: {theirs}", ids[k])
                            })?;
                            Ok(StreamFigures {
                                session: s,
                                id: ids[k],
                                fpga_bytes: figures[k].0,
                                fpga_seconds: figures[k].1,
                                server_bytes: bytes,
                                server_seconds: seconds,
                                result: r[k],
                            })
                        })
                        .collect::<Result<Vec<_>, String>>()?;
                    match ctl.state()? {
                        state::DISPLAY_RESULTS => {}
                        other => {
                            return Err(format!(
                                "the iperf3 server sent state {other} after the results, not DISPLAY_RESULTS (14)"
                            ))
                        }
                    }
                    ctl.write(&[state::IPERF_DONE])?;
                    return Ok(Report { reverse: args.reverse, streams });
                }
                other => return Err(format!("the iperf3 server sent state {other}, which this client does not know")),
            }
        }
    }

    /// From `TEST_RUNNING` until the FPGA's streams have ended. The server
    /// going away (its control connection closed, or with `-R` a stream
    /// closed before the end) ends it at once.
    fn run_streams(&mut self, args: &Args, ctl: &mut Control, say: &mut dyn FnMut(&str)) -> Result<(), String> {
        let begin = Instant::now();
        // A send is over at `status.sent` (the server closes its end only
        // after TEST_END, so the sessions stay busy until then).
        let all_sent = |r: &[SessionResult]| r.iter().all(|r| r.sent);
        let mut watch = Watch { ctl, streams_open: args.reverse };
        match (args.amount, args.reverse) {
            (Amount::Time(secs), false) => {
                // The hardware's `duration` ends each send; a board whose
                // clock runs slower than real time (the virtual board) is
                // stopped after the same wall time.
                if self.wait("sending", Duration::from_secs(secs), &mut watch, all_sent)?.is_none() {
                    for &s in self.sessions {
                        ops::stop(self.bus, s).map_err(|e| e.0)?;
                    }
                }
                self.wait_for("ending the sends", SESSION_LIMIT, &mut watch, all_sent)?;
            }
            (Amount::Bytes(_), false) => {
                self.wait_for("sending", Duration::from_secs(86_400), &mut watch, all_sent)?;
            }
            (Amount::Time(secs), true) => {
                // Received for the time asked: the limit is the end.
                self.wait("receiving", Duration::from_secs(secs), &mut watch, |_| false)?;
            }
            (Amount::Bytes(n), true) => {
                self.wait_for("receiving", Duration::from_secs(86_400), &mut watch, |r| {
                    r.iter().map(|r| r.rx_bytes).sum::<u64>() >= n
                })?;
            }
        }
        say(&format!("FPGA streams ended after {:.1} s", begin.elapsed().as_secs_f64()));
        Ok(())
    }
}

/// The docs' message for a server that went away during the test.
fn went_away(ctl: &Control, e: &str) -> String {
    format!("{} went away during the test (control connection closed): {e}", ctl.what)
}

/// The client's results as iperf3 expects them: per stream id, the bytes
/// and the stream's time.
pub fn client_results(ids: &[u32], figures: &[(u64, f64)], reverse: bool) -> serde_json::Value {
    let streams: Vec<serde_json::Value> = ids
        .iter()
        .zip(figures)
        .map(|(id, (bytes, seconds))| {
            serde_json::json!({
                "id": id, "bytes": bytes, "retransmits": -1, "jitter": 0, "errors": 0, "packets": 0,
                "start_time": 0, "end_time": seconds,
            })
        })
        .collect();
    serde_json::json!({
        "cpu_util_total": 0, "cpu_util_user": 0, "cpu_util_system": 0,
        "sender_has_retransmits": if reverse { -1 } else { 0 },
        "streams": streams,
    })
}

/// The server's bytes and time for stream `id` in its results.
pub fn server_stream(results: &serde_json::Value, id: u32) -> Option<(u64, f64)> {
    let s = results["streams"].as_array()?.iter().find(|s| s["id"].as_u64() == Some(u64::from(id)))?;
    let bytes = s["bytes"].as_u64().or_else(|| s["bytes"].as_f64().map(|b| b as u64))?;
    let seconds = s["end_time"].as_f64().unwrap_or(0.0) - s["start_time"].as_f64().unwrap_or(0.0);
    Some((bytes, seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_ids_skip_two_as_iperf3_numbers_them() {
        assert_eq!((0..4).map(stream_id).collect::<Vec<_>>(), [1, 3, 4, 5]);
    }

    #[test]
    fn a_cookie_is_36_characters_of_the_alphabet_and_a_nul() {
        let c = make_cookie();
        assert_eq!(c[36], 0);
        assert!(c[..36].iter().all(|b| b"abcdefghijklmnopqrstuvwxyz234567".contains(b)), "{c:?}");
    }

    #[test]
    fn bytes_are_shared_over_the_streams_with_the_remainder_first() {
        assert_eq!(shares(10, 4), [3, 3, 2, 2]);
        assert_eq!(shares(10, 1), [10]);
    }

    /// A control connection to a local server that runs `serve` on its
    /// end; bound by `limit` for the whole exchange.
    fn control_to<'a>(
        abort: &'a AbortFlag,
        limit: Duration,
        serve: impl FnOnce(TcpStream) + Send + 'static,
    ) -> Control<'a> {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || serve(listener.accept().unwrap().0));
        let mut ctl = Control::connect(addr, abort).unwrap();
        ctl.expect_within(limit);
        ctl
    }

    /// Issue 51, item 8: the limit is one deadline for the exchange, not
    /// one per read: a server that sends a byte every 100 ms (each read
    /// well within any per-read limit) is cut off at the deadline.
    #[test]
    fn a_server_answering_a_byte_at_a_time_is_cut_off_at_the_exchange_deadline() {
        let abort = AbortFlag::new();
        let mut ctl = control_to(&abort, Duration::from_secs(1), |mut s| {
            let text = serde_json::json!({"streams": [], "padding": "x".repeat(100)}).to_string();
            let mut msg = (text.len() as u32).to_be_bytes().to_vec();
            msg.extend(text.as_bytes());
            for b in msg {
                if s.write_all(&[b]).is_err() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        let begin = Instant::now();
        let e = ctl.read_json().unwrap_err();
        let took = begin.elapsed();
        assert!(e.contains("did not answer within 1 s"), "{e}");
        assert!(took < Duration::from_millis(1500), "{took:?}");
    }

    /// Item 8: a stop request (a signal sets it) ends a wait on a silent
    /// server within a poll, long before the deadline.
    #[test]
    fn a_stop_request_ends_a_wait_on_a_silent_server_at_once() {
        static ABORT: AbortFlag = AbortFlag::new();
        let mut ctl = control_to(&ABORT, STEP_LIMIT, |mut s| {
            let _ = s.read(&mut [0u8; 1]);
        });
        let begin = Instant::now();
        std::thread::spawn(|| {
            std::thread::sleep(Duration::from_millis(200));
            ABORT.request(Stop::Signal(libc::SIGTERM));
        });
        let e = ctl.state().unwrap_err();
        assert!(e.starts_with("SIGTERM received while waiting for the iperf3 server"), "{e}");
        assert!(begin.elapsed() < Duration::from_secs(1), "{:?}", begin.elapsed());
    }

    fn stream(session: usize, fpga_bytes: u64, server_bytes: u64) -> StreamFigures {
        StreamFigures {
            session,
            id: stream_id(session),
            fpga_bytes,
            fpga_seconds: 1.0,
            server_bytes,
            server_seconds: 1.0,
            result: SessionResult { done: true, ..SessionResult::default() },
        }
    }

    /// Issue 51, item 6: a test passes only when every stream's count is
    /// the server's, in both directions.
    #[test]
    fn a_test_fails_where_a_streams_count_differs_from_the_servers() {
        let ok = Report { reverse: false, streams: vec![stream(0, 100, 100), stream(1, 7, 7)] };
        assert!(ok.failures().is_empty());
        let short = Report { reverse: false, streams: vec![stream(0, 100, 100), stream(1, 100, 0)] };
        assert_eq!(short.failures(), ["stream 3 (session 1): the FPGA sent 100 bytes, the server received 0"]);
        let reverse = Report { reverse: true, streams: vec![stream(0, 90, 100)] };
        assert_eq!(reverse.failures(), ["stream 1 (session 0): the server sent 100 bytes, the FPGA received 90"]);
        assert_eq!(reverse.json()["ok"], false);
    }

    /// Issue 51, item 15: each stream's share and its cookie fit the 48-bit
    /// transfer size.
    #[test]
    fn the_largest_size_leaves_each_stream_room_for_its_cookie() {
        let args = |n, parallel, reverse| Args {
            server: "127.0.0.1".into(),
            port: DEFAULT_PORT,
            amount: Amount::Bytes(n),
            parallel,
            reverse,
        };
        let max = run::MAX_SIZE - COOKIE_SIZE as u64;
        assert_eq!(max_bytes(1), max);
        assert!(check_bytes(&args(max, 1, false)).is_ok());
        let e = check_bytes(&args(max + 1, 1, false)).unwrap_err();
        assert!(e.contains(&format!("is not in 1..={max} with -P 1")), "{e}");
        assert!(check_bytes(&args(run::MAX_SIZE, 2, false)).is_ok());
        assert!(shares(run::MAX_SIZE, 2)[0] + COOKIE_SIZE as u64 <= run::MAX_SIZE);
        // -R: the FPGA sends the cookie alone.
        assert!(check_bytes(&args(run::MAX_SIZE, 1, true)).is_ok());
    }

    #[test]
    fn results_round_trip_by_stream_id() {
        let v = client_results(&[1, 3], &[(100, 1.5), (200, 2.0)], false);
        assert_eq!(server_stream(&v, 3), Some((200, 2.0)));
        assert_eq!(server_stream(&v, 2), None);
    }
}
