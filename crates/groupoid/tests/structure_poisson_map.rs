//! Structure test (issue 33, item 4): the reduced discrete Hamiltonian flow
//! `F^+L ∘ (F^-L)^{-1}` on `A*G` ([`DiscreteHamiltonianFlow`]) is a Poisson map of the linear
//! Poisson structure of the algebroid (Marrero, Martín de Diego & Martínez, *Discrete Lagrangian
//! and Hamiltonian mechanics on Lie groupoids*, 2006, arXiv:math/0506299, §4; Marrero,
//! Martín de Diego & Stern, 2015, arXiv:1103.6250, §2; docs/math.md §C.3) — for a non-abelian
//! action groupoid and an Atiyah groupoid.
//!
//! Coordinates of `A*G`: `z = (u, μ)`, `u` the algebroid's base chart `x = φ_{x_c}(u)`
//! ([`LieAlgebroid::base_chart`], fixed centre `x_c`), `μ ∈ R^R` the components in the basis
//! `e_a` of the fibre chart (those of [`legendre_plus`](groupoid::legendre_plus)). The linear
//! Poisson tensor, from the algebroid's anchor `ρ^i_a(u)` ([`LieAlgebroid::anchor`]) and
//! structure functions `C^c_ab(u)` ([`LieAlgebroid::structure`]):
//!
//! ```text
//!   {u^i, u^j} = 0,   {u^i, μ_a} = ρ^i_a(u),   {μ_a, μ_b} = −C^c_ab(u) μ_c,
//!   Π(z) = [[0, ρ], [−ρᵀ, −C(u)·μ]]
//! ```
//!
//! (the `(−, −)` convention `{X̂, Ŷ} = −[X, Y]^`, `{X̂, f} = −ρ(X) f` for the linear functions
//! `X̂(μ) = ⟨μ, X⟩`: the canonical `{q, p} = 1` on `T*R^n`, the minus Lie–Poisson bracket of
//! body momenta on `g*`; the heavy top's `Γ·μ` is a Casimir of it, and of no other relative sign).
//!
//! Check: `|M Π(z) Mᵀ − Π(Φ(z))|_∞ ≤ 1e-8` for the step Jacobian `M`, by geom-core's contract
//! checker [`check_poisson_map`] (central differences, `δ = 1e-5 (1 + |z_i|)`: truncation
//! `O(δ²) ≈ 1e-10`, Newton tolerance `1e-14` entering as `1e-14/δ = 1e-9`).
//!
//! Negative controls, failing the same check with defect `≥ 1e-3`:
//! * an explicit Euler step `z_1 = z + h Π(z) ∇H(z)` of the reduced (Poisson) equations of the
//!   same system;
//! * the discrete flow itself against the tensor with the other relative sign of the anchor and
//!   bracket blocks, `[[0, ρ], [−ρᵀ, +C·μ]]` (not a Poisson tensor when `ρ` and `C` both act):
//!   the check sees the coupling of the base and the non-abelian fibre.

use geom_core::action::SphereRotation;
use geom_core::lie::{Chart, So3};
use geom_core::step::OneStep;
use geom_core::step::testing::check_poisson_map;
use geom_core::{GeomError, Scalar};
use groupoid::lagrangian::GroupoidFamily;
use groupoid::{ActionGroupoid, AdGroupoid, DiscreteHamiltonianFlow, DiscreteLagrangian, LieAlgebroid, TrivialAtiyah};
use nalgebra::{DMatrix, Matrix3, SVector, Vector2, Vector3};
use num_dual::DualSVec64;

type Top = ActionGroupoid<SphereRotation>;
type Atiyah = TrivialAtiyah<So3, 2, 3>;

/// Principal moments of inertia.
const INERTIA: [f64; 3] = [1.0, 1.5, 2.0];
/// `m g l χ` of the heavy top.
const WEIGHT: [f64; 3] = [0.2, 0.1, 1.0];

/// `J_d = ½ tr(I) 1 − I` (Moser–Veselov: `tr((1 − W) J_d) ≈ ½ ΩᵀIΩ` for `W = exp(Ω̂)`).
fn jd() -> Matrix3<f64> {
    let i = Matrix3::from_diagonal(&Vector3::from(INERTIA));
    Matrix3::identity() * (0.5 * i.trace()) - i
}

