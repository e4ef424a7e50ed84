//! The legend of a plot: one entry per distinct label and swatch, to the right of the plot.

use super::canvas::{Canvas, Px};
use super::series::{Line, Marker};
use super::style::{LEGEND_BORDER, LEGEND_FONT, text_width};
use crate::workbench::WorkbenchError;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

/// One legend entry: a label and a swatch (line style, marker, colour).
#[derive(Clone, PartialEq)]
pub(super) struct Entry {
    pub(super) label: String,
    pub(super) color: RGBColor,
    pub(super) line: Line,
    pub(super) marker: Marker,
    /// The marker is hollow (the series' points on the floor row).
    pub(super) hollow: bool,
}

/// The legend: its entries (repeated ones once) and its size.
pub(super) struct Legend {
    entries: Vec<Entry>,
    pub(super) width: f64,
    pub(super) height: f64,
}

const LEGEND_PAD: f64 = 9.0;
const LEGEND_ROW: f64 = 20.0;
const SWATCH: f64 = 30.0;

impl Legend {
    pub(super) fn new(all: Vec<Entry>) -> Self {
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
    pub(super) fn draw(&self, c: &Canvas, at: Px) -> Result<(), WorkbenchError> {
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
                c.disc(((a.0 + b.0) / 2.0, y), 5, WHITE, true)?;
            }
            c.marker(e.marker, ((a.0 + b.0) / 2.0, y), e.color, e.hollow)?;
            c.text(&e.label, (b.0 + 8.0, y), LEGEND_FONT, HPos::Left, VPos::Center)?;
        }
        Ok(())
    }
}
