//! Tutorial: add a Lie group (docs/tutorials/add_a_lie_group.md).
//!
//! The Heisenberg group `H(3)` of 3×3 upper unitriangular matrices is defined **in this file
//! only**, by implementing `geom_core::lie::LieGroup<S, 3>` once for every scalar `S: Scalar`
//! (so that dual numbers give exact derivatives), and `geom_core::lie::LieGroupFamily<3>` (the
//! group at every scalar: four one-line items). These **two impls** are all every layer asks
//! for. Then, without touching any crate:
//!
//! 1. the group axioms, `exp`/`log`, Cayley against its definition, `Ad`, `ad`, and `dexp`,
//!    `dcay^{-1}` against automatic differentiation;
//! 2. `discretization::LieGroupThetaMap` on `H(3)`: the defining properties of a discretization
//!    map and symmetry preservation under left multiplication;
//! 3. `integrators::hp::stormer_verlet` for the free particle on `H(3)` (a custom left-invariant
//!    Lagrangian) and for a particle in a harmonic trap (`AutoDiff(KineticPotential)` with a
//!    potential given by its value only): the Casimir `Π_3`, the spatial momentum and the energy;
//!    the free case is compared with the Lie-group discrete Euler–Poincaré step of
//!    `discretization` (docs/math.md §B.2: the two coincide for `τ = exp`);
//! 4. `groupoid::GroupAsGroupoid<H(3)>` runs the DEL flow of a discrete Lagrangian on
//!    `H(3) ⇉ {e}` (no wrapper).
//!
//! Run: `cargo run --release --example tutorial_lie_group`.

use discretization::LieState;
use discretization::checks::{LieChart, check_discretization_map, check_symmetry_preservation, sample_algebra};
use discretization::lagrangian::LieGroupDiscreteEulerLagrange;
use discretization::{LieGroupThetaMap, OneStep};
use geom_core::action::LeftMultiplication;
use geom_core::function::ScalarFunction;
use geom_core::lie::{Chart, LieGroup, LieGroupFamily, dexp_series};
use geom_core::{GeomError, Result, Scalar};
use groupoid::{DiscreteFlow, DiscreteLagrangian, GroupAsGroupoid, legendre_plus};
use integrators::hp::{self, KineticPotential, LeftLagrangian, LieFunction, Potential};
use nalgebra::{Matrix3, SVector, Vector3};
use num_dual::Dual64;

// ------------------------------------------------------------------------------------------
// 1. The group
// ------------------------------------------------------------------------------------------

/// The Heisenberg group `H(3)`: matrices `[[1, x, z], [0, 1, y], [0, 0, 1]]`.
///
/// Algebra coordinates `ξ = (a, b, c)` with `hat(ξ) = [[0, a, c], [0, 0, b], [0, 0, 0]]`; the
/// bracket is `[ξ, η] = (0, 0, a b' - a' b)` (the centre is spanned by `e_3`). Because
/// `hat(ξ)^3 = 0`, every series terminates:
/// `exp(ξ) = I + X + X²/2 = cay(ξ)`, `dexp_ξ = I + ad_ξ/2`, `dexp_ξ^{-1} = dcay_ξ^{-1} = I - ad_ξ/2`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Heisenberg;

/// The element `[[1, x, z], [0, 1, y], [0, 0, 1]]`.
fn element<S: Scalar>(x: S, y: S, z: S) -> Matrix3<S> {
    let (o, l) = (S::from(0.0), S::from(1.0));
    Matrix3::new(l, x, z, o, l, y, o, o, l)
}

/// `(x, y, z)` of an element.
fn coordinates<S: Scalar>(g: &Matrix3<S>) -> (S, S, S) {
    (g[(0, 1)], g[(1, 2)], g[(0, 2)])
}

impl<S: Scalar> LieGroup<S, 3> for Heisenberg {
    type Element = Matrix3<S>;
    type Matrix = Matrix3<S>;

