//! The latency test (issue 29): request-response round trips measured by
//! the session at the clock edge. An initiator session sends `count`
//! requests, at most `outstanding` unanswered, and times each from its
//! first beat's acceptance by the TOE to its response's last byte; an echo
//! session answers every request. The console programs and starts the
//! sessions, prints the transactions per second while they run, then reads
//! each initiator's moments and its histogram (`ctrl.snapshot`, then the
//! `rtt_*` registers and every bucket through `hist_index`/`hist_count`)
//! and reports count, min, mean, standard deviation, percentiles, max and
//! jitter in nanoseconds of the user clock and in cycles.
//!
//! Percentiles come from the hardware's log-linear buckets (16 per power
//! of two): each is the upper bound of the bucket that holds it, so at
//! least the true value and above it by less than 1/16, never past `max`.

use std::fmt::Write as _;
use std::net::Ipv4Addr;

use etherbone::RegisterBus;
use latency::{Histogram, Moments};

use crate::input::{self, InputError};
use crate::ops::{self, LatencyResult, LatencyTest, OpError, SessionResult};
use crate::run::{self, RunOptions, Stream};

/// Largest request or response the registers hold, bytes.
pub const MAX_MESSAGE: u64 = 0xFFFF;
/// Largest request count (`request_count`, 32 bits).
pub const MAX_COUNT: u64 = 0xFFFF_FFFF;
/// Largest number of requests in flight.
pub const MAX_OUTSTANDING: u64 = 16;
/// Rows of the text histogram.
pub const HISTOGRAM_ROWS: usize = 24;

/// The form of a `--session` argument of `test latency`.
pub const SPEC_FORM: &str = "N:ROLE:REQUEST:RESPONSE:COUNT[:OUTSTANDING[:CONN]]";

/// One session of a latency test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LatencySpec {
    pub session: usize,
    pub test: LatencyTest,
}

impl run::PcPeer for LatencySpec {
    fn session(&self) -> usize {
        self.session
    }
    fn pc_command(&self, fpga_ip: Ipv4Addr, target_ip: Ipv4Addr, fpga_port: u16, target_port: u16) -> String {
        LatencySpec::pc_command(self, fpga_ip, target_ip, fpga_port, target_port)
    }
}

impl LatencySpec {
    /// The menu's answers or a command line's fields, checked: sizes
    /// 1..=65,535, count 1..=2^32-1, outstanding 1..=16, conn 0 client or 1
    /// server.
    pub fn new(
        session: usize,
        initiator: bool,
        sizes: (u64, u64),
        count: u64,
        outstanding: u64,
        conn: u64,
    ) -> LatencySpec {
        let mut test = LatencyTest::new(initiator, sizes.0 as u32, sizes.1 as u32, count as u32, conn == 0);
        test.outstanding = outstanding as u32;
        LatencySpec { session, test }
    }

    /// `N:ROLE:REQUEST:RESPONSE:COUNT[:OUTSTANDING[:CONN]]`, ROLE
    /// `initiator` or `echo`; OUTSTANDING 1 and CONN 1 (server) by default.
    /// The echo's COUNT is the requests it expects to answer (the PC
    /// initiator's count, and what the console checks).
    pub fn parse(sessions: usize, spec: &str) -> Result<LatencySpec, InputError> {
        let f: Vec<&str> = spec.split(':').collect();
        if f.len() < 5 || f.len() > 7 {
            return Err(InputError::Invalid { what: "session".into(), input: spec.into(), form: SPEC_FORM.into() });
        }
        let n = input::number("Session", f[0], 0, sessions as u64 - 1)? as usize;
        let initiator = match f[1] {
            "initiator" | "i" => true,
            "echo" | "e" => false,
            other => {
                return Err(InputError::Invalid {
                    what: "Role".into(),
                    input: other.into(),
                    form: "initiator or echo".into(),
                })
            }
        };
        let request = input::number("Request size", f[2], 1, MAX_MESSAGE)?;
        let response = input::number("Response size", f[3], 1, MAX_MESSAGE)?;
        let count = input::number("Request count", f[4], 1, MAX_COUNT)?;
        let outstanding = match f.get(5) {
            Some(v) => input::number("Requests in flight", v, 1, MAX_OUTSTANDING)?,
            None => 1,
        };
        let conn = match f.get(6) {
            Some(v) => input::code("Connection mode", v, &[0, 1])?,
            None => 1,
        };
        Ok(LatencySpec::new(n, initiator, (request, response), count, outstanding, conn))
    }

