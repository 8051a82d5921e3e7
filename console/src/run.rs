//! A half- or full-duplex test as the reference console runs it: program
//! the sessions, show the PC command each needs, start the servers (passive
//! sessions) before the clients, report the peer once connected, the bytes
//! every second and each close, then the totals. Every wait is bounded;
//! an abort request (Ctrl-C or a key) aborts every session.

use std::fmt::Write as _;
use std::net::Ipv4Addr;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::{Duration, Instant};

use etherbone::RegisterBus;

use crate::input::{self, InputError};
use crate::ops::{self, Mode, OpError, SessionResult, SessionTest};
use crate::regs::session::status::ErrorCause;

/// Half duplex (menu 2) or full duplex (menu 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Duplex {
    Half,
    Full,
}

/// One session of a test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionSpec {
    pub session: usize,
    pub test: SessionTest,
    /// Max speed in %, as asked (it limits TX, RX or both by mode).
    pub speed: u8,
    /// Open-ended (`test --duration`): the send's length in microseconds,
    /// for the PC's command too.
    pub open_us: Option<u64>,
}

/// The largest transfer and packet size the registers hold (48 bits).
pub const MAX_SIZE: u64 = 0xFFFF_FFFF_FFFF;
/// Packet size when none is given.
pub const DEFAULT_PACKET: u64 = 8192;

/// One session's answers to the menu's questions (as validated input).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Answers {
    /// Half duplex 1 send, 2 receive; full duplex 1.
    pub mode: u64,
    pub size: u64,
    pub packet: u64,
    /// True: the incremental pattern, sent and verified; false: dummy data, no verification.
    pub verify: bool,
    /// Max speed in %.
    pub speed: u8,
    /// 0 client (active open), 1 server (passive open).
    pub conn: u64,
}

impl SessionSpec {
    /// The session's test from the menu's answers.
    pub fn new(duplex: Duplex, session: usize, a: &Answers) -> SessionSpec {
        let Answers { mode, size, packet, verify, speed, conn } = *a;
        let mode = match (duplex, mode) {
            (Duplex::Full, _) => Mode::FullDuplex,
            (Duplex::Half, 1) => Mode::Send,
            _ => Mode::Receive,
        };
        let mut test = SessionTest::new(mode, size, conn == 0);
        test.packet_size = packet;
        test.verify = verify;
        test.incremental = verify;
        let (tx, rx) = match mode {
            Mode::Send => (speed, 100),
            Mode::Receive => (100, speed),
            Mode::FullDuplex => (speed, speed),
        };
        test.tx_percent = tx;
        test.rx_percent = rx;
        SessionSpec { session, test, speed, open_us: None }
    }

    /// Makes the test open-ended, the iperf 2 way: a sending session (a
    /// client) sends for `seconds` of the user clock (`user_clock_khz`), a
    /// receiving one (a server) takes any number of bytes until its peer
    /// closes. `Err` says why another kind of session cannot.
    pub fn open_ended(&mut self, seconds: f64, user_clock_khz: u32) -> Result<(), String> {
        let n = self.session;
        match (self.test.mode, self.test.client) {
            (Mode::Send, true) | (Mode::Receive, false) => {}
            (Mode::FullDuplex, _) => return Err(format!("--duration: session {n} is full duplex; iperf 2 tests one direction, use `test half`")),
            (Mode::Send, false) => return Err(format!("--duration: session {n} sends as a server; iperf 2 receives as a server: use connection mode 0 (client)")),
            (Mode::Receive, true) => return Err(format!("--duration: session {n} receives as a client; iperf 2 sends as a client: use connection mode 1 (server)")),
        }
        let cycles = (seconds * f64::from(user_clock_khz) * 1000.0).round().max(1.0) as u64;
        self.test.open_ended = true;
        self.test.verify = false;
        if self.test.mode == Mode::Send {
            self.test.duration = cycles;
        }
        self.open_us = Some((seconds * 1e6).round() as u64);
        Ok(())
    }

    /// `N:MODE:SIZE[:PACKET[:VERIFY[:SPEED[:CONN]]]]`; `Ok(None)` for mode 0 (disabled).
    pub fn parse(duplex: Duplex, sessions: usize, spec: &str) -> Result<Option<SessionSpec>, InputError> {
        let f: Vec<&str> = spec.split(':').collect();
        if f.len() < 3 || f.len() > 7 {
            return Err(InputError::Invalid {
                what: "session".into(),
                input: spec.into(),
                form: "N:MODE:SIZE[:PACKET[:VERIFY[:SPEED[:CONN]]]]".into(),
            });
        }
        let n = input::number("Session", f[0], 0, sessions as u64 - 1)? as usize;
        let modes: &[u64] = if duplex == Duplex::Half { &[0, 1, 2] } else { &[0, 1] };
        let mode = input::code("Test mode", f[1], modes)?;
        let size = input::number("Transfer size", f[2], 1, MAX_SIZE)?;
        let packet = match f.get(3) {
            Some(p) => input::number("Packet size", p, 1, MAX_SIZE)?,
            None => DEFAULT_PACKET,
        };
        let verify = match f.get(4) {
            Some(v) => input::flag("Data verification", v)?,
            None => true,
        };
        let speed = match f.get(5) {
            Some(v) => input::number("Max speed (%)", v, 1, 100)? as u8,
            None => 100,
        };
        let conn = match f.get(6) {
            Some(v) => input::code("Connection mode", v, &[0, 1])?,
            None => 1,
        };
        if mode == 0 {
            return Ok(None);
        }
        Ok(Some(SessionSpec::new(duplex, n, &Answers { mode, size, packet, verify, speed, conn })))
    }

