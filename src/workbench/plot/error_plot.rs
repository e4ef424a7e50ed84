//! The error plot ([`svg`]): error curves on a logarithmic `y` axis, in one or more panels over a
//! shared `x` axis, with a floor row for zeros; and the reference slope of a convergence plot.

use super::axis::{FLOOR, Map, Scale, Tick, min_max, with_unit};
use super::canvas::{Canvas, Px, ipx, plot_error};
use super::legend::{Entry, Legend};
use super::series::{Axes, Line, Marker, Series};
use super::style::{
    AXIS_FONT, FLOOR_LINE, FRAME, GRID, MINOR_GRID, TICK_FONT, TITLE_FONT, colours, distinguish, stroke, text_width,
};
use super::thin::thinned;
use crate::workbench::WorkbenchError;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

/// Series with at most this many points get a marker at every point (denser series are lines).
pub const MAX_MARKED_POINTS: usize = 60;

/// One panel of [`svg`]: its `y` title, decades and series.
struct Panel {
    title: String,
    y: Scale,
    members: Vec<usize>,
    /// The floor row's label, if some values lie on it.
    floor: Option<String>,
}

const FLOOR_BAND: f64 = 26.0;

/// The SVG text of the error plot of `series` ([module docs](super)): a log `y` axis in one
/// panel per `y` title, a linear or log `x` axis, the legend to the right. Curves longer than
/// [`MAX_POINTS_PER_CURVE`](super::MAX_POINTS_PER_CURVE) are thinned with their extrema kept.
pub fn svg(axes: &Axes, series: &[Series]) -> Result<String, WorkbenchError> {
    let mut owned = thinned(series);
    distinguish(&mut owned);
    let series = &owned[..];
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
    let exact = {
        let root = SVGBackend::with_string(&mut buf, (width as u32, height as u32)).into_drawing_area();
        let c = Canvas::new(&root)?;
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
                        c.disc(run[0], 2, colour[i], true)?;
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
        c.into_exact()
    };
    Ok(exact.apply(&buf))
}

/// The marker of a series' points on the floor row (drawn hollow).
fn floor_marker(s: &Series) -> Marker {
    if s.marker == Marker::None { Marker::Circle } else { s.marker }
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
