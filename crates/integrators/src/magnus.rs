//! Magnus integrators of orders 4 and 6 for linear equations on a Lie group and on `R^n` (Iserles
//! & Nørsett, *On the solution of linear differential equations in Lie groups*, Phil. Trans.
//! R. Soc. A 357, 1999; Blanes, Casas & Ros, *Improved high order integrators based on the Magnus
//! expansion*, BIT 40, 2000; Blanes, Casas, Oteo & Ros, *The Magnus expansion and some of its
//! applications*, Phys. Rep. 470, 2009, arXiv:0810.5488, §4 = BCOR).
//!
//! # The equation and its convention
//!
//! On a matrix Lie group the equation is left-trivialized, as in [`crate::rkmk`]:
//! `ġ = g A(t)`, `A(t) ∈ g ≅ R^D` ([`AlgebraCurve`]), whose solution is
//! `g(t_k + h) = g(t_k) exp(Ω)` with `Ω̇ = dexp^{-1}_{-Ω} A = A + ½[Ω, A] + …`. Its Magnus series
//! is that of `ẏ = A(t) y` with every bracket reversed (`[x, y] → [y, x]`: `ġ = g A` is
//! `ẏ = A y` in the opposite group, whose product is `a ∘ b = b a`), so the formulas below, stated
//! for `ẏ = A y` as in the literature, are evaluated with the bracket `(x, y) ↦ [y, x]` of the
//! group ([`LieGroup::bracket`]). [`Magnus`] steps [`GroupState`] `(t, g)`.
//!
//! The front end [`LinearMagnus`] solves `ẏ = A(t) y` on `R^n`, `A(t)` an `n × n` matrix
//! ([`MatrixCurve`]), with the matrix commutator `[X, Y] = XY − YX` and
//! `y_{k+1} = e^{Ω} y_k`, `e^Ω` by scaling and squaring ([`geom_core::lie::Gl::expm`]); it steps
//! `GroupState { t, g: y }` with `y ∈ R^n`.
//!
//! # The schemes (for `ẏ = A(t) y`)
//!
//! Order 4, two Gauss points `c_{1,2} = ½ ∓ √3/6`, `A_i = A(t_k + c_i h)`, one commutator:
//!
//! ```text
//!   Ω⁽⁴⁾ = h/2 (A_1 + A_2) + √3 h²/12 [A_2, A_1].
//! ```
//!
//! Order 6, three Gauss points `c = ½ − √15/10, ½, ½ + √15/10`, three commutators (Blanes, Casas
//! & Ros 2000; BCOR eq. (4.23)):
//!
//! ```text
//!   α_1 = h A_2,   α_2 = √15 h/3 (A_3 − A_1),   α_3 = 10 h/3 (A_3 − 2 A_2 + A_1),
//!   C_1 = [α_1, α_2],   C_2 = −1/60 [α_1, 2 α_3 + C_1],
//!   Ω⁽⁶⁾ = α_1 + α_3/12 + 1/240 [−20 α_1 − α_3 + C_1, α_2 + C_2].
//! ```
//!
//! Both are time-symmetric (`Ω(t_k + h, −h) = −Ω(t_k, h)` on the reflected nodes), so
//! [`OneStep::is_symmetric`] is true, and both stay on the group up to the exponential's
//! round-off.

use crate::rkmk::GroupState;
use geom_core::lie::{Gl, LieGroup};
use geom_core::step::{OneStep, check_step};
use geom_core::{GeomError, Result};
use nalgebra::{SMatrix, SVector};
use std::ops::{Add, Mul, Sub};

/// A curve `t ↦ A(t)` in the Lie algebra `g ≅ R^D`: the right-hand side of `ġ = g A(t)`.
pub trait AlgebraCurve<const D: usize>: Send + Sync {
    /// `A(t)`.
    fn eval(&self, t: f64) -> Result<SVector<f64, D>>;
}

/// A curve `t ↦ A(t)` of `n × n` matrices: the right-hand side of `ẏ = A(t) y` on `R^n`.
pub trait MatrixCurve<const N: usize>: Send + Sync {
    /// `A(t)`.
    fn eval(&self, t: f64) -> Result<SMatrix<f64, N, N>>;
}

/// The order of a Magnus integrator (module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MagnusOrder {
    /// Two Gauss points, one commutator.
    Four,
    /// Three Gauss points, three commutators.
    Six,
}

impl MagnusOrder {
    /// 4 or 6.
    pub fn value(self) -> u32 {
        match self {
            MagnusOrder::Four => 4,
            MagnusOrder::Six => 6,
        }
    }
}

/// `√3/6` and `√15/10`, the offsets of the Gauss nodes from `½`.
const GAUSS2: f64 = 0.288_675_134_594_812_9;
const GAUSS3: f64 = 0.387_298_334_620_741_7;

