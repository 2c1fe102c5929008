//! SVG plots: those of a run's result (`ssdlab run --plot DIR`) (latency over time, the latency CDF
//! per job and direction, bandwidth, WAF and free blocks over time), and the line and bar
//! charts of the experiments' figures. The choices are the Python package's (`ssdlab.plot`):
//! a logarithmic latency axis where tails matter, the Okabe-Ito colours, units on every axis.

use crate::metrics::RunResult;
use crate::{Error, Result};
use plotters::prelude::*;

/// One line of a plot.
pub struct Line {
    pub label: String,
    pub points: Vec<(f64, f64)>,
}

/// Twelve colours that stay apart for readers with any common colour-vision deficiency: the
/// Okabe-Ito palette (blue, orange, bluish green, vermillion, reddish purple, sky blue, black,
/// yellow), then grey and brown, which differ from them in lightness, and Paul Tol's indigo
/// and wine, for the figures of eleven or twelve series (hotr's per-workload bars). No
/// red-green pair separates two series; the Python package draws with the same list.
pub const COLOURS: [RGBColor; 12] = [
    RGBColor(0, 114, 178),
    RGBColor(230, 159, 0),
    RGBColor(0, 158, 115),
    RGBColor(213, 94, 0),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
    RGBColor(240, 228, 66),
    RGBColor(128, 128, 128),
    RGBColor(140, 86, 75),
    RGBColor(51, 34, 136),
    RGBColor(136, 34, 85),
];

/// The title's font size: 22 px, smaller for a title that would not fit the 900-pixel canvas
/// at that size (about 12 px a character), never below 12 px.
fn title_size(title: &str) -> u32 {
    const FITS: usize = 70;
    let n = title.chars().count();
    if n <= FITS {
        22
    } else {
        (22 * FITS / n).max(12) as u32
    }
}

/// How many lines the legend of `n` series takes, as a share of the plot's height (about 20
/// of its 430 pixels per line, and a margin): the room left above the data so that the
/// legend in the upper right corner covers none of it.
fn legend_share(n: usize) -> f64 {
    if n <= 1 {
        0.0
    } else {
        (n as f64 * 20.0 + 20.0) / 430.0
    }
}

/// Whether every value is a whole number (counts, channels): the axis then says so, with no
/// tick between two whole numbers.
fn whole(values: impl IntoIterator<Item = f64>) -> bool {
    values.into_iter().all(|v| v.fract() == 0.0)
}

/// A whole number with its thousands separated by commas (`250,000`).
fn grouped(v: i64) -> String {
    let digits = v.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if v < 0 {
        format!("-{out}")
    } else {
        out
    }
}

/// Tick labels, axis titles and legend entries: plotters draws text at 0.81 of the size
/// asked, so these give about 14, 16 and 13 px on the 900 × 540 canvas (its defaults came out
/// at 9.7 px), readable at the size the plot is shown.
const TICK_FONT: u32 = 17;
const AXIS_FONT: u32 = 20;
const LEGEND_FONT: u32 = 16;

/// A tick label: whole numbers without decimals, their thousands separated from 10,000 on (and
/// nothing between them when the values are all whole), others with up to three decimals, very
/// small or very large ones in e-notation.
fn tick(v: f64, whole: bool) -> String {
    let is_whole = (v - v.round()).abs() < 1e-9;
    if whole && !is_whole {
        String::new()
    } else if is_whole && v.abs() < 1e12 {
        let i = v.round() as i64;
        if i.abs() >= 10_000 {
            grouped(i)
        } else {
            format!("{i}")
        }
    } else if v.abs() < 1e-3 || v.abs() >= 1e12 {
        format!("{v:.1e}")
    } else {
        let t = format!("{v:.3}");
        t.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// Draw with `draw` on an SVG canvas and write it to `path` whole (or not at all).
fn svg_file(
    path: &str,
    draw: impl FnOnce(&DrawingArea<SVGBackend<'_>, plotters::coord::Shift>) -> Result<()>,
) -> Result<()> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, 540)).into_drawing_area();
        draw(&root)?;
    }
    ssdlab_core::output::write(path, svg)
}

