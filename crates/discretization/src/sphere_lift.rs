//! The symplectic integrator that a discretization map on a product of spheres `(S^2)^K` induces
//! on `T*(S^2)^K`, for any Hamiltonian written in ambient coordinates.
//!
//! # Formulation: a chart re-centred at every step
//!
//! The state is ambient, `q = (q_1, …, q_K) ∈ R^{3K}` with `|q_j| = 1`, and
//! `p = (p_1, …, p_K)` with `p_j · q_j = 0` (a covector of `S^2` identified with the tangent
//! vector it pairs with by the dot product). A step from `(q, p)` works in the chart centred at
//! `q`, built from an orthonormal basis `E_j` (`3 × 2`) of each tangent plane `q_j^⊥`:
//!
//! ```text
//!   φ(a)_j = N(q_j + E_j a_j),     N(y) = y/|y|,     a = (a_1, …, a_K) ∈ R^{2K},
//!   Dφ(a)_j u_j = (E_j u_j - N_j (N_j · E_j u_j)) / n_j,     n_j = |q_j + E_j a_j|,
//!   φ^{-1}(y)_j = E_jᵀ y_j / (q_j · y_j)        (the open hemisphere around q_j).
//! ```
//! In the chart the map becomes `R̃_d(a, u) = (φ^{-1} × φ^{-1}) ∘ R_d(φ(a), Dφ(a) u)` and the
//! Hamiltonian `H̃(a, π) = H(φ(a), p(a, π))` with the covector `p_j = n_j (E_j π_j - (π_j·a_j) q_j)`
//! (the unique `p_j ⊥ φ(a)_j` with `Dφ(a)_jᵀ p_j = π_j`). Both are written over the scalar, so the
//! cotangent-lift integrator on `R^{2K}` ([`crate::general::general_step`], one Newton, exact AD
//! derivatives) applies unchanged; its result `(a_1, π_1)` is mapped back by `φ` and the covector
//! formula. The construction of the paper is natural (it commutes with diffeomorphisms), so the
//! step does not depend on the chart: changing `E_j` changes the result by round-off only, which a
//! test checks.
//!
//! **Why a chart and not the embedding.** In the embedded formulation the same equations need
//! multipliers for `|q_j| = 1` and `q_j · p_j = 0` on the unknowns and on their variations
//! (`5K` more unknowns, a saddle-point Newton matrix). The chart keeps the `2K`-dimensional
//! problem the paper states, reuses the `R^N` solver, and puts the state on `T*(S^2)^K` by
//! construction: `|φ(a)_j| = 1` and `p_j · φ(a)_j = 0` hold to round-off at every step with no
//! projection.
//!
//! A map is given on the ambient space as a [`MapModel<M>`] (`M = 3K`) whose values on tangent
//! vectors lie on the spheres, e.g. [`SphereThetaMap`] (`N(q - θv)`, `N(q + (1-θ)v)` on each
//! factor), or the map of any retraction written over the scalar.

use crate::autodiff_map::{AutoDiffMap, MapModel};
use crate::sphere::{SPHERE_TOLERANCE, SphereThetaMap};
use geom_core::function::{AutoDiff, PhaseSpaceFunction};
use geom_core::newton::NewtonOptions;
use geom_core::step::{OneStep, PhaseState, check_step};
use geom_core::{GeomError, Scalar};
use nalgebra::{Matrix3x2, SVector, Vector3};

