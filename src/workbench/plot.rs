//! SVG plots of the workbench, drawn with plotters' SVG backend (no fonts needed: every label is
//! an SVG `<text>`) on a layout computed here, so that every tick, label and legend lands where a
//! reader expects it:
//!
//! * [`svg`]: error curves on a logarithmic `y` axis, against time (linear `x`) or against a step
//!   size or a cost (logarithmic `x`), in one or more panels stacked over a shared `x` axis: one
//!   panel per `y` title ([`Series::panel`], e.g. "relative error" and "absolute error");
//! * [`trajectory_svg`]: curves in a plane with equal scales on both axes (orbits, phase
//!   portraits, projections of a sphere), and [`run_trajectory_svg`], the one of a run;
//! * [`nice_ticks`], [`slope_line`], [`time_unit`]: round tick values, the reference slope of a
//!   convergence plot, the time unit of a problem.
//!
//! Conventions:
//!
//! * a logarithmic axis spans whole decades, with a tick at every power of ten and a label
//!   `1eK` at each one (at every other one, or fewer, when the decades are closer than a label's
//!   height or width), and minor ticks at `2..9 · 10^K` when there is room;
//! * a logarithmic `y` axis cannot show 0: exact zeros and values below [`FLOOR`] are drawn as
//!   hollow markers on a dashed *floor row* under the lowest decade, labelled `0` (or
//!   `0 / below 1e-18` when some values are positive but below the floor); a curve is broken
//!   there, never drawn down to the bottom;
//! * a linear axis has round ticks (`0, 500, …, 2000`) labelled with no more digits than the
//!   step needs;
//! * a series' colour is its [`Hue`] (one palette colour per method in comparisons), its line
//!   style a [`Line`] and its marker a [`Marker`] (one per quantity); markers are drawn at every
//!   point of a series of at most [`MAX_MARKED_POINTS`] points, and lines of more than 400 points
//!   are thin;
//! * the legend lies outside the plotting area, to its right, sized to its text.

use crate::workbench::WorkbenchError;
use crate::workbench::experiment::RunResult;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Errors below this floor (and exact zeros) go to the floor row of a log axis.
pub const FLOOR: f64 = 1e-18;

/// Series with at most this many points get a marker at every point (denser series are lines).
pub const MAX_MARKED_POINTS: usize = 60;

/// The line style of a series.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Line {
    /// A solid line.
    #[default]
    Solid,
    /// Dashes.
    Dashed,
    /// Dots.
    Dotted,
    /// No line: markers only.
    None,
}

/// The marker of a series (at every point of a short series, and on the floor row).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Marker {
    /// A disc.
    #[default]
    Circle,
    /// A square.
    Square,
    /// An upward triangle.
    Triangle,
    /// A diamond.
    Diamond,
    /// A diagonal cross.
    Cross,
    /// No marker.
    None,
}

/// The colour of a series.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Hue {
    /// The palette in order over the series with an automatic colour (the first gets colour 0).
    #[default]
    Auto,
    /// Palette colour `i` (mod 10): give every series of one method the same index.
    Index(usize),
    /// Dark grey, for reference curves (a slope, a sphere's outline).
    Reference,
}

/// One named curve.
#[derive(Debug, Clone)]
pub struct Series {
    /// Legend label (series with the same label, colour and style share one legend entry).
    pub label: String,
    /// Points `(x, y)`; non-finite values break the line.
    pub points: Vec<(f64, f64)>,
    /// The `y` title of the panel the series is drawn in (series with equal titles share a
    /// panel; panels are stacked in the order of their first series). Empty: [`Axes::y`].
    pub panel: String,
    /// Colour.
    pub hue: Hue,
    /// Line style.
    pub line: Line,
    /// Marker.
    pub marker: Marker,
}

impl Series {
    /// A solid series with round markers, automatic colour, in the default panel.
    pub fn new(label: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Self {
            label: label.into(),
            points,
            panel: String::new(),
            hue: Hue::Auto,
            line: Line::Solid,
            marker: Marker::Circle,
        }
    }
    /// In the panel titled `title` (e.g. "relative error").
    pub fn panel(mut self, title: impl Into<String>) -> Self {
        self.panel = title.into();
        self
    }
    /// With palette colour `i`.
    pub fn hue(mut self, i: usize) -> Self {
        self.hue = Hue::Index(i);
        self
    }
    /// A reference curve: dark grey, dashed, no markers.
    pub fn reference(mut self) -> Self {
        self.hue = Hue::Reference;
        self.line = Line::Dashed;
        self.marker = Marker::None;
        self
    }
    /// With line style `line`.
    pub fn line(mut self, line: Line) -> Self {
        self.line = line;
        self
    }
    /// With marker `marker`.
    pub fn marker(mut self, marker: Marker) -> Self {
        self.marker = marker;
        self
    }
}

/// Titles, units and scales of a plot.
#[derive(Debug, Clone, Default)]
pub struct Axes {
    /// Plot title.
    pub title: String,
    /// `x` axis title.
    pub x: String,
    /// Unit of `x`, shown as `x [unit]` (e.g. `days`); `None` for dimensionless quantities.
    pub x_unit: Option<String>,
    /// `y` axis title (of the panel of the series without their own [`Series::panel`]).
    pub y: String,
    /// Unit of `y` (trajectory plots), shown as `y [unit]`.
    pub y_unit: Option<String>,
    /// Whether `x` is logarithmic (`y` always is in [`svg`]; neither is in [`trajectory_svg`]).
    pub log_x: bool,
}

impl Axes {
    /// Linear `x`, no units.
    pub fn new(title: impl Into<String>, x: impl Into<String>, y: impl Into<String>) -> Self {
        Self { title: title.into(), x: x.into(), y: y.into(), ..Self::default() }
    }
    /// With a logarithmic `x` axis.
    pub fn log_x(mut self) -> Self {
        self.log_x = true;
        self
    }
    /// With the unit of `x`, if any.
    pub fn x_unit(mut self, unit: Option<&str>) -> Self {
        self.x_unit = unit.map(String::from);
        self
    }
    /// With the unit of `y`, if any.
    pub fn y_unit(mut self, unit: Option<&str>) -> Self {
        self.y_unit = unit.map(String::from);
        self
    }
}

/// The unit of time of a catalogue problem, where its data have one: days for the outer solar
/// system (Hairer–Lubich–Wanner's data); `None` for the others, which are dimensionless or whose
/// data name no unit of time.
pub fn time_unit(problem: &str) -> Option<&'static str> {
    match problem {
        "outer-solar-system" => Some("days"),
        _ => None,
    }
}

