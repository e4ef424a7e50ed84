//! The Magnus integrators of orders 4 and 6 (Blanes, Casas & Ros 2000; Iserles & Nørsett 1999):
//!
//! * on SO(3), SE(3) and a user's SL(2, R), `ġ = g ξ(t)` with the known solution
//!   `γ(t) = exp(t a) exp(t b)` (`ξ = Ad_{exp(−t b)} a + b`): slopes 4 and 6 within ±0.3;
//! * on `R^n`, `ẏ = A(t) y` with `A(t) = P + e^{tP} Q e^{−tP}` (solution `e^{tP} e^{tQ} y_0`), and
//!   the Mathieu equation `x'' + (a − 2q cos 2t) x = 0` against DOP853 at tolerance 1e-13;
//! * the two conventions agree: the group integrator on GL(2) for `ġ = g A(t)` is the transpose
//!   of the `R^n` integrator for `ẏ = A(t)ᵀ y`, to round-off, and the reversed bracket matters:
//!   with the bracket of `ẏ = A y` on `ġ = g A`, the order drops to 2.

use crate::lie_methods_common::{KnownCurve, KnownSolution, SL2, errors_and_slopes, sci, slope};
use geom_core::lie::{Gl, LieGroup, Se3, So3};
use geom_core::step::OneStep;
use integrators::classical::VectorField;
use integrators::dop853::Dop853;
use integrators::magnus::{AlgebraCurve, LinearMagnus, Magnus, MagnusOrder, MatrixCurve};
use integrators::rkmk::GroupState;
use nalgebra::{Matrix2, Matrix3, SMatrix, SVector, Vector2, Vector3};

fn check_group<G, const D: usize, const N: usize>(group: G, steps: [&[usize]; 2])
where
    G: LieGroup<f64, D, Element = SMatrix<f64, N, N>> + Copy + 'static,
{
    let known = KnownSolution::<D>::new(0.0);
    for (order, steps) in [MagnusOrder::Four, MagnusOrder::Six].into_iter().zip(steps) {
        let m = Magnus::new(group, KnownCurve(group, known), order);
        let (errors, slopes) = errors_and_slopes(&m, &group, &known, 2.0, steps);
        eprintln!("{}: errors {}, slopes {slopes:.3?}", m.name(), sci(&errors));
        for s in &slopes {
            assert!((s - f64::from(order.value())).abs() <= 0.3, "{}: slope {s:.3}", m.name());
        }
    }
}

const STEPS4: &[usize] = &[10, 20, 40, 80];
const STEPS6: &[usize] = &[5, 10, 20, 40];

#[test]
fn magnus_orders_on_so3() {
    check_group(So3, [STEPS4, STEPS6]);
}

#[test]
fn magnus_orders_on_se3() {
    check_group(Se3, [STEPS4, STEPS6]);
}

#[test]
fn magnus_orders_on_a_users_sl2() {
    check_group(SL2, [STEPS4, STEPS6]);
}

/// `A(t) = P + e^{tP} Q e^{−tP}` on `R^3`: `y(t) = e^{tP} e^{tQ} y_0`.
struct Conjugated {
    p: Matrix3<f64>,
    q: Matrix3<f64>,
}
impl Conjugated {
    fn new() -> Self {
        let p = Matrix3::new(0.1, -0.8, 0.3, 0.7, -0.2, 0.5, -0.4, 0.6, 0.0);
        let q = Matrix3::new(-0.3, 0.2, 0.9, 0.4, 0.1, -0.6, 0.2, -0.5, 0.25);
        Self { p, q }
    }
    fn solution(&self, t: f64, y0: &Vector3<f64>) -> Vector3<f64> {
        Gl::<3, 9>::expm(&(self.p * t)) * Gl::<3, 9>::expm(&(self.q * t)) * y0
    }
}
impl MatrixCurve<3> for Conjugated {
    fn eval(&self, t: f64) -> geom_core::Result<Matrix3<f64>> {
        Ok(self.p + Gl::<3, 9>::expm(&(self.p * t)) * self.q * Gl::<3, 9>::expm(&(self.p * (-t))))
    }
}