/// `Ω⁽⁴⁾` of `ẏ = A y` (module documentation) from `A_1, A_2` with the bracket `br`.
#[inline(always)]
fn omega4<X>(a1: X, a2: X, h: f64, br: impl Fn(&X, &X) -> X) -> X
where
    X: Copy + Add<Output = X> + Mul<f64, Output = X>,
{
    (a1 + a2) * (0.5 * h) + br(&a2, &a1) * (3f64.sqrt() / 12.0 * h * h)
}

/// `Ω⁽⁶⁾` of `ẏ = A y` (module documentation) from `A_1, A_2, A_3` with the bracket `br`.
#[inline(always)]
fn omega6<X>(a1: X, a2: X, a3: X, h: f64, br: impl Fn(&X, &X) -> X) -> X
where
    X: Copy + Add<Output = X> + Sub<Output = X> + Mul<f64, Output = X>,
{
    let alpha1 = a2 * h;
    let alpha2 = (a3 - a1) * (15f64.sqrt() / 3.0 * h);
    let alpha3 = (a3 - a2 * 2.0 + a1) * (10.0 / 3.0 * h);
    let c1 = br(&alpha1, &alpha2);
    let c2 = br(&alpha1, &(alpha3 * 2.0 + c1)) * (-1.0 / 60.0);
    alpha1 + alpha3 * (1.0 / 12.0) + br(&(c1 - alpha1 * 20.0 - alpha3), &(alpha2 + c2)) * (1.0 / 240.0)
}

/// `Ω` of `ẏ = A y` over `[t, t + h]` from the curve `a`, with the bracket `br`.
#[inline(always)]
fn omega<X>(order: MagnusOrder, t: f64, h: f64, a: impl Fn(f64) -> Result<X>, br: impl Fn(&X, &X) -> X) -> Result<X>
where
    X: Copy + Add<Output = X> + Sub<Output = X> + Mul<f64, Output = X>,
{
    Ok(match order {
        MagnusOrder::Four => omega4(a(t + (0.5 - GAUSS2) * h)?, a(t + (0.5 + GAUSS2) * h)?, h, br),
        MagnusOrder::Six => omega6(a(t + (0.5 - GAUSS3) * h)?, a(t + 0.5 * h)?, a(t + (0.5 + GAUSS3) * h)?, h, br),
    })
}

fn name(order: MagnusOrder, on: &str) -> String {
    format!("Magnus {} ({on})", order.value())
}

/// The Magnus integrator of `ġ = g A(t)` on the group `G` (module documentation):
/// `g_{k+1} = g_k exp(Ω)`, `Ω` the order-4 or order-6 formula with the reversed bracket.
#[derive(Debug, Clone)]
pub struct Magnus<G, A, const D: usize> {
    group: G,
    curve: A,
    order: MagnusOrder,
    name: String,
}

impl<G: LieGroup<f64, D>, A: AlgebraCurve<D>, const D: usize> Magnus<G, A, D> {
    /// The Magnus integrator of the given order for `ġ = g A(t)`.
    ///
    /// ```
    /// use geom_core::lie::{LieGroup, So3};
    /// use geom_core::step::OneStep;
    /// use integrators::magnus::{AlgebraCurve, Magnus, MagnusOrder};
    /// use integrators::rkmk::GroupState;
    /// use nalgebra::Vector3;
    /// /// A constant angular velocity: the exact flow is g exp(t ω).
    /// struct Spin;
    /// impl AlgebraCurve<3> for Spin {
    ///     fn eval(&self, _t: f64) -> geom_core::Result<Vector3<f64>> {
    ///         Ok(Vector3::new(0.3, -1.0, 0.5))
    ///     }
    /// }
    /// let m = Magnus::new(So3, Spin, MagnusOrder::Six);
    /// let mut s = GroupState::new(0.0, So3.identity());
    /// m.step_n(&mut s, 0.1, 10)?;
    /// assert!((s.g - So3.exp(&Vector3::new(0.3, -1.0, 0.5))).amax() < 1e-14);
    /// # Ok::<(), geom_core::GeomError>(())
    /// ```
    pub fn new(group: G, curve: A, order: MagnusOrder) -> Self {
        let name = name(order, &LieGroup::<f64, D>::name(&group));
        Self { group, curve, order, name }
    }
    /// The group.
    pub fn group(&self) -> &G {
        &self.group
    }
    /// The curve `A(t)`.
    pub fn curve(&self) -> &A {
        &self.curve
    }
    /// `Ω` of the step from `t` with `h` (module documentation).
    pub fn exponent(&self, t: f64, h: f64) -> Result<SVector<f64, D>> {
        omega(self.order, t, h, |s| self.curve.eval(s), |x, y| self.group.bracket(y, x))
    }
    /// One step from `state` (left untouched); errors as [`OneStep::step`].
    pub fn try_step(&self, state: &GroupState<G::Element>, h: f64) -> Result<GroupState<G::Element>> {
        check_step(h)?;
        if !state.t.is_finite() || !self.group.is_finite(&state.g) {
            return Err(GeomError::NonFinite { what: "Magnus state" });
        }
        let w = self.exponent(state.t, h)?;
        if !w.iter().all(|v| v.is_finite()) {
            return Err(GeomError::NonFinite { what: "Magnus exponent" });
        }
        let g = self.group.compose(&state.g, &self.group.exp(&w));
        if !self.group.is_finite(&g) {
            return Err(GeomError::NonFinite { what: "Magnus state after the step" });
        }
        Ok(GroupState { t: state.t + h, g })
    }
}