fn with_unit(title: &str, unit: Option<&str>) -> String {
    match unit {
        Some(u) if !u.is_empty() => format!("{title} [{u}]"),
        _ => title.to_string(),
    }
}

fn plot_error(e: impl std::fmt::Display) -> WorkbenchError {
    WorkbenchError::Input(format!("cannot draw the plot: {e}"))
}

// --- ticks --------------------------------------------------------------------------------------

/// Round tick values in `[lo, hi]`: multiples of a step `1, 2, 2.5 or 5 · 10^k` chosen for
/// about five intervals, e.g. `0, 500, 1000, 1500, 2000` for `[0, 2000]`.
pub fn nice_ticks(lo: f64, hi: f64) -> Vec<f64> {
    nice_ticks_n(lo, hi, 5)
}

/// [`nice_ticks`] for about `n` intervals.
fn nice_ticks_n(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    if !(lo.is_finite() && hi.is_finite()) || hi <= lo {
        return if lo.is_finite() { vec![lo] } else { Vec::new() };
    }
    // the finest step `1, 2, 2.5, 5 · 10^k` with at most `n + 1` ticks in the range; a step that
    // underflows or overflows (subnormal or huge ranges) or gives too many ticks is skipped
    // before anything is allocated
    let e = ((hi - lo) / n as f64).log10().floor() as i32;
    let ticks = |step: f64| -> Option<Vec<f64>> {
        if !(step > 0.0 && step.is_finite()) {
            return None;
        }
        let (k0, k1) = ((lo / step - 1e-9).ceil(), (hi / step + 1e-9).floor());
        if !(k0.is_finite() && k1.is_finite()) || k1 - k0 > n as f64 {
            return None;
        }
        let (k0, k1) = (k0 as i64, k1 as i64);
        Some((k0..=k1).map(|k| if k == 0 { 0.0 } else { k as f64 * step }).collect())
    };
    (e - 1..=e + 2)
        .flat_map(|k| [1.0, 2.0, 2.5, 5.0].map(|m| m * 10f64.powi(k)))
        .find_map(ticks)
        .unwrap_or_else(|| vec![lo, hi])
}

/// The labels of [`nice_ticks`] values: no more decimals than the step needs (`500`, `0.25`),
/// scientific (`2e6`) for very large or very small values.
pub fn tick_labels(ticks: &[f64]) -> Vec<String> {
    if ticks.is_empty() {
        return Vec::new();
    }
    let step = if ticks.len() > 1 { ticks[1] - ticks[0] } else { ticks[0].abs().max(1.0) };
    let top = ticks.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let clean = |v: f64| if v.abs() < step * 1e-6 { 0.0 } else { v };
    if top >= 1e6 || (top > 0.0 && top < 1e-3) {
        let e = top.log10().floor() as i32;
        let scale = 10f64.powi(e);
        let d = decimals(step / scale);
        return ticks
            .iter()
            .map(|&v| {
                let v = clean(v);
                if v == 0.0 { "0".into() } else { format!("{:.*}e{e}", d, v / scale) }
            })
            .collect();
    }
    let d = decimals(step);
    ticks.iter().map(|&v| format!("{:.*}", d, clean(v))).collect()
}

/// Decimals needed to write multiples of `step` exactly.
fn decimals(step: f64) -> usize {
    (0..12).find(|&d| ((step * 10f64.powi(d as i32)).round() - step * 10f64.powi(d as i32)).abs() < 1e-6).unwrap_or(12)
}

/// A tick on an axis: its position in scale units (`log10` of the value on a log axis), its
/// label, and whether it is a major one (with a grid line).
struct Tick {
    at: f64,
    label: Option<String>,
    major: bool,
}

/// An axis scale: linear `[lo, hi]`, or the decades `10^lo .. 10^hi`.
#[derive(Debug, Clone, Copy)]
enum Scale {
    Lin { lo: f64, hi: f64 },
    Log { lo: i32, hi: i32 },
}

impl Scale {
    fn linear(values: impl Iterator<Item = f64>) -> Self {
        let (lo, hi) = min_max(values.filter(|v| v.is_finite()));
        match (lo, hi) {
            (Some(lo), Some(hi)) if hi > lo => Scale::Lin { lo, hi },
            (Some(v), _) => {
                let d = if v == 0.0 { 1.0 } else { v.abs() * 0.5 };
                Scale::Lin { lo: v - d, hi: v + d }
            }
            _ => Scale::Lin { lo: 0.0, hi: 1.0 },
        }
    }

    /// Whole decades around the values at or above [`FLOOR`].
    fn decades(values: impl Iterator<Item = f64>) -> Self {
        let (lo, hi) = min_max(values.filter(|v| v.is_finite() && *v >= FLOOR));
        match (lo, hi) {
            (Some(lo), Some(hi)) => {
                let a = (lo.log10() + 1e-9).floor() as i32;
                let b = (hi.log10() - 1e-9).ceil() as i32;
                Scale::Log { lo: a, hi: b.max(a + 1) }
            }
            _ => {
                let f = FLOOR.log10().round() as i32;
                Scale::Log { lo: f, hi: f + 2 }
            }
        }
    }

    /// `(lo, hi)` in scale units.
    fn span(self) -> (f64, f64) {
        match self {
            Scale::Lin { lo, hi } => (lo, hi),
            Scale::Log { lo, hi } => (f64::from(lo), f64::from(hi)),
        }
    }

    /// The value `v` in scale units, if the scale can show it.
    fn unit(self, v: f64) -> Option<f64> {
        match self {
            Scale::Lin { .. } => v.is_finite().then_some(v),
            Scale::Log { .. } => (v.is_finite() && v > 0.0).then(|| v.log10()),
        }
    }

