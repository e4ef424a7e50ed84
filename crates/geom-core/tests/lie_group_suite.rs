//! One generic test suite run for every Lie group of geom-core, at f64 and at dual scalars.
//!
//! Each check is a statement of the conventions in `geom_core::lie` (right-trivialized dtau,
//! `Ad* = Adᵀ`, `ad_x y = [x, y]` = matrix commutator) that a wrong sign or a wrong Taylor branch
//! would violate. Derivatives are compared with exact forward-mode AD (num-dual), including at
//! `x = 0` where nalgebra's own rotation exponential has a zero derivative.

use geom_core::lie::{Chart, Gl, LieGroup, Power, Product, Rn, Se2, Se3, So2, So3, Su2};
use nalgebra::{DMatrix, SMatrix, SVector};
use num_dual::Dual64;
use proptest::prelude::*;

/// The blocks of a group's matrix representation, as dynamic matrices (test-side only).
trait Blocks<S> {
    fn blocks(&self) -> Vec<DMatrix<S>>;
}
impl<S: nalgebra::Scalar, const R: usize, const C: usize> Blocks<S> for SMatrix<S, R, C> {
    fn blocks(&self) -> Vec<DMatrix<S>> {
        vec![DMatrix::from_iterator(R, C, self.iter().cloned())]
    }
}
impl<S, A: Blocks<S>, B: Blocks<S>> Blocks<S> for (A, B) {
    fn blocks(&self) -> Vec<DMatrix<S>> {
        let mut v = self.0.blocks();
        v.extend(self.1.blocks());
        v
    }
}
impl<S, A: Blocks<S>, const K: usize> Blocks<S> for [A; K] {
    fn blocks(&self) -> Vec<DMatrix<S>> {
        self.iter().flat_map(|a| a.blocks()).collect()
    }
}

fn max_diff(a: &[DMatrix<f64>], b: &[DMatrix<f64>]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| (x - y).abs().max()).fold(0.0, f64::max)
}

fn eps_blocks(a: &[DMatrix<Dual64>]) -> Vec<DMatrix<f64>> {
    a.iter().map(|m| m.map(|v| v.eps)).collect()
}

/// Matrix exponential by scaling and squaring of a Taylor series (test-side reference).
fn expm(a: &DMatrix<f64>) -> DMatrix<f64> {
    let n = a.nrows();
    let norm = a.abs().max() * n as f64;
    let k = if norm > 0.5 { (norm / 0.5).log2().ceil() as i32 } else { 0 };
    let b = a / 2f64.powi(k);
    let mut term = DMatrix::<f64>::identity(n, n);
    let mut sum = term.clone();
    for j in 1..30 {
        term = &term * &b / j as f64;
        sum += &term;
    }
    for _ in 0..k {
        sum = &sum * &sum;
    }
    sum
}

/// `x + ε y` as a dual vector.
fn line<const D: usize>(x: &SVector<f64, D>, y: &SVector<f64, D>) -> SVector<Dual64, D> {
    SVector::from_fn(|i, _| Dual64::new(x[i], y[i]))
}
fn basis<const D: usize>(i: usize) -> SVector<f64, D> {
    SVector::from_fn(|j, _| if i == j { 1.0 } else { 0.0 })
}

trait TestGroup<const D: usize>: LieGroup<f64, D, Matrix = Self::M64> + LieGroup<Dual64, D, Matrix = Self::MD> {
    type M64: Blocks<f64> + Clone + std::fmt::Debug + Send + Sync;
    type MD: Blocks<Dual64> + Clone + std::fmt::Debug + Send + Sync;
}
impl<G, const D: usize> TestGroup<D> for G
where
    G: LieGroup<f64, D> + LieGroup<Dual64, D>,
    <G as LieGroup<f64, D>>::Matrix: Blocks<f64>,
    <G as LieGroup<Dual64, D>>::Matrix: Blocks<Dual64>,
{
    type M64 = <G as LieGroup<f64, D>>::Matrix;
    type MD = <G as LieGroup<Dual64, D>>::Matrix;
}

type E<G, const D: usize> = <G as LieGroup<f64, D>>::Element;

