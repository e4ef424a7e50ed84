//! Left group actions `Φ: G × Q -> Q`, their lifts to `TQ` and `T*Q`, and momentum maps
//! (docs/math.md §A.6; Barbero-Liñán, Marrero & Martín de Diego, *From retraction maps to
//! symplectic-momentum numerical integrators*, 2024, arXiv:2401.14800, Def. 1, Thm 2 and Example
//! 4).
//!
//! For a left action `Φ_g: Q -> Q` (`Φ_e = id`, `Φ_g ∘ Φ_h = Φ_{gh}`):
//!
//! * the infinitesimal generator of `ξ ∈ g` is `ξ_Q(q) = d/dt Φ_{exp tξ}(q)|_{t=0}`;
//! * the tangent lift is `TΦ_g: (q, v) ↦ (Φ_g q, DΦ_g(q) v)`;
//! * the cotangent lift is `T*Φ_{g^{-1}}: (q, p) ↦ (Φ_g q, (DΦ_g(q))^{-T} p)`, a left action on
//!   `T*Q` that preserves the pairing, `<T*Φ p, TΦ v> = <p, v>`;
//! * the momentum map `J: T*Q -> g*` is `J(q, p)(ξ) = <p, ξ_Q(q)>` (docs/math.md §A.6), in `g*`
//!   coordinates `J_i = <p, (e_i)_Q(q)>`. It is equivariant,
//!   `J(T*Φ_{g^{-1}}(q, p)) = Ad*_{g^{-1}} J(q, p)` with `Ad*_g = (Ad_g)ᵀ` (the conventions of
//!   [`crate::lie`]).
//!
//! Instances, all generic over [`Scalar`]:
//!
//! | action | `Q` | `Φ_g(q)` | `ξ_Q(q)` | `J(q, p)` |
//! | --- | --- | --- | --- | --- |
//! | [`LeftMultiplication<G>`] | `G` | `h g` | `Ad_{g^{-1}} ξ` (left-trivialized) | `Ad*_{g^{-1}} μ` |
//! | [`RightMultiplication<G>`] | `G` | `g h^{-1}` | `-ξ` (left-trivialized) | `-μ` |
//! | [`LinearAction<N, D>`] | `R^n` | `M x` | `m x` | `vec(p xᵀ)` (column-major) |
//! | [`RotationAction`] | `R^3` | `R x` | `ω × x` | `x × p` |
//! | [`SphereRotation`] | `S^2` | `R x` | `ω × x` | `x × p` |
//! | [`RigidMotion`] | `R^3` | `R x + t` | `ω × x + v` | `(x × p, p)` |
//! | [`Translation<N>`] | `R^N` | `x + a` | `ξ` | `p` |
//! | [`Diagonal<A, M, K, N>`] | `(R^M)^K` | `(Φ_g q_k)_k` | `(ξ_Q(q_k))_k` | `Σ_k J_A(q_k, p_k)` |

use crate::lie::{Gl, LieGroup, Rn, Se3, So3, se3};
use crate::{Result, Scalar};
use core::fmt;
use nalgebra::{Matrix3, Matrix4, SMatrix, SVector, Vector3, Vector6};

/// The group element type of an action: `<A::Group as LieGroup<S, D>>::Element`.
pub type ElementOf<A, S, const D: usize> = <<A as GroupAction<S, D>>::Group as LieGroup<S, D>>::Element;

/// A smooth **left** action `Φ: G × Q -> Q` of a `D`-dimensional Lie group, with its tangent and
/// cotangent lifts and its momentum map (docs/math.md §A.6; Barbero-Liñán et al. 2024, Def. 1).
///
/// Object-safe: `Box<dyn GroupAction<f64, 3, Group = So3, Point = Vector3<f64>, Tangent =
/// Vector3<f64>, Covector = Vector3<f64>>>` holds [`RotationAction`] or [`SphereRotation`].
/// Tangent vectors and covectors are expressed in the coordinates each action documents (ambient
/// vectors for the vector-space actions, left-trivialized ones for [`LeftMultiplication`]), and
/// [`pairing`](GroupAction::pairing) is the natural pairing `<p, v>` in those coordinates.
pub trait GroupAction<S: Scalar, const D: usize>: fmt::Debug + Send + Sync {
    /// The acting group `G`.
    type Group: LieGroup<S, D>;
    /// A point `q ∈ Q`.
    type Point: Clone + fmt::Debug + Send + Sync;
    /// A tangent vector `v ∈ T_qQ`.
    type Tangent: Clone + fmt::Debug + Send + Sync;
    /// A covector `p ∈ T*_qQ`.
    type Covector: Clone + fmt::Debug + Send + Sync;

    /// Human-readable name, e.g. `"SO(3) on R^3"`.
    fn name(&self) -> String;
    /// The acting group.
    fn group(&self) -> &Self::Group;
    /// The left action `Φ_g(q)`: `Φ_e = id`, `Φ_g ∘ Φ_h = Φ_{gh}`.
    fn act(&self, g: &ElementOf<Self, S, D>, q: &Self::Point) -> Self::Point;
    /// The infinitesimal generator `ξ_Q(q) = d/dt Φ_{exp tξ}(q)|_{t=0}` (docs/math.md §A.6).
    fn infinitesimal_generator(&self, xi: &SVector<S, D>, q: &Self::Point) -> Self::Tangent;
    /// The tangent lift `TΦ_g: (q, v) ↦ (Φ_g q, DΦ_g(q) v)`.
    fn tangent_lift(
        &self,
        g: &ElementOf<Self, S, D>,
        q: &Self::Point,
        v: &Self::Tangent,
    ) -> (Self::Point, Self::Tangent);
    /// The cotangent lift `T*Φ_{g^{-1}}: (q, p) ↦ (Φ_g q, (DΦ_g(q))^{-T} p)` (Barbero-Liñán et al.
    /// 2024, Ex. 4); a left action on `T*Q` that preserves [`pairing`](GroupAction::pairing)
    /// against [`tangent_lift`](GroupAction::tangent_lift).
    fn cotangent_lift(
        &self,
        g: &ElementOf<Self, S, D>,
        q: &Self::Point,
        p: &Self::Covector,
    ) -> (Self::Point, Self::Covector);
    /// The natural pairing `<p, v>` of `T*_qQ` with `T_qQ`.
    fn pairing(&self, p: &Self::Covector, v: &Self::Tangent) -> S;

    /// The momentum map `J(q, p) ∈ g*`, `<J(q, p), ξ> = <p, ξ_Q(q)>` (docs/math.md §A.6), in `g*`
    /// coordinates. The default evaluates the definition on the basis,
    /// [`momentum_map_from_generators`]; instances override it with closed forms.
    fn momentum_map(&self, q: &Self::Point, p: &Self::Covector) -> SVector<S, D> {
        momentum_map_from_generators(self, q, p)
    }
}

/// The `i`-th unit vector `e_i ∈ R^D`.
fn basis<S: Scalar, const D: usize>(i: usize) -> SVector<S, D> {
    SVector::from_fn(|j, _| if i == j { S::from(1.0) } else { S::from(0.0) })
}

/// The momentum map from its definition, `J_i(q, p) = <p, (e_i)_Q(q)>` for the basis `e_i` of
/// `g = R^D` (docs/math.md §A.6): the default of [`GroupAction::momentum_map`], and the reference
/// the closed forms are tested against.
pub fn momentum_map_from_generators<S, const D: usize, A>(action: &A, q: &A::Point, p: &A::Covector) -> SVector<S, D>
where
    S: Scalar,
    A: GroupAction<S, D> + ?Sized,
{
    SVector::from_fn(|i, _| action.pairing(p, &action.infinitesimal_generator(&basis(i), q)))
}

// ---------------------------------------------------------------------------------------------