    /// Ticks for an axis `len` pixels long, on which a label needs `room(label)` pixels along
    /// the axis.
    fn ticks(self, len: f64, room: &dyn Fn(&str) -> f64) -> Vec<Tick> {
        match self {
            Scale::Lin { lo, hi } => {
                // about five intervals, fewer if the labels would not fit between the ticks
                let fits = |v: &[f64], l: &[String]| {
                    v.len() < 2 || l.iter().map(|l| room(l)).fold(0.0, f64::max) <= len * (v[1] - v[0]) / (hi - lo)
                };
                let (values, labels) = [5, 4, 3, 2, 1]
                    .into_iter()
                    .map(|n| {
                        let v = nice_ticks_n(lo, hi, n);
                        let l = tick_labels(&v);
                        (v, l)
                    })
                    .find(|(v, l)| fits(v, l))
                    .unwrap_or_else(|| (vec![lo], tick_labels(&[lo])));
                values.into_iter().zip(labels).map(|(at, l)| Tick { at, label: Some(l), major: true }).collect()
            }
            Scale::Log { lo, hi } => {
                let per_decade = len / f64::from(hi - lo);
                let need = (lo..=hi).map(|k| room(&format!("1e{k}"))).fold(0.0, f64::max);
                let every =
                    [1, 2, 3, 5, 10, 20, 50].into_iter().find(|&k| per_decade * f64::from(k) >= need).unwrap_or(100);
                let mut v = Vec::new();
                for k in lo..=hi {
                    v.push(Tick {
                        at: f64::from(k),
                        label: (k.rem_euclid(every) == 0).then(|| format!("1e{k}")),
                        major: true,
                    });
                    if per_decade >= 36.0 && k < hi {
                        v.extend((2..=9).map(|m| Tick {
                            at: f64::from(k) + f64::from(m).log10(),
                            label: None,
                            major: false,
                        }));
                    }
                }
                v
            }
        }
    }
}

fn min_max(values: impl Iterator<Item = f64>) -> (Option<f64>, Option<f64>) {
    values.fold((None, None), |(lo, hi): (Option<f64>, Option<f64>), v| {
        (Some(lo.map_or(v, |l| l.min(v))), Some(hi.map_or(v, |h| h.max(v))))
    })
}

// --- drawing ------------------------------------------------------------------------------------

const TICK_FONT: f64 = 12.0;
const AXIS_FONT: f64 = 14.0;
const TITLE_FONT: f64 = 16.0;
const LEGEND_FONT: f64 = 12.0;

/// Matplotlib's "tab10" palette.
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];
const REFERENCE: RGBColor = RGBColor(80, 80, 80);
const TEXT: RGBColor = RGBColor(25, 25, 25);
const FRAME: RGBColor = RGBColor(70, 70, 70);
const GRID: RGBColor = RGBColor(221, 221, 221);
const MINOR_GRID: RGBColor = RGBColor(242, 242, 242);
const FLOOR_LINE: RGBColor = RGBColor(150, 150, 150);
const LEGEND_BORDER: RGBColor = RGBColor(150, 150, 150);

/// The width of `s` in pixels at font size `size`: a generous estimate for DejaVu Sans (the
/// widest of the common sans-serif faces), so that text fits the boxes drawn around it.
fn text_width(s: &str, size: f64) -> f64 {
    let em: f64 = s
        .chars()
        .map(|c| match c {
            'i' | 'j' | 'l' | '\'' | '|' | '.' | ',' | ':' | ';' | '!' | 'I' => 0.30,
            ' ' | 'f' | 't' | 'r' | '(' | ')' | '[' | ']' | '/' | '-' | '²' | '³' => 0.42,
            'm' | 'w' | 'M' | 'W' => 0.98,
            'A'..='Z' | '–' | '—' | '−' | 'Π' | '×' => 0.76,
            _ => 0.64,
        })
        .sum();
    em * size
}

/// The font size to give plotters for an SVG `font-size` of `px`: plotters writes `size / 1.24`,
/// so this is the float nearest `1.24 px` for which that quotient is `px` exactly.
fn plotters_size(px: f64) -> f64 {
    let v = px * 1.24;
    let (mut up, mut down) = (v, v);
    for _ in 0..16 {
        for c in [up, down] {
            if c / 1.24 == px {
                return c;
            }
        }
        (up, down) = (up.next_up(), down.next_down());
    }
    v
}

/// A point in pixels.
type Px = (f64, f64);

fn ipx(p: Px) -> (i32, i32) {
    (p.0.round() as i32, p.1.round() as i32)
}

/// Draws on the root area of an SVG backend, in pixels.
struct Canvas<'a, 'b> {
    area: &'a DrawingArea<SVGBackend<'b>, Shift>,
}

impl Canvas<'_, '_> {
    fn polyline(&self, pts: &[Px], color: RGBColor, width: u32) -> Result<(), WorkbenchError> {
        let mut v: Vec<(i32, i32)> = Vec::with_capacity(pts.len());
        for p in pts {
            let q = ipx(*p);
            if v.last() != Some(&q) {
                v.push(q);
            }
        }
        if v.len() == 1 {
            v.push(v[0]);
        }
        if v.is_empty() {
            return Ok(());
        }
        self.area.draw(&PathElement::new(v, color.stroke_width(width))).map_err(plot_error)
    }

    /// A polyline in a line style: dashes and dots are drawn as short polylines.
    fn styled(&self, pts: &[Px], color: RGBColor, width: u32, line: Line) -> Result<(), WorkbenchError> {
        let (on, off) = match line {
            Line::None => return Ok(()),
            Line::Solid => return self.polyline(pts, color, width),
            Line::Dashed => (7.0, 4.0),
            Line::Dotted => (1.5, 3.5),
        };
        for dash in dashes(pts, on, off) {
            self.polyline(&dash, color, width)?;
        }
        Ok(())
    }

    fn line(&self, a: Px, b: Px, color: RGBColor, width: u32) -> Result<(), WorkbenchError> {
        self.area.draw(&PathElement::new(vec![ipx(a), ipx(b)], color.stroke_width(width))).map_err(plot_error)
    }

    fn rect(&self, a: Px, b: Px, color: RGBColor, filled: bool) -> Result<(), WorkbenchError> {
        let style = if filled { color.filled() } else { color.stroke_width(1) };
        self.area.draw(&Rectangle::new([ipx(a), ipx(b)], style)).map_err(plot_error)
    }

    fn text(&self, s: &str, at: Px, size: f64, h: HPos, v: VPos) -> Result<(), WorkbenchError> {
        // plotters writes `font-size = size / 1.24`
        let style = TextStyle::from(("sans-serif", plotters_size(size)).into_font()).color(&TEXT).pos(Pos::new(h, v));
        self.area.draw_text(s, &style, ipx(at)).map_err(plot_error)
    }

