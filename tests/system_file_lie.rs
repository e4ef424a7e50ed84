//! A user's rigid body on SO(3) in a TOML system file (`group = "SO(3)"`, problem `system`,
//! `geomint::workbench::catalogue::lie_system`): the heavy top written as a formula in the entries
//! of `R` is the catalogue's `heavy-top` step for step, a body without potential is
//! `rigid-body`, the torque from the formula's `∂V/∂R` is the left-trivialized gradient, every
//! Lie-group method runs with the invariants the symmetry gives, and bad files are one error
//! naming the field.

use geom_core::lie::{LieGroup, So3};
use geom_core::step::LieState;
use geomint::workbench::catalogue::{self, lie_system};
use geomint::workbench::experiment::{self, RunResult, RunSpec};
use geomint::workbench::problem::Problem;
use integrators::hp::{self, KineticPotential, LeftLagrangian, PotentialGradient};
use integrators::models::HeavyTop;
use nalgebra::{Const, Matrix3, U1, Vector3};
use num_dual::{Derivative, DualSVec64};
use std::path::{Path, PathBuf};
use std::process::Command;

struct TempDir(PathBuf);

impl TempDir {
    fn new(test: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("geomint-lie-system-{}-{test}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create the temporary directory");
        Self(dir)
    }
    fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, text).expect("write");
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/systems").join(name)
}

fn run(problem: &dyn Problem, method: &str, h: f64, steps: usize, every: usize) -> RunResult {
    let spec = RunSpec::new(h, Some(steps), None, every).unwrap();
    experiment::run(problem, method, spec, &mut |_| {}).unwrap_or_else(|e| panic!("{method}: {e}"))
}

/// The largest difference between the states of two runs, sample by sample.
fn gap(a: &RunResult, b: &RunResult) -> f64 {
    assert_eq!(a.samples.len(), b.samples.len());
    a.samples
        .iter()
        .zip(&b.samples)
        .flat_map(|(x, y)| x.state.iter().zip(&y.state).map(|(u, v)| (u - v).abs()))
        .fold(0.0, f64::max)
}

/// The example file is the catalogue's heavy top (`I = diag(2, 2.5, 1)`, `mgl = 1`,
/// `χ ∝ (0.1, 0, 1)`, same initial state) with `V = mgl e3·(Rχ)` as a formula: HP Störmer–Verlet
/// and the midpoint cotangent lift (exp chart) follow the catalogue's closed-form model step for
/// step over 10³ steps, to 1e-13; the quantities are the heavy top's, and the vertical momentum
/// is conserved to round-off (the potential depends on the third row of `R` only).
#[test]
fn the_heavy_top_file_is_the_catalogues_heavy_top_step_for_step() {
    let file = catalogue::resolve("system", &[], Some(&example("heavy_top.toml")), None).unwrap();
    let top = catalogue::problem("heavy-top", &[]).unwrap();
    // the file's χ is the catalogue's normalised χ, bit for bit
    let model =
        HeavyTop::new(Matrix3::from_diagonal(&Vector3::new(2.0, 2.5, 1.0)), 1.0, Vector3::new(0.1, 0.0, 1.0)).unwrap();
    assert_eq!(model.chi(), &Vector3::new(0.09950371902099893, 0.0, 0.9950371902099893));
    assert_eq!(file.initial_state().unwrap(), top.initial_state().unwrap());
    assert_eq!(file.state_labels(), top.state_labels());
    assert_eq!(file.name(), "system");
    let names: Vec<&str> = file.quantities().iter().map(|q| q.name).collect();
    assert_eq!(names, ["energy", "vertical_momentum", "group_defect"]);
    assert_eq!(file.methods(), top.methods(), "every Lie-group method but the Lie–Poisson ones");
    for method in ["hp-sv", "lift-midpoint-exp"] {
        let (a, b) = (run(file.as_ref(), method, 0.01, 1000, 1), run(top.as_ref(), method, 0.01, 1000, 1));
        let d = gap(&a, &b);
        assert!(d <= 1e-13, "{method}: the formula heavy top is {d:e} from the catalogue's");
        // the motion is not trivial: R and Π moved by O(1)
        let moved =
            a.samples[0].state.iter().zip(&a.samples[1000].state).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
        assert!(moved > 0.1, "{method}: moved by {moved}");
        // the energy is the catalogue's energy, the vertical momentum is conserved to round-off
        let (e, e_top) = (a.samples[500].values[0], b.samples[500].values[0]);
        assert!((e - e_top).abs() < 1e-13, "{method}: energy {e} against {e_top}");
        assert!(a.max_error(1) < 1e-13, "{method}: vertical momentum error {:e}", a.max_error(1));
        assert!(a.max_error(0) < 1e-3, "{method}: energy error {:e}", a.max_error(0));
    }
}

