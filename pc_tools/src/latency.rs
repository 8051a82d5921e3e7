//! `tcp_latency`: request-response round trips over one TCP connection, the
//! PC's side of the latency test (netperf's TCP_RR, with requests in
//! flight as its burst mode).
//!
//! - The **initiator** sends `count` requests of `request` bytes, at most
//!   `outstanding` of them unanswered, and times each from the write of
//!   its first byte to the read of its response's last byte (the host's
//!   monotonic clock).
//! - The **echo** answers every `request` bytes it receives with one
//!   response of `response` bytes.
//!
//! Each direction's data is the incremental pattern, going on across
//! transactions (request k is bytes `k * request ..` of the requests'
//! stream), so both sides verify every byte; pattern 0 sends zeros and
//! verifies nothing. Either role can connect or listen.

use std::io::{ErrorKind, Read, Write};
use std::net::{IpAddr, Shutdown, SocketAddr, TcpStream};
use std::path::PathBuf;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use latency::{Histogram, Moments};

use crate::args::{self, ArgError, Command, Role};
use crate::transfer::{self, exit};

/// Largest request or response, bytes.
pub const MAX_MESSAGE: u64 = 1 << 20;
/// Largest `count`.
pub const MAX_COUNT: u64 = u32::MAX as u64;
/// Largest `--outstanding`.
pub const MAX_OUTSTANDING: usize = 16;

pub const USAGE: &str = "\
usage: tcp_latency <mode> <role> <server IP> <server port> <request> <response> <count> [options]
  <mode>         c: connect to the server; s: listen there and serve one connection
  <role>         i: initiator: send requests, time each round trip; e: echo: answer each request
  <server IP>    IPv4 or IPv6 address (mode s: the address to listen on)
  <server port>  1-65535 (mode s: 0-65535, 0 picks a free port)
  <request>      bytes per request, 1-1048576
  <response>     bytes per response, 1-1048576
  <count>        transactions, 1-4294967295
options:
  --outstanding N  requests in flight at most (1-16, default 1: one at a time)
  --pattern P      1: incremental pattern each way, verified (default); 0: zeros, not verified
  --timeout S      seconds (0-86400, 0 = no limit) to wait for connect, accept and each read/write; default 30
  --json           print one JSON document on stdout, the summary or the error (other lines go to stderr)
  --plot FILE.svg  initiator: draw the round trips' histogram (log time axis, percentiles marked)
  -h, --help       this text";

/// The command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LatencyArgs {
    pub role: Role,
    pub initiator: bool,
    pub ip: IpAddr,
    pub port: u16,
    pub request: u64,
    pub response: u64,
    pub count: u64,
    pub outstanding: usize,
    pub pattern: bool,
    pub timeout: Option<Duration>,
    pub json: bool,
    /// `--plot FILE.svg`: the initiator's histogram as a picture.
    pub plot: Option<PathBuf>,
}

fn number(name: &str, text: &str, min: u64, max: u64) -> Result<u64, ArgError> {
    let v = args::parse_number(text).filter(|v| (min..=max).contains(v));
    v.ok_or_else(|| ArgError(format!("argument {name}: '{text}' is not a number in {min}..={max}")))
}

