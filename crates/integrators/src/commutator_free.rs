//! Commutator-free Lie group methods for `ġ = g f(t, g)` (Celledoni, Marthinsen & Owren,
//! *Commutator-free Lie group methods*, Future Generation Computer Systems 19, 2003; HLW =
//! Hairer, Lubich & Wanner, *Geometric Numerical Integration*, 2006, §IV.8): every stage and the
//! update are products of exponentials of linear combinations of the stage slopes, so no
//! commutator and no `dexp^{-1}` is computed.
//!
//! With the left-trivialized convention of [`crate::rkmk`] (`ġ = g f`, whose frozen flow is
//! `g ↦ g exp(t K)`), an `S`-stage method with at most `J` exponentials reads
//!
//! ```text
//!   Y_i = g_k exp(X_i^1) exp(X_i^2) ··· exp(X_i^J),     X_i^l = h Σ_{j<i} α_ij^l K_j,
//!   K_i = f(t_k + c_i h, Y_i),
//!   g_{k+1} = g_k exp(X^1) exp(X^2) ··· exp(X^J),        X^l = h Σ_i β_i^l K_i.
//! ```
//!
//! The exponential applied first stands leftmost (the paper writes `ẏ = A(y) y`, whose products
//! read right to left; transposing turns one into the other). Zero exponents are skipped, and a
//! stage whose first exponentials are those of an earlier stage `Y_j` starts from `Y_j` (CF4's
//! `Y_4 = Y_2 exp(−½ h K_1 + h K_3)`).
//!
//! Summing the exponents gives the Runge–Kutta tableau `a_ij = Σ_l α_ij^l`, `b_i = Σ_l β_i^l`,
//! which must have the classical order (a commutative algebra sees nothing else). Order 3 adds one
//! condition on the update, the coefficient of `h³ [f, ḟ]` in the Baker–Campbell–Hausdorff product
//! (`½ Σ_{l<m} [X^l, X^m]`) against the exact flow's `h³/12 [f, ḟ]`:
//!
//! ```text
//!   Σ_{l<m} ( β^l·1 β^m·c − β^l·c β^m·1 ) = 1/6.
//! ```
//!
//! [`CfScheme::new`] checks both; the stage conditions of order 4 are checked by the measured
//! orders of the tests. Crouch–Grossman methods are the case `J = S`, `α_ij^l = a_il δ_lj`
//! ([`crate::crouch_grossman`]).
//!
//! The order theory assumes the exact frozen flows, `τ = exp`. Another chart `τ` of the group
//! ([`GroupChart`], `τ(−x) = τ(x)^{-1}`, `dτ_0 = I`) is `exp(x + O(|x|³))` and gives order
//! `min(p, 2)`: [`OneStep::order`] says so.

use crate::rkmk::{GroupState, LieVectorField};
use crate::tableau::{ORDER_TOL, Tableau};
use geom_core::lie::{Chart, GroupChart, LieGroup, check_chart};
use geom_core::step::{OneStep, check_step};
use geom_core::{GeomError, Result};
use nalgebra::{SMatrix, SVector};

/// The coefficients `(α, β, c)` of a commutator-free method with `S` stages and at most `J`
/// exponentials per stage and in the update (module documentation), with its order.
#[derive(Debug, Clone, PartialEq)]
pub struct CfScheme<const S: usize, const J: usize> {
    name: String,
    /// `stages[i][l][j] = α_ij^l`.
    stages: [[[f64; S]; J]; S],
    /// `update[l][i] = β_i^l`.
    update: [[f64; S]; J],
    c: [f64; S],
    order: u32,
}

fn invalid(reason: String) -> GeomError {
    GeomError::InvalidParameter { what: "commutator-free scheme", reason }
}