/// Another top, `mgl = 2.7`, a full inertia tensor, `χ` off the axes, a tilted start: the
/// formula top and the catalogue's closed-form model (`HeavyTopProblem::custom`) differ by the
/// round-off of their arithmetic (`mgl` multiplies the gradient, not the torque), which stays
/// below 1e-13 over 10³ steps for HP Störmer–Verlet and the midpoint lift.
#[test]
fn another_formula_top_follows_the_closed_form_model_to_round_off() {
    let tmp = TempDir::new("top");
    let inertia = Matrix3::new(2.0, 0.1, -0.05, 0.1, 1.5, 0.2, -0.05, 0.2, 1.0);
    let model = HeavyTop::new(inertia, 2.7, Vector3::new(0.3, -0.2, 1.0)).unwrap();
    let chi = model.chi();
    let text = format!(
        "group = \"SO(3)\"\ninertia = [[2.0, 0.1, -0.05], [0.1, 1.5, 0.2], [-0.05, 0.2, 1.0]]\n\
         V = \"mgl*(r31*c1 + r32*c2 + r33*c3)\"\nR0_axis_angle = [0.9, -0.4, 0.3]\nPi0 = [0.8, -0.5, 1.5]\n\
         [params]\nmgl = 2.7\nc1 = {:?}\nc2 = {:?}\nc3 = {:?}\n",
        chi[0], chi[1], chi[2]
    );
    let file = catalogue::resolve("system", &[], Some(&tmp.write("top.toml", &text)), None).unwrap();
    let top = geomint::workbench::catalogue::lie::HeavyTopProblem::custom(
        &inertia,
        2.7,
        &Vector3::new(0.3, -0.2, 1.0),
        &file.initial_state().unwrap(),
    )
    .unwrap();
    let mut differs = false;
    for method in ["hp-sv", "lift-midpoint-exp"] {
        let (a, b) = (run(file.as_ref(), method, 0.01, 1000, 1), run(&top, method, 0.01, 1000, 1));
        let d = gap(&a, &b);
        assert!(d <= 1e-13, "{method}: the formula top is {d:e} from the model");
        differs |= d > 0.0;
        assert!(a.max_error(1) < 1e-13, "{method}: vertical momentum error {:e}", a.max_error(1));
    }
    assert!(differs, "bit-identical: the comparison would not see a difference of arithmetic");
}

/// Every method the file offers runs from it, stays on SO(3), and keeps the vertical momentum:
/// to round-off for the symplectic and variational methods (Noether), to the method's error
/// for the non-symplectic baselines; and each follows the catalogue's method to its own
/// accuracy (the same method on the same equations, so to round-off amplified by the flow).
#[test]
fn every_lie_group_method_runs_on_the_file() {
    let file = catalogue::resolve("system", &[], Some(&example("heavy_top.toml")), None).unwrap();
    let top = catalogue::problem("heavy-top", &[]).unwrap();
    for method in file.methods() {
        let (a, b) = (run(file.as_ref(), method, 0.01, 200, 10), run(top.as_ref(), method, 0.01, 200, 10));
        let d = gap(&a, &b);
        assert!(d < 1e-10, "{method}: {d:e} from the catalogue's");
        assert!(a.max_error(2) < 1e-9 || method.ends_with("-embedded"), "{method}: defect {:e}", a.max_error(2));
        let info = geomint::workbench::methods::find(method).unwrap();
        let noether = !matches!(
            info.structure,
            geomint::workbench::methods::Structure::GroupOnly | geomint::workbench::methods::Structure::None
        );
        if noether {
            assert!(a.max_error(1) < 1e-12, "{method}: vertical momentum error {:e}", a.max_error(1));
        }
    }
}

