//! The problem catalogue: every problem by name, with its parameters. A problem added to
//! [`ENTRIES`] is listed by `geomint list` and runs with every method of its family.

pub mod canonical;
pub mod groupoid;
pub mod lagrangian_system;
pub mod lie;
pub mod lie_system;
pub mod nbody;
pub mod nonholonomic;
pub mod planetary;
pub mod system;
pub mod time_dependent;

use crate::workbench::WorkbenchError;
use crate::workbench::chaos::PhaseSpace;
use crate::workbench::problem::{Family, Problem};
use canonical::{Canonical, HarmonicOscillator, HenonHeiles, Kepler, OuterSolarSystem, Pendulum};
use std::path::Path;
use std::sync::Mutex;

/// A problem parameter settable with `--param NAME=VALUE`.
#[derive(Debug, Clone, Copy)]
pub struct Param {
    /// Name.
    pub name: &'static str,
    /// Default value.
    pub default: f64,
    /// Meaning and admissible range.
    pub about: &'static str,
}

/// Builds a problem from its parameter values.
pub type Builder = fn(&[f64]) -> Result<Box<dyn Problem>, WorkbenchError>;

/// A catalogue entry: a name, its parameters and the constructor.
pub struct Entry {
    /// The problem's name.
    pub name: &'static str,
    /// Its parameters.
    pub params: &'static [Param],
    /// Builds the problem from parameter values (in the order of `params`).
    pub build: Builder,
}

/// The catalogue, in the order `geomint list` prints it.
pub const ENTRIES: &[Entry] = &[
    Entry {
        name: "harmonic-oscillator",
        params: &[Param { name: "omega", default: 1.0, about: "frequency ω > 0" }],
        build: |v| {
            if !(v[0].is_finite() && v[0] > 0.0) {
                return Err(WorkbenchError::Input(format!("omega must be finite and positive, got {}", v[0])));
            }
            Ok(Box::new(Canonical::<_, 1>::new(HarmonicOscillator { omega: v[0] })))
        },
    },
    Entry { name: "pendulum", params: &[], build: |_| Ok(Box::new(Canonical::<_, 1>::new(Pendulum))) },
    Entry {
        name: "kepler",
        params: &[Param { name: "e", default: 0.6, about: "eccentricity, 0 ≤ e < 1" }],
        build: |v| {
            if !(v[0].is_finite() && (0.0..1.0).contains(&v[0])) {
                return Err(WorkbenchError::Input(format!("eccentricity e must be in [0, 1), got {}", v[0])));
            }
            Ok(Box::new(Canonical::<_, 2>::new(Kepler { e: v[0] })))
        },
    },
    Entry { name: "henon-heiles", params: &[], build: |_| Ok(Box::new(Canonical::<_, 2>::new(HenonHeiles))) },
    Entry {
        name: "outer-solar-system",
        params: &[],
        build: |_| Ok(Box::new(Canonical::<_, 18>::new(OuterSolarSystem))),
    },
    Entry { name: "rigid-body", params: &[], build: |_| Ok(Box::new(lie::RigidBody::new()?)) },
    Entry { name: "heavy-top", params: &[], build: |_| Ok(Box::new(lie::HeavyTopProblem::new()?)) },
    Entry { name: "lagrange-top", params: &[], build: |_| Ok(Box::new(lie::LagrangeTopProblem::new()?)) },
    Entry { name: "underwater-vehicle", params: &[], build: |_| Ok(Box::new(lie::Vehicle::new()?)) },
    Entry { name: "spherical-pendulum", params: &[], build: |_| Ok(Box::new(groupoid::SphericalPendulum::new())) },
    Entry { name: "plate-ball", params: &[], build: |_| Ok(Box::new(groupoid::PlateBall::new())) },
    Entry { name: "so3-optimal-control", params: &[], build: |_| Ok(Box::new(groupoid::So3OptimalControl::new())) },
    Entry {
        name: "rolling-disk",
        params: &[],
        build: |_| Ok(Box::new(nonholonomic::Nonholonomic::new(nonholonomic::Disk::new()?))),
    },
    Entry {
        name: "chaplygin-sleigh",
        params: &[],
        build: |_| Ok(Box::new(nonholonomic::Nonholonomic::new(nonholonomic::Sleigh::new()?))),
    },
    Entry {
        name: "kepler-time",
        params: &[Param { name: "e", default: 0.6, about: "eccentricity, 0 ≤ e < 1" }],
        build: |v| {
            if !(v[0].is_finite() && (0.0..1.0).contains(&v[0])) {
                return Err(WorkbenchError::Input(format!("eccentricity e must be in [0, 1), got {}", v[0])));
            }
            Ok(Box::new(time_dependent::KeplerTime::new(v[0])))
        },
    },
];