/// The S^2 θ-map `(N(q - θv), N(q + (1-θ)v))` on every 3-block of `R^M` (`M = 3K`), at any
/// scalar: the model the sphere integrator uses.
impl<const M: usize> MapModel<M> for SphereThetaMap {
    fn name(&self) -> String {
        format!("(S^2)^{} normalization theta-map (theta = {})", M / 3, self.value())
    }
    #[inline]
    fn eval<S: Scalar>(&self, x: &SVector<S, M>, v: &SVector<S, M>) -> (SVector<S, M>, SVector<S, M>) {
        let th = self.value();
        let (mut a, mut b) = (SVector::<S, M>::zeros(), SVector::<S, M>::zeros());
        for j in 0..M / 3 {
            let (xj, vj) = (x.fixed_rows::<3>(3 * j).into_owned(), v.fixed_rows::<3>(3 * j).into_owned());
            a.fixed_rows_mut::<3>(3 * j).copy_from(&normalize(&(xj - vj * S::from(th))));
            b.fixed_rows_mut::<3>(3 * j).copy_from(&normalize(&(xj + vj * S::from(1.0 - th))));
        }
        (a, b)
    }
    fn is_symmetric(&self) -> bool {
        self.value() == 0.5
    }
}

#[inline]
fn normalize<S: Scalar>(y: &Vector3<S>) -> Vector3<S> {
    y / y.norm_squared().sqrt()
}

/// An orthonormal basis `E` (`3 × 2`) of `x^⊥` for a unit `x`: the first column is `x × e_k`
/// normalised, `e_k` the axis least aligned with `x`.
pub fn tangent_basis(x: &Vector3<f64>) -> Matrix3x2<f64> {
    let k = (0..3).min_by(|&i, &j| x[i].abs().total_cmp(&x[j].abs())).unwrap_or(0);
    let e1 = x.cross(&Vector3::ith(k, 1.0)).normalize();
    let e2 = x.cross(&e1);
    Matrix3x2::from_columns(&[e1, e2])
}

/// The chart `φ` centred at `center` (module documentation).
#[derive(Debug, Clone, Copy)]
struct Chart<const K: usize, const M: usize, const N: usize> {
    center: SVector<f64, M>,
    basis: [Matrix3x2<f64>; K],
}

impl<const K: usize, const M: usize, const N: usize> Chart<K, M, N> {
    fn new(center: &SVector<f64, M>, rotate: f64) -> Self {
        let basis = std::array::from_fn(|j| {
            let e = tangent_basis(&center.fixed_rows::<3>(3 * j).into_owned());
            // a rotation of the basis in its plane (0 in production; tests vary it)
            let (c, s) = (rotate.cos(), rotate.sin());
            Matrix3x2::from_columns(&[e.column(0) * c + e.column(1) * s, e.column(1) * c - e.column(0) * s])
        });
        Self { center: *center, basis }
    }
    /// `(φ(a), Dφ(a) u)` at any scalar; with `u = None` only `φ(a)`.
    fn point<S: Scalar>(&self, a: &SVector<S, N>, u: Option<&SVector<S, N>>) -> (SVector<S, M>, SVector<S, M>) {
        let (mut x, mut v) = (SVector::<S, M>::zeros(), SVector::<S, M>::zeros());
        for j in 0..K {
            let e = self.basis[j].map(S::from);
            let y = self.center.fixed_rows::<3>(3 * j).map(S::from) + e * a.fixed_rows::<2>(2 * j);
            let n = y.norm_squared().sqrt();
            let nj = y / n;
            x.fixed_rows_mut::<3>(3 * j).copy_from(&nj);
            if let Some(u) = u {
                let eu = e * u.fixed_rows::<2>(2 * j);
                v.fixed_rows_mut::<3>(3 * j).copy_from(&((eu - nj * nj.dot(&eu)) / n));
            }
        }
        (x, v)
    }
    /// `φ^{-1}(y)`.
    fn coordinates<S: Scalar>(&self, y: &SVector<S, M>) -> SVector<S, N> {
        let mut a = SVector::<S, N>::zeros();
        for j in 0..K {
            let yj = y.fixed_rows::<3>(3 * j).into_owned();
            let c = self.center.fixed_rows::<3>(3 * j).map(S::from).dot(&yj);
            a.fixed_rows_mut::<2>(2 * j).copy_from(&(self.basis[j].map(S::from).tr_mul(&yj) / c));
        }
        a
    }
    /// The ambient covector `p ⊥ φ(a)` with `Dφ(a)ᵀ p = π`.
    fn covector<S: Scalar>(&self, a: &SVector<S, N>, pi: &SVector<S, N>) -> SVector<S, M> {
        let mut p = SVector::<S, M>::zeros();
        for j in 0..K {
            let e = self.basis[j].map(S::from);
            let (aj, pij) = (a.fixed_rows::<2>(2 * j).into_owned(), pi.fixed_rows::<2>(2 * j).into_owned());
            let x = self.center.fixed_rows::<3>(3 * j).map(S::from);
            let n = (x + e * aj).norm_squared().sqrt();
            p.fixed_rows_mut::<3>(3 * j).copy_from(&((e * pij - x * pij.dot(&aj)) * n));
        }
        p
    }
    /// `π = Dφ(0)ᵀ p = Eᵀ p` at the centre.
    fn chart_covector(&self, p: &SVector<f64, M>) -> SVector<f64, N> {
        let mut pi = SVector::<f64, N>::zeros();
        for j in 0..K {
            pi.fixed_rows_mut::<2>(2 * j).copy_from(&self.basis[j].tr_mul(&p.fixed_rows::<3>(3 * j)));
        }
        pi
    }
}