/// A file without `V` is the catalogue's free rigid body with the same data, bit for bit, for
/// the default method, a cotangent lift, LGVI and a Lie–Poisson method; it reports the
/// Casimir `|Π|²`, conserved to round-off.
#[test]
fn a_free_body_file_is_the_catalogues_rigid_body() {
    let tmp = TempDir::new("free");
    let text = format!(
        "group = \"SO(3)\"\ninertia = [2.0, 1.0, {:?}]\nR0_axis_angle = [0.3, -0.2, 0.5]\nPi0 = [{:?}, 0.0, {:?}]\nh = 0.05\n",
        2.0 / 3.0,
        1.1f64.cos(),
        1.1f64.sin()
    );
    let file = catalogue::resolve("system", &[], Some(&tmp.write("free.toml", &text)), None).unwrap();
    let body = catalogue::problem("rigid-body", &[]).unwrap();
    assert_eq!(file.name(), "system");
    assert_eq!(file.methods(), body.methods());
    let names: Vec<&str> = file.quantities().iter().map(|q| q.name).collect();
    assert!(names.contains(&"casimir"), "{names:?}");
    for method in ["hp-sv", "lift-midpoint-exp", "lgvi", "lie-poisson-midpoint-cayley"] {
        let (a, b) = (run(file.as_ref(), method, 0.05, 1000, 1), run(body.as_ref(), method, 0.05, 1000, 1));
        assert_eq!(gap(&a, &b), 0.0, "{method}");
        assert!(a.max_error(1) < 1e-13, "{method}: Casimir error {:e}", a.max_error(1));
    }
}

/// The torque of a formula potential is minus the left-trivialized gradient
/// `<dV, η> = d/dε V(R exp(εη̂))`, here computed by AD through the group (`hp::AutoDiff`) for a
/// potential with no symmetry, at f64 (the compiled `∂V/∂R`) and at the dual numbers of the
/// Newton Jacobian (AD in the nine entries) against central differences.
#[test]
fn the_torque_is_the_left_trivialized_gradient_of_the_formula() {
    let text = "k*(r12^2 + sin(r21)*r33) - r13*r31/(2 + r22)";
    let potential = lie_system::FormulaPotential::parse(text, &[("k", 0.7)]).unwrap();
    assert!(!potential.depends_on_third_row_only());
    let inertia = Matrix3::new(2.0, 0.1, 0.0, 0.1, 1.5, 0.2, 0.0, 0.2, 1.0);
    let body = KineticPotential::new(inertia, potential.clone()).unwrap();
    for (i, theta) in [Vector3::new(0.3, -0.2, 0.5), Vector3::new(-1.2, 0.7, 2.1), Vector3::zeros()].iter().enumerate()
    {
        let r = So3.exp(theta);
        let by_ad = LeftLagrangian::<f64, So3, 3>::force(&hp::AutoDiff(&body), &So3, &r, &Vector3::zeros()).unwrap();
        let torque = potential.torque(&r);
        assert!((torque - by_ad).norm() < 1e-14, "R {i}: {torque} against {by_ad}");
        assert!(torque.norm() > 1e-3, "R {i}: a trivial torque");
        // at the dual numbers: d/ds dV(R exp(s η̂)) against central differences
        let eta = Vector3::new(0.4, -0.1, 0.3);
        let ds = DualSVec64::<3>::new(0.0, Derivative::derivative_generic(Const::<3>, U1, 0));
        let rd: Matrix3<DualSVec64<3>> =
            r.map(DualSVec64::from_re) * LieGroup::<DualSVec64<3>, 3>::exp(&So3, &eta.map(|e| ds * e));
        let dual = PotentialGradient::<DualSVec64<3>, So3, 3>::left_gradient(&potential, &So3, &rd).unwrap();
        let s = 1e-6;
        let fd =
            (potential.torque(&(r * So3.exp(&(eta * s)))) - potential.torque(&(r * So3.exp(&(eta * -s))))) / (2.0 * s);
        for k in 0..3 {
            let d = dual[k].eps.unwrap_generic(Const::<3>, U1)[0];
            assert!((dual[k].re + torque[k]).abs() < 1e-15, "R {i}: value {k}");
            assert!((d + fd[k]).abs() < 1e-8, "R {i}: derivative {k}: {d} against {}", -fd[k]);
        }
    }
}