/// A Lie group acting on itself by left multiplication, `L_h(g) = h g`, with tangent vectors and
/// covectors in **left-trivialized** coordinates (docs/math.md §0): `v = g ξ` is stored as
/// `ξ ∈ R^D` and `p ∈ T*_gG` as `μ = g^{-1} p ∈ g*`, paired by `<μ, ξ>`.
///
/// * generator: `ξ_G(g) = ξ g = g (Ad_{g^{-1}} ξ)`, i.e. `Ad_{g^{-1}} ξ` left-trivialized;
/// * tangent lift of `h`: `(g, ξ) ↦ (h g, ξ)`; cotangent lift: `(g, μ) ↦ (h g, μ)`;
/// * momentum map: `J(g, μ) = Ad*_{g^{-1}} μ`, the spatial (right-trivialized) momentum. On SO(3)
///   `J(R, Π) = R Π`, the spatial angular momentum of a rigid body with body momentum `Π`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LeftMultiplication<G> {
    group: G,
}

impl<G> LeftMultiplication<G> {
    /// The action of `group` on itself by left multiplication.
    ///
    /// ```
    /// use geom_core::action::{GroupAction, LeftMultiplication};
    /// use geom_core::lie::So3;
    /// use nalgebra::{Matrix3, Vector3};
    /// let action = LeftMultiplication::new(So3);
    /// let r = Matrix3::identity();
    /// let pi = Vector3::new(1.0, 2.0, 3.0);
    /// assert_eq!(action.momentum_map(&r, &pi), pi); // J(R, Π) = R Π
    /// ```
    pub fn new(group: G) -> Self {
        Self { group }
    }
}

impl<S: Scalar, const D: usize, G: LieGroup<S, D>> GroupAction<S, D> for LeftMultiplication<G> {
    type Group = G;
    type Point = G::Element;
    type Tangent = SVector<S, D>;
    type Covector = SVector<S, D>;

    fn name(&self) -> String {
        format!("{} on itself (left multiplication)", self.group.name())
    }
    fn group(&self) -> &G {
        &self.group
    }
    fn act(&self, h: &G::Element, g: &G::Element) -> G::Element {
        self.group.compose(h, g)
    }
    fn infinitesimal_generator(&self, xi: &SVector<S, D>, g: &G::Element) -> SVector<S, D> {
        self.group.adjoint(&self.group.inverse(g)) * xi
    }
    fn tangent_lift(&self, h: &G::Element, g: &G::Element, xi: &SVector<S, D>) -> (G::Element, SVector<S, D>) {
        (self.group.compose(h, g), *xi)
    }
    fn cotangent_lift(&self, h: &G::Element, g: &G::Element, mu: &SVector<S, D>) -> (G::Element, SVector<S, D>) {
        (self.group.compose(h, g), *mu)
    }
    fn pairing(&self, mu: &SVector<S, D>, xi: &SVector<S, D>) -> S {
        mu.dot(xi)
    }
    fn momentum_map(&self, g: &G::Element, mu: &SVector<S, D>) -> SVector<S, D> {
        self.group.coadjoint(&self.group.inverse(g), mu)
    }
}

// ---------------------------------------------------------------------------------------------

/// A Lie group acting on itself by right multiplication, `Φ_h(g) = g h^{-1}` (a left action), in
/// the left-trivialized coordinates of [`LeftMultiplication`]:
///
/// * generator: `d/dε g exp(-εξ) = g (-ξ)`, i.e. `-ξ` left-trivialized;
/// * tangent lift of `h`: `(g, ξ) ↦ (g h^{-1}, Ad_h ξ)` (since `(g h^{-1})^{-1} g ξ h^{-1} = Ad_h ξ`);
///   cotangent lift: `(g, μ) ↦ (g h^{-1}, Ad*_{h^{-1}} μ)`, which preserves `<μ, ξ>`;
/// * momentum map: `J(g, μ) = <μ, -ξ>`, i.e. `J = -μ`: minus the body momentum. A Hamiltonian
///   invariant under right multiplication by a subgroup (a symmetric top about its figure axis)
///   conserves the matching components of `μ`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RightMultiplication<G> {
    group: G,
}

impl<G> RightMultiplication<G> {
    /// The action `g ↦ g h^{-1}` of `group` on itself.
    ///
    /// ```
    /// use geom_core::action::{GroupAction, RightMultiplication};
    /// use geom_core::lie::{LieGroup, So3};
    /// use nalgebra::Vector3;
    /// let action = RightMultiplication::new(So3);
    /// let (g, h) = (So3.exp(&Vector3::new(0.1, 0.2, 0.3)), So3.exp(&Vector3::new(-0.4, 0.0, 0.5)));
    /// let pi = Vector3::new(1.0, 2.0, 3.0);
    /// // J is equivariant: J(T*Φ(g, μ)) = Ad*_{h^{-1}} J(g, μ)
    /// let (gh, mh) = action.cotangent_lift(&h, &g, &pi);
    /// let lhs = action.momentum_map(&gh, &mh);
    /// assert!((lhs - So3.coadjoint(&So3.inverse(&h), &-pi)).norm() < 1e-14);
    /// ```
    pub fn new(group: G) -> Self {
        Self { group }
    }
}

impl<S: Scalar, const D: usize, G: LieGroup<S, D>> GroupAction<S, D> for RightMultiplication<G> {
    type Group = G;
    type Point = G::Element;
    type Tangent = SVector<S, D>;
    type Covector = SVector<S, D>;

    fn name(&self) -> String {
        format!("{} on itself (right multiplication)", self.group.name())
    }
    fn group(&self) -> &G {
        &self.group
    }
    fn act(&self, h: &G::Element, g: &G::Element) -> G::Element {
        self.group.compose(g, &self.group.inverse(h))
    }
    fn infinitesimal_generator(&self, xi: &SVector<S, D>, _g: &G::Element) -> SVector<S, D> {
        -xi
    }
    fn tangent_lift(&self, h: &G::Element, g: &G::Element, xi: &SVector<S, D>) -> (G::Element, SVector<S, D>) {
        (self.act(h, g), self.group.adjoint(h) * xi)
    }
    fn cotangent_lift(&self, h: &G::Element, g: &G::Element, mu: &SVector<S, D>) -> (G::Element, SVector<S, D>) {
        (self.act(h, g), self.group.coadjoint(&self.group.inverse(h), mu))
    }
    fn pairing(&self, mu: &SVector<S, D>, xi: &SVector<S, D>) -> S {
        mu.dot(xi)
    }
    fn momentum_map(&self, _g: &G::Element, mu: &SVector<S, D>) -> SVector<S, D> {
        -mu
    }
}

// ---------------------------------------------------------------------------------------------

/// Compile-time check `D = N·N` of [`LinearAction`] (evaluated when a method is monomorphised).
#[inline(always)]
const fn linear_dims<const N: usize, const D: usize>() {
    const { assert!(N * N == D, "LinearAction<N, D> requires D = N * N") }
}

/// GL(n) acting linearly on `R^n`, `Φ_M(x) = M x` (Barbero-Liñán et al. 2024, Ex. 4; docs/math.md
/// §A.6), with `D = N·N` and algebra coordinates the column-major `vec(m)` of `m ∈ gl(n)` (as in
/// [`Gl`]). Tangent vectors and covectors are vectors of `R^n`, paired by `pᵀ v`.
///
/// * generator `m_Q(x) = m x`; tangent lift `(x, v) ↦ (M x, M v)`;
/// * cotangent lift `(x, p) ↦ (M x, M^{-T} p)` (Barbero-Liñán et al. 2024, Ex. 4), computed by an
///   LU solve of `Mᵀ y = p` ([`crate::linalg`]). `M` is trusted to be invertible: for a singular or
///   non-finite `M` the trait method returns a covector of NaNs (never panics); the fallible
///   [`LinearAction::try_cotangent_lift`] reports [`crate::GeomError::SingularMatrix`] or
///   [`crate::GeomError::NonFinite`] instead;
/// * momentum map `J(x, p)(m) = <p, m x> = pᵀ m x`, i.e. `J = vec(p xᵀ)`, `J[r + N c] = p_r x_c`.
///   The paper prints `J_m(x, p) = xᵀ m p`, which is `J_{mᵀ}` in this convention (the definition
///   of docs/math.md §A.6 gives `pᵀ m x`); the two agree up to sign on skew `m`, where
///   `m = E_ij - E_ji` gives the angular momentum `p_i x_j - p_j x_i`.
///
/// `N·N = D` is checked at compile time:
///
/// ```compile_fail
/// use geom_core::action::{GroupAction, LinearAction};
/// use nalgebra::Vector2;
/// let x = Vector2::new(1.0, 2.0);
/// let _ = LinearAction::<2, 3>.momentum_map(&x, &x); // 3 != 2 · 2: rejected by the compiler
/// ```
///
/// ```
/// use geom_core::action::{GroupAction, LinearAction};
/// use nalgebra::{Matrix2, Vector2, Vector4};
/// let action = LinearAction::<2, 4>;
/// let (x, p) = (Vector2::new(1.0, 2.0), Vector2::new(3.0, 5.0));
/// assert_eq!(action.act(&Matrix2::new(0.0, 1.0, 1.0, 0.0), &x), Vector2::new(2.0, 1.0));
/// // J = vec(p xᵀ), column-major.
/// assert_eq!(action.momentum_map(&x, &p), Vector4::new(3.0, 5.0, 6.0, 10.0));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LinearAction<const N: usize, const D: usize>;