    /// Bytes the session must send and receive.
    pub fn expected(&self) -> (u64, u64) {
        let s = self.test.transfer_size;
        match self.test.mode {
            Mode::Send => (s, 0),
            Mode::Receive => (0, s),
            Mode::FullDuplex => (s, s),
        }
    }

    /// The PC command for this session: the tool of the reference, with the
    /// address and port the PC must use. A PC client connects to
    /// `fpga_ip:fpga_port`; a PC server (the FPGA is the client) listens on
    /// its own address, `target_ip:target_port`.
    pub fn pc_command(&self, fpga_ip: Ipv4Addr, target_ip: Ipv4Addr, fpga_port: u16, target_port: u16) -> String {
        let t = &self.test;
        if let Some(us) = self.open_us {
            // The iperf 2 roles (`open_ended` allows no other): the PC
            // receives as a server, or sends as a client for as long.
            let secs = us.div_ceil(1_000_000).max(1);
            return if t.mode == Mode::Send {
                format!("iperf -s -B {target_ip} -p {target_port}")
            } else {
                format!("iperf -c {fpga_ip} -p {fpga_port} -t {secs}")
            };
        }
        let pat = u8::from(t.incremental);
        let size = t.transfer_size;
        match (t.mode, t.client) {
            (Mode::FullDuplex, false) => {
                format!("tcp_client_txrx_single {fpga_ip} {fpga_port} {size} {pat} 1")
            }
            (Mode::FullDuplex, true) => {
                format!("tcp_client_txrx_single --server {target_ip} {target_port} {size} {pat} 1")
            }
            (m, client) => {
                let dir = if m == Mode::Send { 'r' } else { 't' };
                if client {
                    format!("tcpdatatest s {dir} {target_ip} {target_port} {size} {pat} 1")
                } else {
                    format!("tcpdatatest c {dir} {fpga_ip} {fpga_port} {size} {pat} 1")
                }
            }
        }
    }

    pub fn mode_name(&self) -> &'static str {
        match self.test.mode {
            Mode::Send => "send",
            Mode::Receive => "receive",
            Mode::FullDuplex => "full duplex",
        }
    }
}

/// A session of a test whose peer the PC runs: the throughput tests'
/// [`SessionSpec`] and the latency test's `LatencySpec`.
pub trait PcPeer {
    fn session(&self) -> usize;
    /// The PC command for this session with the addresses and ports the PC
    /// must use (see [`SessionSpec::pc_command`]).
    fn pc_command(&self, fpga_ip: Ipv4Addr, target_ip: Ipv4Addr, fpga_port: u16, target_port: u16) -> String;
}

impl PcPeer for SessionSpec {
    fn session(&self) -> usize {
        self.session
    }
    fn pc_command(&self, fpga_ip: Ipv4Addr, target_ip: Ipv4Addr, fpga_port: u16, target_port: u16) -> String {
        SessionSpec::pc_command(self, fpga_ip, target_ip, fpga_port, target_port)
    }
}

/// Each spec's session and its recommended PC command, from the board's
/// parameters `p` (addresses and each session's ports).
pub fn pc_commands<S: PcPeer>(p: &crate::params::Params, specs: &[S]) -> Vec<(usize, String)> {
    specs
        .iter()
        .map(|s| {
            let n = s.session();
            (n, s.pc_command(p.fpga_ip, p.target_ip, p.fpga_ports[n], p.target_ports[n]))
        })
        .collect()
}

/// Why a test failed: why it was stopped early (first), then each
/// session's failure as `(session, failure)` gives it; empty when it passed.
pub fn failures<'a>(
    stopped: &Option<String>,
    sessions: impl Iterator<Item = (usize, &'a Option<String>)>,
) -> Vec<String> {
    stopped
        .iter()
        .cloned()
        .chain(sessions.filter_map(|(n, f)| f.as_ref().map(|f| format!("session {n}: {f}"))))
        .collect()
}

/// Checks that no session is given twice.
pub fn check_distinct(sessions: &[usize]) -> Result<(), InputError> {
    for (i, a) in sessions.iter().enumerate() {
        if sessions[..i].contains(a) {
            return Err(InputError::Invalid {
                what: "session".into(),
                input: a.to_string(),
                form: "each session at most once".into(),
            });
        }
    }
    Ok(())
}

/// One session's outcome.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub spec: SessionSpec,
    pub result: SessionResult,
    /// The session reached its peer during the test (else the peer
    /// registers still hold an earlier connection's values).
    pub connected: bool,
    /// `None`: every byte moved and verified; else what went wrong.
    pub failure: Option<String>,
    /// The session's counters as the console read them while the test ran,
    /// one point per new `elapsed`, the final reading last; empty unless
    /// [`RunOptions::trace`] (`--plot`).
    pub trace: Vec<TracePoint>,
}

