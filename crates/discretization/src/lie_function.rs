//! Functions on `G × g*` (a Hamiltonian `H(g, μ)`) or on `G × g` (a Lagrangian `L(g, ξ)`),
//! written once over the scalar, and their **left-trivialized** derivatives by automatic
//! differentiation.
//!
//! For `F(g, y)` with `g ∈ G` and `y ∈ R^D` (a momentum `μ ∈ g*` or a velocity `ξ ∈ g`):
//!
//! ```text
//!   (D_g F)_i     = d/dε F(g exp(ε e_i), y) |_{ε=0}                     (left-trivialized gradient)
//!   (∂_y F)_i     = ∂F/∂y_i
//!   gg[(i, j)]    = ∂/∂η_j (D_g F)_i (g exp(η), y) |_{η=0}
//!                 = ∂²/∂a_j∂b_i F(g exp(a) exp(b), y) |_{a=b=0}           (not symmetric in general)
//!   gy[(i, j)]    = ∂(D_g F)_i/∂y_j,        yy[(i, j)] = ∂²F/∂y_i∂y_j.
//! ```
//!
//! `gg` is the derivative of the trivialized gradient along a left-translated curve; its
//! antisymmetric part is `-½ ad*`-type: `gg - ggᵀ = [(i, j) ↦ ⟨D_g F, [e_j, e_i]⟩]`, which a test
//! checks. These are the blocks the Newton matrices of the Lie-group integrators need
//! ([`crate::lie_hamiltonian`]).
//!
//! [`LieFunction`] is the model (one generic `eval`); [`LieAutoDiff`] differentiates it with
//! `Dual64` (gradients, `2D` one-direction passes; `DualSVec64<D>` above
//! `DIRECTIONAL_GRADIENT_MAX`) and `HyperDual64` (Hessian blocks and gradient, `2D² + D(D + 1)/2`
//! one-direction passes, `geom_core::hyper_dual`). The translated elements of those passes are
//! the group's jets where it gives them ([`LieGroupFamily::translation_jet`],
//! [`LieGroupFamily::translation_jet_dual`]: `g + ε g x̂`, no chart and no group product at dual
//! scalars; matrix groups, `R^n`, products), else the curves of `translated`. A hand-written
//! model implements [`LieFunctionDerivatives`] directly.

use geom_core::hyper_dual::seeded;
use geom_core::lie::{LieGroup, LieGroupFamily, Side};
use geom_core::{GeomError, Scalar};
use nalgebra::{SMatrix, SVector};
use num_dual::{Dual64, DualSVec64, HyperDual64, HyperDualSVec64};

/// The groups the AD of this crate can differentiate through: a [`LieGroupFamily<D>`] whose
/// `LieGroup` at each dual scalar of [`LieAutoDiff`] and the Lie-group integrators (`Dual64`,
/// `DualSVec64<D>`, `HyperDual64`, `HyperDualSVec64<D, D>`) has the family's elements
/// (`Element = ElementAt<S>`), so that an element lifted from `f64` by
/// [`LieGroupFamily::lift_at`] is one the model takes.
///
/// Blanket-implemented, never implemented by hand: every group with
/// `impl<S: Scalar> LieGroup<S, D>` and `impl LieGroupFamily<D>` is one (every group of
/// `geom_core::lie`, products and powers of them, a user's group). It stays a named trait because
/// the equality of element types at given scalars cannot be a supertrait of [`LieGroupFamily`]
/// (module documentation of `geom_core::lie::LieGroupFamily`) and because the workbench names it.
pub trait AdLieGroup<const D: usize>:
    LieGroupFamily<D>
    + LieGroup<Dual64, D, Element = <Self as LieGroupFamily<D>>::ElementAt<Dual64>>
    + LieGroup<DualSVec64<D>, D, Element = <Self as LieGroupFamily<D>>::ElementAt<DualSVec64<D>>>
    + LieGroup<HyperDual64, D, Element = <Self as LieGroupFamily<D>>::ElementAt<HyperDual64>>
    + LieGroup<HyperDualSVec64<D, D>, D, Element = <Self as LieGroupFamily<D>>::ElementAt<HyperDualSVec64<D, D>>>
{
}