fn run<M: OneStep<GroupState<SVector<f64, N>>>, const N: usize>(
    m: &M,
    y0: SVector<f64, N>,
    t: f64,
    n: usize,
) -> SVector<f64, N> {
    let mut s = GroupState::new(0.0, y0);
    m.step_n(&mut s, t / n as f64, n).unwrap();
    s.g
}

#[test]
fn linear_magnus_orders_against_a_known_solution() {
    let problem = Conjugated::new();
    let y0 = Vector3::new(1.0, -0.5, 0.25);
    let exact = problem.solution(2.0, &y0);
    for (order, steps) in [(MagnusOrder::Four, STEPS4), (MagnusOrder::Six, STEPS6)] {
        let m = LinearMagnus::new(Conjugated::new(), order);
        let errors: Vec<f64> = steps.iter().map(|&n| (run(&m, y0, 2.0, n) - exact).amax()).collect();
        let slopes: Vec<f64> = errors.windows(2).map(|w| slope(w[0], w[1])).collect();
        eprintln!("{} (known solution): errors {}, slopes {slopes:.3?}", m.name(), sci(&errors));
        for s in &slopes {
            assert!((s - f64::from(order.value())).abs() <= 0.3, "{}: slope {s:.3}", m.name());
        }
    }
}

/// Mathieu's equation `x'' + (a − 2q cos 2t) x = 0`, `a = 1.5`, `q = 0.7`.
struct Mathieu;
const MATHIEU: (f64, f64) = (1.5, 0.7);
impl MatrixCurve<2> for Mathieu {
    fn eval(&self, t: f64) -> geom_core::Result<Matrix2<f64>> {
        let (a, q) = MATHIEU;
        Ok(Matrix2::new(0.0, 1.0, -(a - 2.0 * q * (2.0 * t).cos()), 0.0))
    }
}
/// The same equation, autonomous on `(x, v, t)`, for DOP853.
struct MathieuAutonomous;
impl VectorField<Vector3<f64>> for MathieuAutonomous {
    fn eval(&self, y: &Vector3<f64>) -> geom_core::Result<Vector3<f64>> {
        let (a, q) = MATHIEU;
        Ok(Vector3::new(y[1], -(a - 2.0 * q * (2.0 * y[2]).cos()) * y[0], 1.0))
    }
}

#[test]
fn linear_magnus_orders_on_mathieu_against_dop853() {
    let t_end = 4.0;
    let y0 = Vector2::new(1.0, 0.3);
    let reference =
        Dop853::new(MathieuAutonomous).integrate(0.0, Vector3::new(y0[0], y0[1], 0.0), t_end, 1e-13, 1e-13).unwrap();
    let exact = Vector2::new(reference.y[0], reference.y[1]);
    for (order, steps) in [(MagnusOrder::Four, STEPS4), (MagnusOrder::Six, STEPS6)] {
        let m = LinearMagnus::new(Mathieu, order);
        let errors: Vec<f64> = steps.iter().map(|&n| (run(&m, y0, t_end, n) - exact).amax()).collect();
        let slopes: Vec<f64> = errors.windows(2).map(|w| slope(w[0], w[1])).collect();
        eprintln!("{} (Mathieu vs DOP853 1e-13): errors {}, slopes {slopes:.3?}", m.name(), sci(&errors));
        for s in &slopes {
            assert!((s - f64::from(order.value())).abs() <= 0.3, "{}: slope {s:.3}", m.name());
        }
        // the Wronskian of the traceless system: each step has det e^Ω = 1
        let (a, b) = (run(&m, Vector2::new(1.0, 0.0), t_end, 40), run(&m, Vector2::new(0.0, 1.0), t_end, 40));
        let wronskian = a[0] * b[1] - a[1] * b[0];
        assert!((wronskian - 1.0).abs() < 1e-13, "{wronskian}");
    }
}

