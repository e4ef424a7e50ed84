//! Drawing in pixels on an SVG backend: lines in a line style, rectangles, text, markers.
//!
//! plotters' SVG backend takes integer pixels, which turns a curve into a staircase when the
//! figure is scaled. The canvas therefore records the exact (sub-pixel) coordinates of every
//! polyline, polygon and disc it draws, in drawing order, and [`Canvas::finish`] writes them
//! into the SVG text in place of the rounded ones (to 0.01 px): the `k`-th `<polyline>`,
//! `<polygon>` and `<circle>` of the output are the `k`-th of each kind that the canvas drew.

use super::series::{Line, Marker};
use super::style::{TEXT, plotters_size};
use crate::workbench::WorkbenchError;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::cell::RefCell;

/// The error of a failed drawing operation.
pub(super) fn plot_error(e: impl std::fmt::Display) -> WorkbenchError {
    WorkbenchError::Input(format!("cannot draw the plot: {e}"))
}

/// A point in pixels.
pub(super) type Px = (f64, f64);

pub(super) fn ipx(p: Px) -> (i32, i32) {
    (p.0.round() as i32, p.1.round() as i32)
}

/// Draws on the root area of an SVG backend, in pixels (module documentation).
pub(super) struct Canvas<'a, 'b> {
    area: &'a DrawingArea<SVGBackend<'b>, Shift>,
    exact: RefCell<Exact>,
}

/// The exact coordinates of what a [`Canvas`] drew, by kind, in drawing order.
#[derive(Default)]
pub(super) struct Exact {
    polylines: Vec<Vec<Px>>,
    polygons: Vec<Vec<Px>>,
    circles: Vec<Px>,
    rects: Vec<(Px, Px)>,
}

impl Exact {
    /// `svg`, the text the backend wrote for the canvas, with the exact coordinates in place of
    /// the rounded ones.
    pub(super) fn apply(self, svg: &str) -> String {
        let svg = replace_attribute(svg, "<polyline", "points", self.polylines.iter().map(|p| points(p)));
        let svg = replace_attribute(&svg, "<polygon", "points", self.polygons.iter().map(|p| points(p)));
        let svg = replace_attribute(&svg, "<circle", "cx", self.circles.iter().map(|c| format!("{:.2}", c.0)));
        let svg = replace_attribute(&svg, "<circle", "cy", self.circles.iter().map(|c| format!("{:.2}", c.1)));
        // plotters writes a rectangle's corners a, b as x = a.x, y = a.y, width = b.x - a.x, …
        let rect = |f: fn(&(Px, Px)) -> f64| self.rects.iter().map(move |r| format!("{:.2}", f(r)));
        let svg = replace_attribute(&svg, "<rect", "x", rect(|r| r.0.0));
        let svg = replace_attribute(&svg, "<rect", "y", rect(|r| r.0.1));
        let svg = replace_attribute(&svg, "<rect", "width", rect(|r| r.1.0 - r.0.0));
        replace_attribute(&svg, "<rect", "height", rect(|r| r.1.1 - r.0.1))
    }
}

/// Points closer than this (pixels) are one point of a polyline.
const RESOLUTION: f64 = 0.01;

impl<'a, 'b> Canvas<'a, 'b> {
    /// A canvas on `area`, filled white.
    pub(super) fn new(area: &'a DrawingArea<SVGBackend<'b>, Shift>) -> Result<Self, WorkbenchError> {
        let canvas = Self { area, exact: RefCell::default() };
        let (w, h) = area.dim_in_pixel();
        canvas.rect((0.0, 0.0), (f64::from(w), f64::from(h)), WHITE, true)?;
        Ok(canvas)
    }

    /// What was drawn, exactly, for [`Exact::apply`] once the backend has written the SVG.
    pub(super) fn into_exact(self) -> Exact {
        self.exact.into_inner()
    }