impl<G, const D: usize> AdLieGroup<D> for G where
    G: LieGroupFamily<D>
        + LieGroup<Dual64, D, Element = <G as LieGroupFamily<D>>::ElementAt<Dual64>>
        + LieGroup<DualSVec64<D>, D, Element = <G as LieGroupFamily<D>>::ElementAt<DualSVec64<D>>>
        + LieGroup<HyperDual64, D, Element = <G as LieGroupFamily<D>>::ElementAt<HyperDual64>>
        + LieGroup<HyperDualSVec64<D, D>, D, Element = <G as LieGroupFamily<D>>::ElementAt<HyperDualSVec64<D, D>>>
{
}

/// `g` at the scalar `S` (derivative parts zero): [`LieGroupFamily::lift_at`].
#[inline]
pub(crate) fn lift<G, S: Scalar, const D: usize>(
    group: &G,
    g: &<G as LieGroup<f64, D>>::Element,
) -> <G as LieGroup<S, D>>::Element
where
    G: LieGroupFamily<D> + LieGroup<S, D, Element = <G as LieGroupFamily<D>>::ElementAt<S>>,
{
    group.lift_at::<S>(g)
}

/// `g exp(a) exp(b)` at the scalar `S` (each seed optional): the left-translated curves along
/// which the left-trivialized derivatives of this crate are taken, for seeds whose real part is
/// zero (pure derivative directions).
///
/// Evaluated as `g cay(a) cay(b)`: `cay(x) = (I - x̂/2)^{-1}(I + x̂/2) = I + x̂ + x̂²/2 + O(x³)`
/// agrees with `exp(x)` to second order, so every first and second derivative at `a = b = 0`
/// (the dual numbers of this crate carry no higher order) is the same, and `cay` is a rational
/// function where `exp` sums a series at dual scalars. `exp` is the fallback if `cay` reports an
/// error.
#[inline]
pub(crate) fn translated<G, S: Scalar, const D: usize>(
    group: &G,
    g: &<G as LieGroup<f64, D>>::Element,
    seeds: [Option<&SVector<S, D>>; 2],
) -> <G as LieGroup<S, D>>::Element
where
    G: LieGroupFamily<D> + LieGroup<S, D, Element = <G as LieGroupFamily<D>>::ElementAt<S>>,
{
    let mut gs = lift::<G, S, D>(group, g);
    for x in seeds.into_iter().flatten() {
        let curve = LieGroup::<S, D>::cayley(group, x).unwrap_or_else(|_| LieGroup::<S, D>::exp(group, x));
        gs = LieGroup::<S, D>::compose(group, &gs, &curve);
    }
    gs
}

/// A scalar function `F(g, y)` on `G × R^D` at the scalar `S`, written once for every scalar
/// (`impl<S: Scalar> LieFunction<S, G, D> for Model`) so that the same body runs at `f64` and at
/// the dual numbers of [`LieAutoDiff`] (module documentation).
///
/// ```
/// use discretization::lie_function::{LieAutoDiff, LieFunction, LieFunctionDerivatives};
/// use geom_core::lie::{LieGroup, So3};
/// use geom_core::Scalar;
/// use nalgebra::{Matrix3, SVector, Vector3};
///
/// /// Heavy top: `H(R, Π) = ½ Πᵀ I⁻¹ Π + e3 · R χ` (unit weight and arm).
/// #[derive(Debug)]
/// struct Top;
/// impl<S: Scalar> LieFunction<S, So3, 3> for Top {
///     fn eval(&self, _: &So3, r: &Matrix3<S>, pi: &SVector<S, 3>) -> S {
///         let kinetic = (pi[0] * pi[0] + pi[1] * pi[1] / S::from(5.0) + pi[2] * pi[2] / S::from(6.0)) * S::from(0.5);
///         kinetic + r[(2, 2)]
///     }
/// }
/// let top = LieAutoDiff(Top);
/// let g = top.gradient(&So3, &Matrix3::identity(), &Vector3::new(1.0, 0.0, 0.0))?;
/// // D_g H at the identity: d/dε (exp(ε ê_i))_{33} = 0, and ∂H/∂Π = I⁻¹ Π
/// assert!(g.g.norm() < 1e-15 && (g.y - Vector3::new(1.0, 0.0, 0.0)).norm() < 1e-15);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
pub trait LieFunction<S: Scalar, G: LieGroup<S, D>, const D: usize>: Send + Sync {
    /// `F(g, y)`.
    fn eval(&self, group: &G, g: &G::Element, y: &SVector<S, D>) -> S;
}