/// One reading of a session's counters: `elapsed` (user-clock cycles since
/// the connection, the board's own time) and the bytes moved by then.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TracePoint {
    pub elapsed: u64,
    pub tx_bytes: u64,
    pub rx_bytes: u64,
}

/// Session `s`'s result and a reading of its counters taken just before
/// it ([`ops::counters`]: `elapsed` on both sides of the byte counters,
/// the mean taken, so the board running on between register reads, on the
/// virtual board hundreds of cycles, does not show as a rate).
fn read_traced(bus: &mut (impl RegisterBus + ?Sized), s: usize) -> Result<(SessionResult, TracePoint), OpError> {
    let (elapsed, tx_bytes, rx_bytes) = ops::counters(bus, s)?;
    let r = ops::result(bus, s)?;
    Ok((r, TracePoint { elapsed, tx_bytes, rx_bytes }))
}

/// Appends `p` to `trace` when the board's time moved on since the last
/// point (a reading before the connection, `elapsed` 0, is the origin).
fn record(trace: &mut Vec<TracePoint>, p: TracePoint) {
    if trace.last().map_or(true, |last| p.elapsed > last.elapsed) {
        trace.push(p);
    }
}

/// Session `s`'s result; with `trace`, its counters recorded there too
/// ([`read_traced`], [`record`]).
pub fn read_result(
    bus: &mut (impl RegisterBus + ?Sized),
    s: usize,
    trace: Option<&mut Vec<TracePoint>>,
) -> Result<SessionResult, OpError> {
    match trace {
        Some(trace) => {
            let (r, point) = read_traced(bus, s)?;
            record(trace, point);
            Ok(r)
        }
        None => ops::result(bus, s),
    }
}

impl Outcome {
    fn judge(spec: SessionSpec, r: SessionResult, connected: bool) -> Outcome {
        let (tx, rx) = spec.expected();
        let sizes_match = spec.test.open_ended || (r.tx_bytes, r.rx_bytes) == (tx, rx);
        let failure = if r.busy {
            Some("still busy".to_string())
        } else if r.error {
            Some(error_text(&r, Stream::Transfer(spec.test.transfer_size)))
        } else if !r.done {
            Some("did not complete".to_string())
        } else if !sizes_match {
            Some(format!("moved tx {} rx {} bytes, expected tx {tx} rx {rx}", r.tx_bytes, r.rx_bytes))
        } else if r.err_count != 0 {
            Some(format!("{} verification error(s)", r.err_count))
        } else {
            None
        };
        Outcome { spec, result: r, connected, failure, trace: Vec::new() }
    }

    /// MB/s of each direction, from the bytes and `elapsed` at the user
    /// clock; `None` when no time was measured (`elapsed` 0): a rate over
    /// no time is not a number to show.
    pub fn mb_s(&self, khz: u32) -> (Option<f64>, Option<f64>) {
        let r = &self.result;
        if r.elapsed == 0 {
            (None, None)
        } else {
            (Some(r.mb_s(r.tx_bytes, khz)), Some(r.mb_s(r.rx_bytes, khz)))
        }
    }
}

/// The error cause's name, or its number when the console does not know it.
pub fn cause_text(r: &SessionResult) -> String {
    match ErrorCause::from_bits(r.error_cause) {
        Some(c) => c.name().to_string(),
        None => format!("cause {} (unknown to this console)", r.error_cause),
    }
}

/// The stream a session's verifier checked, as a first-error record is
/// worded: a throughput test's transfer, a latency initiator's responses or
/// a latency echo's requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// A throughput test's transfer of this many bytes (`transfer_size`).
    Transfer(u64),
    /// A latency initiator's responses: `count` of `size` bytes each.
    Responses { count: u32, size: u32 },
    /// A latency echo's requests of `size` bytes each, as many as the peer
    /// sends until it closes.
    Requests { size: u32 },
}

impl Stream {
    /// " of the responses' stream" after an offset; nothing for a transfer,
    /// whose offsets are the test's own.
    fn of(self) -> &'static str {
        match self {
            Stream::Transfer(_) => "",
            Stream::Responses { .. } => " of the responses' stream",
            Stream::Requests { .. } => " of the requests' stream",
        }
    }
}

/// A session's error as a test reports it: `error: <cause>`, then the
/// first-error record in the terms of its cause ([`first_error_text`]) when
/// the verifier recorded one. The one wording of every test (throughput and
/// latency alike).
pub fn error_text(r: &SessionResult, stream: Stream) -> String {
    let mut m = format!("error: {}", cause_text(r));
    if let Some(record) = first_error_text(r, stream) {
        let _ = write!(m, " ({record})");
    }
    m
}

