//! Lie–Poisson integrators by reduction of the cotangent lift of a left-equivariant map: equal to
//! the unreduced integrator projected down, Casimirs at round-off, and Poisson maps
//! (`DΦ B DΦᵀ = B ∘ Φ`), with RK4 as the negative control.

use discretization::lie_function::{LieAutoDiff, LieFunction};
use discretization::lie_poisson::lie_poisson_tensor;
use discretization::{
    AdvectedFunction, AdvectedLiePoissonIntegrator, AdvectedState, LieCotangentLiftIntegrator, LieGroupThetaMap,
    LiePoissonIntegrator, LieState, OneStep,
};
use geom_core::Scalar;
use geom_core::action::SphereRotation;
use geom_core::function::ScalarFunction;
use geom_core::lie::{Chart, LieGroup, Se3, So3};
use geom_core::newton::NewtonOptions;
use nalgebra::{Matrix3, SMatrix, SVector, Vector3, Vector6};

const INERTIA: [f64; 3] = [1.0, 5.0, 6.0];

struct Body;
impl ScalarFunction<3> for Body {
    fn eval<S: Scalar>(&self, p: &SVector<S, 3>) -> S {
        (0..3).fold(S::from(0.0), |a, i| a + p[i] * p[i] / S::from(INERTIA[i])) * S::from(0.5)
    }
}
#[derive(Debug)]
struct BodyOnGroup;
impl<S: Scalar> LieFunction<S, So3, 3> for BodyOnGroup {
    fn eval(&self, _: &So3, r: &Matrix3<S>, p: &SVector<S, 3>) -> S {
        Body.eval(p) + r[(2, 2)] * S::from(self::WEIGHT)
    }
}
const WEIGHT: f64 = 1.0;

/// Heavy top reduced: `h(Π, Γ) = ½ Πᵀ I⁻¹ Π + Γ·χ`, `χ = e3`.
struct Top;
impl AdvectedFunction<3, 3> for Top {
    fn eval<S: Scalar>(&self, p: &SVector<S, 3>, gamma: &SVector<S, 3>) -> S {
        Body.eval(p) + gamma[2] * S::from(WEIGHT)
    }
}
/// Free body on the group (no potential) for the unreduced comparison.
#[derive(Debug)]
struct Free;
impl<S: Scalar> LieFunction<S, So3, 3> for Free {
    fn eval(&self, _: &So3, _: &Matrix3<S>, p: &SVector<S, 3>) -> S {
        Body.eval(p)
    }
}

/// Central-difference Jacobian of a map of `R^K`.
fn fd_jacobian<const K: usize>(
    f: impl Fn(&SVector<f64, K>) -> SVector<f64, K>,
    x: &SVector<f64, K>,
) -> SMatrix<f64, K, K> {
    let eps = 1e-5;
    SMatrix::from_fn(|i, j| {
        let d = SVector::<f64, K>::from_fn(|k, _| if k == j { eps } else { 0.0 });
        (f(&(x + d))[i] - f(&(x - d))[i]) / (2.0 * eps)
    })
}

fn rk4<const K: usize>(
    f: impl Fn(&SVector<f64, K>) -> SVector<f64, K>,
    x: &SVector<f64, K>,
    h: f64,
) -> SVector<f64, K> {
    let k1 = f(x);
    let k2 = f(&(x + k1 * (h / 2.0)));
    let k3 = f(&(x + k2 * (h / 2.0)));
    let k4 = f(&(x + k3 * h));
    x + (k1 + k2 * 2.0 + k3 * 2.0 + k4) * (h / 6.0)
}

fn omega(p: &Vector3<f64>) -> Vector3<f64> {
    p.component_div(&Vector3::from(INERTIA))
}