/// The map in the chart, `R̃_d(a, u) = (φ^{-1} × φ^{-1}) R_d(φ(a), Dφ(a) u)`.
#[derive(Debug)]
struct ChartedMap<'a, R, const K: usize, const M: usize, const N: usize> {
    map: &'a R,
    chart: Chart<K, M, N>,
}

impl<R: MapModel<M>, const K: usize, const M: usize, const N: usize> MapModel<N> for ChartedMap<'_, R, K, M, N> {
    fn name(&self) -> String {
        self.map.name()
    }
    #[inline]
    fn eval<S: Scalar>(&self, a: &SVector<S, N>, u: &SVector<S, N>) -> (SVector<S, N>, SVector<S, N>) {
        let (x, v) = self.chart.point(a, Some(u));
        let (y0, y1) = self.map.eval(&x, &v);
        (self.chart.coordinates(&y0), self.chart.coordinates(&y1))
    }
    fn is_symmetric(&self) -> bool {
        self.map.is_symmetric()
    }
}

/// The Hamiltonian in the chart, `H̃(a, π) = H(φ(a), p(a, π))`.
struct ChartedHamiltonian<'a, H, const K: usize, const M: usize, const N: usize> {
    hamiltonian: &'a H,
    chart: Chart<K, M, N>,
}

impl<H: PhaseSpaceFunction<M>, const K: usize, const M: usize, const N: usize> PhaseSpaceFunction<N>
    for ChartedHamiltonian<'_, H, K, M, N>
{
    #[inline]
    fn eval<S: Scalar>(&self, a: &SVector<S, N>, pi: &SVector<S, N>) -> S {
        let (x, _) = self.chart.point(a, None);
        self.hamiltonian.eval(&x, &self.chart.covector(a, pi))
    }
}