/// Parses `tcp_latency` arguments (without the program name).
pub fn parse<S: AsRef<str>>(argv: &[S]) -> Result<Command<LatencyArgs>, ArgError> {
    let mut pos = Vec::new();
    let (mut outstanding, mut pattern, mut timeout, mut json) = (1, true, Some(Duration::from_secs(30)), false);
    let mut plot = None;
    let mut it = argv.iter().map(AsRef::as_ref);
    while let Some(a) = it.next() {
        let (name, inline) = match a.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v)),
            _ => (a, None),
        };
        let mut value = |name: &str| {
            inline
                .map(str::to_string)
                .or_else(|| it.next().map(str::to_string))
                .ok_or_else(|| ArgError(format!("option {name} needs a value")))
        };
        match name {
            "-h" | "--help" => return Ok(Command::Help),
            "--json" => json = true,
            "--plot" => plot = Some(PathBuf::from(value(name)?)),
            "--outstanding" => {
                outstanding = number("--outstanding", &value(name)?, 1, MAX_OUTSTANDING as u64)? as usize
            }
            "--pattern" => {
                pattern = match value(name)?.as_str() {
                    "1" => true,
                    "0" => false,
                    other => return Err(ArgError(format!("option --pattern: '{other}' is not 0 or 1"))),
                }
            }
            "--timeout" => {
                let s = number("--timeout", &value(name)?, 0, args::MAX_TIMEOUT_S)?;
                timeout = (s > 0).then(|| Duration::from_secs(s));
            }
            n if n.starts_with("--") => return Err(ArgError(format!("unknown option {n}"))),
            _ => pos.push(a.to_string()),
        }
    }
    if pos.len() != 7 {
        return Err(ArgError(format!(
            "expected 7 arguments <mode> <role> <server IP> <server port> <request> <response> <count>, got {}",
            pos.len()
        )));
    }
    let role = match pos[0].as_str() {
        "c" | "C" => Role::Client,
        "s" | "S" => Role::Server,
        other => {
            return Err(ArgError(format!("argument <mode>: '{other}' is not valid; use c (client) or s (server)")))
        }
    };
    let initiator = match pos[1].as_str() {
        "i" | "I" => true,
        "e" | "E" => false,
        other => {
            return Err(ArgError(format!("argument <role>: '{other}' is not valid; use i (initiator) or e (echo)")))
        }
    };
    let ip: IpAddr = pos[2]
        .parse()
        .map_err(|_| ArgError(format!("argument <server IP>: '{}' is not an IPv4 or IPv6 address", pos[2])))?;
    let min_port = if role == Role::Server { 0 } else { 1 };
    let port = number("<server port>", &pos[3], min_port, 65_535)? as u16;
    let request = number("<request>", &pos[4], 1, MAX_MESSAGE)?;
    let response = number("<response>", &pos[5], 1, MAX_MESSAGE)?;
    let count = number("<count>", &pos[6], 1, MAX_COUNT)?;
    if plot.is_some() && !initiator {
        return Err(ArgError("option --plot: only the initiator (role i) times round trips".into()));
    }
    Ok(Command::Run(LatencyArgs {
        role,
        initiator,
        ip,
        port,
        request,
        response,
        count,
        outstanding,
        pattern,
        timeout,
        json,
        plot,
    }))
}

/// Round-trip statistics, nanoseconds.
#[derive(Clone, Debug, PartialEq)]
pub struct Stats {
    pub count: u64,
    pub min: u64,
    pub max: u64,
    pub mean: f64,
    /// Population standard deviation.
    pub stddev: f64,
    pub p50: u64,
    pub p90: u64,
    pub p99: u64,
    pub p999: u64,
    /// Mean of |RTT(i) - RTT(i-1)| over consecutive transactions (RFC 3550's
    /// jitter before smoothing); 0 for one sample.
    pub jitter: f64,
    /// The round trips in crate `latency`'s log-linear buckets (the scheme
    /// the hardware's latency histogram keeps), in nanoseconds.
    pub histogram: Histogram,
}

impl Stats {
    /// The statistics of `samples` in the order they were taken; `None`
    /// when there are none.
    pub fn of(samples: &[u64]) -> Option<Stats> {
        if samples.is_empty() {
            return None;
        }
        let mut moments = Moments::new();
        let mut histogram = Histogram::new();
        for &s in samples {
            moments.record(s);
            histogram.record(s);
        }
        let mut sorted = samples.to_vec();
        sorted.sort_unstable();
        // Nearest rank: the smallest sample with at least q of them at or below it.
        let n = sorted.len() as f64;
        let pct = |q: f64| sorted[((q * n).ceil() as usize).clamp(1, sorted.len()) - 1];
        Some(Stats {
            count: moments.count,
            min: moments.min,
            max: moments.max,
            mean: moments.mean(),
            stddev: moments.stddev(),
            p50: pct(0.5),
            p90: pct(0.9),
            p99: pct(0.99),
            p999: pct(0.999),
            jitter: moments.jitter(),
            histogram,
        })
    }