impl<const S: usize, const J: usize> CfScheme<S, J> {
    /// A scheme from `α` (`stages[i][l][j] = α_ij^l`), `β` (`update[l][i] = β_i^l`), `c` and the
    /// claimed order `p <= 4`. [`GeomError::InvalidParameter`] unless: the entries are finite,
    /// stage `i` uses only `K_j`, `j < i` (explicit), `Σ_{l,j} α_ij^l = c_i`, the summed tableau
    /// `(Σ_l α^l, Σ_l β^l, c)` has classical order `p` ([`Tableau::new`]), and for `p >= 3` the
    /// update satisfies the order-3 condition of the module documentation. The stage conditions
    /// of order 4 are not checked here.
    ///
    /// ```
    /// use integrators::commutator_free::CfScheme;
    /// // the exponential midpoint rule: Y_2 = g exp(h K_1 / 2), g_1 = g exp(h K_2)
    /// let midpoint = CfScheme::<2, 1>::new("exp midpoint", [[[0.0; 2]], [[0.5, 0.0]]], [[0.0, 1.0]], [0.0, 0.5], 2)?;
    /// assert_eq!(midpoint.order(), 2);
    /// assert!(CfScheme::<2, 1>::new("bad", [[[0.0; 2]], [[0.5, 0.0]]], [[0.0, 1.0]], [0.0, 0.5], 3).is_err());
    /// # Ok::<(), geom_core::GeomError>(())
    /// ```
    pub fn new(name: &str, stages: [[[f64; S]; J]; S], update: [[f64; S]; J], c: [f64; S], order: u32) -> Result<Self> {
        if S == 0 || J == 0 {
            return Err(invalid(format!("{name}: no stages or no exponentials")));
        }
        let finite = stages.iter().flatten().flatten().chain(update.iter().flatten()).chain(&c).all(|v| v.is_finite());
        if !finite {
            return Err(GeomError::NonFinite { what: "commutator-free scheme" });
        }
        if order > 4 {
            return Err(invalid(format!("{name}: order {order} > 4 is not checked here")));
        }
        for (i, stage) in stages.iter().enumerate() {
            if stage.iter().any(|row| row[i..].iter().any(|v| *v != 0.0)) {
                return Err(invalid(format!("{name}: stage {i} uses K_j with j >= {i} (not explicit)")));
            }
        }
        let scheme = Self { name: name.into(), stages, update, c, order };
        let (a, b) = scheme.summed();
        // Tableau::new checks the row sums Σ_j a_ij = c_i and the classical order
        Tableau::new(name, a.iter().map(|r| r.to_vec()).collect(), b.to_vec(), c.to_vec(), order)
            .map_err(|e| invalid(format!("summed tableau: {e}")))?;
        if order >= 3 {
            let defect = scheme.bracket_condition() - 1.0 / 6.0;
            if defect.abs() > ORDER_TOL {
                return Err(invalid(format!("{name}: the order-3 bracket condition fails by {defect:e}")));
            }
        }
        Ok(scheme)
    }

    /// A scheme of this module whose coefficients a test checks through [`CfScheme::new`].
    pub(crate) fn trusted(
        name: &str,
        stages: [[[f64; S]; J]; S],
        update: [[f64; S]; J],
        c: [f64; S],
        order: u32,
    ) -> Self {
        Self { name: name.into(), stages, update, c, order }
    }