/// Draw `lines` into `path` as an SVG line chart, each point marked when they are sparse
/// (a straight line between two distant samples would suggest values never measured).
fn chart(path: &str, title: &str, x_label: &str, y_label: &str, lines: &[Line]) -> Result<()> {
    let sparse = lines.iter().all(|l| l.points.len() <= 60);
    chart_with(path, title, (x_label, false), y_label, lines, sparse)
}

/// Draw `lines` into `path` as an SVG line chart, the x axis logarithmic if `x.1`, each
/// point marked if `marks`.
pub fn chart_with(path: &str, title: &str, x: (&str, bool), y_label: &str, lines: &[Line], marks: bool) -> Result<()> {
    chart_full(path, title, x, y_label, lines, marks, false)
}

/// [`chart_with`], or with `shares` a chart of shares (CDFs): the y axis from 0 to 1 exactly and
/// the legend in the lower right corner, below curves that end at 1.
pub fn chart_full(
    path: &str,
    title: &str,
    x: (&str, bool),
    y_label: &str,
    lines: &[Line],
    marks: bool,
    shares: bool,
) -> Result<()> {
    let (x_label, log_x) = x;
    let fail = |e: String| Error::Invalid(format!("{path}: drawing the plot failed: {e}"));
    let all = lines.iter().flat_map(|l| l.points.iter());
    let (mut x0, mut x1, mut y1) = (f64::MAX, f64::MIN, 0.0f64);
    for &(x, y) in all {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y1 = y1.max(y);
    }
    if x0 > x1 {
        (x0, x1) = (0.0, 1.0);
    }
    if x1 <= x0 {
        x1 = x0 + 1.0;
    }
    let y1 = if shares {
        1.0
    } else {
        let y1 = if y1 > 0.0 { y1 * 1.05 } else { 1.0 };
        // Room for the legend above the data.
        y1 / (1.0 - legend_share(lines.len())).max(0.3)
    };
    let legend_at = if shares {
        SeriesLabelPosition::LowerRight
    } else {
        SeriesLabelPosition::UpperRight
    };
    // A little room beyond the first and last x so that their marks are drawn whole (never
    // below 0 for an axis that starts at or above it).
    let (x0, x1) = if log_x && x0 > 0.0 {
        (x0 / 1.05, x1 * 1.05)
    } else {
        let pad = (x1 - x0) * 0.02;
        (if x0 >= 0.0 { (x0 - pad).max(0.0) } else { x0 - pad }, x1 + pad)
    };
    svg_file(path, |root| {
        root.fill(&WHITE).map_err(|e| fail(e.to_string()))?;
        let mut builder = ChartBuilder::on(root);
        builder
            .caption(title, ("sans-serif", title_size(title)))
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(72);
        // Whole x values (dies, queue depths) on a logarithmic axis: ticks at the values the
        // data has (1, 2, 4, 16), where plotters would mark 1 to 10 and nothing beyond.
        let mut at: Vec<f64> = lines.iter().flat_map(|l| l.points.iter().map(|p| p.0)).collect();
        at.sort_by(f64::total_cmp);
        at.dedup();
        if log_x && x0 > 0.0 && whole(at.iter().copied()) && at.len() <= 16 {
            let mut c = builder
                .build_cartesian_2d((x0..x1).log_scale().with_key_points(at), 0.0..y1)
                .map_err(|e| fail(e.to_string()))?;
            contents(&mut c, (x_label, y_label), lines, marks, legend_at).map_err(fail)?;
        } else if log_x && x0 > 0.0 {
            let mut c = builder
                .build_cartesian_2d((x0..x1).log_scale(), 0.0..y1)
                .map_err(|e| fail(e.to_string()))?;
            contents(&mut c, (x_label, y_label), lines, marks, legend_at).map_err(fail)?;
        } else {
            let mut c = builder
                .build_cartesian_2d(x0..x1, 0.0..y1)
                .map_err(|e| fail(e.to_string()))?;
            contents(&mut c, (x_label, y_label), lines, marks, legend_at).map_err(fail)?;
        }
        root.present().map_err(|e| fail(e.to_string()))
    })
}