    pub fn text(&self) -> String {
        let us = |ns: f64| format!("{:.1} us", ns / 1000.0);
        format!(
            "count {}  min {}  mean {}  stddev {}  p50 {}  p90 {}  p99 {}  p99.9 {}  max {}  jitter {}",
            self.count,
            us(self.min as f64),
            us(self.mean),
            us(self.stddev),
            us(self.p50 as f64),
            us(self.p90 as f64),
            us(self.p99 as f64),
            us(self.p999 as f64),
            us(self.max as f64),
            us(self.jitter)
        )
    }

    /// The histogram as text: at most `HISTOGRAM_ROWS` rows (neighbouring
    /// buckets merged when there are more), bounds in microseconds.
    pub fn histogram_text(&self) -> Vec<String> {
        self.histogram.text(HISTOGRAM_ROWS, 40, &|ns| format!("{:.1} us", ns as f64 / 1000.0))
    }
}

/// Rows of the text histogram.
pub const HISTOGRAM_ROWS: usize = 24;

/// A failed run: the message and the exit status.
#[derive(Debug)]
pub struct Failure(pub i32, pub String);

fn io_failure(what: &str, e: std::io::Error) -> Failure {
    match e.kind() {
        ErrorKind::WouldBlock | ErrorKind::TimedOut => {
            Failure(exit::RESET, format!("{what}: no progress within the timeout"))
        }
        ErrorKind::UnexpectedEof => Failure(exit::CLOSED_EARLY, format!("{what}: the peer closed the connection")),
        _ => Failure(exit::RESET, format!("{what}: {e}")),
    }
}

/// Reads all of `buf` (one response or request); a failure carries the
/// bytes of it that had come, so a message cut short by the peer's close
/// says so.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> Result<(), (usize, std::io::Error)> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => return Err((got, ErrorKind::UnexpectedEof.into())),
            Ok(n) => got += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err((got, e)),
        }
    }
    Ok(())
}

/// Fills `buf` with the stream's bytes from `offset` (zeros without the pattern).
fn fill(buf: &mut [u8], offset: u64, pattern: bool) {
    if pattern {
        pattern::fill(buf, offset);
    } else {
        buf.fill(0);
    }
}

/// Whether `buf` holds the stream's bytes from `offset`.
fn verified(buf: &[u8], offset: u64, pattern: bool) -> bool {
    !pattern || pattern::first_mismatch(buf, offset).is_none()
}

/// What a run measured.
#[derive(Debug)]
pub struct Outcome {
    /// Transactions completed (answered, for the echo).
    pub transactions: u64,
    /// Transactions with a byte that differs from the pattern.
    pub verify_errors: u64,
    /// The initiator's round trips, in order.
    pub samples: Vec<u64>,
}

/// Opens the connection as `a` says; `say` gets the listening line.
pub fn open(a: &LatencyArgs, say: &mut dyn FnMut(&str)) -> Result<TcpStream, Failure> {
    let addr = SocketAddr::new(a.ip, a.port);
    let stream = match a.role {
        Role::Client => transfer::connect(addr, a.timeout),
        Role::Server => {
            let l = transfer::listen(addr).map_err(|e| Failure(e.exit_code(), e.to_string()))?;
            let bound = l.local_addr().map_err(|e| io_failure("listen", e))?;
            say(&format!("listening on {bound}"));
            transfer::accept(&l, a.timeout)
        }
    }
    .map_err(|e| Failure(e.exit_code(), e.to_string()))?;
    let _ = stream.set_nodelay(true);
    stream
        .set_read_timeout(a.timeout)
        .and_then(|_| stream.set_write_timeout(a.timeout))
        .map_err(|e| io_failure("socket", e))?;
    Ok(stream)
}