/// A potential that is not symmetric about the vertical: the vertical momentum is not reported
/// (and indeed moves), while the energy is kept by the variational method; a potential
/// symmetric about the vertical keeps it to round-off (the negative control's counterpart).
#[test]
fn the_vertical_momentum_is_reported_where_it_is_conserved() {
    let tmp = TempDir::new("vertical");
    let file = |v: &str| {
        let text = format!(
            "group = \"SO(3)\"\ninertia = [[2.0, 0.1, 0.0], [0.1, 1.5, 0.2], [0.0, 0.2, 1.0]]\nV = \"{v}\"\n\
             R0_axis_angle = [0.4, -0.3, 0.2]\nPi0 = [0.5, 0.2, -0.7]\n[params]\nk = 1.5\n"
        );
        catalogue::resolve("system", &[], Some(&tmp.write("v.toml", &text)), None).unwrap()
    };
    let tilted = file("k*(r11 + r33^2)");
    let names: Vec<&str> = tilted.quantities().iter().map(|q| q.name).collect();
    assert_eq!(names, ["energy", "group_defect"]);
    let r = run(tilted.as_ref(), "hp-sv", 0.01, 2000, 100);
    let vertical = |s: &[f64]| {
        let g = Matrix3::from_row_slice(&s[..9]);
        (g * Vector3::from_column_slice(&s[9..]))[2]
    };
    let moved =
        r.samples.iter().map(|s| (vertical(&s.state) - vertical(&r.samples[0].state)).abs()).fold(0.0, f64::max);
    assert!(moved > 1e-2, "the vertical momentum moved by {moved:e} only");
    assert!(r.max_error(0) < 1e-3, "energy error {:e}", r.max_error(0));
    let symmetric = file("k*r33^2 + cos(r31)*r32");
    let names: Vec<&str> = symmetric.quantities().iter().map(|q| q.name).collect();
    assert_eq!(names, ["energy", "vertical_momentum", "group_defect"]);
    let r = run(symmetric.as_ref(), "hp-sv", 0.01, 2000, 100);
    assert!(r.max_error(1) < 1e-12, "vertical momentum error {:e}", r.max_error(1));
    // a given state takes the problem's checks, and a run from it starts there
    let s = symmetric.initial_state().unwrap();
    let again = symmetric.with_state(&s).unwrap();
    assert_eq!(again.initial_state().unwrap(), s);
    let mut off = s.clone();
    off[0] *= 1.1;
    let e = symmetric.with_state(&off).err().unwrap().to_string();
    assert!(e.contains("'system'") && e.contains("R is not a rotation"), "{e}");
}