#[test]
fn reduced_rigid_body_is_the_projection_of_the_unreduced_flow_and_a_poisson_map() {
    let h = 0.05;
    for chart in [Chart::Exp, Chart::Cayley] {
        let map = LieGroupThetaMap::midpoint(So3, chart);
        let lp = LiePoissonIntegrator::new(map, Body);
        // (full Newton on the unreduced side too: with the frozen-Jacobian default the two agree
        // to 2.6e-10 only, the simplified iteration stopping a few ulps earlier)
        let full = LieCotangentLiftIntegrator::new(map, LieAutoDiff(Free)).with_newton(NewtonOptions::integrator());
        let mut pi = Vector3::new(0.6, 1.5, 2.5);
        let mut s = LieState::new(So3.exp(&Vector3::new(0.4, -0.2, 0.1)), pi);
        let (c0, mut dc, mut dp) = (pi.norm_squared(), 0.0f64, 0.0f64);
        for _ in 0..1000 {
            lp.step(&mut pi, h).unwrap();
            full.step(&mut s, h).unwrap();
            dp = dp.max((pi - s.mu).amax());
            dc = dc.max((pi.norm_squared() - c0).abs());
        }
        assert!(dp <= 1e-12, "{chart:?}: reduced vs unreduced body momentum {dp:e}");
        assert!(dc <= 1e-13 * c0, "{chart:?}: Casimir |Π|² drift {dc:e}");
        // Poisson map: DΦ B(Π) DΦᵀ = B(Φ(Π))
        for p0 in [Vector3::new(0.6, 1.5, 2.5), Vector3::new(-1.0, 0.2, 0.7), Vector3::new(2.0, -1.0, 0.1)] {
            let phi = |p: &Vector3<f64>| {
                let mut q = *p;
                lp.step(&mut q, h).unwrap();
                q
            };
            let m = fd_jacobian(phi, &p0);
            let defect =
                (m * lie_poisson_tensor(&So3, &p0) * m.transpose() - lie_poisson_tensor(&So3, &phi(&p0))).amax();
            assert!(defect <= 1e-8, "{chart:?}: Poisson defect {defect:e}");
        }
    }
    // negative control at a large step, where both are tested: RK4 on the Euler equations
    // Π' = Π × Ω fails the check the reduced map passes
    let big = 0.3;
    let euler = |p: &Vector3<f64>| p.cross(&omega(p));
    let p0 = Vector3::new(0.6, 1.5, 2.5);
    let lp = LiePoissonIntegrator::new(LieGroupThetaMap::midpoint(So3, Chart::Cayley), Body);
    let defect_of = |phi: &dyn Fn(&Vector3<f64>) -> Vector3<f64>| {
        let m = fd_jacobian(phi, &p0);
        (m * lie_poisson_tensor(&So3, &p0) * m.transpose() - lie_poisson_tensor(&So3, &phi(&p0))).amax()
    };
    let ours = defect_of(&|p: &Vector3<f64>| {
        let mut q = *p;
        lp.step(&mut q, big).unwrap();
        q
    });
    let rk = defect_of(&|p: &Vector3<f64>| rk4(euler, p, big));
    assert!(ours <= 1e-8 && rk > 1e-6, "h = {big}: reduced map {ours:e}, RK4 {rk:e}");
}

/// `[[Π̂, Γ̂], [Γ̂, 0]]` with `X̂_{ij} = -ε_{ijk} X_k` (the heavy top's semidirect bracket, minus sign).
fn heavy_top_tensor(x: &SVector<f64, 6>) -> SMatrix<f64, 6, 6> {
    let (p, g) = (x.fixed_rows::<3>(0).into_owned(), x.fixed_rows::<3>(3).into_owned());
    let (bp, bg) = (lie_poisson_tensor(&So3, &p), lie_poisson_tensor(&So3, &g));
    let mut b = SMatrix::<f64, 6, 6>::zeros();
    b.fixed_view_mut::<3, 3>(0, 0).copy_from(&bp);
    b.fixed_view_mut::<3, 3>(0, 3).copy_from(&bg);
    b.fixed_view_mut::<3, 3>(3, 0).copy_from(&bg);
    b
}