/// The names of the catalogue.
pub fn names() -> Vec<&'static str> {
    ENTRIES.iter().map(|e| e.name).collect()
}

/// The problem's [`PhaseSpace`] ([`Problem::phase_space`]: Poincaré sections and MEGNO maps),
/// or an input error that names the problem `name`, its family and the problems of the catalogue
/// that have one: `'{name}' is a {family} problem, without Poincaré sections or MEGNO maps; {tool}
/// takes one of {…}, or {other}` (`tool` names the caller, e.g. `` `geomint chaos` ``; `other`
/// the systems it takes besides the catalogue's, e.g. `a Hamiltonian or Lie-group system file
/// (--system FILE.toml)`). A canonical problem without one (`nbody`, of any number of bodies):
/// `'{name}' has no Poincaré sections or MEGNO maps in the workbench; …`.
pub fn phase_space<'a>(
    of: &'a dyn Problem,
    name: &str,
    tool: &str,
    other: &str,
) -> Result<&'a dyn PhaseSpace, WorkbenchError> {
    of.phase_space().ok_or_else(|| {
        let with: Vec<&str> =
            names().into_iter().filter(|n| problem(n, &[]).is_ok_and(|p| p.phase_space().is_some())).collect();
        let what = match of.family() {
            Family::Canonical => "has no Poincaré sections or MEGNO maps in the workbench".to_string(),
            f => format!("is a {} problem, without Poincaré sections or MEGNO maps", f.name()),
        };
        WorkbenchError::Input(format!("'{name}' {what}; {tool} takes one of {}, or {other}", with.join(", ")))
    })
}

/// The problem `name` with parameters `params` (`(name, value)`, others at their defaults);
/// an unknown problem or parameter is an input error naming the nearest valid ones.
pub fn problem(name: &str, params: &[(String, f64)]) -> Result<Box<dyn Problem>, WorkbenchError> {
    let entry = ENTRIES.iter().find(|e| e.name == name).ok_or_else(|| {
        let mut valid = names();
        valid.extend([nbody::NAME, system::NAME]);
        WorkbenchError::Input(format!(
            "unknown problem '{name}'; {}",
            crate::workbench::suggest::did_you_mean(name, &valid)
        ))
    })?;
    (entry.build)(&param_values(name, entry.params, params)?)
}

/// The values of the parameters `declared` of the problem `name`: `given` (`(name, value)`)
/// where given, the defaults elsewhere; an unknown parameter is an input error naming the
/// nearest valid ones.
fn param_values(name: &str, declared: &[Param], given: &[(String, f64)]) -> Result<Vec<f64>, WorkbenchError> {
    let mut values: Vec<f64> = declared.iter().map(|p| p.default).collect();
    for (key, value) in given {
        let i = declared.iter().position(|p| p.name == key).ok_or_else(|| {
            let valid: Vec<&str> = declared.iter().map(|p| p.name).collect();
            WorkbenchError::Input(if valid.is_empty() {
                format!("problem '{name}' has no parameters (got '{key}')")
            } else {
                format!(
                    "unknown parameter '{key}' for '{name}'; {}",
                    crate::workbench::suggest::did_you_mean(key, &valid)
                )
            })
        })?;
        values[i] = *value;
    }
    Ok(values)
}

/// The catalogue problem `name` with `params`, started from `state` (coordinates of its
/// [`Problem::state_labels`]) instead of its own initial data: [`problem`], then
/// [`Problem::with_state`].
pub fn problem_with_state(
    name: &str,
    params: &[(String, f64)],
    state: &[f64],
) -> Result<Box<dyn Problem>, WorkbenchError> {
    problem(name, params)?.with_state(state)
}