/// The first-error record (`err_offset`, `err_expected`, `err_received`,
/// `err_count`) in the terms of the error it describes, for the `stream`
/// the verifier checked; `None` when the record is empty. The verifier
/// fills it differently per cause (`hdl/src/data_verifier.rs`): a mismatch
/// holds the first wrong byte's offset and the expected and received words
/// there; data beyond the expected bytes holds their count as the offset
/// and the received word there (its "expected" word is only the pattern at
/// that offset); a short stream holds the bytes received (and no received
/// word).
pub fn first_error_text(r: &SessionResult, stream: Stream) -> Option<String> {
    if r.err_count == 0 {
        return None;
    }
    let n = r.err_count;
    let (at, of) = (r.err_offset, stream.of());
    Some(match ErrorCause::from_bits(r.error_cause) {
        Some(ErrorCause::Verify) => format!(
            "first wrong byte at offset {at}{of}, expected word {:#010x}, received {:#010x}; {n} error(s)",
            r.err_expected, r.err_received
        ),
        Some(ErrorCause::BeyondSize) => {
            let owed = match stream {
                Stream::Transfer(size) => format!("the transfer size of {size} bytes"),
                Stream::Responses { count, size } => {
                    format!("its {count} responses of {size} bytes, {} in all", u64::from(count) * u64::from(size))
                }
                // An echo takes requests until the peer closes (never past 2^48-1 bytes).
                Stream::Requests { .. } => "the bytes an echo can take".to_string(),
            };
            format!(
                "the peer sent more than {owed}: the surplus starts at offset {at}{of}, received word there {:#010x}; \
                 {n} error(s)",
                r.err_received
            )
        }
        Some(ErrorCause::PeerClosed) => match stream {
            Stream::Transfer(size) => format!("the peer closed the connection after {at} of {size} bytes"),
            Stream::Responses { count, size } => {
                let (whole, part) = (at / u64::from(size.max(1)), at % u64::from(size.max(1)));
                format!(
                    "the peer closed the connection after {at} of {} bytes of responses: \
                     {whole} of {count} responses whole, then {part} of {size} bytes",
                    u64::from(count) * u64::from(size)
                )
            }
            Stream::Requests { size } => {
                let (whole, part) = (at / u64::from(size.max(1)), at % u64::from(size.max(1)));
                format!(
                    "the peer closed the connection in the middle of a request, after {at} bytes of requests: \
                     {whole} requests whole, then {part} of {size} bytes"
                )
            }
        },
        // Another cause ended the test after the verifier had recorded an
        // error whose kind the registers do not say: the record as it is.
        _ => format!(
            "first-error record: offset {at}{of}, expected word {:#010x}, received word {:#010x}; {n} error(s)",
            r.err_expected, r.err_received
        ),
    })
}

/// A rate as the console prints it: `n/a` when none was measured.
fn rate(mb_s: Option<f64>) -> String {
    mb_s.map_or_else(|| "n/a MB/s".to_string(), |v| format!("{v:.0} MB/s"))
}

/// Sums the measured rates; `None` when none was measured.
fn sum_rates(rates: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    rates.flatten().fold(None, |acc, v| Some(acc.unwrap_or(0.0) + v))
}

/// How the test ended.
#[derive(Clone, Debug)]
pub struct Report {
    pub duplex: Duplex,
    pub outcomes: Vec<Outcome>,
    pub user_clock_khz: u32,
    /// Why it stopped early: aborted by the user, or the time limit.
    pub stopped: Option<String>,
}

impl Report {
    pub fn ok(&self) -> bool {
        self.failures().is_empty()
    }

    /// Why the test failed ([`failures`]); empty when it did not.
    pub fn failures(&self) -> Vec<String> {
        failures(&self.stopped, self.outcomes.iter().map(|o| (o.spec.session, &o.failure)))
    }

    /// The totals as the console prints them.
    pub fn totals_text(&self) -> String {
        let khz = self.user_clock_khz;
        let mut s = String::new();
        let (mut tx, mut rx) = (0u64, 0u64);
        for o in &self.outcomes {
            let (a, b) = o.mb_s(khz);
            let r = &o.result;
            let _ = write!(s, "Session {}: ", o.spec.session);
            if r.tx_bytes > 0 || o.spec.expected().0 > 0 {
                let _ = write!(s, "TX {} bytes, {}  ", r.tx_bytes, rate(a));
            }
            if r.rx_bytes > 0 || o.spec.expected().1 > 0 {
                let _ = write!(s, "RX {} bytes, {}  ", r.rx_bytes, rate(b));
            }
            let _ =
                writeln!(s, "{}", o.failure.as_deref().map(|f| format!("FAILED: {f}")).unwrap_or_else(|| "ok".into()));
            tx += r.tx_bytes;
            rx += r.rx_bytes;
        }
        let tx_r = sum_rates(self.outcomes.iter().map(|o| o.mb_s(khz).0));
        let rx_r = sum_rates(self.outcomes.iter().map(|o| o.mb_s(khz).1));
        let _ = writeln!(s, "Total: TX {tx} bytes, {}; RX {rx} bytes, {}", rate(tx_r), rate(rx_r));
        s
    }