impl<S: Scalar, G: LieGroup<S, D>, F: LieFunction<S, G, D> + ?Sized, const D: usize> LieFunction<S, G, D> for &F {
    #[inline]
    fn eval(&self, group: &G, g: &G::Element, y: &SVector<S, D>) -> S {
        (**self).eval(group, g, y)
    }
}

/// A [`LieFunction`] at every scalar the AD of this crate uses (`f64`, `Dual64`, `DualSVec64<D>`,
/// `HyperDual64`, `HyperDualSVec64<D, D>`): what `impl<S: Scalar> LieFunction<S, G, D> for Model` gives.
pub trait AdLieFunction<G: AdLieGroup<D>, const D: usize>:
    LieFunction<f64, G, D>
    + LieFunction<Dual64, G, D>
    + LieFunction<DualSVec64<D>, G, D>
    + LieFunction<HyperDual64, G, D>
    + LieFunction<HyperDualSVec64<D, D>, G, D>
{
}

impl<G: AdLieGroup<D>, F, const D: usize> AdLieFunction<G, D> for F where
    F: LieFunction<f64, G, D>
        + LieFunction<Dual64, G, D>
        + LieFunction<DualSVec64<D>, G, D>
        + LieFunction<HyperDual64, G, D>
        + LieFunction<HyperDualSVec64<D, D>, G, D>
{
}

/// The left-trivialized gradient of `F(g, y)`: `g = D_g F`, `y = ∂_y F`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LieGradient<const D: usize> {
    /// `(D_g F)_i = d/dε F(g exp(ε e_i), y)`.
    pub g: SVector<f64, D>,
    /// `∂F/∂y`.
    pub y: SVector<f64, D>,
}

/// The Hessian blocks of `F(g, y)` (module documentation for the index conventions).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LieHessian<const D: usize> {
    /// `gg[(i, j)] = ∂(D_g F)_i/∂η_j` along `g exp(η)` (not symmetric in general).
    pub gg: SMatrix<f64, D, D>,
    /// `gy[(i, j)] = ∂(D_g F)_i/∂y_j`.
    pub gy: SMatrix<f64, D, D>,
    /// `yy[(i, j)] = ∂²F/∂y_i∂y_j`.
    pub yy: SMatrix<f64, D, D>,
}

/// Values and left-trivialized derivatives of a function on `G × R^D` at `f64` (object-safe for
/// a fixed group: `&dyn LieFunctionDerivatives<So3, 3>`). [`LieAutoDiff`] implements it for any
/// [`LieFunction`]; a hand-written model implements it directly. Errors:
/// [`GeomError::NonFinite`] if a value or derivative is not finite.
pub trait LieFunctionDerivatives<G: LieGroup<f64, D>, const D: usize>: Send + Sync {
    /// `F(g, y)`.
    fn value(&self, group: &G, g: &G::Element, y: &SVector<f64, D>) -> Result<f64, GeomError>;
    /// `(D_g F, ∂_y F)`.
    fn gradient(&self, group: &G, g: &G::Element, y: &SVector<f64, D>) -> Result<LieGradient<D>, GeomError>;
    /// The gradient and the Hessian blocks at one point.
    fn gradient_and_hessian(
        &self,
        group: &G,
        g: &G::Element,
        y: &SVector<f64, D>,
    ) -> Result<(LieGradient<D>, LieHessian<D>), GeomError>;
}

/// A [`LieFunction`] with its derivatives by forward AD (module documentation).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LieAutoDiff<F>(pub F);

