//! Ready-made discrete Lagrangians and constraints of the shipped examples (docs/math.md §C.6;
//! Marrero, Martín de Diego & Stern, *Symplectic groupoids and discrete constrained Lagrangian
//! mechanics*, 2015, arXiv:1103.6250, §6), so that a user of this crate alone runs them without
//! rewriting them (the workbench uses these same types):
//!
//! * [`PendulumLd`] and [`UnitSphere`]: the spherical pendulum on the pair groupoid of `R³`, with
//!   the node constraint `|q| = 1` ([`HolonomicFlow`](crate::HolonomicFlow), RATTLE form);
//! * [`PlateBallCost`] and [`RollingWithoutSlip`] on [`PlateBallGroupoid`]: the plate-ball system,
//!   a ball rolled without slipping between two plates;
//! * for optimal control on a Lie group see [`crate::control`] (`ControlCost`, `Unactuated`).

use crate::constraints::{BaseConstraints, Constraints};
use crate::lagrangian::{DiscreteLagrangian, GroupoidFamily};
use crate::pair::PairGroupoid;
use crate::pair_manifold::PairOfGroup;
use geom_core::lie::{LieGroup, Product, Rn, So3};
use geom_core::{GeomError, Result, Scalar};
use nalgebra::{SVector, Vector3};

mod chaplygin_sleigh;
mod rolling_disk;

pub use chaplygin_sleigh::{ChaplyginSleigh, KnifeEdge, PlanarMotions, SleighFlow, SleighIntegrator, SleighMotion};
pub use rolling_disk::{DiskSymmetry, RollingConstraint, RollingDisk, RollingDiskFlow, RollingDiskIntegrator};

/// Standard gravity, `9.81` (the default of [`PendulumLd::new`]).
pub const GRAVITY: f64 = 9.81;

fn check_step(h: f64) -> Result<()> {
    if h.is_finite() && h > 0.0 { Ok(()) } else { Err(GeomError::InvalidStep { h }) }
}

/// The trapezoidal discrete Lagrangian of a unit point mass in uniform gravity `g` along `-e_3`,
/// `L = ½|q̇|² − g q_3`, on the pair groupoid of `R³`:
///
/// ```text
///   L_d(q_0, q_1) = |q_1 − q_0|² / (2h) − h g (q_{0,3} + q_{1,3}) / 2 .
/// ```
///
/// With [`UnitSphere`] as the node constraint it is the spherical pendulum (RATTLE).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PendulumLd {
    h: f64,
    gravity: f64,
}

impl PendulumLd {
    /// Step `h` (finite, positive: else [`GeomError::InvalidStep`]) and gravity [`GRAVITY`].
    pub fn new(h: f64) -> Result<Self> {
        Self::with_gravity(h, GRAVITY)
    }
    /// Step `h` and gravity `g` (finite, else [`GeomError::NonFinite`]).
    pub fn with_gravity(h: f64, gravity: f64) -> Result<Self> {
        check_step(h)?;
        if !gravity.is_finite() {
            return Err(GeomError::NonFinite { what: "gravity" });
        }
        Ok(Self { h, gravity })
    }
    /// The step `h`.
    pub fn h(&self) -> f64 {
        self.h
    }
    /// The gravity `g`.
    pub fn gravity(&self) -> f64 {
        self.gravity
    }
    /// The continuous energy `½|p|² + g q_3` of a node `(q, p)`.
    pub fn energy(&self, q: &Vector3<f64>, p: &Vector3<f64>) -> f64 {
        0.5 * p.norm_squared() + self.gravity * q[2]
    }
}

impl DiscreteLagrangian<PairGroupoid<3>, 3> for PendulumLd {
    #[inline]
    fn eval<S: Scalar>(&self, _: &PairGroupoid<3>, g: &(Vector3<S>, Vector3<S>)) -> S {
        let h = S::from(self.h);
        (g.1 - g.0).norm_squared() / (h * S::from(2.0)) - h * S::from(0.5 * self.gravity) * (g.0[2] + g.1[2])
    }
}

/// The unit sphere as a node constraint, `c(q) = (|q|² − 1)/2 = 0`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UnitSphere;

impl BaseConstraints<PairGroupoid<3>, 3, 1> for UnitSphere {
    #[inline]
    fn eval<S: Scalar>(&self, _: &PairGroupoid<3>, q: &Vector3<S>) -> SVector<S, 1> {
        SVector::from([(q.norm_squared() - S::from(1.0)) * S::from(0.5)])
    }
}

