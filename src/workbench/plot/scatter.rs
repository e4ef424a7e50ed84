//! Point clouds and maps on linear axes: [`scatter_svg`] (a Poincaré section: one dot per
//! crossing) and [`heatmap_svg`] (a chaos map: one cell per initial condition, coloured by its
//! value, with a colour bar).

use super::axis::{Map, Scale, Tick, with_unit};
use super::canvas::{Canvas, plot_error};
use super::series::{Axes, Series};
use super::style::{AXIS_FONT, FRAME, GRID, TICK_FONT, TITLE_FONT, colours, text_width};
use crate::workbench::WorkbenchError;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

/// A heat-map cell without a value (off the energy level, or a failed orbit).
const MISSING: RGBColor = RGBColor(235, 235, 235);
/// Plot area width, pixels.
const PLOT_W: f64 = 560.0;
/// Plot area height, pixels.
const PLOT_H: f64 = 440.0;

/// The linear ranges of `values`, widened by 4% on each side.
fn padded(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let Scale::Lin { lo, hi } = Scale::linear(values) else { return (0.0, 1.0) };
    let m = 0.04 * (hi - lo);
    (lo - m, hi + m)
}

/// The layout of a figure with linear `x` in `[x0, x1]` and `y` in `[y0, y1]`: its ticks, left
/// margin and the maps to pixels.
struct Frame {
    xt: Vec<Tick>,
    yt: Vec<Tick>,
    left: f64,
    top: f64,
    xmap: Map,
    ymap: Map,
}

impl Frame {
    fn new(axes: &Axes, (x0, x1): (f64, f64), (y0, y1): (f64, f64)) -> Self {
        let xt = Scale::Lin { lo: x0, hi: x1 }.ticks(PLOT_W, &|l| text_width(l, TICK_FONT) + 14.0);
        let yt = Scale::Lin { lo: y0, hi: y1 }.ticks(PLOT_H, &|_| TICK_FONT * 1.6);
        let label_w =
            yt.iter().filter_map(|t| t.label.as_deref()).map(|l| text_width(l, TICK_FONT)).fold(0.0, f64::max);
        let left = 14.0 + AXIS_FONT * 1.2 + 12.0 + label_w + 10.0;
        let top = if axes.title.is_empty() { 18.0 } else { 50.0 };
        let xmap = Map { a: x0, b: x1, p0: left, p1: left + PLOT_W };
        let ymap = Map { a: y0, b: y1, p0: top + PLOT_H, p1: top };
        Self { xt, yt, left, top, xmap, ymap }
    }

    /// Title, grid, ticks and axis titles (the frame itself is drawn by [`Frame::close`]).
    fn draw(&self, c: &Canvas, axes: &Axes, width: f64) -> Result<(), WorkbenchError> {
        let (left, top, right, bottom) = (self.left, self.top, self.left + PLOT_W, self.top + PLOT_H);
        if !axes.title.is_empty() {
            let title_w = text_width(&axes.title, TITLE_FONT);
            let mid = (left + PLOT_W / 2.0).clamp(title_w / 2.0 + 10.0, (width - title_w / 2.0 - 10.0).max(0.0));
            c.text(&axes.title, (mid, 18.0), TITLE_FONT, HPos::Center, VPos::Top)?;
        }
        for t in &self.xt {
            let x = self.xmap.px(t.at);
            c.line((x, top), (x, bottom), GRID, 1)?;
            c.line((x, bottom), (x, bottom + 6.0), FRAME, 1)?;
            if let Some(l) = &t.label {
                c.text(l, (x, bottom + 9.0), TICK_FONT, HPos::Center, VPos::Top)?;
            }
        }
        for t in &self.yt {
            let y = self.ymap.px(t.at);
            c.line((left, y), (right, y), GRID, 1)?;
            c.line((left - 6.0, y), (left, y), FRAME, 1)?;
            if let Some(l) = &t.label {
                c.text(l, (left - 9.0, y), TICK_FONT, HPos::Right, VPos::Center)?;
            }
        }
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
        )
    }

    /// The frame of the plotting area, on top of what was drawn in it.
    fn close(&self, c: &Canvas) -> Result<(), WorkbenchError> {
        c.rect((self.left, self.top), (self.left + PLOT_W, self.top + PLOT_H), FRAME, false)
    }
}

/// The SVG text of a scatter plot of the groups of points `groups` on linear axes (one dot of
/// radius 1 px per finite point, group `i` in the palette's colour `i`, as the series of the other
/// plots; the ranges are those of all points, widened by 4%). A Poincaré section, one group per
/// orbit.
pub fn scatter_svg(axes: &Axes, groups: &[Vec<(f64, f64)>]) -> Result<String, WorkbenchError> {
    let finite = || groups.iter().flatten().copied().filter(|p| p.0.is_finite() && p.1.is_finite());
    let frame = Frame::new(axes, padded(finite().map(|p| p.0)), padded(finite().map(|p| p.1)));
    let width = (frame.left + PLOT_W + 30.0).max(text_width(&axes.title, TITLE_FONT) + 40.0).ceil();
    let height = (frame.top + PLOT_H + 64.0).ceil();
    let hues: Vec<Series> = (0..groups.len()).map(|i| Series::new("", Vec::new()).hue(i)).collect();
    let colour = colours(&hues);
    let mut buf = String::new();
    let exact = {
        let root = SVGBackend::with_string(&mut buf, (width as u32, height as u32)).into_drawing_area();
        let c = Canvas::new(&root)?;
        frame.draw(&c, axes, width)?;
        for (g, &dot) in groups.iter().zip(&colour) {
            for &(x, y) in g.iter().filter(|p| p.0.is_finite() && p.1.is_finite()) {
                c.disc((frame.xmap.px(x), frame.ymap.px(y)), 1, dot, true)?;
            }
        }
        frame.close(&c)?;
        root.present().map_err(plot_error)?;
        c.into_exact()
    };
    Ok(exact.apply(&buf))
}