    /// Text rotated to read upwards, centred at `at`.
    fn vertical_text(&self, s: &str, at: Px, size: f64) -> Result<(), WorkbenchError> {
        let style = TextStyle::from(("sans-serif", plotters_size(size)).into_font())
            .color(&TEXT)
            .pos(Pos::new(HPos::Center, VPos::Center))
            .transform(FontTransform::Rotate270);
        self.area.draw_text(s, &style, ipx(at)).map_err(plot_error)
    }

    fn marker(&self, m: Marker, at: Px, color: RGBColor, hollow: bool) -> Result<(), WorkbenchError> {
        let (x, y) = at;
        let r = 3.5;
        let fill = |c: RGBColor| if hollow { c.stroke_width(1) } else { c.filled() };
        let poly = |pts: Vec<Px>| -> Result<(), WorkbenchError> {
            if hollow {
                let mut closed = pts.clone();
                closed.push(pts[0]);
                self.polyline(&closed, color, 1)
            } else {
                self.area
                    .draw(&Polygon::new(pts.into_iter().map(ipx).collect::<Vec<_>>(), color.filled()))
                    .map_err(plot_error)
            }
        };
        match m {
            Marker::None => Ok(()),
            Marker::Circle => self.area.draw(&Circle::new(ipx(at), 4, fill(color))).map_err(plot_error),
            Marker::Square => self.rect((x - r + 0.5, y - r + 0.5), (x + r - 0.5, y + r - 0.5), color, !hollow),
            Marker::Triangle => poly(vec![(x, y - r - 1.0), (x + r + 0.5, y + r - 0.5), (x - r - 0.5, y + r - 0.5)]),
            Marker::Diamond => poly(vec![(x, y - r - 1.0), (x + r + 0.5, y), (x, y + r + 1.0), (x - r - 0.5, y)]),
            Marker::Cross => {
                self.line((x - r, y - r), (x + r, y + r), color, 2)?;
                self.line((x - r, y + r), (x + r, y - r), color, 2)
            }
        }
    }
}

/// The pieces of the polyline `pts` that are "on" in a dash pattern `on, off` (pixels).
fn dashes(pts: &[Px], on: f64, off: f64) -> Vec<Vec<Px>> {
    let mut out: Vec<Vec<Px>> = Vec::new();
    let mut cur: Vec<Px> = Vec::new();
    let (mut drawing, mut left) = (true, on);
    if let Some(&p) = pts.first() {
        cur.push(p);
    }
    for w in pts.windows(2) {
        let (mut a, b) = (w[0], w[1]);
        let mut len = ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt();
        while len > left {
            let t = left / len;
            let m = (a.0 + t * (b.0 - a.0), a.1 + t * (b.1 - a.1));
            if drawing {
                cur.push(m);
                out.push(std::mem::take(&mut cur));
            } else {
                cur = vec![m];
            }
            drawing = !drawing;
            len -= left;
            left = if drawing { on } else { off };
            a = m;
        }
        left -= len;
        if drawing {
            cur.push(b);
        }
    }
    if drawing && cur.len() > 1 {
        out.push(cur);
    }
    out
}

/// The colours of `series`: [`Hue::Index`] as given, [`Hue::Auto`] the palette in order.
fn colours(series: &[Series]) -> Vec<RGBColor> {
    let mut next = 0;
    series
        .iter()
        .map(|s| match s.hue {
            Hue::Index(i) => PALETTE[i % PALETTE.len()],
            Hue::Reference => REFERENCE,
            Hue::Auto => {
                next += 1;
                PALETTE[(next - 1) % PALETTE.len()]
            }
        })
        .collect()
}

/// One legend entry: a label and a swatch (line style, marker, colour).
#[derive(Clone, PartialEq)]
struct Entry {
    label: String,
    color: RGBColor,
    line: Line,
    marker: Marker,
    /// The marker is hollow (the series' points on the floor row).
    hollow: bool,
}

/// The legend: its entries (repeated ones once) and its size.
struct Legend {
    entries: Vec<Entry>,
    width: f64,
    height: f64,
}

const LEGEND_PAD: f64 = 9.0;
const LEGEND_ROW: f64 = 20.0;
const SWATCH: f64 = 30.0;

impl Legend {
    fn new(all: Vec<Entry>) -> Self {
        let mut entries: Vec<Entry> = Vec::new();
        for e in all {
            if !e.label.is_empty() && !entries.contains(&e) {
                entries.push(e);
            }
        }
        let text = entries.iter().map(|e| text_width(&e.label, LEGEND_FONT)).fold(0.0, f64::max);
        let width = if entries.is_empty() { 0.0 } else { 2.0 * LEGEND_PAD + SWATCH + 8.0 + text };
        let height = if entries.is_empty() { 0.0 } else { 2.0 * LEGEND_PAD + LEGEND_ROW * entries.len() as f64 - 4.0 };
        Self { entries, width, height }
    }

    /// Draws the legend with its upper left corner at `at`.
    fn draw(&self, c: &Canvas, at: Px) -> Result<(), WorkbenchError> {
        if self.entries.is_empty() {
            return Ok(());
        }
        let (x0, y0) = at;
        c.rect((x0, y0), (x0 + self.width, y0 + self.height), WHITE, true)?;
        c.rect((x0, y0), (x0 + self.width, y0 + self.height), LEGEND_BORDER, false)?;
        for (i, e) in self.entries.iter().enumerate() {
            let y = y0 + LEGEND_PAD + 8.0 + LEGEND_ROW * i as f64;
            let (a, b) = ((x0 + LEGEND_PAD, y), (x0 + LEGEND_PAD + SWATCH, y));
            c.styled(&[a, b], e.color, 2, e.line)?;
            if e.hollow {
                c.area.draw(&Circle::new(ipx(((a.0 + b.0) / 2.0, y)), 5, WHITE.filled())).map_err(plot_error)?;
            }
            c.marker(e.marker, ((a.0 + b.0) / 2.0, y), e.color, e.hollow)?;
            c.text(&e.label, (b.0 + 8.0, y), LEGEND_FONT, HPos::Left, VPos::Center)?;
        }
        Ok(())
    }
}

/// Maps scale units to pixels along one axis: `a ↦ p0`, `b ↦ p1`.
#[derive(Clone, Copy)]
struct Map {
    a: f64,
    b: f64,
    p0: f64,
    p1: f64,
}

impl Map {
    fn px(self, u: f64) -> f64 {
        self.p0 + (u - self.a) / (self.b - self.a) * (self.p1 - self.p0)
    }
}

// --- error plots --------------------------------------------------------------------------------