/// Bad files: one input error naming the file and the field, never a panic.
#[test]
fn bad_files_name_the_field() {
    let tmp = TempDir::new("bad");
    let ok = "group = \"SO(3)\"\ninertia = [1.0, 2.0, 3.0]\nPi0 = [0.1, 0.2, 0.3]\n";
    let cases: Vec<(String, &str)> = vec![
        (ok.replace("SO(3)", "SU(2)"), "group 'SU(2)' is not supported; the groups are SO(3) and SE(3)"),
        (ok.replace("SO(3)", "SE(3)"), "inertia of an SE(3) body must be the 6 diagonal entries or the 6 × 6 metric"),
        (format!("{ok}x0 = [0.0, 0.0, 1.0]\n"), "x0 and P0 apply to group = \"SE(3)\" only"),
        (
            ok.replace("[1.0, 2.0, 3.0]", "[1.0, -2.0, 3.0]"),
            "inertia: the principal moments must be finite and positive",
        ),
        (ok.replace("[1.0, 2.0, 3.0]", "[1.0, 2.0]"), "inertia must be 3 principal moments"),
        (ok.replace("[1.0, 2.0, 3.0]", "[[1.0, 2.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]"), "inertia: "),
        (ok.replace("[1.0, 2.0, 3.0]", "[[1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 1.0]]"), "positive definite"),
        (ok.replace("[1.0, 2.0, 3.0]", "[[1.0, 0.0], [0.0, 1.0]]"), "3 × 3 matrix (9 entries), got 4 values"),
        (ok.replace("[1.0, 2.0, 3.0]", "[[1.0, 0.0], [0.0]]"), "inertia must be a list of numbers or a square matrix"),
        (ok.replace("[1.0, 2.0, 3.0]", "\"heavy\""), "inertia must be a list"),
        (ok.replace("[0.1, 0.2, 0.3]", "[0.1, 0.2]"), "Pi0 must have 3 components, got 2"),
        (format!("{ok}R0 = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.1]]\n"), "R0 is not a rotation"),
        (format!("{ok}R0 = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0]\n"), "R0 must be a 3 × 3 rotation matrix (9 entries), got 6"),
        (
            format!("{ok}R0 = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]\nR0_axis_angle = [0.0, 0.0, 1.0]\n"),
            "not both",
        ),
        (format!("{ok}R0_axis_angle = [0.0, 1.0]\n"), "R0_axis_angle must have 3 components"),
        (format!("{ok}V = \"k*r31 + x\"\n[params]\nk = 1.0\n"), "unknown name 'x'"),
        (format!("{ok}V = \"r31 + (r32\"\n"), "V: "),
        (format!("{ok}V = \"1/(r31 - r31)\"\n"), "not finite at R0"),
        (format!("{ok}mass = 2.0\n"), "unknown field"),
        (format!("{ok}h = -0.1\n"), "h and t_end must be finite and positive"),
        ("group = \"SO(3)\"\nPi0 = [0.1, 0.2, 0.3]\n".to_string(), "missing field `inertia`"),
    ];
    for (i, (text, expected)) in cases.iter().enumerate() {
        let path = tmp.write(&format!("bad{i}.toml"), text);
        let e = catalogue::resolve("system", &[], Some(&path), None).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(e.contains(&format!("bad{i}.toml")) && e.contains(expected), "case {i}: '{e}' lacks '{expected}'");
        assert!(!e.trim().contains('\n'), "case {i}: {e}");
    }
    // an unknown --param names the file's parameters
    let e = catalogue::resolve("system", &[("mgl".into(), 2.0)], Some(&example("heavy_top.toml")), None)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(e.contains("unknown parameter 'mgl'") && e.contains("chi1"), "{e}");
    // and a parameter given on the command line changes the potential
    let heavier = catalogue::resolve("system", &[("m".into(), 2.0)], Some(&example("heavy_top.toml")), None).unwrap();
    let base = catalogue::resolve("system", &[], Some(&example("heavy_top.toml")), None).unwrap();
    let (e2, e1) = (run(heavier.as_ref(), "hp-sv", 0.01, 1, 1), run(base.as_ref(), "hp-sv", 0.01, 1, 1));
    let s = LieState::new(So3.exp(&Vector3::new(0.5, 0.2, 0.0)), Vector3::new(0.3, -0.4, 2.0));
    let height = (s.g * Vector3::new(0.09950371902099893, 0.0, 0.9950371902099893))[2];
    let de = e2.samples[0].values[0] - e1.samples[0].values[0];
    assert!((de - height).abs() < 1e-15, "V doubles with m: ΔE = {de}, mgl e3·Rχ = {height}");
}