/// `Ψ_h` on `T*(S^2)^K` induced by the map `R` (a [`MapModel<M>`] on the ambient space) for the
/// Hamiltonian `H` (a [`PhaseSpaceFunction<M>`] in ambient coordinates); `M = 3K`, `N = 2K`
/// (module documentation). The state is a [`PhaseState<M>`] with unit 3-blocks in `q` and each
/// 3-block of `p` orthogonal to the one of `q`.
///
/// ```
/// use discretization::sphere_lift::SphereCotangentLiftIntegrator;
/// use discretization::{OneStep, PhaseState, SphereThetaMap};
/// use geom_core::function::PhaseSpaceFunction;
/// use geom_core::Scalar;
/// use nalgebra::{SVector, Vector3};
///
/// /// Spherical pendulum `H = ½|p|² + q_3`.
/// struct Pendulum;
/// impl PhaseSpaceFunction<3> for Pendulum {
///     fn eval<S: Scalar>(&self, q: &SVector<S, 3>, p: &SVector<S, 3>) -> S {
///         p.norm_squared() * S::from(0.5) + q[2]
///     }
/// }
/// let integ = SphereCotangentLiftIntegrator::<_, _, 1, 3, 2>::new(SphereThetaMap::midpoint(), Pendulum);
/// let q = Vector3::new(0.6, 0.0, -0.8);
/// let mut s = PhaseState::new(q, Vector3::new(0.0, 1.0, 0.0));
/// let lz = |s: &PhaseState<3>| s.q.cross(&s.p)[2];
/// let l0 = lz(&s);
/// for _ in 0..100 {
///     integ.step(&mut s, 0.05)?;
/// }
/// // the midpoint map commutes with rotations: the vertical angular momentum is conserved
/// assert!((lz(&s) - l0).abs() < 1e-13 && (s.q.norm() - 1.0).abs() < 1e-15);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone)]
pub struct SphereCotangentLiftIntegrator<R, H, const K: usize, const M: usize, const N: usize> {
    map: R,
    hamiltonian: H,
    newton: NewtonOptions,
    rotate: f64,
}

impl<R, H, const K: usize, const M: usize, const N: usize> SphereCotangentLiftIntegrator<R, H, K, M, N> {
    /// `M = 3K`, `N = 2K`, `K >= 1`: checked at compile time (a wrong triple does not compile).
    const DIMENSIONS: () = assert!(K >= 1 && M == 3 * K && N == 2 * K, "need M = 3K, N = 2K, K >= 1");

    /// The integrator of `map` for `hamiltonian`. The dimensions `M = 3K`, `N = 2K`, `K >= 1`
    /// are type parameters and are checked at compile time:
    ///
    /// ```compile_fail
    /// # use discretization::{SphereCotangentLiftIntegrator, SphereThetaMap};
    /// # use geom_core::function::PhaseSpaceFunction;
    /// # use geom_core::Scalar;
    /// # use nalgebra::SVector;
    /// # struct Free;
    /// # impl PhaseSpaceFunction<3> for Free {
    /// #     fn eval<S: Scalar>(&self, _: &SVector<S, 3>, p: &SVector<S, 3>) -> S { p.dot(p) }
    /// # }
    /// let wrong = SphereCotangentLiftIntegrator::<_, _, 1, 3, 3>::new(SphereThetaMap::midpoint(), Free);
    /// ```
    pub fn new(map: R, hamiltonian: H) -> Self {
        let () = Self::DIMENSIONS;
        Self { map, hamiltonian, newton: NewtonOptions::integrator(), rotate: 0.0 }
    }
    /// The same integrator with other Newton options.
    pub fn with_newton(self, newton: NewtonOptions) -> Self {
        Self { newton, ..self }
    }
    /// The same integrator with every tangent basis `E_j` rotated by `angle` in its plane: the
    /// step is chart-independent, so this changes results by round-off only (a diagnostic).
    pub fn with_rotated_chart(self, angle: f64) -> Self {
        Self { rotate: angle, ..self }
    }
}

/// `Ok(())` if every 3-block of `q` is a unit vector and the matching block of `p` is orthogonal
/// to it, within [`SPHERE_TOLERANCE`].
pub fn check_sphere_state<const M: usize>(state: &PhaseState<M>) -> Result<(), GeomError> {
    if !state.is_finite() {
        return Err(GeomError::NonFinite { what: "T*S^2 state" });
    }
    for j in 0..M / 3 {
        let (q, p) = (state.q.fixed_rows::<3>(3 * j), state.p.fixed_rows::<3>(3 * j));
        let defect = (q.norm() - 1.0).abs();
        if defect > SPHERE_TOLERANCE {
            return Err(GeomError::OffManifold { what: "S^2 point", defect, tolerance: SPHERE_TOLERANCE });
        }
        let tol = SPHERE_TOLERANCE * p.norm().max(1.0);
        let defect = q.dot(&p).abs();
        if defect > tol {
            return Err(GeomError::OffManifold { what: "S^2 covector (q·p)", defect, tolerance: tol });
        }
    }
    Ok(())
}

