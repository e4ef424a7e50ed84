//! `trajectory.svg` of a run: the view of the state that shows each problem best.

use super::series::{Axes, Marker, Series};
use super::trajectory::trajectory_svg;
use crate::workbench::WorkbenchError;
use crate::workbench::experiment::RunResult;

/// Points on the circle of radius `r` about the origin, as a reference curve.
fn circle(label: &str, r: f64) -> Series {
    let pts = (0..=180).map(|k| {
        let a = std::f64::consts::TAU * f64::from(k) / 180.0;
        (r * a.cos(), r * a.sin())
    });
    Series::new(label, pts.collect()).reference()
}

/// `trajectory.svg` of a run: the curve its problem is best seen by, with equal scales
/// ([`trajectory_svg`]):
///
/// * `outer-solar-system`: the orbits of the Sun and the five outer planets in the `x–y` plane
///   (AU);
/// * `rigid-body`, `heavy-top`, `lagrange-top`: the body angular momentum `Π`, orthographic
///   view `(Π₁, Π₂)` (for the rigid body with the outline of its sphere `|Π| = |Π(0)|`);
/// * `spherical-pendulum`: the bob `q` seen from above, `(q1, q2)`, with the unit circle;
/// * `so3-optimal-control`: the body axis `R e3` seen from above, `(R13, R23)`, with the unit
///   circle;
/// * `underwater-vehicle`: the position of the vehicle in the `x–y` plane;
/// * `plate-ball`: the ball's centre in the plane;
/// * `nbody`: the orbits of the bodies in the `x–y` plane (the first 12);
/// * other problems: `(q1, q2)` for two or more degrees of freedom (the Kepler orbit), the phase
///   portrait `(q1, p1)` for one.
pub fn run_trajectory_svg(r: &RunResult) -> Result<String, WorkbenchError> {
    let col = |name: &str| r.labels.iter().position(|l| l == name);
    let curve = |label: &str, i: usize, j: usize| {
        Series::new(label, r.samples.iter().map(|s| (s.state[i], s.state[j])).collect()).marker(Marker::None)
    };
    let both = |a: &str, b: &str| col(a).zip(col(b));
    let title = |what: &str| format!("{}: {what} ({}, h = {})", r.problem, r.method, r.spec.h);
    let first = |i: usize| r.samples.first().map_or(0.0, |s| s.state[i]);
    let (axes, curves) = match r.problem.as_str() {
        "outer-solar-system" => {
            let names = ["Sun", "Jupiter", "Saturn", "Uranus", "Neptune", "Pluto"];
            let curves = names
                .iter()
                .enumerate()
                .filter(|(b, _)| 3 * b + 1 < r.labels.len())
                .map(|(b, n)| curve(n, 3 * b, 3 * b + 1));
            (
                Axes::new(title("orbits in the x–y plane"), "x", "y").x_unit(Some("AU")).y_unit(Some("AU")),
                curves.collect::<Vec<_>>(),
            )
        }
        "rigid-body" | "heavy-top" | "lagrange-top" if both("Pi1", "Pi2").is_some() => {
            let (i, j) = both("Pi1", "Pi2").unwrap_or((0, 1));
            let mut v = vec![curve("Π(t), seen along Π₃", i, j)];
            if r.problem == "rigid-body"
                && let Some(k) = col("Pi3")
            {
                let radius = (first(i).powi(2) + first(j).powi(2) + first(k).powi(2)).sqrt();
                v.push(circle("sphere |Π| = |Π(0)|", radius));
            }
            (Axes::new(title("body angular momentum"), "Π₁", "Π₂"), v)
        }
        "spherical-pendulum" if both("q1", "q2").is_some() => {
            let (i, j) = both("q1", "q2").unwrap_or((0, 1));
            (
                Axes::new(title("the bob seen from above"), "q1", "q2"),
                vec![curve("q(t)", i, j), circle("unit sphere", 1.0)],
            )
        }
        "so3-optimal-control" if both("R13", "R23").is_some() => {
            let (i, j) = both("R13", "R23").unwrap_or((0, 1));
            (
                Axes::new(title("body axis R e3 seen from above"), "(R e3)₁", "(R e3)₂"),
                vec![curve("R(t) e3", i, j), circle("unit sphere", 1.0)],
            )
        }
        "underwater-vehicle" if both("g14", "g24").is_some() => {
            let (i, j) = both("g14", "g24").unwrap_or((0, 1));
            (Axes::new(title("position in the x–y plane"), "x", "y"), vec![curve("x(t)", i, j)])
        }
        "nbody" if r.labels.len() >= 4 => {
            // D, the dimension of the space, is that of the linear momentum Σ p_i
            let d = r.quantities.iter().find(|q| q.name == "linear_momentum").map_or(2, |q| q.dim).max(2);
            let bodies = r.labels.len() / (2 * d);
            let shown = bodies.min(12);
            let curves = (0..shown).map(|b| curve(&format!("body {}", b + 1), d * b, d * b + 1)).collect();
            let what = if shown < bodies {
                format!("orbits in the x–y plane (the first {shown} of {bodies} bodies)")
            } else {
                "orbits in the x–y plane".to_string()
            };
            (Axes::new(title(&what), "x", "y"), curves)
        }
        "plate-ball" if both("x1", "x2").is_some() => {
            let (i, j) = both("x1", "x2").unwrap_or((0, 1));
            (Axes::new(title("the ball's centre"), "x1", "x2"), vec![curve("x(t)", i, j)])
        }
        _ => match (both("q1", "q2"), both("q1", "p1")) {
            (Some((i, j)), _) => (Axes::new(title("orbit"), "q1", "q2"), vec![curve("q(t)", i, j)]),
            (None, Some((i, j))) => (Axes::new(title("phase portrait"), "q", "p"), vec![curve("(q, p)(t)", i, j)]),
            _ if r.labels.len() >= 2 => {
                (Axes::new(title("state"), r.labels[0].clone(), r.labels[1].clone()), vec![curve("state", 0, 1)])
            }
            _ => {
                let pts = r.samples.iter().filter_map(|s| s.state.first().map(|&v| (s.t, v)));
                let state = r.labels.first().cloned().unwrap_or_default();
                (Axes::new(title("state"), "t", state), vec![Series::new("state", pts.collect()).marker(Marker::None)])
            }
        },
    };
    trajectory_svg(&axes, &curves)
}