/// The spec round-trips through its TOML text (what a checkpoint and a pickle store), and the
/// command line runs the example file and resumes it bit for bit.
#[test]
fn the_command_line_runs_and_resumes_a_body_file() {
    let spec = lie_system::LieSystemSpec::read(&example("heavy_top.toml")).unwrap();
    assert_eq!(lie_system::LieSystemSpec::from_toml(&spec.to_toml(), "text").unwrap(), spec);
    let tmp = TempDir::new("cli");
    let file = example("heavy_top.toml").display().to_string();
    let geomint = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_geomint")).args(args).arg("--quiet").current_dir(&tmp.0).output().unwrap()
    };
    let (whole, half) = (tmp.0.join("whole").display().to_string(), tmp.0.join("half").display().to_string());
    let common =
        ["--system", file.as_str(), "--method", "lift-midpoint-exp", "--every", "7", "--checkpoint-every", "50"];
    let ok = |o: std::process::Output| assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    ok(geomint(&[&["run", "--steps", "300", "--out", &whole][..], &common].concat()));
    ok(geomint(&[&["run", "--steps", "150", "--out", &half][..], &common].concat()));
    ok(geomint(&["resume", &half, "--steps", "300"]));
    let last = |d: &str| {
        std::fs::read_to_string(Path::new(d).join("trajectory.csv")).unwrap().lines().last().unwrap().to_string()
    };
    assert_eq!(last(&whole), last(&half));
    let summary = std::fs::read_to_string(Path::new(&whole).join("summary.json")).unwrap();
    assert!(summary.contains("vertical_momentum") && summary.contains("\"system\""), "{summary}");
}

