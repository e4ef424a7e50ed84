//! Runge–Kutta–Munthe-Kaas methods for `ġ = g f(t, g)` on a Lie group (docs/math.md §D.2–D.3;
//! Bou-Rabee & Marsden, *Hamilton–Pontryagin integrators on Lie groups, Part I*, 2009,
//! arXiv:0801.0996, eqs. (4.1)–(4.2); Hairer, Lubich & Wanner, *Geometric Numerical Integration*,
//! 2006, §IV.8 (HLW); Munthe-Kaas, *Runge–Kutta methods on Lie groups*, 1998): the
//! non-variational baseline beside [`crate::hp`].
//!
//! Writing `g(t) = g_k τ(Θ(t))` turns the equation into `Θ̇ = dτ^{-1}_{-Θ} f(t, g_k τ(Θ))`,
//! `Θ(t_k) = 0`, on the vector space `g` (left-trivialized, Bou-Rabee & Marsden eq. (4.2)), and an
//! explicit `s`-stage tableau is applied to it:
//!
//! ```text
//!   Θ^i = h Σ_{j<i} a_ij K^j,   K^i = dτ^{-1}_{-Θ^i} f(t_k + c_i h, g_k τ(Θ^i)),
//!   g_{k+1} = g_k τ(h Σ_i b_i K^i).
//! ```
//!
//! For `τ = exp`, `dexp^{-1}_x = Σ_j (B_j/j!) ad_x^j` is truncated after `ad^q`
//! ([`geom_core::lie::dexp_inv_series`]); order `p` is kept for `q >= p - 2`
//! (HLW Thm IV.8.5), so [`rkmk4`] uses RK4 with `q = 2`:
//! `dexp^{-1}_{-Θ} ≈ I + ½ ad_Θ + (1/12) ad_Θ²`. For `τ = cay`, `dcay^{-1}` is used exactly (its
//! series terminates, docs/math.md §D.2).
//!
//! The rigid body and the heavy top are integrated on the product group `SO(3) × R^3` with
//! `f(R, Π) = (Ω, Π × Ω + τ)` ([`crate::models`]): RKMK then is RK4 on the Euler equation and a
//! Lie-group method for the attitude. It keeps `R ∈ SO(3)` but, being neither symplectic nor
//! coadjoint-orbit preserving, it drifts in energy and in `|Π|²`.

use crate::tableau::{self, Tableau};
use geom_core::lie::{Chart, GroupChart, LieGroup, check_chart, dexp_inv_series};
use geom_core::step::{OneStep, check_step};
use geom_core::{GeomError, Result};
use nalgebra::SVector;

/// A time-dependent left-trivialized vector field on a Lie group: `ġ = g f(t, g)`,
/// `f(t, g) ∈ g ≅ R^D` (Bou-Rabee & Marsden 2009, eq. (4.1)).
pub trait LieVectorField<G: LieGroup<f64, D>, const D: usize>: Send + Sync {
    /// `f(t, g)`.
    fn eval(&self, group: &G, t: f64, g: &G::Element) -> Result<SVector<f64, D>>;
}

/// A point `g` of the group at time `t` (the state of [`Rkmk`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GroupState<E> {
    /// Time.
    pub t: f64,
    /// The group element.
    pub g: E,
}

impl<E> GroupState<E> {
    /// The state `(t, g)`.
    pub fn new(t: f64, g: E) -> Self {
        Self { t, g }
    }
}

/// `t`, then `g` (checkpoints, the integrator contract suite).
impl<E: geom_core::step::FlatState> geom_core::step::FlatState for GroupState<E> {
    const WORDS: usize = 1 + E::WORDS;
    fn write_words(&self, out: &mut Vec<f64>) {
        out.push(self.t);
        self.g.write_words(out);
    }
    fn read_words(words: &[f64]) -> Option<Self> {
        let (t, g) = words.split_first()?;
        Some(Self::new(*t, E::read_words(g)?))
    }
}

