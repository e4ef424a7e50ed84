//! The workbench's SVG plots, read back from their SVG text: every decade of a log axis is
//! labelled, zeros go to marked points on a floor row instead of lines to the bottom, the legend
//! lies outside the plotting area with its text inside its box, trajectory plots have equal
//! scales, and linear ticks are round and not cut off.

use geomint::workbench::plot::{self, Axes, Series};

// --- a minimal reader of the SVG that plotters writes -------------------------------------------

/// One SVG element: its tag, its attributes and (for `<text>`) its content.
#[derive(Debug, Clone)]
struct Element {
    tag: String,
    attrs: Vec<(String, String)>,
    text: String,
}

impl Element {
    fn attr(&self, name: &str) -> Option<&str> {
        self.attrs.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
    fn num(&self, name: &str) -> f64 {
        self.attr(name)
            .unwrap_or_else(|| panic!("<{}> has no {name}: {self:?}", self.tag))
            .parse()
            .unwrap_or_else(|_| panic!("<{}> {name} is not a number: {self:?}", self.tag))
    }
    /// The vertices of a `<polyline>`.
    fn points(&self) -> Vec<(f64, f64)> {
        self.attr("points")
            .unwrap_or("")
            .split_whitespace()
            .map(|p| {
                let (x, y) = p.split_once(',').expect("x,y");
                (x.parse().unwrap(), y.parse().unwrap())
            })
            .collect()
    }
    /// `(x0, y0, x1, y1)` of a `<rect>`.
    fn bounds(&self) -> (f64, f64, f64, f64) {
        let (x, y) = (self.num("x"), self.num("y"));
        (x, y, x + self.num("width"), y + self.num("height"))
    }
}

/// Every element of `svg`, in document order.
fn elements(svg: &str) -> Vec<Element> {
    let mut out = Vec::new();
    let mut rest = svg;
    while let Some(i) = rest.find('<') {
        rest = &rest[i + 1..];
        if rest.starts_with('/') || rest.starts_with('?') || rest.starts_with('!') {
            continue;
        }
        let end = rest.find('>').expect("unterminated tag");
        let head = &rest[..end];
        let tag: String = head.chars().take_while(|c| c.is_alphanumeric()).collect();
        let mut attrs = Vec::new();
        let mut a = &head[tag.len()..];
        while let Some(eq) = a.find("=\"") {
            let name = a[..eq].trim().to_string();
            let close = a[eq + 2..].find('"').expect("unterminated attribute") + eq + 2;
            attrs.push((name, a[eq + 2..close].to_string()));
            a = &a[close + 1..];
        }
        let mut text = String::new();
        if tag == "text" {
            let body = &rest[end + 1..];
            let stop = body.find("</text>").expect("unterminated <text>");
            text = body[..stop].trim().replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&");
        }
        out.push(Element { tag, attrs, text });
        rest = &rest[end + 1..];
    }
    out
}

fn texts(svg: &str) -> Vec<Element> {
    elements(svg).into_iter().filter(|e| e.tag == "text").collect()
}

fn text<'a>(all: &'a [Element], content: &str) -> &'a Element {
    all.iter()
        .find(|e| e.tag == "text" && e.text == content)
        .unwrap_or_else(|| panic!("no <text> '{content}' in {:?}", all.iter().map(|e| &e.text).collect::<Vec<_>>()))
}

/// The stroked rectangles of colour `stroke`.
fn frames(all: &[Element], stroke: &str) -> Vec<(f64, f64, f64, f64)> {
    all.iter().filter(|e| e.tag == "rect" && e.attr("stroke") == Some(stroke)).map(Element::bounds).collect()
}

/// The colour of palette entry 0 (tab10 blue), as plotters writes it.
const BLUE: &str = "#1F77B4";
/// The colour of the plotting area's frame.
const FRAME: &str = "#464646";

fn overlap(a: (f64, f64, f64, f64), b: (f64, f64, f64, f64)) -> bool {
    a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3
}

fn svg_size(svg: &str) -> (f64, f64) {
    let root = &elements(svg)[0];
    assert_eq!(root.tag, "svg");
    (root.num("width"), root.num("height"))
}