type Dyn64<G, const D: usize> = dyn LieGroup<f64, D, Element = E<G, D>, Matrix = <G as TestGroup<D>>::M64>;
type DynDual<G, const D: usize> =
    dyn LieGroup<Dual64, D, Element = <G as LieGroup<Dual64, D>>::Element, Matrix = <G as TestGroup<D>>::MD>;

fn mat<G: TestGroup<D>, const D: usize>(g: &Dyn64<G, D>, a: &E<G, D>) -> Vec<DMatrix<f64>> {
    g.to_matrix(a).blocks()
}
fn dist<G: TestGroup<D>, const D: usize>(g: &Dyn64<G, D>, a: &E<G, D>, b: &E<G, D>) -> f64 {
    max_diff(&mat::<G, D>(g, a), &mat::<G, D>(g, b))
}
fn mat_norm(a: &[DMatrix<f64>]) -> f64 {
    a.iter().map(|m| m.abs().max()).fold(0.0, f64::max)
}

/// Everything that holds at a point `x` of the algebra (with a second direction `y`) for every group.
/// `log_ok`: `x` lies in the domain where `log(exp x) = x` holds.
fn check_group<G: TestGroup<D> + 'static, const D: usize>(
    grp: &G,
    x: &SVector<f64, D>,
    y: &SVector<f64, D>,
    log_ok: bool,
) {
    let g64: &Dyn64<G, D> = grp;
    let gdu: &DynDual<G, D> = grp;
    let name = g64.name();
    let tol = 1e-11 * (1.0 + x.norm()).powi(3);
    let e: E<G, D> = g64.identity();
    let a = g64.exp(x);
    let b = g64.exp(y);
    let c = g64.exp(&(x - y * 0.3));
    let scale = 1.0 + mat_norm(&mat::<G, D>(g64, &a)) * mat_norm(&mat::<G, D>(g64, &b));

    // group axioms
    assert!(dist::<G, D>(g64, &g64.compose(&e, &a), &a) < tol, "{name}: e a = a");
    assert!(dist::<G, D>(g64, &g64.compose(&a, &e), &a) < tol, "{name}: a e = a");
    assert!(dist::<G, D>(g64, &g64.compose(&a, &g64.inverse(&a)), &e) < tol * scale, "{name}: a a^-1 = e");
    let ab_c = g64.compose(&g64.compose(&a, &b), &c);
    let a_bc = g64.compose(&a, &g64.compose(&b, &c));
    assert!(dist::<G, D>(g64, &ab_c, &a_bc) < tol * scale * scale, "{name}: associativity");
    assert!(g64.defect(&a) < 1e-12 * scale, "{name}: exp lands in the group");

    // the representation is a homomorphism, hat and vee are inverse, exp(hat x) = expm(hat x)
    let (ma, mb, mab) = (mat::<G, D>(g64, &a), mat::<G, D>(g64, &b), mat::<G, D>(g64, &g64.compose(&a, &b)));
    let square = ma.iter().all(|m| m.is_square());
    if square {
        let prod: Vec<_> = ma.iter().zip(&mb).map(|(p, q)| p * q).collect();
        assert!(max_diff(&prod, &mab) < tol * scale, "{name}: to_matrix is a homomorphism");
        let hx = g64.hat(x).blocks();
        let ex: Vec<_> = hx.iter().map(expm).collect();
        assert!(max_diff(&ex, &ma) < tol * scale, "{name}: exp = matrix exponential of hat");
    }
    let back = g64.vee(&g64.hat(x));
    assert!((back - x).norm() < 1e-14 * (1.0 + x.norm()), "{name}: vee(hat x) = x");

    // log
    if log_ok {
        let lx = g64.log(&a).expect("log defined");
        assert!((lx - x).norm() < tol, "{name}: log(exp x) = x, got {lx} for {x}");
        assert!(dist::<G, D>(g64, &g64.exp(&lx), &a) < tol, "{name}: exp(log g) = g");
    }

    // bracket = commutator of hats; ad_x y = [x, y]; Ad_g y = vee(g hat(y) g^-1)
    let br = g64.bracket(x, y);
    assert!((g64.ad(x) * y - br).norm() < 1e-12 * (1.0 + br.norm()), "{name}: ad_x y = [x,y]");
    assert!((br + g64.bracket(y, x)).norm() < 1e-12, "{name}: bracket antisymmetric");
    let ady = g64.adjoint(&a) * y;
    if square {
        let (hx, hy) = (g64.hat(x).blocks(), g64.hat(y).blocks());
        let comm: Vec<_> = hx.iter().zip(&hy).map(|(p, q)| p * q - q * p).collect();
        let hbr = g64.hat(&br).blocks();
        assert!(max_diff(&comm, &hbr) < 1e-12 * (1.0 + x.norm() * y.norm()), "{name}: hat[x,y] = [hat x, hat y]");
        let conj: Vec<_> =
            ma.iter().zip(&hy).map(|(g, yy)| g * yy * g.clone().try_inverse().expect("invertible")).collect();
        let had = g64.hat(&ady).blocks();
        assert!(max_diff(&conj, &had) < tol * scale, "{name}: Ad_g y = vee(g hat(y) g^-1)");
    }
    // exp(Ad_a y) = a exp(y) a^-1 (group-level definition of Ad, valid for every group)
    let lhs = g64.exp(&ady);
    let rhs = g64.compose(&g64.compose(&a, &b), &g64.inverse(&a));
    assert!(dist::<G, D>(g64, &lhs, &rhs) < tol * scale * scale, "{name}: exp(Ad_g y) = g exp(y) g^-1");
    // Ad is a homomorphism, Ad_{exp x} = exp(ad_x)
    let ad_ab = g64.adjoint(&g64.compose(&a, &b));
    let ad_a_ad_b = g64.adjoint(&a) * g64.adjoint(&b);
    assert!((ad_ab - ad_a_ad_b).norm() < tol * scale * scale, "{name}: Ad_ab = Ad_a Ad_b");
    let adx = g64.ad(x);
    let exp_adx = expm(&DMatrix::from_iterator(D, D, adx.iter().cloned()));
    let ad_exp = g64.adjoint(&a);
    let ad_exp = DMatrix::from_iterator(D, D, ad_exp.iter().cloned());
    assert!((exp_adx - ad_exp).abs().max() < tol * scale, "{name}: Ad_exp(x) = exp(ad_x)");
    // Ad* = Adᵀ and ad* = adᵀ: <Ad*_g mu, y> = <mu, Ad_g y>, <ad*_x mu, y> = <mu, [x, y]>
    let mu = x * 0.7 - y;
    let lhs = g64.coadjoint(&a, &mu).dot(y);
    assert!((lhs - mu.dot(&ady)).abs() < tol * scale * (1.0 + mu.norm()), "{name}: <Ad* mu, y> = <mu, Ad y>");
    let lhs = g64.ad_star(x, &mu).dot(y);
    assert!((lhs - mu.dot(&br)).abs() < 1e-12 * (1.0 + mu.norm() * br.norm()), "{name}: <ad* mu, y> = <mu, [x,y]>");

    // derivatives of exp and Cayley against AD: (D tau(x).y) tau(x)^-1 = dtau_x y, at x and at 0
    for chart in [Chart::Exp, Chart::Cayley] {
        let Ok(t) = g64.tau(chart, x) else { continue };
        let tinv = g64.inverse(&t);
        let dtau = g64.dtau(chart, x).expect("dtau");
        let cname = chart.name();
        for i in 0..D {
            let ei = basis::<D>(i);
            let moved = gdu.tau(chart, &line(x, &ei)).expect("tau");
            // derivative of (tau(x + eps e_i) tau(x)^-1) as a matrix = hat(dtau_x e_i)
            let md = gdu.to_matrix(&moved).blocks();
            let minv = mat::<G, D>(g64, &tinv);
            let expect = g64.hat(&(dtau * ei)).blocks();
            // square blocks: (d/de tau(x + e e_i)) tau(x)^-1; vector blocks (R^n, additive): the
            // derivative itself
            let deriv: Vec<_> =
                eps_blocks(&md).iter().zip(&minv).map(|(d, m)| if m.is_square() { d * m } else { d.clone() }).collect();
            assert!(
                max_diff(&deriv, &expect) < 1e-10 * scale,
                "{name}: d{cname} against AD, column {i}: {deriv:?} vs {expect:?}"
            );
        }
        // dtau o dtau^-1 = I
        let dinv = g64.dtau_inv(chart, x).expect("dtau_inv");
        assert!(
            (dtau * dinv - SMatrix::<f64, D, D>::identity()).norm() < tol * scale,
            "{name}: d{cname} d{cname}^-1 = I"
        );
        // tau(-x) = tau(x)^-1
        let tm = g64.tau(chart, &(-x)).expect("tau(-x)");
        assert!(dist::<G, D>(g64, &tm, &tinv) < tol * scale, "{name}: {cname}(-x) = {cname}(x)^-1");
        // dtau_{-x} = Ad_{tau(-x)} dtau_x
        let dm = g64.dtau(chart, &(-x)).expect("dtau(-x)");
        let rhs = g64.adjoint(&tm) * dtau;
        assert!((dm - rhs).norm() < tol * scale, "{name}: d{cname}_-x = Ad_{cname}(-x) d{cname}_x");
        // tau^-1(tau(x)) = x
        if log_ok || chart == Chart::Cayley {
            let back = g64.tau_inv(chart, &t).expect("tau_inv");
            assert!((back - x).norm() < tol * scale, "{name}: {cname}^-1({cname}(x)) = x");
        }
        // Cayley is the matrix formula (I - X/2)^-1 (I + X/2), dcay^-1 is Y - [X,Y]/2 - XYX/4
        if chart == Chart::Cayley && square {
            let hx = g64.hat(x).blocks();
            let hy = g64.hat(y).blocks();
            let cay: Vec<_> = hx
                .iter()
                .map(|m| {
                    let i = DMatrix::<f64>::identity(m.nrows(), m.ncols());
                    (&i - m * 0.5).try_inverse().unwrap() * (&i + m * 0.5)
                })
                .collect();
            assert!(max_diff(&cay, &mat::<G, D>(g64, &t)) < tol * scale, "{name}: Cayley matrix formula");
            let formula: Vec<_> =
                hx.iter().zip(&hy).map(|(p, q)| q - (p * q - q * p) * 0.5 - p * q * p * 0.25).collect();
            let got = g64.hat(&(g64.dcay_inv(x) * y)).blocks();
            assert!(max_diff(&formula, &got) < tol * scale, "{name}: dcay^-1 matrix formula");
        }
    }

    // the AD derivative of exp at 0 is hat; derivative of log at e is the identity
    for i in 0..D {
        let ei = basis::<D>(i);
        let m = gdu.exp(&line(&SVector::zeros(), &ei));
        let d = eps_blocks(&gdu.to_matrix(&m).blocks());
        let h = g64.hat(&ei).blocks();
        assert!(max_diff(&d, &h) < 1e-15, "{name}: d/de exp(e e_{i}) at 0 = hat(e_{i})");
        let l = gdu.log(&m).expect("log at e");
        let dl: SVector<f64, D> = l.map(|v| v.eps);
        assert!((dl - ei).norm() < 1e-14, "{name}: d log at e = id");
    }
    // dual-scalar run of log∘exp: the derivative of log(exp(x + e y)) is y
    if log_ok {
        let l = gdu.log(&gdu.exp(&line(x, y))).expect("log");
        let dl: SVector<f64, D> = l.map(|v| v.eps);
        assert!((dl - y).norm() < 1e-9 * (1.0 + y.norm()) * scale, "{name}: d/de log(exp(x + e y)) = y");
    }
}

