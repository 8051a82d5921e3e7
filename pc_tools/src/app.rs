//! Runs the sessions of one tool invocation, prints progress once a second
//! and the final summary (human-readable or JSON), and picks the exit status.
//!
//! Session threads never print: they send events to the main thread, which
//! owns both output streams, so lines never interleave.

use std::io::Write;
use std::net::{SocketAddr, TcpListener};
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::args::{Options, Role, Transfer};
use crate::transfer::{self, exit, mb_per_s, Counts, Leg, Plan, Progress, SessionReport, TransferError};

/// One invocation of a tool, after argument parsing.
#[derive(Clone, Debug)]
pub struct Job {
    /// Program name used to prefix error lines.
    pub tool: &'static str,
    /// "transmit", "receive" or "duplex" (JSON and header line).
    pub dir: &'static str,
    /// Printed when every session succeeded ("half-duplex test complete").
    pub complete: &'static str,
    pub role: Role,
    pub transfer: Transfer,
    pub options: Options,
    pub plan: Plan,
}

enum Event {
    Connected(usize, SocketAddr, SocketAddr),
    Done(usize, Result<SessionReport, TransferError>),
}

/// Where the lines go: `out` gets the header, connection, progress and
/// summary lines, or with `--json` only the JSON document (the other lines
/// then go to `err`); `err` always gets the error lines.
pub struct Sinks<'a> {
    pub out: &'a mut dyn Write,
    pub err: &'a mut dyn Write,
}

fn buffer_label(bytes: usize) -> String {
    if bytes >= 1 << 20 {
        format!("{} MB", bytes >> 20)
    } else {
        format!("{} KB", bytes >> 10)
    }
}