impl<const N: usize, const D: usize> LinearAction<N, D> {
    /// The cotangent lift `(x, p) ↦ (M x, M^{-T} p)`, fallible: [`crate::GeomError::SingularMatrix`]
    /// if `M` is singular (relative pivot below [`crate::linalg::PIVOT_RTOL`]) and
    /// [`crate::GeomError::NonFinite`] if an entry of `M` is not finite.
    ///
    /// ```
    /// use geom_core::action::LinearAction;
    /// use nalgebra::{Matrix2, Vector2};
    /// let action = LinearAction::<2, 4>;
    /// let (x, p) = (Vector2::new(1.0, 0.0), Vector2::new(0.0, 1.0));
    /// assert!(action.try_cotangent_lift(&Matrix2::new(2.0, 0.0, 0.0, 4.0), &x, &p).is_ok());
    /// assert!(action.try_cotangent_lift(&Matrix2::new(1.0, 2.0, 2.0, 4.0), &x, &p).is_err());
    /// ```
    pub fn try_cotangent_lift<S: Scalar>(
        &self,
        m: &SMatrix<S, N, N>,
        x: &SVector<S, N>,
        p: &SVector<S, N>,
    ) -> Result<(SVector<S, N>, SVector<S, N>)> {
        linear_dims::<N, D>();
        let y = crate::linalg::solve(&m.transpose(), p, "GL(n) cotangent lift M^{-T}")?;
        Ok((m * x, y))
    }
}

impl<S: Scalar, const N: usize, const D: usize> GroupAction<S, D> for LinearAction<N, D> {
    type Group = Gl<N, D>;
    type Point = SVector<S, N>;
    type Tangent = SVector<S, N>;
    type Covector = SVector<S, N>;

    fn name(&self) -> String {
        linear_dims::<N, D>();
        format!("GL({N}) on R^{N}")
    }
    fn group(&self) -> &Gl<N, D> {
        &Gl
    }
    fn act(&self, m: &SMatrix<S, N, N>, x: &SVector<S, N>) -> SVector<S, N> {
        linear_dims::<N, D>();
        m * x
    }
    fn infinitesimal_generator(&self, xi: &SVector<S, D>, x: &SVector<S, N>) -> SVector<S, N> {
        linear_dims::<N, D>();
        LieGroup::<S, D>::hat(&Gl::<N, D>, xi) * x
    }
    fn tangent_lift(
        &self,
        m: &SMatrix<S, N, N>,
        x: &SVector<S, N>,
        v: &SVector<S, N>,
    ) -> (SVector<S, N>, SVector<S, N>) {
        linear_dims::<N, D>();
        (m * x, m * v)
    }
    fn cotangent_lift(
        &self,
        m: &SMatrix<S, N, N>,
        x: &SVector<S, N>,
        p: &SVector<S, N>,
    ) -> (SVector<S, N>, SVector<S, N>) {
        linear_dims::<N, D>();
        match self.try_cotangent_lift(m, x, p) {
            Ok(lifted) => lifted,
            Err(_) => (m * x, SVector::from_element(S::from(f64::NAN))),
        }
    }
    fn pairing(&self, p: &SVector<S, N>, v: &SVector<S, N>) -> S {
        p.dot(v)
    }
    fn momentum_map(&self, x: &SVector<S, N>, p: &SVector<S, N>) -> SVector<S, D> {
        linear_dims::<N, D>();
        SVector::from_fn(|i, _| p[i % N] * x[i / N])
    }
}

// ---------------------------------------------------------------------------------------------

/// SO(3) rotating `R^3`, `Φ_R(x) = R x` (Barbero-Liñán et al. 2024, Ex. 4, restricted to SO(3) ⊂
/// GL(3)).
///
/// Generator `ω_Q(x) = ω × x`; tangent and cotangent lifts `(x, v) ↦ (R x, R v)`,
/// `(x, p) ↦ (R x, R p)` (`R^{-T} = R`); momentum map `J(x, p) = x × p`, the angular momentum.
///
/// ```
/// use geom_core::action::{GroupAction, RotationAction};
/// use nalgebra::Vector3;
/// let j = RotationAction.momentum_map(&Vector3::<f64>::x(), &Vector3::y());
/// assert_eq!(j, Vector3::z());
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RotationAction;

impl<S: Scalar> GroupAction<S, 3> for RotationAction {
    type Group = So3;
    type Point = Vector3<S>;
    type Tangent = Vector3<S>;
    type Covector = Vector3<S>;

    fn name(&self) -> String {
        "SO(3) on R^3".into()
    }
    fn group(&self) -> &So3 {
        &So3
    }
    fn act(&self, r: &Matrix3<S>, x: &Vector3<S>) -> Vector3<S> {
        r * x
    }
    fn infinitesimal_generator(&self, omega: &Vector3<S>, x: &Vector3<S>) -> Vector3<S> {
        omega.cross(x)
    }
    fn tangent_lift(&self, r: &Matrix3<S>, x: &Vector3<S>, v: &Vector3<S>) -> (Vector3<S>, Vector3<S>) {
        (r * x, r * v)
    }
    fn cotangent_lift(&self, r: &Matrix3<S>, x: &Vector3<S>, p: &Vector3<S>) -> (Vector3<S>, Vector3<S>) {
        (r * x, r * p)
    }
    fn pairing(&self, p: &Vector3<S>, v: &Vector3<S>) -> S {
        p.dot(v)
    }
    fn momentum_map(&self, x: &Vector3<S>, p: &Vector3<S>) -> Vector3<S> {
        x.cross(p)
    }
}

/// SO(3) rotating the sphere `S^2 ⊂ R^3` ([`crate::manifold::Sphere2`]), `Φ_R(x) = R x`.
///
/// Points are unit vectors, tangent vectors `v ⊥ x` and covectors are ambient vectors `p ∈ R^3`
/// acting on `T_xS^2` by `pᵀ v` (so `p` and `p + λ x` are the same covector). The cotangent lift
/// returns the tangent representative, `(x, p) ↦ (R x, R P_x p)` with `P_x = I - x xᵀ/|x|^2`
/// ([`crate::manifold::Manifold::project_tangent`], docs/math.md §A.4). Generator `ω × x`, tangent
/// lift `(R x, R v)`, momentum map `J(x, p) = x × p` (independent of the normal part of `p`).
///
/// ```
/// use geom_core::action::{GroupAction, SphereRotation};
/// use nalgebra::{Matrix3, Vector3};
/// let (x, p) = SphereRotation.cotangent_lift(&Matrix3::identity(), &Vector3::z(), &Vector3::new(1.0, 0.0, 5.0));
/// assert_eq!((x, p), (Vector3::z(), Vector3::x())); // the normal part of p is dropped
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SphereRotation;