fn vec_in<const D: usize>(r: f64) -> impl Strategy<Value = SVector<f64, D>> {
    prop::collection::vec(-r..r, D).prop_map(|v| SVector::from_column_slice(&v))
}

/// Fixed points that straddle every series threshold, plus tiny and moderately large ones.
fn special_points<const D: usize>() -> Vec<SVector<f64, D>> {
    let dir = SVector::<f64, D>::from_fn(|i, _| 1.0 + 0.37 * i as f64).normalize();
    [0.0, 1e-12, 1e-9, 1e-6, 1e-3, 0.1, 0.4999, 0.5001, 1.0, 2.0].iter().map(|&r| dir * r).collect()
}

macro_rules! group_suite {
    ($name:ident, $grp:expr, $d:literal, $radius:expr) => {
        mod $name {
            use super::*;
            #[test]
            fn special_points() {
                let g = $grp;
                let pts = super::special_points::<$d>();
                for x in &pts {
                    for y in &pts[5..] {
                        let y = y.map(|v| -v) + SVector::<f64, $d>::from_fn(|i, _| 0.1 * i as f64);
                        check_group::<_, $d>(&g, x, &y, true);
                    }
                }
            }
            proptest! {
                #![proptest_config(ProptestConfig::with_cases(64))]
                #[test]
                fn random_points(x in vec_in::<$d>($radius), y in vec_in::<$d>($radius)) {
                    check_group::<_, $d>(&$grp, &x, &y, true);
                }
            }
        }
    };
}