/// `group = "SE(3)"`: a buoyant ellipsoid (`integrators::models::BuoyantVehicle`, a 6 × 6 metric
/// with coupling blocks, gravity and buoyancy) written as a file with
/// `V = w e3·(R r_g) + (w − b) x3` is the closed-form model under HP Störmer–Verlet, step for
/// step to round-off over 10³ steps; without `V` the body is Kirchhoff's vehicle of the
/// catalogue (`underwater-vehicle`) under the midpoint lift, and keeps its Casimirs.
#[test]
fn an_se3_body_is_the_closed_form_vehicle() {
    use geom_core::lie::Se3;
    use integrators::models::{BuoyantVehicle, UnderwaterVehicle};
    use nalgebra::{Matrix4, Vector6};
    let tmp = TempDir::new("se3");
    let rows = |m: &[f64], n: usize| -> String {
        let r: Vec<String> = m
            .chunks(n)
            .map(|row| format!("[{}]", row.iter().map(|x| format!("{x:?}")).collect::<Vec<_>>().join(", ")))
            .collect();
        format!("[{}]", r.join(", "))
    };
    let (vehicle, p) =
        BuoyantVehicle::ellipsoid(1.0, 0.5, 0.25, 1000.0, 1.02, Vector3::new(0.0, 0.0, -0.05), 9.81).unwrap();
    let metric: Vec<f64> = (0..36).map(|k| vehicle.metric()[(k / 6, k % 6)]).collect();
    let text = format!(
        "group = \"SE(3)\"\ninertia = {}\nV = \"w*(r31*a1 + r32*a2 + r33*a3) + (w - b)*x3\"\n\
         R0_axis_angle = [0.2, -0.1, 0.4]\nx0 = [1.0, -2.0, 0.5]\nPi0 = [30.0, 50.0, -20.0]\nP0 = [500.0, 100.0, -50.0]\n\
         [params]\nw = {:?}\nb = {:?}\na1 = 0.0\na2 = 0.0\na3 = -0.05\n",
        rows(&metric, 6),
        p.weight,
        p.buoyancy
    );
    let file = catalogue::resolve("system", &[], Some(&tmp.write("buoyant.toml", &text)), None).unwrap();
    assert_eq!(file.state_labels().len(), 22);
    assert!(!file.methods().contains(&"lgvi") && !file.methods().contains(&"lie-poisson-midpoint-exp"));
    let s0 = file.initial_state().unwrap();
    let g0 = Matrix4::from_row_slice(&s0[..16]);
    let mut s = LieState::new(g0, Vector6::from_column_slice(&s0[16..]));
    let sv = hp::stormer_verlet(Se3, geom_core::lie::Chart::Cayley, vehicle).unwrap();
    let r = run(file.as_ref(), "hp-sv", 0.01, 1000, 1);
    let mut d = 0.0f64;
    for sample in &r.samples[1..] {
        discretization::OneStep::step(&sv, &mut s, 0.01).unwrap();
        let mine = &sample.state;
        d = d.max((0..16).map(|k| (mine[k] - s.g[(k / 4, k % 4)]).abs()).fold(0.0, f64::max));
        d = d.max((0..6).map(|k| (mine[16 + k] - s.mu[k]).abs() / s.mu.norm()).fold(0.0, f64::max));
    }
    assert!(d <= 1e-13, "the formula vehicle is {d:e} (relative in μ) from the model");
    assert!(
        (r.samples[0].values[0] - vehicle.energy(&LieState::new(g0, Vector6::from_column_slice(&s0[16..])))).abs()
            < 1e-9
    );
    // the energy error of a second-order method: a quarter at half the step (slope 2)
    let half = run(file.as_ref(), "hp-sv", 0.005, 2000, 2);
    let slope = (r.max_error(0) / half.max_error(0)).log2();
    assert!((slope - 2.0).abs() < 0.3, "energy error slope {slope} ({:e}, {:e})", r.max_error(0), half.max_error(0));
    // no V: Kirchhoff's vehicle of the catalogue, with its metric and its initial state
    let cat = catalogue::problem("underwater-vehicle", &[]).unwrap();
    let (kirchhoff, _) = UnderwaterVehicle::ellipsoid(1.0, 0.5, 0.25, 1000.0).unwrap();
    let c0 = cat.initial_state().unwrap();
    let theta = Se3.log(&Matrix4::from_row_slice(&c0[..16])).unwrap();
    let diag: Vec<f64> =
        (0..3).map(|i| kirchhoff.inertia()[(i, i)]).chain((0..3).map(|i| kirchhoff.mass()[(i, i)])).collect();
    assert_eq!(kirchhoff.inertia(), &Matrix3::from_diagonal(&Vector3::new(diag[0], diag[1], diag[2])));
    let g = Matrix4::from_row_slice(&c0[..16]);
    let free_text = format!(
        "group = \"SE(3)\"\ninertia = {diag:?}\nR0 = {}\nx0 = [{:?}, {:?}, {:?}]\nPi0 = {:?}\nP0 = {:?}\nh = 0.05\n",
        rows(&(0..9).map(|k| g[(k / 3, k % 3)]).collect::<Vec<_>>(), 3),
        g[(0, 3)],
        g[(1, 3)],
        g[(2, 3)],
        &c0[16..19],
        &c0[19..22]
    );
    let free = catalogue::resolve("system", &[], Some(&tmp.write("free.toml", &free_text)), None).unwrap();
    assert_eq!(free.initial_state().unwrap(), c0, "θ = {theta}");
    assert_eq!(free.methods(), cat.methods());
    for method in ["lift-midpoint-exp", "lie-poisson-midpoint-cayley"] {
        let (a, b) = (run(free.as_ref(), method, 0.05, 1000, 10), run(cat.as_ref(), method, 0.05, 1000, 10));
        assert_eq!(gap(&a, &b), 0.0, "{method}");
        assert!(
            a.max_error(1) < 1e-13 && a.max_error(2) < 1e-12,
            "{method}: Casimirs {:e} {:e}",
            a.max_error(1),
            a.max_error(2)
        );
    }
    // HP on the free body: the same method, the separable path instead of the reduced one
    let (a, b) = (run(free.as_ref(), "hp-sv", 0.05, 1000, 10), run(cat.as_ref(), "hp-sv", 0.05, 1000, 10));
    let rel = gap(&a, &b) / 500.0;
    assert!(rel < 1e-12, "hp-sv: {rel:e}");
}

