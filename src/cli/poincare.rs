//! `geomint poincare`: the Poincaré section of a problem on `T*R^n` or `T*G`, its crossings of a hyperplane
//! `x_i = c` located by the library's event location ([`geomint::workbench::chaos`]).

use crate::cli::args::PoincareArgs;
use crate::cli::files::{with_output_dir, write_outputs};
use crate::cli::format::short;
use crate::cli::params::parse_params;
use crate::cli::resolve::resolve_problem;
use geomint::workbench::chaos::{self, Layout, PhaseSpace, Section};
use geomint::workbench::experiment::{MAX_SAMPLES, MAX_STEPS};
use geomint::workbench::output::OutputSet;
use geomint::workbench::plot::{self, Axes};
use geomint::workbench::problem::{self, Problem};
use geomint::workbench::{WorkbenchError, catalogue};
use std::path::{Path, PathBuf};

/// The problem `name` or the system file `system` (with `--param`s and `--state`,
/// [`resolve_problem`]) with a [`geomint::workbench::chaos::PhaseSpace`], and its name; an input
/// error naming the problems with one when it has none (`command` names the command).
pub(crate) fn canonical_problem(
    name: Option<&str>,
    params: &[String],
    system: Option<&Path>,
    state: Option<&[f64]>,
    command: &str,
) -> Result<(String, Box<dyn Problem>), WorkbenchError> {
    let params = parse_params(params)?.into_iter().collect();
    let system = system.map(|p| p.display().to_string());
    let resolved = resolve_problem(name, &params, system.as_deref(), state)?;
    catalogue::phase_space(
        resolved.problem.as_ref(),
        &resolved.name,
        &format!("`geomint {command}`"),
        "a Hamiltonian or Lie-group system file (--system FILE.toml)",
    )?;
    Ok((resolved.name, resolved.problem))
}

/// The step `--h` (default: the problem's): an input error naming the flag unless finite and
/// positive.
pub(crate) fn step(problem: &dyn Problem, h: Option<f64>) -> Result<f64, WorkbenchError> {
    let h = h.unwrap_or(problem.defaults().0);
    if !(h.is_finite() && h > 0.0) {
        return Err(WorkbenchError::Input(format!("--h must be a positive finite step, got {h}")));
    }
    Ok(h)
}

