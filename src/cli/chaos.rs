//! `geomint chaos`: a MEGNO chaos map of a problem on `T*R^n` or `T*G`, `⟨Y⟩` over a grid of
//! initial conditions ([`geomint::workbench::chaos`]), in parallel on a bounded pool.

use crate::cli::args::ChaosArgs;
use crate::cli::files::{with_output_dir, write_outputs};
use crate::cli::format::short;
use crate::cli::poincare::{canonical_problem, step};
use crate::cli::progress::progress;
use geomint::workbench::WorkbenchError;
use geomint::workbench::chaos::{self, PhaseSpace};
use geomint::workbench::experiment::MAX_STEPS;
use geomint::workbench::output::OutputSet;
use geomint::workbench::plot::{self, Axes, HeatMap};
use geomint::workbench::problem;
use std::path::PathBuf;

/// `⟨Y⟩` below this marks a regular (quasi-periodic) orbit: `⟨Y⟩ → 2` on a torus, `⟨Y⟩ ≈ λt/2`
/// grows on a chaotic one (Cincotta & Simó 2000); 2.5 leaves room for the `O(1/t)` approach.
pub(crate) const REGULAR_BELOW: f64 = 2.5;

/// `NxM`: the grid's points per row and rows, each at least 1.
fn parse_grid(text: &str) -> Result<(usize, usize), WorkbenchError> {
    let bad = || WorkbenchError::Input(format!("--grid '{text}': expected NxM with N, M ≥ 1, e.g. --grid 40x40"));
    let (a, b) = text.split_once(['x', 'X']).ok_or_else(bad)?;
    let (a, b): (usize, usize) = (a.trim().parse().map_err(|_| bad())?, b.trim().parse().map_err(|_| bad())?);
    if a == 0 || b == 0 {
        return Err(bad());
    }
    Ok((a, b))
}

/// `A0:A1,B0:B1`: the rectangle of the plane, each range finite and increasing.
fn parse_range(text: &str) -> Result<chaos::Rect, WorkbenchError> {
    let bad = |why: &str| {
        WorkbenchError::Input(format!("--range '{text}': {why}; expected A0:A1,B0:B1, e.g. --range=-0.5:0.7,-0.5:0.5"))
    };
    let one = |s: &str| -> Result<(f64, f64), WorkbenchError> {
        let (a, b) = s.split_once(':').ok_or_else(|| bad("a range needs a ':'"))?;
        let (a, b): (f64, f64) =
            (a.trim().parse().map_err(|_| bad("not a number"))?, b.trim().parse().map_err(|_| bad("not a number"))?);
        if !(a.is_finite() && b.is_finite() && b > a) {
            return Err(bad("each range must be finite with A0 < A1"));
        }
        Ok((a, b))
    };
    let (x, y) = text.split_once(',').ok_or_else(|| bad("two ranges expected"))?;
    Ok((one(x)?, one(y)?))
}