/// `F(g exp(a) exp(b), y + c)` at a dual scalar, for the seeds `a`, `b`, `c`.
#[inline]
fn eval_perturbed<G, F, S, const D: usize>(
    f: &F,
    group: &G,
    g: &<G as LieGroup<f64, D>>::Element,
    y: &SVector<f64, D>,
    a: Option<&SVector<S, D>>,
    b: Option<&SVector<S, D>>,
    c: Option<&SVector<S, D>>,
) -> S
where
    G: LieGroupFamily<D> + LieGroup<S, D, Element = <G as LieGroupFamily<D>>::ElementAt<S>>,
    F: LieFunction<S, G, D> + ?Sized,
    S: Scalar,
{
    let gs = translated::<G, S, D>(group, g, [a, b]);
    let mut ys = y.map(S::from);
    if let Some(c) = c {
        ys += c;
    }
    f.eval(group, &gs, &ys)
}

/// The unit vector `e_i` of `R^D`.
#[inline(always)]
fn unit<const D: usize>(i: usize) -> SVector<f64, D> {
    SVector::from_fn(|k, _| if k == i { 1.0 } else { 0.0 })
}

/// `g exp(ε e_i)` to first order at `Dual64`, `g + ε g ê_i`: the group's closed-form jet
/// ([`LieGroupFamily::translation_jet`]), else the curve `g cay(ε e_i)` ([`translated`]), the
/// same jet.
#[inline(always)]
fn left_jet<G: AdLieGroup<D>, const D: usize>(
    group: &G,
    g: &<G as LieGroup<f64, D>>::Element,
    i: usize,
) -> <G as LieGroupFamily<D>>::ElementAt<Dual64> {
    group.translation_jet(&group.lift_at::<f64>(g), &unit(i), Side::Left).unwrap_or_else(|| {
        let e = SVector::<Dual64, D>::from_fn(|k, _| Dual64::new(0.0, if k == i { 1.0 } else { 0.0 }));
        translated::<G, Dual64, D>(group, g, [Some(&e), None])
    })
}

/// `g exp(ε₁ e_i)` to first order at `HyperDual64`, `g + ε₁ g ê_i` (the jet of [`left_jet`]
/// with its `ε` as `ε₁`).
#[inline(always)]
fn left_jet_eps1<G: AdLieGroup<D>, const D: usize>(
    group: &G,
    g: &<G as LieGroup<f64, D>>::Element,
    i: usize,
) -> <G as LieGroupFamily<D>>::ElementAt<HyperDual64> {
    group.map_scalar(&left_jet(group, g, i), &|v: Dual64| HyperDual64::new(v.re, v.eps, 0.0, 0.0))
}

/// The part of `g exp(ε₁ e_j) exp(ε₂ e_i)` bilinear in `(ε₁, ε₂)` at `HyperDual64`,
/// `g + ε₁ g ê_j + ε₂ g ê_i + ε₁ε₂ g ê_j ê_i` (the terms in `ε₁²` and `ε₂²` vanish): the group's
/// jets ([`LieGroupFamily::translation_jet_dual`] of [`left_jet`]), else the curve
/// `g cay(ε₁ e_j) cay(ε₂ e_i)` ([`translated`]), which agrees with it to this order.
#[inline(always)]
fn second_jet<G: AdLieGroup<D>, const D: usize>(
    group: &G,
    g: &<G as LieGroup<f64, D>>::Element,
    j: usize,
    i: usize,
) -> <G as LieGroupFamily<D>>::ElementAt<HyperDual64> {
    group
        .translation_jet(&group.lift_at::<f64>(g), &unit(j), Side::Left)
        .and_then(|gj| group.translation_jet_dual(&gj, &unit(i), Side::Left))
        .unwrap_or_else(|| {
            let zero = SVector::<f64, D>::zeros();
            let (a, b) = (seeded(&zero, Some(j), None), seeded(&zero, None, Some(i)));
            translated::<G, HyperDual64, D>(group, g, [Some(&a), Some(&b)])
        })
}

fn finite<const D: usize>(v: &SVector<f64, D>, what: &'static str) -> Result<(), GeomError> {
    geom_core::error::check_finite(v.iter(), what)
}

