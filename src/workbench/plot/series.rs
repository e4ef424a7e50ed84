//! The vocabulary of a plot: a [`Series`] (points, label, panel, colour, line, marker) and the
//! [`Axes`] (titles, units, scales), and the time unit of a problem.

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
    /// Whether `x` is logarithmic (`y` always is in [`svg`](super::svg); neither is in
    /// [`trajectory_svg`](super::trajectory_svg)).
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