impl<R, H, const K: usize, const M: usize, const N: usize> SphereCotangentLiftIntegrator<R, H, K, M, N>
where
    R: MapModel<M>,
    H: PhaseSpaceFunction<M>,
{
    /// One step from `state`, returning the new state (the state is not touched). Errors:
    /// [`GeomError::InvalidStep`], [`GeomError::NonFinite`], [`GeomError::OffManifold`] for a state
    /// off `T*(S^2)^K`, [`GeomError::OutsideDomain`] if the new point leaves the chart's hemisphere
    /// (a step far too large), and the Newton errors.
    pub fn advance(&self, state: &PhaseState<M>, h: f64) -> Result<PhaseState<M>, GeomError> {
        check_step(h)?;
        check_sphere_state(state)?;
        let chart = Chart::<K, M, N>::new(&state.q, self.rotate);
        let map = AutoDiffMap::<_, N>(ChartedMap { map: &self.map, chart });
        let ham = AutoDiff(ChartedHamiltonian { hamiltonian: &self.hamiltonian, chart });
        let start = PhaseState::new(SVector::<f64, N>::zeros(), chart.chart_covector(&state.p));
        let next = crate::general::general_step(&map, &ham, &start, h, &self.newton)?;
        finish(&chart, state, &next)
    }
}

impl<R, H, const K: usize, const M: usize, const N: usize> OneStep<PhaseState<M>>
    for SphereCotangentLiftIntegrator<R, H, K, M, N>
where
    R: MapModel<M>,
    H: PhaseSpaceFunction<M>,
{
    fn name(&self) -> String {
        format!("cotangent lift of {}", self.map.name())
    }
    fn order(&self) -> u32 {
        if self.map.is_symmetric() { 2 } else { 1 }
    }
    fn is_symmetric(&self) -> bool {
        self.map.is_symmetric()
    }
    fn step(&self, state: &mut PhaseState<M>, h: f64) -> Result<(), GeomError> {
        *state = self.advance(state, h)?;
        Ok(())
    }
}

/// The Lagrangian in the chart, `L̃(a, u) = L(φ(a), Dφ(a) u)`.
struct ChartedLagrangian<'a, L, const K: usize, const M: usize, const N: usize> {
    lagrangian: &'a L,
    chart: Chart<K, M, N>,
}

impl<L: PhaseSpaceFunction<M>, const K: usize, const M: usize, const N: usize> PhaseSpaceFunction<N>
    for ChartedLagrangian<'_, L, K, M, N>
{
    #[inline]
    fn eval<S: Scalar>(&self, a: &SVector<S, N>, u: &SVector<S, N>) -> S {
        let (x, v) = self.chart.point(a, Some(u));
        self.lagrangian.eval(&x, &v)
    }
}

/// The Lagrangian route on `T*(S^2)^K`: the discrete Euler–Lagrange flow of
/// `L_d(q_0, q_1) = h L(R_d^{-1}(q_0, q_1)/h)` for a Lagrangian `L(q, v)` in ambient coordinates
/// (a [`PhaseSpaceFunction<M>`] with `v` in the place of `p`), in position–momentum form on the
/// same states as [`SphereCotangentLiftIntegrator`] (`p_j = P_j ∂L/∂v_j`, `P_j = I - q_j q_jᵀ`),
/// computed in the re-centred chart by [`crate::DiscreteEulerLagrange`]. No mass matrix has to be
/// inverted, which makes it the route for systems such as the double spherical pendulum.
#[derive(Debug, Clone)]
pub struct SphereDiscreteEulerLagrange<R, L, const K: usize, const M: usize, const N: usize> {
    map: R,
    lagrangian: L,
    newton: NewtonOptions,
}