    pub(super) fn polyline(&self, pts: &[Px], color: RGBColor, width: u32) -> Result<(), WorkbenchError> {
        let mut v: Vec<Px> = Vec::with_capacity(pts.len());
        for &p in pts {
            if v.last().is_none_or(|q: &Px| (q.0 - p.0).abs().max((q.1 - p.1).abs()) >= RESOLUTION) {
                v.push(p);
            }
        }
        if v.len() == 1 {
            v.push(v[0]);
        }
        if v.is_empty() {
            return Ok(());
        }
        self.area
            .draw(&PathElement::new(v.iter().map(|&p| ipx(p)).collect::<Vec<_>>(), color.stroke_width(width)))
            .map_err(plot_error)?;
        self.exact.borrow_mut().polylines.push(v);
        Ok(())
    }

    /// A filled polygon.
    fn polygon(&self, pts: Vec<Px>, color: RGBColor) -> Result<(), WorkbenchError> {
        self.area
            .draw(&Polygon::new(pts.iter().map(|&p| ipx(p)).collect::<Vec<_>>(), color.filled()))
            .map_err(plot_error)?;
        self.exact.borrow_mut().polygons.push(pts);
        Ok(())
    }

    /// A disc of radius `r` pixels (filled, or its outline of width 1).
    pub(super) fn disc(&self, at: Px, r: u32, color: RGBColor, filled: bool) -> Result<(), WorkbenchError> {
        let style = if filled { color.filled() } else { color.stroke_width(1) };
        self.area.draw(&Circle::new(ipx(at), r, style)).map_err(plot_error)?;
        self.exact.borrow_mut().circles.push(at);
        Ok(())
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
        self.area.draw(&PathElement::new(vec![ipx(a), ipx(b)], color.stroke_width(width))).map_err(plot_error)?;
        self.exact.borrow_mut().polylines.push(vec![a, b]);
        Ok(())
    }

    pub(super) fn rect(&self, a: Px, b: Px, color: RGBColor, filled: bool) -> Result<(), WorkbenchError> {
        let style = if filled { color.filled() } else { color.stroke_width(1) };
        self.area.draw(&Rectangle::new([ipx(a), ipx(b)], style)).map_err(plot_error)?;
        self.exact.borrow_mut().rects.push((a, b));
        Ok(())
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
        let poly = |pts: Vec<Px>| -> Result<(), WorkbenchError> {
            if hollow {
                let mut closed = pts.clone();
                closed.push(pts[0]);
                self.polyline(&closed, color, 1)
            } else {
                self.polygon(pts, color)
            }
        };
        match m {
            Marker::None => Ok(()),
            Marker::Circle => self.disc(at, 4, color, !hollow),
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

/// `points` as an SVG `points` attribute, to 0.01 px.
fn points(pts: &[Px]) -> String {
    let mut out = String::with_capacity(pts.len() * 14);
    for (k, p) in pts.iter().enumerate() {
        if k > 0 {
            out.push(' ');
        }
        out.push_str(&format!("{:.2},{:.2}", p.0, p.1));
    }
    out
}

/// `svg` with the attribute `name` of the `k`-th element opened by `tag` set to the `k`-th of
/// `values`, if there are as many such elements as values (else `svg` unchanged).
fn replace_attribute(svg: &str, tag: &str, name: &str, values: impl ExactSizeIterator<Item = String>) -> String {
    // every element of the kind must be one the canvas recorded; else the rounded text stands
    if svg.matches(tag).count() != values.len() {
        return svg.to_string();
    }
    let mut values = values;
    let key = format!(" {name}=\"");
    let mut out = String::with_capacity(svg.len() + svg.len() / 4);
    let mut rest = svg;
    while let Some(open) = rest.find(tag) {
        let Some(end) = rest[open..].find('>').map(|e| open + e) else { break };
        let element = &rest[open..end];
        match (element.find(&key), values.next()) {
            (Some(a), Some(value)) => {
                let start = open + a + key.len();
                let Some(len) = rest[start..end].find('"') else { break };
                out.push_str(&rest[..start]);
                out.push_str(&value);
                out.push_str(&rest[start + len..end]);
            }
            _ => out.push_str(&rest[..end]),
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
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