/// The legend box around the `<text>` `label`: the smallest stroked rectangle containing its
/// anchor; asserts that the text (at least 0.55 em per character, a lower bound for sans-serif
/// faces) fits inside it.
fn legend_box(all: &[Element], label: &str) -> (f64, f64, f64, f64) {
    let t = text(all, label);
    let (x, y) = (t.num("x"), t.num("y"));
    let size = t.num("font-size");
    let b = all
        .iter()
        .filter(|e| e.tag == "rect" && e.attr("fill") == Some("none"))
        .map(Element::bounds)
        .filter(|b| b.0 <= x && x <= b.2 && b.1 <= y && y <= b.3)
        .min_by(|a, b| ((a.2 - a.0) * (a.3 - a.1)).total_cmp(&((b.2 - b.0) * (b.3 - b.1))))
        .unwrap_or_else(|| panic!("no box around the legend text '{label}'"));
    assert_eq!(t.attr("text-anchor"), Some("start"), "legend text anchored at its start");
    let min_width = 0.55 * size * label.chars().count() as f64;
    assert!(x + min_width <= b.2, "legend text '{label}' ({x} + {min_width}) overflows its box {b:?}");
    assert!(y - size / 2.0 >= b.1 && y + size / 2.0 <= b.3, "legend text '{label}' outside its box {b:?}");
    b
}

// --- the tests ----------------------------------------------------------------------------------

/// A range from 1e-18 to 1e2: a label `1eK` at every decade in between, ticks in order from the
/// bottom up, and the range snapped to those whole decades (no label beyond them).
#[test]
fn every_decade_from_1e_minus_18_to_1e2_is_labelled() {
    let points: Vec<(f64, f64)> = (0..=200).map(|i| (f64::from(i), 10f64.powf(-18.0 + f64::from(i) / 10.0))).collect();
    let svg = plot::svg(&Axes::new("decades", "t", "relative error"), &[Series::new("e", points)]).unwrap();
    let all = texts(&svg);
    let mut last_y = f64::INFINITY;
    for k in -18..=2 {
        let t = text(&all, &format!("1e{k}"));
        let y = t.num("y");
        assert!(y < last_y, "1e{k} at y = {y} is not above the decade below it ({last_y})");
        last_y = y;
    }
    for k in [-19, 3] {
        assert!(!all.iter().any(|t| t.text == format!("1e{k}")), "1e{k} is outside the data's decades");
    }
    // equally spaced decades
    let ys: Vec<f64> = (-18..=2).map(|k| text(&all, &format!("1e{k}")).num("y")).collect();
    let gaps: Vec<f64> = ys.windows(2).map(|w| w[0] - w[1]).collect();
    let (lo, hi) = gaps.iter().fold((f64::INFINITY, 0.0f64), |(a, b), g| (a.min(*g), b.max(*g)));
    assert!(hi - lo <= 1.0, "decade spacing varies from {lo} to {hi} px");
}

/// Too many decades for a label each in a short panel: every other decade is labelled, and
/// every decade still has its tick.
#[test]
fn crowded_decades_keep_a_tick_each() {
    let points: Vec<(f64, f64)> = (0..=30).map(|i| (f64::from(i), 10f64.powi(i - 18))).collect();
    let series = [
        Series::new("a", points.clone()).panel("relative error"),
        Series::new("b", points.clone()).panel("absolute error"),
        Series::new("c", points).panel("third"),
    ];
    let svg = plot::svg(&Axes::new("", "t", ""), &series).unwrap();
    let all = elements(&svg);
    let labels: Vec<&str> =
        all.iter().filter(|e| e.tag == "text" && e.text.starts_with("1e")).map(|e| e.text.as_str()).collect();
    // three panels of 31 decades each: fewer labels than decades, but some
    assert!(labels.len() < 3 * 31 && labels.len() >= 3 * 10, "{} decade labels", labels.len());
    // one major tick (6 px, left of the frame) per decade and panel
    let frame = frames(&all, FRAME)[0];
    let ticks = all
        .iter()
        .filter(|e| e.tag == "polyline" && e.attr("stroke") == Some(FRAME))
        .filter(|e| {
            let p = e.points();
            p.len() == 2 && p[0].1 == p[1].1 && p[1].0 == frame.0 && p[1].0 - p[0].0 == 6.0
        })
        .count();
    assert_eq!(ticks, 3 * 31, "major y ticks");
}