group_suite!(rn, Rn::<4>, 4, 3.0);
group_suite!(so2, So2, 1, 3.0);
group_suite!(se2, Se2, 3, 1.8);
group_suite!(so3, So3, 3, 1.8);
group_suite!(se3, Se3, 6, 1.8);
group_suite!(su2, Su2, 3, 1.8);
group_suite!(gl2, Gl::<2, 4>, 4, 0.5);
group_suite!(gl3, Gl::<3, 9>, 9, 0.4);
group_suite!(so3_x_r3, Product::<So3, Rn<3>, 3, 3>(So3, Rn::<3>), 6, 1.8);
group_suite!(so3_pow3, Power::<So3, 3, 3>(So3), 9, 1.0);

/// log near rotation angle pi: exp(log R) = R for every rotation, and |log R| <= pi.
#[test]
fn so3_log_near_pi() {
    let axis = nalgebra::Vector3::new(0.3, -0.5, 0.8).normalize();
    for delta in [0.0, 1e-12, 1e-8, 1e-4, 1e-2] {
        for sign in [1.0, -1.0] {
            let x = axis * (std::f64::consts::PI - delta) * sign;
            let r = geom_core::lie::so3::exp(&x);
            let l = geom_core::lie::so3::log(&r);
            assert!(l.norm() <= std::f64::consts::PI + 1e-12);
            let back = geom_core::lie::so3::exp(&l);
            assert!((back - r).norm() < 1e-12, "exp(log R) = R at pi - {delta}");
            if delta > 1e-9 {
                assert!((l - x).norm() < 1e-12 * (1.0 + 1.0 / delta), "log(exp x) = x at pi - {delta}");
            }
        }
    }
}