impl<G: AdLieGroup<D>, F: AdLieFunction<G, D>, const D: usize> LieFunctionDerivatives<G, D> for LieAutoDiff<F> {
    fn value(&self, group: &G, g: &<G as LieGroup<f64, D>>::Element, y: &SVector<f64, D>) -> Result<f64, GeomError> {
        let v = LieFunction::<f64, G, D>::eval(&self.0, group, g, y);
        if v.is_finite() { Ok(v) } else { Err(GeomError::NonFinite { what: "function value on G" }) }
    }

    #[inline]
    fn gradient(
        &self,
        group: &G,
        g: &<G as LieGroup<f64, D>>::Element,
        y: &SVector<f64, D>,
    ) -> Result<LieGradient<D>, GeomError> {
        let zero = SVector::<f64, D>::zeros();
        let (dg, dy) = if D <= geom_core::function::DIRECTIONAL_GRADIENT_MAX {
            // 2D one-direction passes: cheaper than a vector dual below this size
            let (mut dg, mut dy) = (zero, zero);
            // the translated elements as jets `g + ε g ê_i` ([`left_jet`]), the lifted one once
            let (ys, gs) = (y.map(Dual64::from), lift::<G, Dual64, D>(group, g));
            for i in 0..D {
                let e = SVector::<Dual64, D>::from_fn(|k, _| Dual64::new(0.0, if k == i { 1.0 } else { 0.0 }));
                dg[i] = LieFunction::<Dual64, G, D>::eval(&self.0, group, &left_jet(group, g, i), &ys).eps;
                dy[i] = LieFunction::<Dual64, G, D>::eval(&self.0, group, &gs, &(ys + e)).eps;
            }
            (dg, dy)
        } else {
            let (_, dg) = num_dual::gradient(
                |a: SVector<DualSVec64<D>, D>| eval_perturbed(&self.0, group, g, y, Some(&a), None, None),
                &zero,
            );
            let (_, dy) = num_dual::gradient(
                |c: SVector<DualSVec64<D>, D>| eval_perturbed(&self.0, group, g, y, None, None, Some(&c)),
                &zero,
            );
            (dg, dy)
        };
        finite(&dg, "left-trivialized gradient")?;
        finite(&dy, "gradient")?;
        Ok(LieGradient { g: dg, y: dy })
    }