/// The initiator: requests from a writer thread, at most `outstanding`
/// unanswered; responses read and timed here, into `out` (which keeps what
/// was measured when the run fails). After the last response the stream
/// must end: the echo answers each request with exactly `response` bytes
/// and closes after the initiator's close, so a byte more is an error
/// (exit 6), as `tcpdatatest` treats surplus.
pub fn initiate(a: &LatencyArgs, stream: TcpStream, out: &mut Outcome) -> Result<(), Failure> {
    let mut writer = stream.try_clone().map_err(|e| io_failure("socket", e))?;
    let mut reader = stream;
    let (permit_tx, permit_rx) = mpsc::sync_channel::<()>(a.outstanding);
    for _ in 0..a.outstanding {
        let _ = permit_tx.send(());
    }
    let (sent_tx, sent_rx) = mpsc::channel::<Instant>();
    let (count, request, pattern) = (a.count, a.request, a.pattern);
    let writer_thread = thread::spawn(move || -> Result<(), Failure> {
        let mut buf = vec![0u8; request as usize];
        for k in 0..count {
            if permit_rx.recv().is_err() {
                return Ok(()); // the reader gave up
            }
            fill(&mut buf, k * request, pattern);
            let t = Instant::now();
            writer.write_all(&buf).map_err(|e| io_failure(&format!("sending request {k}"), e))?;
            if sent_tx.send(t).is_err() {
                return Ok(());
            }
        }
        // Every request sent: the echo answers the last and sees the end.
        let _ = writer.shutdown(Shutdown::Write);
        Ok(())
    });
    let mut buf = vec![0u8; a.response as usize];
    out.samples.reserve(a.count.min(1 << 24) as usize);
    let mut result = Ok(());
    for k in 0..a.count {
        if let Err((got, e)) = read_full(&mut reader, &mut buf) {
            result = Err(io_failure(&format!("receiving response {k} ({got} of {} bytes)", a.response), e));
            break;
        }
        let done = Instant::now();
        let Ok(t) = sent_rx.recv() else {
            result = Err(Failure(exit::TOO_MUCH, format!("response {k} arrived before its request was sent")));
            break;
        };
        out.samples.push(done.duration_since(t).as_nanos() as u64);
        out.transactions += 1;
        out.verify_errors += u64::from(!verified(&buf, k * a.response, a.pattern));
        let _ = permit_tx.send(());
    }
    drop(permit_tx);
    if result.is_err() {
        // Unblocks a writer held by a peer that stopped reading.
        let _ = reader.shutdown(Shutdown::Both);
    }
    let written = writer_thread.join().unwrap_or_else(|_| Err(Failure(exit::RESET, "the writer thread failed".into())));
    let result = result.and(written).and_then(|_| end_of_responses(a, &mut reader));
    let _ = reader.shutdown(Shutdown::Both);
    result
}

/// After the last response (every request sent and the sending side
/// closed): the peer's close must come next, with no byte before it.
fn end_of_responses(a: &LatencyArgs, reader: &mut TcpStream) -> Result<(), Failure> {
    let expected = a.count * a.response;
    let mut extra = [0u8; 4096];
    loop {
        match reader.read(&mut extra) {
            Ok(0) => return Ok(()),
            Ok(n) => {
                let (count, response, received) = (a.count, a.response, expected + n as u64);
                return Err(Failure(
                    exit::TOO_MUCH,
                    format!(
                        "peer sent more data than expected: received at least {received} bytes, \
                         expected {expected} bytes ({count} responses of {response} bytes)"
                    ),
                ));
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(io_failure("waiting for the peer to close after the last response", e)),
        }
    }
}

/// The echo: one response for every request, until the initiator closes;
/// counts into `out`.
pub fn echo(a: &LatencyArgs, mut stream: TcpStream, out: &mut Outcome) -> Result<(), Failure> {
    let mut req = vec![0u8; a.request as usize];
    let mut resp = vec![0u8; a.response as usize];
    loop {
        // The first byte tells a clean end (the initiator closed between
        // requests) from a request cut short.
        match stream.read(&mut req[..1]) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => return Err(io_failure(&format!("receiving request {}", out.transactions), e)),
        }
        let k = out.transactions;
        read_full(&mut stream, &mut req[1..]).map_err(|(got, e)| {
            io_failure(&format!("receiving request {k} ({} of {} bytes)", got + 1, a.request), e)
        })?;
        out.verify_errors += u64::from(!verified(&req, k * a.request, a.pattern));
        fill(&mut resp, k * a.response, a.pattern);
        stream.write_all(&resp).map_err(|e| io_failure(&format!("sending response {k}"), e))?;
        out.transactions += 1;
    }
    if out.transactions != a.count {
        return Err(Failure(
            exit::CLOSED_EARLY,
            format!("the initiator closed after {} requests, expected {}", out.transactions, a.count),
        ));
    }
    Ok(())
}