/// Exact zeros and values below the floor are hollow markers on a labelled floor row: no line
/// of the series goes down to it.
#[test]
fn zeros_become_floor_markers_not_lines() {
    let points = vec![(0.0, 1e-3), (1.0, 0.0), (2.0, 2e-3), (3.0, 0.0), (4.0, 1e-20), (5.0, 1e-4), (6.0, 3e-4)];
    let svg = plot::svg(&Axes::new("zeros", "t", "absolute error"), &[Series::new("e", points).hue(0)]).unwrap();
    let all = elements(&svg);
    let floor = text(&all, &format!("0 / below {:e}", plot::FLOOR));
    let fy = floor.num("y");
    // the lowest decade label is above the floor row
    let lowest =
        all.iter().filter(|e| e.tag == "text" && e.text.starts_with("1e")).map(|e| e.num("y")).fold(0.0, f64::max);
    assert!(lowest < fy - 10.0, "the lowest decade ({lowest}) is not above the floor row ({fy})");
    // hollow markers of the series' colour on the floor row, one per zero or sub-floor value
    let on_floor: Vec<&Element> = all
        .iter()
        .filter(|e| e.tag == "circle" && e.attr("stroke") == Some(BLUE) && e.attr("fill") == Some("none"))
        .filter(|e| (e.num("cy") - fy).abs() <= 1.0)
        .collect();
    assert_eq!(on_floor.len(), 3, "floor markers: {on_floor:?}");
    // the series' lines: none reaches below the lowest decade
    let lines: Vec<&Element> = all.iter().filter(|e| e.tag == "polyline" && e.attr("stroke") == Some(BLUE)).collect();
    assert!(!lines.is_empty(), "no line of the series");
    for l in &lines {
        for (_, y) in l.points() {
            assert!(y < fy - 10.0, "a line of the series goes down to the floor row: {l:?}");
        }
    }
    // the values above the floor keep their filled markers (and the legend has one)
    let filled = all.iter().filter(|e| e.tag == "circle" && e.attr("fill") == Some(BLUE)).count();
    assert_eq!(filled, 4 + 1, "markers of the values above the floor");
}

/// The legend box is outside every plotting area (to its right) and holds its text; the same in
/// a trajectory plot.
#[test]
fn legend_lies_outside_the_plotting_area() {
    let series: Vec<Series> = (0..4usize)
        .map(|m| {
            let pts = (0..50).map(|i| (f64::from(i) * 40.0, 1e-6 * (m + 1) as f64 * (1.0 + f64::from(i)))).collect();
            Series::new(format!("a method with a long name {m} energy"), pts).hue(m).panel(if m % 2 == 0 {
                "relative error"
            } else {
                "absolute error"
            })
        })
        .collect();
    let svg = plot::svg(&Axes::new("legend", "t", "error").x_unit(Some("days")), &series).unwrap();
    let all = elements(&svg);
    let areas = frames(&all, FRAME);
    assert_eq!(areas.len(), 2, "two panels");
    let (w, h) = svg_size(&svg);
    for m in 0..4 {
        let b = legend_box(&all, &format!("a method with a long name {m} energy"));
        for a in &areas {
            assert!(!overlap(b, *a), "legend {b:?} overlaps the plotting area {a:?}");
            assert!(b.0 >= a.2, "legend {b:?} not to the right of {a:?}");
        }
        assert!(b.2 <= w && b.3 <= h, "legend {b:?} outside the picture {w} × {h}");
    }
    text(&all, "t [days]");
    text(&all, "relative error");
    text(&all, "absolute error");

    let circle: Vec<(f64, f64)> = (0..100).map(|i| (f64::from(i) / 10.0).sin_cos()).collect();
    let svg =
        plot::trajectory_svg(&Axes::new("orbit", "x", "y"), &[Series::new("a body with a long name", circle)]).unwrap();
    let all = elements(&svg);
    let area = frames(&all, FRAME)[0];
    let b = legend_box(&all, "a body with a long name");
    assert!(!overlap(b, area) && b.0 >= area.2, "trajectory legend {b:?} overlaps {area:?}");
}