    /// The name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The claimed order.
    pub fn order(&self) -> u32 {
        self.order
    }
    /// `α` (`[i][l][j] = α_ij^l`).
    pub fn stages(&self) -> &[[[f64; S]; J]; S] {
        &self.stages
    }
    /// `β` (`[l][i] = β_i^l`).
    pub fn update(&self) -> &[[f64; S]; J] {
        &self.update
    }
    /// The nodes `c`.
    pub fn nodes(&self) -> &[f64; S] {
        &self.c
    }
    /// The summed tableau `a_ij = Σ_l α_ij^l`, `b_i = Σ_l β_i^l` (the Runge–Kutta method the
    /// scheme is in a commutative algebra).
    pub fn summed(&self) -> ([[f64; S]; S], [f64; S]) {
        let a = core::array::from_fn(|i| core::array::from_fn(|j| self.stages[i].iter().map(|row| row[j]).sum()));
        let b = core::array::from_fn(|i| self.update.iter().map(|row| row[i]).sum());
        (a, b)
    }
    /// `Σ_{l<m} (β^l·1 β^m·c − β^l·c β^m·1)`, which order 3 needs equal to `1/6` (module
    /// documentation).
    pub fn bracket_condition(&self) -> f64 {
        let one = |r: &[f64; S]| r.iter().sum::<f64>();
        let dot_c = |r: &[f64; S]| r.iter().zip(&self.c).map(|(x, c)| x * c).sum::<f64>();
        let mut total = 0.0;
        for l in 0..J {
            for m in l + 1..J {
                let (bl, bm) = (&self.update[l], &self.update[m]);
                total += one(bl) * dot_c(bm) - dot_c(bl) * one(bm);
            }
        }
        total
    }

    /// The earlier stage `Y_j` whose exponentials `rows` starts with, and how many exponentials
    /// that covers (the longest such prefix), if any.
    fn prefix(&self, rows: &[[f64; S]; J], before: usize) -> Option<(usize, usize)> {
        let used = |r: &[[f64; S]; J]| (0..J).rev().find(|&l| r[l].iter().any(|v| *v != 0.0)).map_or(0, |l| l + 1);
        let mut best: Option<(usize, usize)> = None;
        for j in 1..before {
            let m = used(&self.stages[j]);
            if m > 0 && (0..m).all(|l| rows[l] == self.stages[j][l]) && best.is_none_or(|(_, b)| m > b) {
                best = Some((j, m));
            }
        }
        best
    }
}

/// One exponent `X = h Σ_t weight_t K_{index_t}`, its nonzero terms only.
#[derive(Debug, Clone, Copy)]
struct Exponent<const S: usize> {
    len: usize,
    index: [usize; S],
    weight: [f64; S],
}

/// How a stage or the update is computed: from `Y_start` (or `g_k`), times `exp` of its
/// remaining nonzero exponents, in order.
#[derive(Debug, Clone, Copy)]
struct Plan<const S: usize, const J: usize> {
    start: Option<usize>,
    len: usize,
    rows: [Exponent<S>; J],
}

impl<const S: usize, const J: usize> Plan<S, J> {
    /// The plan of `rows` starting from the prefix `(j, m)` (the first `m` rows are `Y_j`'s).
    fn new(rows: &[[f64; S]; J], prefix: Option<(usize, usize)>) -> Self {
        let empty = Exponent { len: 0, index: [0; S], weight: [0.0; S] };
        let mut plan = Plan { start: prefix.map(|(j, _)| j), len: 0, rows: [empty; J] };
        for row in &rows[prefix.map_or(0, |(_, m)| m)..] {
            let mut e = empty;
            for (j, &w) in row.iter().enumerate() {
                if w != 0.0 {
                    (e.index[e.len], e.weight[e.len]) = (j, w);
                    e.len += 1;
                }
            }
            if e.len > 0 {
                plan.rows[plan.len] = e;
                plan.len += 1;
            }
        }
        plan
    }
}

/// `g τ(x)` for one chart, resolved once a step ([`CommutatorFree::try_step`]).
trait ComposeTau<G: LieGroup<f64, D>, const D: usize> {
    fn apply(&self, g: &G::Element, x: &SVector<f64, D>) -> Result<G::Element>;
}

/// `g exp(x)`.
struct ExpTau<'a, G>(&'a G);

impl<G: LieGroup<f64, D>, const D: usize> ComposeTau<G, D> for ExpTau<'_, G> {
    #[inline(always)]
    fn apply(&self, g: &G::Element, x: &SVector<f64, D>) -> Result<G::Element> {
        Ok(self.0.compose(g, &self.0.exp(x)))
    }
}