impl<S: Scalar> GroupAction<S, 3> for SphereRotation {
    type Group = So3;
    type Point = Vector3<S>;
    type Tangent = Vector3<S>;
    type Covector = Vector3<S>;

    fn name(&self) -> String {
        "SO(3) on S^2".into()
    }
    fn group(&self) -> &So3 {
        &So3
    }
    // the formulas of the ambient action, except the cotangent lift (tangent representative)
    fn act(&self, r: &Matrix3<S>, x: &Vector3<S>) -> Vector3<S> {
        RotationAction.act(r, x)
    }
    fn infinitesimal_generator(&self, omega: &Vector3<S>, x: &Vector3<S>) -> Vector3<S> {
        RotationAction.infinitesimal_generator(omega, x)
    }
    fn tangent_lift(&self, r: &Matrix3<S>, x: &Vector3<S>, v: &Vector3<S>) -> (Vector3<S>, Vector3<S>) {
        RotationAction.tangent_lift(r, x, v)
    }
    fn cotangent_lift(&self, r: &Matrix3<S>, x: &Vector3<S>, p: &Vector3<S>) -> (Vector3<S>, Vector3<S>) {
        let tangent = crate::manifold::Manifold::project_tangent(&crate::manifold::Sphere2, x, p);
        RotationAction.cotangent_lift(r, x, &tangent)
    }
    fn pairing(&self, p: &Vector3<S>, v: &Vector3<S>) -> S {
        RotationAction.pairing(p, v)
    }
    fn momentum_map(&self, x: &Vector3<S>, p: &Vector3<S>) -> Vector3<S> {
        RotationAction.momentum_map(x, p)
    }
}

/// SE(3) moving `R^3` rigidly, `Φ_{(R, t)}(x) = R x + t` ([`Se3`]: homogeneous `Matrix4`,
/// algebra `ξ = (ω, v)`, rotation first).
///
/// Generator `ξ_Q(x) = ω × x + v`; tangent and cotangent lifts `(x, v) ↦ (R x + t, R v)`,
/// `(x, p) ↦ (R x + t, R p)`; momentum map `J(x, p) = (x × p, p)` (angular, then linear
/// momentum).
///
/// ```
/// use geom_core::action::{GroupAction, RigidMotion};
/// use geom_core::lie::se3;
/// use nalgebra::{Matrix3, Vector3};
/// let g = se3::from_parts(&Matrix3::identity(), &Vector3::new(1.0, 0.0, 0.0));
/// assert_eq!(RigidMotion.act(&g, &Vector3::zeros()), Vector3::x());
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RigidMotion;

impl<S: Scalar> GroupAction<S, 6> for RigidMotion {
    type Group = Se3;
    type Point = Vector3<S>;
    type Tangent = Vector3<S>;
    type Covector = Vector3<S>;

    fn name(&self) -> String {
        "SE(3) on R^3".into()
    }
    fn group(&self) -> &Se3 {
        &Se3
    }
    fn act(&self, g: &Matrix4<S>, x: &Vector3<S>) -> Vector3<S> {
        let (r, t) = se3::parts(g);
        r * x + t
    }
    fn infinitesimal_generator(&self, xi: &Vector6<S>, x: &Vector3<S>) -> Vector3<S> {
        let (omega, v) = se3::split(xi);
        omega.cross(x) + v
    }
    fn tangent_lift(&self, g: &Matrix4<S>, x: &Vector3<S>, v: &Vector3<S>) -> (Vector3<S>, Vector3<S>) {
        let (r, t) = se3::parts(g);
        (r * x + t, r * v)
    }
    fn cotangent_lift(&self, g: &Matrix4<S>, x: &Vector3<S>, p: &Vector3<S>) -> (Vector3<S>, Vector3<S>) {
        let (r, t) = se3::parts(g);
        (r * x + t, r * p)
    }
    fn pairing(&self, p: &Vector3<S>, v: &Vector3<S>) -> S {
        p.dot(v)
    }
    fn momentum_map(&self, x: &Vector3<S>, p: &Vector3<S>) -> Vector6<S> {
        se3::join(&x.cross(p), p)
    }
}

/// The vector group `R^N` ([`Rn`]) translating `R^N`, `Φ_a(x) = x + a`.
///
/// Generator `ξ_Q(x) = ξ`; lifts `(x, v) ↦ (x + a, v)`, `(x, p) ↦ (x + a, p)`; momentum map
/// `J(x, p) = p`, the linear momentum.
///
/// ```
/// use geom_core::action::{GroupAction, Translation};
/// use nalgebra::Vector2;
/// let shifted = Translation::<2>.act(&Vector2::new(1.0, 1.0), &Vector2::new(2.0, 3.0));
/// assert_eq!(shifted, Vector2::new(3.0, 4.0));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Translation<const N: usize>;

impl<S: Scalar, const N: usize> GroupAction<S, N> for Translation<N> {
    type Group = Rn<N>;
    type Point = SVector<S, N>;
    type Tangent = SVector<S, N>;
    type Covector = SVector<S, N>;

    fn name(&self) -> String {
        format!("R^{N} on R^{N} (translation)")
    }
    fn group(&self) -> &Rn<N> {
        &Rn
    }
    fn act(&self, a: &SVector<S, N>, x: &SVector<S, N>) -> SVector<S, N> {
        x + a
    }
    fn infinitesimal_generator(&self, xi: &SVector<S, N>, _x: &SVector<S, N>) -> SVector<S, N> {
        *xi
    }
    fn tangent_lift(&self, a: &SVector<S, N>, x: &SVector<S, N>, v: &SVector<S, N>) -> (SVector<S, N>, SVector<S, N>) {
        (x + a, *v)
    }
    fn cotangent_lift(
        &self,
        a: &SVector<S, N>,
        x: &SVector<S, N>,
        p: &SVector<S, N>,
    ) -> (SVector<S, N>, SVector<S, N>) {
        (x + a, *p)
    }
    fn pairing(&self, p: &SVector<S, N>, v: &SVector<S, N>) -> S {
        p.dot(v)
    }
    fn momentum_map(&self, _x: &SVector<S, N>, p: &SVector<S, N>) -> SVector<S, N> {
        *p
    }
}

// ---------------------------------------------------------------------------------------------

/// The `k`-th block of length `M` of `x ∈ R^N`.
fn block<S: Scalar, const M: usize, const N: usize>(x: &SVector<S, N>, k: usize) -> SVector<S, M> {
    SVector::from_fn(|i, _| x[k * M + i])
}

/// Write `b` into the `k`-th block of length `M` of `x`.
fn set_block<S: Scalar, const M: usize, const N: usize>(x: &mut SVector<S, N>, k: usize, b: &SVector<S, M>) {
    for i in 0..M {
        x[k * M + i] = b[i];
    }
}

/// Compile-time check `N = K·M` of [`Diagonal`] (evaluated when a method is monomorphised).
#[inline(always)]
const fn diagonal_dims<const M: usize, const K: usize, const N: usize>() {
    const { assert!(N == K * M, "Diagonal<A, M, K, N> requires N = K * M") }
}

/// The diagonal action of `A` (acting on `R^M`) on `K` copies, `(R^M)^K ≅ R^N` with `N = K·M`
/// (checked at compile time): `Φ_g(q_1, …, q_K) = (Φ_g q_1, …, Φ_g q_K)`, e.g. rotations of `K`
/// particles. Points, tangent vectors and covectors are the concatenations of the particles'
/// ones.
///
/// Generator, lifts and pairing act blockwise; the momentum map is the total momentum
/// `J(q, p) = Σ_k J_A(q_k, p_k)` (docs/math.md §A.6, since `<p, ξ_Q(q)> = Σ_k <p_k, ξ_Q(q_k)>`).
///
/// ```compile_fail
/// use geom_core::action::{Diagonal, RotationAction};
/// let _ = Diagonal::<_, 3, 2, 5>::new(RotationAction); // 5 != 2 · 3: rejected by the compiler
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Diagonal<A, const M: usize, const K: usize, const N: usize> {
    action: A,
}