/// One panel of [`svg`]: its `y` title, decades and series.
struct Panel {
    title: String,
    y: Scale,
    members: Vec<usize>,
    /// The floor row's label, if some values lie on it.
    floor: Option<String>,
}

const FLOOR_BAND: f64 = 26.0;

/// Points drawn per curve at most: longer curves are thinned by [`thin`].
pub const MAX_POINTS_PER_CURVE: usize = 4000;

/// `points` thinned to at most about `max` points, extrema kept: the index range is cut into
/// `max / 5` buckets, and each bucket keeps its first point and the points where `x` and `y`
/// are smallest and largest (in their original order). A spike or a dip of a single sample
/// therefore survives, and the drawn envelope is that of the data. Shorter inputs are
/// returned unchanged.
pub fn thin(points: &[(f64, f64)], max: usize) -> Vec<(f64, f64)> {
    let buckets = (max / 5).max(1);
    if points.len() <= max {
        return points.to_vec();
    }
    let mut out = Vec::with_capacity(5 * buckets + 1);
    let size = points.len().div_ceil(buckets);
    for chunk in points.chunks(size) {
        let pick = |key: &dyn Fn(&(f64, f64)) -> f64, largest: bool| {
            let mut best = 0;
            for (i, p) in chunk.iter().enumerate() {
                let (a, b) = (key(p), key(&chunk[best]));
                if (largest && a > b) || (!largest && a < b) {
                    best = i;
                }
            }
            best
        };
        let mut keep = [0, pick(&|p| p.0, false), pick(&|p| p.0, true), pick(&|p| p.1, false), pick(&|p| p.1, true)];
        keep.sort_unstable();
        let mut last = usize::MAX;
        for k in keep {
            if k != last {
                out.push(chunk[k]);
                last = k;
            }
        }
    }
    if let Some(&end) = points.last()
        && out.last() != Some(&end)
    {
        out.push(end);
    }
    out
}

/// `series` with every curve thinned to [`MAX_POINTS_PER_CURVE`] ([`thin`]).
fn thinned(series: &[Series]) -> Vec<Series> {
    series.iter().map(|s| Series { points: thin(&s.points, MAX_POINTS_PER_CURVE), ..s.clone() }).collect()
}