/// The problem a run describes (`geomint run`, its config file, its checkpoint): the catalogue
/// problem `name` with `params`, or for `name = "nbody"` the N-body system of the file `system`
/// ([`nbody::Bodies::read`], parameter `G`); then started from `state` where one is given
/// ([`Problem::with_state`]). A system file for another problem, or `nbody` without one, is an
/// input error.
pub fn resolve(
    name: &str,
    params: &[(String, f64)],
    system: Option<&Path>,
    state: Option<&[f64]>,
) -> Result<Box<dyn Problem>, WorkbenchError> {
    let problem = match (name, system) {
        (nbody::NAME, Some(file)) => {
            let g = param_values(name, nbody::PARAMS, params)?[0];
            nbody::Bodies::read(file, g)?.problem()?
        }
        (system::NAME, Some(file)) => lie_system::read(file, params)?,
        (system::NAME, None) => {
            return Err(WorkbenchError::Input(format!(
                "problem '{}' needs its file: give --system FILE.toml (or system = \"FILE.toml\" in the config)",
                system::NAME
            )));
        }
        (nbody::NAME, None) => {
            return Err(WorkbenchError::Input(format!(
                "problem '{}' needs its bodies: give --system FILE (or system = \"FILE\" in the config)",
                nbody::NAME
            )));
        }
        (_, Some(file)) => {
            return Err(WorkbenchError::Input(format!(
                "--system {} applies to problems '{}' (a .toml system file) and '{}' (a file of bodies) only, not to '{name}'",
                file.display(),
                system::NAME,
                nbody::NAME
            )));
        }
        (_, None) => problem(name, params)?,
    };
    match state {
        Some(s) => problem.with_state(s),
        None => Ok(problem),
    }
}