/// The category labels' font size: the tick size, smaller where the longest label would run
/// into its neighbours (each category has 800/n pixels of the canvas; a character takes
/// about 0.55 of the font size, which plotters draws at 0.81), at least 9 px.
fn category_font(categories: &[String]) -> u32 {
    let longest = categories.iter().map(|c| c.chars().count()).max().unwrap_or(1).max(1);
    let fits = 800.0 / categories.len().max(1) as f64 / (0.55 * longest as f64) / 0.81;
    (fits.floor() as u32).clamp(9, TICK_FONT)
}

/// Where line `i`'s bar at category `x` stands: in each group a bar per line with a point
/// there, side by side (9/10 of its slot) and centred on the category, so that a category only
/// some lines have (one scheme's bar beside another's policies) is not left with gaps.
fn bar_span(lines: &[Line], i: usize, x: f64) -> (f64, f64) {
    let here: Vec<usize> = (0..lines.len())
        .filter(|&j| lines[j].points.iter().any(|p| (p.0 - x).abs() < 1e-9))
        .collect();
    let width = 0.8 / here.len().max(1) as f64;
    let rank = here.iter().position(|&j| j == i).unwrap_or(0) as f64;
    let left = x - 0.4 + rank * width;
    (left, left + width * 0.9)
}

/// Draw a grouped bar chart into `path`: one group per category, in each a bar per line (x
/// of a line's point = its category's index), with the legend.
pub fn bars(
    path: &str,
    title: &str,
    categories: &[String],
    (x_label, y_label): (&str, &str),
    lines: &[Line],
) -> Result<()> {
    let fail = |e: String| Error::Invalid(format!("{path}: drawing the plot failed: {e}"));
    let y1 = lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.1))
        .fold(0.0f64, f64::max);
    // Room above the tallest bar for the legend in the upper right corner, so that it never
    // covers a bar (a single series needs none: its label is the axis's).
    let legend = legend_share(lines.len()).max(20.0 / 430.0);
    let y1 = if y1 > 0.0 {
        y1 * 1.05 / (1.0 - legend).max(0.3)
    } else {
        1.0
    };
    let whole_y = whole(lines.iter().flat_map(|l| l.points.iter().map(|p| p.1)));
    let n = categories.len().max(1);
    svg_file(path, |root| {
        root.fill(&WHITE).map_err(|e| fail(e.to_string()))?;
        let mut c = ChartBuilder::on(root)
            .caption(title, ("sans-serif", title_size(title)))
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(72)
            .build_cartesian_2d(-0.5..n as f64 - 0.5, 0.0..y1)
            .map_err(|e| fail(e.to_string()))?;
        let names = categories.to_vec();
        c.configure_mesh()
            .disable_x_mesh()
            .x_labels(n)
            .x_label_formatter(&|x: &f64| {
                let i = x.round();
                if (x - i).abs() < 1e-6 && i >= 0.0 {
                    names.get(i as usize).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .x_desc(x_label)
            .y_desc(y_label)
            .label_style(("sans-serif", TICK_FONT))
            .x_label_style(("sans-serif", category_font(categories)))
            .axis_desc_style(("sans-serif", AXIS_FONT))
            .light_line_style(WHITE)
            .y_label_formatter(&|y: &f64| tick(*y, whole_y))
            .draw()
            .map_err(|e| fail(e.to_string()))?;
        for (i, l) in lines.iter().enumerate() {
            let colour = COLOURS[i % COLOURS.len()];
            let bar = |x: f64, y: f64| {
                let (left, right) = bar_span(lines, i, x);
                Rectangle::new([(left, 0.0), (right, y)], colour.filled())
            };
            c.draw_series(l.points.iter().map(|&(x, y)| bar(x, y)))
                .map_err(|e| fail(e.to_string()))?
                .label(l.label.clone())
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], colour.filled()));
        }
        c.configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .border_style(BLACK)
            .background_style(WHITE)
            .label_font(("sans-serif", LEGEND_FONT))
            .draw()
            .map_err(|e| fail(e.to_string()))?;
        root.present().map_err(|e| fail(e.to_string()))
    })
}