impl<R, L, const K: usize, const M: usize, const N: usize> SphereDiscreteEulerLagrange<R, L, K, M, N> {
    /// `M = 3K`, `N = 2K`, `K >= 1`: checked at compile time.
    const DIMENSIONS: () = assert!(K >= 1 && M == 3 * K && N == 2 * K, "need M = 3K, N = 2K, K >= 1");

    /// The flow of `map` for `lagrangian` (`M = 3K`, `N = 2K`, `K >= 1`, checked at compile
    /// time as for [`SphereCotangentLiftIntegrator::new`]).
    pub fn new(map: R, lagrangian: L) -> Self {
        let () = Self::DIMENSIONS;
        Self { map, lagrangian, newton: NewtonOptions::integrator() }
    }
    /// The same flow with other Newton options.
    pub fn with_newton(self, newton: NewtonOptions) -> Self {
        Self { newton, ..self }
    }
}

impl<R, L, const K: usize, const M: usize, const N: usize> SphereDiscreteEulerLagrange<R, L, K, M, N>
where
    R: MapModel<M>,
    L: PhaseSpaceFunction<M>,
{
    /// One step from `state` (not touched); errors as [`SphereCotangentLiftIntegrator::advance`].
    pub fn advance(&self, state: &PhaseState<M>, h: f64) -> Result<PhaseState<M>, GeomError> {
        check_step(h)?;
        check_sphere_state(state)?;
        let chart = Chart::<K, M, N>::new(&state.q, 0.0);
        let map = AutoDiffMap::<_, N>(ChartedMap { map: &self.map, chart });
        let del = crate::lagrangian::DiscreteEulerLagrange::new(
            map,
            ChartedLagrangian { lagrangian: &self.lagrangian, chart },
        )
        .with_newton(self.newton);
        let start = PhaseState::new(SVector::<f64, N>::zeros(), chart.chart_covector(&state.p));
        let next = del.advance(&start, h)?;
        finish(&chart, state, &next)
    }
}

impl<R, L, const K: usize, const M: usize, const N: usize> OneStep<PhaseState<M>>
    for SphereDiscreteEulerLagrange<R, L, K, M, N>
where
    R: MapModel<M>,
    L: PhaseSpaceFunction<M>,
{
    fn name(&self) -> String {
        format!("discrete Euler-Lagrange flow of {}", self.map.name())
    }
    fn order(&self) -> u32 {
        if self.map.is_symmetric() { 2 } else { 1 }
    }
    fn is_symmetric(&self) -> bool {
        self.map.is_symmetric()
    }
    fn step(&self, state: &mut PhaseState<M>, h: f64) -> Result<(), GeomError> {
        *state = self.advance(state, h)?;
        Ok(())
    }
}

/// Back from the chart: `q_{k+1} = φ(a_1)`, `p_{k+1} = p(a_1, π_1)`, checking that `q_{k+1}` is in
/// the chart's hemisphere.
fn finish<const K: usize, const M: usize, const N: usize>(
    chart: &Chart<K, M, N>,
    state: &PhaseState<M>,
    next: &PhaseState<N>,
) -> Result<PhaseState<M>, GeomError> {
    let (q, _) = chart.point(&next.q, None);
    for j in 0..K {
        let c: f64 = state.q.fixed_rows::<3>(3 * j).dot(&q.fixed_rows::<3>(3 * j));
        if c <= 0.0 || !c.is_finite() {
            return Err(GeomError::OutsideDomain { map: "sphere chart", reason: "the step left the hemisphere" });
        }
    }
    let out = PhaseState::new(q, chart.covector(&next.q, &next.p));
    if out.is_finite() { Ok(out) } else { Err(GeomError::NonFinite { what: "T*S^2 state after step" }) }
}