/// The SVG text of the error plot of `series` ([module docs](self)): a log `y` axis in one
/// panel per `y` title, a linear or log `x` axis, the legend to the right. Curves longer than
/// [`MAX_POINTS_PER_CURVE`] are thinned with their extrema kept.
pub fn svg(axes: &Axes, series: &[Series]) -> Result<String, WorkbenchError> {
    let series = &thinned(series)[..];
    let colour = colours(series);
    let mut panels: Vec<Panel> = Vec::new();
    for (i, s) in series.iter().enumerate() {
        let title = if s.panel.is_empty() { axes.y.clone() } else { s.panel.clone() };
        match panels.iter_mut().find(|p| p.title == title) {
            Some(p) => p.members.push(i),
            None => panels.push(Panel { title, y: Scale::Log { lo: 0, hi: 1 }, members: vec![i], floor: None }),
        }
    }
    if panels.is_empty() {
        panels.push(Panel { title: axes.y.clone(), y: Scale::Log { lo: -18, hi: -16 }, members: vec![], floor: None });
    }
    let x_ok = |x: f64| x.is_finite() && (!axes.log_x || x > 0.0);
    for p in &mut panels {
        let ys = || p.members.iter().flat_map(|&i| series[i].points.iter().filter(|q| x_ok(q.0)).map(|q| q.1));
        p.y = Scale::decades(ys());
        let zeros = ys().any(|y| y <= 0.0);
        let below = ys().any(|y| y > 0.0 && y < FLOOR);
        p.floor = match (zeros, below) {
            (_, true) => Some(format!("0 / below {FLOOR:e}")),
            (true, false) => Some("0".into()),
            _ => None,
        };
    }
    let xs = || series.iter().flat_map(|s| s.points.iter().map(|p| p.0)).filter(|x| x_ok(*x));
    let xscale = if axes.log_x { Scale::decades(xs()) } else { Scale::linear(xs()) };

    // layout
    let n = panels.len();
    let plot_w = 640.0;
    let panel_h = match n {
        1 => 430.0,
        2 => 300.0,
        _ => 240.0,
    };
    let panel_gap = 24.0;
    let top = if axes.title.is_empty() { 18.0 } else { 50.0 };
    let tick_room = |_: &str| TICK_FONT * 1.35;
    let yticks: Vec<Vec<Tick>> = panels
        .iter()
        .map(|p| p.y.ticks(panel_h - if p.floor.is_some() { FLOOR_BAND } else { 0.0 }, &tick_room))
        .collect();
    let label_w = yticks
        .iter()
        .flatten()
        .filter_map(|t| t.label.as_deref())
        .chain(panels.iter().filter_map(|p| p.floor.as_deref()))
        .map(|l| text_width(l, TICK_FONT))
        .fold(0.0, f64::max);
    let left = 14.0 + AXIS_FONT * 1.2 + 12.0 + label_w + 10.0;
    let xticks = xscale.ticks(plot_w, &|l| text_width(l, TICK_FONT) + 14.0);
    let (xa, xb) = xscale.span();
    let xmap = Map { a: xa, b: xb, p0: left, p1: left + plot_w };
    let overhang = xticks
        .iter()
        .filter_map(|t| t.label.as_deref().map(|l| xmap.px(t.at) + text_width(l, TICK_FONT) / 2.0 - (left + plot_w)))
        .fold(0.0, f64::max);
    let entries = series
        .iter()
        .zip(&colour)
        .map(|(s, &color)| {
            let on_floor = s.points.iter().any(|p| x_ok(p.0) && !p.1.is_nan() && p.1 < FLOOR);
            let (marker, hollow) = match (marked(s), on_floor) {
                (true, _) => (s.marker, false),
                (false, true) => (floor_marker(s), true),
                (false, false) => (Marker::None, false),
            };
            Entry { label: s.label.clone(), color, line: s.line, marker, hollow }
        })
        .collect();
    let legend = Legend::new(entries);
    let legend_x = left + plot_w + (overhang + 14.0).max(22.0);
    let title_w = text_width(&axes.title, TITLE_FONT);
    let width = (legend_x + legend.width + 16.0).max(title_w + 40.0).ceil();
    let bottom_of_panels = top + n as f64 * panel_h + (n - 1) as f64 * panel_gap;
    let height = (bottom_of_panels + 64.0).max(top + legend.height + 20.0).ceil();

    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, (width as u32, height as u32)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let c = Canvas { area: &root };
        if !axes.title.is_empty() {
            let mid = (left + plot_w / 2.0).clamp(title_w / 2.0 + 10.0, width - title_w / 2.0 - 10.0);
            c.text(&axes.title, (mid, 18.0), TITLE_FONT, HPos::Center, VPos::Top)?;
        }
        for (k, (p, ticks)) in panels.iter().zip(&yticks).enumerate() {
            let y0 = top + k as f64 * (panel_h + panel_gap);
            let y1 = y0 + panel_h;
            let decade_bottom = if p.floor.is_some() { y1 - FLOOR_BAND } else { y1 };
            let (ya, yb) = p.y.span();
            let ymap = Map { a: ya, b: yb, p0: decade_bottom, p1: y0 };
            // grid
            for t in ticks {
                let y = ymap.px(t.at);
                c.line((left, y), (left + plot_w, y), if t.major { GRID } else { MINOR_GRID }, 1)?;
            }
            for t in &xticks {
                let x = xmap.px(t.at);
                c.line((x, y0), (x, y1), if t.major { GRID } else { MINOR_GRID }, 1)?;
            }
            // the floor row
            if let Some(label) = &p.floor {
                let fy = y1 - FLOOR_BAND / 2.0 + 2.0;
                c.rect((left, decade_bottom + 1.0), (left + plot_w, y1), RGBColor(250, 250, 250), true)?;
                c.styled(&[(left, fy), (left + plot_w, fy)], FLOOR_LINE, 1, Line::Dashed)?;
                c.line((left - 6.0, fy), (left, fy), FRAME, 1)?;
                c.text(label, (left - 9.0, fy), TICK_FONT, HPos::Right, VPos::Center)?;
            }
            // y ticks and labels
            for t in ticks {
                let y = ymap.px(t.at);
                c.line((left - if t.major { 6.0 } else { 3.0 }, y), (left, y), FRAME, 1)?;
                if let Some(l) = &t.label {
                    c.text(l, (left - 9.0, y), TICK_FONT, HPos::Right, VPos::Center)?;
                }
            }
            // x ticks, labels on the lowest panel only
            for t in &xticks {
                let x = xmap.px(t.at);
                c.line((x, y1), (x, y1 + if t.major { 6.0 } else { 3.0 }), FRAME, 1)?;
                if k + 1 == n
                    && let Some(l) = &t.label
                {
                    c.text(l, (x, y1 + 9.0), TICK_FONT, HPos::Center, VPos::Top)?;
                }
            }
            c.vertical_text(&p.title, (14.0 + AXIS_FONT * 0.6, (y0 + y1) / 2.0), AXIS_FONT)?;
            // the data
            for &i in &p.members {
                let s = &series[i];
                let mark = marked(s);
                let mut run: Vec<Px> = Vec::new();
                let mut floor_points: Vec<Px> = Vec::new();
                let flush = |run: &mut Vec<Px>| -> Result<(), WorkbenchError> {
                    if run.len() == 1 && !mark {
                        c.area.draw(&Circle::new(ipx(run[0]), 2, colour[i].filled())).map_err(plot_error)?;
                    }
                    c.styled(run, colour[i], stroke(s), s.line)?;
                    run.clear();
                    Ok(())
                };
                for &(x, y) in &s.points {
                    let Some(ux) = xscale.unit(x).filter(|_| x_ok(x)) else {
                        flush(&mut run)?;
                        continue;
                    };
                    if y.is_finite() && y >= FLOOR {
                        run.push((xmap.px(ux), ymap.px(y.log10())));
                    } else {
                        flush(&mut run)?;
                        if !y.is_nan() && y < FLOOR {
                            floor_points.push((xmap.px(ux), y1 - FLOOR_BAND / 2.0 + 2.0));
                        }
                    }
                }
                flush(&mut run)?;
                if mark {
                    for &(x, y) in s.points.iter().filter(|p| p.1.is_finite() && p.1 >= FLOOR && x_ok(p.0)) {
                        let ux = xscale.unit(x).unwrap_or(0.0);
                        c.marker(s.marker, (xmap.px(ux), ymap.px(y.log10())), colour[i], false)?;
                    }
                }
                let mut last: Option<(i32, i32)> = None;
                for p in floor_points {
                    // one marker per pixel column is enough
                    if last != Some(ipx(p)) {
                        c.marker(floor_marker(s), p, colour[i], true)?;
                        last = Some(ipx(p));
                    }
                }
            }
            c.rect((left, y0), (left + plot_w, y1), FRAME, false)?;
        }
        c.text(
            &with_unit(&axes.x, axes.x_unit.as_deref()),
            (left + plot_w / 2.0, bottom_of_panels + 34.0),
            AXIS_FONT,
            HPos::Center,
            VPos::Top,
        )?;
        legend.draw(&c, (legend_x, top))?;
        root.present().map_err(plot_error)?;
    }
    Ok(buf)
}

/// The marker of a series' points on the floor row (drawn hollow).
fn floor_marker(s: &Series) -> Marker {
    if s.marker == Marker::None { Marker::Circle } else { s.marker }
}

/// The stroke width of a series: thinner for dense ones.
fn stroke(s: &Series) -> u32 {
    if s.points.len() > 400 { 1 } else { 2 }
}

/// Whether a series gets a marker at every point.
fn marked(s: &Series) -> bool {
    s.marker != Marker::None && s.points.len() <= MAX_MARKED_POINTS
}

/// A reference line `y = C x^order` over the `x` range of `points` (positive values at or
/// above `floor` only), half a decade below the points on average, dashed grey, labelled
/// `slope p`: the nominal order of a convergence plot. `None` without two such points.
pub fn slope_line(points: &[(f64, f64)], order: f64, floor: f64) -> Option<Series> {
    let good: Vec<(f64, f64)> = points
        .iter()
        .copied()
        .filter(|p| p.0 > 0.0 && p.0.is_finite() && p.1.is_finite() && p.1 > floor.max(FLOOR))
        .collect();
    if good.len() < 2 {
        return None;
    }
    let log_c = good.iter().map(|p| p.1.log10() - order * p.0.log10()).sum::<f64>() / good.len() as f64 - 0.5;
    let (lo, hi) = min_max(good.iter().map(|p| p.0));
    let (lo, hi) = (lo?, hi?);
    let y = |x: f64| 10f64.powf(log_c + order * x.log10());
    let label = if order.fract() == 0.0 { format!("slope {order:.0}") } else { format!("slope {order}") };
    Some(Series::new(label, vec![(lo, y(lo)), (hi, y(hi))]).reference())
}