    fn name(&self) -> String {
        "H(3)".into()
    }
    fn identity(&self) -> Matrix3<S> {
        Matrix3::identity()
    }
    /// `(x, y, z)(x', y', z') = (x + x', y + y', z + z' + x y')`.
    fn compose(&self, a: &Matrix3<S>, b: &Matrix3<S>) -> Matrix3<S> {
        let ((x, y, z), (u, v, w)) = (coordinates(a), coordinates(b));
        element(x + u, y + v, z + w + x * v)
    }
    /// `(x, y, z)^{-1} = (-x, -y, x y - z)`.
    fn inverse(&self, a: &Matrix3<S>) -> Matrix3<S> {
        let (x, y, z) = coordinates(a);
        element(-x, -y, x * y - z)
    }
    /// `exp(a, b, c) = (a, b, c + a b / 2)`.
    fn exp(&self, xi: &Vector3<S>) -> Matrix3<S> {
        element(xi[0], xi[1], xi[2] + xi[0] * xi[1] * S::from(0.5))
    }
    /// `log(x, y, z) = (x, y, z - x y / 2)`: defined on the whole group.
    fn log(&self, g: &Matrix3<S>) -> Result<Vector3<S>> {
        let (x, y, z) = coordinates(g);
        Ok(Vector3::new(x, y, z - x * y * S::from(0.5)))
    }
    fn hat(&self, xi: &Vector3<S>) -> Matrix3<S> {
        let o = S::from(0.0);
        Matrix3::new(o, xi[0], xi[2], o, o, xi[1], o, o, o)
    }
    fn vee(&self, m: &Matrix3<S>) -> Vector3<S> {
        Vector3::new(m[(0, 1)], m[(1, 2)], m[(0, 2)])
    }
    fn to_matrix(&self, g: &Matrix3<S>) -> Matrix3<S> {
        *g
    }
    /// `Ad_(x, y, z) (a, b, c) = (a, b, c + x b - y a)`.
    fn adjoint(&self, g: &Matrix3<S>) -> Matrix3<S> {
        let (x, y, _) = coordinates(g);
        let (o, l) = (S::from(0.0), S::from(1.0));
        Matrix3::new(l, o, o, o, l, o, -y, x, l)
    }
    /// `ad_(a, b, c) (a', b', c') = (0, 0, a b' - b a')`.
    fn ad(&self, xi: &Vector3<S>) -> Matrix3<S> {
        let o = S::from(0.0);
        Matrix3::new(o, o, o, o, o, o, -xi[1], xi[0], o)
    }
    /// `Y - [X, Y]/2 - X Y X/4 = Y - [X, Y]/2` (`X Y X = 0` for strictly upper triangular 3×3).
    fn dcay_inv(&self, xi: &Vector3<S>) -> Matrix3<S> {
        Matrix3::identity() - self.ad(xi) * S::from(0.5)
    }
    /// `(I - X/2)^{-1} (I + X/2) = (I + X/2 + X²/4)(I + X/2) = I + X + X²/2`: the Cayley map *is*
    /// the exponential on `H(3)`.
    fn cayley(&self, xi: &Vector3<S>) -> Result<Matrix3<S>> {
        Ok(self.exp(xi))
    }
    fn cayley_inv(&self, g: &Matrix3<S>) -> Result<Vector3<S>> {
        self.log(g)
    }
    /// The terminating series `Σ_k ad^k/(k+1)! = I + ad/2` (`ad² = 0`).
    fn dexp(&self, xi: &Vector3<S>) -> Matrix3<S> {
        Matrix3::identity() + self.ad(xi) * S::from(0.5)
    }
    /// `Σ_j B_j/j! ad^j = I - ad/2`.
    fn dexp_inv(&self, xi: &Vector3<S>) -> Result<Matrix3<S>> {
        Ok(Matrix3::identity() - self.ad(xi) * S::from(0.5))
    }
    /// Distance to `H(3)`: the entries below and on the diagonal against those of `I`.
    fn defect(&self, g: &Matrix3<S>) -> f64 {
        let m = g.map(|v| v.re());
        if !m.iter().all(|v| v.is_finite()) {
            return f64::INFINITY;
        }
        let lower = [(1, 0), (2, 0), (2, 1)].iter().map(|&ij| m[ij].powi(2)).sum::<f64>();
        let diagonal = (0..3).map(|i| (m[(i, i)] - 1.0).powi(2)).sum::<f64>();
        (lower + diagonal).sqrt()
    }
}