/// `A(t)` on gl(2) (column-major coordinates of `Gl<2, 4>`), and its transpose as a matrix curve.
struct GlCurve;
fn gl_matrix(t: f64) -> Matrix2<f64> {
    Matrix2::new((2.0 * t).sin(), 1.0 + 0.5 * t, -0.7 + t * t * 0.3, (1.3 * t).cos() - 0.4)
}
impl AlgebraCurve<4> for GlCurve {
    fn eval(&self, t: f64) -> geom_core::Result<SVector<f64, 4>> {
        Ok(SVector::<f64, 4>::from_column_slice(gl_matrix(t).as_slice()))
    }
}
struct Transposed;
impl MatrixCurve<2> for Transposed {
    fn eval(&self, t: f64) -> geom_core::Result<Matrix2<f64>> {
        Ok(gl_matrix(t).transpose())
    }
}

/// `ġ = g A` transposed is `(gᵀ)˙ = Aᵀ gᵀ`: the group integrator (reversed bracket) and the `R^n`
/// integrator (matrix commutator) give transposed results, column by column, to round-off.
#[test]
fn the_two_conventions_agree_by_transposition() {
    let g0 = Matrix2::new(1.2, 0.3, -0.4, 0.9);
    for order in [MagnusOrder::Four, MagnusOrder::Six] {
        let group = Magnus::new(Gl::<2, 4>, GlCurve, order);
        let linear = LinearMagnus::new(Transposed, order);
        let mut s = GroupState::new(0.0, g0);
        group.step_n(&mut s, 0.1, 20).unwrap();
        for col in 0..2 {
            // column `col` of gᵀ is row `col` of g
            let y = run(&linear, g0.row(col).transpose(), 2.0, 20);
            let d = (y - s.g.row(col).transpose()).amax();
            assert!(d < 1e-13, "{order:?}: row {col} differs by {d:e}");
        }
        // and the exponent is the transpose of the other one
        let (w, m) = (group.exponent(0.3, 0.2).unwrap(), linear.exponent(0.3, 0.2).unwrap());
        assert!((Matrix2::from_column_slice(w.as_slice()).transpose() - m).amax() < 1e-15);
    }
}

/// Solving `ġ = g A` with the order-4 formula as printed for `ẏ = A y` (bracket not reversed),
/// `g_{k+1} = g_k exp(Ω̃)`, is a method of order 2 only: the reversal is what the convention needs.
#[test]
fn the_unreversed_bracket_has_order_two() {
    /// `A(t)` as a matrix curve: its exponent is the printed formula, bracket of `ẏ = A y`.
    struct Plain;
    impl MatrixCurve<2> for Plain {
        fn eval(&self, t: f64) -> geom_core::Result<Matrix2<f64>> {
            Ok(gl_matrix(t))
        }
    }
    // reference: the group integrator with tiny steps
    let g0 = Matrix2::identity();
    let exact = {
        let mut s = GroupState::new(0.0, g0);
        Magnus::new(Gl::<2, 4>, GlCurve, MagnusOrder::Six).step_n(&mut s, 1.0 / 400.0, 400).unwrap();
        s.g
    };
    // ġ = g A solved as g_{k+1} = g_k exp(Ω̃), Ω̃ the printed formula with [A_2, A_1] un-reversed
    let wrong = |n: usize| {
        let h = 1.0 / n as f64;
        let mut g = g0;
        for k in 0..n {
            let omega = LinearMagnus::new(Plain, MagnusOrder::Four).exponent(k as f64 * h, h).unwrap();
            g *= Gl::<2, 4>::expm(&omega);
        }
        (g - exact).amax()
    };
    let errors: Vec<f64> = [10, 20, 40].iter().map(|&n| wrong(n)).collect();
    let slopes: Vec<f64> = errors.windows(2).map(|w| slope(w[0], w[1])).collect();
    eprintln!("Magnus 4 with the bracket of ẏ = A y on ġ = g A: errors {}, slopes {slopes:.3?}", sci(&errors));
    for s in &slopes {
        assert!((s - 2.0).abs() <= 0.3, "slope {s:.3}");
    }
}