/// The Moser–Veselov heavy top on `S² × SO(3) ⇉ S²`:
/// `L(Γ, W) = (1/h) tr((1 − W) J_d) − (h/2)(χ·Γ + χ·Wᵀ Γ)`.
struct HeavyTop(f64);
impl DiscreteLagrangian<Top, 3> for HeavyTop {
    fn eval<S: Scalar>(&self, _: &Top, g: &(Vector3<S>, Matrix3<S>)) -> S {
        let kinetic = ((Matrix3::identity() - g.1) * jd().map(S::from)).trace() * S::from(1.0 / self.0);
        let chi = Vector3::from(WEIGHT).map(S::from);
        kinetic - (chi.dot(&g.0) + chi.dot(&(g.1.transpose() * g.0))) * S::from(0.5 * self.0)
    }
}

/// A rigid body whose inertia depends on a shape `x ∈ R²` on the trivial Atiyah groupoid
/// `(R² × R²) × SO(3) ⇉ R²` (a discrete Lagrange–Poincaré system):
/// `L(x_0, x_1, W) = |x_1 − x_0|²/(2h) + s(x_0) tr((1 − W) J_d)/h − (h/2)(V(x_0) + V(x_1))`,
/// `s(x) = 1 + 0.3 |x|²`, `V(x) = ½|x|²`.
struct ShapedBody(f64);
impl DiscreteLagrangian<Atiyah, 5> for ShapedBody {
    fn eval<S: Scalar>(&self, _: &Atiyah, g: &(SVector<S, 2>, SVector<S, 2>, Matrix3<S>)) -> S {
        let h = S::from(self.0);
        let s = S::from(1.0) + g.0.norm_squared() * S::from(0.3);
        let kinetic = ((Matrix3::identity() - g.2) * jd().map(S::from)).trace() * s / h;
        (g.1 - g.0).norm_squared() / (h * S::from(2.0)) + kinetic
            - (g.0.norm_squared() + g.1.norm_squared()) * h * S::from(0.25)
    }
}

/// A reduced system: its groupoid, the discrete Lagrangian of a step `h`, a Newton guess, and
/// the continuous Hamiltonian `H(u, μ)` of its reduced equations (for the Euler control).
trait Reduced<const R: usize, const M: usize, const W: usize>: Send + Sync {
    type Gd: AdGroupoid<R> + LieAlgebroid<R, M> + Clone;
    type L: DiscreteLagrangian<Self::Gd, R>;
    fn groupoid(&self) -> Self::Gd;
    fn center(&self) -> <Self::Gd as GroupoidFamily<R>>::Base<f64>;
    fn lagrangian(&self, h: f64) -> Self::L;
    /// Fibre coordinates `≈ h v` of the arrow from `(x, μ)`.
    fn guess(&self, x: &<Self::Gd as GroupoidFamily<R>>::Base<f64>, mu: &SVector<f64, R>, h: f64) -> SVector<f64, R>;
    /// `H(z)`.
    fn hamiltonian<S: Scalar>(&self, z: &SVector<S, W>) -> S;
}

/// The heavy top on `A*G = S² × so(3)*` (`u ∈ R²` gnomonic, `μ ∈ R³`).
#[derive(Debug, Clone, Copy)]
struct TopSystem;
impl Reduced<3, 2, 5> for TopSystem {
    type Gd = Top;
    type L = HeavyTop;
    fn groupoid(&self) -> Top {
        ActionGroupoid::new(SphereRotation, Chart::Exp)
    }
    fn center(&self) -> Vector3<f64> {
        Vector3::new(0.3, -0.2, 0.9).normalize()
    }
    fn lagrangian(&self, h: f64) -> HeavyTop {
        HeavyTop(h)
    }
    fn guess(&self, _: &Vector3<f64>, mu: &Vector3<f64>, h: f64) -> Vector3<f64> {
        mu.component_div(&Vector3::from(INERTIA)) * h
    }
    /// `½ μᵀ I^{-1} μ + χ·Γ(u)`.
    fn hamiltonian<S: Scalar>(&self, z: &SVector<S, 5>) -> S {
        let gamma =
            <Top as LieAlgebroid<3, 2>>::base_chart::<S>(&self.groupoid(), &self.center(), &Vector2::new(z[0], z[1]));
        let mu = Vector3::new(z[2], z[3], z[4]);
        let kinetic = (0..3).fold(S::from(0.0), |acc, a| acc + mu[a] * mu[a] * S::from(0.5 / INERTIA[a]));
        kinetic + gamma.dot(&Vector3::from(WEIGHT).map(S::from))
    }
}