/// The JSON document, the summary or the error: `stats` are
/// `Stats::of(&out.samples)`, `code` the exit status and `error` its
/// message (`None` for 0).
pub fn json(
    a: &LatencyArgs,
    out: &Outcome,
    stats: Option<&Stats>,
    code: i32,
    error: Option<&str>,
) -> serde_json::Value {
    let mut v = serde_json::json!({
        "role": if a.initiator { "initiator" } else { "echo" },
        "request": a.request,
        "response": a.response,
        "outstanding": a.outstanding,
        "count": out.transactions,
        "verify_errors": out.verify_errors,
        // Every transaction done, every byte as the pattern says and
        // nothing else wrong: exit status 0, as the other tools' `ok`.
        "ok": code == exit::OK && out.transactions == a.count && out.verify_errors == 0,
        "exit_code": code,
        "error": error,
    });
    if let Some(s) = stats {
        for (k, x) in [
            ("min_ns", s.min as f64),
            ("mean_ns", s.mean),
            ("stddev_ns", s.stddev),
            ("p50_ns", s.p50 as f64),
            ("p90_ns", s.p90 as f64),
            ("p99_ns", s.p99 as f64),
            ("p999_ns", s.p999 as f64),
            ("max_ns", s.max as f64),
            ("jitter_ns", s.jitter),
        ] {
            v[k] = x.into();
        }
        v["histogram"] = s
            .histogram
            .buckets()
            .map(|b| serde_json::json!({ "lo_ns": b.lo, "hi_ns": b.hi, "count": b.count }))
            .collect::<Vec<_>>()
            .into();
    }
    v
}