/// `g τ(x)` of any chart.
impl<G: LieGroup<f64, D>, C: GroupChart<f64, G, D>, const D: usize> ComposeTau<G, D> for (&G, &C) {
    #[inline(always)]
    fn apply(&self, g: &G::Element, x: &SVector<f64, D>) -> Result<G::Element> {
        self.1.compose_tau(self.0, g, x)
    }
}

/// A commutator-free method (module documentation) with `S` stages and `J` exponentials on the
/// group `G` for the field `F`, chart `τ` (`exp` for the stated order).
#[derive(Debug, Clone)]
pub struct CommutatorFree<G, F, const D: usize, const S: usize, const J: usize, C = Chart> {
    group: G,
    field: F,
    chart: C,
    scheme: CfScheme<S, J>,
    /// How each stage is computed (module documentation).
    plans: [Plan<S, J>; S],
    /// How the update is computed.
    update_plan: Plan<S, J>,
    /// The stages a plan starts from.
    kept: [bool; S],
    order: u32,
    name: String,
}

impl<G, F, const D: usize, const S: usize, const J: usize, C> CommutatorFree<G, F, D, S, J, C>
where
    G: LieGroup<f64, D>,
    F: LieVectorField<G, D>,
    C: GroupChart<f64, G, D>,
{
    /// The method of `scheme` with the chart `τ`: a shipped [`Chart`] (one the group does not
    /// have is [`GeomError::ChartUnavailable`]) or a user's [`GroupChart`], which must pass
    /// [`check_chart`] and have `dτ_0 = I` (else [`GeomError::InvalidParameter`]). The order is
    /// the scheme's for `τ = exp`, `min(p, 2)` for any other chart.
    ///
    /// ```
    /// use geom_core::lie::{Chart, So3xR3};
    /// use geom_core::step::OneStep;
    /// use integrators::commutator_free::{self, CommutatorFree};
    /// use integrators::models::FreeRigidBody;
    /// let body = FreeRigidBody::principal(2.0, 1.0, 2.0 / 3.0)?;
    /// let cf4 = CommutatorFree::new(So3xR3::default(), body, &commutator_free::cf4_scheme(), Chart::Exp)?;
    /// assert_eq!(cf4.order(), 4);
    /// let cay = CommutatorFree::new(So3xR3::default(), body, &commutator_free::cf4_scheme(), Chart::Cayley)?;
    /// assert_eq!(cay.order(), 2);
    /// # Ok::<(), geom_core::GeomError>(())
    /// ```
    pub fn new(group: G, field: F, scheme: &CfScheme<S, J>, chart: C) -> Result<Self> {
        if chart.builtin().is_none() {
            check_chart(&group, &chart)?;
            let d0 = chart.dtau(&group, &SVector::zeros())?;
            let defect = (d0 - SMatrix::<f64, D, D>::identity()).amax();
            if defect.is_nan() || defect > 1e-10 {
                return Err(GeomError::InvalidParameter {
                    what: "chart",
                    reason: format!("{}: dtau at 0 is not the identity (defect {defect:e})", chart.name()),
                });
            }
        } else {
            // a shipped chart the group does not have: its typed refusal now
            chart.tau(&group, &SVector::zeros())?;
        }
        let order = if chart.builtin() == Some(Chart::Exp) { scheme.order } else { scheme.order.min(2) };
        let name = format!("{} ({})", scheme.name, chart.name());
        let plans = core::array::from_fn(|i| Plan::new(&scheme.stages[i], scheme.prefix(&scheme.stages[i], i)));
        let update_plan = Plan::new(&scheme.update, scheme.prefix(&scheme.update, S));
        let kept = core::array::from_fn(|j| plans.iter().chain([&update_plan]).any(|p| p.start == Some(j)));
        Ok(Self { group, field, chart, scheme: scheme.clone(), plans, update_plan, kept, order, name })
    }

    /// The same method under another name.
    pub fn with_name(mut self, name: &str) -> Self {
        self.name = name.into();
        self
    }
    /// The group.
    pub fn group(&self) -> &G {
        &self.group
    }
    /// The vector field.
    pub fn field(&self) -> &F {
        &self.field
    }
    /// The coefficients.
    pub fn scheme(&self) -> &CfScheme<S, J> {
        &self.scheme
    }

    /// The product of `plan` (module documentation): `Y_j` or `g_k`, times `τ(X^l)` for its
    /// nonzero exponents, `compose_tau(g, X) = g τ(X)`.
    #[inline(always)]
    fn product(
        plan: &Plan<S, J>,
        g: &G::Element,
        y: &[Option<G::Element>; S],
        k: &[SVector<f64, D>; S],
        h: f64,
        compose_tau: &impl ComposeTau<G, D>,
    ) -> Result<G::Element> {
        let mut out = match plan.start {
            Some(j) => y[j].clone().ok_or_else(|| GeomError::InvalidParameter {
                what: "commutator-free scheme",
                reason: "a stage starts from a stage not kept".into(),
            })?,
            None => g.clone(),
        };
        for row in &plan.rows[..plan.len] {
            let mut x = k[row.index[0]] * (h * row.weight[0]);
            for t in 1..row.len {
                x += k[row.index[t]] * (h * row.weight[t]);
            }
            out = compose_tau.apply(&out, &x)?;
        }
        Ok(out)
    }

    /// One step from `state` (left untouched); errors as [`OneStep::step`].
    pub fn try_step(&self, state: &GroupState<G::Element>, h: f64) -> Result<GroupState<G::Element>> {
        check_step(h)?;
        let group = &self.group;
        if !state.t.is_finite() || !group.is_finite(&state.g) {
            return Err(GeomError::NonFinite { what: "commutator-free state" });
        }
        // the chart is resolved once a step: with `exp` the stage loop inlines the group's
        // exponential alone, not every chart's branch
        let g = if self.chart.builtin() == Some(Chart::Exp) {
            self.stages(state, h, &ExpTau(group))?
        } else {
            self.stages(state, h, &(group, &self.chart))?
        };
        if !group.is_finite(&g) {
            return Err(GeomError::NonFinite { what: "commutator-free state after the step" });
        }
        Ok(GroupState { t: state.t + h, g })
    }

    /// The stages and the update of one step (module documentation) with `compose_tau`.
    #[inline(always)]
    fn stages(
        &self,
        state: &GroupState<G::Element>,
        h: f64,
        compose_tau: &impl ComposeTau<G, D>,
    ) -> Result<G::Element> {
        let mut k = [SVector::<f64, D>::zeros(); S];
        // only the stages a later product starts from are kept (CF4's Y_2)
        let mut y: [Option<G::Element>; S] = core::array::from_fn(|_| None);
        for i in 0..S {
            let stage =
                if i > 0 { Self::product(&self.plans[i], &state.g, &y, &k, h, compose_tau)? } else { state.g.clone() };
            k[i] = self.field.eval(&self.group, state.t + self.scheme.c[i] * h, &stage)?;
            if self.kept[i] {
                y[i] = Some(stage);
            }
        }
        Self::product(&self.update_plan, &state.g, &y, &k, h, compose_tau)
    }
}