    #[inline]
    fn gradient_and_hessian(
        &self,
        group: &G,
        g: &<G as LieGroup<f64, D>>::Element,
        y: &SVector<f64, D>,
    ) -> Result<(LieGradient<D>, LieHessian<D>), GeomError> {
        // One-direction hyper-dual passes (geom_core::hyper_dual), one loop with one call site of
        // the model: D(D + 1)/2 passes F(g exp(a) exp(b)) with ε₁ on a_j, ε₂ on b_i, j <= i
        // (gg[(i, j)], and (D_g F)_i from ε₂ at j = 0), D² passes F(g exp(b), y + c) with ε₁ on
        // b_i, ε₂ on c_j (gy[(i, j)], and ∂F/∂y_j from ε₂), D(D + 1)/2 passes F(g, y + c) with
        // ε₁ on c_i, ε₂ on c_j (yy). The entries of gg above the diagonal follow from the bracket
        // (module documentation): gg[(j, i)] = gg[(i, j)] - ⟨D_g F, [e_j, e_i]⟩.
        let zero = SVector::<f64, D>::zeros();
        let (mut dg, mut dy) = (zero, zero);
        let (mut gg, mut gy, mut yy) = (SMatrix::<f64, D, D>::zeros(), SMatrix::zeros(), SMatrix::zeros());
        for k in 0..3 * D * D {
            let (block, i, j) = (k / (D * D), (k % (D * D)) / D, k % D);
            if block != 1 && j > i {
                continue;
            }
            // the translated elements as jets (no chart, no group product at dual scalars) where
            // the group gives them: block 0 `g + ε₁ g ê_j + ε₂ g ê_i + ε₁ε₂ g ê_j ê_i` (the
            // ε-bilinear part of `g exp(a) exp(b)`), block 1 `g + ε₁ g ê_i`
            let (gs, ys) = match block {
                0 => (second_jet(group, g, j, i), y.map(HyperDual64::from)),
                1 => (left_jet_eps1(group, g, i), seeded(y, None, Some(j))),
                _ => (lift::<G, HyperDual64, D>(group, g), seeded(y, Some(i), Some(j))),
            };
            let r: HyperDual64 = LieFunction::<HyperDual64, G, D>::eval(&self.0, group, &gs, &ys);
            match block {
                0 => {
                    gg[(i, j)] = r.eps1eps2;
                    if j == 0 {
                        dg[i] = r.eps2;
                    }
                }
                1 => {
                    gy[(i, j)] = r.eps1eps2;
                    if i == 0 {
                        dy[j] = r.eps2;
                    }
                }
                _ => {
                    yy[(i, j)] = r.eps1eps2;
                    yy[(j, i)] = r.eps1eps2;
                }
            }
        }
        for i in 0..D {
            for j in 0..i {
                let bracket = LieGroup::<f64, D>::bracket(group, &unit(j), &unit(i));
                gg[(j, i)] = gg[(i, j)] - dg.dot(&bracket);
            }
        }
        let hess = LieHessian { gg, gy, yy };
        finite(&dg, "left-trivialized gradient")?;
        finite(&dy, "gradient")?;
        for m in [&hess.gg, &hess.gy, &hess.yy] {
            geom_core::error::check_finite(m.iter(), "Hessian on G")?;
        }
        Ok((LieGradient { g: dg, y: dy }, hess))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use geom_core::lie::{Se3, So3};
    use nalgebra::{Matrix3, Matrix4};

    /// A function with every kind of dependence: `F(R, y) = e3·R χ (1 + y·a) + ½ |y|² + (R_{12})²`.
    #[derive(Debug)]
    struct Mixed;
    impl<S: Scalar> LieFunction<S, So3, 3> for Mixed {
        #[inline]
        fn eval(&self, _: &So3, r: &Matrix3<S>, y: &SVector<S, 3>) -> S {
            let chi = SVector::<S, 3>::new(S::from(0.3), S::from(-0.2), S::from(1.0));
            let a = SVector::<S, 3>::new(S::from(0.5), S::from(0.1), S::from(-0.4));
            let z = (r * chi)[2];
            z * (S::from(1.0) + y.dot(&a)) + y.norm_squared() * S::from(0.5) + r[(0, 1)] * r[(0, 1)]
        }
    }

    fn fd_gradient(r: &Matrix3<f64>, y: &SVector<f64, 3>) -> LieGradient<3> {
        let e = 1e-6;
        let f = |r: &Matrix3<f64>, y: &SVector<f64, 3>| LieFunction::<f64, So3, 3>::eval(&Mixed, &So3, r, y);
        let mut g = LieGradient { g: SVector::zeros(), y: SVector::zeros() };
        for i in 0..3 {
            let d = SVector::<f64, 3>::from_fn(|k, _| if k == i { e } else { 0.0 });
            g.g[i] = (f(&(r * So3.exp(&d)), y) - f(&(r * So3.exp(&-d)), y)) / (2.0 * e);
            g.y[i] = (f(r, &(y + d)) - f(r, &(y - d))) / (2.0 * e);
        }
        g
    }

    #[test]
    fn derivatives_match_finite_differences() {
        let r = So3.exp(&SVector::from([0.4, -0.7, 1.1]));
        let y = SVector::from([0.3, -1.2, 0.8]);
        let ad = LieAutoDiff(Mixed);
        let (grad, hess) = ad.gradient_and_hessian(&So3, &r, &y).unwrap();
        let g2 = ad.gradient(&So3, &r, &y).unwrap();
        assert!((grad.g - g2.g).norm() < 1e-14 && (grad.y - g2.y).norm() < 1e-14);
        let fd = fd_gradient(&r, &y);
        assert!((grad.g - fd.g).norm() < 1e-8, "{} vs {}", grad.g, fd.g);
        assert!((grad.y - fd.y).norm() < 1e-8);
        // Hessian blocks: differences of the AD gradient along g exp(η) and y + δ
        let e = 1e-6;
        for j in 0..3 {
            let d = SVector::<f64, 3>::from_fn(|k, _| if k == j { e } else { 0.0 });
            let gp = ad.gradient(&So3, &(r * So3.exp(&d)), &y).unwrap();
            let gm = ad.gradient(&So3, &(r * So3.exp(&-d)), &y).unwrap();
            let col = (gp.g - gm.g) / (2.0 * e);
            assert!((hess.gg.column(j) - col).norm() < 1e-7, "gg column {j}");
            let yp = ad.gradient(&So3, &r, &(y + d)).unwrap();
            let ym = ad.gradient(&So3, &r, &(y - d)).unwrap();
            assert!((hess.gy.column(j) - (yp.g - ym.g) / (2.0 * e)).norm() < 1e-7, "gy column {j}");
            assert!((hess.yy.column(j) - (yp.y - ym.y) / (2.0 * e)).norm() < 1e-7, "yy column {j}");
        }
        // the antisymmetric part of gg is fixed by the bracket: gg - ggᵀ = ⟨D_g F, [e_j, e_i]⟩
        for i in 0..3 {
            for j in 0..3 {
                let ei = SVector::<f64, 3>::from_fn(|k, _| if k == i { 1.0 } else { 0.0 });
                let ej = SVector::<f64, 3>::from_fn(|k, _| if k == j { 1.0 } else { 0.0 });
                let expected = grad.g.dot(&LieGroup::<f64, 3>::bracket(&So3, &ej, &ei));
                assert!((hess.gg[(i, j)] - hess.gg[(j, i)] - expected).abs() < 1e-12, "({i}, {j})");
            }
        }
    }

    /// A potential on SE(3): height of a point of the body, `F(g, y) = (g (c, 1))_z + ½|y|²`.
    #[derive(Debug)]
    struct Height;
    impl<S: Scalar> LieFunction<S, Se3, 6> for Height {
        #[inline]
        fn eval(&self, _: &Se3, g: &Matrix4<S>, y: &SVector<S, 6>) -> S {
            let c = nalgebra::Vector4::new(S::from(0.1), S::from(0.2), S::from(-0.3), S::from(1.0));
            (g * c)[2] + y.norm_squared() * S::from(0.5)
        }
    }

    #[test]
    fn se3_gradient_is_the_left_trivialized_force() {
        let g = Se3.exp(&SVector::from([0.2, -0.1, 0.4, 1.0, 2.0, 3.0]));
        let grad = LieAutoDiff(Height).gradient(&Se3, &g, &SVector::zeros()).unwrap();
        // d/dε (g exp(ε e_i) c)_z = (g ê_i c)_z
        for i in 0..6 {
            let e = SVector::<f64, 6>::from_fn(|k, _| if k == i { 1.0 } else { 0.0 });
            let c = nalgebra::Vector4::new(0.1, 0.2, -0.3, 1.0);
            let expected = (g * LieGroup::<f64, 6>::hat(&Se3, &e) * c)[2];
            assert!((grad.g[i] - expected).abs() < 1e-14, "{i}");
        }
    }

    #[test]
    fn non_finite_values_are_errors() {
        #[derive(Debug)]
        struct Bad;
        impl<S: Scalar> LieFunction<S, So3, 3> for Bad {
            #[inline]
            fn eval(&self, _: &So3, _: &Matrix3<S>, y: &SVector<S, 3>) -> S {
                y[0].ln() + y[1].sqrt()
            }
        }
        let ad = LieAutoDiff(Bad);
        // ln(-1) is NaN; √y₁ at 0 has an infinite derivative
        let y = SVector::from([-1.0, 1.0, 0.0]);
        assert!(matches!(ad.value(&So3, &Matrix3::identity(), &y), Err(GeomError::NonFinite { .. })));
        let y = SVector::from([1.0, 0.0, 0.0]);
        assert!(ad.value(&So3, &Matrix3::identity(), &y).is_ok());
        assert!(ad.gradient(&So3, &Matrix3::identity(), &y).is_err());
        assert!(ad.gradient_and_hessian(&So3, &Matrix3::identity(), &y).is_err());
    }
}