/// The group at every scalar, the one trait every layer asks for besides `LieGroup<S, 3>`: the
/// element type, the group at scalar `S` (the group itself), and the entrywise moves between
/// scalars (f64 -> dual numbers for the Newton Jacobian of the HP step, dual -> hyper-dual for
/// `AutoDiff`). The chart derivative `D_x[(dτ^{-1}_x)ᵀ μ]` of the reduced HP Newton iteration
/// and the translation jets keep their defaults (AD from `dexp_inv` / `dcay_inv` above).
impl LieGroupFamily<3> for Heisenberg {
    type ElementAt<S: Scalar> = Matrix3<S>;
    fn at<S: Scalar>(&self) -> impl LieGroup<S, 3, Element = Matrix3<S>> {
        *self
    }
    fn lift_at<S: Scalar>(&self, g: &Matrix3<f64>) -> Matrix3<S> {
        g.map(S::from)
    }
    fn map_scalar<A: Scalar, B: Scalar, F: Fn(A) -> B>(&self, g: &Matrix3<A>, f: &F) -> Matrix3<B> {
        g.map(f)
    }
}

/// `L_d(W) = ½ |vee(W - I)|²_I / h`: a discrete free-particle Lagrangian on `H(3) ⇉ {e}`.
struct Free(f64, Vector3<f64>);
impl DiscreteLagrangian<GroupAsGroupoid<Heisenberg>, 3> for Free {
    #[inline]
    fn eval<S: Scalar>(&self, _: &GroupAsGroupoid<Heisenberg>, w: &Matrix3<S>) -> S {
        let (x, y, z) = coordinates(w);
        (x * x * S::from(self.1[0]) + y * y * S::from(self.1[1]) + z * z * S::from(self.1[2])) * S::from(0.5 / self.0)
    }
}

// ------------------------------------------------------------------------------------------
// 2. Lagrangians on H(3)
// ------------------------------------------------------------------------------------------

/// The free particle `ℓ(ξ) = ½ ξᵀ I ξ` (left-invariant, diagonal inertia `I`): the
/// Euler–Poincaré equations `Π̇ = ad*_ξ Π = (-ξ_2 Π_3, ξ_1 Π_3, 0)` are the Landau problem of a
/// charge `Π_3` in a uniform magnetic field.
#[derive(Debug, Clone, Copy)]
struct FreeParticle {
    inertia: Vector3<f64>,
}

impl<S: Scalar> LieFunction<S, Heisenberg, 3> for FreeParticle {
    #[inline]
    fn eval(&self, _: &Heisenberg, _: &Matrix3<S>, xi: &Vector3<S>) -> S {
        self.inertia.map(S::from).component_mul(xi).dot(xi) * S::from(0.5)
    }
}

impl<S: Scalar> LeftLagrangian<S, Heisenberg, 3> for FreeParticle {
    /// `ℓ(g, ξ) = ℓ(e, ξ)`: the integrator takes the reduced one-block path.
    const LEFT_INVARIANT: bool = true;
    fn momentum(&self, _: &Heisenberg, _: &Matrix3<S>, xi: &Vector3<S>) -> Result<Vector3<S>> {
        Ok(self.inertia.map(S::from).component_mul(xi))
    }
    fn force(&self, _: &Heisenberg, _: &Matrix3<S>, _: &Vector3<S>) -> Result<Vector3<S>> {
        Ok(Vector3::zeros())
    }
    fn velocity_guess(&self, _: &Heisenberg, _: &Matrix3<S>, pi: &Vector3<S>) -> Option<Vector3<S>> {
        Some(pi.component_div(&self.inertia.map(S::from)))
    }
}

/// The same `ℓ(ξ)` as a function on the algebra, for the discrete Euler–Poincaré step of
/// `discretization` (`L_d = h ℓ(log(g_0^{-1} g_1)/h)`).
#[derive(Debug, Clone, Copy)]
struct ReducedLagrangian {
    inertia: Vector3<f64>,
}

impl ScalarFunction<3> for ReducedLagrangian {
    #[inline]
    fn eval<S: Scalar>(&self, xi: &SVector<S, 3>) -> S {
        self.inertia.map(S::from).component_mul(xi).dot(xi) * S::from(0.5)
    }
}