/// An explicit RKMK method (module documentation) with `S` stages on the group `G` for the field
/// `F`, chart `τ`, and `dexp^{-1}` truncation `q` (exp chart only).
#[derive(Debug, Clone)]
pub struct Rkmk<G, F, const D: usize, const S: usize, C = Chart> {
    group: G,
    field: F,
    chart: C,
    a: [[f64; S]; S],
    b: [f64; S],
    c: [f64; S],
    truncation: Option<usize>,
    order: u32,
    name: String,
}

impl<G, F, const D: usize, const S: usize, C> Rkmk<G, F, D, S, C>
where
    G: LieGroup<f64, D>,
    F: LieVectorField<G, D>,
    C: GroupChart<f64, G, D>,
{
    /// The RKMK method of the explicit tableau `tableau` (`S` stages, else
    /// [`GeomError::DimensionMismatch`]; an implicit tableau is [`GeomError::InvalidParameter`]),
    /// with the chart `τ` (a shipped [`Chart`], or a user's [`GroupChart`], which must pass
    /// [`check_chart`], else [`GeomError::InvalidParameter`]; a shipped chart the group refuses,
    /// [`GeomError::ChartUnavailable`]). For `τ = exp` the truncation is
    /// `q = max(p - 2, 0)`, which keeps the order `p` of the tableau; the other charts use their
    /// exact `dτ^{-1}`.
    ///
    /// ```
    /// use geom_core::lie::{Chart, So3xR3};
    /// use integrators::models::FreeRigidBody;
    /// use integrators::rkmk::Rkmk;
    /// use integrators::tableau;
    /// let body = FreeRigidBody::principal(2.0, 1.0, 2.0 / 3.0)?;
    /// let heun = Rkmk::<_, _, 6, 2>::new(So3xR3::default(), body, &tableau::heun(), Chart::Exp)?;
    /// assert_eq!(heun.truncation(), Some(0));
    /// assert!(Rkmk::<_, _, 6, 1>::new(So3xR3::default(), body, &tableau::implicit_euler(), Chart::Exp).is_err());
    /// # Ok::<(), geom_core::GeomError>(())
    /// ```
    pub fn new(group: G, field: F, tableau: &Tableau, chart: C) -> Result<Self> {
        if chart.builtin().is_none() {
            check_chart(&group, &chart)?;
        } else {
            // a shipped chart the group does not have (Cayley on SL(3)): its typed refusal now
            chart.tau(&group, &SVector::zeros())?;
        }
        if !tableau.is_explicit() {
            return Err(GeomError::InvalidParameter {
                what: "RKMK tableau",
                reason: format!("{} is implicit; RKMK here is explicit", tableau.name()),
            });
        }
        let (a, b, c) = tableau.arrays::<S>()?;
        let order = tableau.order();
        let truncation = match chart.builtin() {
            Some(Chart::Exp) => Some(order.saturating_sub(2) as usize),
            _ => None,
        };
        Ok(Self {
            group,
            field,
            chart,
            a,
            b,
            c,
            truncation,
            order,
            name: format!("RKMK {} ({})", tableau.name(), chart.name()),
        })
    }

    /// The same method with the Bernoulli series of `dexp^{-1}` truncated after `ad^q` (exp
    /// chart; `None` = the exact `dexp^{-1}`). A `q < p - 2` lowers the order (HLW IV.8).
    /// Ignored for the other charts, whose `dτ^{-1}` is always exact.
    pub fn with_truncation(mut self, q: Option<usize>) -> Self {
        if self.chart.builtin() == Some(Chart::Exp) {
            self.truncation = q;
            self.name = match q {
                Some(q) => format!("{} q={q}", self.name.split(" q=").next().unwrap_or_default()),
                None => self.name.split(" q=").next().unwrap_or_default().to_string(),
            };
        }
        self
    }

    /// The truncation index `q` (`None`: exact `dτ^{-1}`).
    pub fn truncation(&self) -> Option<usize> {
        self.truncation
    }
    /// The group.
    pub fn group(&self) -> &G {
        &self.group
    }
    /// The vector field.
    pub fn field(&self) -> &F {
        &self.field
    }

    /// `dτ^{-1}_{-Θ} k`, truncated for the exp chart as configured.
    #[inline]
    fn dtau_inv_left(&self, theta: &SVector<f64, D>, k: &SVector<f64, D>) -> Result<SVector<f64, D>> {
        let m = match (self.chart.builtin(), self.truncation) {
            (Some(Chart::Exp), Some(q)) => dexp_inv_series(&self.group.ad(&(-theta)), q),
            _ => self.chart.dtau_inv(&self.group, &(-theta))?,
        };
        Ok(m * k)
    }

    /// One step from `state` (left untouched); errors as [`OneStep::step`].
    pub fn try_step(&self, state: &GroupState<G::Element>, h: f64) -> Result<GroupState<G::Element>> {
        check_step(h)?;
        let group = &self.group;
        if !state.t.is_finite() || !group.is_finite(&state.g) {
            return Err(GeomError::NonFinite { what: "RKMK state" });
        }
        let mut k = [SVector::<f64, D>::zeros(); S];
        for i in 0..S {
            let mut theta = SVector::<f64, D>::zeros();
            for (kj, &aij) in k.iter().zip(&self.a[i]).take(i) {
                if aij != 0.0 {
                    theta += kj * (h * aij);
                }
            }
            let gi = if i == 0 || theta.iter().all(|v| *v == 0.0) {
                state.g.clone()
            } else {
                self.chart.compose_tau(group, &state.g, &theta)?
            };
            let f = self.field.eval(group, state.t + self.c[i] * h, &gi)?;
            k[i] = if i == 0 { f } else { self.dtau_inv_left(&theta, &f)? };
        }
        let mut incr = SVector::<f64, D>::zeros();
        for (ki, bi) in k.iter().zip(&self.b) {
            incr += ki * (h * bi);
        }
        let g = self.chart.compose_tau(group, &state.g, &incr)?;
        if !group.is_finite(&g) {
            return Err(GeomError::NonFinite { what: "RKMK state after the step" });
        }
        Ok(GroupState { t: state.t + h, g })
    }
}