/// Runs the job to completion and returns the process exit status.
pub fn run(job: &Job, sinks: Sinks<'_>) -> i32 {
    let Sinks { out, err } = sinks;
    let json = job.options.json;
    // With --json, stdout carries only the JSON document.
    let say = |out: &mut dyn Write, err: &mut dyn Write, line: String| {
        let w: &mut dyn Write = if json { err } else { out };
        // A closed stdout must not stop the transfer; ignore write errors.
        let _ = writeln!(w, "{line}");
        let _ = w.flush();
    };

    let t = &job.transfer;
    let n = usize::from(job.options.sessions);
    let role = match job.role {
        Role::Client => "client",
        Role::Server => "server",
    };
    say(
        out,
        err,
        format!(
            "{}: {role}, {}, {}, {} bytes, pattern {} ({}), buffer {}, {} session{}",
            job.tool,
            job.dir,
            SocketAddr::new(t.ip, t.port),
            t.bytelen,
            u8::from(t.pattern),
            match (t.pattern, job.plan.rx_len > 0) {
                (true, true) => "incremental, verified",
                (true, false) => "incremental",
                (false, true) => "dummy, not verified",
                (false, false) => "dummy zeros",
            },
            buffer_label(t.buffer),
            n,
            if n == 1 { "" } else { "s" }
        ),
    );
    if let Some(at) = job.plan.corrupt {
        say(out, err, format!("fault injection: the byte at offset {at} is sent with its lowest bit flipped"));
    }

    let addrs: Vec<SocketAddr> =
        (0..n).map(|i| SocketAddr::new(t.ip, if t.port == 0 { 0 } else { t.port + i as u16 })).collect();

    // Servers bind every port before any session starts, so a client started
    // right after the "listening" lines never finds a port closed.
    let mut listeners: Vec<Option<TcpListener>> = Vec::with_capacity(n);
    if job.role == Role::Server {
        for (i, &addr) in addrs.iter().enumerate() {
            match transfer::listen(addr) {
                Ok(l) => {
                    let bound = l.local_addr().unwrap_or(addr);
                    let prefix = if n == 1 { String::new() } else { format!("session {i}: ") };
                    say(out, err, format!("{prefix}listening on {bound}"));
                    listeners.push(Some(l));
                }
                Err(e) => return fail(job, out, err, &[(i, e)], &[]),
            }
        }
    } else {
        listeners.resize_with(n, || None);
    }

    let progress: Vec<Progress> = (0..n).map(|_| Progress::default()).collect();
    let (events_tx, events) = mpsc::channel::<Event>();
    let mut results: Vec<Option<Result<SessionReport, TransferError>>> = (0..n).map(|_| None).collect();

    thread::scope(|s| {
        for (i, listener) in listeners.into_iter().enumerate() {
            let events_tx = events_tx.clone();
            let progress = &progress[i];
            let addr = addrs[i];
            let plan = job.plan;
            let timeout = job.options.timeout;
            s.spawn(move || {
                let stream = match listener {
                    Some(l) => transfer::accept(&l, timeout),
                    None => transfer::connect(addr, timeout),
                };
                let result = stream.and_then(|stream| {
                    if let (Ok(l), Ok(p)) = (stream.local_addr(), stream.peer_addr()) {
                        let _ = events_tx.send(Event::Connected(i, l, p));
                    }
                    transfer::run_session(stream, &plan, progress)
                });
                let _ = events_tx.send(Event::Done(i, result));
            });
        }
        drop(events_tx);

        let mut first_connect: Option<Instant> = None;
        let mut next_tick: Option<Instant> = None;
        let mut last = (0u64, 0u64);
        let mut pending = n;
        while pending > 0 {
            let wait = next_tick.map_or(Duration::from_millis(200), |t| t.saturating_duration_since(Instant::now()));
            match events.recv_timeout(wait) {
                Ok(Event::Connected(i, local, peer)) => {
                    let prefix = if n == 1 { String::new() } else { format!("session {i}: ") };
                    say(out, err, format!("{prefix}connected {local} -> {peer}"));
                    if first_connect.is_none() {
                        let now = Instant::now();
                        first_connect = Some(now);
                        next_tick = Some(now + Duration::from_secs(1));
                    }
                }
                Ok(Event::Done(i, r)) => {
                    results[i] = Some(r);
                    pending -= 1;
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                // Every sender is gone although sessions are pending: a
                // session thread died; the loop below reports it.
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            if let (Some(start), Some(tick)) = (first_connect, next_tick) {
                let now = Instant::now();
                if now >= tick {
                    let tx: u64 = progress.iter().map(|p| p.tx.load(Ordering::Relaxed)).sum();
                    let rx: u64 = progress.iter().map(|p| p.rx.load(Ordering::Relaxed)).sum();
                    let dt = Duration::from_secs(1);
                    if !job.options.quiet && pending > 0 {
                        let mut parts = Vec::new();
                        if job.plan.tx_len > 0 {
                            parts.push(format!("tx {tx} bytes ({})", rate(tx - last.0, dt)));
                        }
                        if job.plan.rx_len > 0 {
                            parts.push(format!("rx {rx} bytes ({})", rate(rx - last.1, dt)));
                        }
                        let secs = (tick - start).as_secs();
                        say(out, err, format!("{secs} s: {}", parts.join(", ")));
                    }
                    last = (tx, rx);
                    next_tick = Some(tick + dt);
                }
            }
        }
    });

    let mut reports = Vec::new();
    let mut failures = Vec::new();
    for (i, r) in results.into_iter().enumerate() {
        match r {
            Some(Ok(rep)) => reports.push((i, rep)),
            Some(Err(e)) => failures.push((i, e)),
            None => failures.push((
                i,
                TransferError::Io {
                    way: transfer::Way::Rx,
                    counts: Counts::of(&job.plan, &progress[i]),
                    err: std::io::Error::other("session thread ended without a result"),
                },
            )),
        }
    }
    if !failures.is_empty() {
        return fail(job, out, err, &failures, &reports);
    }
    summary(job, out, err, &reports);
    exit::OK
}

fn leg_line(name: &str, leg: &Leg, pattern: bool, receiving: bool) -> String {
    let check = match (receiving, pattern) {
        (true, true) => ", pattern verified",
        (true, false) => ", not verified",
        (false, true) => ", incremental pattern",
        (false, false) => ", dummy data",
    };
    format!("{name}: {}{check}", amount(leg.bytes, leg.elapsed))
}

/// A duration as the summary prints it: seconds to the millisecond from one
/// second up, below that milliseconds to the microsecond.
fn time_text(d: Duration) -> String {
    if d >= Duration::from_secs(1) {
        format!("{:.3} s", d.as_secs_f64())
    } else {
        format!("{:.3} ms", d.as_secs_f64() * 1e3)
    }
}

/// "R MB/s", or "no rate under 1 ms" for a time too short to give one
/// ([`transfer::MIN_RATE_TIME`]).
fn rate(bytes: u64, elapsed: Duration) -> String {
    match mb_per_s(bytes, elapsed) {
        Some(r) => format!("{r:.1} MB/s"),
        None => format!("no rate under {} ms", transfer::MIN_RATE_TIME.as_millis()),
    }
}

/// "BYTES bytes in TIME, RATE MB/s" (or "..., no rate under 1 ms").
pub fn amount(bytes: u64, elapsed: Duration) -> String {
    format!("{bytes} bytes in {}, {}", time_text(elapsed), rate(bytes, elapsed))
}

fn leg_json(leg: &Option<Leg>) -> serde_json::Value {
    match leg {
        // `mb_per_s` is null when the time is too short to give a rate.
        Some(l) => json!({"bytes": l.bytes, "seconds": l.elapsed.as_secs_f64(), "mb_per_s": l.mb_per_s()}),
        None => serde_json::Value::Null,
    }
}

fn summary(job: &Job, out: &mut dyn Write, err: &mut dyn Write, reports: &[(usize, SessionReport)]) {
    let mut lines = Vec::new();
    let n = reports.len();
    for (i, r) in reports {
        let indent = if n == 1 { "" } else { "  " };
        if n > 1 {
            lines.push(format!("session {i}: {} -> {}", r.local, r.peer));
        }
        if let Some(tx) = &r.tx {
            lines.push(format!("{indent}{}", leg_line("tx", tx, job.transfer.pattern, false)));
        }
        if let Some(rx) = &r.rx {
            lines.push(format!("{indent}{}", leg_line("rx", rx, job.transfer.pattern, true)));
        }
    }
    // Aggregate over the span from the first start to the last end: the
    // sessions need not start or end together.
    let start = reports.iter().map(|(_, r)| r.start).min();
    let end = reports.iter().map(|(_, r)| r.end).max();
    let span = match (start, end) {
        (Some(s), Some(e)) => e - s,
        _ => Duration::ZERO,
    };
    let tx: u64 = reports.iter().filter_map(|(_, r)| r.tx.map(|l| l.bytes)).sum();
    let rx: u64 = reports.iter().filter_map(|(_, r)| r.rx.map(|l| l.bytes)).sum();
    if n > 1 {
        if job.plan.tx_len > 0 {
            lines.push(format!("total tx: {}", amount(tx, span)));
        }
        if job.plan.rx_len > 0 {
            lines.push(format!("total rx: {}", amount(rx, span)));
        }
    }
    lines.push(job.complete.to_string());

    if job.options.json {
        for l in &lines {
            let _ = writeln!(err, "{l}");
        }
        let sessions: Vec<_> = reports
            .iter()
            .map(|(i, r)| {
                json!({
                    "index": i, "local": r.local.to_string(), "peer": r.peer.to_string(),
                    "tx": leg_json(&r.tx), "rx": leg_json(&r.rx), "error": null, "exit_code": 0,
                })
            })
            .collect();
        let doc = json!({
            "tool": job.tool, "ok": true, "exit_code": 0, "dir": job.dir,
            "role": role_name(job.role), "bytelen": job.transfer.bytelen, "pattern": job.transfer.pattern,
            "buffer": job.transfer.buffer, "corrupt": job.plan.corrupt, "sessions": sessions,
            "total": {
                "seconds": span.as_secs_f64(),
                "tx_bytes": tx, "tx_mb_per_s": mb_per_s(tx, span),
                "rx_bytes": rx, "rx_mb_per_s": mb_per_s(rx, span),
            },
        });
        let _ = writeln!(out, "{doc}");
    } else {
        for l in &lines {
            let _ = writeln!(out, "{l}");
        }
    }
    let _ = out.flush();
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::Client => "client",
        Role::Server => "server",
    }
}

/// Prints one error line per failed session and returns the exit status of
/// the first (lowest-numbered) failure.
fn fail(
    job: &Job,
    out: &mut dyn Write,
    err: &mut dyn Write,
    failures: &[(usize, TransferError)],
    reports: &[(usize, SessionReport)],
) -> i32 {
    let single = job.options.sessions == 1;
    for (i, e) in failures {
        if single {
            let _ = writeln!(err, "{}: error: {e}", job.tool);
        } else {
            let _ = writeln!(err, "{}: error: session {i}: {e}", job.tool);
        }
    }
    let code = failures.iter().map(|(_, e)| e.exit_code()).next().unwrap_or(exit::RESET);
    if job.options.json {
        let mut sessions: Vec<(usize, serde_json::Value)> = failures
            .iter()
            .map(|(i, e)| (*i, json!({"index": i, "error": e.to_string(), "exit_code": e.exit_code()})))
            .collect();
        sessions.extend(reports.iter().map(|(i, r)| {
            (
                *i,
                json!({
                    "index": i, "local": r.local.to_string(), "peer": r.peer.to_string(),
                    "tx": leg_json(&r.tx), "rx": leg_json(&r.rx), "error": null, "exit_code": 0,
                }),
            )
        }));
        sessions.sort_by_key(|(i, _)| *i);
        let first = failures.first().map(|(_, e)| e.to_string());
        let doc = json!({
            "tool": job.tool, "ok": false, "exit_code": code, "error": first, "dir": job.dir,
            "role": role_name(job.role), "bytelen": job.transfer.bytelen, "pattern": job.transfer.pattern,
            "buffer": job.transfer.buffer,
            "sessions": sessions.into_iter().map(|(_, v)| v).collect::<Vec<_>>(),
        });
        let _ = writeln!(out, "{doc}");
    }
    let _ = out.flush();
    let _ = err.flush();
    code
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A time under a millisecond gives no rate (issue 25: "1000000 bytes
    /// in 0.000 s, 4329.9 MB/s"); the time keeps its microseconds.
    #[test]
    fn a_summary_gives_a_rate_only_for_a_time_of_a_millisecond_or_more() {
        let us = Duration::from_micros;
        assert_eq!(amount(1_000_000, us(231)), "1000000 bytes in 0.231 ms, no rate under 1 ms");
        assert_eq!(amount(1_000_000, Duration::ZERO), "1000000 bytes in 0.000 ms, no rate under 1 ms");
        assert_eq!(amount(1_000_000, us(999)), "1000000 bytes in 0.999 ms, no rate under 1 ms");
        assert_eq!(amount(1_000_000, us(1_000)), "1000000 bytes in 1.000 ms, 1000.0 MB/s");
        assert_eq!(amount(65_537, us(12_345)), "65537 bytes in 12.345 ms, 5.3 MB/s");
        assert_eq!(amount(1_000_000_003, Duration::from_millis(1_097)), "1000000003 bytes in 1.097 s, 911.6 MB/s");
        let leg = Leg { bytes: 1_000_000, elapsed: us(231) };
        assert_eq!(
            leg_line("tx", &leg, true, false),
            "tx: 1000000 bytes in 0.231 ms, no rate under 1 ms, incremental pattern"
        );
        assert_eq!(leg_json(&Some(leg))["mb_per_s"], serde_json::Value::Null);
        let leg = Leg { bytes: 2_000_000, elapsed: Duration::from_millis(2) };
        assert_eq!(leg_json(&Some(leg))["mb_per_s"], 1000.0);
    }
}