impl<G, F, const D: usize, const S: usize, const J: usize, C> OneStep<GroupState<G::Element>>
    for CommutatorFree<G, F, D, S, J, C>
where
    G: LieGroup<f64, D>,
    F: LieVectorField<G, D>,
    C: GroupChart<f64, G, D>,
{
    fn name(&self) -> String {
        self.name.clone()
    }
    /// The scheme's order with `τ = exp`, at most 2 with another chart.
    fn order(&self) -> u32 {
        self.order
    }
    fn step(&self, state: &mut GroupState<G::Element>, h: f64) -> Result<()> {
        *state = self.try_step(state, h)?;
        Ok(())
    }
}

/// CF3 of Celledoni, Marthinsen & Owren (2003): three stages on Heun's third-order tableau
/// (`c = (0, 1/3, 2/3)`, `b = (1/4, 0, 3/4)`), two exponentials in the update:
///
/// ```text
///   Y_2 = g exp(⅓ h K_1),   Y_3 = g exp(⅔ h K_2),
///   g_1 = g exp(⅓ h K_1) exp(−1/12 h K_1 + ¾ h K_3).
/// ```
pub fn cf3_scheme() -> CfScheme<3, 2> {
    let z = [0.0; 3];
    CfScheme::trusted(
        "CF3",
        [[z, z], [[1.0 / 3.0, 0.0, 0.0], z], [[0.0, 2.0 / 3.0, 0.0], z]],
        [[1.0 / 3.0, 0.0, 0.0], [-1.0 / 12.0, 0.0, 0.75]],
        [0.0, 1.0 / 3.0, 2.0 / 3.0],
        3,
    )
}