/// The configuration groupoid of the plate-ball system: the pair groupoid of
/// `Q = R² × SO(3)` (the ball's contact point `x` and attitude `R`), with a chart of `Q`'s group
/// structure (docs/math.md §C.6.3).
pub type PlateBallGroupoid = PairOfGroup<Product<Rn<2>, So3, 2, 3>>;

/// An arrow `((x_0, R_0), (x_1, R_1))` of [`PlateBallGroupoid`] at scalar `S`.
pub type PlateBallArrow<S> = <PlateBallGroupoid as GroupoidFamily<5>>::Element<S>;

/// The plate-ball cost `L̂(g) = |x_1 − x_0|² / (2h)`: the discrete `∫ ½(u_1² + u_2²) dt` of the
/// upper plate's velocity `u = ẋ`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlateBallCost {
    h: f64,
}

impl PlateBallCost {
    /// Step `h` (finite, positive: else [`GeomError::InvalidStep`]).
    pub fn new(h: f64) -> Result<Self> {
        check_step(h)?;
        Ok(Self { h })
    }
    /// The step `h`.
    pub fn h(&self) -> f64 {
        self.h
    }
}

impl DiscreteLagrangian<PlateBallGroupoid, 5> for PlateBallCost {
    #[inline]
    fn eval<S: Scalar>(&self, _: &PlateBallGroupoid, g: &PlateBallArrow<S>) -> S {
        (g.1.0 - g.0.0).norm_squared() * S::from(0.5 / self.h)
    }
}

/// The three rolling constraints of the plate-ball system (docs/math.md §C.6.3):
///
/// ```text
///   φ(g) = log(R_1 R_0ᵀ) − (−Δx_2, Δx_1, 0) = 0,   Δx = x_1 − x_0,
/// ```
///
/// the ball turns about the horizontal axis perpendicular to its displacement by the distance
/// rolled, and does not spin about the vertical.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RollingWithoutSlip;

impl Constraints<PlateBallGroupoid, 5, 3> for RollingWithoutSlip {
    #[inline]
    fn eval<S: Scalar>(&self, _: &PlateBallGroupoid, g: &PlateBallArrow<S>) -> SVector<S, 3> {
        let w = LieGroup::<S, 3>::log(&So3, &(g.1.1 * g.0.1.transpose()))
            .unwrap_or_else(|_| Vector3::repeat(S::from(f64::NAN)));
        let d = g.1.0 - g.0.0;
        w - Vector3::new(-d[1], d[0], S::from(0.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use geom_core::lie::Chart;
    use nalgebra::{Matrix3, Vector2};

    #[test]
    fn models_evaluate_their_formulas_and_refuse_bad_steps() {
        let ld = PendulumLd::new(0.1).unwrap();
        let (q0, q1) = (Vector3::new(0.0, 0.6, -0.8), Vector3::new(0.1, 0.6, -0.79));
        let expect = (q1 - q0).norm_squared() / 0.2 - 0.1 * 9.81 * 0.5 * (q0[2] + q1[2]);
        assert!((ld.eval::<f64>(&PairGroupoid::<3>, &(q0, q1)) - expect).abs() < 1e-15);
        assert!(PendulumLd::new(0.0).is_err() && PendulumLd::with_gravity(0.1, f64::NAN).is_err());
        assert!((UnitSphere.eval::<f64>(&PairGroupoid::<3>, &q0)[0]).abs() < 1e-16);
        assert!(PlateBallCost::new(-1.0).is_err());
        // a roll by d along e1 turns the ball about e2 by |d|: the constraint holds exactly
        let gd = PairOfGroup::new(Product::new(Rn::<2>, So3), Chart::Exp);
        let d = 0.3;
        let r1 = So3.exp(&Vector3::new(0.0, d, 0.0));
        let g = ((Vector2::zeros(), Matrix3::identity()), (Vector2::new(d, 0.0), r1));
        assert!(RollingWithoutSlip.eval::<f64>(&gd, &g).amax() < 1e-15);
        // spinning in place violates it
        let spin = ((Vector2::zeros(), Matrix3::identity()), (Vector2::zeros(), So3.exp(&Vector3::new(0.0, 0.0, 0.2))));
        assert!((RollingWithoutSlip.eval::<f64>(&gd, &spin)[2] - 0.2).abs() < 1e-15);
        assert!((PlateBallCost::new(0.5).unwrap().eval::<f64>(&gd, &g) - d * d).abs() < 1e-15);
    }
}