/// The mesh with its axis labels, each line (and its points, if `marks`), and the legend
/// when there is more than one line: the same on a linear or a logarithmic x axis.
fn contents<'a, X>(
    c: &mut ChartContext<'a, SVGBackend<'a>, Cartesian2d<X, plotters::coord::types::RangedCoordf64>>,
    (x_label, y_label): (&str, &str),
    lines: &[Line],
    marks: bool,
    legend_at: SeriesLabelPosition,
) -> std::result::Result<(), String>
where
    X: Ranged<ValueType = f64> + plotters::coord::ranged1d::ValueFormatter<f64>,
{
    let whole_x = whole(lines.iter().flat_map(|l| l.points.iter().map(|p| p.0)));
    let whole_y = whole(lines.iter().flat_map(|l| l.points.iter().map(|p| p.1)));
    c.configure_mesh()
        .x_desc(x_label)
        .y_desc(y_label)
        .label_style(("sans-serif", TICK_FONT))
        .axis_desc_style(("sans-serif", AXIS_FONT))
        // The major grid only: plotters' minor lines (about ten per major) crowd the data.
        .light_line_style(WHITE)
        // Enough labels that a logarithmic axis marks 2 and 5 between its powers of ten.
        .x_labels(12)
        .x_label_formatter(&|x: &f64| tick(*x, whole_x))
        .y_label_formatter(&|y: &f64| tick(*y, whole_y))
        .draw()
        .map_err(|e| e.to_string())?;
    for (i, l) in lines.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        // Every other line dashed and the first ones wider, so that a line drawn over an equal
        // one leaves it visible.
        let style = colour.stroke_width(if i < 2 { 4 } else { 2 });
        let anno = if i % 2 == 1 {
            c.draw_series(DashedLineSeries::new(l.points.iter().copied(), 9, 6, style))
        } else {
            c.draw_series(LineSeries::new(l.points.iter().copied(), style))
        }
        .map_err(|e| e.to_string())?
        .label(l.label.clone());
        // The legend shows the line and, when the points are marked, the series' marker.
        let line = move |(x, y): (i32, i32)| {
            EmptyElement::at((x, y)) + PathElement::new(vec![(0, 0), (16, 0)], colour.stroke_width(3))
        };
        match (marks, i % 3) {
            (false, _) => anno.legend(line),
            (true, 0) => anno.legend(move |p| line(p) + Circle::new((8, 0), 4, colour.filled())),
            (true, 1) => anno.legend(move |p| line(p) + TriangleMarker::new((8, 0), 5, colour.filled())),
            (true, _) => anno.legend(move |p| line(p) + Cross::new((8, 0), 4, colour.stroke_width(2))),
        };
        if marks {
            // A shape per series as well as a colour.
            match i % 3 {
                0 => c.draw_series(l.points.iter().map(|&p| Circle::new(p, 4, colour.filled()))),
                1 => c.draw_series(l.points.iter().map(|&p| TriangleMarker::new(p, 5, colour.filled()))),
                _ => c.draw_series(l.points.iter().map(|&p| Cross::new(p, 4, colour.stroke_width(2)))),
            }
            .map_err(|e| e.to_string())?;
        }
    }
    if lines.len() > 1 {
        c.configure_series_labels()
            .position(legend_at)
            .border_style(BLACK)
            .background_style(WHITE)
            .label_font(("sans-serif", LEGEND_FONT))
            .draw()
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The latency CDF of each job and direction with I/O, from fio's json+ bins: (latency in
/// µs, share of the I/Os at or below it).
fn cdf(r: &RunResult) -> Vec<Line> {
    let mut lines = Vec::new();
    for j in &r.jobs {
        for (name, op) in [("read", &j.read), ("write", &j.write), ("trim", &j.trim)] {
            let mut bins: Vec<(u64, u64)> = op
                .clat_ns
                .bins
                .iter()
                .flat_map(|b| b.0.iter())
                .map(|(v, n)| (v.parse().unwrap_or(0), *n))
                .collect();
            bins.sort_unstable();
            let total: u64 = bins.iter().map(|b| b.1).sum();
            if total == 0 {
                continue;
            }
            let mut acc = 0;
            let points = bins
                .iter()
                .map(|&(v, n)| {
                    acc += n;
                    ((v as f64 / 1e3).max(1e-3), acc as f64 / total as f64)
                })
                .collect();
            lines.push(Line {
                label: if r.jobs.len() > 1 {
                    format!("{} ({name}s)", j.jobname)
                } else {
                    format!("{name}s")
                },
                points,
            });
        }
    }
    lines
}

/// Whether `lines` are cumulative shares (CDFs): every value within [0, 1] and every line
/// ending at 1.
pub fn cumulative(lines: &[Line]) -> bool {
    !lines.is_empty()
        && lines.iter().all(|l| {
            l.points.last().is_some_and(|p| (p.1 - 1.0).abs() < 1e-9)
                && l.points.iter().all(|p| (0.0..=1.0).contains(&p.1))
        })
}

/// A series over time without its last point when that point closes an interval shorter than
/// half the one before it (the run's end cuts the last sampling interval short, and a rate over
/// a few microseconds of queue drain would set the y range).
fn full_intervals(mut points: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    let n = points.len();
    if n >= 3 && points[n - 1].0 - points[n - 2].0 < 0.5 * (points[n - 2].0 - points[n - 3].0) {
        points.pop();
    }
    points
}

/// Write `latency.svg`, `latency_cdf.svg`, `bandwidth.svg`, `waf.svg` and `free_blocks.svg`
/// into `dir`.
pub fn draw(r: &RunResult, dir: &str) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let path = |name: &str| std::path::Path::new(dir).join(name).to_string_lossy().into_owned();
    let secs = |t: u64| t as f64 / 1e9;
    let s = &r.ssd;
    let one = |label: &str, points: Vec<(f64, f64)>| {
        vec![Line {
            label: label.into(),
            points,
        }]
    };
    chart(
        &path("latency.svg"),
        "Mean completion latency over time (all jobs, reads and writes together)",
        "simulated time (s)",
        "mean latency (µs)",
        &one(
            "latency",
            full_intervals(s.latency_over_time.iter().map(|&(t, l)| (secs(t), l / 1e3)).collect()),
        ),
    )?;
    // A logarithmic latency axis: 100 µs reads stay visible beside a 50 ms write tail.
    chart_full(
        &path("latency_cdf.svg"),
        "Completion latency CDF, per job and direction",
        ("completion latency (µs, log scale)", true),
        "share of the I/Os at or below",
        &cdf(r),
        false,
        true,
    )?;
    chart(
        &path("bandwidth.svg"),
        "Host bandwidth over time (all jobs, reads and writes together)",
        "simulated time (s)",
        "bandwidth (MB/s)",
        &one(
            "bandwidth",
            full_intervals(s.bandwidth_over_time.iter().map(|&(t, b)| (secs(t), b / 1e6)).collect()),
        ),
    )?;
    chart(
        &path("waf.svg"),
        "Write amplification over time (per sampling interval)",
        "simulated time (s)",
        "WAF (flash writes per host write)",
        &one(
            "WAF",
            full_intervals(s.waf_over_time.iter().map(|&(t, w)| (secs(t), w)).collect()),
        ),
    )?;
    chart(
        &path("free_blocks.svg"),
        "Free blocks over time",
        "simulated time (s)",
        "free blocks (count)",
        &one(
            "free blocks",
            s.free_blocks_over_time
                .iter()
                .map(|&(t, b)| (secs(t), b as f64))
                .collect(),
        ),
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_titles_get_a_smaller_font_that_fits_the_canvas() {
        assert_eq!(title_size("Write amplification"), 22);
        assert_eq!(title_size(&"x".repeat(70)), 22);
        // 100 characters at 15 px (about 8 px each) take about 820 of the 900 pixels.
        assert_eq!(title_size(&"x".repeat(100)), 15);
        assert_eq!(title_size(&"x".repeat(400)), 12);
        // Characters, not bytes.
        assert_eq!(title_size(&"é".repeat(70)), 22);
    }

    #[test]
    fn cdfs_are_told_from_other_lines() {
        let line = |pts: &[(f64, f64)]| Line {
            label: String::new(),
            points: pts.to_vec(),
        };
        assert!(cumulative(&[line(&[(1.0, 0.2), (2.0, 1.0)]), line(&[(1.0, 1.0)])]));
        assert!(!cumulative(&[line(&[(1.0, 0.2), (2.0, 0.9)])]));
        assert!(!cumulative(&[line(&[(1.0, 1.5), (2.0, 1.0)])]));
        assert!(!cumulative(&[]));
    }

    #[test]
    fn a_short_last_interval_is_dropped() {
        let p = |v: &[(f64, f64)]| full_intervals(v.to_vec());
        assert_eq!(p(&[(1.0, 5.0), (2.0, 6.0), (2.1, 99.0)]), [(1.0, 5.0), (2.0, 6.0)]);
        assert_eq!(p(&[(1.0, 5.0), (2.0, 6.0), (2.6, 7.0)]).len(), 3);
        assert_eq!(p(&[(1.0, 5.0), (1.1, 99.0)]).len(), 2);
    }

    #[test]
    fn ticks_are_whole_grouped_or_short() {
        assert_eq!(tick(250_000.0, true), "250,000");
        assert_eq!(tick(9_999.0, true), "9999");
        assert_eq!(tick(-1_234_567.0, true), "-1,234,567");
        assert_eq!(tick(2.5, true), "");
        assert_eq!(tick(2.5, false), "2.5");
        assert_eq!(tick(0.1234, false), "0.123");
        assert_eq!(tick(0.0001, false), "1.0e-4");
        assert_eq!(grouped(1_000), "1,000");
        assert_eq!(grouped(100), "100");
        assert_eq!(grouped(0), "0");
    }

    #[test]
    fn category_labels_shrink_to_fit_their_slots() {
        let cats = |n: usize, len: usize| vec!["x".repeat(len); n];
        assert_eq!(category_font(&cats(5, 10)), TICK_FONT);
        // hotr's eleven workloads, "cloudphysics" the longest: 72 px each.
        let f = category_font(&cats(11, 12));
        assert!(f < TICK_FONT && 0.55 * 0.81 * f as f64 * 12.0 <= 800.0 / 11.0, "{f}");
        assert_eq!(category_font(&cats(100, 40)), 9);
        assert_eq!(category_font(&[]), TICK_FONT);
    }

    #[test]
    fn bars_share_their_group_with_the_lines_there_only() {
        let line = |pts: &[(f64, f64)]| Line {
            label: String::new(),
            points: pts.to_vec(),
        };
        let close = |a: (f64, f64), b: (f64, f64)| (a.0 - b.0).abs() < 1e-9 && (a.1 - b.1).abs() < 1e-9;
        // Both lines everywhere: halves of the 0.8 group, as a grouped chart has them.
        let both = [line(&[(0.0, 1.0), (1.0, 2.0)]), line(&[(0.0, 3.0), (1.0, 4.0)])];
        assert!(close(bar_span(&both, 0, 1.0), (0.6, 0.96)));
        assert!(close(bar_span(&both, 1, 1.0), (1.0, 1.36)));
        // One line at category 0, the other at 1 and 2: each bar alone and centred.
        let apart = [line(&[(0.0, 1.0)]), line(&[(1.0, 2.0), (2.0, 3.0)])];
        assert!(close(bar_span(&apart, 0, 0.0), (-0.4, 0.32)));
        assert!(close(bar_span(&apart, 1, 2.0), (1.6, 2.32)));
    }

    #[test]
    fn eleven_series_get_eleven_colours() {
        let distinct: std::collections::HashSet<_> = COLOURS.iter().map(|c| (c.0, c.1, c.2)).collect();
        assert_eq!(distinct.len(), COLOURS.len());
        assert!(COLOURS.len() >= 11, "hotr's per-workload figures have 11 series");
    }
}