// --- trajectory plots ---------------------------------------------------------------------------

/// The SVG text of a plot of the curves `curves` in the plane, with equal scales on both axes
/// (a circle is drawn as a circle): the first point of each curve (but reference curves) is
/// marked as its start, the legend is to the right.
pub fn trajectory_svg(axes: &Axes, curves: &[Series]) -> Result<String, WorkbenchError> {
    let curves = &thinned(curves)[..];
    let colour = colours(curves);
    let pts = || curves.iter().flat_map(|s| s.points.iter().copied()).filter(|p| p.0.is_finite() && p.1.is_finite());
    let (Scale::Lin { lo: mut x0, hi: mut x1 }, Scale::Lin { lo: mut y0, hi: mut y1 }) =
        (Scale::linear(pts().map(|p| p.0)), Scale::linear(pts().map(|p| p.1)))
    else {
        return Err(plot_error("linear scales expected"));
    };
    // a margin of 4%, and no span below a thousandth of the other
    let span = (x1 - x0).max(y1 - y0);
    for (a, b) in [(&mut x0, &mut x1), (&mut y0, &mut y1)] {
        let d = (*b - *a).max(span * 1e-3);
        let m = (*a + *b) / 2.0;
        *a = m - 0.54 * d;
        *b = m + 0.54 * d;
    }
    let (max_w, max_h, min_side) = (560.0, 560.0, 150.0);
    let scale = (max_w / (x1 - x0)).min(max_h / (y1 - y0));
    for (a, b) in [(&mut x0, &mut x1), (&mut y0, &mut y1)] {
        if (*b - *a) * scale < min_side {
            let (m, d) = ((*a + *b) / 2.0, min_side / scale);
            *a = m - d / 2.0;
            *b = m + d / 2.0;
        }
    }
    let (plot_w, plot_h) = ((x1 - x0) * scale, (y1 - y0) * scale);
    let xt = Scale::Lin { lo: x0, hi: x1 }.ticks(plot_w, &|l| text_width(l, TICK_FONT) + 14.0);
    let yt = Scale::Lin { lo: y0, hi: y1 }.ticks(plot_h, &|_| TICK_FONT * 1.6);
    let label_w = yt.iter().filter_map(|t| t.label.as_deref()).map(|l| text_width(l, TICK_FONT)).fold(0.0, f64::max);
    let left = 14.0 + AXIS_FONT * 1.2 + 12.0 + label_w + 10.0;
    let top = if axes.title.is_empty() { 18.0 } else { 50.0 };
    let xmap = Map { a: x0, b: x1, p0: left, p1: left + plot_w };
    let ymap = Map { a: y0, b: y1, p0: top + plot_h, p1: top };
    let overhang = xt
        .iter()
        .filter_map(|t| t.label.as_deref().map(|l| xmap.px(t.at) + text_width(l, TICK_FONT) / 2.0 - (left + plot_w)))
        .fold(0.0, f64::max);
    let mut entries: Vec<Entry> = curves
        .iter()
        .zip(&colour)
        .map(|(s, &color)| Entry { label: s.label.clone(), color, line: s.line, marker: Marker::None, hollow: false })
        .collect();
    let starts = curves.iter().any(|s| s.hue != Hue::Reference && !s.points.is_empty());
    if starts {
        entries.push(Entry {
            label: "start".into(),
            color: TEXT,
            line: Line::None,
            marker: Marker::Circle,
            hollow: false,
        });
    }
    let legend = Legend::new(entries);
    let legend_x = left + plot_w + (overhang + 14.0).max(22.0);
    let title_w = text_width(&axes.title, TITLE_FONT);
    let width = (legend_x + legend.width + 16.0).max(title_w + 40.0).ceil();
    let height = (top + plot_h + 64.0).max(top + legend.height + 20.0).ceil();

    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, (width as u32, height as u32)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let c = Canvas { area: &root };
        let (right, bottom) = (left + plot_w, top + plot_h);
        if !axes.title.is_empty() {
            let mid = (left + plot_w / 2.0).clamp(title_w / 2.0 + 10.0, width - title_w / 2.0 - 10.0);
            c.text(&axes.title, (mid, 18.0), TITLE_FONT, HPos::Center, VPos::Top)?;
        }
        for t in &xt {
            let x = xmap.px(t.at);
            c.line((x, top), (x, bottom), GRID, 1)?;
            c.line((x, bottom), (x, bottom + 6.0), FRAME, 1)?;
            if let Some(l) = &t.label {
                c.text(l, (x, bottom + 9.0), TICK_FONT, HPos::Center, VPos::Top)?;
            }
        }
        for t in &yt {
            let y = ymap.px(t.at);
            c.line((left, y), (right, y), GRID, 1)?;
            c.line((left - 6.0, y), (left, y), FRAME, 1)?;
            if let Some(l) = &t.label {
                c.text(l, (left - 9.0, y), TICK_FONT, HPos::Right, VPos::Center)?;
            }
        }
        for (s, &color) in curves.iter().zip(&colour) {
            let mut run: Vec<Px> = Vec::new();
            for &(x, y) in &s.points {
                if x.is_finite() && y.is_finite() {
                    run.push((xmap.px(x), ymap.px(y)));
                } else {
                    c.styled(&run, color, if s.hue == Hue::Reference { 1 } else { stroke(s) }, s.line)?;
                    run.clear();
                }
            }
            c.styled(&run, color, if s.hue == Hue::Reference { 1 } else { stroke(s) }, s.line)?;
        }
        for (s, &color) in curves.iter().zip(&colour) {
            if let Some(&(x, y)) = s.points.iter().find(|p| p.0.is_finite() && p.1.is_finite())
                && s.hue != Hue::Reference
            {
                let at = (xmap.px(x), ymap.px(y));
                c.area.draw(&Circle::new(ipx(at), 5, WHITE.filled())).map_err(plot_error)?;
                c.marker(Marker::Circle, at, color, false)?;
            }
        }
        c.rect((left, top), (right, bottom), FRAME, false)?;
        c.text(
            &with_unit(&axes.x, axes.x_unit.as_deref()),
            ((left + right) / 2.0, bottom + 34.0),
            AXIS_FONT,
            HPos::Center,
            VPos::Top,
        )?;
        c.vertical_text(
            &with_unit(&axes.y, axes.y_unit.as_deref()),
            (14.0 + AXIS_FONT * 0.6, (top + bottom) / 2.0),
            AXIS_FONT,
        )?;
        legend.draw(&c, (legend_x, top))?;
        root.present().map_err(plot_error)?;
    }
    Ok(buf)
}