/// The colour of `u ∈ [0, 1]` on a perceptually ordered ramp (dark blue → teal → yellow, the
/// end points and middle of matplotlib's "viridis"), linear in RGB between its stops.
pub fn ramp(u: f64) -> RGBColor {
    const STOPS: [(f64, f64, f64); 5] =
        [(68.0, 1.0, 84.0), (59.0, 82.0, 139.0), (33.0, 145.0, 140.0), (94.0, 201.0, 98.0), (253.0, 231.0, 37.0)];
    let u = if u.is_finite() { u.clamp(0.0, 1.0) } else { 0.0 };
    let s = u * (STOPS.len() - 1) as f64;
    let i = (s.floor() as usize).min(STOPS.len() - 2);
    let f = s - i as f64;
    let (a, b) = (STOPS[i], STOPS[i + 1]);
    let mix = |x: f64, y: f64| (x + f * (y - x)).round() as u8;
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// A heat map: an `nx × ny` grid of cells over `[x0, x1] × [y0, y1]`, cell `(i, j)` (row-major,
/// `j` the row from the bottom: `values[j·nx + i]`) coloured by its value on [`ramp`] over
/// `[lo, hi]` (values outside clamped), `None` or non-finite in light grey; a colour bar titled
/// `bar` to the right.
pub struct HeatMap<'a> {
    /// The cells' values, row-major from the bottom row.
    pub values: &'a [Option<f64>],
    /// Cells per row and rows.
    pub cells: (usize, usize),
    /// The rectangle `([x0, x1], [y0, y1])` the cells tile.
    pub range: ((f64, f64), (f64, f64)),
    /// The values at the two ends of the colour ramp.
    pub limits: (f64, f64),
    /// The colour bar's title.
    pub bar: String,
}

/// The SVG text of the heat map `map` ([`HeatMap`]).
pub fn heatmap_svg(axes: &Axes, map: &HeatMap) -> Result<String, WorkbenchError> {
    let (nx, ny) = map.cells;
    let ((x0, x1), (y0, y1)) = map.range;
    let (lo, hi) = map.limits;
    let ordered = x1 > x0 && y1 > y0 && hi > lo;
    if nx == 0 || ny == 0 || map.values.len() != nx * ny || !ordered {
        return Err(plot_error(format!("a heat map of {nx} × {ny} cells over a valid range expected")));
    }
    let frame = Frame::new(axes, (x0, x1), (y0, y1));
    let bar_x = frame.left + PLOT_W + 24.0;
    let bar_ticks = Scale::Lin { lo, hi }.ticks(PLOT_H, &|_| TICK_FONT * 1.6);
    let bar_label_w =
        bar_ticks.iter().filter_map(|t| t.label.as_deref()).map(|l| text_width(l, TICK_FONT)).fold(0.0, f64::max);
    let width = (bar_x + 18.0 + 9.0 + bar_label_w + AXIS_FONT * 1.2 + 24.0)
        .max(text_width(&axes.title, TITLE_FONT) + 40.0)
        .ceil();
    let height = (frame.top + PLOT_H + 64.0).ceil();
    let mut buf = String::new();
    let exact = {
        let root = SVGBackend::with_string(&mut buf, (width as u32, height as u32)).into_drawing_area();
        let c = Canvas::new(&root)?;
        frame.draw(&c, axes, width)?;
        let (dx, dy) = ((x1 - x0) / nx as f64, (y1 - y0) / ny as f64);
        for j in 0..ny {
            for i in 0..nx {
                let colour = match map.values[j * nx + i] {
                    Some(v) if v.is_finite() => ramp((v - lo) / (hi - lo)),
                    _ => MISSING,
                };
                let a = (frame.xmap.px(x0 + i as f64 * dx), frame.ymap.px(y0 + (j + 1) as f64 * dy));
                let b = (frame.xmap.px(x0 + (i + 1) as f64 * dx), frame.ymap.px(y0 + j as f64 * dy));
                c.rect(a, b, colour, true)?;
            }
        }
        frame.close(&c)?;
        // the colour bar: 64 bands from lo (bottom) to hi (top)
        let bar = Map { a: lo, b: hi, p0: frame.top + PLOT_H, p1: frame.top };
        let bands = 64;
        for k in 0..bands {
            let (u0, u1) = (k as f64 / bands as f64, (k + 1) as f64 / bands as f64);
            let (v0, v1) = (lo + u0 * (hi - lo), lo + u1 * (hi - lo));
            c.rect((bar_x, bar.px(v1)), (bar_x + 18.0, bar.px(v0)), ramp((u0 + u1) / 2.0), true)?;
        }
        c.rect((bar_x, frame.top), (bar_x + 18.0, frame.top + PLOT_H), FRAME, false)?;
        for t in &bar_ticks {
            let y = bar.px(t.at);
            c.line((bar_x + 18.0, y), (bar_x + 24.0, y), FRAME, 1)?;
            if let Some(l) = &t.label {
                c.text(l, (bar_x + 27.0, y), TICK_FONT, HPos::Left, VPos::Center)?;
            }
        }
        c.vertical_text(
            &map.bar,
            (bar_x + 27.0 + bar_label_w + 10.0 + AXIS_FONT * 0.6, frame.top + PLOT_H / 2.0),
            AXIS_FONT,
        )?;
        root.present().map_err(plot_error)?;
        c.into_exact()
    };
    Ok(exact.apply(&buf))
}