    pub fn json(&self) -> serde_json::Value {
        let khz = self.user_clock_khz;
        let sessions: Vec<serde_json::Value> = self
            .outcomes
            .iter()
            .map(|o| {
                let r = &o.result;
                let (a, b) = o.mb_s(khz);
                serde_json::json!({
                    "session": o.spec.session, "mode": o.spec.mode_name(), "client": o.spec.test.client,
                    "transfer_size": o.spec.test.transfer_size, "ok": o.failure.is_none(), "failure": o.failure,
                    "done": r.done, "error": r.error, "error_cause": r.cause_name(),
                    "tx": {"bytes": r.tx_bytes, "mb_per_s": a}, "rx": {"bytes": r.rx_bytes, "mb_per_s": b},
                    "elapsed_cycles": r.elapsed, "err_count": r.err_count, "err_offset": r.err_offset,
                    "err_expected": r.err_expected, "err_received": r.err_received,
                    "peer": if o.connected {
                        serde_json::json!({"port": r.peer_port, "mss": r.peer_mss, "window_scale": r.peer_window_scale})
                    } else {
                        serde_json::Value::Null
                    },
                })
            })
            .collect();
        let bytes = |f: &dyn Fn(&Outcome) -> u64| self.outcomes.iter().map(f).sum::<u64>();
        serde_json::json!({
            "test": if self.duplex == Duplex::Half { "half" } else { "full" },
            "ok": self.ok(), "stopped": self.stopped, "user_clock_khz": khz,
            "sessions": sessions,
            "total": {
                "tx": {"bytes": bytes(&|o| o.result.tx_bytes), "mb_per_s": sum_rates(self.outcomes.iter().map(|o| o.mb_s(khz).0))},
                "rx": {"bytes": bytes(&|o| o.result.rx_bytes), "mb_per_s": sum_rates(self.outcomes.iter().map(|o| o.mb_s(khz).1))},
            },
        })
    }
}

/// Why a running test was told to stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Ctrl-C (SIGINT) or a key in the menu.
    User,
    /// The console's standard output was closed (its reader went away).
    OutputClosed,
    /// A signal that ends the console: SIGTERM or SIGHUP.
    Signal(libc::c_int),
}

impl Stop {
    /// What the console says when it stops a test for this reason.
    pub fn describe(self) -> String {
        match self {
            Stop::User => "aborted by the user".into(),
            Stop::OutputClosed => "standard output closed".into(),
            Stop::Signal(libc::SIGTERM) => "SIGTERM received".into(),
            Stop::Signal(libc::SIGHUP) => "SIGHUP received (the terminal closed)".into(),
            Stop::Signal(n) => format!("signal {n} received"),
        }
    }

    /// The console ends after the test (a signal asked it to terminate).
    pub fn ends_console(self) -> bool {
        matches!(self, Stop::Signal(_))
    }

    fn code(self) -> u8 {
        match self {
            Stop::User => 1,
            Stop::OutputClosed => 2,
            // Signal numbers are below 64.
            Stop::Signal(n) => 64 + n as u8,
        }
    }

    fn from_code(c: u8) -> Option<Stop> {
        match c {
            0 => None,
            1 => Some(Stop::User),
            2 => Some(Stop::OutputClosed),
            n => n.checked_sub(64).map(|sig| Stop::Signal(libc::c_int::from(sig))),
        }
    }
}

/// A request to stop a running test, with its reason: set from a signal
/// handler (a store to an atomic is all a handler may do), the menu's key
/// thread or a failed write to standard output. The first reason stays.
pub struct AbortFlag(AtomicU8);

impl AbortFlag {
    pub const fn new() -> AbortFlag {
        AbortFlag(AtomicU8::new(0))
    }

    /// Asks the test to stop (keeps an earlier reason).
    pub fn request(&self, why: Stop) {
        let _ = self.0.compare_exchange(0, why.code(), Ordering::SeqCst, Ordering::SeqCst);
    }

    /// The reason, once a stop was requested.
    pub fn requested(&self) -> Option<Stop> {
        Stop::from_code(self.0.load(Ordering::SeqCst))
    }

    pub fn clear(&self) {
        self.0.store(0, Ordering::SeqCst);
    }
}

impl Default for AbortFlag {
    fn default() -> Self {
        AbortFlag::new()
    }
}

/// Set while [`with_signals`] runs by SIGINT, SIGTERM and SIGHUP, by a key
/// in the menu, or when standard output closes.
pub static ABORT: AbortFlag = AbortFlag::new();

extern "C" fn on_signal(sig: libc::c_int) {
    ABORT.request(if sig == libc::SIGINT { Stop::User } else { Stop::Signal(sig) });
}

/// The signals that stop a running test instead of ending the process at
/// once: Ctrl-C, `kill` (SIGTERM) and a closed terminal (SIGHUP).
pub const STOP_SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// Runs `f` with SIGINT, SIGTERM and SIGHUP setting [`ABORT`] instead of
/// ending the process, so a test aborts its sessions before the console
/// goes; clears [`ABORT`] first. A signal the console was started with
/// ignored (SIGHUP under `nohup`) stays ignored.
pub fn with_signals<T>(f: impl FnOnce() -> T) -> T {
    ABORT.clear();
    let handler = on_signal as extern "C" fn(libc::c_int) as *const () as libc::sighandler_t;
    let mut saved = Vec::new();
    for sig in STOP_SIGNALS {
        // SAFETY: the handler only stores to an atomic; the old disposition is put back below.
        let old = unsafe { libc::signal(sig, handler) };
        if old == libc::SIG_IGN {
            // SAFETY: restores the ignored disposition at once.
            unsafe { libc::signal(sig, libc::SIG_IGN) };
        }
        saved.push((sig, old));
    }
    let out = f();
    for (sig, old) in saved {
        if old != libc::SIG_ERR {
            // SAFETY: restores the previous disposition.
            unsafe { libc::signal(sig, old) };
        }
    }
    out
}

