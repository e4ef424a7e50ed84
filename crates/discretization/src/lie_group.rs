//! The Lie-group θ-map (§2 of Barbero-Liñán, Marrero, Martín de Diego, *From retraction maps to
//! symplectic-momentum numerical integrators*, 2024, arXiv:2401.14800; docs/math.md §A.3) on any
//! `G: LieGroup<f64, D>`, with tangent vectors left-trivialized, `ξ = g^{-1} v_g`:
//!
//! ```text
//!   R_d(g, ξ) = ( g τ(-θξ), g τ((1-θ)ξ) ),
//! ```
//! for any chart `τ: g → G` ([`GroupChart`]: the shipped `exp` and Cayley of [`Chart`], or a
//! user's chart written once over the scalar, see [`crate::lie_chart`]), `θ = 1/2` being the
//! Lie-group midpoint `(g τ(-ξ/2), g τ(ξ/2))`. Since `τ(0) = e` and `Dτ(0) = Id`,
//! `R_d(g, 0) = (g, g)` and `T R^2 - T R^1 = ((1-θ) + θ) Id = Id` (§A.1). Left multiplication
//! commutes with it, `R_d(h g, ξ) = (h × h) R_d(g, ξ)`, so it is symmetry preserving for
//! [`geom_core::action::LeftMultiplication`] (whose tangent lift is `(g, ξ) ↦ (h g, ξ)`), for
//! every chart. Since `τ(Ad_h ξ) = h τ(ξ) h^{-1}` for exp and Cayley (and for every chart that is
//! a matrix function of `ξ̂`, e.g. a Padé approximant of `exp`), it also commutes with right
//! multiplication, [`geom_core::action::RightMultiplication`] (tangent lift
//! `(g, ξ) ↦ (g h^{-1}, Ad_h ξ)`). Adjoint (§A.5): with `τ(-ξ) = τ(ξ)^{-1}`,
//! `R_d^*(g, ξ) = (g τ(-(1-θ)ξ), g τ(θξ))`, the `(1-θ)`-map.
//!
//! The integrator it induces on `T*G` is [`crate::LieCotangentLiftIntegrator`] (the map
//! implements [`crate::LieGroupMap`], with its left-trivialized derivatives in closed form;
//! docs/math.md §B.4).
//!
//! **Inverse.** `g_0 = g τ(-θξ)` gives `g = g_0 τ(θξ)`, and then
//! `W := g_0^{-1} g_1 = τ(θξ) τ((1-θ)ξ)`.
//! * `τ = exp` (any θ), or θ ∈ {0, 1} (any τ): `W = τ(ξ)`, so `ξ = τ^{-1}(g_0^{-1} g_1)` in
//!   closed form (docs/math.md §A.3).
//! * any other chart with `0 < θ < 1` (Cayley, a user's chart): `τ(θξ) τ((1-θ)ξ) ≠ τ(ξ)` in
//!   general (on SO(3) the Cayley angles `2 atan(θ|ξ|/2) + 2 atan((1-θ)|ξ|/2)` do not add up to
//!   `2 atan(|ξ|/2)`), so the closed form does **not** hold (§A.3). `ξ` solves
//!   `r(ξ) = τ^{-1}(τ(θξ) τ((1-θ)ξ)) - τ^{-1}(W) = 0` by Newton from `ξ_0 = τ^{-1}(W)`, with the
//!   exact Jacobian (right-trivialized `dτ`, docs/math.md §D.2)
//!   `∂r/∂ξ = dτ^{-1}_y [θ dτ_{θξ} + (1-θ) Ad_{τ(θξ)} dτ_{(1-θ)ξ}]`, `y = τ^{-1}(τ(θξ) τ((1-θ)ξ))`.
//!
//! Distance: `|log(a^{-1} b)|` (left-invariant; `+∞` where `log` is not defined).

use crate::map::DiscretizationMap;
use crate::retraction::lie_distance;
use geom_core::GeomError;
use geom_core::lie::{Chart, GroupChart, LieGroup, check_chart};
use geom_core::newton::newton;
use nalgebra::SVector;

/// The Lie-group θ-map `(g τ(-θξ), g τ((1-θ)ξ))` (module documentation) of the chart `C`: any
/// [`GroupChart`] of `G`, the shipped [`Chart`] by default.
///
/// ```
/// use discretization::lie_group::LieGroupThetaMap;
/// use discretization::DiscretizationMap;
/// use geom_core::lie::{Chart, LieGroup, So3};
/// use nalgebra::Vector3;
/// let map = LieGroupThetaMap::<_, 3>::midpoint(So3, Chart::Exp);
/// let g = So3.exp(&Vector3::new(0.1, 0.2, 0.3));
/// let xi = Vector3::new(0.5, -0.4, 0.2);
/// let (g0, g1) = map.apply(&g, &xi)?;
/// let (gi, xii) = map.inverse(&g0, &g1)?;
/// assert!((gi - g).amax() < 1e-15 && (xii - xi).amax() < 1e-15);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
///
/// A user's chart goes in the same place (`LieGroupThetaMap::<_, 3, _>::midpoint(So3, MyChart)`,
/// or without the turbofish; `::<_, 3>` alone names the default `C = Chart`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LieGroupThetaMap<G, const D: usize, C = Chart> {
    group: G,
    theta: f64,
    chart: C,
}

