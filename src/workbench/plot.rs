//! SVG line plots (plotters' SVG backend, no fonts needed): error against time on a log `y`
//! axis, and log–log plots for order and work–precision diagrams.

use crate::workbench::WorkbenchError;
use plotters::coord::Shift;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;

/// Errors below this floor are drawn at the floor (a log axis cannot show 0).
pub const FLOOR: f64 = 1e-18;

/// One named curve.
#[derive(Debug, Clone)]
pub struct Series {
    /// Legend label.
    pub label: String,
    /// Points `(x, y)`.
    pub points: Vec<(f64, f64)>,
}

/// Axis titles and scales of a plot.
#[derive(Debug, Clone)]
pub struct Axes {
    /// Plot title.
    pub title: String,
    /// `x` axis title.
    pub x: String,
    /// `y` axis title.
    pub y: String,
    /// Whether `x` is logarithmic (`y` always is).
    pub log_x: bool,
    /// Legend in the upper right corner (else upper left on log–log plots, lower right on
    /// plots over time).
    pub legend_right: bool,
}

fn plot_error(e: impl std::fmt::Display) -> WorkbenchError {
    WorkbenchError::Input(format!("cannot draw the plot: {e}"))
}

fn bounds(values: impl Iterator<Item = f64>, log: bool) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.filter(|v| v.is_finite()) {
        let v = if log { v.max(FLOOR) } else { v };
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return (if log { FLOOR } else { 0.0 }, 1.0);
    }
    if log {
        if hi <= lo * 1.0001 { (lo / 10.0, hi * 10.0) } else { (lo / 2.0, hi * 2.0) }
    } else if hi <= lo {
        (lo - 1.0, hi + 1.0)
    } else {
        (lo, hi)
    }
}

fn draw<X, Y>(
    root: &DrawingArea<SVGBackend<'_>, Shift>,
    axes: &Axes,
    series: &[Series],
    x: X,
    y: Y,
) -> Result<(), WorkbenchError>
where
    X: AsRangedCoord<Value = f64>,
    Y: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let mut chart = ChartBuilder::on(root)
        .caption(&axes.title, ("sans-serif", 20))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(75)
        .build_cartesian_2d(x, y)
        .map_err(plot_error)?;
    chart
        .configure_mesh()
        .x_desc(axes.x.as_str())
        .y_desc(axes.y.as_str())
        .y_label_formatter(&|v| format!("{v:.0e}"))
        .draw()
        .map_err(plot_error)?;
    for (i, s) in series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let pts: Vec<(f64, f64)> =
            s.points.iter().filter(|p| p.1.is_finite()).map(|&(a, b)| (a, b.max(FLOOR))).collect();
        chart
            .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))
            .map_err(plot_error)?
            .label(s.label.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
        if axes.log_x {
            chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled()))).map_err(plot_error)?;
        }
    }
    chart
        .configure_series_labels()
        .position(match (axes.legend_right, axes.log_x) {
            (true, _) => SeriesLabelPosition::UpperRight,
            (false, true) => SeriesLabelPosition::UpperLeft,
            (false, false) => SeriesLabelPosition::LowerRight,
        })
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(plot_error)?;
    Ok(())
}

/// The SVG text of a plot of `series`.
pub fn svg(axes: &Axes, series: &[Series]) -> Result<String, WorkbenchError> {
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, (860, 520)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let xs = series.iter().flat_map(|s| s.points.iter().map(|p| p.0));
        let ys = series.iter().flat_map(|s| s.points.iter().map(|p| p.1));
        let (x0, x1) = bounds(xs, axes.log_x);
        let (y0, y1) = bounds(ys, true);
        if axes.log_x {
            draw(&root, axes, series, (x0..x1).log_scale(), (y0..y1).log_scale())?;
        } else {
            draw(&root, axes, series, x0..x1, (y0..y1).log_scale())?;
        }
        root.present().map_err(plot_error)?;
    }
    Ok(buf)
}
