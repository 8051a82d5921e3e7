//! A half- or full-duplex test as the reference console runs it: program
//! the sessions, show the PC command each needs, start the servers (passive
//! sessions) before the clients, report the peer once connected, the bytes
//! every second and each close, then the totals. Every wait is bounded;
//! an abort request (Ctrl-C or a key) aborts every session.

use std::fmt::Write as _;
use std::net::Ipv4Addr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use etherbone::RegisterBus;

use crate::input::{self, InputError};
use crate::ops::{self, Mode, OpError, SessionResult, SessionTest};

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
        SessionSpec { session, test, speed }
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

/// Checks that no session is given twice.
pub fn check_distinct(specs: &[SessionSpec]) -> Result<(), InputError> {
    for (i, a) in specs.iter().enumerate() {
        if specs[..i].iter().any(|b| b.session == a.session) {
            return Err(InputError::Invalid {
                what: "session".into(),
                input: a.session.to_string(),
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
}

impl Outcome {
    fn judge(spec: SessionSpec, r: SessionResult, connected: bool) -> Outcome {
        let (tx, rx) = spec.expected();
        let failure = if r.busy {
            Some("still busy".to_string())
        } else if r.error {
            let mut m = format!("error: {}", r.cause_name());
            if r.err_count > 0 {
                let _ = write!(
                    m,
                    " (first wrong byte at offset {}, expected word {:#010x}, received {:#010x}; {} error(s))",
                    r.err_offset, r.err_expected, r.err_received, r.err_count
                );
            }
            Some(m)
        } else if !r.done {
            Some("did not complete".to_string())
        } else if (r.tx_bytes, r.rx_bytes) != (tx, rx) {
            Some(format!("moved tx {} rx {} bytes, expected tx {tx} rx {rx}", r.tx_bytes, r.rx_bytes))
        } else if r.err_count != 0 {
            Some(format!("{} verification error(s)", r.err_count))
        } else {
            None
        };
        Outcome { spec, result: r, connected, failure }
    }

    /// MB/s of each direction, from the bytes and `elapsed` at the user clock.
    pub fn mb_s(&self, khz: u32) -> (f64, f64) {
        (self.result.mb_s(self.result.tx_bytes, khz), self.result.mb_s(self.result.rx_bytes, khz))
    }
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
        self.stopped.is_none() && self.outcomes.iter().all(|o| o.failure.is_none())
    }

    /// The totals as the console prints them.
    pub fn totals_text(&self) -> String {
        let khz = self.user_clock_khz;
        let mut s = String::new();
        let (mut tx, mut rx, mut tx_r, mut rx_r) = (0u64, 0u64, 0.0, 0.0);
        for o in &self.outcomes {
            let (a, b) = o.mb_s(khz);
            let r = &o.result;
            let _ = write!(s, "Session {}: ", o.spec.session);
            if r.tx_bytes > 0 || o.spec.expected().0 > 0 {
                let _ = write!(s, "TX {} bytes, {a:.0} MB/s  ", r.tx_bytes);
            }
            if r.rx_bytes > 0 || o.spec.expected().1 > 0 {
                let _ = write!(s, "RX {} bytes, {b:.0} MB/s  ", r.rx_bytes);
            }
            let _ =
                writeln!(s, "{}", o.failure.as_deref().map(|f| format!("FAILED: {f}")).unwrap_or_else(|| "ok".into()));
            tx += r.tx_bytes;
            rx += r.rx_bytes;
            tx_r += a;
            rx_r += b;
        }
        let _ = writeln!(s, "Total: TX {tx} bytes, {tx_r:.0} MB/s; RX {rx} bytes, {rx_r:.0} MB/s");
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
        let sum = |f: &dyn Fn(&Outcome) -> f64| self.outcomes.iter().map(f).sum::<f64>();
        serde_json::json!({
            "test": if self.duplex == Duplex::Half { "half" } else { "full" },
            "ok": self.ok(), "stopped": self.stopped, "user_clock_khz": khz,
            "sessions": sessions,
            "total": {
                "tx": {"bytes": self.outcomes.iter().map(|o| o.result.tx_bytes).sum::<u64>(), "mb_per_s": sum(&|o| o.mb_s(khz).0)},
                "rx": {"bytes": self.outcomes.iter().map(|o| o.result.rx_bytes).sum::<u64>(), "mb_per_s": sum(&|o| o.mb_s(khz).1)},
            },
        })
    }
}

/// Set by Ctrl-C (SIGINT) while [`with_sigint`] runs, or by a key in the menu.
pub static ABORT: AtomicBool = AtomicBool::new(false);

extern "C" fn on_sigint(_: libc::c_int) {
    ABORT.store(true, Ordering::SeqCst);
}

/// Runs `f` with Ctrl-C setting [`ABORT`] instead of ending the process
/// (so a test aborts its sessions cleanly); clears [`ABORT`] first.
pub fn with_sigint<T>(f: impl FnOnce() -> T) -> T {
    ABORT.store(false, Ordering::SeqCst);
    // SAFETY: the handler only stores to an atomic.
    let old = unsafe {
        libc::signal(libc::SIGINT, on_sigint as extern "C" fn(libc::c_int) as *const () as libc::sighandler_t)
    };
    let out = f();
    // SAFETY: restores the previous disposition.
    unsafe { libc::signal(libc::SIGINT, old) };
    out
}

/// How to run a test.
pub struct RunOptions<'a> {
    /// Longest the whole test may take (connection included).
    pub limit: Duration,
    /// Progress lines this often.
    pub interval: Duration,
    /// Set to abort every session.
    pub abort: &'a AtomicBool,
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
    for s in specs {
        ops::program(bus, s.session, &s.test)?;
    }
    ops::start_all(bus, &specs.iter().map(|s| s.session).collect::<Vec<_>>())?;
    say(if specs.iter().any(|s| !s.test.client) { "Wait connection" } else { "Connecting" });
    let started = Instant::now();
    let deadline = started + opts.limit;
    let mut connected = vec![false; specs.len()];
    let mut closed = vec![false; specs.len()];
    let mut next_tick = started + opts.interval;
    let mut stopped = None;
    loop {
        let mut any_busy = false;
        for (i, s) in specs.iter().enumerate() {
            let r = ops::result(bus, s.session)?;
            if !connected[i] && (r.connected || r.tx_bytes + r.rx_bytes > 0 || r.done) && r.peer_port != 0 {
                connected[i] = true;
                say(&format!(
                    "Session {}: connected, peer port {}, MSS {}, window scale {}",
                    s.session, r.peer_port, r.peer_mss, r.peer_window_scale
                ));
            }
            if !closed[i] && !r.busy {
                closed[i] = true;
                let how = if r.error { format!("ended with an error ({})", r.cause_name()) } else { "closed".into() };
                say(&format!("Session {}: {how}", s.session));
            }
            any_busy |= r.busy;
        }
        if !any_busy {
            break;
        }
        let now = Instant::now();
        if opts.abort.load(Ordering::SeqCst) || now > deadline {
            let why = if opts.abort.load(Ordering::SeqCst) {
                "aborted by the user".to_string()
            } else {
                format!("time limit of {} s reached", opts.limit.as_secs())
            };
            say(&format!("{why}: aborting every session"));
            for s in specs {
                ops::abort(bus, s.session)?;
            }
            let until = Instant::now() + Duration::from_secs(5);
            while specs.iter().try_fold(false, |b, s| ops::busy(bus, s.session).map(|x| b || x))? {
                if Instant::now() > until {
                    return Err(OpError("sessions still busy 5 s after abort".into()));
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            stopped = Some(why);
            break;
        }
        if now >= next_tick {
            next_tick += opts.interval;
            let mut line = format!("{:>4} s ", (now - started).as_secs());
            for s in specs {
                let r = ops::result(bus, s.session)?;
                let _ = write!(line, " | S{} TX {} RX {}", s.session, r.tx_bytes, r.rx_bytes);
            }
            say(&line);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut outcomes = Vec::new();
    for (i, s) in specs.iter().enumerate() {
        outcomes.push(Outcome::judge(*s, ops::result(bus, s.session)?, connected[i]));
    }
    if stopped.is_none() {
        say(if duplex == Duplex::Half { "Half-duplex test complete" } else { "Full-duplex test complete" });
    }
    Ok(Report { duplex, outcomes, user_clock_khz, stopped })
}
