//! SVG pictures of the demo's measurements (plotters' SVG backend, no fonts
//! or bitmaps): lines over time (the console's and `make demo`'s throughput
//! plots) and a histogram of round trips on a logarithmic time axis with its
//! percentiles marked (the latency tools'); and the `--plot FILE` checks and
//! whole-or-nothing write every tool that draws shares.

use std::path::{Path, PathBuf};

use plotters::prelude::*;

/// One line of a picture: its label and its points (x, y), for
/// [`svg_lines`] in ms and MB/s.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    pub label: String,
    pub points: Vec<(f64, f64)>,
}

/// The pictures' size in pixels; about 430 of the 540 rows are plot.
const SIZE: (u32, u32) = (960, 540);

/// The top of a linear y axis whose highest value is `highest`, with room
/// above it for a legend of `entries` lines in the upper right (about 16
/// pixels a line of the plot's 430).
fn headroom(highest: f64, entries: usize) -> f64 {
    let legend = (16.0 * entries as f64 + 24.0) / 430.0;
    highest / (1.0 - legend).max(0.3)
}

fn failed(e: &dyn std::fmt::Display) -> String {
    format!("drawing the plot: {e}")
}

/// An SVG picture of `SIZE` on white with `title`: `draw` lays out the
/// chart on the builder it is given (margins and label areas set).
fn picture(
    title: &str,
    draw: impl FnOnce(ChartBuilder<'_, '_, SVGBackend<'_>>) -> Result<(), String>,
) -> Result<String, String> {
    let mut text = String::new();
    {
        let area = SVGBackend::with_string(&mut text, SIZE).into_drawing_area();
        area.fill(&WHITE).map_err(|e| failed(&e))?;
        let mut builder = ChartBuilder::on(&area);
        builder.caption(title, ("sans-serif", 22)).margin(16).x_label_area_size(48).y_label_area_size(72);
        draw(builder)?;
        area.present().map_err(|e| failed(&e))?;
    }
    Ok(text)
}

/// The legend of every labelled series, boxed, in the upper right.
fn legend<'a, X: Ranged, Y: Ranged>(
    chart: &mut ChartContext<'a, SVGBackend<'a>, Cartesian2d<X, Y>>,
) -> Result<(), String> {
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(|e| failed(&e))
}

/// `lines` (ms, MB/s) as an SVG picture with a title and the time axis's
/// description, a legend in the upper right.
pub fn svg_lines(title: &str, x_desc: &str, lines: &[Line]) -> Result<String, String> {
    let x_max = lines.iter().flat_map(|l| l.points.iter().map(|p| p.0)).fold(0.0f64, f64::max).max(1e-3);
    let highest = lines.iter().flat_map(|l| l.points.iter().map(|p| p.1)).fold(0.0f64, f64::max).max(1.0);
    let y_max = headroom(highest, lines.len());
    picture(title, |mut builder| {
        let mut chart = builder.build_cartesian_2d(0.0..x_max, 0.0..y_max).map_err(|e| failed(&e))?;
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc("MB/s")
            .y_label_formatter(&|v| format!("{v:.0}"))
            .draw()
            .map_err(|e| failed(&e))?;
        for (i, line) in lines.iter().enumerate() {
            let colour = Palette99::pick(i).to_rgba();
            chart
                .draw_series(LineSeries::new(line.points.iter().copied(), colour.stroke_width(2)))
                .map_err(|e| failed(&e))?
                .label(line.label.clone())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2)));
        }
        legend(&mut chart)
    })
}

/// One bar of [`histogram_svg`]: the values from `lo` up to `end` (in the
/// axis's unit, `lo` > 0) and how many samples fell there.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bar {
    pub lo: f64,
    pub end: f64,
    pub count: u64,
}

/// A histogram as an SVG picture: `bars` on a logarithmic x axis described
/// by `x_desc`, the count on a linear y axis, and a dashed vertical line at
/// each of `marks` (legend text, value).
pub fn histogram_svg(title: &str, x_desc: &str, bars: &[Bar], marks: &[(String, f64)]) -> Result<String, String> {
    draw_histograms(title, x_desc, &[(None, bars)], marks)
}

/// One labelled histogram of [`histograms_svg`]: a session's round trips.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub label: String,
    pub bars: Vec<Bar>,
}

/// Several histograms on one picture, as [`histogram_svg`] draws one: each
/// series' bars in its own colour, see-through where they overlap, and
/// named in the legend beside the marks.
pub fn histograms_svg(title: &str, x_desc: &str, series: &[Series], marks: &[(String, f64)]) -> Result<String, String> {
    let all: Vec<(Option<&str>, &[Bar])> = series.iter().map(|s| (Some(s.label.as_str()), s.bars.as_slice())).collect();
    draw_histograms(title, x_desc, &all, marks)
}