/// How to run a test.
pub struct RunOptions<'a> {
    /// Longest the whole test may take (connection included); `None`: no limit.
    pub limit: Option<Duration>,
    /// Progress lines this often.
    pub interval: Duration,
    /// Set to abort every session.
    pub abort: &'a AbortFlag,
    /// The console's bus options as typed (`--connect 127.0.0.1:1234`), for
    /// the command that aborts a session still busy.
    pub bus_args: &'a str,
    /// Keep each session's counters for a plot ([`Outcome::trace`]): more
    /// register reads a pass (`read_result` with a trace), so only when asked.
    pub trace: bool,
}

/// The sessions of `specs` still running a test (`status.busy`): starting
/// one would adopt the old test's connection and data.
pub fn busy_sessions(bus: &mut (impl RegisterBus + ?Sized), specs: &[SessionSpec]) -> Result<Vec<usize>, OpError> {
    let sessions: Vec<usize> = specs.iter().map(|s| s.session).collect();
    busy_among(bus, &sessions)
}

/// Those of `sessions` still running a test (`status.busy`).
pub fn busy_among(bus: &mut (impl RegisterBus + ?Sized), sessions: &[usize]) -> Result<Vec<usize>, OpError> {
    let mut busy = Vec::new();
    for &s in sessions {
        if ops::busy(bus, s)? {
            busy.push(s);
        }
    }
    Ok(busy)
}

/// Those of `sessions` running a latency test: busy, with
/// `test_config.test_mode` latency or echo. `ctrl.stop` ends a send (the
/// traffic generator's); a latency test's requests and responses come from
/// its round trips, which do not take it, so `stop` would leave such a test
/// running all its round trips: only `ctrl.abort` ends one early.
pub fn latency_among(bus: &mut (impl RegisterBus + ?Sized), sessions: &[usize]) -> Result<Vec<usize>, OpError> {
    use crate::regs::session::test_config::{TestMode, TEST_MODE};
    let mut latency = Vec::new();
    for &s in sessions {
        let r = crate::regs::session(s).ok_or_else(|| OpError(format!("session {s} does not exist")))?;
        let mode = TestMode::from_bits(TEST_MODE.get(ops::read(bus, r.test_config())?));
        if matches!(mode, Some(TestMode::Latency | TestMode::Echo)) && ops::busy(bus, s)? {
            latency.push(s);
        }
    }
    Ok(latency)
}

/// How a refusal names its sessions: `who` ("session 2 is", "sessions 1, 3
/// are", with the verb given), `it` ("it", "them") and the `--session`
/// arguments of the command that ends them.
struct Named {
    who: String,
    it: &'static str,
    sessions: String,
}

fn named(list: &[usize], one: &str, many: &str) -> Named {
    let numbers: Vec<String> = list.iter().map(usize::to_string).collect();
    let sessions = list.iter().map(|s| format!(" --session {s}")).collect();
    match numbers.as_slice() {
        [n] => Named { who: format!("session {n} {one}"), it: "it", sessions },
        _ => Named { who: format!("sessions {} {many}", numbers.join(", ")), it: "them", sessions },
    }
}

/// The console's bus options as typed, for a command it recommends; a
/// placeholder where none were typed (the menu's tests).
pub fn shown_bus(bus_args: &str) -> &str {
    if bus_args.is_empty() {
        "<bus option>"
    } else {
        bus_args
    }
}

/// Why `stop` refuses the `latency` sessions ([`latency_among`]), and the
/// command that ends them.
pub fn stop_refusal(latency: &[usize], bus_args: &str) -> String {
    let Named { who, it, sessions } = named(latency, "runs", "run");
    let bus = shown_bus(bus_args);
    format!(
        "{who} a latency test, which `stop` cannot end: `ctrl.stop` ends a send, and a latency test's round \
         trips do not take it (the test would run all its round trips); end {it} with `toe-console {bus} \
         abort{sessions}`, or name only the sessions to stop; nothing was written"
    )
}

/// How long [`abort_and_wait`] waits for the aborted sessions to be idle.
pub const ABORT_IDLE_LIMIT: Duration = Duration::from_secs(5);