/// CF4 of Celledoni, Marthinsen & Owren (2003), built on the classical RK4 tableau
/// (`c = (0, ½, ½, 1)`, `b = (⅙, ⅓, ⅓, ⅙)`), two exponentials in the fourth stage and in the update:
///
/// ```text
///   Y_2 = g exp(½ h K_1),   Y_3 = g exp(½ h K_2),   Y_4 = Y_2 exp(−½ h K_1 + h K_3),
///   g_1 = g exp(h(¼ K_1 + ⅙ K_2 + ⅙ K_3 − 1/12 K_4)) exp(h(−1/12 K_1 + ⅙ K_2 + ⅙ K_3 + ¼ K_4)).
/// ```
pub fn cf4_scheme() -> CfScheme<4, 2> {
    let z = [0.0; 4];
    let (s, q, t) = (1.0 / 6.0, 0.25, -1.0 / 12.0);
    CfScheme::trusted(
        "CF4",
        [[z, z], [[0.5, 0.0, 0.0, 0.0], z], [[0.0, 0.5, 0.0, 0.0], z], [[0.5, 0.0, 0.0, 0.0], [-0.5, 0.0, 1.0, 0.0]]],
        [[q, s, s, t], [t, s, s, q]],
        [0.0, 0.5, 0.5, 1.0],
        4,
    )
}

/// CF3 ([`cf3_scheme`]) with `τ = exp`: order 3, four exponentials a step.
pub fn cf3<G, F, const D: usize>(group: G, field: F) -> Result<CommutatorFree<G, F, D, 3, 2>>
where
    G: LieGroup<f64, D>,
    F: LieVectorField<G, D>,
{
    CommutatorFree::new(group, field, &cf3_scheme(), Chart::Exp)
}

/// CF4 ([`cf4_scheme`]) with `τ = exp`: order 4, five exponentials a step.
///
/// ```
/// use geom_core::step::OneStep;
/// use geom_core::lie::So3xR3;
/// use integrators::commutator_free;
/// use integrators::models::FreeRigidBody;
/// use integrators::rkmk::GroupState;
/// use nalgebra::{Matrix3, Vector3};
/// let body = FreeRigidBody::principal(2.0, 1.0, 2.0 / 3.0)?;
/// let cf4 = commutator_free::cf4(So3xR3::default(), body)?;
/// let mut s = GroupState::new(0.0, (Matrix3::identity(), Vector3::new(1.1f64.cos(), 0.0, 1.1f64.sin())));
/// cf4.step(&mut s, 0.1)?;
/// assert!((s.g.0.transpose() * s.g.0 - Matrix3::identity()).amax() < 1e-15);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
pub fn cf4<G, F, const D: usize>(group: G, field: F) -> Result<CommutatorFree<G, F, D, 4, 2>>
where
    G: LieGroup<f64, D>,
    F: LieVectorField<G, D>,
{
    CommutatorFree::new(group, field, &cf4_scheme(), Chart::Exp)
}