/// `geomint poincare PROBLEM`: the crossings of the section, section.csv, section.svg and a
/// summary (problem, method, h, crossings found, the largest energy error at them, the section).
pub(crate) fn poincare(args: PoincareArgs) -> Result<(), WorkbenchError> {
    let (name, problem) = canonical_problem(
        args.problem.as_deref(),
        &args.params,
        args.system.as_deref(),
        args.state.as_deref(),
        "poincare",
    )?;
    let space: &dyn PhaseSpace =
        problem.phase_space().ok_or_else(|| WorkbenchError::Input("not a problem with Poincaré sections".into()))?;
    let layout = space.layout();
    let method_name = args.method.clone().unwrap_or_else(|| problem.methods()[0].to_string());
    let method = problem::check_method(problem.as_ref(), &method_name)?;
    let h = step(problem.as_ref(), args.h)?;
    if args.crossings == 0 || args.crossings > MAX_SAMPLES {
        return Err(WorkbenchError::Input(format!(
            "--crossings must be from 1 to {MAX_SAMPLES} (held in memory), got {}",
            args.crossings
        )));
    }
    let labels = problem.state_labels();
    let default = format!("{}=0", labels[layout.default_section()]);
    let section = Section::parse(args.section.as_deref().unwrap_or(&default), &args.direction, &labels)?;
    let t_max = args.t_max.unwrap_or(50.0 * args.crossings as f64);
    if !(t_max.is_finite() && t_max > 0.0) {
        return Err(WorkbenchError::Input(format!("--t-max must be a positive finite time, got {t_max}")));
    }
    let max_steps = (t_max / h).ceil();
    if max_steps > MAX_STEPS as f64 {
        return Err(WorkbenchError::Input(format!(
            "--t-max {t_max} at h = {h} is {max_steps:e} steps per orbit, more than {MAX_STEPS} (give a smaller --t-max)"
        )));
    }
    let max_steps = max_steps as usize;
    let x0 = problem.initial_state()?;
    let e0 = space.energy(&x0)?;
    let starts = match (args.states, layout) {
        (None, _) => vec![x0.clone()],
        (Some(k), Layout::Canonical { .. }) => spread_states(space, &x0, &section, k)?,
        (Some(_), Layout::Lie { .. }) => {
            return Err(WorkbenchError::Input(
                "--states spreads states over a section of T*R^n; on a Lie group give one state (--state)".into(),
            ));
        }
    };
    // every crossing is a row held in memory until section.csv is written
    if args.crossings.checked_mul(starts.len()).is_none_or(|k| k > MAX_SAMPLES) {
        return Err(WorkbenchError::Input(format!(
            "--crossings {} on {} orbit(s): more than {MAX_SAMPLES} crossings held in memory",
            args.crossings,
            starts.len()
        )));
    }
    let out = args.out.clone().unwrap_or_else(|| PathBuf::from(format!("runs/{name}-poincare")));
    with_output_dir(&out, || {
        let t0 = std::time::Instant::now();
        let mut orbits = Vec::with_capacity(starts.len());
        for x in &starts {
            orbits.push(space.section(method, h, x, &section, args.crossings, max_steps, None)?);
        }
        let seconds = t0.elapsed().as_secs_f64();
        let mut csv = format!("orbit,crossing,t,{},energy,energy_error\n", labels.join(","));
        let (mut max_err, mut max_rel, mut max_offset, mut t_last) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
        for (i, (x, found)) in starts.iter().zip(&orbits).enumerate() {
            let e_start = space.energy(x)?;
            for (k, c) in found.iter().enumerate() {
                let e = space.energy(&c.state)?;
                max_err = max_err.max((e - e_start).abs());
                if e_start != 0.0 {
                    max_rel = max_rel.max((e - e_start).abs() / e_start.abs());
                }
                max_offset = max_offset.max((c.state[section.index] - section.level).abs());
                t_last = t_last.max(c.t);
                let xs: Vec<String> = c.state.iter().map(|v| format!("{v:e}")).collect();
                csv += &format!("{i},{k},{:e},{},{e:e},{:e}\n", c.t, xs.join(","), e - e_start);
            }
        }
        let ((a, b), (xl, yl)) = match layout.plane(section.index) {
            Some((a, b)) => ((Some(a), b), (labels[a].clone(), labels[b].clone())),
            None => {
                let other = layout.against_time(section.index);
                ((None, other), ("t".to_string(), labels[other].clone()))
            }
        };
        let points: Vec<Vec<(f64, f64)>> = orbits
            .iter()
            .map(|found| found.iter().map(|c| (a.map_or(c.t, |a| c.state[a]), c.state[b])).collect())
            .collect();
        let found: usize = orbits.iter().map(Vec::len).sum();
        let asked = args.crossings * starts.len();
        let from = match args.states {
            None => format!("from ({})", x0.iter().map(|v| short(*v)).collect::<Vec<_>>().join(", ")),
            Some(_) => format!("from {} states on the section at H = {}", starts.len(), short(e0)),
        };
        say!(
            "{} with {}, h = {}: Poincaré section {} {from}",
            problem.name(),
            method.name,
            short(h),
            section.describe()
        );
        say!("  {:<34} {found} of {asked} (to t = {}, {:.3} s)", "crossings found", short(t_last), seconds);
        say!("  {:<34} {}", "energy H(x0)", short(e0));
        say!("  {:<34} {:.3e} (relative {:.3e})", "max |H − H(x0)| at the crossings", max_err, max_rel);
        say!("  {:<34} {:.3e}", format!("max |{} − {}| at the crossings", section.label, section.level), max_offset);
        say!("  {:<34} ({xl}, {yl})", "plotted");
        if found < asked {
            eprintln!(
                "warning: {found} of {asked} crossings found by t = {} (raise --t-max or check that the orbits cross {})",
                short(t_max),
                section.label
            );
        }
        let title =
            format!("{}: Poincaré section {}, {} h = {}", problem.name(), section.describe(), method.name, short(h));
        let axes = Axes::new(title, xl, yl);
        let mut files = OutputSet::new();
        files.add("section.csv", csv);
        files.add("section.svg", plot::scatter_svg(&axes, &points)?);
        write_outputs(files, &out)
    })
}

/// `k` initial states on the section at the energy `E = H(x0)`: `x_d = c` (the section's
/// position coordinate), `q_j` spread evenly over the part of its axis that reaches the level
/// (`p_j = 0`, the other coordinates from `x0`; [`chaos::energy_box`], [`chaos::energy_grid`]),
/// and `p_d ≥ 0` solved from `H = E`; the points off the level are dropped.
fn spread_states(
    space: &dyn PhaseSpace,
    x0: &[f64],
    section: &Section,
    k: usize,
) -> Result<Vec<Vec<f64>>, WorkbenchError> {
    let n = space.degrees_of_freedom();
    if k == 0 || k > chaos::MAX_ORBITS {
        return Err(WorkbenchError::Input(format!("--states must be from 1 to {}, got {k}", chaos::MAX_ORBITS)));
    }
    let Some(p) = space.layout().plane(section.index).filter(|_| section.index < n) else {
        return Err(WorkbenchError::Input(
            "--states needs a section on a position coordinate (q1, q2, …) of a problem with two or more degrees of freedom".into(),
        ));
    };
    let e = space.energy(x0)?;
    let mut base = x0.to_vec();
    base[section.index] = section.level;
    base[p.1] = 0.0;
    let momentum = n + section.index;
    let none = || {
        WorkbenchError::Input(format!(
            "--states: no state on {} = {} reaches the energy {e}",
            section.label, section.level
        ))
    };
    let ((a0, a1), _) = chaos::energy_box(space, &base, p, momentum, e).ok_or_else(none)?;
    let states: Vec<Vec<f64>> =
        chaos::energy_grid(space, &base, p, ((a0, a1), (0.0, 0.0)), (k, 1), Some((momentum, e)))
            .into_iter()
            .filter_map(|g| g.state)
            .collect();
    if states.is_empty() {
        return Err(none());
    }
    Ok(states)
}