/// Writes `ctrl.abort` to every one of `sessions`, then waits up to
/// [`ABORT_IDLE_LIMIT`] for all to be idle; false when one is still busy.
pub fn abort_and_wait(bus: &mut (impl RegisterBus + ?Sized), sessions: &[usize]) -> Result<bool, OpError> {
    for &s in sessions {
        ops::abort(bus, s)?;
    }
    let until = Instant::now() + ABORT_IDLE_LIMIT;
    while !busy_among(bus, sessions)?.is_empty() {
        if Instant::now() > until {
            return Ok(false);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    Ok(true)
}

/// Why the console refuses to start a test on `busy` sessions, and how to
/// end the old test.
pub fn busy_message(busy: &[usize], bus_args: &str) -> String {
    let Named { who, it, sessions } = named(busy, "is", "are");
    let bus = shown_bus(bus_args);
    format!(
        "{who} still running a test (status.busy = 1): end {it} with `toe-console {bus} abort{sessions}` \
         or wait for {it} to end; nothing was written"
    )
}

/// What [`follow`] saw of the sessions it followed.
pub struct Followed {
    /// Each session reached its peer during the test.
    pub connected: Vec<bool>,
    /// Why the test was stopped early (every session aborted), if it was.
    pub stopped: Option<String>,
}

/// Starts `sessions` (programmed, `clients[i]` says which open actively)
/// and follows them until none is busy: `read(bus, i)` reads session i's
/// result each pass (20 ms apart), the console says when each connects and
/// ends, and every `opts.interval` a progress line of the seconds and what
/// `progress(bus, since_last)` returns. An abort request or the time limit
/// aborts every session and waits for them to be idle.
#[allow(clippy::type_complexity)]
pub fn follow<B: RegisterBus + ?Sized>(
    bus: &mut B,
    sessions: &[usize],
    clients: &[bool],
    opts: &RunOptions,
    say: &mut dyn FnMut(&str),
    read: &mut dyn FnMut(&mut B, usize) -> Result<SessionResult, OpError>,
    progress: &mut dyn FnMut(&mut B, Duration) -> Result<String, OpError>,
) -> Result<Followed, OpError> {
    ops::start_all(bus, sessions)?;
    say(if clients.iter().any(|c| !c) { "Wait connection" } else { "Connecting" });
    let started = Instant::now();
    // `checked_add`: a limit too far away to represent is no limit.
    let deadline = opts.limit.and_then(|l| started.checked_add(l));
    let mut connected = vec![false; sessions.len()];
    let mut closed = vec![false; sessions.len()];
    let mut next_tick = started + opts.interval;
    let mut last_tick = started;
    let mut stopped = None;
    loop {
        let mut any_busy = false;
        for (i, &s) in sessions.iter().enumerate() {
            let r = read(bus, i)?;
            if !connected[i] && (r.connected || r.tx_bytes + r.rx_bytes > 0 || r.done) && r.peer_port != 0 {
                connected[i] = true;
                say(&format!(
                    "Session {s}: connected, peer port {}, MSS {}, window scale {}",
                    r.peer_port, r.peer_mss, r.peer_window_scale
                ));
            }
            if !closed[i] && !r.busy {
                closed[i] = true;
                let how = if r.error { format!("ended with an error ({})", cause_text(&r)) } else { "closed".into() };
                say(&format!("Session {s}: {how}"));
            }
            any_busy |= r.busy;
        }
        if !any_busy {
            break;
        }
        let now = Instant::now();
        let requested = opts.abort.requested();
        if requested.is_some() || deadline.is_some_and(|d| now > d) {
            let why = match requested {
                Some(stop) => stop.describe(),
                None => format!("time limit of {} s reached", opts.limit.unwrap_or_default().as_secs()),
            };
            say(&format!("{why}: aborting every session"));
            if !abort_and_wait(bus, sessions)? {
                return Err(OpError(format!("sessions still busy {} s after abort", ABORT_IDLE_LIMIT.as_secs())));
            }
            stopped = Some(why);
            break;
        }
        if now >= next_tick {
            next_tick += opts.interval;
            let line = progress(bus, now - last_tick)?;
            last_tick = now;
            say(&format!("{:>4} s {line}", (now - started).as_secs()));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(Followed { connected, stopped })
}

/// Programs, starts and follows `specs`; every line goes to `say`.
pub fn run(
    bus: &mut (impl RegisterBus + ?Sized),
    duplex: Duplex,
    specs: &[SessionSpec],
    user_clock_khz: u32,
    opts: &RunOptions,
    say: &mut dyn FnMut(&str),
) -> Result<Report, OpError> {
    // Claimed first, so no other console can program or start these
    // sessions between the check below and the start (`crate::claim`).
    let sessions: Vec<usize> = specs.iter().map(|s| s.session).collect();
    crate::claim::with_claims(bus, &sessions, opts.bus_args, |bus| {
        run_claimed(bus, duplex, specs, user_clock_khz, opts, say)
    })
}

/// [`run`] once its sessions are claimed.
fn run_claimed(
    bus: &mut (impl RegisterBus + ?Sized),
    duplex: Duplex,
    specs: &[SessionSpec],
    user_clock_khz: u32,
    opts: &RunOptions,
    say: &mut dyn FnMut(&str),
) -> Result<Report, OpError> {
    // A session still busy would take the new start as its own and hand
    // the old test's connection and data to the new one: refuse before
    // anything is written.
    let busy = busy_sessions(bus, specs)?;
    if !busy.is_empty() {
        return Err(OpError(busy_message(&busy, opts.bus_args)));
    }
    for s in specs {
        ops::program(bus, s.session, &s.test)?;
    }
    let sessions: Vec<usize> = specs.iter().map(|s| s.session).collect();
    let clients: Vec<bool> = specs.iter().map(|s| s.test.client).collect();
    let mut traces = vec![Vec::new(); specs.len()];
    let followed = follow(
        bus,
        &sessions,
        &clients,
        opts,
        say,
        &mut |bus, i| read_result(bus, sessions[i], opts.trace.then_some(&mut traces[i])),
        &mut |bus, _| {
            let mut line = String::new();
            for &s in &sessions {
                let r = ops::result(bus, s)?;
                let _ = write!(line, " | S{s} TX {} RX {}", r.tx_bytes, r.rx_bytes);
            }
            Ok(line)
        },
    )?;
    let (connected, stopped) = (followed.connected, followed.stopped);
    let mut outcomes = Vec::new();
    for ((i, s), mut trace) in specs.iter().enumerate().zip(traces) {
        let r = read_result(bus, s.session, opts.trace.then_some(&mut trace))?;
        outcomes.push(Outcome { trace, ..Outcome::judge(*s, r, connected[i]) });
    }
    if stopped.is_none() {
        say(if duplex == Duplex::Half { "Half-duplex test complete" } else { "Full-duplex test complete" });
    }
    Ok(Report { duplex, outcomes, user_clock_khz, stopped })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(r: SessionResult) -> Outcome {
        let spec = SessionSpec::new(
            Duplex::Half,
            0,
            &Answers { mode: 2, size: 1000, packet: DEFAULT_PACKET, verify: true, speed: 100, conn: 1 },
        );
        Outcome::judge(spec, r, true)
    }

    /// Each cause's record says what it holds: the surplus of `beyond_size`
    /// is not an "expected" word (the pattern may go on past the size, so
    /// both words can be equal); a short transfer has no received word.
    #[test]
    fn the_first_error_record_reads_as_its_cause() {
        let rec = SessionResult {
            error: true,
            err_count: 3,
            err_offset: 1000,
            err_expected: 250,
            err_received: 250,
            ..SessionResult::default()
        };
        let with = |c: ErrorCause| outcome(SessionResult { error_cause: c.bits(), ..rec }).failure.unwrap();
        assert_eq!(
            with(ErrorCause::BeyondSize),
            "error: beyond_size (the peer sent more than the transfer size of 1000 bytes: \
             the surplus starts at offset 1000, received word there 0x000000fa; 3 error(s))"
        );
        assert_eq!(
            with(ErrorCause::Verify),
            "error: verify (first wrong byte at offset 1000, expected word 0x000000fa, received 0x000000fa; 3 error(s))"
        );
        let short = SessionResult { error_cause: ErrorCause::PeerClosed.bits(), err_offset: 600, ..rec };
        assert_eq!(
            outcome(short).failure.unwrap(),
            "error: peer_closed (the peer closed the connection after 600 of 1000 bytes)"
        );
        // A cause this console does not know (a newer map): named by its number.
        let unknown = SessionResult { error_cause: 15, err_count: 0, ..rec };
        assert_eq!(outcome(unknown).failure.unwrap(), "error: cause 15 (unknown to this console)");
    }

    /// No rate is computed over no time: `n/a`, and null in JSON.
    #[test]
    fn a_rate_over_no_elapsed_time_is_not_a_number() {
        let r = SessionResult { done: true, rx_bytes: 1000, elapsed: 0, ..SessionResult::default() };
        let report =
            Report { duplex: Duplex::Half, outcomes: vec![outcome(r)], user_clock_khz: 250_000, stopped: None };
        let text = report.totals_text();
        assert_eq!(
            text,
            "Session 0: RX 1000 bytes, n/a MB/s  ok\nTotal: TX 0 bytes, n/a MB/s; RX 1000 bytes, n/a MB/s\n"
        );
        let j = report.json();
        assert_eq!(j["sessions"][0]["rx"]["mb_per_s"], serde_json::Value::Null);
        assert_eq!(j["total"]["rx"]["mb_per_s"], serde_json::Value::Null);
        let timed = SessionResult { elapsed: 250, ..r };
        let report = Report { outcomes: vec![outcome(timed)], ..report };
        assert!(
            report.totals_text().starts_with("Session 0: RX 1000 bytes, 1000 MB/s  ok"),
            "{}",
            report.totals_text()
        );
    }

    #[test]
    fn the_abort_flag_keeps_its_first_reason() {
        let f = AbortFlag::new();
        assert_eq!(f.requested(), None);
        f.request(Stop::Signal(libc::SIGTERM));
        f.request(Stop::User);
        assert_eq!(f.requested(), Some(Stop::Signal(libc::SIGTERM)));
        assert!(f.requested().unwrap().ends_console());
        f.clear();
        f.request(Stop::OutputClosed);
        assert_eq!(f.requested(), Some(Stop::OutputClosed));
        assert!(!Stop::User.ends_console());
        assert_eq!(Stop::Signal(libc::SIGHUP).describe(), "SIGHUP received (the terminal closed)");
    }
}