/// A file whose body is a Lagrange top (`I = diag(I₁, I₁, I₃)`, `V = V₀ + c r₃₃`) offers
/// Bobenko–Suris's discrete Lagrange top, as the catalogue's `lagrange-top` does, and runs it
/// bit for bit as the catalogue does; a potential that is not affine in `r₃₃` alone, or a top
/// that is not symmetric, does not offer it and refuses it with an input error.
#[test]
fn a_lagrange_top_file_offers_the_discrete_lagrange_top() {
    let tmp = TempDir::new("lagrange");
    let body = |inertia: &str, v: &str| {
        format!(
            "group = \"SO(3)\"\ninertia = {inertia}\nV = \"{v}\"\nR0_axis_angle = [0.5, 0.2, 0.0]\nPi0 = [0.3, -0.4, 2.0]\n\
             [params]\nmgl = 1.0\n"
        )
    };
    let file = |name: &str, inertia: &str, v: &str| {
        let path = tmp.write(name, &body(inertia, v));
        catalogue::resolve("system", &[], Some(&path), None).unwrap()
    };
    let lagrange = file("lagrange.toml", "[2.0, 2.0, 1.0]", "mgl*r33");
    let top = catalogue::problem("lagrange-top", &[]).unwrap();
    assert!(lagrange.methods().contains(&"bobenko-suris"));
    let (a, b) =
        (run(lagrange.as_ref(), "bobenko-suris", 0.01, 500, 50), run(top.as_ref(), "bobenko-suris", 0.01, 500, 50));
    assert_eq!(gap(&a, &b), 0.0, "the file's Lagrange top is the catalogue's, bit for bit");
    assert!(a.max_error(0) < 1e-4 && a.max_error(1) < 1e-12, "{:e} {:e}", a.max_error(0), a.max_error(1));
    // an offset and a weight below the pivot (χ = −e3) are still a Lagrange top
    let hanging = file("hanging.toml", "[2.0, 2.0, 1.0]", "5 - 2*mgl*r33");
    assert!(hanging.methods().contains(&"bobenko-suris"));
    let c = run(hanging.as_ref(), "bobenko-suris", 0.01, 200, 20);
    assert!(c.max_error(1) < 1e-12, "vertical momentum {:e}", c.max_error(1));
    // not affine in r33, not r33 alone, not symmetric: no discrete Lagrange top
    for (name, inertia, v) in [
        ("square.toml", "[2.0, 2.0, 1.0]", "mgl*r33^2"),
        ("tilted.toml", "[2.0, 2.0, 1.0]", "mgl*(r33 + 0.1*r31)"),
        ("asymmetric.toml", "[2.0, 2.5, 1.0]", "mgl*r33"),
    ] {
        let p = file(name, inertia, v);
        assert!(!p.methods().contains(&"bobenko-suris"), "{name}");
        let spec = RunSpec::new(0.01, Some(10), None, 1).unwrap();
        let Err(err) = experiment::run(p.as_ref(), "bobenko-suris", spec, &mut |_| {}) else {
            panic!("{name}: bobenko-suris ran on a body that is not a Lagrange top");
        };
        assert!(!err.to_string().is_empty(), "{name}");
    }
}
