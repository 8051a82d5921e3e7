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

/// How long the server may take to answer a step outside the test itself.
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

    pub fn json(&self) -> serde_json::Value {
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

/// The control connection.
struct Control {
    sock: TcpStream,
    what: String,
}

impl Control {
    fn connect(addr: SocketAddr) -> Result<Control, String> {
        let sock = TcpStream::connect_timeout(&addr, Duration::from_secs(5))
            .map_err(|e| format!("cannot reach the iperf3 server at {addr}: {e}"))?;
        let _ = sock.set_nodelay(true);
        Ok(Control { sock, what: format!("the iperf3 server at {addr}") })
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.sock.write_all(bytes).map_err(|e| format!("writing to {}: {e}", self.what))
    }

    fn read_exact(&mut self, buf: &mut [u8], limit: Duration) -> Result<(), String> {
        self.sock.set_read_timeout(Some(limit)).map_err(|e| e.to_string())?;
        self.sock.read_exact(buf).map_err(|e| match e.kind() {
            std::io::ErrorKind::UnexpectedEof => format!("{} closed the control connection", self.what),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
                format!("{} did not answer within {} s", self.what, limit.as_secs())
            }
            _ => format!("reading from {}: {e}", self.what),
        })
    }

    /// The next state byte; `ACCESS_DENIED`, `SERVER_ERROR` and
    /// `SERVER_TERMINATE` are errors.
    fn state(&mut self, limit: Duration) -> Result<u8, String> {
        let mut b = [0u8];
        self.read_exact(&mut b, limit)?;
        match b[0] {
            state::ACCESS_DENIED => {
                Err(format!("{} is busy running a test (access denied); try again later", self.what))
            }
            state::SERVER_ERROR => {
                let mut e = [0u8; 8];
                self.read_exact(&mut e, STEP_LIMIT)?;
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
        self.read_exact(&mut len, STEP_LIMIT)?;
        let len = u32::from_be_bytes(len) as usize;
        if len > 1 << 20 {
            return Err(format!("{} sent a result of {len} bytes; expected JSON of a few kB", self.what));
        }
        let mut text = vec![0u8; len];
        self.read_exact(&mut text, STEP_LIMIT)?;
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

/// Runs the test. `say` prints progress lines; `abort` ends it early (every
/// session is aborted then). `bus_args` are the console's bus options, for
/// the command that ends a session still busy.
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
    let busy = run::busy_among(bus, &sessions).map_err(|e| e.0)?;
    if !busy.is_empty() {
        return Err(run::busy_message(&busy, bus_args));
    }
    let mut test = Test { bus, sessions: &sessions, started: false };
    let out = test.run(args, addr, &params, id.user_clock_khz, abort, say);
    if out.is_err() && test.started {
        test.abort_all();
    }
    out
}

struct Test<'a> {
    bus: &'a mut dyn RegisterBus,
    sessions: &'a [usize],
    started: bool,
}

impl Test<'_> {
    /// Aborts every session and waits (bounded) until they are idle; the
    /// test's own error is what the console reports.
    fn abort_all(&mut self) {
        let _ = run::abort_and_wait(self.bus, self.sessions);
    }

    fn results(&mut self) -> Result<Vec<SessionResult>, String> {
        self.sessions.iter().map(|&s| ops::result(self.bus, s).map_err(|e| e.0)).collect()
    }

    /// Waits until `done(results)`: the results, or `None` once `limit`
    /// has passed; an abort request or a session error ends the wait with
    /// an error.
    fn wait(
        &mut self,
        what: &str,
        limit: Duration,
        abort: &AbortFlag,
        mut done: impl FnMut(&[SessionResult]) -> bool,
    ) -> Result<Option<Vec<SessionResult>>, String> {
        let end = Instant::now() + limit;
        loop {
            let r = self.results()?;
            if let Some((k, bad)) = r.iter().enumerate().find(|(_, r)| r.error) {
                return Err(format!("session {} failed while {what}: {}", self.sessions[k], bad.cause_name()));
            }
            if done(&r) {
                return Ok(Some(r));
            }
            if let Some(why) = abort.requested() {
                return Err(format!("{} while {what}", Stop::describe(why)));
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
        abort: &AbortFlag,
        done: impl FnMut(&[SessionResult]) -> bool,
    ) -> Result<Vec<SessionResult>, String> {
        self.wait(what, limit, abort, done)?.ok_or_else(|| format!("{what} took longer than {} s", limit.as_secs()))
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
        let mut ctl = Control::connect(SocketAddr::V4(addr))?;
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
        loop {
            // The test itself runs in `run_streams`, between two reads: the
            // server answers every step at once (a stream it refused, say
            // for a wrong cookie, leaves it waiting: the limit ends that).
            let next = match ctl.state(STEP_LIMIT) {
                Err(e) if !ids.is_empty() => {
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
                other => other?,
            };
            match next {
                state::PARAM_EXCHANGE => ctl.send_json(&parameters(args))?,
                state::CREATE_STREAMS => {
                    ops::write_tx_prefix(self.bus, &cookie).map_err(|e| e.0)?;
                    let shares = match args.amount {
                        Amount::Bytes(n) if !args.reverse => shares(n, self.sessions.len()),
                        _ => vec![0; self.sessions.len()],
                    };
                    for (k, &s) in self.sessions.iter().enumerate() {
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
                        ops::program(self.bus, s, &t).map_err(|e| e.0)?;
                        ops::ports(self.bus, s, params.fpga_ports[s], args.port).map_err(|e| e.0)?;
                        ops::start(self.bus, s).map_err(|e| e.0)?;
                        self.started = true;
                        // One at a time: the server numbers the streams in
                        // the order it accepts them.
                        self.wait_for("connecting", SESSION_LIMIT, abort, |r| r[k].connected || r[k].done)?;
                        ids.push(stream_id(k));
                    }
                }
                state::TEST_START => {}
                state::TEST_RUNNING => {
                    if let Err(e) = self.run_streams(args, abort, say) {
                        return Err(if ctl.gone() {
                            format!("{} went away during the test (control connection closed): {e}", ctl.what)
                        } else {
                            e
                        });
                    }
                    std::thread::sleep(DRAIN);
                    ctl.write(&[state::TEST_END])?;
                }
                state::EXCHANGE_RESULTS => {
                    // Reverse, the server has closed its streams: each
                    // receive ends `done` once it holds every byte sent.
                    let r = self.wait_for("ending", SESSION_LIMIT, abort, |r| r.iter().all(|r| !r.busy))?;
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
                    match ctl.state(STEP_LIMIT)? {
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

    /// From `TEST_RUNNING` until the FPGA's streams have ended.
    fn run_streams(&mut self, args: &Args, abort: &AbortFlag, say: &mut dyn FnMut(&str)) -> Result<(), String> {
        let begin = Instant::now();
        // A send is over at `status.sent` (the server closes its end only
        // after TEST_END, so the sessions stay busy until then).
        let all_sent = |r: &[SessionResult]| r.iter().all(|r| r.sent);
        match (args.amount, args.reverse) {
            (Amount::Time(secs), false) => {
                // The hardware's `duration` ends each send; a board whose
                // clock runs slower than real time (the virtual board) is
                // stopped after the same wall time.
                if self.wait("sending", Duration::from_secs(secs), abort, all_sent)?.is_none() {
                    for &s in self.sessions {
                        ops::stop(self.bus, s).map_err(|e| e.0)?;
                    }
                }
                self.wait_for("ending the sends", SESSION_LIMIT, abort, all_sent)?;
            }
            (Amount::Bytes(_), false) => {
                self.wait_for("sending", Duration::from_secs(86_400), abort, all_sent)?;
            }
            (Amount::Time(secs), true) => {
                // Received for the time asked: the limit is the end.
                self.wait("receiving", Duration::from_secs(secs), abort, |_| false)?;
            }
            (Amount::Bytes(n), true) => {
                self.wait_for("receiving", Duration::from_secs(86_400), abort, |r| {
                    r.iter().map(|r| r.rx_bytes).sum::<u64>() >= n
                })?;
            }
        }
        say(&format!("FPGA streams ended after {:.1} s", begin.elapsed().as_secs_f64()));
        Ok(())
    }
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

    #[test]
    fn results_round_trip_by_stream_id() {
        let v = client_results(&[1, 3], &[(100, 1.5), (200, 2.0)], false);
        assert_eq!(server_stream(&v, 3), Some((200, 2.0)));
        assert_eq!(server_stream(&v, 2), None);
    }
}