/// Trajectory plots have equal scales: an ellipse with semi-axes 3 and 1 (and one with 1 and 4)
/// is drawn 3 (¼) times as wide as high, within 1%.
#[test]
fn trajectory_has_equal_scales() {
    for (a, b) in [(3.0, 1.0), (1.0, 4.0), (40.0, 30.0)] {
        let ellipse: Vec<(f64, f64)> = (0..=720)
            .map(|i| {
                let t = std::f64::consts::TAU * f64::from(i) / 720.0;
                (5.0 + a * t.cos(), -2.0 + b * t.sin())
            })
            .collect();
        let svg = plot::trajectory_svg(
            &Axes::new("ellipse", "x", "y").x_unit(Some("AU")).y_unit(Some("AU")),
            &[Series::new("orbit", ellipse).hue(0)],
        )
        .unwrap();
        let all = elements(&svg);
        let pts: Vec<(f64, f64)> = all
            .iter()
            .filter(|e| e.tag == "polyline" && e.attr("stroke") == Some(BLUE))
            .map(Element::points)
            .filter(|p| p.len() > 2) // not the legend's swatch
            .flatten()
            .collect();
        let (x0, x1) = pts.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), p| (l.min(p.0), h.max(p.0)));
        let (y0, y1) = pts.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), p| (l.min(p.1), h.max(p.1)));
        let (sx, sy) = ((x1 - x0) / (2.0 * a), (y1 - y0) / (2.0 * b));
        assert!((sx / sy - 1.0).abs() < 0.01, "{a} × {b}: {sx} px per unit in x, {sy} in y");
        assert!((x1 - x0).max(y1 - y0) > 400.0, "{a} × {b}: a tiny plot ({} × {} px)", x1 - x0, y1 - y0);
        text(&all, "x [AU]");
        text(&all, "y [AU]");
        // the start is marked
        assert!(all.iter().any(|e| e.tag == "circle" && e.attr("fill") == Some(BLUE)), "no start marker");
    }
}

/// Round ticks: `0, 500, …, 2000` for `[0, 2000]`, labelled without decimals, and the last
/// label not cut off at the right edge.
#[test]
fn nice_ticks_are_round() {
    assert_eq!(plot::nice_ticks(0.0, 2000.0), vec![0.0, 500.0, 1000.0, 1500.0, 2000.0]);
    assert_eq!(plot::tick_labels(&plot::nice_ticks(0.0, 2000.0)), ["0", "500", "1000", "1500", "2000"]);
    assert_eq!(plot::nice_ticks(0.0, 20.0), vec![0.0, 5.0, 10.0, 15.0, 20.0]);
    assert_eq!(plot::nice_ticks(0.0, 100.0), vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0]);
    assert_eq!(plot::nice_ticks(-17.0, 38.0), vec![-10.0, 0.0, 10.0, 20.0, 30.0]);
    assert_eq!(plot::tick_labels(&plot::nice_ticks(0.0, 1.0)), ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]);
    assert_eq!(plot::tick_labels(&plot::nice_ticks(0.0, 1.2)), ["0.00", "0.25", "0.50", "0.75", "1.00"]);
    assert_eq!(plot::tick_labels(&plot::nice_ticks(0.0, 4e6)), ["0", "1e6", "2e6", "3e6", "4e6"]);

    let points: Vec<(f64, f64)> = (0..=100).map(|i| (20.0 * f64::from(i), 1e-5)).collect();
    let svg = plot::svg(&Axes::new("time", "t", "relative error"), &[Series::new("energy", points)]).unwrap();
    let all = texts(&svg);
    let (w, _) = svg_size(&svg);
    for label in ["0", "500", "1000", "1500", "2000"] {
        let t = text(&all, label);
        let half = 0.64 * t.num("font-size") * label.len() as f64 / 2.0;
        assert_eq!(t.attr("text-anchor"), Some("middle"));
        assert!(t.num("x") + half <= w && t.num("x") - half >= 0.0, "tick label {label} cut off");
    }
    assert!(!all.iter().any(|t| t.text.contains(".0")), "decimals in round ticks");
}

/// A convergence plot's reference slope: dashed (several short pieces), grey, labelled in the
/// legend, parallel to `error = C h^p`.
#[test]
fn slope_line_has_the_nominal_order() {
    let points: Vec<(f64, f64)> = (0..6).map(|k| (0.1 / 2f64.powi(k), 3.0 * (0.1 / 2f64.powi(k)).powi(2))).collect();
    let slope = plot::slope_line(&points, 2.0, 1e-13).expect("a slope line");
    assert_eq!(slope.label, "slope 2");
    let ((x0, y0), (x1, y1)) = (slope.points[0], slope.points[1]);
    assert!((((y1 / y0).ln() / (x1 / x0).ln()) - 2.0).abs() < 1e-12);
    let series = [Series::new("hp-sv", points).hue(0), slope];
    let svg = plot::svg(&Axes::new("order", "h", "absolute error").log_x(), &series).unwrap();
    let all = elements(&svg);
    legend_box(&all, "slope 2");
    legend_box(&all, "hp-sv");
    let dashes = all.iter().filter(|e| e.tag == "polyline" && e.attr("stroke") == Some("#505050")).count();
    assert!(dashes > 10, "the slope line is not dashed ({dashes} pieces)");
    for k in [-3, -2, -1] {
        text(&all, &format!("1e{k}"));
    }
    // markers at the measured points, none on the reference line
    assert_eq!(all.iter().filter(|e| e.tag == "circle" && e.attr("fill") == Some(BLUE)).count(), 6 + 1);
}