/// `geomint chaos PROBLEM`: the grid of initial states on the plane of
/// [`chaos::Layout::chaos_plane`] (`T*R^n`, `n ≥ 2`: `(q_2, p_2)` on the section `q_1 = 0` at
/// energy `E`, `p_1 ≥ 0` solved from it, points off the level skipped; `n = 1`: the plane
/// `(q_1, p_1)`; `T*G`: `(μ_2, μ_3)` at the initial `g`, `μ_1 ≥ 0` from `E`), the MEGNO of each
/// after `t_end`, chaos.csv, chaos.svg and a summary (the fractions with `⟨Y⟩ < 2.5` and above,
/// the largest Lyapunov estimate).
pub(crate) fn chaos(args: ChaosArgs, quiet: bool) -> Result<(), WorkbenchError> {
    let (name, problem) =
        canonical_problem(args.problem.as_deref(), &args.params, args.system.as_deref(), None, "chaos")?;
    let space: &dyn PhaseSpace =
        problem.phase_space().ok_or_else(|| WorkbenchError::Input("not a problem with MEGNO maps".into()))?;
    let method_name = args.method.clone().unwrap_or_else(|| problem.methods()[0].to_string());
    let method = problem::check_method(problem.as_ref(), &method_name)?;
    let h = step(problem.as_ref(), args.h)?;
    if !(args.t_end.is_finite() && args.t_end > 0.0) {
        return Err(WorkbenchError::Input(format!("--t-end must be a positive finite time, got {}", args.t_end)));
    }
    let steps = (args.t_end / h).round().max(1.0);
    if steps > MAX_STEPS as f64 {
        return Err(WorkbenchError::Input(format!(
            "--t-end {} at h = {h} is {steps:e} steps per orbit, more than {MAX_STEPS}",
            args.t_end
        )));
    }
    let steps = steps as usize;
    let (nx, ny) = parse_grid(&args.grid)?;
    if nx.checked_mul(ny).is_none_or(|k| k > chaos::MAX_ORBITS) {
        return Err(WorkbenchError::Input(format!(
            "--grid {}: more than {} points (a 1000x1000 map)",
            args.grid,
            chaos::MAX_ORBITS
        )));
    }
    if args.threads == Some(0) {
        return Err(WorkbenchError::Input("--threads must be at least 1, got 0".into()));
    }
    let labels = problem.state_labels();
    let layout = space.layout();
    let mut base = problem.initial_state()?;
    let chaos_plane = layout.chaos_plane().ok_or_else(|| {
        WorkbenchError::Input(format!("'{}' has too few degrees of freedom for a chaos map", problem.name()))
    })?;
    let axes_of = chaos_plane.plane;
    // on a level: the section (T*R^n: q1 = 0) and the momentum solved from the energy
    let energy = match chaos_plane.solve {
        Some(k) => {
            let e = args.energy.unwrap_or(space.energy(&base)?);
            if !e.is_finite() {
                return Err(WorkbenchError::Input(format!("--energy must be finite, got {e}")));
            }
            if let Some(z) = chaos_plane.zero {
                base[z] = 0.0;
            }
            Some((k, e))
        }
        None => {
            if args.energy.is_some() {
                return Err(WorkbenchError::Input(format!(
                    "--energy applies to problems of two or more degrees of freedom on T*R^n and three or more on T*G; '{}' has {} (its map is over ({}, {}))",
                    problem.name(),
                    layout.momenta(),
                    labels[axes_of.0],
                    labels[axes_of.1]
                )));
            }
            None
        }
    };
    let range = match (&args.range, energy) {
        (Some(r), _) => parse_range(r)?,
        (None, Some((k, e))) => chaos::energy_box(space, &base, axes_of, k, e).ok_or_else(|| {
            WorkbenchError::Input(format!(
                "no point of the plane ({}, {}) reaches the energy {e}; give --range or another --energy",
                labels[axes_of.0], labels[axes_of.1]
            ))
        })?,
        (None, None) => {
            let r = 2.0 * base.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(0.5);
            ((-r, r), (-r, r))
        }
    };
    let grid = chaos::energy_grid(space, &base, axes_of, range, (nx, ny), energy);
    let states: Vec<Vec<f64>> = grid.iter().filter_map(|g| g.state.clone()).collect();
    if states.is_empty() {
        return Err(WorkbenchError::Input(
            "no point of the grid lies on the energy level; change --range or --energy".into(),
        ));
    }
    let out = args.out.clone().unwrap_or_else(|| PathBuf::from(format!("runs/{name}-chaos")));
    with_output_dir(&out, || {
        let bar = progress(1, quiet, &format!("{} chaos map, {} orbits", problem.name(), states.len()));
        let t0 = std::time::Instant::now();
        let work = || space.megno(method, h, steps, &states, None);
        let (values, threads) = match args.threads {
            None => (work()?, rayon::current_num_threads()),
            Some(k) => {
                let (v, t) = integrators::driver::with_threads(k, || (work(), rayon::current_num_threads()))
                    .map_err(|e| WorkbenchError::Input(format!("--threads: {e}")))?;
                (v?, t)
            }
        };
        let seconds = t0.elapsed().as_secs_f64();
        bar.finish_and_clear();
        let mut values = values.into_iter();
        let mut csv = format!("{},{},megno,lyapunov,{}\n", labels[axes_of.0], labels[axes_of.1], labels.join(","));
        let mut cells: Vec<Option<f64>> = Vec::with_capacity(grid.len());
        let (mut regular, mut chaotic, mut failed) = (0usize, 0usize, 0usize);
        let mut max_lyapunov = f64::NEG_INFINITY;
        let mut max_mean = f64::NEG_INFINITY;
        for g in &grid {
            let value = if g.state.is_some() { values.next().flatten() } else { None };
            let state = g
                .state
                .as_ref()
                .map_or(vec![String::new(); labels.len()], |s| s.iter().map(|v| format!("{v:e}")).collect());
            match (&g.state, value) {
                (Some(_), Some(v)) => {
                    if v.mean < REGULAR_BELOW {
                        regular += 1;
                    } else {
                        chaotic += 1;
                    }
                    max_lyapunov = max_lyapunov.max(v.lyapunov);
                    max_mean = max_mean.max(v.mean);
                    csv += &format!("{:e},{:e},{:e},{:e},{}\n", g.at.0, g.at.1, v.mean, v.lyapunov, state.join(","));
                }
                (Some(_), None) => {
                    failed += 1;
                    csv += &format!("{:e},{:e},failed,failed,{}\n", g.at.0, g.at.1, state.join(","));
                }
                (None, _) => csv += &format!("{:e},{:e},,,{}\n", g.at.0, g.at.1, state.join(",")),
            }
            cells.push(value.map(|v| v.mean));
        }
        let done = regular + chaotic;
        let pct = |k: usize| if done == 0 { 0.0 } else { 100.0 * k as f64 / done as f64 };
        let where_ = match (energy, chaos_plane.zero) {
            (Some((k, e)), Some(z)) => format!("{} = 0, {} ≥ 0 from H = {}", labels[z], labels[k], short(e)),
            (Some((k, e)), None) => format!("{} ≥ 0 from H = {}, the rest from the initial state", labels[k], short(e)),
            (None, _) => "the whole plane".into(),
        };
        say!(
            "{} with {}, h = {}, {} steps to t = {}: MEGNO map over ({}, {}) ∈ [{}, {}] × [{}, {}], {}",
            problem.name(),
            method.name,
            short(h),
            steps,
            short(steps as f64 * h),
            labels[axes_of.0],
            labels[axes_of.1],
            short(range.0.0),
            short(range.0.1),
            short(range.1.0),
            short(range.1.1),
            where_
        );
        say!(
            "  {:<30} {} of {} grid points ({:.3} s on {threads} threads)",
            "orbits integrated",
            states.len(),
            grid.len(),
            seconds
        );
        say!("  {:<30} {regular} ({:.1}%)", format!("regular, ⟨Y⟩ < {REGULAR_BELOW}"), pct(regular));
        say!("  {:<30} {chaotic} ({:.1}%)", format!("chaotic, ⟨Y⟩ ≥ {REGULAR_BELOW}"), pct(chaotic));
        if failed > 0 {
            say!("  {:<30} {failed}", "failed (step error, escape)");
        }
        say!("  {:<30} {}", "largest ⟨Y⟩", if max_mean.is_finite() { short(max_mean) } else { "n/a".into() });
        say!(
            "  {:<30} {}",
            "largest Lyapunov estimate",
            if max_lyapunov.is_finite() { format!("{max_lyapunov:.4e}") } else { "n/a".into() }
        );
        let hi = if max_mean.is_finite() { max_mean.clamp(8.0, 20.0) } else { 8.0 };
        let title = format!(
            "{}: MEGNO ⟨Y⟩ at t = {}, {} h = {}",
            problem.name(),
            short(steps as f64 * h),
            method.name,
            short(h)
        );
        let axes = Axes::new(title, labels[axes_of.0].clone(), labels[axes_of.1].clone());
        let map =
            HeatMap { values: &cells, cells: (nx, ny), range, limits: (0.0, hi), bar: "⟨Y⟩ (2: regular)".into() };
        let mut files = OutputSet::new();
        files.add("chaos.csv", csv);
        files.add("chaos.svg", plot::heatmap_svg(&axes, &map)?);
        write_outputs(files, &out)
    })
}
