//! SVG plots of the workbench, drawn with plotters' SVG backend (no fonts needed: every label is
//! an SVG `<text>`) on a layout computed here, so that every tick, label and legend lands where a
//! reader expects it:
//!
//! * [`svg`]: error curves on a logarithmic `y` axis, against time (linear `x`) or against a step
//!   size or a cost (logarithmic `x`), in one or more panels stacked over a shared `x` axis: one
//!   panel per `y` title ([`Series::panel`], e.g. "relative error" and "absolute error");
//! * [`trajectory_svg`]: curves in a plane with equal scales on both axes (orbits, phase
//!   portraits, projections of a sphere), and [`run_trajectory_svg`], the one of a run;
//! * [`scatter_svg`]: a point cloud on linear axes (a Poincaré section), and [`heatmap_svg`], a
//!   grid of cells coloured on [`ramp`] with a colour bar (a chaos map);
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
//!
//! The code is split by concern: [`Series`] and [`Axes`] (`series.rs`), scales and ticks
//! (`axis.rs`), colours and fonts (`style.rs`), pixel drawing (`canvas.rs`), the legend
//! (`legend.rs`), thinning (`thin.rs`), and the figures: [`svg`] (`error_plot.rs`),
//! [`trajectory_svg`] (`trajectory.rs`) and [`run_trajectory_svg`] (`run_trajectory.rs`).

mod axis;
mod canvas;
mod error_plot;
mod legend;
mod run_trajectory;
mod scatter;
mod series;
mod style;
mod thin;
mod trajectory;

pub use axis::{FLOOR, nice_ticks, tick_labels};
pub use error_plot::{MAX_MARKED_POINTS, slope_line, svg};
pub use run_trajectory::run_trajectory_svg;
pub use scatter::{HeatMap, heatmap_svg, ramp, scatter_svg};
pub use series::{Axes, Hue, Line, Marker, Series, time_unit};
pub use thin::{MAX_POINTS_PER_CURVE, thin};
pub use trajectory::trajectory_svg;
