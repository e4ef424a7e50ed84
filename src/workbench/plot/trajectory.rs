//! The trajectory plot ([`trajectory_svg`]): curves in the plane with equal scales on both axes.

use super::axis::{Map, Scale, with_unit};
use super::canvas::{Canvas, Px, plot_error};
use super::legend::{Entry, Legend};
use super::series::{Axes, Hue, Line, Marker, Series};
use super::style::{AXIS_FONT, FRAME, GRID, TEXT, TICK_FONT, TITLE_FONT, colours, distinguish, stroke, text_width};
use super::thin::thinned;
use crate::workbench::WorkbenchError;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

/// The SVG text of a plot of the curves `curves` in the plane, with equal scales on both axes
/// (a circle is drawn as a circle): the first point of each curve (but reference curves) is
/// marked as its start, the legend is to the right.
pub fn trajectory_svg(axes: &Axes, curves: &[Series]) -> Result<String, WorkbenchError> {
    let mut owned = thinned(curves);
    distinguish(&mut owned);
    let curves = &owned[..];
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
    let exact = {
        let root = SVGBackend::with_string(&mut buf, (width as u32, height as u32)).into_drawing_area();
        let c = Canvas::new(&root)?;
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
                c.disc(at, 5, WHITE, true)?;
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
        c.into_exact()
    };
    Ok(exact.apply(&buf))
}