    /// The stream this session's verifier checks: an initiator's
    /// responses, an echo's requests (for the first-error record's words).
    pub fn stream(&self) -> Stream {
        let t = &self.test;
        if t.initiator {
            Stream::Responses { count: t.request_count, size: t.response_size }
        } else {
            Stream::Requests { size: t.request_size }
        }
    }

    pub fn role(&self) -> &'static str {
        if self.test.initiator {
            "initiator"
        } else {
            "echo"
        }
    }

    /// The PC's `tcp_latency` command for this session: the other role
    /// (an FPGA initiator needs a PC echo and the other way round), the
    /// other side of the open (a PC client connects to `fpga_ip:fpga_port`;
    /// a PC server listens on `target_ip:target_port`), the same sizes,
    /// count and requests in flight.
    pub fn pc_command(&self, fpga_ip: Ipv4Addr, target_ip: Ipv4Addr, fpga_port: u16, target_port: u16) -> String {
        let t = &self.test;
        let role = if t.initiator { 'e' } else { 'i' };
        let (mode, ip, port) = if t.client { ('s', target_ip, target_port) } else { ('c', fpga_ip, fpga_port) };
        let mut c =
            format!("tcp_latency {mode} {role} {ip} {port} {} {} {}", t.request_size, t.response_size, t.request_count);
        if t.outstanding > 1 {
            let _ = write!(c, " --outstanding {}", t.outstanding);
        }
        c
    }

    /// One line that says what the session does.
    pub fn describe(&self, fpga_port: u16, target_port: u16) -> String {
        let t = &self.test;
        let what = if t.initiator {
            format!("{} requests of {} bytes, responses of {} bytes", t.request_count, t.request_size, t.response_size)
        } else {
            format!("answers {} requests of {} bytes with {} bytes", t.request_count, t.request_size, t.response_size)
        };
        format!(
            "Session {}: {}, {what}, up to {} in flight, {} ({fpga_port} -> {target_port})",
            self.session,
            self.role(),
            t.outstanding,
            if t.client { "client (active open)" } else { "server (passive open)" },
        )
    }
}

/// Round-trip statistics in user-clock cycles, from the hardware's
/// registers and histogram.
#[derive(Clone, Debug, PartialEq)]
pub struct RoundTrips {
    pub count: u64,
    pub min: u64,
    pub max: u64,
    pub mean: f64,
    pub stddev: f64,
    pub jitter: f64,
    /// p50, p90, p99 and p99.9: upper bounds of the buckets that hold them,
    /// clamped to `min..=max`.
    pub percentiles: [u64; 4],
    pub histogram: Histogram,
}