/// `s` as a `&'static str`, leaked once per distinct string (the workbench's names and
/// summaries are static; a process that reads many files with the same names leaks nothing more).
pub fn intern(s: &str) -> &'static str {
    static SEEN: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());
    let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(k) = seen.iter().find(|k| **k == s) {
        return k;
    }
    let k: &'static str = Box::leak(s.to_string().into_boxed_str());
    seen.push(k);
    k
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workbench::experiment::{self, Normal, RunSpec};

    fn bits(v: &[f64]) -> Vec<u64> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    /// Every problem of the catalogue takes its own initial data back: the run of
    /// `with_state(initial_state())` is the catalogue's run, bit for bit (state, quantities,
    /// errors), for its first two methods.
    #[test]
    fn the_own_initial_data_reproduce_every_catalogue_run() {
        for name in names() {
            let p = problem(name, &[]).unwrap();
            let given = p.with_state(&p.initial_state().unwrap()).unwrap();
            assert_eq!(given.initial_state().unwrap(), p.initial_state().unwrap(), "{name}");
            let h = p.defaults().0;
            for m in p.methods().into_iter().take(2) {
                let spec = RunSpec::new(h, Some(12), None, 3).unwrap();
                let a = experiment::run(p.as_ref(), m, spec, &mut |_| {}).unwrap();
                let b = experiment::run(given.as_ref(), m, spec, &mut |_| {}).unwrap();
                for (x, y) in a.samples.iter().zip(&b.samples) {
                    assert_eq!(bits(&x.state), bits(&y.state), "{name} / {m} at step {}", x.step);
                    assert_eq!(bits(&x.values), bits(&y.values), "{name} / {m}");
                    assert_eq!(bits(&x.errors), bits(&y.errors), "{name} / {m}");
                }
            }
        }
    }

    /// A perturbed state is admissible (it passes `with_state`), differs from the base, and a
    /// run from it starts there; wrong lengths, non-finite values and states off the manifold
    /// or the constraints are one-line input errors naming the problem.
    #[test]
    fn given_states_are_checked_and_perturbations_stay_admissible() {
        let mut normal = Normal::new(3);
        for name in names() {
            let p = problem(name, &[]).unwrap();
            let s0 = p.initial_state().unwrap();
            let s = p.perturb(&s0, 1e-3, &mut || normal.sample());
            assert_eq!(s.len(), s0.len());
            let d = experiment::distance(&s, &s0);
            assert!(d > 1e-5 && d < 1e-1, "{name}: moved by {d:e}");
            let given = p.with_state(&s).unwrap();
            assert_eq!(bits(&given.initial_state().unwrap()), bits(&s), "{name}");
            for bad in [&s0[1..], &[s0.as_slice(), &[0.0]].concat()[..]] {
                let e = p.with_state(bad).err().map(|e| e.to_string()).unwrap_or_default();
                assert!(e.contains(&format!("a state of '{name}' has {} coordinates", s0.len())), "{e}");
            }
            let mut nan = s0.clone();
            nan[s0.len() - 1] = f64::NAN;
            let e = p.with_state(&nan).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(e.contains("must be finite, got NaN") && e.contains(name), "{e}");
        }
        let refused = |name: &str, state: Vec<f64>, what: &str| {
            let e = problem(name, &[]).unwrap().with_state(&state).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(e.contains(name) && e.contains(what) && !e.contains('\n'), "{name}: {e}");
        };
        let rotated = |s: &[f64], k: usize, f: f64| {
            let mut s = s.to_vec();
            s[k] *= f;
            s
        };
        let own = |name: &str| problem(name, &[]).unwrap().initial_state().unwrap();
        refused("rigid-body", rotated(&own("rigid-body"), 0, 1.1), "R is not a rotation");
        refused("heavy-top", rotated(&own("heavy-top"), 4, 0.9), "R is not a rotation");
        refused("lagrange-top", rotated(&own("lagrange-top"), 4, 0.9), "R is not a rotation");
        refused("underwater-vehicle", rotated(&own("underwater-vehicle"), 0, 1.01), "g is not in SE(3)");
        refused("spherical-pendulum", vec![0.6, 0.0, -0.7, 0.0, 1.2, 0.0], "not on the unit sphere");
        refused("spherical-pendulum", vec![0.6, 0.0, -0.8, 0.1, 1.2, 0.0], "not tangent");
        refused("plate-ball", rotated(&own("plate-ball"), 2, 2.0), "R is not a rotation");
        let mut xi3 = own("so3-optimal-control");
        xi3[11] = 1e-3;
        refused("so3-optimal-control", xi3, "violates the constraint");
        // a state within the tolerance is taken
        let mut near = own("spherical-pendulum");
        near[0] += 1e-12;
        assert!(problem("spherical-pendulum", &[]).unwrap().with_state(&near).is_ok());
    }

    /// A groupoid problem from another state runs another orbit: the spherical pendulum from a
    /// horizontal start keeps its constraint and its vertical momentum, and its energy differs
    /// from the default's.
    #[test]
    fn a_groupoid_problem_runs_from_a_given_state() {
        let p = problem_with_state("spherical-pendulum", &[], &[1.0, 0.0, 0.0, 0.0, 0.5, 0.3]).unwrap();
        let r = experiment::run(p.as_ref(), "rattle", RunSpec::new(0.01, Some(500), None, 50).unwrap(), &mut |_| {})
            .unwrap();
        let first = &r.samples[0];
        assert!((first.state[0] - 1.0).abs() < 1e-12 && first.state[2].abs() < 1e-12, "{:?}", first.state);
        // Noether's momentum to round-off; the constraint to Newton's tolerance 1e-14/h = 1e-12
        assert!(r.max_error(1) < 1e-12 && r.max_error(2) < 2e-12, "{:e} {:e}", r.max_error(1), r.max_error(2));
        let default = experiment::run(
            problem("spherical-pendulum", &[]).unwrap().as_ref(),
            "rattle",
            RunSpec::new(0.01, Some(1), None, 1).unwrap(),
            &mut |_| {},
        )
        .unwrap();
        assert!((first.values[0] - default.samples[0].values[0]).abs() > 1.0);
    }

    #[test]
    fn resolve_routes_and_refuses() {
        let e = |r: Result<Box<dyn Problem>, WorkbenchError>| r.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(e(resolve("nbody", &[], None, None)).contains("--system FILE"));
        assert!(e(resolve("kepler", &[], Some(Path::new("b.csv")), None)).contains("applies to problems 'system'"));
        assert!(e(resolve("system", &[], None, None)).contains("--system FILE.toml"));
        assert!(e(resolve("system", &[], Some(Path::new("/nonexistent/s.toml")), None)).contains("cannot read"));
        assert!(e(resolve("nbody", &[], Some(Path::new("/nonexistent/b.csv")), None)).contains("cannot read"));
        assert!(e(resolve("kepler", &[], None, Some(&[1.0]))).contains("has 4 coordinates"));
        assert!(e(problem("nbdy", &[])).contains("did you mean 'nbody'"));
        let k = resolve("kepler", &[("e".into(), 0.3)], None, Some(&[0.5, 0.0, 0.0, 1.5])).unwrap();
        assert_eq!(k.initial_state().unwrap(), vec![0.5, 0.0, 0.0, 1.5]);
        assert!(k.exact(1.0).is_none(), "the exact solution is that of the catalogue's data");
    }
}