impl<G, F, const D: usize, const S: usize, C> OneStep<GroupState<G::Element>> for Rkmk<G, F, D, S, C>
where
    G: LieGroup<f64, D>,
    F: LieVectorField<G, D>,
    C: GroupChart<f64, G, D>,
{
    fn name(&self) -> String {
        self.name.clone()
    }
    /// The order of the tableau (kept by the truncation `q >= p - 2`).
    fn order(&self) -> u32 {
        match self.truncation {
            Some(q) if (q as u32) + 2 < self.order => q as u32 + 2,
            _ => self.order,
        }
    }
    fn step(&self, state: &mut GroupState<G::Element>, h: f64) -> Result<()> {
        *state = self.try_step(state, h)?;
        Ok(())
    }
}

/// RKMK4: classical RK4 with `τ = exp` and `dexp^{-1}` truncated at `q = 2` (order 4).
///
/// ```
/// use geom_core::step::OneStep;
/// use geom_core::lie::So3xR3;
/// use integrators::models::FreeRigidBody;
/// use integrators::rkmk::{self, GroupState};
/// use nalgebra::{Matrix3, Vector3};
/// let body = FreeRigidBody::principal(2.0, 1.0, 2.0 / 3.0)?;
/// let m = rkmk::rkmk4(So3xR3::default(), body)?;
/// assert_eq!(m.order(), 4);
/// let mut s = GroupState::new(0.0, (Matrix3::identity(), Vector3::new(1.1f64.cos(), 0.0, 1.1f64.sin())));
/// m.step(&mut s, 0.1)?;
/// assert!((s.t - 0.1).abs() < 1e-15);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
pub fn rkmk4<G, F, const D: usize>(group: G, field: F) -> Result<Rkmk<G, F, D, 4>>
where
    G: LieGroup<f64, D>,
    F: LieVectorField<G, D>,
{
    let m = Rkmk::new(group, field, &tableau::rk4(), Chart::Exp)?;
    Ok(Rkmk { name: "RKMK4 (exp, q=2)".into(), ..m })
}