/// SE(3) and SU(2) agree with SO(3) on their rotation parts; SU(2) double-covers SO(3).
#[test]
fn rotation_parts_agree() {
    let x = nalgebra::Vector3::new(0.4, -1.1, 0.7);
    let r = geom_core::lie::so3::exp(&x);
    let g = LieGroup::<f64, 6>::exp(&Se3, &geom_core::lie::se3::join(&x, &nalgebra::Vector3::new(1.0, 2.0, 3.0)));
    assert!((g.fixed_view::<3, 3>(0, 0) - r).norm() < 1e-14);
    let q = LieGroup::<f64, 3>::exp(&Su2, &x);
    assert!((Su2::to_rotation(&q) - r).norm() < 1e-14);
}

/// nalgebra's rotation exp agrees with ours at f64 (interoperability).
#[test]
fn agrees_with_nalgebra() {
    let x = nalgebra::Vector3::new(0.4, -1.1, 0.7);
    let ours = geom_core::lie::so3::exp(&x);
    let theirs = nalgebra::Rotation3::from_scaled_axis(x);
    assert!((ours - theirs.matrix()).norm() < 1e-14);
    let back = geom_core::lie::so3::log(&ours);
    assert!((back - theirs.scaled_axis()).norm() < 1e-14);
}

/// The public suite on the shipped groups that give closed forms of `D_x[(dτ_x^{-1})ᵀ μ]`
/// (SO(3), SE(3), Cayley): each is compared with AD of `dτ^{-1}` there.
#[test]
fn the_public_suite_passes_on_the_groups_with_closed_form_chart_derivatives() {
    let xs3 = [SVector::from([0.3, -0.2, 0.5]), SVector::from([-1.1, 0.4, 0.7]), SVector::from([0.0, 0.0, 0.0])];
    geom_core::lie::testing::check_group(&So3, &xs3, 1e-12);
    let xs6 = [SVector::from([0.3, -0.2, 0.5, 1.0, -0.4, 0.2]), SVector::from([-1.1, 0.4, 0.7, 0.1, 0.9, -1.3])];
    geom_core::lie::testing::check_group(&Se3, &xs6, 1e-12);
}
