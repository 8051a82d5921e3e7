//! `--plot FILE`: a throughput test's MB/s per session and direction over
//! the board's own time, as an SVG picture (drawn by crate `plots`).
//!
//! The time axis is each session's `elapsed` (user-clock cycles since its
//! connection, converted with `info.user_clock_khz`), not the wall clock:
//! on a virtual board a simulated millisecond takes most of a wall-clock
//! second, and the picture should show what the hardware did. Each line is
//! a step: the rate between two readings of the counters, as the console's
//! totals compute it (bytes x kHz / 1000 / cycles), held over the interval.

use plots::Line;

use crate::run::{Report, TracePoint};

/// Most intervals one line is drawn with; closer readings are merged.
pub const MAX_STEPS: usize = 200;

/// The steps of one direction of `trace` (`bytes` picks the direction):
/// the MB/s between consecutive readings, the readings thinned so that no
/// more than `max_steps` intervals remain (each at least 1/`max_steps` of
/// the run, the last reading always kept, a short last interval joined to
/// the one before), two points per interval. The run starts at the
/// connection: `elapsed` 0, no bytes.
pub fn steps(trace: &[TracePoint], khz: u32, max_steps: usize, bytes: fn(&TracePoint) -> u64) -> Vec<(f64, f64)> {
    let Some(last) = trace.last() else { return Vec::new() };
    let min_gap = last.elapsed / max_steps.max(1) as u64;
    let mut kept = vec![TracePoint::default()];
    for p in trace {
        let prev = kept[kept.len() - 1];
        if p.elapsed > prev.elapsed && (p.elapsed - prev.elapsed >= min_gap || p == last) {
            kept.push(*p);
        }
    }
    // A last interval shorter than the others (the reading after the end
    // comes soon after the one before) joins the one before it: over a few
    // cycles the skew between the counters' reads would be the whole rate.
    let n = kept.len();
    if n > 2 && kept[n - 1].elapsed - kept[n - 2].elapsed < min_gap {
        kept.remove(n - 2);
    }
    let ms = |cycles: u64| cycles as f64 / f64::from(khz);
    let mut points = Vec::with_capacity(2 * kept.len());
    for pair in kept.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let moved = bytes(&b).saturating_sub(bytes(&a));
        let mb_s = moved as f64 * f64::from(khz) / 1000.0 / (b.elapsed - a.elapsed) as f64;
        points.push((ms(a.elapsed), mb_s));
        points.push((ms(b.elapsed), mb_s));
    }
    points
}

/// A direction of a session: its name, its byte count in a reading, and its total.
type Direction = (&'static str, fn(&TracePoint) -> u64, u64);

/// The lines of `report`: per session, TX and RX when that direction
/// moved any byte, in session order.
pub fn lines(report: &Report) -> Vec<Line> {
    let mut out = Vec::new();
    for o in &report.outcomes {
        let directions: [Direction; 2] =
            [("TX", |p| p.tx_bytes, o.result.tx_bytes), ("RX", |p| p.rx_bytes, o.result.rx_bytes)];
        for (name, bytes, total) in directions {
            if total > 0 {
                out.push(Line {
                    label: format!("session {} {name}", o.spec.session),
                    points: steps(&o.trace, report.user_clock_khz, MAX_STEPS, bytes),
                });
            }
        }
    }
    out
}

/// The picture of `report` as SVG text.
pub fn svg(report: &Report) -> Result<String, String> {
    let duplex = match report.duplex {
        crate::run::Duplex::Half => "half duplex",
        crate::run::Duplex::Full => "full duplex",
    };
    plots::svg_lines(
        &format!("Throughput per session, {duplex}"),
        &format!("time since the session's connection (ms of the user clock, {} kHz)", report.user_clock_khz),
        &lines(report),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(elapsed: u64, tx_bytes: u64) -> TracePoint {
        TracePoint { elapsed, tx_bytes, rx_bytes: 0 }
    }

    /// The steps are the rate between readings, from the connection on,
    /// as bytes x kHz / 1000 / cycles: 128 bytes a cycle at 250 MHz is
    /// 32,000 MB/s; half of that, 16,000.
    #[test]
    fn steps_are_the_rate_between_readings() {
        let khz = 250_000;
        let trace = [p(250_000, 32_000_000), p(500_000, 48_000_000)];
        let s = steps(&trace, khz, MAX_STEPS, |p| p.tx_bytes);
        assert_eq!(s, vec![(0.0, 32_000.0), (1.0, 32_000.0), (1.0, 16_000.0), (2.0, 16_000.0)]);
    }

    /// Readings closer than 1/max_steps of the run are merged into the
    /// next kept one, and the last reading is always kept, so the bytes of
    /// the whole run are all in the picture.
    #[test]
    fn close_readings_merge_and_the_last_is_kept() {
        let trace: Vec<TracePoint> = (1..=100).map(|i| p(i * 10, i * 1280)).chain([p(1001, 128_128)]).collect();
        let s = steps(&trace, 1000, 10, |p| p.tx_bytes);
        // 0, 100, ..., 900, 1001: the last reading, one cycle after 1000,
        // takes the interval from 900.
        assert_eq!(s.len() / 2, 10, "{s:?}");
        assert_eq!(s[s.len() - 2].0, 0.9);
        // Every interval: 128 bytes a cycle at 1 MHz = 128 MB/s.
        assert!(s.iter().all(|&(_, r)| (r - 128.0).abs() < 1e-9), "{s:?}");
        assert_eq!(s.last().unwrap().0, 1.001);
        // The area under the steps is the bytes moved: MB/s x ms = kB.
        let kb: f64 = s.chunks(2).map(|c| c[0].1 * (c[1].0 - c[0].0)).sum();
        assert!((kb * 1000.0 - 128_128.0).abs() < 1e-6, "{kb}");
    }

    #[test]
    fn a_trace_without_readings_draws_nothing() {
        assert!(steps(&[], 250_000, MAX_STEPS, |p| p.tx_bytes).is_empty());
    }
}