#[test]
fn reduced_heavy_top_on_the_action_algebroid() {
    let h = 0.01;
    let map = LieGroupThetaMap::midpoint(So3, Chart::Exp);
    let lp = AdvectedLiePoissonIntegrator::new(map, Top, SphereRotation);
    let full = LieCotangentLiftIntegrator::new(map, LieAutoDiff(BodyOnGroup));
    let r0 = So3.exp(&Vector3::new(0.4, -0.2, 0.1));
    let mut s = LieState::new(r0, Vector3::new(0.6, 1.5, 2.5));
    let mut x = AdvectedState::new(s.mu, r0.transpose() * Vector3::z());
    let (g0, m0) = (x.gamma.norm_squared(), x.mu.dot(&x.gamma));
    let (mut d, mut dg, mut dm) = (0.0f64, 0.0f64, 0.0f64);
    for _ in 0..1000 {
        lp.step(&mut x, h).unwrap();
        full.step(&mut s, h).unwrap();
        d = d.max((x.mu - s.mu).amax()).max((x.gamma - s.g.transpose() * Vector3::z()).amax());
        dg = dg.max((x.gamma.norm_squared() - g0).abs());
        dm = dm.max((x.mu.dot(&x.gamma) - m0).abs());
    }
    // (T = 10: the round-off differences between the two evaluation orders grow along the
    // trajectory; measured 2.7e-12 at T = 50 with h = 0.05)
    assert!(d <= 1e-12, "reduced vs unreduced projected: {d:e}");
    assert!(dg <= 1e-14 && dm <= 1e-12, "Casimirs |Γ|² {dg:e}, Π·Γ {dm:e}");
    let flat = |x: &AdvectedState<3, 3>| {
        let mut v = SVector::<f64, 6>::zeros();
        v.fixed_rows_mut::<3>(0).copy_from(&x.mu);
        v.fixed_rows_mut::<3>(3).copy_from(&x.gamma);
        v
    };
    let unflat =
        |v: &SVector<f64, 6>| AdvectedState::new(v.fixed_rows::<3>(0).into_owned(), v.fixed_rows::<3>(3).into_owned());
    for x0 in [
        AdvectedState::new(Vector3::new(0.6, 1.5, 2.5), Vector3::new(0.0, 0.6, 0.8)),
        AdvectedState::new(Vector3::new(-1.0, 0.3, 0.2), Vector3::new(0.48, -0.6, 0.64)),
    ] {
        let phi = |v: &SVector<f64, 6>| {
            let mut y = unflat(v);
            lp.step(&mut y, h).unwrap();
            flat(&y)
        };
        let v0 = flat(&x0);
        let m = fd_jacobian(phi, &v0);
        let defect = (m * heavy_top_tensor(&v0) * m.transpose() - heavy_top_tensor(&phi(&v0))).amax();
        assert!(defect <= 1e-8, "Poisson defect {defect:e}");
    }
    // negative control: RK4 on Π' = Π × Ω + Γ × χ, Γ' = Γ × Ω
    let field = |v: &SVector<f64, 6>| {
        let (p, g) = (v.fixed_rows::<3>(0).into_owned(), v.fixed_rows::<3>(3).into_owned());
        let w = omega(&p);
        let mut out = SVector::<f64, 6>::zeros();
        out.fixed_rows_mut::<3>(0).copy_from(&(p.cross(&w) + g.cross(&Vector3::z()) * WEIGHT));
        out.fixed_rows_mut::<3>(3).copy_from(&g.cross(&w));
        out
    };
    // at a large step both are tested: the reduced map passes, RK4 fails
    let big = 0.3;
    let v0 = flat(&AdvectedState::new(Vector3::new(0.6, 1.5, 2.5), Vector3::new(0.0, 0.6, 0.8)));
    let defect_of = |phi: &dyn Fn(&SVector<f64, 6>) -> SVector<f64, 6>| {
        let m = fd_jacobian(phi, &v0);
        (m * heavy_top_tensor(&v0) * m.transpose() - heavy_top_tensor(&phi(&v0))).amax()
    };
    let ours = defect_of(&|v: &SVector<f64, 6>| {
        let mut y = unflat(v);
        lp.step(&mut y, big).unwrap();
        flat(&y)
    });
    let rk = defect_of(&|v: &SVector<f64, 6>| rk4(field, v, big));
    assert!(ours <= 1e-8 && rk > 1e-6, "h = {big}: reduced map {ours:e}, RK4 {rk:e}");
}

/// A left-invariant Hamiltonian on se(3)*: `½ μᵀ M⁻¹ μ` with a coupled mass matrix.
struct Vehicle;
impl ScalarFunction<6> for Vehicle {
    fn eval<S: Scalar>(&self, m: &SVector<S, 6>) -> S {
        let w = [1.0, 2.0, 1.5, 0.5, 0.8, 0.6];
        let diag = (0..6).fold(S::from(0.0), |a, i| a + m[i] * m[i] * S::from(w[i]));
        (diag + m[0] * m[4] * S::from(0.2)) * S::from(0.5)
    }
}