impl<G: LieGroup<f64, D>, A: AlgebraCurve<D>, const D: usize> OneStep<GroupState<G::Element>> for Magnus<G, A, D> {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn order(&self) -> u32 {
        self.order.value()
    }
    /// Yes: `Ω(t_k + h, −h) = −Ω(t_k, h)`.
    fn is_symmetric(&self) -> bool {
        true
    }
    fn step(&self, state: &mut GroupState<G::Element>, h: f64) -> Result<()> {
        *state = self.try_step(state, h)?;
        Ok(())
    }
}

/// The Magnus integrator of `ẏ = A(t) y` on `R^N` (module documentation):
/// `y_{k+1} = e^{Ω} y_k` with the matrix commutator.
#[derive(Debug, Clone)]
pub struct LinearMagnus<A, const N: usize> {
    curve: A,
    order: MagnusOrder,
    name: String,
}

impl<A: MatrixCurve<N>, const N: usize> LinearMagnus<A, N> {
    /// The Magnus integrator of the given order for `ẏ = A(t) y`.
    ///
    /// ```
    /// use geom_core::step::OneStep;
    /// use integrators::magnus::{LinearMagnus, MagnusOrder, MatrixCurve};
    /// use integrators::rkmk::GroupState;
    /// use nalgebra::{Matrix2, Vector2};
    /// /// Airy's equation x'' = −t x as ẏ = A(t) y.
    /// struct Airy;
    /// impl MatrixCurve<2> for Airy {
    ///     fn eval(&self, t: f64) -> geom_core::Result<Matrix2<f64>> {
    ///         Ok(Matrix2::new(0.0, 1.0, -t, 0.0))
    ///     }
    /// }
    /// let m = LinearMagnus::new(Airy, MagnusOrder::Four);
    /// let (mut a, mut b) = (GroupState::new(0.0, Vector2::new(1.0, 0.0)), GroupState::new(0.0, Vector2::new(0.0, 1.0)));
    /// m.step_n(&mut a, 0.01, 100)?;
    /// m.step_n(&mut b, 0.01, 100)?;
    /// // tr A = 0: the Wronskian stays 1 (each step is det e^Ω = 1)
    /// assert!((a.g[0] * b.g[1] - a.g[1] * b.g[0] - 1.0).abs() < 1e-13 && (a.t - 1.0).abs() < 1e-14);
    /// # Ok::<(), geom_core::GeomError>(())
    /// ```
    pub fn new(curve: A, order: MagnusOrder) -> Self {
        Self { curve, order, name: name(order, &format!("R^{N}")) }
    }
    /// The curve `A(t)`.
    pub fn curve(&self) -> &A {
        &self.curve
    }
    /// `Ω` of the step from `t` with `h` (module documentation).
    pub fn exponent(&self, t: f64, h: f64) -> Result<SMatrix<f64, N, N>> {
        omega(self.order, t, h, |s| self.curve.eval(s), |x: &SMatrix<f64, N, N>, y| x * y - y * x)
    }
    /// One step from `state` (left untouched); errors as [`OneStep::step`].
    pub fn try_step(&self, state: &GroupState<SVector<f64, N>>, h: f64) -> Result<GroupState<SVector<f64, N>>> {
        check_step(h)?;
        if !state.t.is_finite() || !state.g.iter().all(|v| v.is_finite()) {
            return Err(GeomError::NonFinite { what: "Magnus state" });
        }
        let w = self.exponent(state.t, h)?;
        if !w.iter().all(|v| v.is_finite()) {
            return Err(GeomError::NonFinite { what: "Magnus exponent" });
        }
        // the algebra dimension of `Gl` plays no part in its matrix exponential
        let y = Gl::<N, 1>::expm(&w) * state.g;
        if !y.iter().all(|v| v.is_finite()) {
            return Err(GeomError::NonFinite { what: "Magnus state after the step" });
        }
        Ok(GroupState { t: state.t + h, g: y })
    }
}

impl<A: MatrixCurve<N>, const N: usize> OneStep<GroupState<SVector<f64, N>>> for LinearMagnus<A, N> {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn order(&self) -> u32 {
        self.order.value()
    }
    /// Yes: `Ω(t_k + h, −h) = −Ω(t_k, h)`.
    fn is_symmetric(&self) -> bool {
        true
    }
    fn step(&self, state: &mut GroupState<SVector<f64, N>>, h: f64) -> Result<()> {
        *state = self.try_step(state, h)?;
        Ok(())
    }
}