/// Runs the whole tool; returns the exit status.
pub fn main(argv: &[String], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    const TOOL: &str = "tcp_latency";
    let a = match parse(argv) {
        Ok(Command::Help) => {
            let _ = writeln!(out, "{USAGE}");
            return exit::OK;
        }
        Ok(Command::Run(a)) => a,
        Err(e) => {
            let _ = writeln!(err, "{TOOL}: error: {e} (see {TOOL} --help)");
            return exit::USAGE;
        }
    };
    if let Some(path) = &a.plot {
        if let Err(e) = plots::check_path(path) {
            let _ = writeln!(err, "{TOOL}: error: {e}");
            return exit::USAGE;
        }
    }
    let mut o = Outcome { transactions: 0, verify_errors: 0, samples: Vec::new() };
    let result = {
        let mut say = |l: &str| {
            // Progress goes to stdout, or to stderr with --json.
            let _ = if a.json { writeln!(err, "{l}") } else { writeln!(out, "{l}") };
        };
        open(&a, &mut say)
            .and_then(|stream| if a.initiator { initiate(&a, stream, &mut o) } else { echo(&a, stream, &mut o) })
    };
    // Sorted once for the percentiles, whatever is printed or drawn.
    let stats = Stats::of(&o.samples);
    if let Err(Failure(code, msg)) = result {
        // With --json the document is the error, with what was measured
        // before it; without, the error line alone.
        if a.json {
            let _ = writeln!(out, "{}", json(&a, &o, stats.as_ref(), code, Some(&msg)));
        }
        let _ = writeln!(err, "{TOOL}: error: {msg}");
        return code;
    }
    let mut errors = Vec::new();
    if o.verify_errors > 0 {
        errors.push((exit::MISMATCH, format!("{} transactions differ from the incremental pattern", o.verify_errors)));
    }
    // Drawn before the summary is printed, so that the JSON's exit status
    // is the tool's.
    let drawn =
        a.plot.as_ref().map(|path| (path, plot_svg(&a, stats.as_ref()).and_then(|svg| plots::write(path, &svg))));
    if let Some((_, Err(e))) = &drawn {
        errors.push((exit::PLOT, e.clone()));
    }
    // The plot's failure decides the status (8) when both fail; each gets its line.
    let (code, error) = errors.last().map_or((exit::OK, None), |(c, m)| (*c, Some(m.as_str())));
    if a.json {
        let _ = writeln!(out, "{}", json(&a, &o, stats.as_ref(), code, error));
    } else {
        let role = if a.initiator { "initiator" } else { "echo" };
        let _ = writeln!(
            out,
            "{role}: {} transactions of {} -> {} bytes, up to {} in flight, {} verification errors",
            o.transactions, a.request, a.response, a.outstanding, o.verify_errors
        );
        if let Some(s) = &stats {
            let _ = writeln!(out, "{}", s.text());
            let _ = writeln!(out, "round trips (16 buckets per power of two, each within 1/16 of its value):");
            for line in s.histogram_text() {
                let _ = writeln!(out, "  {line}");
            }
        }
        if let Some((path, Ok(()))) = &drawn {
            let _ = writeln!(out, "plot: {}", path.display());
        }
    }
    for (_, m) in &errors {
        let _ = writeln!(err, "{TOOL}: error: {m}");
    }
    code
}