/// The shaped body on `A*G = T*R² × so(3)*` (`u ∈ R²`, `μ = (p, π) ∈ R⁵`).
#[derive(Debug, Clone, Copy)]
struct ShapedSystem;
impl Reduced<5, 2, 7> for ShapedSystem {
    type Gd = Atiyah;
    type L = ShapedBody;
    fn groupoid(&self) -> Atiyah {
        TrivialAtiyah::new(So3, Chart::Exp)
    }
    fn center(&self) -> SVector<f64, 2> {
        Vector2::new(0.4, -0.3)
    }
    fn lagrangian(&self, h: f64) -> ShapedBody {
        ShapedBody(h)
    }
    fn guess(&self, x: &SVector<f64, 2>, mu: &SVector<f64, 5>, h: f64) -> SVector<f64, 5> {
        let s = 1.0 + 0.3 * x.norm_squared();
        SVector::from([mu[0], mu[1], mu[2] / (s * INERTIA[0]), mu[3] / (s * INERTIA[1]), mu[4] / (s * INERTIA[2])]) * h
    }
    /// `½|p|² + ½ πᵀ (s(x) I)^{-1} π + ½|x|²`, `x = x_c + u`.
    fn hamiltonian<S: Scalar>(&self, z: &SVector<S, 7>) -> S {
        let x = <Atiyah as LieAlgebroid<5, 2>>::base_chart::<S>(
            &self.groupoid(),
            &self.center(),
            &Vector2::new(z[0], z[1]),
        );
        let s = S::from(1.0) + x.norm_squared() * S::from(0.3);
        let rotation = (0..3).fold(S::from(0.0), |acc, a| acc + z[4 + a] * z[4 + a] * S::from(0.5 / INERTIA[a]));
        (z[2] * z[2] + z[3] * z[3] + x.norm_squared()) * S::from(0.5) + rotation / s
    }
}

/// `z = (u, μ)` split.
fn split<const R: usize, const M: usize, const W: usize>(z: &SVector<f64, W>) -> (SVector<f64, M>, SVector<f64, R>) {
    assert_eq!(W, M + R);
    (z.fixed_rows::<M>(0).into_owned(), z.fixed_rows::<R>(M).into_owned())
}

/// The linear Poisson tensor `Π(z) = [[0, ρ], [−ρᵀ, −σ C(u)·μ]]` (module documentation) of the
/// algebroid of `gd` in the base chart centred at `center`; `σ = 1` is the Poisson tensor,
/// `σ = −1` the control with the other relative sign.
fn tensor<Gd: LieAlgebroid<R, M>, const R: usize, const M: usize, const W: usize>(
    gd: Gd,
    center: Gd::Base<f64>,
    sigma: f64,
) -> impl Fn(&[f64]) -> DMatrix<f64> {
    move |w: &[f64]| {
        let (u, mu) = split::<R, M, W>(&SVector::from_column_slice(w));
        let rho = gd.anchor::<f64>(&center, &u).unwrap();
        let c = gd.structure::<f64>(&center, &u).unwrap();
        let mut pi = DMatrix::zeros(W, W);
        for a in 0..R {
            for i in 0..M {
                pi[(i, M + a)] = rho[(i, a)];
                pi[(M + a, i)] = -rho[(i, a)];
            }
            for b in 0..R {
                pi[(M + a, M + b)] = -sigma * (0..R).map(|k| c[k][(a, b)] * mu[k]).sum::<f64>();
            }
        }
        pi
    }
}

/// The reduced discrete Hamiltonian flow `(u, μ) ↦ (u_1, μ_1)` in the chart (rank `R`, base
/// dimension `M`).
struct Discrete<Sys, const R: usize, const M: usize>(Sys);
impl<Sys: Reduced<R, M, W>, const R: usize, const M: usize, const W: usize> OneStep<SVector<f64, W>>
    for Discrete<Sys, R, M>
{
    fn name(&self) -> String {
        "reduced discrete Hamiltonian flow F^+L ∘ (F^-L)^{-1}".into()
    }
    fn order(&self) -> u32 {
        2
    }
    fn step(&self, z: &mut SVector<f64, W>, h: f64) -> Result<(), GeomError> {
        let sys = &self.0;
        let (gd, center) = (sys.groupoid(), sys.center());
        let (u, mu) = split::<R, M, W>(z);
        let x = gd.base_chart::<f64>(&center, &u);
        let guess = sys.guess(&x, &mu, h);
        let flow = DiscreteHamiltonianFlow::new(gd.clone(), sys.lagrangian(h));
        let (x1, mu1, _) = flow.step::<R>(&x, &mu, &guess)?;
        let u1 = gd.base_chart_inv::<f64>(&center, &x1)?;
        z.fixed_rows_mut::<M>(0).copy_from(&u1);
        z.fixed_rows_mut::<R>(M).copy_from(&mu1);
        Ok(())
    }
}

