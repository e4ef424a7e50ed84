//! Interleaved timing of a route against its hand-written reference, in the same process.
//!
//! Each [`Pair`] holds two closures that advance their own state by `steps` steps. They are run
//! alternately (route, reference, route, reference, ...) for `ROUNDS` rounds, each round timed
//! as a whole with `Instant`; the reported figure is the median ns per step over the rounds.
//! Interleaving makes both sides see the same machine state (frequency, other load), so the
//! ratio is stable even when absolute times drift. Every bench prints one line per case:
//!
//! ```text
//! ratio <case> <project ns/step> <reference ns/step> <ratio> <target>
//! ```

use std::time::Instant;

/// Rounds per pair (the median is taken over these).
pub const ROUNDS: usize = 15;

/// Median of a non-empty slice.
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 { v[n / 2] } else { 0.5 * (v[n / 2 - 1] + v[n / 2]) }
}

/// Time `route` and `reference` interleaved; each call advances `steps` steps. Returns the median
/// ns/step of each.
pub fn interleaved(steps: usize, mut route: impl FnMut(usize), mut reference: impl FnMut(usize)) -> (f64, f64) {
    // warm-up: caches, branch predictors, frequency
    route(steps);
    reference(steps);
    let mut a = Vec::with_capacity(ROUNDS);
    let mut b = Vec::with_capacity(ROUNDS);
    for round in 0..ROUNDS {
        // alternate which side goes first, so neither always follows the other
        let time = |f: &mut dyn FnMut(usize)| {
            let t = Instant::now();
            f(steps);
            t.elapsed().as_nanos() as f64 / steps as f64
        };
        if round % 2 == 0 {
            a.push(time(&mut route));
            b.push(time(&mut reference));
        } else {
            b.push(time(&mut reference));
            a.push(time(&mut route));
        }
    }
    (median(&mut a), median(&mut b))
}

/// A measured case: project and reference ns/step and the target ratio.
#[derive(Debug, Clone)]
pub struct Measured {
    /// Case label (no spaces: the line is whitespace-separated).
    pub case: String,
    /// Project route, ns per step.
    pub project: f64,
    /// Hand-written reference, ns per step.
    pub reference: f64,
    /// Target ratio.
    pub target: f64,
}

impl Measured {
    /// `project / reference`.
    pub fn ratio(&self) -> f64 {
        self.project / self.reference
    }
}

/// Collects the `ratio` lines of one bench and prints them (and a pass/fail summary) at the end.
#[derive(Debug, Default)]
pub struct Report {
    rows: Vec<Measured>,
}

impl Report {
    /// An empty report.
    pub fn new() -> Self {
        Self::default()
    }

    /// Time `route` against `reference` ([`interleaved`]) and record the case; prints its line
    /// immediately. With `GEOMINT_CASE=substring` in the environment only the cases whose name
    /// contains it are timed, each for at least 3 s (for `perf record`); the others return NaN
    /// times and are not recorded.
    pub fn case(
        &mut self,
        case: &str,
        target: f64,
        steps: usize,
        route: impl FnMut(usize),
        reference: impl FnMut(usize),
    ) -> Measured {
        if std::env::var("GEOMINT_CASE").is_ok_and(|only| !case.contains(&only)) {
            return Measured { case: case.replace(' ', "_"), project: f64::NAN, reference: f64::NAN, target };
        }
        let (mut route, mut hand) = (route, reference);
        let (project, reference) = interleaved(steps, &mut route, &mut hand);
        if std::env::var_os("GEOMINT_CASE").is_some() {
            let start = std::time::Instant::now();
            while start.elapsed().as_secs_f64() < 3.0 {
                interleaved(steps, &mut route, &mut hand);
            }
        }
        let m = Measured { case: case.replace(' ', "_"), project, reference, target };
        println!("{}", line(&m));
        self.rows.push(m.clone());
        m
    }

    /// Record an externally measured case (e.g. ns/step of two separate runs).
    pub fn record(&mut self, case: &str, project: f64, reference: f64, target: f64) {
        let m = Measured { case: case.replace(' ', "_"), project, reference, target };
        println!("{}", line(&m));
        self.rows.push(m);
    }

    /// Print every line again, with a mark for the cases above their target.
    pub fn print(&self, title: &str) {
        println!("\n{title}");
        for m in &self.rows {
            let mark = if m.ratio() <= m.target { "" } else { "   <-- above target" };
            println!("{}{mark}", line(m));
        }
    }
}

fn line(m: &Measured) -> String {
    format!("ratio {} {:.1} {:.1} {:.3} {}", m.case, m.project, m.reference, m.ratio(), m.target)
}