/// The percentiles reported, with their names.
pub const PERCENTILES: [(&str, f64); 4] = [("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("p99.9", 0.999)];

impl RoundTrips {
    /// The statistics of `r` (the `rtt_*` registers) and `buckets` (the
    /// histogram's counts, bucket 0 first); `None` when nothing was measured.
    pub fn of(r: &LatencyResult, buckets: &[u32]) -> Option<RoundTrips> {
        if r.count == 0 {
            return None;
        }
        let m = Moments::from_totals(
            u64::from(r.count),
            u64::from(r.min),
            u64::from(r.max),
            u128::from(r.sum),
            r.sum_sq,
            u128::from(r.jitter_sum),
        );
        let mut histogram = Histogram::new();
        for (i, &c) in buckets.iter().enumerate() {
            histogram.add(i, u64::from(c));
        }
        let pct = |q: f64| histogram.percentile(q).map_or(m.max, |p| p.clamp(m.min, m.max));
        Some(RoundTrips {
            count: m.count,
            min: m.min,
            max: m.max,
            mean: m.mean(),
            stddev: m.stddev(),
            jitter: m.jitter(),
            percentiles: PERCENTILES.map(|(_, q)| pct(q)),
            histogram,
        })
    }
}

/// Nanoseconds of `cycles` user-clock cycles at `khz`.
pub fn ns(cycles: f64, khz: u32) -> f64 {
    cycles * 1e6 / f64::from(khz)
}

/// One session's outcome.
#[derive(Clone, Debug)]
pub struct LatencyOutcome {
    pub spec: LatencySpec,
    pub result: SessionResult,
    pub latency: LatencyResult,
    /// The initiator's round trips; `None` for an echo or when none was measured.
    pub round_trips: Option<RoundTrips>,
    pub connected: bool,
    /// `None`: every transaction answered and verified; else what went wrong.
    pub failure: Option<String>,
}

impl LatencyOutcome {
    fn judge(
        spec: LatencySpec,
        result: SessionResult,
        latency: LatencyResult,
        round_trips: Option<RoundTrips>,
        connected: bool,
    ) -> LatencyOutcome {
        let t = &spec.test;
        let n = t.request_count;
        let held = round_trips.as_ref().map_or(0, |rt| rt.histogram.total());
        let failure = if result.busy {
            Some("still busy".to_string())
        } else if result.error {
            Some(run::error_text(&result, spec.stream()))
        } else if !result.done {
            Some("did not complete".to_string())
        } else if result.err_count != 0 {
            Some(format!("{} verification error(s)", result.err_count))
        } else if t.initiator && latency.count != n {
            Some(format!("measured {} round trips of {n}", latency.count))
        } else if t.initiator && held != u64::from(latency.count) {
            Some(format!("the histogram holds {held} round trips, the counter {}", latency.count))
        } else if t.initiator && latency.fault {
            Some("a round trip could not be measured (latency_status.fault)".to_string())
        } else if !t.initiator && (latency.received != n || latency.sent != n) {
            Some(format!("received {} requests and sent {} responses, expected {n}", latency.received, latency.sent))
        } else {
            None
        };
        LatencyOutcome { spec, result, latency, round_trips, connected, failure }
    }
}

/// How the latency test ended.
#[derive(Clone, Debug)]
pub struct LatencyReport {
    pub outcomes: Vec<LatencyOutcome>,
    pub user_clock_khz: u32,
    /// Why it stopped early: aborted by the user, or the time limit.
    pub stopped: Option<String>,
}

impl LatencyReport {
    pub fn ok(&self) -> bool {
        self.failures().is_empty()
    }

    /// Why the test failed ([`run::failures`]); empty when it did not.
    pub fn failures(&self) -> Vec<String> {
        run::failures(&self.stopped, self.outcomes.iter().map(|o| (o.spec.session, &o.failure)))
    }

    /// The results as the console prints them: per session a summary line,
    /// for an initiator its statistics in ns and cycles and a text histogram.
    pub fn text(&self) -> String {
        let khz = self.user_clock_khz;
        let mut s = String::new();
        for o in &self.outcomes {
            let t = &o.spec.test;
            let verdict = o.failure.as_deref().map(|f| format!("FAILED: {f}")).unwrap_or_else(|| "ok".into());
            let did = if t.initiator {
                format!("{} round trips", o.latency.count)
            } else {
                format!("{} requests answered", o.latency.sent)
            };
            let _ = writeln!(
                s,
                "Session {} ({}, {} -> {} bytes, up to {} in flight): {did}, {} verification errors  {verdict}",
                o.spec.session,
                o.spec.role(),
                t.request_size,
                t.response_size,
                t.outstanding,
                o.result.err_count
            );
            let Some(rt) = &o.round_trips else { continue };
            let _ = writeln!(
                s,
                "  round trips in cycles of the {} MHz user clock and ns at it (on the virtual board: simulated cycles)",
                f64::from(khz) / 1000.0
            );
            let columns = ["min", "mean", "stddev", "p50", "p90", "p99", "p99.9", "max", "jitter"];
            let cycles = [
                rt.min as f64,
                rt.mean,
                rt.stddev,
                rt.percentiles[0] as f64,
                rt.percentiles[1] as f64,
                rt.percentiles[2] as f64,
                rt.percentiles[3] as f64,
                rt.max as f64,
                rt.jitter,
            ];
            let _ = write!(s, "  {:<7}", "");
            for c in columns {
                let _ = write!(s, "{c:>11}");
            }
            let _ = write!(s, "\n  {:<7}", "ns");
            for v in cycles {
                let _ = write!(s, "{:>11.1}", ns(v, khz));
            }
            let _ = write!(s, "\n  {:<7}", "cycles");
            for v in cycles {
                let _ = write!(s, "{v:>11.1}");
            }
            let _ = writeln!(s, "\n  round trips (16 buckets per power of two; percentiles are bucket bounds):");
            for line in rt.histogram.text(HISTOGRAM_ROWS, 40, &|c| format!("{:.1} ns", ns(c as f64, khz))) {
                let _ = writeln!(s, "    {line}");
            }
        }
        s
    }

    pub fn json(&self) -> serde_json::Value {
        let khz = self.user_clock_khz;
        let sessions: Vec<serde_json::Value> = self
            .outcomes
            .iter()
            .map(|o| {
                let t = &o.spec.test;
                let l = &o.latency;
                let mut v = serde_json::json!({
                    "session": o.spec.session, "role": o.spec.role(), "client": t.client,
                    "request": t.request_size, "response": t.response_size,
                    "requests": t.request_count, "outstanding": t.outstanding,
                    "ok": o.failure.is_none(), "failure": o.failure,
                    "done": o.result.done, "error": o.result.error, "error_cause": o.result.cause_name(),
                    "verify_errors": o.result.err_count, "err_offset": o.result.err_offset,
                    "err_expected": o.result.err_expected, "err_received": o.result.err_received,
                    "messages_sent": l.sent, "messages_received": l.received,
                    "count": if t.initiator { l.count } else { l.sent },
                    "user_clock_khz": khz,
                });
                if let Some(rt) = &o.round_trips {
                    let values = [
                        ("min", rt.min as f64),
                        ("mean", rt.mean),
                        ("stddev", rt.stddev),
                        ("p50", rt.percentiles[0] as f64),
                        ("p90", rt.percentiles[1] as f64),
                        ("p99", rt.percentiles[2] as f64),
                        ("p999", rt.percentiles[3] as f64),
                        ("max", rt.max as f64),
                        ("jitter", rt.jitter),
                    ];
                    for (k, c) in values {
                        v[format!("{k}_ns")] = ns(c, khz).into();
                        v[format!("{k}_cycles")] = c.into();
                    }
                    v["histogram"] = rt
                        .histogram
                        .buckets()
                        .map(|b| {
                            serde_json::json!({
                                "lo_cycles": b.lo, "hi_cycles": b.hi,
                                "lo_ns": ns(b.lo as f64, khz), "hi_ns": ns(b.hi as f64, khz),
                                "count": b.count,
                            })
                        })
                        .collect::<Vec<_>>()
                        .into();
                }
                v
            })
            .collect();
        serde_json::json!({
            "test": "latency", "ok": self.ok(), "stopped": self.stopped, "user_clock_khz": khz,
            "sessions": sessions,
        })
    }

    /// Every initiator's histogram as one SVG picture on a log time axis
    /// (ns), its percentiles marked: p50, p90, p99 and p99.9 for one
    /// initiator, p50 and p99 each for several.
    pub fn plot_svg(&self) -> Result<String, String> {
        let khz = self.user_clock_khz;
        let measured: Vec<&LatencyOutcome> = self.outcomes.iter().filter(|o| o.round_trips.is_some()).collect();
        let mut series = Vec::new();
        let mut marks = Vec::new();
        for o in &measured {
            let rt = o.round_trips.as_ref().expect("filtered");
            let bars = rt
                .histogram
                .buckets()
                // A log axis starts above 0: a 0-cycle bucket is drawn from half a cycle.
                .map(|b| plots::Bar {
                    lo: ns((b.lo as f64).max(0.5), khz),
                    end: ns(b.hi.saturating_add(1) as f64, khz),
                    count: b.count,
                })
                .collect();
            series.push(plots::Series { label: format!("session {}", o.spec.session), bars });
            for (k, (name, _)) in PERCENTILES.iter().enumerate() {
                if measured.len() > 1 && (k == 1 || k == 3) {
                    continue;
                }
                let v = ns(rt.percentiles[k] as f64, khz);
                let who = if measured.len() > 1 { format!("S{} ", o.spec.session) } else { String::new() };
                marks.push((format!("{who}{name} {v:.1} ns"), v));
            }
        }
        let count: u64 = measured.iter().map(|o| u64::from(o.latency.count)).sum();
        plots::histograms_svg(
            &format!("toe-console: {count} round trips measured in hardware"),
            &format!("round trip (ns at {} MHz; 16 buckets per power of two)", f64::from(khz) / 1000.0),
            &series,
            &marks,
        )
    }
}

/// Programs, starts and follows `specs`; every line goes to `say`.
pub fn run(
    bus: &mut (impl RegisterBus + ?Sized),
    specs: &[LatencySpec],
    user_clock_khz: u32,
    opts: &RunOptions,
    say: &mut dyn FnMut(&str),
) -> Result<LatencyReport, OpError> {
    let sessions: Vec<usize> = specs.iter().map(|s| s.session).collect();
    // Claimed first, so no other console can program or start these
    // sessions between the check below and the start (`crate::claim`).
    crate::claim::with_claims(bus, &sessions, opts.bus_args, |bus| run_claimed(bus, specs, user_clock_khz, opts, say))
}

/// [`run`] once its sessions are claimed.
fn run_claimed(
    bus: &mut (impl RegisterBus + ?Sized),
    specs: &[LatencySpec],
    user_clock_khz: u32,
    opts: &RunOptions,
    say: &mut dyn FnMut(&str),
) -> Result<LatencyReport, OpError> {
    let sessions: Vec<usize> = specs.iter().map(|s| s.session).collect();
    // A session still busy would take the new start as its own: refuse
    // before anything is written.
    let busy = run::busy_among(bus, &sessions)?;
    if !busy.is_empty() {
        return Err(OpError(run::busy_message(&busy, opts.bus_args)));
    }
    for s in specs {
        ops::program_latency(bus, s.session, &s.test)?;
    }
    let clients: Vec<bool> = specs.iter().map(|s| s.test.client).collect();
    // Transactions so far per session, for the rate of each progress line.
    let mut done_before = vec![0u32; specs.len()];
    let followed = run::follow(
        bus,
        &sessions,
        &clients,
        opts,
        say,
        &mut |bus, i| ops::result(bus, sessions[i]),
        &mut |bus, since| {
            let mut line = String::new();
            for (i, s) in specs.iter().enumerate() {
                let l = ops::latency_result(bus, s.session)?;
                let n = if s.test.initiator { l.count } else { l.sent };
                let rate = f64::from(n.wrapping_sub(done_before[i])) / since.as_secs_f64().max(1e-3);
                done_before[i] = n;
                let _ =
                    write!(line, " | S{} {n} {} ({rate:.0}/s)", s.session, if s.test.initiator { "rt" } else { "ans" });
            }
            Ok(line)
        },
    )?;
    let mut outcomes = Vec::new();
    for (i, s) in specs.iter().enumerate() {
        let result = ops::result(bus, s.session)?;
        let latency = ops::latency_result(bus, s.session)?;
        let round_trips = if s.test.initiator && latency.count > 0 {
            RoundTrips::of(&latency, &ops::latency_histogram(bus, s.session)?)
        } else {
            None
        };
        outcomes.push(LatencyOutcome::judge(*s, result, latency, round_trips, followed.connected[i]));
    }
    if followed.stopped.is_none() {
        say("Latency test complete");
    }
    Ok(LatencyReport { outcomes, user_clock_khz, stopped: followed.stopped })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spec_names_its_field_and_range() {
        let s = LatencySpec::parse(4, "1:initiator:64:1000:100:8:0").unwrap();
        assert_eq!(s.session, 1);
        let t = s.test;
        assert!(t.initiator && t.client);
        assert_eq!((t.request_size, t.response_size, t.request_count, t.outstanding), (64, 1000, 100, 8));
        let e = LatencySpec::parse(4, "0:echo:64:64:10").unwrap();
        assert!(!e.test.initiator && !e.test.client && e.test.outstanding == 1);
        let err = |spec: &str| LatencySpec::parse(4, spec).unwrap_err().to_string();
        assert_eq!(err("4:echo:1:1:1"), "OUT-OF-RANGE INPUT: Session \"4\": valid range is 0-3");
        assert_eq!(err("0:both:1:1:1"), "INVALID INPUT: Role \"both\": expected initiator or echo");
        assert_eq!(err("0:echo:0:1:1"), "OUT-OF-RANGE INPUT: Request size \"0\": valid range is 1-65535");
        assert_eq!(err("0:echo:1:65536:1"), "OUT-OF-RANGE INPUT: Response size \"65536\": valid range is 1-65535");
        assert_eq!(
            err("0:echo:1:1:0x100000000"),
            "OUT-OF-RANGE INPUT: Request count \"0x100000000\": valid range is 0x1-0xffffffff"
        );
        assert_eq!(err("0:echo:1:1:1:17"), "OUT-OF-RANGE INPUT: Requests in flight \"17\": valid range is 1-16");
        assert_eq!(err("0:echo:1:1:1:1:2"), "OUT-OF-RANGE INPUT: Connection mode \"2\": valid range is 0-1");
        assert!(err("0:echo:1:1").starts_with("INVALID INPUT: session \"0:echo:1:1\": expected N:ROLE"));
    }

    /// The PC takes the other role and the other side of the open.
    #[test]
    fn the_pc_command_is_the_other_side() {
        let (fpga, target) = (Ipv4Addr::new(127, 0, 0, 2), Ipv4Addr::new(127, 0, 0, 1));
        let cmd = |spec: &str| LatencySpec::parse(4, spec).unwrap().pc_command(fpga, target, 60_000, 61_000);
        assert_eq!(cmd("0:initiator:64:64:100:1:0"), "tcp_latency s e 127.0.0.1 61000 64 64 100");
        assert_eq!(cmd("0:initiator:64:64:100:4:1"), "tcp_latency c e 127.0.0.2 60000 64 64 100 --outstanding 4");
        assert_eq!(cmd("0:echo:1:2:3:1:1"), "tcp_latency c i 127.0.0.2 60000 1 2 3");
        assert_eq!(cmd("0:echo:1:2:3:16:0"), "tcp_latency s i 127.0.0.1 61000 1 2 3 --outstanding 16");
    }

    fn initiator(count: u32) -> LatencySpec {
        LatencySpec::parse(4, &format!("0:initiator:64:64:{count}")).unwrap()
    }

    fn done() -> SessionResult {
        SessionResult { done: true, ..SessionResult::default() }
    }

    /// Three round trips of 100, 100 and 130 cycles at 250 MHz: every
    /// statistic from the registers' totals, the percentiles from the
    /// buckets, and the histogram's total checked against the count.
    #[test]
    fn statistics_from_the_registers_and_the_buckets() {
        let l = LatencyResult {
            count: 3,
            min: 100,
            max: 130,
            last: 130,
            sum: 330,
            sum_sq: 100 * 100 * 2 + 130 * 130,
            jitter_sum: 30,
            sent: 3,
            received: 3,
            ..LatencyResult::default()
        };
        let mut buckets = vec![0u32; 512];
        buckets[latency::bucket_of(100)] = 2;
        buckets[latency::bucket_of(130)] = 1;
        let rt = RoundTrips::of(&l, &buckets).unwrap();
        assert_eq!((rt.count, rt.min, rt.max), (3, 100, 130));
        assert!((rt.mean - 110.0).abs() < 1e-9);
        assert!((rt.stddev - (200.0f64).sqrt()).abs() < 1e-9, "{}", rt.stddev);
        assert!((rt.jitter - 15.0).abs() < 1e-9);
        // 100 is in bucket 100..=103; 130 in 128..=135, clamped to max.
        assert_eq!(rt.percentiles, [103, 130, 130, 130]);
        let report = LatencyReport {
            outcomes: vec![LatencyOutcome::judge(initiator(3), done(), l, Some(rt.clone()), true)],
            user_clock_khz: 250_000,
            stopped: None,
        };
        assert!(report.ok(), "{:?}", report.failures());
        let j = report.json();
        let s = &j["sessions"][0];
        assert_eq!(s["count"], 3);
        assert_eq!(s["min_ns"], 400.0);
        assert_eq!(s["p50_ns"], 412.0);
        assert_eq!(s["max_cycles"], 130.0);
        assert_eq!(s["jitter_ns"], 60.0);
        assert_eq!(s["histogram"].as_array().unwrap().len(), 2);
        assert_eq!(s["histogram"][0]["count"], 2);
        assert_eq!(s["histogram"][0]["lo_ns"], 400.0);
        let text = report.text();
        assert!(text.contains("Session 0 (initiator, 64 -> 64 bytes, up to 1 in flight): 3 round trips"), "{text}");
        assert!(text.contains("400.0 ns - 416.0 ns  2"), "{text}");
        assert!(text.contains("round trips in cycles of the 250 MHz user clock"), "{text}");

        // A histogram that lost a round trip, a count short of the request
        // count, a verification error: each fails the session.
        let mut lost = buckets.clone();
        lost[latency::bucket_of(130)] = 0;
        let short = RoundTrips::of(&l, &lost);
        let f = LatencyOutcome::judge(initiator(3), done(), l, short, true).failure;
        assert_eq!(f.as_deref(), Some("the histogram holds 2 round trips, the counter 3"));
        let f = LatencyOutcome::judge(initiator(4), done(), l, Some(rt.clone()), true).failure;
        assert_eq!(f.as_deref(), Some("measured 3 round trips of 4"));
        let bad = SessionResult { err_count: 1, ..done() };
        let f = LatencyOutcome::judge(initiator(3), bad, l, Some(rt), true).failure;
        assert_eq!(f.as_deref(), Some("1 verification error(s)"));
    }

    /// Issue 51, item 13: a latency session's error is worded as its cause,
    /// by the throughput tests' one function (`run::error_text`): a short
    /// stream and a surplus are not "first wrong byte ... expected word".
    #[test]
    fn a_latency_failure_is_worded_as_its_cause() {
        use crate::regs::session::status::ErrorCause;
        let failed = |spec: LatencySpec, cause: ErrorCause, offset: u64| {
            let r = SessionResult {
                error: true,
                error_cause: cause.bits(),
                err_count: 1,
                err_offset: offset,
                err_expected: 0x0302_0100,
                err_received: 0x0706_0504,
                ..SessionResult::default()
            };
            LatencyOutcome::judge(spec, r, LatencyResult::default(), None, true).failure.unwrap()
        };
        let init = initiator(4);
        assert_eq!(
            failed(init, ErrorCause::PeerClosed, 100),
            "error: peer_closed (the peer closed the connection after 100 of 256 bytes of responses: \
             1 of 4 responses whole, then 36 of 64 bytes)"
        );
        assert_eq!(
            failed(init, ErrorCause::BeyondSize, 256),
            "error: beyond_size (the peer sent more than its 4 responses of 64 bytes, 256 in all: \
             the surplus starts at offset 256 of the responses' stream, received word there 0x07060504; 1 error(s))"
        );
        assert_eq!(
            failed(init, ErrorCause::Verify, 100),
            "error: verify (first wrong byte at offset 100 of the responses' stream, expected word 0x03020100, \
             received 0x07060504; 1 error(s))"
        );
        let echo = LatencySpec::parse(4, "1:echo:10:64:5").unwrap();
        assert_eq!(
            failed(echo, ErrorCause::PeerClosed, 23),
            "error: peer_closed (the peer closed the connection in the middle of a request, after 23 bytes of \
             requests: 2 requests whole, then 3 of 10 bytes)"
        );
        for cause in [ErrorCause::PeerClosed, ErrorCause::BeyondSize] {
            let text = failed(init, cause, 256);
            assert!(!text.contains("first wrong byte") && !text.contains("expected word"), "{text}");
        }
        // The same function words a throughput test's record.
        let r = SessionResult { error_cause: ErrorCause::PeerClosed.bits(), err_count: 1, err_offset: 600, ..done() };
        assert_eq!(
            run::error_text(&r, Stream::Transfer(1000)),
            "error: peer_closed (the peer closed the connection after 600 of 1000 bytes)"
        );
    }

    #[test]
    fn an_echo_answers_every_request() {
        let echo = LatencySpec::parse(4, "2:echo:8:8:5").unwrap();
        let l = LatencyResult { sent: 5, received: 5, ..LatencyResult::default() };
        assert_eq!(LatencyOutcome::judge(echo, done(), l, None, true).failure, None);
        let l = LatencyResult { sent: 4, received: 5, ..l };
        assert_eq!(
            LatencyOutcome::judge(echo, done(), l, None, true).failure.as_deref(),
            Some("received 5 requests and sent 4 responses, expected 5")
        );
    }
}