/// Points on the circle of radius `r` about the origin, as a reference curve.
fn circle(label: &str, r: f64) -> Series {
    let pts = (0..=180).map(|k| {
        let a = std::f64::consts::TAU * f64::from(k) / 180.0;
        (r * a.cos(), r * a.sin())
    });
    Series::new(label, pts.collect()).reference()
}

/// `trajectory.svg` of a run: the curve its problem is best seen by, with equal scales
/// ([`trajectory_svg`]):
///
/// * `outer-solar-system`: the orbits of the Sun and the five outer planets in the `x–y` plane
///   (AU);
/// * `rigid-body`, `heavy-top`: the body angular momentum `Π`, orthographic view `(Π₁, Π₂)`
///   (for the rigid body with the outline of its sphere `|Π| = |Π(0)|`);
/// * `spherical-pendulum`: the bob `q` seen from above, `(q1, q2)`, with the unit circle;
/// * `so3-optimal-control`: the body axis `R e3` seen from above, `(R13, R23)`, with the unit
///   circle;
/// * `underwater-vehicle`: the position of the vehicle in the `x–y` plane;
/// * `plate-ball`: the ball's centre in the plane;
/// * `nbody`: the orbits of the bodies in the `x–y` plane (the first 12);
/// * other problems: `(q1, q2)` for two or more degrees of freedom (the Kepler orbit), the phase
///   portrait `(q1, p1)` for one.
pub fn run_trajectory_svg(r: &RunResult) -> Result<String, WorkbenchError> {
    let col = |name: &str| r.labels.iter().position(|l| l == name);
    let curve = |label: &str, i: usize, j: usize| {
        Series::new(label, r.samples.iter().map(|s| (s.state[i], s.state[j])).collect()).marker(Marker::None)
    };
    let both = |a: &str, b: &str| col(a).zip(col(b));
    let title = |what: &str| format!("{}: {what} ({}, h = {})", r.problem, r.method, r.spec.h);
    let first = |i: usize| r.samples.first().map_or(0.0, |s| s.state[i]);
    let (axes, curves) = match r.problem.as_str() {
        "outer-solar-system" => {
            let names = ["Sun", "Jupiter", "Saturn", "Uranus", "Neptune", "Pluto"];
            let curves = names
                .iter()
                .enumerate()
                .filter(|(b, _)| 3 * b + 1 < r.labels.len())
                .map(|(b, n)| curve(n, 3 * b, 3 * b + 1));
            (
                Axes::new(title("orbits in the x–y plane"), "x", "y").x_unit(Some("AU")).y_unit(Some("AU")),
                curves.collect::<Vec<_>>(),
            )
        }
        "rigid-body" | "heavy-top" if both("Pi1", "Pi2").is_some() => {
            let (i, j) = both("Pi1", "Pi2").unwrap_or((0, 1));
            let mut v = vec![curve("Π(t), seen along Π₃", i, j)];
            if r.problem == "rigid-body"
                && let Some(k) = col("Pi3")
            {
                let radius = (first(i).powi(2) + first(j).powi(2) + first(k).powi(2)).sqrt();
                v.push(circle("sphere |Π| = |Π(0)|", radius));
            }
            (Axes::new(title("body angular momentum"), "Π₁", "Π₂"), v)
        }
        "spherical-pendulum" if both("q1", "q2").is_some() => {
            let (i, j) = both("q1", "q2").unwrap_or((0, 1));
            (
                Axes::new(title("the bob seen from above"), "q1", "q2"),
                vec![curve("q(t)", i, j), circle("unit sphere", 1.0)],
            )
        }
        "so3-optimal-control" if both("R13", "R23").is_some() => {
            let (i, j) = both("R13", "R23").unwrap_or((0, 1));
            (
                Axes::new(title("body axis R e3 seen from above"), "(R e3)₁", "(R e3)₂"),
                vec![curve("R(t) e3", i, j), circle("unit sphere", 1.0)],
            )
        }
        "underwater-vehicle" if both("g14", "g24").is_some() => {
            let (i, j) = both("g14", "g24").unwrap_or((0, 1));
            (Axes::new(title("position in the x–y plane"), "x", "y"), vec![curve("x(t)", i, j)])
        }
        "nbody" if r.labels.len() >= 4 => {
            // D, the dimension of the space, is that of the linear momentum Σ p_i
            let d = r.quantities.iter().find(|q| q.name == "linear_momentum").map_or(2, |q| q.dim).max(2);
            let bodies = r.labels.len() / (2 * d);
            let shown = bodies.min(12);
            let curves = (0..shown).map(|b| curve(&format!("body {}", b + 1), d * b, d * b + 1)).collect();
            let what = if shown < bodies {
                format!("orbits in the x–y plane (the first {shown} of {bodies} bodies)")
            } else {
                "orbits in the x–y plane".to_string()
            };
            (Axes::new(title(&what), "x", "y"), curves)
        }
        "plate-ball" if both("x1", "x2").is_some() => {
            let (i, j) = both("x1", "x2").unwrap_or((0, 1));
            (Axes::new(title("the ball's centre"), "x1", "x2"), vec![curve("x(t)", i, j)])
        }
        _ => match (both("q1", "q2"), both("q1", "p1")) {
            (Some((i, j)), _) => (Axes::new(title("orbit"), "q1", "q2"), vec![curve("q(t)", i, j)]),
            (None, Some((i, j))) => (Axes::new(title("phase portrait"), "q", "p"), vec![curve("(q, p)(t)", i, j)]),
            _ if r.labels.len() >= 2 => {
                (Axes::new(title("state"), r.labels[0].clone(), r.labels[1].clone()), vec![curve("state", 0, 1)])
            }
            _ => {
                let pts = r.samples.iter().filter_map(|s| s.state.first().map(|&v| (s.t, v)));
                let state = r.labels.first().cloned().unwrap_or_default();
                (Axes::new(title("state"), "t", state), vec![Series::new("state", pts.collect()).marker(Marker::None)])
            }
        },
    };
    trajectory_svg(&axes, &curves)
}