/// `θ ∈ [0, 1]` ([`GeomError::InvalidParameter`], `what = "theta"`), and a chart that is not
/// a shipped one passes [`geom_core::lie::check_chart`] (`what = "chart"`): the checks of every
/// θ-map constructor.
pub(crate) fn check_theta_and_chart<G, C, const D: usize>(group: &G, theta: f64, chart: &C) -> Result<(), GeomError>
where
    G: LieGroup<f64, D>,
    C: GroupChart<f64, G, D>,
{
    if !(0.0..=1.0).contains(&theta) {
        return Err(GeomError::InvalidParameter { what: "theta", reason: format!("must lie in [0, 1], got {theta}") });
    }
    if chart.builtin().is_none() {
        check_chart(group, chart)?;
    }
    Ok(())
}

impl<G, const D: usize, C: Copy> LieGroupThetaMap<G, D, C> {
    /// The θ-map `(g τ(-θξ), g τ((1-θ)ξ))` of `group` with the chart `chart` (any
    /// [`GroupChart`]); [`GeomError::InvalidParameter`] unless `θ ∈ [0, 1]`, and
    /// (`what = "chart"`) for a chart that is not a shipped one and fails
    /// [`geom_core::lie::check_chart`].
    pub fn new(group: G, theta: f64, chart: C) -> Result<Self, GeomError>
    where
        G: LieGroup<f64, D>,
        C: GroupChart<f64, G, D>,
    {
        check_theta_and_chart(&group, theta, &chart)?;
        Ok(Self { group, theta, chart })
    }
    /// The Lie-group midpoint `(g τ(-ξ/2), g τ(ξ/2))` (docs/math.md §A.3) of any [`GroupChart`]
    /// (not validated: [`geom_core::lie::check_chart`] checks a user's chart).
    pub fn midpoint(group: G, chart: C) -> Self {
        Self { group, theta: 0.5, chart }
    }
    /// θ.
    pub fn value(&self) -> f64 {
        self.theta
    }
    /// The chart `τ`.
    pub fn chart(&self) -> C {
        self.chart
    }
    /// The chart `τ`, borrowed (for [`crate::ThetaChart::of`]).
    pub(crate) fn chart_ref(&self) -> &C {
        &self.chart
    }
    /// The group.
    pub fn group(&self) -> &G {
        &self.group
    }
    /// The adjoint `R_d^*`: the `(1-θ)`-map of the same chart (module documentation).
    pub fn adjoint(&self) -> Self
    where
        G: Clone,
    {
        Self { group: self.group.clone(), theta: 1.0 - self.theta, chart: self.chart }
    }
}

impl<G: LieGroup<f64, D>, const D: usize, C: GroupChart<f64, G, D>> LieGroupThetaMap<G, D, C> {
    /// Solve `τ^{-1}(τ(θξ) τ((1-θ)ξ)) = w` for `ξ` by Newton with the Jacobian
    /// `dτ^{-1}_y [θ dτ_{θξ} + (1-θ) Ad_{τ(θξ)} dτ_{(1-θ)ξ}]` (module documentation).
    fn solve_split(&self, w: &SVector<f64, D>) -> Result<SVector<f64, D>, GeomError> {
        let (grp, chart, th) = (&self.group, &self.chart, self.theta);
        let (xi, _) = newton(
            |xi| {
                let a = chart.tau(grp, &(xi * th))?;
                let b = chart.tau(grp, &(xi * (1.0 - th)))?;
                let y = chart.tau_inv(grp, &grp.compose(&a, &b))?;
                let inner = chart.dtau(grp, &(xi * th))? * th
                    + grp.adjoint(&a) * chart.dtau(grp, &(xi * (1.0 - th)))? * (1.0 - th);
                Ok((y - w, chart.dtau_inv(grp, &y)? * inner))
            },
            w,
            &geom_core::newton::NewtonOptions::integrator(),
        )?;
        Ok(xi)
    }
}