/// `(q, p)` on `T*S^2` from spherical angles: `q = (sin θ cos φ, sin θ sin φ, cos θ)` and the
/// covector of the velocity `(θ', φ')` for unit mass (`p = q'`).
pub fn sphere_state(theta: f64, phi: f64, dtheta: f64, dphi: f64) -> (Vector3<f64>, Vector3<f64>) {
    let (st, ct, sp, cp) = (theta.sin(), theta.cos(), phi.sin(), phi.cos());
    let q = Vector3::new(st * cp, st * sp, ct);
    let p = Vector3::new(ct * cp * dtheta - st * sp * dphi, ct * sp * dtheta + st * cp * dphi, -st * dtheta);
    (q, p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Vector2;

    #[derive(Clone)]
    struct Pendulum;
    impl PhaseSpaceFunction<3> for Pendulum {
        #[inline]
        fn eval<S: Scalar>(&self, q: &SVector<S, 3>, p: &SVector<S, 3>) -> S {
            p.norm_squared() * S::from(0.5) + q[2]
        }
    }

    #[test]
    fn chart_round_trip_and_covector() {
        let (q, p) = sphere_state(2.0, 0.3, 0.4, -0.7);
        let chart = Chart::<1, 3, 2>::new(&q, 0.4);
        let a = Vector2::new(0.3, -0.2);
        let (x, v): (Vector3<f64>, Vector3<f64>) = chart.point(&a, Some(&Vector2::new(0.5, 0.1)));
        assert!((x.norm() - 1.0).abs() < 1e-15 && x.dot(&v).abs() < 1e-15);
        assert!((chart.coordinates(&x) - a).norm() < 1e-15);
        let pi = Vector2::new(0.7, -1.1);
        let cov: Vector3<f64> = chart.covector(&a, &pi);
        assert!(cov.dot(&x).abs() < 1e-15);
        // Dφ(a)ᵀ p = π, column by column
        for k in 0..2 {
            let (_, v): (Vector3<f64>, Vector3<f64>) = chart.point(&a, Some(&Vector2::ith(k, 1.0)));
            assert!((cov.dot(&v) - pi[k]).abs() < 1e-14);
        }
        assert!((chart.chart_covector(&p) - chart.basis[0].tr_mul(&p)).norm() == 0.0);
    }

    #[test]
    fn the_step_does_not_depend_on_the_chart() {
        let (q, p) = sphere_state(2.4, 0.3, 0.5, 1.2);
        let s = PhaseState::new(q, p);
        let base = SphereCotangentLiftIntegrator::<_, _, 1, 3, 2>::new(SphereThetaMap::midpoint(), Pendulum);
        let a = base.advance(&s, 0.1).unwrap();
        for angle in [0.3, 1.7, -2.5] {
            let b = base.clone().with_rotated_chart(angle).advance(&s, 0.1).unwrap();
            assert!((a.q - b.q).norm() < 1e-14 && (a.p - b.p).norm() < 1e-14, "angle {angle}");
        }
    }

    #[test]
    fn invalid_input() {
        let integ = SphereCotangentLiftIntegrator::<_, _, 1, 3, 2>::new(SphereThetaMap::midpoint(), Pendulum);
        let (q, p) = sphere_state(2.0, 0.0, 0.1, 0.2);
        assert!(matches!(integ.advance(&PhaseState::new(q * 1.1, p), 0.1), Err(GeomError::OffManifold { .. })));
        assert!(matches!(integ.advance(&PhaseState::new(q, p + q), 0.1), Err(GeomError::OffManifold { .. })));
        assert!(matches!(integ.advance(&PhaseState::new(q, p), 0.0), Err(GeomError::InvalidStep { .. })));
    }
}