/// A curve of 10^6 points is drawn with at most a few thousand, its single-sample spike kept:
/// the SVG stays small and the y axis still reaches the spike's decade.
#[test]
fn long_curves_are_thinned_with_their_extrema() {
    let n = 1_000_000;
    let points: Vec<(f64, f64)> =
        (0..n).map(|i| (i as f64, if i == 654_321 { 1e2 } else { 1e-10 * (1.0 + (i as f64).sin().abs()) })).collect();
    let thin = plot::thin(&points, plot::MAX_POINTS_PER_CURVE);
    assert!(thin.len() <= plot::MAX_POINTS_PER_CURVE + 1, "{} points", thin.len());
    assert!(thin.contains(&(654_321.0, 1e2)), "the spike was dropped");
    assert_eq!((thin[0], *thin.last().unwrap()), (points[0], points[n - 1]));
    assert!(thin.windows(2).all(|w| w[0].0 < w[1].0), "order kept");
    let svg = plot::svg(&Axes::new("spike", "t", "error"), &[Series::new("e", points)]).unwrap();
    assert!(svg.len() < 2_000_000, "{} bytes", svg.len());
    assert!(texts(&svg).iter().any(|t| t.text == "1e2"), "the spike's decade is not on the axis");
}

/// Curves keep their sub-pixel coordinates (a curve drawn in whole pixels is a staircase when
/// the figure is scaled): the vertices of a smooth curve are not all whole numbers, and each
/// lies on the curve's own map to pixels within 0.01 px of its neighbours' line.
#[test]
fn curves_have_sub_pixel_coordinates() {
    let points: Vec<(f64, f64)> =
        (0..=500).map(|i| (f64::from(i) / 50.0, 1e-6 * (2.0 + (f64::from(i) / 40.0).sin()))).collect();
    let svg = plot::svg(&Axes::new("smooth", "t", "relative error"), &[Series::new("e", points).hue(0)]).unwrap();
    let curve: Vec<(f64, f64)> = elements(&svg)
        .into_iter()
        .filter(|e| e.tag == "polyline" && e.attr("stroke") == Some("#1F77B4"))
        .max_by_key(|e| e.points().len())
        .expect("the curve")
        .points();
    assert!(curve.len() > 100, "{} vertices", curve.len());
    let fractional = curve.iter().filter(|p| p.0.fract() != 0.0 || p.1.fract() != 0.0).count();
    assert!(fractional > curve.len() / 2, "{fractional} of {} vertices off the pixel grid", curve.len());
    // x is affine in t: equal steps in t are equal steps in pixels, to the printed precision
    let dx: Vec<f64> = curve.windows(2).map(|w| w[1].0 - w[0].0).collect();
    let mean = dx.iter().sum::<f64>() / dx.len() as f64;
    assert!(dx.iter().all(|d| (d - mean).abs() <= 0.011), "uneven steps: {:?}", &dx[..5]);
}

/// Eleven series (e.g. eleven bodies) do not repeat a style: the eleventh takes the first colour
/// again, but dashed and with square markers.
#[test]
fn series_beyond_the_palette_change_line_and_marker() {
    let series: Vec<Series> = (0..11)
        .map(|k| {
            let pts = (0..8).map(|i| (f64::from(i), 1e-8 * f64::from(k + 1) * (1.0 + f64::from(i)))).collect();
            Series::new(format!("body {}", k + 1), pts)
        })
        .collect();
    let svg = plot::svg(&Axes::new("bodies", "t", "error"), &series).unwrap();
    let all = elements(&svg);
    let blue = |tag: &str| {
        all.iter()
            .filter(|e| e.tag == tag && (e.attr("stroke") == Some("#1F77B4") || e.attr("fill") == Some("#1F77B4")))
            .count()
    };
    // body 1: one solid polyline (plus its legend sample) and 8 + 1 discs; body 11: dashes, 8 + 1 squares
    assert!(blue("polyline") > 4, "{} blue polylines: body 11 is not dashed", blue("polyline"));
    assert_eq!(blue("circle"), 9, "discs of body 1 only");
    assert!(blue("rect") >= 9, "squares of body 11: {}", blue("rect"));
}