impl<G: LieGroup<f64, D>, const D: usize, C: GroupChart<f64, G, D>> DiscretizationMap for LieGroupThetaMap<G, D, C> {
    type Point = G::Element;
    type Tangent = SVector<f64, D>;
    fn name(&self) -> String {
        format!("{} {} theta-map (theta = {})", self.group.name(), self.chart.name(), self.theta)
    }
    /// `(g τ(-θξ), g τ((1-θ)ξ))`; [`GeomError::NonFinite`] for a non-finite `ξ`, and the errors of
    /// `τ` (Cayley where `I - ξ̂/2` is singular).
    fn apply(&self, g: &G::Element, xi: &SVector<f64, D>) -> Result<(G::Element, G::Element), GeomError> {
        geom_core::error::check_finite(xi.iter(), "Lie algebra element")?;
        let g0 = self.chart.compose_tau(&self.group, g, &(xi * -self.theta))?;
        let g1 = self.chart.compose_tau(&self.group, g, &(xi * (1.0 - self.theta)))?;
        Ok((g0, g1))
    }
    /// `g = g_0 τ(θξ)` with `ξ = τ^{-1}(g_0^{-1} g_1)` in closed form for `exp` and for
    /// θ ∈ {0, 1}, by Newton on `τ^{-1}(τ(θξ) τ((1-θ)ξ)) = τ^{-1}(g_0^{-1} g_1)` for every other
    /// chart (Cayley, a user's; module documentation); the errors of `τ^{-1}` (e.g. rotation
    /// angle π) and of Newton.
    fn inverse(&self, g0: &G::Element, g1: &G::Element) -> Result<(G::Element, SVector<f64, D>), GeomError> {
        let w = self.chart.tau_inv(&self.group, &self.group.compose(&self.group.inverse(g0), g1))?;
        let xi = if self.chart.builtin() == Some(Chart::Exp) || self.theta == 0.0 || self.theta == 1.0 {
            w
        } else {
            self.solve_split(&w)?
        };
        Ok((self.chart.compose_tau(&self.group, g0, &(xi * self.theta))?, xi))
    }
    fn distance(&self, a: &G::Element, b: &G::Element) -> f64 {
        lie_distance(&self.group, a, b)
    }
    fn is_symmetric(&self) -> bool {
        self.theta == 0.5
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::autodiff_map::AdjointMap;
    use crate::checks::{LieChart, check_discretization_map, check_symmetry_preservation, sample_algebra};
    use crate::retraction::{LieGroupRetraction, RetractionMap};
    use geom_core::action::LeftMultiplication;
    use geom_core::lie::{Se3, So3};

    fn samples<G: LieGroup<f64, D>, const D: usize>(
        group: &G,
        n: usize,
        seed: u64,
    ) -> Vec<(G::Element, SVector<f64, D>)> {
        sample_algebra::<D>(n, 1.5, seed)
            .iter()
            .map(|x| group.exp(x))
            .zip(sample_algebra::<D>(n, 1.0, seed + 50))
            .collect()
    }

    fn check_group<G: LieGroup<f64, D> + Copy, const D: usize>(group: G) {
        let samples = samples(&group, 6, 1);
        let elements: Vec<_> = sample_algebra::<D>(4, 2.0, 2).iter().map(|x| group.exp(x)).collect();
        for chart in [Chart::Exp, Chart::Cayley] {
            for theta in [0.0, 0.3, 0.5, 1.0] {
                let map = LieGroupThetaMap::<_, D>::new(group, theta, chart).unwrap();
                let label = map.name();
                // defining properties
                let r = check_discretization_map(&map, &LieChart::new(group), &samples).unwrap();
                assert!(r.zero_defect < 1e-14 && r.derivative_defect < 1e-8, "{label}: {r:?}");
                // inverse ∘ apply = id
                for (g, xi) in &samples {
                    let (g0, g1) = map.apply(g, xi).unwrap();
                    let (gi, xii) = map.inverse(&g0, &g1).unwrap();
                    assert!(
                        map.distance(&gi, g) < 1e-13 && (xii - xi).amax() < 1e-13,
                        "{label}: {:e}",
                        (xii - xi).amax()
                    );
                }
                // symmetry preservation under left multiplication
                let s =
                    check_symmetry_preservation(&map, &LeftMultiplication::new(group), &elements, &samples).unwrap();
                assert!(s.max_defect < 1e-13, "{label}: {s:?}");
                // the adjoint is the (1-θ)-map, and equals the generic AdjointMap
                let adj = map.adjoint();
                assert_eq!(adj.value(), 1.0 - theta);
                for (g, xi) in &samples {
                    let (a0, a1) = adj.apply(g, xi).unwrap();
                    let (b0, b1) = AdjointMap(map).apply(g, xi).unwrap();
                    assert!(map.distance(&a0, &b0) < 1e-14 && map.distance(&a1, &b1) < 1e-14, "{label}");
                }
                // the map of the retraction g τ(ξ) is this map, inverse included
                let rmap = RetractionMap::new(LieGroupRetraction::<_, D>::new(group, chart), theta).unwrap();
                for (g, xi) in &samples {
                    let (a0, a1) = rmap.apply(g, xi).unwrap();
                    let (b0, b1) = map.apply(g, xi).unwrap();
                    assert!(map.distance(&a0, &b0) == 0.0 && map.distance(&a1, &b1) == 0.0);
                    let (gi, xii) = rmap.inverse(&a0, &a1).unwrap();
                    assert!(map.distance(&gi, g) < 1e-13 && (xii - xi).amax() < 1e-13, "{label} (retraction map)");
                }
            }
        }
    }

    #[test]
    fn so3_theta_maps() {
        check_group(So3);
    }

    #[test]
    fn se3_theta_maps() {
        check_group(Se3);
    }

    #[test]
    fn cayley_midpoint_inverse_is_not_the_plain_cayley_inverse() {
        // ξ = τ^{-1}(g_0^{-1} g_1) holds for exp only (docs/math.md §A.3): for Cayley it is off by O(|ξ|³)
        let map = LieGroupThetaMap::<_, 3>::midpoint(So3, Chart::Cayley);
        let (g, xi) = (So3.exp(&nalgebra::Vector3::new(0.2, 0.1, -0.3)), nalgebra::Vector3::new(0.8, -0.4, 0.3));
        let (g0, g1) = map.apply(&g, &xi).unwrap();
        let naive = So3.cayley_inv(&So3.compose(&So3.inverse(&g0), &g1)).unwrap();
        assert!((naive - xi).amax() > 1e-2, "{naive} vs {xi}");
        let (_, solved) = map.inverse(&g0, &g1).unwrap();
        assert!((solved - xi).amax() < 1e-14);
    }

    /// `(R exp(-ξ/2), R exp(ξ/2 + c|ξ|² R e_1))` on SO(3): a discretization map (the correction is
    /// quadratic in `ξ`) whose correction depends on `R` in a way left multiplication does not
    /// respect.
    #[derive(Debug)]
    struct Biased(f64);
    impl DiscretizationMap for Biased {
        type Point = nalgebra::Matrix3<f64>;
        type Tangent = nalgebra::Vector3<f64>;
        fn name(&self) -> String {
            "biased SO(3) midpoint".into()
        }
        fn apply(
            &self,
            r: &nalgebra::Matrix3<f64>,
            xi: &nalgebra::Vector3<f64>,
        ) -> Result<(nalgebra::Matrix3<f64>, nalgebra::Matrix3<f64>), GeomError> {
            let bias = r * nalgebra::Vector3::x() * (self.0 * xi.norm_squared());
            Ok((r * So3.exp(&(xi * -0.5)), r * So3.exp(&(xi * 0.5 + bias))))
        }
        fn inverse(
            &self,
            _: &nalgebra::Matrix3<f64>,
            _: &nalgebra::Matrix3<f64>,
        ) -> Result<(nalgebra::Matrix3<f64>, nalgebra::Vector3<f64>), GeomError> {
            Err(GeomError::InvalidParameter { what: "inverse", reason: "not needed".into() })
        }
        fn distance(&self, a: &nalgebra::Matrix3<f64>, b: &nalgebra::Matrix3<f64>) -> f64 {
            lie_distance(&So3, a, b)
        }
    }

    #[test]
    fn a_lie_map_that_is_not_left_invariant_is_flagged() {
        let samples = samples(&So3, 5, 7);
        let elements: Vec<_> = sample_algebra::<3>(4, 2.0, 8).iter().map(|x| So3.exp(x)).collect();
        let map = Biased(0.2);
        check_discretization_map(&map, &LieChart::new(So3), &samples).unwrap().require(1e-8).unwrap();
        let r = check_symmetry_preservation(&map, &LeftMultiplication::new(So3), &elements, &samples).unwrap();
        assert!(r.max_defect > 1e-2, "{r:?}");
        assert!(r.require(1e-8).is_err());
        // with the bias switched off it is the exp midpoint, which passes
        let r = check_symmetry_preservation(&Biased(0.0), &LeftMultiplication::new(So3), &elements, &samples).unwrap();
        assert!(r.max_defect < 1e-13, "{r:?}");
    }

    #[test]
    fn invalid_parameters_and_inputs() {
        assert!(LieGroupThetaMap::<_, 3>::new(So3, 1.1, Chart::Exp).is_err());
        let map = LieGroupThetaMap::<_, 3>::midpoint(So3, Chart::Exp);
        let nan = nalgebra::Vector3::new(f64::NAN, 0.0, 0.0);
        assert!(matches!(map.apply(&So3.identity(), &nan), Err(GeomError::NonFinite { .. })));
        assert!(map.is_symmetric());
        assert!(!map.adjoint().adjoint().name().is_empty());
    }
}