/// A harmonic trap `V(g) = ½ k (x² + y²)`, given by its value only; `AutoDiff` differentiates it
/// through the group (`<dV, η> = d/dε V(g exp(εη))`). It is invariant under left multiplication
/// by the centre `(0, 0, t)`, so Noether's theorem keeps `Π_3` conserved.
#[derive(Debug, Clone, Copy)]
struct Trap {
    k: f64,
}

impl<S: Scalar> Potential<S, Heisenberg, 3> for Trap {
    fn value(&self, _: &Heisenberg, g: &Matrix3<S>) -> S {
        let (x, y, _) = coordinates(g);
        (x * x + y * y) * S::from(0.5 * self.k)
    }
}

// ------------------------------------------------------------------------------------------
// 3. Checks and runs
// ------------------------------------------------------------------------------------------

/// Largest violation of the group axioms and identities over sampled elements.
fn group_checks() -> Result<[(&'static str, f64); 9]> {
    let g = Heisenberg;
    let xs = sample_algebra::<3>(24, 2.0, 11);
    let e: Matrix3<f64> = g.identity();
    let mut worst = [0.0f64; 9];
    for w in xs.windows(3) {
        let (a, b, c) = (g.exp(&w[0]), g.exp(&w[1]), g.exp(&w[2]));
        let assoc = (g.compose(&g.compose(&a, &b), &c) - g.compose(&a, &g.compose(&b, &c))).amax();
        let unit = (g.compose(&e, &a) - a).amax().max((g.compose(&a, &e) - a).amax());
        let inv = (g.compose(&a, &g.inverse(&a)) - e).amax();
        let matrix = (g.compose(&a, &b) - a * b).amax(); // the product is the matrix product
        worst[0] = worst[0].max(assoc.max(unit).max(inv).max(matrix));
        worst[1] = worst[1].max((g.log(&a)? - w[0]).amax().max((g.exp(&g.log(&b)?) - b).amax()));
        // Cayley against its definition (I - X/2)^{-1} (I + X/2)
        let x = g.hat(&w[0]);
        let cay_def = (Matrix3::identity() - x * 0.5)
            .try_inverse()
            .ok_or(GeomError::SingularMatrix { what: "I - X/2", iteration: 0 })?
            * (Matrix3::identity() + x * 0.5);
        worst[2] = worst[2].max((g.cayley(&w[0])? - cay_def).amax());
        // Ad_g ξ = vee(g hat(ξ) g^{-1}) and Ad_{ab} = Ad_a Ad_b
        let ad_def = g.vee(&(a * g.hat(&w[1]) * g.inverse(&a)));
        let hom = (g.adjoint(&g.compose(&a, &b)) - g.adjoint(&a) * g.adjoint(&b)).amax();
        worst[3] = worst[3].max((g.adjoint(&a) * w[1] - ad_def).amax().max(hom));
        // ad_ξ η = vee([hat ξ, hat η])
        let (hx, hy) = (g.hat(&w[0]), g.hat(&w[1]));
        worst[4] = worst[4].max((g.ad(&w[0]) * w[1] - g.vee(&(hx * hy - hy * hx))).amax());
        // dexp against AD: (D exp(x)·y) exp(x)^{-1} = dexp_x y, and against the generic series
        let xd = SVector::<Dual64, 3>::from_fn(|i, _| Dual64::new(w[0][i], w[1][i]));
        let moved: Matrix3<Dual64> = LieGroup::<Dual64, 3>::exp(&g, &xd);
        let deriv = g.vee(&(moved.map(|v| v.eps) * g.inverse(&g.exp(&w[0]))));
        let series = (g.dexp(&w[0]) - dexp_series(&LieGroup::<f64, 3>::ad(&g, &w[0]))).amax();
        worst[5] = worst[5].max((deriv - g.dexp(&w[0]) * w[1]).amax().max(series));
        worst[6] = worst[6].max((g.dexp(&w[0]) * g.dexp_inv(&w[0])? - Matrix3::identity()).amax());
        // dcay^{-1} against AD of the Cayley map: dcay_x^{-1} (D cay(x)·y) cay(x)^{-1} = y
        let cd: Matrix3<Dual64> = LieGroup::<Dual64, 3>::cayley(&g, &xd)?;
        let dcay = g.vee(&(cd.map(|v| v.eps) * g.inverse(&g.cayley(&w[0])?)));
        worst[7] = worst[7].max((g.dcay_inv(&w[0]) * dcay - w[1]).amax());
        // products stay in the group
        worst[8] = worst[8].max(LieGroup::<f64, 3>::defect(&g, &g.compose(&a, &b)));
    }
    Ok([
        ("group axioms (assoc., unit, inverse, = matrix product)", worst[0]),
        ("exp/log round trips", worst[1]),
        ("cay(x) - (I - X/2)^-1 (I + X/2)", worst[2]),
        ("Ad_g x - vee(g X g^-1), Ad_ab - Ad_a Ad_b", worst[3]),
        ("ad_x y - vee([X, Y])", worst[4]),
        ("dexp_x y - AD derivative of exp, - series", worst[5]),
        ("dexp dexp^-1 - I", worst[6]),
        ("dcay^-1 (AD derivative of cay) - y", worst[7]),
        ("defect of products (membership)", worst[8]),
    ])
}

/// `E = ½ ΠᵀI^{-1}Π + V(g)`.
fn energy(inertia: &Vector3<f64>, trap: Option<Trap>, s: &LieState<Matrix3<f64>, 3>) -> Result<f64> {
    let v = match trap {
        Some(t) => t.value(&Heisenberg, &s.g),
        None => 0.0,
    };
    Ok(0.5 * s.mu.component_div(inertia).dot(&s.mu) + v)
}

/// Drifts of `(Π_3, spatial momentum, energy)` over `n` steps of `h`.
fn run(
    method: &dyn OneStep<LieState<Matrix3<f64>, 3>>,
    inertia: &Vector3<f64>,
    trap: Option<Trap>,
    s0: LieState<Matrix3<f64>, 3>,
    h: f64,
    n: usize,
) -> Result<(f64, f64, f64, LieState<Matrix3<f64>, 3>)> {
    let mut s = s0;
    let (c0, m0, e0) = (s.mu[2], s.spatial_momentum(&Heisenberg), energy(inertia, trap, &s)?);
    let (mut dc, mut dm, mut de) = (0.0f64, 0.0f64, 0.0f64);
    for _ in 0..n {
        method.step(&mut s, h)?;
        dc = dc.max((s.mu[2] - c0).abs());
        dm = dm.max((s.spatial_momentum(&Heisenberg) - m0).amax());
        de = de.max((energy(inertia, trap, &s)? - e0).abs() / e0.abs());
    }
    Ok((dc, dm, de, s))
}

fn main() -> std::result::Result<(), Box<dyn std::error::Error>> {
    println!("tutorial: a new Lie group, the Heisenberg group H(3), defined in this example only\n");

    println!("1. LieGroup<S, 3> for H(3): largest defects over 22 sampled triples");
    for (what, defect) in group_checks()? {
        println!("   {what:<56} {defect:.2e}");
    }

    println!("\n2. discretization::LieGroupThetaMap on H(3) (midpoint, exp)");
    let map = LieGroupThetaMap::<_, 3>::midpoint(Heisenberg, Chart::Exp);
    let algebra = sample_algebra::<3>(8, 1.5, 5);
    let samples: Vec<(Matrix3<f64>, Vector3<f64>)> =
        algebra.windows(2).map(|w| (Heisenberg.exp(&w[0]), w[1])).collect();
    let report = check_discretization_map(&map, &LieChart::new(Heisenberg), &samples)?;
    report.require(1e-7)?;
    println!(
        "   R_d(0_g) = (g, g): {:.2e};  T R^2 - T R^1 = Id (central differences): {:.2e}",
        report.zero_defect, report.derivative_defect
    );
    let elements: Vec<Matrix3<f64>> = sample_algebra::<3>(5, 2.0, 9).iter().map(|x| Heisenberg.exp(x)).collect();
    let symmetry = check_symmetry_preservation(&map, &LeftMultiplication::new(Heisenberg), &elements, &samples)?;
    symmetry.require(1e-12)?;
    println!(
        "   symmetry preservation under left multiplication ({} pairs): {:.2e}",
        symmetry.checked, symmetry.max_defect
    );

    let inertia = Vector3::new(1.0, 2.0, 1.5);
    let s0 =
        LieState::checked(&Heisenberg, Heisenberg.exp(&Vector3::new(0.3, -0.2, 0.1)), Vector3::new(0.8, -0.5, 1.2))?;
    let (h, n) = (0.05, 20_000);
    println!("\n3. integrators::hp on H(3): I = diag(1, 2, 1.5), Π0 = (0.8, -0.5, 1.2), h = {h}, {n} steps");
    println!("   {:<44} {:>10} {:>12} {:>12}", "system / method", "|ΔΠ_3|", "|Δ Ad*Π|", "|ΔE|/E");
    let free = FreeParticle { inertia };
    let mut ends = Vec::new();
    for chart in [Chart::Exp, Chart::Cayley] {
        let sv = hp::stormer_verlet(Heisenberg, chart, free)?;
        let (dc, dm, de, end) = run(&sv, &inertia, None, s0, h, n)?;
        println!("   {:<44} {dc:>10.2e} {dm:>12.2e} {de:>12.2e}", format!("free, {}", sv.name()));
        ends.push(end);
    }
    println!("   (cay = exp on H(3), so the two charts agree: |Δg| = {:.1e})", (ends[0].g - ends[1].g).amax());

    // the same free particle through the Lie-group midpoint discrete Lagrangian (docs/math.md §B.2)
    let dep = LieGroupDiscreteEulerLagrange::<_, _, 3>::new(Heisenberg, Chart::Exp, ReducedLagrangian { inertia });
    let mut a = LieState::new(s0.g, s0.mu);
    let mut b = LieState::new(s0.g, s0.mu);
    let sv = hp::stormer_verlet(Heisenberg, Chart::Exp, free)?;
    let mut gap = 0.0f64;
    for _ in 0..2_000 {
        sv.step(&mut a, h)?;
        dep.step(&mut b, h)?;
        gap = gap.max((a.g - b.g).amax()).max((a.mu - b.mu).amax());
    }
    println!("   HP Störmer–Verlet (exp) vs {}: max |Δ(g, Π)| = {gap:.2e} over 2000 steps", dep.name());

    // a particle in a harmonic trap: a potential given by its value, differentiated through H(3)
    let trap = Trap { k: 0.7 };
    let trapped = hp::AutoDiff(KineticPotential::new(Matrix3::from_diagonal(&inertia), trap)?);
    let sv = hp::stormer_verlet(Heisenberg, Chart::Exp, trapped)?;
    let (dc, dm, de, _) = run(&sv, &inertia, Some(trap), s0, h, n)?;
    println!(
        "   {:<44} {dc:>10.2e} {:>12} {de:>12.2e}",
        format!("trap V = k(x²+y²)/2, {}", sv.name()),
        format!("{dm:.2e}*")
    );
    let (_, _, de2, _) = run(&sv, &inertia, Some(trap), s0, h / 2.0, 2 * n)?;
    println!("   energy error ratio h -> h/2: {:.2} (order 2: about 4)", de / de2);
    println!("   (free: Π_3, Ad*_(g^-1) Π and even E exact; trap: Π_3 exact by Noether, E bounded;");
    println!("    * the trap breaks left multiplication except by the centre, so Ad*_(g^-1) Π moves)");

    println!("\n4. groupoid::GroupAsGroupoid<H(3)>: the DEL flow of a discrete Lagrangian on H(3) ⇉ {{e}}");
    let gd = GroupAsGroupoid::new(Heisenberg, Chart::Exp);
    let flow = DiscreteFlow::new(gd, Free(0.05, inertia));
    let mut w = Heisenberg.exp(&Vector3::new(0.04, -0.03, 0.02));
    let mu0 = legendre_plus(&gd, flow.lagrangian(), &w);
    for _ in 0..1000 {
        w = flow.step(&w)?.0;
    }
    let mu = legendre_plus(&gd, flow.lagrangian(), &w);
    println!("   1000 steps; the central momentum μ_3 (a Casimir of h(3)*) drifts by {:.2e}", (mu[2] - mu0[2]).abs());
    Ok(())
}
