//! The look of every plot: fonts, the palette and the fixed colours, text widths, stroke widths.

use super::series::{Hue, Line, Marker, Series};
use plotters::prelude::*;

pub(super) const TICK_FONT: f64 = 12.0;
pub(super) const AXIS_FONT: f64 = 14.0;
pub(super) const TITLE_FONT: f64 = 16.0;
pub(super) const LEGEND_FONT: f64 = 12.0;

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
pub(super) const TEXT: RGBColor = RGBColor(25, 25, 25);
pub(super) const FRAME: RGBColor = RGBColor(70, 70, 70);
pub(super) const GRID: RGBColor = RGBColor(221, 221, 221);
pub(super) const MINOR_GRID: RGBColor = RGBColor(242, 242, 242);
pub(super) const FLOOR_LINE: RGBColor = RGBColor(150, 150, 150);
pub(super) const LEGEND_BORDER: RGBColor = RGBColor(150, 150, 150);

/// The width of `s` in pixels at font size `size`: a generous estimate for DejaVu Sans (the
/// widest of the common sans-serif faces), so that text fits the boxes drawn around it.
pub(super) fn text_width(s: &str, size: f64) -> f64 {
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
pub(super) fn plotters_size(px: f64) -> f64 {
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

/// The palette index of each series ([`Hue::Auto`] in order, [`Hue::Index`] as given), `None`
/// for [`Hue::Reference`].
fn palette_indices(series: &[Series]) -> Vec<Option<usize>> {
    let mut next = 0;
    series
        .iter()
        .map(|s| match s.hue {
            Hue::Index(i) => Some(i),
            Hue::Reference => None,
            Hue::Auto => {
                next += 1;
                Some(next - 1)
            }
        })
        .collect()
}

/// Series beyond the palette's ten colours take the colours again with another line and
/// marker: a solid line becomes dashed in the second round and dotted in the third, a disc
/// marker a square, a triangle, a diamond; so that, e.g., bodies 1 and 11 of an N-body plot
/// differ.
pub(super) fn distinguish(series: &mut [Series]) {
    const LINES: [Line; 3] = [Line::Solid, Line::Dashed, Line::Dotted];
    const MARKERS: [Marker; 4] = [Marker::Circle, Marker::Square, Marker::Triangle, Marker::Diamond];
    let indices = palette_indices(series);
    for (s, index) in series.iter_mut().zip(indices) {
        let Some(round) = index.map(|i| i / PALETTE.len()).filter(|&r| r > 0) else { continue };
        if s.line == Line::Solid {
            s.line = LINES[round % LINES.len()];
        }
        if s.marker == Marker::Circle {
            s.marker = MARKERS[round % MARKERS.len()];
        }
    }
}

/// The colours of `series`: [`Hue::Index`] as given, [`Hue::Auto`] the palette in order.
pub(super) fn colours(series: &[Series]) -> Vec<RGBColor> {
    palette_indices(series).into_iter().map(|i| i.map_or(REFERENCE, |i| PALETTE[i % PALETTE.len()])).collect()
}

/// The stroke width of a series: thinner for dense ones.
pub(super) fn stroke(s: &Series) -> u32 {
    if s.points.len() > 400 { 1 } else { 2 }
}