/// Explicit Euler `z_1 = z + h Π(z) ∇H(z)` of the reduced equations (`∇H` by forward AD).
struct Euler<Sys, const R: usize, const M: usize>(Sys);
impl<Sys: Reduced<R, M, W>, const R: usize, const M: usize, const W: usize> OneStep<SVector<f64, W>>
    for Euler<Sys, R, M>
{
    fn name(&self) -> String {
        "explicit Euler of the reduced equations".into()
    }
    fn order(&self) -> u32 {
        1
    }
    fn step(&self, z: &mut SVector<f64, W>, h: f64) -> Result<(), GeomError> {
        let sys = &self.0;
        let (_, grad) = num_dual::gradient(|w: SVector<DualSVec64<W>, W>| sys.hamiltonian(&w), z);
        let pi = tensor::<_, R, M, W>(sys.groupoid(), sys.center(), 1.0)(z.as_slice());
        let dz = pi * nalgebra::DVector::from_column_slice(grad.as_slice()) * h;
        *z += SVector::<f64, W>::from_column_slice(dz.as_slice());
        Ok(())
    }
}

/// Run the checks over states and steps; assert and print. The discrete flow at `h = 0.1` and
/// `0.05`; the controls at `h = 0.1` (the Euler defect is `O(h²)`: measured down to `1e-3` at
/// `h = 0.05`).
fn run<Sys: Reduced<R, M, W> + Copy, const R: usize, const M: usize, const W: usize>(
    what: &str,
    sys: Sys,
    states: &[SVector<f64, W>],
) {
    let good = || tensor::<_, R, M, W>(sys.groupoid(), sys.center(), 1.0);
    let (mut flow, mut euler, mut wrong) = (0.0f64, f64::INFINITY, f64::INFINITY);
    for h in [0.1, 0.05] {
        for z0 in states {
            let f = check_poisson_map(&Discrete::<_, R, M>(sys), z0, h, good()).unwrap();
            println!("{what}, h = {h}: |MΠMᵀ − Π∘Φ|_∞ = {f:.2e} (discrete flow)");
            flow = flow.max(f);
        }
    }
    let h = 0.1;
    for z0 in states {
        let e = check_poisson_map(&Euler::<_, R, M>(sys), z0, h, good()).unwrap();
        let flipped = tensor::<_, R, M, W>(sys.groupoid(), sys.center(), -1.0);
        let w = check_poisson_map(&Discrete::<_, R, M>(sys), z0, h, flipped).unwrap();
        println!("{what}, h = {h}: {e:.2e} (explicit Euler), {w:.2e} (discrete flow, other relative sign)");
        (euler, wrong) = (euler.min(e), wrong.min(w));
    }
    assert!(flow <= 1e-8, "{what}: the discrete Hamiltonian flow is not Poisson: {flow:e}");
    assert!(euler >= 1e-3, "{what}: explicit Euler passed the Poisson check: {euler:e}");
    assert!(wrong >= 1e-3, "{what}: the other relative sign passed the Poisson check: {wrong:e}");
}

#[test]
fn heavy_top_flow_on_the_action_algebroid_dual_is_poisson() {
    // (u, μ): Γ near the chart centre, body angular momenta of size ~ 1–3
    let states = [
        SVector::from([0.0, 0.0, 0.5, -1.0, 2.0]),
        SVector::from([0.1, -0.2, 1.5, 0.3, -0.8]),
        SVector::from([-0.3, 0.15, -0.7, 2.2, 1.1]),
    ];
    run("heavy top on S² × so(3)*", TopSystem, &states);
}

#[test]
fn shaped_body_flow_on_the_atiyah_algebroid_dual_is_poisson() {
    // (u, p, π): shape velocities and body angular momenta of size ~ 1
    let states = [
        SVector::from([0.0, 0.0, 0.3, -0.5, 0.5, -1.0, 2.0]),
        SVector::from([0.2, 0.1, -0.8, 0.4, 1.5, 0.3, -0.8]),
        SVector::from([-0.3, 0.25, 0.1, 0.9, -0.7, 2.2, 1.1]),
    ];
    run("shaped body on T*R² × so(3)*", ShapedSystem, &states);
}
