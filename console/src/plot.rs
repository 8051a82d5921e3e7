//! `--plot FILE`: a throughput test's MB/s per session and direction over
//! the board's own time, as an SVG picture (plotters' SVG backend).
//!
//! The time axis is each session's `elapsed` (user-clock cycles since its
//! connection, converted with `info.user_clock_khz`), not the wall clock:
//! on a virtual board a simulated millisecond takes most of a wall-clock
//! second, and the picture should show what the hardware did. Each line is
//! a step: the rate between two readings of the counters, as the console's
//! totals compute it (bytes x kHz / 1000 / cycles), held over the interval.

use std::path::{Path, PathBuf};

use plotters::prelude::*;

use crate::run::{Report, TracePoint};

/// Most intervals one line is drawn with; closer readings are merged.
pub const MAX_STEPS: usize = 200;

/// One line of the picture: its label and its points (ms, MB/s).
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    pub label: String,
    pub points: Vec<(f64, f64)>,
}

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
    svg_lines(
        &format!("Throughput per session, {duplex}"),
        &format!("time since the session's connection (ms of the user clock, {} kHz)", report.user_clock_khz),
        &lines(report),
    )
}

/// `lines` (ms, MB/s) as an SVG picture with a title and the time axis's
/// description, a legend in the lower right.
pub fn svg_lines(title: &str, x_desc: &str, lines: &[Line]) -> Result<String, String> {
    let x_max = lines.iter().flat_map(|l| l.points.iter().map(|p| p.0)).fold(0.0f64, f64::max).max(1e-3);
    // Headroom above the highest line for the legend in the upper right:
    // about 16 pixels a line of the 540-pixel picture's 430 of plot.
    let legend = (16.0 * lines.len() as f64 + 24.0) / 430.0;
    let highest = lines.iter().flat_map(|l| l.points.iter().map(|p| p.1)).fold(0.0f64, f64::max).max(1.0);
    let y_max = highest / (1.0 - legend).max(0.3);
    let mut text = String::new();
    {
        let area = SVGBackend::with_string(&mut text, (960, 540)).into_drawing_area();
        let fail = |e: &dyn std::fmt::Display| format!("drawing the plot: {e}");
        area.fill(&WHITE).map_err(|e| fail(&e))?;
        let mut chart = ChartBuilder::on(&area)
            .caption(title, ("sans-serif", 22))
            .margin(16)
            .x_label_area_size(48)
            .y_label_area_size(72)
            .build_cartesian_2d(0.0..x_max, 0.0..y_max)
            .map_err(|e| fail(&e))?;
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc("MB/s")
            .y_label_formatter(&|v| format!("{v:.0}"))
            .draw()
            .map_err(|e| fail(&e))?;
        for (i, line) in lines.iter().enumerate() {
            let colour = Palette99::pick(i).to_rgba();
            chart
                .draw_series(LineSeries::new(line.points.iter().copied(), colour.stroke_width(2)))
                .map_err(|e| fail(&e))?
                .label(line.label.clone())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2)));
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperRight)
            .draw()
            .map_err(|e| fail(&e))?;
        area.present().map_err(|e| fail(&e))?;
    }
    Ok(text)
}

/// Checks `--plot FILE` before a test starts: an `.svg` name in a folder
/// that exists.
pub fn check_path(path: &Path) -> Result<(), String> {
    let svg = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("svg"));
    if !svg {
        return Err(format!("--plot {}: the file name must end in .svg (the plot is SVG)", path.display()));
    }
    let folder = folder_of(path);
    if !folder.is_dir() {
        return Err(format!("--plot {}: the folder {} does not exist", path.display(), folder.display()));
    }
    Ok(())
}

fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Writes `text` to `path` whole or not at all: into a temporary file
/// beside it, then renamed over it.
pub fn write(path: &Path, text: &str) -> Result<(), String> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = folder_of(path).join(format!(".{name}.{}.tmp", std::process::id()));
    let fail = |e: std::io::Error| format!("--plot {}: cannot write it: {e}", path.display());
    if let Err(e) = std::fs::write(&tmp, text) {
        let _ = std::fs::remove_file(&tmp);
        return Err(fail(e));
    }
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        fail(e)
    })
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

    #[test]
    fn the_path_must_be_an_svg_in_a_folder_that_exists() {
        let dir = tempfile::tempdir().unwrap();
        assert!(check_path(&dir.path().join("a.svg")).is_ok());
        assert!(check_path(&dir.path().join("a.SVG")).is_ok());
        let e = check_path(&dir.path().join("a.png")).unwrap_err();
        assert!(e.contains("must end in .svg"), "{e}");
        let e = check_path(&dir.path().join("missing/a.svg")).unwrap_err();
        assert!(e.contains("does not exist"), "{e}");
    }

    /// A failed write leaves nothing behind, not even the temporary file.
    #[test]
    fn a_write_is_whole_or_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.svg");
        write(&path, "<svg/>").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "<svg/>");
        // A folder where the file should be: the rename fails.
        let blocked = dir.path().join("d.svg");
        std::fs::create_dir(&blocked).unwrap();
        std::fs::write(blocked.join("x"), "x").unwrap();
        let e = write(&blocked, "<svg/>").unwrap_err();
        assert!(e.contains("cannot write"), "{e}");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(left.len(), 2, "{left:?}");
    }
}
