//! Drawing in pixels on an SVG backend: lines in a line style, rectangles, text, markers.

use super::series::{Line, Marker};
use super::style::{TEXT, plotters_size};
use crate::workbench::WorkbenchError;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// The error of a failed drawing operation.
pub(super) fn plot_error(e: impl std::fmt::Display) -> WorkbenchError {
    WorkbenchError::Input(format!("cannot draw the plot: {e}"))
}

/// A point in pixels.
pub(super) type Px = (f64, f64);

pub(super) fn ipx(p: Px) -> (i32, i32) {
    (p.0.round() as i32, p.1.round() as i32)
}

/// Draws on the root area of an SVG backend, in pixels.
pub(super) struct Canvas<'a, 'b> {
    pub(super) area: &'a DrawingArea<SVGBackend<'b>, Shift>,
}

impl Canvas<'_, '_> {
    pub(super) fn polyline(&self, pts: &[Px], color: RGBColor, width: u32) -> Result<(), WorkbenchError> {
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
    pub(super) fn styled(&self, pts: &[Px], color: RGBColor, width: u32, line: Line) -> Result<(), WorkbenchError> {
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

    pub(super) fn line(&self, a: Px, b: Px, color: RGBColor, width: u32) -> Result<(), WorkbenchError> {
        self.area.draw(&PathElement::new(vec![ipx(a), ipx(b)], color.stroke_width(width))).map_err(plot_error)
    }

    pub(super) fn rect(&self, a: Px, b: Px, color: RGBColor, filled: bool) -> Result<(), WorkbenchError> {
        let style = if filled { color.filled() } else { color.stroke_width(1) };
        self.area.draw(&Rectangle::new([ipx(a), ipx(b)], style)).map_err(plot_error)
    }

    pub(super) fn text(&self, s: &str, at: Px, size: f64, h: HPos, v: VPos) -> Result<(), WorkbenchError> {
        // plotters writes `font-size = size / 1.24`
        let style = TextStyle::from(("sans-serif", plotters_size(size)).into_font()).color(&TEXT).pos(Pos::new(h, v));
        self.area.draw_text(s, &style, ipx(at)).map_err(plot_error)
    }

    /// Text rotated to read upwards, centred at `at`.
    pub(super) fn vertical_text(&self, s: &str, at: Px, size: f64) -> Result<(), WorkbenchError> {
        let style = TextStyle::from(("sans-serif", plotters_size(size)).into_font())
            .color(&TEXT)
            .pos(Pos::new(HPos::Center, VPos::Center))
            .transform(FontTransform::Rotate270);
        self.area.draw_text(s, &style, ipx(at)).map_err(plot_error)
    }

    pub(super) fn marker(&self, m: Marker, at: Px, color: RGBColor, hollow: bool) -> Result<(), WorkbenchError> {
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