#[test]
fn reduced_se3_system_is_a_poisson_map() {
    let lp = LiePoissonIntegrator::new(LieGroupThetaMap::midpoint(Se3, Chart::Cayley), Vehicle);
    let h = 0.05;
    for m0 in [Vector6::new(0.3, -0.2, 0.5, 1.0, 0.4, -0.6), Vector6::new(-1.0, 0.1, 0.2, 0.3, -0.8, 0.5)] {
        let phi = |m: &SVector<f64, 6>| {
            let mut q = *m;
            lp.step(&mut q, h).unwrap();
            q
        };
        let jac = fd_jacobian(phi, &m0);
        let defect =
            (jac * lie_poisson_tensor(&Se3, &m0) * jac.transpose() - lie_poisson_tensor(&Se3, &phi(&m0))).amax();
        assert!(defect <= 1e-8, "se(3)* Poisson defect {defect:e}");
        // the Casimirs of se(3)*: |p|² and w·p (angular w = μ[0..3], linear p = μ[3..6])
        let mut m = m0;
        let cas = |m: &SVector<f64, 6>| {
            let (w, p) = (m.fixed_rows::<3>(0), m.fixed_rows::<3>(3));
            (p.norm_squared(), w.dot(&p))
        };
        let c0 = cas(&m);
        for _ in 0..500 {
            lp.step(&mut m, h).unwrap();
        }
        let c = cas(&m);
        assert!((c.0 - c0.0).abs() < 1e-13 && (c.1 - c0.1).abs() < 1e-13, "{c0:?} -> {c:?}");
    }
}

/// A discrete Lagrangian on SO(3) (as a groupoid over a point): `L_d(W) = tr((I - W) J)/h + h V(W)`
/// with a non-diagonal `J` and a potential, written over the scalar.
#[derive(Debug)]
struct Ld;
impl<S: Scalar> LieFunction<S, So3, 3> for Ld {
    fn eval(&self, _: &So3, w: &Matrix3<S>, _: &SVector<S, 3>) -> S {
        let j = Matrix3::new(1.0, 0.2, 0.0, 0.2, 2.0, 0.1, 0.0, 0.1, 3.0).map(S::from);
        let kinetic = (Matrix3::identity() - w) * j;
        kinetic.trace() * S::from(10.0) + w[(2, 0)] * w[(0, 1)] * S::from(0.1)
    }
}

/// `ω((η_1, ν_1), (η_2, ν_2)) = <ν_2, η_1> - <ν_1, η_2> + <μ, [η_1, η_2]>` on `T*G` in left
/// trivialization.
fn omega_so3(mu: &Vector3<f64>, e1: &Vector3<f64>, n1: &Vector3<f64>, e2: &Vector3<f64>, n2: &Vector3<f64>) -> f64 {
    n2.dot(e1) - n1.dot(e2) + mu.dot(&LieGroup::<f64, 3>::bracket(&So3, e1, e2))
}

#[test]
fn sigma_l_is_lagrangian_in_t_star_so3() {
    use discretization::lie_function::LieFunctionDerivatives;
    // Σ_L = {(W, μ = D_W L_d)}: its tangent vectors are (η, gg η); ω vanishes on them
    let ad = LieAutoDiff(Ld);
    let zero = Vector3::zeros();
    let basis = |i: usize| Vector3::from_fn(|k, _| if k == i { 1.0 } else { 0.0 });
    for x in [Vector3::new(0.1, -0.2, 0.3), Vector3::new(0.5, 0.4, -0.1)] {
        let w = So3.exp(&x);
        let (grad, hess) = ad.gradient_and_hessian(&So3, &w, &zero).unwrap();
        let mut worst = 0.0f64;
        for i in 0..3 {
            for j in 0..3 {
                let (e1, e2) = (basis(i), basis(j));
                worst = worst.max(omega_so3(&grad.g, &e1, &(hess.gg * e1), &e2, &(hess.gg * e2)).abs());
            }
        }
        assert!(worst <= 1e-12, "ω on T Σ_L: {worst:e}");
        // negative control: the section μ(W) = Wᵀ a (not a differential) is not Lagrangian
        let a = Vector3::new(0.3, -1.0, 0.5);
        let section = |w: &Matrix3<f64>| w.transpose() * a;
        let mut bad = 0.0f64;
        for i in 0..3 {
            for j in 0..3 {
                let eps = 1e-6;
                let dn = |e: &Vector3<f64>| {
                    (section(&(w * So3.exp(&(e * eps)))) - section(&(w * So3.exp(&(e * -eps))))) / (2.0 * eps)
                };
                let (e1, e2) = (basis(i), basis(j));
                bad = bad.max(omega_so3(&section(&w), &e1, &dn(&e1), &e2, &dn(&e2)).abs());
            }
        }
        assert!(bad > 1e-2, "a non-exact section must fail: {bad:e}");
    }
}