/// The initiator's round trips (`stats`, none for no sample) as an SVG
/// histogram: every bucket with samples on a log axis in microseconds, p50,
/// p90, p99 and p99.9 marked.
pub fn plot_svg(a: &LatencyArgs, stats: Option<&Stats>) -> Result<String, String> {
    let us = |ns: u64| ns as f64 / 1000.0;
    let (bars, marks) = match stats {
        Some(s) => (
            s.histogram
                .buckets()
                // A log axis starts above 0: a 0 ns bucket is drawn from 0.5 ns.
                .map(|b| plots::Bar {
                    lo: (b.lo as f64).max(0.5) / 1000.0,
                    end: us(b.hi.saturating_add(1)),
                    count: b.count,
                })
                .collect(),
            [("p50", s.p50), ("p90", s.p90), ("p99", s.p99), ("p99.9", s.p999)]
                .iter()
                .map(|&(name, ns)| (format!("{name} {:.1} us", us(ns)), us(ns)))
                .collect(),
        ),
        None => (Vec::new(), Vec::new()),
    };
    plots::histogram_svg(
        &format!(
            "tcp_latency: {} round trips of {} -> {} bytes, up to {} in flight",
            stats.map_or(0, |s| s.count),
            a.request,
            a.response,
            a.outstanding
        ),
        "round trip (us, host monotonic clock; 16 buckets per power of two)",
        &bars,
        &marks,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics_of_known_samples() {
        let s = Stats::of(&[10, 40, 20, 30]).unwrap();
        assert_eq!((s.count, s.min, s.max), (4, 10, 40));
        assert_eq!(s.mean, 25.0);
        assert!((s.stddev - 125f64.sqrt()).abs() < 1e-9, "{}", s.stddev);
        // |40-10| + |20-40| + |30-20| = 60 over 3 steps.
        assert_eq!(s.jitter, 20.0);
        // Nearest rank of 4 sorted samples 10 20 30 40.
        assert_eq!((s.p50, s.p90, s.p99, s.p999), (20, 40, 40, 40));
        let many: Vec<u64> = (1..=1000).collect();
        let s = Stats::of(&many).unwrap();
        assert_eq!((s.p50, s.p90, s.p99, s.p999), (500, 900, 990, 999));
        assert_eq!(Stats::of(&[]), None);
    }

    /// The histogram counts every sample in its bucket; the JSON lists the
    /// buckets with samples, bounds in ns, and they add up to the count.
    #[test]
    fn histogram_of_known_samples() {
        let s = Stats::of(&[10, 10, 40, 1000, 1001, 1030]).unwrap();
        let b: Vec<(u64, u64, u64)> = s.histogram.buckets().map(|b| (b.lo, b.hi, b.count)).collect();
        // 1000 and 1001 share [992, 1023]; 1030 is in [1024, 1087].
        assert_eq!(b, vec![(10, 10, 2), (40, 41, 1), (992, 1023, 2), (1024, 1087, 1)]);
        let a = match parse(&["c", "i", "127.0.0.1", "1", "64", "64", "6", "--json"]) {
            Ok(Command::Run(a)) => a,
            other => panic!("{other:?}"),
        };
        let out = Outcome { transactions: 6, verify_errors: 0, samples: vec![10, 10, 40, 1000, 1001, 1030] };
        let j = json(&a, &out, Some(&s), 0, None);
        let h = j["histogram"].as_array().expect("a histogram list");
        assert_eq!(h.len(), 4);
        assert_eq!(
            (h[2]["lo_ns"].as_u64(), h[2]["hi_ns"].as_u64(), h[2]["count"].as_u64()),
            (Some(992), Some(1023), Some(2))
        );
        assert_eq!(h.iter().map(|b| b["count"].as_u64().unwrap()).sum::<u64>(), 6);
        assert_eq!(j["ok"], true);
        // One transaction short, or one with a wrong byte: not ok.
        assert_eq!(json(&a, &Outcome { transactions: 5, ..out }, Some(&s), 0, None)["ok"], false);
        assert_eq!(
            json(&a, &Outcome { verify_errors: 1, transactions: 6, samples: vec![] }, None, 0, None)["ok"],
            false
        );
        let text = s.histogram_text();
        assert_eq!(text.len(), 4, "{text:?}");
        assert!(text[2].contains("1.0 us") && text[2].contains(" 2 "), "{text:?}");
    }

    #[test]
    fn arguments_name_the_field_and_its_range() {
        let p = |a: &str| parse(&a.split_whitespace().collect::<Vec<_>>());
        assert!(
            matches!(p("c i 127.0.0.1 5000 64 64 1000 --outstanding 4"), Ok(Command::Run(a)) if a.outstanding == 4)
        );
        let e = p("c i 127.0.0.1 5000 64 64 1000 --outstanding 17").unwrap_err();
        assert_eq!(e.0, "argument --outstanding: '17' is not a number in 1..=16");
        let e = p("c i 127.0.0.1 5000 0 64 10").unwrap_err();
        assert_eq!(e.0, "argument <request>: '0' is not a number in 1..=1048576");
        let e = p("c x 127.0.0.1 5000 64 64 10").unwrap_err();
        assert!(e.0.contains("<role>"), "{e}");
        assert!(p("c i 127.0.0.1 5000 64 64").unwrap_err().0.contains("expected 7 arguments"));
        assert!(p("c i 127.0.0.1 0 64 64 10").unwrap_err().0.contains("<server port>"));
        assert!(matches!(p("s e 127.0.0.1 0 64 64 10 --pattern 0"), Ok(Command::Run(a)) if !a.pattern && a.port == 0));
        assert!(matches!(p("c i 127.0.0.1 5000 64 64 10 --plot rtt.svg"), Ok(Command::Run(a)) if a.plot.is_some()));
        let e = p("s e 127.0.0.1 0 64 64 10 --plot rtt.svg").unwrap_err();
        assert_eq!(e.0, "option --plot: only the initiator (role i) times round trips");
    }
}