impl<A, const M: usize, const K: usize, const N: usize> Diagonal<A, M, K, N> {
    /// The diagonal action of `action` on `K` particles in `R^M` (`N = K·M`).
    ///
    /// ```
    /// use geom_core::action::{Diagonal, GroupAction, RotationAction};
    /// use nalgebra::{Vector3, Vector6};
    /// let pair = Diagonal::<_, 3, 2, 6>::new(RotationAction);
    /// let q = Vector6::new(1.0, 0.0, 0.0, 0.0, 1.0, 0.0);
    /// let p = Vector6::new(0.0, 1.0, 0.0, 1.0, 0.0, 0.0);
    /// assert_eq!(pair.momentum_map(&q, &p), Vector3::zeros()); // e_z - e_z
    /// ```
    pub fn new(action: A) -> Self {
        diagonal_dims::<M, K, N>();
        Self { action }
    }
    /// The action on one particle.
    pub fn inner(&self) -> &A {
        &self.action
    }
}

impl<S, const D: usize, A, const M: usize, const K: usize, const N: usize> GroupAction<S, D> for Diagonal<A, M, K, N>
where
    S: Scalar,
    A: GroupAction<S, D, Point = SVector<S, M>, Tangent = SVector<S, M>, Covector = SVector<S, M>>,
{
    type Group = A::Group;
    type Point = SVector<S, N>;
    type Tangent = SVector<S, N>;
    type Covector = SVector<S, N>;

    fn name(&self) -> String {
        format!("{} on {K} copies (diagonal)", self.action.name())
    }
    fn group(&self) -> &A::Group {
        self.action.group()
    }
    fn act(&self, g: &ElementOf<A, S, D>, q: &SVector<S, N>) -> SVector<S, N> {
        diagonal_dims::<M, K, N>();
        let mut out = SVector::zeros();
        for k in 0..K {
            set_block(&mut out, k, &self.action.act(g, &block::<S, M, N>(q, k)));
        }
        out
    }
    fn infinitesimal_generator(&self, xi: &SVector<S, D>, q: &SVector<S, N>) -> SVector<S, N> {
        diagonal_dims::<M, K, N>();
        let mut out = SVector::zeros();
        for k in 0..K {
            set_block(&mut out, k, &self.action.infinitesimal_generator(xi, &block::<S, M, N>(q, k)));
        }
        out
    }
    fn tangent_lift(
        &self,
        g: &ElementOf<A, S, D>,
        q: &SVector<S, N>,
        v: &SVector<S, N>,
    ) -> (SVector<S, N>, SVector<S, N>) {
        diagonal_dims::<M, K, N>();
        let (mut q1, mut v1) = (SVector::zeros(), SVector::zeros());
        for k in 0..K {
            let (qk, vk) = self.action.tangent_lift(g, &block::<S, M, N>(q, k), &block::<S, M, N>(v, k));
            set_block(&mut q1, k, &qk);
            set_block(&mut v1, k, &vk);
        }
        (q1, v1)
    }
    fn cotangent_lift(
        &self,
        g: &ElementOf<A, S, D>,
        q: &SVector<S, N>,
        p: &SVector<S, N>,
    ) -> (SVector<S, N>, SVector<S, N>) {
        diagonal_dims::<M, K, N>();
        let (mut q1, mut p1) = (SVector::zeros(), SVector::zeros());
        for k in 0..K {
            let (qk, pk) = self.action.cotangent_lift(g, &block::<S, M, N>(q, k), &block::<S, M, N>(p, k));
            set_block(&mut q1, k, &qk);
            set_block(&mut p1, k, &pk);
        }
        (q1, p1)
    }
    fn pairing(&self, p: &SVector<S, N>, v: &SVector<S, N>) -> S {
        diagonal_dims::<M, K, N>();
        let mut sum = S::from(0.0);
        for k in 0..K {
            sum += self.action.pairing(&block::<S, M, N>(p, k), &block::<S, M, N>(v, k));
        }
        sum
    }
    fn momentum_map(&self, q: &SVector<S, N>, p: &SVector<S, N>) -> SVector<S, D> {
        diagonal_dims::<M, K, N>();
        let mut sum = SVector::zeros();
        for k in 0..K {
            sum += self.action.momentum_map(&block::<S, M, N>(q, k), &block::<S, M, N>(p, k));
        }
        sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifold::{Manifold, Sphere2};
    use approx::assert_relative_eq;
    use nalgebra::Vector2;
    use num_dual::Dual64;

    const TOL: f64 = 1e-12;

    fn v3(x: f64, y: f64, z: f64) -> Vector3<f64> {
        Vector3::new(x, y, z)
    }

    /// Euclidean distance of two vectors.
    fn vd<const N: usize>(a: &SVector<f64, N>, b: &SVector<f64, N>) -> f64 {
        (a - b).norm()
    }

    /// The action axioms, the lifts and the momentum map at `f64`, for one sample `(q, v, p)`:
    /// `Φ_e = id`; `Φ_{g1} Φ_{g2} = Φ_{g1 g2}` for `Φ`, `TΦ`, `T*Φ`; the lifts cover `Φ`;
    /// `<T*Φ_g p, TΦ_g v> = <p, v>`; `TΦ_g ξ_Q(q) = (Ad_g ξ)_Q(Φ_g q)`; the closed-form `J`
    /// equals the definition; `<J, ξ> = <p, ξ_Q>`; `J ∘ T*Φ_{g^{-1}} = Ad*_{g^{-1}} J`.
    #[allow(clippy::too_many_arguments)]
    fn check_axioms<A: GroupAction<f64, D>, const D: usize>(
        a: &A,
        q: &A::Point,
        v: &A::Tangent,
        p: &A::Covector,
        xi1: &SVector<f64, D>,
        xi2: &SVector<f64, D>,
        pd: impl Fn(&A::Point, &A::Point) -> f64,
        td: impl Fn(&A::Tangent, &A::Tangent) -> f64,
        cd: impl Fn(&A::Covector, &A::Covector) -> f64,
    ) {
        let name = a.name();
        let grp = a.group();
        let e = grp.identity();
        assert!(pd(&a.act(&e, q), q) < TOL, "{name}: Φ_e q != q");
        let (qe, ve) = a.tangent_lift(&e, q, v);
        assert!(pd(&qe, q) < TOL && td(&ve, v) < TOL, "{name}: TΦ_e != id");
        let (qe, pe) = a.cotangent_lift(&e, q, p);
        assert!(pd(&qe, q) < TOL && cd(&pe, p) < TOL, "{name}: T*Φ_e != id");

        let (g1, g2) = (grp.exp(xi1), grp.exp(xi2));
        let g12 = grp.compose(&g1, &g2);
        assert!(pd(&a.act(&g1, &a.act(&g2, q)), &a.act(&g12, q)) < TOL, "{name}: not a left action");
        let (q2, v2) = a.tangent_lift(&g2, q, v);
        let (q12, v12) = a.tangent_lift(&g1, &q2, &v2);
        let (r12, w12) = a.tangent_lift(&g12, q, v);
        assert!(pd(&q12, &r12) < TOL && td(&v12, &w12) < TOL, "{name}: TΦ not a left action");
        let (q2, p2) = a.cotangent_lift(&g2, q, p);
        let (q12, p12) = a.cotangent_lift(&g1, &q2, &p2);
        let (r12, s12) = a.cotangent_lift(&g12, q, p);
        assert!(pd(&q12, &r12) < TOL && cd(&p12, &s12) < TOL, "{name}: T*Φ not a left action");

        for g in [&g1, &g2, &g12] {
            let gq = a.act(g, q);
            let (tq, tv) = a.tangent_lift(g, q, v);
            let (cq, cp) = a.cotangent_lift(g, q, p);
            assert!(pd(&tq, &gq) < TOL && pd(&cq, &gq) < TOL, "{name}: lifts do not cover Φ_g");
            // The cotangent lift preserves the pairing against the tangent lift.
            assert_relative_eq!(a.pairing(&cp, &tv), a.pairing(p, v), epsilon = TOL, max_relative = TOL);
            // Equivariance of the generator: TΦ_g ξ_Q(q) = (Ad_g ξ)_Q(Φ_g q).
            let (_, lifted) = a.tangent_lift(g, q, &a.infinitesimal_generator(xi1, q));
            let moved = a.infinitesimal_generator(&(grp.adjoint(g) * xi1), &gq);
            assert!(td(&lifted, &moved) < TOL, "{name}: generator not equivariant");
            // Equivariance of the momentum map: J(T*Φ_{g^{-1}}(q, p)) = Ad*_{g^{-1}} J(q, p).
            let lhs = a.momentum_map(&cq, &cp);
            let rhs = grp.coadjoint(&grp.inverse(g), &a.momentum_map(q, p));
            assert_relative_eq!(lhs, rhs, epsilon = TOL, max_relative = TOL);
        }
        let j = a.momentum_map(q, p);
        assert_relative_eq!(j, momentum_map_from_generators(a, q, p), epsilon = TOL, max_relative = TOL);
        assert_relative_eq!(j.dot(xi1), a.pairing(p, &a.infinitesimal_generator(xi1, q)), epsilon = TOL);
    }

    /// `ξ_Q(q) = d/dt Φ_{exp tξ}(q)|_0`, with the derivative from `Dual64`, for actions on
    /// vector spaces.
    fn check_generator<A, const D: usize, const N: usize>(a: &A, xi: &SVector<f64, D>, q: &SVector<f64, N>)
    where
        A: GroupAction<f64, D, Point = SVector<f64, N>, Tangent = SVector<f64, N>>
            + GroupAction<Dual64, D, Point = SVector<Dual64, N>>,
    {
        let eps = Dual64::from_re(0.0).derivative();
        let g = GroupAction::<Dual64, D>::group(a).exp(&(xi.map(Dual64::from_re) * eps));
        let moved = GroupAction::<Dual64, D>::act(a, &g, &q.map(Dual64::from_re));
        let derivative = moved.map(|z| z.eps);
        let generator = GroupAction::<f64, D>::infinitesimal_generator(a, xi, q);
        assert_relative_eq!(derivative, generator, epsilon = 1e-13, max_relative = 1e-13);
        assert_relative_eq!(moved.map(|z| z.re), *q, epsilon = 1e-15);
    }

    /// The same for [`LeftMultiplication`] on a matrix group: the left-trivialized derivative
    /// `vee(g^{-1} d/dt exp(tξ) g|_0)`.
    fn check_left_generator<G, const D: usize, const R: usize>(group: G, g: &SMatrix<f64, R, R>, xi: &SVector<f64, D>)
    where
        G: LieGroup<f64, D, Element = SMatrix<f64, R, R>, Matrix = SMatrix<f64, R, R>>
            + LieGroup<Dual64, D, Element = SMatrix<Dual64, R, R>>,
    {
        let eps = Dual64::from_re(0.0).derivative();
        let action = LeftMultiplication::new(group);
        let h = LieGroup::<Dual64, D>::exp(&action.group, &(xi.map(Dual64::from_re) * eps));
        let moved = GroupAction::<Dual64, D>::act(&action, &h, &g.map(Dual64::from_re));
        let dg = moved.map(|z| z.eps);
        let g_inv = LieGroup::<f64, D>::inverse(&action.group, g);
        let trivialized = LieGroup::<f64, D>::vee(&action.group, &(g_inv * dg));
        let generator = GroupAction::<f64, D>::infinitesimal_generator(&action, xi, g);
        assert_relative_eq!(trivialized, generator, epsilon = 1e-13, max_relative = 1e-13);
    }

    fn rotation(w: Vector3<f64>) -> Matrix3<f64> {
        LieGroup::<f64, 3>::exp(&So3, &w)
    }

    #[test]
    fn rotation_action_axioms_generator_and_angular_momentum() {
        let (q, v, p) = (v3(0.3, -1.1, 0.8), v3(0.5, 0.2, -0.4), v3(-0.7, 0.9, 0.1));
        let (xi1, xi2) = (v3(0.4, -0.3, 1.2), v3(-2.0, 0.5, 0.7));
        check_axioms(&RotationAction, &q, &v, &p, &xi1, &xi2, vd, vd, vd);
        check_generator(&RotationAction, &xi1, &q);
        check_generator(&RotationAction, &v3(0.0, 0.0, 0.0), &q);
        let j = RotationAction.momentum_map(&q, &p);
        assert_relative_eq!(j, q.cross(&p));
        assert_relative_eq!(j, momentum_map_from_generators(&RotationAction, &q, &p), epsilon = 1e-15);
        // The GL(n) special case of Barbero-Liñán et al. 2024, Ex. 4: J_m for m = E_ij - E_ji is
        // q_i p_j - q_j p_i up to sign.
        assert_relative_eq!(j[2], q[0] * p[1] - q[1] * p[0], epsilon = 1e-15);
        assert_eq!(GroupAction::<f64, 3>::name(&RotationAction), "SO(3) on R^3");
    }

    #[test]
    fn sphere_rotation_axioms_generator_and_momentum() {
        let x = v3(0.3, -1.1, 0.8).normalize();
        let v = Manifold::<f64, 3>::project_tangent(&Sphere2, &x, &v3(0.5, 0.2, -0.4));
        let p = Manifold::<f64, 3>::project_tangent(&Sphere2, &x, &v3(-0.7, 0.9, 0.1));
        let (xi1, xi2) = (v3(0.4, -0.3, 1.2), v3(-2.0, 0.5, 0.7));
        check_axioms(&SphereRotation, &x, &v, &p, &xi1, &xi2, vd, vd, vd);
        check_generator(&SphereRotation, &xi1, &x);
        assert_relative_eq!(SphereRotation.momentum_map(&x, &p), x.cross(&p));
        // Points stay on S^2, lifted vectors and covectors stay tangent.
        let r = rotation(xi2);
        let (y, w) = SphereRotation.tangent_lift(&r, &x, &v);
        assert!(Sphere2::point(y).is_ok());
        assert!(Sphere2::tangent(y, w).is_ok());
        assert!(Sphere2::tangent(x, SphereRotation.infinitesimal_generator(&xi1, &x)).is_ok());
        // A covector with a normal part: the lift returns the tangent representative, J and the
        // pairing with tangent vectors do not see the normal part.
        let pn = p + x * 3.0;
        let (y2, pl) = SphereRotation.cotangent_lift(&r, &x, &pn);
        assert_relative_eq!(y2, y, epsilon = 1e-15);
        assert!(Sphere2::tangent(y, pl).is_ok());
        assert_relative_eq!(pl, r * p, epsilon = 1e-14);
        assert_relative_eq!(SphereRotation.momentum_map(&x, &pn), x.cross(&p), epsilon = 1e-14);
        assert_relative_eq!(SphereRotation.pairing(&pl, &w), SphereRotation.pairing(&pn, &v), epsilon = 1e-14);
        assert_relative_eq!(
            SphereRotation.momentum_map(&x, &pn),
            momentum_map_from_generators(&SphereRotation, &x, &pn),
            epsilon = 1e-14
        );
    }

    #[test]
    fn rigid_motion_axioms_generator_and_momentum() {
        let (q, v, p) = (v3(0.3, -1.1, 0.8), v3(0.5, 0.2, -0.4), v3(-0.7, 0.9, 0.1));
        let xi1 = Vector6::new(0.4, -0.3, 1.2, 0.5, -1.0, 2.0);
        let xi2 = Vector6::new(-2.0, 0.5, 0.7, 1.5, 0.3, -0.2);
        check_axioms(&RigidMotion, &q, &v, &p, &xi1, &xi2, vd, vd, vd);
        check_generator(&RigidMotion, &xi1, &q);
        let j = RigidMotion.momentum_map(&q, &p);
        assert_relative_eq!(j, se3::join(&q.cross(&p), &p));
        let g = se3::from_parts(&rotation(v3(0.1, 0.2, 0.3)), &v3(1.0, 2.0, 3.0));
        assert_relative_eq!(RigidMotion.act(&g, &q), rotation(v3(0.1, 0.2, 0.3)) * q + v3(1.0, 2.0, 3.0));
        let omega_v = Vector6::new(0.0, 0.0, 1.0, 1.0, 0.0, 0.0);
        assert_relative_eq!(
            RigidMotion.infinitesimal_generator(&omega_v, &q),
            v3(0.0, 0.0, 1.0).cross(&q) + v3(1.0, 0.0, 0.0)
        );
    }

    #[test]
    fn translation_axioms_generator_and_linear_momentum() {
        let q = SVector::<f64, 4>::new(0.3, -1.1, 0.8, 2.0);
        let v = SVector::<f64, 4>::new(0.5, 0.2, -0.4, 1.0);
        let p = SVector::<f64, 4>::new(-0.7, 0.9, 0.1, -3.0);
        let xi1 = SVector::<f64, 4>::new(0.4, -0.3, 1.2, 0.0);
        let xi2 = SVector::<f64, 4>::new(-2.0, 0.5, 0.7, 1.0);
        check_axioms(&Translation::<4>, &q, &v, &p, &xi1, &xi2, vd, vd, vd);
        check_generator(&Translation::<4>, &xi1, &q);
        assert_eq!(Translation::<4>.momentum_map(&q, &p), p);
        assert_eq!(Translation::<4>.act(&xi1, &q), q + xi1);
    }

    #[test]
    fn left_multiplication_so3() {
        let action = LeftMultiplication::new(So3);
        let r = rotation(v3(0.3, -0.9, 1.4));
        let (xi, pi) = (v3(0.5, 0.2, -0.4), v3(-0.7, 0.9, 0.1));
        let (xi1, xi2) = (v3(0.4, -0.3, 1.2), v3(-2.0, 0.5, 0.7));
        let md = |a: &Matrix3<f64>, b: &Matrix3<f64>| (a - b).norm();
        check_axioms(&action, &r, &xi, &pi, &xi1, &xi2, md, vd, vd);
        check_left_generator(So3, &r, &xi1);
        // Spatial angular momentum J(R, Π) = R Π.
        assert_relative_eq!(action.momentum_map(&r, &pi), r * pi, epsilon = 1e-15);
        // Generator Ad_{R^{-1}} ξ = Rᵀ ξ.
        assert_relative_eq!(action.infinitesimal_generator(&xi, &r), r.transpose() * xi, epsilon = 1e-15);
    }

    #[test]
    fn right_multiplication_so3_and_se3() {
        let action = RightMultiplication::new(So3);
        let r = rotation(v3(0.3, -0.9, 1.4));
        let (xi, pi) = (v3(0.5, 0.2, -0.4), v3(-0.7, 0.9, 0.1));
        let (xi1, xi2) = (v3(0.4, -0.3, 1.2), v3(-2.0, 0.5, 0.7));
        let md = |a: &Matrix3<f64>, b: &Matrix3<f64>| (a - b).norm();
        check_axioms(&action, &r, &xi, &pi, &xi1, &xi2, md, vd, vd);
        // the generator is d/dt R exp(-tξ), left-trivialized: -ξ
        let eps = 1e-6;
        let fd = (So3.log(&(r.transpose() * action.act(&So3.exp(&(xi1 * eps)), &r))).unwrap()
            - So3.log(&(r.transpose() * action.act(&So3.exp(&(xi1 * -eps)), &r))).unwrap())
            / (2.0 * eps);
        assert!((fd - action.infinitesimal_generator(&xi1, &r)).norm() < 1e-8);
        assert_relative_eq!(action.momentum_map(&r, &pi), -pi, epsilon = 1e-15);
        let action = RightMultiplication::new(Se3);
        let g = LieGroup::<f64, 6>::exp(&Se3, &Vector6::new(0.3, -0.9, 1.4, 1.0, 2.0, -0.5));
        let xi = Vector6::new(0.5, 0.2, -0.4, 0.1, 0.0, 0.3);
        let mu = Vector6::new(-0.7, 0.9, 0.1, 1.0, -2.0, 0.5);
        let xi1 = Vector6::new(0.4, -0.3, 1.2, 0.5, -1.0, 2.0);
        let xi2 = Vector6::new(-2.0, 0.5, 0.7, 1.5, 0.3, -0.2);
        let md = |a: &Matrix4<f64>, b: &Matrix4<f64>| (a - b).norm();
        check_axioms(&action, &g, &xi, &mu, &xi1, &xi2, md, vd, vd);
    }

    #[test]
    fn left_multiplication_se3() {
        let action = LeftMultiplication::new(Se3);
        let g = LieGroup::<f64, 6>::exp(&Se3, &Vector6::new(0.3, -0.9, 1.4, 1.0, 2.0, -0.5));
        let xi = Vector6::new(0.5, 0.2, -0.4, 0.1, 0.0, 0.3);
        let mu = Vector6::new(-0.7, 0.9, 0.1, 1.0, -2.0, 0.5);
        let xi1 = Vector6::new(0.4, -0.3, 1.2, 0.5, -1.0, 2.0);
        let xi2 = Vector6::new(-2.0, 0.5, 0.7, 1.5, 0.3, -0.2);
        let md = |a: &Matrix4<f64>, b: &Matrix4<f64>| (a - b).norm();
        check_axioms(&action, &g, &xi, &mu, &xi1, &xi2, md, vd, vd);
        check_left_generator(Se3, &g, &xi1);
        // J of SE(3) on itself is the spatial momentum Ad*_{g^{-1}} μ = (Ad_{g^{-1}})ᵀ μ.
        let ad_inv = LieGroup::<f64, 6>::adjoint(&Se3, &LieGroup::<f64, 6>::inverse(&Se3, &g));
        assert_relative_eq!(action.momentum_map(&g, &mu), ad_inv.transpose() * mu, epsilon = 1e-14);
    }

    #[test]
    fn diagonal_action_total_momentum() {
        let pair = Diagonal::<_, 3, 2, 6>::new(RotationAction);
        let q = Vector6::new(0.3, -1.1, 0.8, 1.0, 0.0, 2.0);
        let v = Vector6::new(0.5, 0.2, -0.4, 0.0, 1.0, 1.0);
        let p = Vector6::new(-0.7, 0.9, 0.1, 0.3, 0.3, -1.0);
        let (xi1, xi2) = (v3(0.4, -0.3, 1.2), v3(-2.0, 0.5, 0.7));
        check_axioms(&pair, &q, &v, &p, &xi1, &xi2, vd, vd, vd);
        check_generator(&pair, &xi1, &q);
        let (q1, q2) = (v3(q[0], q[1], q[2]), v3(q[3], q[4], q[5]));
        let (p1, p2) = (v3(p[0], p[1], p[2]), v3(p[3], p[4], p[5]));
        assert_relative_eq!(pair.momentum_map(&q, &p), q1.cross(&p1) + q2.cross(&p2), epsilon = 1e-15);
        let r = rotation(xi2);
        let moved = pair.act(&r, &q);
        assert_relative_eq!(v3(moved[3], moved[4], moved[5]), r * q2, epsilon = 1e-15);
        assert_eq!(pair.inner(), &RotationAction);
        assert_eq!(GroupAction::<f64, 3>::name(&pair), "SO(3) on R^3 on 2 copies (diagonal)");

        // Three particles translated together: J = total linear momentum.
        let three = Diagonal::<_, 2, 3, 6>::new(Translation::<2>);
        let a = Vector2::new(0.5, -1.0);
        let (xi1, xi2) = (Vector2::new(0.1, 0.2), Vector2::new(-0.3, 0.4));
        check_axioms(&three, &q, &v, &p, &xi1, &xi2, vd, vd, vd);
        check_generator(&three, &a, &q);
        assert_relative_eq!(three.momentum_map(&q, &p), Vector2::new(p[0] + p[2] + p[4], p[1] + p[3] + p[5]));

        // K points on S^2.
        let x1 = v3(0.0, 0.6, 0.8);
        let x2 = v3(1.0, 0.0, 0.0);
        let qs = Vector6::new(x1[0], x1[1], x1[2], x2[0], x2[1], x2[2]);
        let vs = Vector6::new(1.0, 0.0, 0.0, 0.0, 1.0, -1.0);
        let ps = Vector6::new(0.0, 0.8, -0.6, 0.0, 2.0, 0.5);
        let spheres = Diagonal::<_, 3, 2, 6>::new(SphereRotation);
        check_axioms(&spheres, &qs, &vs, &ps, &v3(0.4, -0.3, 1.2), &v3(-2.0, 0.5, 0.7), vd, vd, vd);
    }

    #[test]
    fn actions_are_object_safe() {
        type Dyn =
            dyn GroupAction<f64, 3, Group = So3, Point = Vector3<f64>, Tangent = Vector3<f64>, Covector = Vector3<f64>>;
        let actions: Vec<Box<Dyn>> = vec![Box::new(RotationAction), Box::new(SphereRotation)];
        let (x, p) = (v3(0.0, 0.0, 1.0), v3(1.0, 0.0, 0.0));
        for a in &actions {
            assert_relative_eq!(a.momentum_map(&x, &p), v3(0.0, 1.0, 0.0));
            assert_relative_eq!(momentum_map_from_generators(a.as_ref(), &x, &p), v3(0.0, 1.0, 0.0));
        }
    }

    mod linear {
        use super::*;
        use crate::GeomError;
        use nalgebra::{Matrix2, Vector4};

        type Gl3 = LinearAction<3, 9>;

        fn xi(seed: f64) -> SVector<f64, 9> {
            SVector::from_fn(|i, _| 0.3 * ((i as f64 + 1.0) * seed).sin())
        }

        #[test]
        fn linear_action_axioms_and_generator() {
            let (q, v, p) = (v3(0.3, -1.1, 0.8), v3(0.5, 0.2, -0.4), v3(-0.7, 0.9, 0.1));
            check_axioms(&Gl3::default(), &q, &v, &p, &xi(1.0), &xi(2.3), vd, vd, vd);
            check_generator(&Gl3::default(), &xi(1.7), &q);
            check_left_generator(Gl::<3, 9>, &LieGroup::<f64, 9>::exp(&Gl::<3, 9>, &xi(0.4)), &xi(1.1));
            let left = LeftMultiplication::new(Gl::<2, 4>);
            let g = LieGroup::<f64, 4>::exp(&Gl::<2, 4>, &Vector4::new(0.3, -0.2, 0.5, 0.1));
            let md = |a: &Matrix2<f64>, b: &Matrix2<f64>| (a - b).norm();
            let (a4, b4) = (Vector4::new(0.1, 0.7, -0.4, 0.2), Vector4::new(-0.5, 0.3, 0.2, 0.6));
            check_axioms(&left, &g, &a4, &b4, &a4, &b4, md, vd, vd);
        }

        #[test]
        fn linear_action_uses_the_column_major_hat_of_gl() {
            for i in 0..9 {
                let e = basis::<f64, 9>(i);
                let hat: Matrix3<f64> = LieGroup::<f64, 9>::hat(&Gl::<3, 9>, &e);
                assert_eq!(hat, Matrix3::from_fn(|r, c| e[r + 3 * c]), "basis vector {i}");
                assert_eq!(hat[(i % 3, i / 3)], 1.0);
            }
        }

        #[test]
        fn linear_momentum_map_is_vec_p_xt() {
            let a = Gl3::default();
            let (x, p) = (v3(0.3, -1.1, 0.8), v3(-0.7, 0.9, 0.1));
            let j = a.momentum_map(&x, &p);
            // The index convention, against the definition J_i = <p, (e_i)_Q(x)>.
            assert_relative_eq!(j, momentum_map_from_generators(&a, &x, &p), epsilon = 1e-15);
            let pxt = p * x.transpose();
            assert_relative_eq!(j, SVector::<f64, 9>::from_column_slice(pxt.as_slice()), epsilon = 1e-15);
            // J(x, p)(m) = pᵀ m x; the paper's printed xᵀ m p is J(x, p)(mᵀ).
            let m = Matrix3::from_column_slice(xi(0.9).as_slice());
            let vec = |m: &Matrix3<f64>| SVector::<f64, 9>::from_column_slice(m.as_slice());
            assert_relative_eq!(j.dot(&vec(&m)), p.dot(&(m * x)), epsilon = 1e-15);
            assert_relative_eq!(j.dot(&vec(&m.transpose())), x.dot(&(m * p)), epsilon = 1e-15);
            // Skew m = E_01 - E_10: the angular momentum p_0 x_1 - p_1 x_0 (the paper's special
            // case, up to sign), and for m = hat(ω) the rotation momentum ω·(x × p).
            let mut skew = Matrix3::zeros();
            skew[(0, 1)] = 1.0;
            skew[(1, 0)] = -1.0;
            assert_relative_eq!(j.dot(&vec(&skew)), p[0] * x[1] - p[1] * x[0], epsilon = 1e-15);
            let omega = v3(0.2, -0.5, 0.9);
            let hat = crate::lie::so3::hat(&omega);
            assert_relative_eq!(j.dot(&vec(&hat)), omega.dot(&RotationAction.momentum_map(&x, &p)), epsilon = 1e-15);
            // Cotangent lift (x, p) ↦ (Mx, M^{-T} p).
            let g = LieGroup::<f64, 9>::exp(&Gl::<3, 9>, &xi(1.3));
            let (y, pl) = a.cotangent_lift(&g, &x, &p);
            assert_relative_eq!(y, g * x, epsilon = 1e-15);
            assert_relative_eq!(g.transpose() * pl, p, epsilon = 1e-14);
        }

        #[test]
        fn singular_matrix_cotangent_lift() {
            let a = LinearAction::<2, 4>;
            let (x, p) = (Vector2::new(1.0, 2.0), Vector2::new(3.0, -1.0));
            let singular = Matrix2::new(1.0, 2.0, 2.0, 4.0);
            let (y, pl) = a.cotangent_lift(&singular, &x, &p);
            assert_eq!(y, singular * x);
            assert!(pl.iter().all(|v: &f64| v.is_nan()));
            assert_eq!(
                a.try_cotangent_lift(&singular, &x, &p),
                Err(GeomError::SingularMatrix { what: "GL(n) cotangent lift M^{-T}", iteration: 0 })
            );
            let nan = Matrix2::new(1.0, f64::NAN, 0.0, 1.0);
            assert_eq!(
                a.try_cotangent_lift(&nan, &x, &p),
                Err(GeomError::NonFinite { what: "GL(n) cotangent lift M^{-T}" })
            );
            let ok = Matrix2::new(2.0, 1.0, 0.0, 3.0);
            let (y, pl) = a.try_cotangent_lift(&ok, &x, &p).unwrap();
            assert_eq!((y, pl), a.cotangent_lift(&ok, &x, &p));
        }

        #[test]
        fn diagonal_linear_action() {
            let three = Diagonal::<_, 2, 3, 6>::new(LinearAction::<2, 4>);
            let q = Vector6::new(0.3, -1.1, 0.8, 1.0, 0.0, 2.0);
            let v = Vector6::new(0.5, 0.2, -0.4, 0.0, 1.0, 1.0);
            let p = Vector6::new(-0.7, 0.9, 0.1, 0.3, 0.3, -1.0);
            let (a4, b4) = (Vector4::new(0.1, 0.7, -0.4, 0.2), Vector4::new(-0.5, 0.3, 0.2, 0.6));
            check_axioms(&three, &q, &v, &p, &a4, &b4, vd, vd, vd);
            check_generator(&three, &a4, &q);
            let mut total = Vector4::zeros();
            for k in 0..3 {
                let (x, y) = (Vector2::new(q[2 * k], q[2 * k + 1]), Vector2::new(p[2 * k], p[2 * k + 1]));
                total += Vector4::from_column_slice((y * x.transpose()).as_slice());
            }
            assert_relative_eq!(three.momentum_map(&q, &p), total, epsilon = 1e-15);
        }
    }
}