fn draw_histograms(
    title: &str,
    x_desc: &str,
    series: &[(Option<&str>, &[Bar])],
    marks: &[(String, f64)],
) -> Result<String, String> {
    let bars = || series.iter().flat_map(|(_, b)| b.iter());
    if let Some(b) = bars().find(|b| !(b.lo > 0.0 && b.end > b.lo)) {
        return Err(format!("drawing the histogram: a bar from {} to {} (a log axis needs 0 < lo < end)", b.lo, b.end));
    }
    let lo = bars().map(|b| b.lo).chain(marks.iter().map(|m| m.1)).filter(|v| *v > 0.0).fold(f64::MAX, f64::min);
    let hi = bars().map(|b| b.end).chain(marks.iter().map(|m| m.1)).fold(0.0f64, f64::max);
    // Empty: an arbitrary decade, so the axes still draw.
    let (x_lo, x_hi) = if hi > 0.0 { (lo / 1.25, hi * 1.25) } else { (1.0, 10.0) };
    let named = series.iter().filter(|(l, _)| l.is_some()).count();
    let y_max = headroom(bars().map(|b| b.count).max().unwrap_or(0).max(1) as f64, marks.len() + named);
    picture(title, |mut builder| {
        let mut chart = builder.build_cartesian_2d((x_lo..x_hi).log_scale(), 0.0..y_max).map_err(|e| failed(&e))?;
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc("samples")
            .x_label_formatter(&|v| format!("{v}"))
            .y_label_formatter(&|v| format!("{v:.0}"))
            .draw()
            .map_err(|e| failed(&e))?;
        // One series is drawn solid; several see-through, so none hides another.
        let alpha = if series.len() > 1 { 0.5 } else { 1.0 };
        for (i, (label, bars)) in series.iter().enumerate() {
            let fill = Palette99::pick(i).mix(alpha);
            let drawn = chart
                .draw_series(bars.iter().map(|b| Rectangle::new([(b.lo, 0.0), (b.end, b.count as f64)], fill.filled())))
                .map_err(|e| failed(&e))?;
            if let Some(l) = label {
                drawn.label(*l).legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 20, y + 5)], fill.filled()));
            }
        }
        for (i, (label, value)) in marks.iter().enumerate() {
            let style = Palette99::pick(i + series.len()).to_rgba().stroke_width(2);
            chart
                .draw_series(DashedLineSeries::new([(*value, 0.0), (*value, y_max)], 6, 4, style))
                .map_err(|e| failed(&e))?
                .label(label.clone())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
        }
        if marks.is_empty() && named == 0 {
            Ok(())
        } else {
            legend(&mut chart)
        }
    })
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

    /// The filled `<rect>` elements of an SVG text in the bars' colour, as
    /// (x, width, height).
    fn bars_of(svg: &str) -> Vec<(f64, f64, f64)> {
        bars_in(svg, 0)
    }

    /// [`bars_of`] in the colour of series `k`.
    fn bars_in(svg: &str, k: usize) -> Vec<(f64, f64, f64)> {
        let attr = |e: &str, k: &str| -> String {
            let i = e.find(&format!(" {k}=\"")).unwrap_or_else(|| panic!("no {k} in {e}")) + k.len() + 3;
            e[i..i + e[i..].find('"').unwrap()].to_string()
        };
        let (r, g, b) = Palette99::pick(k).rgb();
        let fill = format!("#{r:02X}{g:02X}{b:02X}");
        let num = |e: &str, k: &str| attr(e, k).parse::<f64>().unwrap();
        svg.split("<rect")
            .skip(1)
            .filter(|e| attr(e, "fill") == fill)
            .map(|e| (num(e, "x"), num(e, "width"), num(e, "height")))
            .collect()
    }

    /// Bars of the same ratio (1-2, 10-20, 100-200) are equally wide on the
    /// log axis, each as tall as its count; every mark is a line and a
    /// legend entry with its value.
    #[test]
    fn a_histogram_draws_its_bars_on_a_log_axis_and_marks_its_percentiles() {
        let bars = [
            Bar { lo: 1.0, end: 2.0, count: 10 },
            Bar { lo: 10.0, end: 20.0, count: 40 },
            Bar { lo: 100.0, end: 200.0, count: 20 },
        ];
        let marks = vec![("p50 15 us".to_string(), 15.0), ("p99 150 us".to_string(), 150.0)];
        let svg = histogram_svg("Round trips", "us", &bars, &marks).unwrap();
        let r = bars_of(&svg);
        assert_eq!(r.len(), 3, "{r:?}");
        let (b1, b2, b3) = (r[0], r[1], r[2]);
        assert!(b1.0 < b2.0 && b2.0 < b3.0, "bars left to right: {r:?}");
        assert!((b1.1 - b2.1).abs() <= 1.0 && (b2.1 - b3.1).abs() <= 1.0, "equal ratios, equal widths: {r:?}");
        assert!((b2.2 / b1.2 - 4.0).abs() < 0.1 && (b3.2 / b1.2 - 2.0).abs() < 0.1, "heights follow the counts: {r:?}");
        assert!(svg.contains("p50 15 us") && svg.contains("p99 150 us"), "the legend names each mark");
    }

    #[test]
    fn a_histogram_refuses_a_bar_a_log_axis_cannot_show() {
        let e = histogram_svg("t", "x", &[Bar { lo: 0.0, end: 1.0, count: 1 }], &[]).unwrap_err();
        assert!(e.contains("0 < lo < end"), "{e}");
        // Nothing recorded still draws the axes.
        assert!(histogram_svg("t", "x", &[], &[]).unwrap().contains("<svg"));
    }

    /// Several series: each bar in its series' colour, every series named
    /// in the legend beside the marks.
    #[test]
    fn several_histograms_each_in_its_colour() {
        let series = [
            Series { label: "session 0".into(), bars: vec![Bar { lo: 1.0, end: 2.0, count: 10 }] },
            Series {
                label: "session 2".into(),
                bars: vec![Bar { lo: 2.0, end: 4.0, count: 5 }, Bar { lo: 4.0, end: 8.0, count: 20 }],
            },
        ];
        let svg = histograms_svg("t", "ns", &series, &[("S0 p50 2 ns".into(), 2.0)]).unwrap();
        // The legend's swatch is a rect of the series' colour too.
        assert_eq!(bars_in(&svg, 0).len(), 1 + 1, "{svg}");
        assert_eq!(bars_in(&svg, 1).len(), 2 + 1, "{svg}");
        assert!(svg.contains("session 0") && svg.contains("session 2") && svg.contains("S0 p50 2 ns"));
    }
}
