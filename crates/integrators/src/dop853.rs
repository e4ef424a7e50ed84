//! Dormand–Prince 8(5,3), the explicit Runge–Kutta pair of the code DOP853 (Hairer, Nørsett &
//! Wanner, *Solving Ordinary Differential Equations I: Nonstiff Problems*, 2nd ed., 1993, §II.5
//! and §II.10; method by Dormand & Prince, *High order embedded Runge–Kutta formulae*, 1980):
//! the non-geometric reference integrator of the workspace.
//!
//! * 12 stages `k_i = f(y_0 + h Σ_{j<i} a_ij k_j)`, solution `y_1 = y_0 + h Σ_i b_i k_i` of
//!   order 8, and the 13th stage `k_13 = f(y_1)` reused as the next step's `k_1` (FSAL);
//! * the combined error estimate of orders 5 and 3 and the step-size controller of DOP853
//!   (below), with step rejection;
//! * dense output of order 7 from three extra stages (14, 15, 16) per accepted step.
//!
//! # Error estimate
//!
//! With `e_5 = Σ_i ê_i k_i` (the published `er` weights: `b` minus a fifth-order `b̂`) and
//! `e_3 = Σ_i b_i k_i − (b̃_1 k_1 + b̃_9 k_9 + b̃_12 k_12)` (the published third-order weights
//! `bhh`), both measured component-wise against `sk_i = atol + rtol max(|y_0,i|, |y_1,i|)`,
//!
//! ```text
//!   ‖v‖² = (1/n) Σ_i (v_i / sk_i)²,       err = |h| ‖e_5‖² / sqrt(‖e_5‖² + 0.01 ‖e_3‖²).
//! ```
//!
//! As `h → 0`, `‖e_5‖ = O(h^5)` and `‖e_3‖ = O(h^3)`, so `err = O(h^{5+5-3}) · |h| = O(h^8)`:
//! the estimate behaves like the local error of an eighth-order solution while staying robust
//! where the fifth-order estimate alone is accidentally small (Hairer et al. 1993, §II.10).
//!
//! # Step-size controller
//!
//! The step is accepted iff `err ≤ 1`. With `q = 1/8 − 0.2 β` and `err_old` the error of the
//! previous accepted step (`max(err, 1e-4)`, initially `1e-4`),
//!
//! ```text
//!   accepted:  h_new = h · min(fac_max, max(fac_min, safe · err^{−q} · err_old^{β}))
//!   rejected:  h_new = h · max(fac_min, safe · err^{−q})
//! ```
//!
//! and, after a rejection, the next accepted step does not grow (`|h_new| ≤ |h|`);
//! `|h_new| ≤ h_max`. Defaults ([`Options::default`]): `safe = 0.9`, `fac_min = 0.333`,
//! `fac_max = 6`, `β = 0` (the classic controller; `β = 0.04` gives the PI/Lund-stabilised one),
//! `h_max = |t_end − t_0|`, `max_steps = 100 000` (accepted plus rejected). The initial step is
//! Hairer's `HINIT` for order 8: `h_0 = 0.01 ‖y_0‖/‖f(y_0)‖`, one explicit Euler step to estimate
//! `‖y''‖`, then `h = min(100 h_0, (0.01 / max(‖f(y_0)‖, ‖y''‖))^{1/8}, h_max)` (norms unscaled
//! by `n`). A step is too small when `0.1 |h| ≤ |t| ε` ([`Dop853Error::StepSizeUnderflow`]).
//!
//! A step whose stages or error estimate are not finite (the vector field reported
//! [`GeomError::NonFinite`], or returned NaN or ∞) is rejected and `h` shrinks by `fac_min`; any
//! other error of the field stops the integration ([`Dop853Error::Field`]).
//!
//! # Dense output
//!
//! After an accepted step from `(t_0, y_0)` to `(t_0 + h, y_1)`, with `Δ = y_1 − y_0`, three
//! more stages `k_14, k_15, k_16` and the published `d` weights,
//!
//! ```text
//!   r_1 = y_0,   r_2 = Δ,   r_3 = h k_1 − Δ,   r_4 = Δ − h k_13 − r_3,
//!   r_{5..8} = h Σ_{j ∈ {1, 6..16}} d_{·,j} k_j,
//!   u(θ) = r_1 + θ(r_2 + θ'(r_3 + θ(r_4 + θ'(r_5 + θ(r_6 + θ'(r_7 + θ r_8)))))),
//! ```
//!
//! `θ = (t − t_0)/h`, `θ' = 1 − θ`: a polynomial of degree 7 with `u(0) = y_0`, `u(1) = y_1`,
//! `u'(0) = k_1`, `u'(1) = k_13`, of order 7.
//!
//! # API
//!
//! * [`Dop853`] implements [`OneStep`]: the eighth-order method at the given fixed `h`
//!   (12 evaluations per step, no error control); [`Dop853::hamiltonian`] builds it for the
//!   Hamiltonian vector field of an `H` on `T*R^N` ([`HamiltonianVectorField`]);
//! * [`Dop853::integrate`] (final state and [`Stats`]), [`Dop853::integrate_dense`] (states at
//!   requested times), and the stepper [`Dop853::start`] / [`Dop853::advance`] /
//!   [`Integration::dense`] for an integration driven one accepted step at a time;
//! * [`Dop853Flow`]: the adaptive integration over `[0, h]` as a [`OneStep`] (the approximate
//!   flow map `φ_h` of an autonomous field).
//!
//! The state is any [`LinearState`] for the fixed step; the adaptive forms also read the
//! components of the state for the weights `sk_i` ([`Components`], implemented for
//! [`PhaseState<N>`] and `SVector<f64, M>`). All stages live in fixed-size arrays on the stack:
//! no step allocates (only [`Dop853::integrate_dense`] allocates its output, once).
//!
//! ```
//! use integrators::classical::VectorField;
//! use integrators::dop853::Dop853;
//! use nalgebra::Vector2;
//!
//! /// The harmonic oscillator `x' = v`, `v' = −x`.
//! struct Oscillator;
//! impl VectorField<Vector2<f64>> for Oscillator {
//!     fn eval(&self, y: &Vector2<f64>) -> Result<Vector2<f64>, geom_core::GeomError> {
//!         Ok(Vector2::new(y[1], -y[0]))
//!     }
//! }
//! let dop = Dop853::new(Oscillator);
//! let sol = dop.integrate(0.0, Vector2::new(1.0, 0.0), 10.0, 1e-12, 1e-12)?;
//! assert!((sol.y[0] - 10f64.cos()).abs() < 1e-10);
//! assert!(sol.stats.rejected <= 2 && sol.stats.evaluations < 12 * sol.stats.accepted + 40);
//! let dense = dop.integrate_dense(0.0, Vector2::new(1.0, 0.0), 10.0, &[2.5, 5.0, 7.5], 1e-12, 1e-12)?;
//! assert!((dense.states[1][0] - 5f64.cos()).abs() < 1e-10);
//! # Ok::<(), integrators::dop853::Dop853Error>(())
//! ```

use crate::classical::{LinearState, VectorField};
use geom_core::GeomError;
use geom_core::function::PhaseSpaceDerivatives;
use geom_core::step::{OneStep, PhaseState, check_step};
use nalgebra::SVector;
use thiserror::Error;

// ------------------------------------------------------------------------------------------------
// Components of a state

/// A [`LinearState`] whose scalar components can be read, block by block: what the error weights
/// `sk_i = atol + rtol max(|y_0,i|, |y_1,i|)` of the adaptive integration need.
///
/// [`LinearState`] alone (zero, `y + a x`, finiteness) is enough for the fixed step; a trait
/// beside it, rather than a new method on it, keeps every existing `LinearState` valid.
pub trait Components: LinearState {
    /// The number of contiguous blocks (1 for a vector, 2 for `(q, p)`).
    const BLOCKS: usize;
    /// Block `k < BLOCKS`; a block has the same length in every state of the type.
    fn block(&self, k: usize) -> &[f64];
    /// The number of scalar components `n`.
    fn dimension(&self) -> usize {
        (0..Self::BLOCKS).map(|k| self.block(k).len()).sum()
    }
}

impl<const N: usize> Components for PhaseState<N> {
    const BLOCKS: usize = 2;
    #[inline]
    fn block(&self, k: usize) -> &[f64] {
        if k == 0 { self.q.as_slice() } else { self.p.as_slice() }
    }
}

impl<const M: usize> Components for SVector<f64, M> {
    const BLOCKS: usize = 1;
    #[inline]
    fn block(&self, _k: usize) -> &[f64] {
        self.as_slice()
    }
}

// ------------------------------------------------------------------------------------------------
// The Hamiltonian vector field, checked once per step

/// The Hamiltonian vector field `X_H = (H_p, −H_q)` of `H` on `T*R^N`, evaluated with
/// [`PhaseSpaceDerivatives::gradient`]: the field of [`crate::classical::HamiltonianField`]
/// without its finiteness checks of every argument and gradient. DOP853 checks finiteness once
/// per step instead (the state before and after a fixed step; the error estimate, `y_1` and
/// `f(y_1)` of an adaptive step, where a NaN or ∞ rejects the step), which is all a NaN needs to
/// be caught: it propagates through every later stage. With the checks of `HamiltonianField`
/// a fixed step on Kepler took 220–350 ns, without them 122 ns (`benches/integrators_classical.rs`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct HamiltonianVectorField<H>(pub H);

impl<H: PhaseSpaceDerivatives<N>, const N: usize> VectorField<PhaseState<N>> for HamiltonianVectorField<H> {
    #[inline]
    fn eval(&self, y: &PhaseState<N>) -> Result<PhaseState<N>, GeomError> {
        let (gq, gp) = self.0.gradient(&y.q, &y.p);
        Ok(PhaseState::new(gp, -gq))
    }
}

// ------------------------------------------------------------------------------------------------
// Coefficients

/// Nonzero columns of the rows of `A` (0-based stage indices): the DOP853 sparsity pattern that
/// the stage code is written for.
const COLS_2: [usize; 1] = [0];
const COLS_3: [usize; 2] = [0, 1];
const COLS_4: [usize; 2] = [0, 2];
const COLS_5: [usize; 3] = [0, 2, 3];
const COLS_6: [usize; 3] = [0, 3, 4];
const COLS_7: [usize; 4] = [0, 3, 4, 5];
const COLS_8: [usize; 5] = [0, 3, 4, 5, 6];
const COLS_9: [usize; 6] = [0, 3, 4, 5, 6, 7];
const COLS_10: [usize; 7] = [0, 3, 4, 5, 6, 7, 8];
const COLS_11: [usize; 8] = [0, 3, 4, 5, 6, 7, 8, 9];
const COLS_12: [usize; 9] = [0, 3, 4, 5, 6, 7, 8, 9, 10];
/// Nonzero `b` and `er` (fifth-order error) weights.
const COLS_B: [usize; 8] = [0, 5, 6, 7, 8, 9, 10, 11];
const COLS_14: [usize; 8] = [0, 6, 7, 8, 9, 10, 11, 12];
const COLS_15: [usize; 8] = [0, 5, 6, 7, 10, 11, 12, 13];
const COLS_16: [usize; 8] = [0, 5, 6, 7, 8, 12, 13, 14];
/// Nonzero dense-output weights `d`.
const COLS_D: [usize; 12] = [0, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];
/// Stages of the third-order weights `bhh`.
const COLS_BHH: [usize; 3] = [0, 8, 11];

/// The pattern of row `i` of `A` (empty for stage 1 and for stage 13, `f(y_1)`).
fn row_pattern(i: usize) -> &'static [usize] {
    match i {
        1 => &COLS_2,
        2 => &COLS_3,
        3 => &COLS_4,
        4 => &COLS_5,
        5 => &COLS_6,
        6 => &COLS_7,
        7 => &COLS_8,
        8 => &COLS_9,
        9 => &COLS_10,
        10 => &COLS_11,
        11 => &COLS_12,
        13 => &COLS_14,
        14 => &COLS_15,
        15 => &COLS_16,
        _ => &[],
    }
}

/// The coefficients of Dormand–Prince 8(5,3) with dense output, 0-based: stage `i` (`0..16`) is
/// stage `i + 1` of Hairer et al. (1993). Stages 0..12 are the method, stage 12 (13th) is
/// `f(y_1)` (its row of `A` is `b`, kept in [`Coefficients::b`]), stages 13..16 the dense output.
///
/// [`Coefficients::DOP853`] holds the published values (30 significant digits, as in DOP853);
/// a modified copy (e.g. a perturbed coefficient, for a negative control) can be passed to
/// [`Dop853::with_coefficients`], which checks it against the sparsity pattern the stage code
/// uses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Coefficients {
    /// Nodes `c_i`.
    pub c: [f64; 16],
    /// `a_ij`, zero outside the DOP853 pattern (row 12 is unused: zero).
    pub a: [[f64; 16]; 16],
    /// Weights `b_i` of the eighth-order solution (nonzero at stages 1, 6..12).
    pub b: [f64; 12],
    /// Third-order weights `bhh` of stages 1, 9 and 12 (`e_3 = Σ b_i k_i − bhh · (k_1, k_9, k_12)`).
    pub bhh: [f64; 3],
    /// Fifth-order error weights `er` (`e_5 = Σ er_i k_i`, nonzero at stages 1, 6..12).
    pub er: [f64; 12],
    /// Dense-output weights `d` of `r_5..r_8` (nonzero at stages 1, 6..16).
    pub d: [[f64; 16]; 4],
}

/// Builds a 16-entry row from `(index, value)` pairs.
const fn row<const M: usize>(entries: [(usize, f64); M]) -> [f64; 16] {
    let mut r = [0.0; 16];
    let mut i = 0;
    while i < M {
        r[entries[i].0] = entries[i].1;
        i += 1;
    }
    r
}

impl Coefficients {
    /// The published coefficients of DOP853 (Hairer, Nørsett & Wanner 1993; Dormand & Prince
    /// 1980), to the 30 digits of the published code.
    // Written with all published digits (more than an f64 holds; the compiler rounds each to the
    // nearest f64), so that they can be compared with the publication digit for digit.
    #[allow(clippy::excessive_precision)]
    pub const DOP853: Coefficients = Coefficients {
        c: [
            0.0,
            0.526001519587677318785587544488e-1,
            0.789002279381515978178381316732e-1,
            0.118350341907227396726757197510,
            0.281649658092772603273242802490,
            0.333333333333333333333333333333,
            0.25,
            0.307692307692307692307692307692,
            0.651282051282051282051282051282,
            0.6,
            0.857142857142857142857142857142,
            1.0,
            1.0,
            0.1,
            0.2,
            0.777777777777777777777777777778,
        ],
        a: [
            [0.0; 16],
            row([(0, 5.26001519587677318785587544488e-2)]),
            row([(0, 1.97250569845378994544595329183e-2), (1, 5.91751709536136983633785987549e-2)]),
            row([(0, 2.95875854768068491816892993775e-2), (2, 8.87627564304205475450678981324e-2)]),
            row([
                (0, 2.41365134159266685502369798665e-1),
                (2, -8.84549479328286085344864962717e-1),
                (3, 9.24834003261792003115737966543e-1),
            ]),
            row([
                (0, 3.7037037037037037037037037037e-2),
                (3, 1.70828608729473871279604482173e-1),
                (4, 1.25467687566822425016691814123e-1),
            ]),
            row([
                (0, 3.7109375e-2),
                (3, 1.70252211019544039314978060272e-1),
                (4, 6.02165389804559606850219397283e-2),
                (5, -1.7578125e-2),
            ]),
            row([
                (0, 3.70920001185047927108779319836e-2),
                (3, 1.70383925712239993810214054705e-1),
                (4, 1.07262030446373284651809199168e-1),
                (5, -1.53194377486244017527936158236e-2),
                (6, 8.27378916381402288758473766002e-3),
            ]),
            row([
                (0, 6.24110958716075717114429577812e-1),
                (3, -3.36089262944694129406857109825),
                (4, -8.68219346841726006818189891453e-1),
                (5, 2.75920996994467083049415600797e1),
                (6, 2.01540675504778934086186788979e1),
                (7, -4.34898841810699588477366255144e1),
            ]),
            row([
                (0, 4.77662536438264365890433908527e-1),
                (3, -2.48811461997166764192642586468),
                (4, -5.90290826836842996371446475743e-1),
                (5, 2.12300514481811942347288949897e1),
                (6, 1.52792336328824235832596922938e1),
                (7, -3.32882109689848629194453265587e1),
                (8, -2.03312017085086261358222928593e-2),
            ]),
            row([
                (0, -9.3714243008598732571704021658e-1),
                (3, 5.18637242884406370830023853209),
                (4, 1.09143734899672957818500254654),
                (5, -8.14978701074692612513997267357),
                (6, -1.85200656599969598641566180701e1),
                (7, 2.27394870993505042818970056734e1),
                (8, 2.49360555267965238987089396762),
                (9, -3.0467644718982195003823669022),
            ]),
            row([
                (0, 2.27331014751653820792359768449),
                (3, -1.05344954667372501984066689879e1),
                (4, -2.00087205822486249909675718444),
                (5, -1.79589318631187989172765950534e1),
                (6, 2.79488845294199600508499808837e1),
                (7, -2.85899827713502369474065508674),
                (8, -8.87285693353062954433549289258),
                (9, 1.23605671757943030647266201528e1),
                (10, 6.43392746015763530355970484046e-1),
            ]),
            [0.0; 16],
            row([
                (0, 5.61675022830479523392909219681e-2),
                (6, 2.53500210216624811088794765333e-1),
                (7, -2.46239037470802489917441475441e-1),
                (8, -1.24191423263816360469010140626e-1),
                (9, 1.5329179827876569731206322685e-1),
                (10, 8.20105229563468988491666602057e-3),
                (11, 7.56789766054569976138603589584e-3),
                (12, -8.298e-3),
            ]),
            row([
                (0, 3.18346481635021405060768473261e-2),
                (5, 2.83009096723667755288322961402e-2),
                (6, 5.35419883074385676223797384372e-2),
                (7, -5.49237485713909884646569340306e-2),
                (10, -1.08347328697249322858509316994e-4),
                (11, 3.82571090835658412954920192323e-4),
                (12, -3.40465008687404560802977114492e-4),
                (13, 1.41312443674632500278074618366e-1),
            ]),
            row([
                (0, -4.28896301583791923408573538692e-1),
                (5, -4.69762141536116384314449447206),
                (6, 7.68342119606259904184240953878),
                (7, 4.06898981839711007970213554331),
                (8, 3.56727187455281109270669543021e-1),
                (12, -1.39902416515901462129418009734e-3),
                (13, 2.9475147891527723389556272149),
                (14, -9.15095847217987001081870187138),
            ]),
        ],
        b: [
            5.42937341165687622380535766363e-2,
            0.0,
            0.0,
            0.0,
            0.0,
            4.45031289275240888144113950566,
            1.89151789931450038304281599044,
            -5.8012039600105847814672114227,
            3.1116436695781989440891606237e-1,
            -1.52160949662516078556178806805e-1,
            2.01365400804030348374776537501e-1,
            4.47106157277725905176885569043e-2,
        ],
        bhh: [0.244094488188976377952755905512, 0.733846688281611857341361741547, 0.220588235294117647058823529412e-1],
        er: [
            0.1312004499419488073250102996e-1,
            0.0,
            0.0,
            0.0,
            0.0,
            -0.1225156446376204440720569753e1,
            -0.4957589496572501915214079952,
            0.1664377182454986536961530415e1,
            -0.3503288487499736816886487290,
            0.3341791187130174790297318841,
            0.8192320648511571246570742613e-1,
            -0.2235530786388629525884427845e-1,
        ],
        d: [
            row([
                (0, -0.84289382761090128651353491142e1),
                (5, 0.56671495351937776962531783590),
                (6, -0.30689499459498916912797304727e1),
                (7, 0.23846676565120698287728149680e1),
                (8, 0.21170345824450282767155149946e1),
                (9, -0.87139158377797299206789907490),
                (10, 0.22404374302607882758541771650e1),
                (11, 0.63157877876946881815570249290),
                (12, -0.88990336451333310820698117400e-1),
                (13, 0.18148505520854727256656404962e2),
                (14, -0.91946323924783554000451984436e1),
                (15, -0.44360363875948939664310572000e1),
            ]),
            row([
                (0, 0.10427508642579134603413151009e2),
                (5, 0.24228349177525818288430175319e3),
                (6, 0.16520045171727028198505394887e3),
                (7, -0.37454675472269020279518312152e3),
                (8, -0.22113666853125306036270938578e2),
                (9, 0.77334326684722638389603898808e1),
                (10, -0.30674084731089398182061213626e2),
                (11, -0.93321305264302278729567221706e1),
                (12, 0.15697238121770843886131091075e2),
                (13, -0.31139403219565177677282850411e2),
                (14, -0.93529243588444783865713862664e1),
                (15, 0.35816841486394083752465898540e2),
            ]),
            row([
                (0, 0.19985053242002433820987653617e2),
                (5, -0.38703730874935176555105901742e3),
                (6, -0.18917813819516756882830838328e3),
                (7, 0.52780815920542364900561016686e3),
                (8, -0.11573902539959630126141871134e2),
                (9, 0.68812326946963000169666922661e1),
                (10, -0.10006050966910838403183860980e1),
                (11, 0.77771377980534432092869265740),
                (12, -0.27782057523535084065932004339e1),
                (13, -0.60196695231264120758267380846e2),
                (14, 0.84320405506677161018159903784e2),
                (15, 0.11992291136182789328035130030e2),
            ]),
            row([
                (0, -0.25693933462703749003312586129e2),
                (5, -0.15418974869023643374053993627e3),
                (6, -0.23152937917604549567536039109e3),
                (7, 0.35763911791061412378285349910e3),
                (8, 0.93405324183624310003907691704e2),
                (9, -0.37458323136451633156875139351e2),
                (10, 0.10409964950896230045147246184e3),
                (11, 0.29840293426660503123344363579e2),
                (12, -0.43533456590011143754432175058e2),
                (13, 0.96324553959188282948394950600e2),
                (14, -0.39177261675615439165231486172e2),
                (15, -0.14972683625798562581422125276e3),
            ]),
        ],
    };

    /// `Ok` if every coefficient is finite and every nonzero one lies in the DOP853 sparsity
    /// pattern (the stage code reads only those), else [`GeomError::InvalidParameter`] naming
    /// the first offending entry.
    pub fn check(&self) -> Result<(), GeomError> {
        let bad = |reason: String| Err(GeomError::InvalidParameter { what: "DOP853 coefficients", reason });
        let all = self.c.iter().chain(self.a.iter().flatten()).chain(&self.b).chain(&self.bhh).chain(&self.er);
        if !all.chain(self.d.iter().flatten()).all(|v| v.is_finite()) {
            return bad("a coefficient is not finite".into());
        }
        for (i, r) in self.a.iter().enumerate() {
            for (j, &v) in r.iter().enumerate() {
                if v != 0.0 && !row_pattern(i).contains(&j) {
                    return bad(format!("a[{i}][{j}] = {v} is outside the DOP853 pattern"));
                }
            }
        }
        for (name, weights) in [("b", &self.b), ("er", &self.er)] {
            if let Some((i, v)) = weights.iter().enumerate().find(|(i, v)| **v != 0.0 && !COLS_B.contains(i)) {
                return bad(format!("{name}[{i}] = {v} is outside the DOP853 pattern"));
            }
        }
        for (r, weights) in self.d.iter().enumerate() {
            if let Some((i, v)) = weights.iter().enumerate().find(|(i, v)| **v != 0.0 && !COLS_D.contains(i)) {
                return bad(format!("d[{r}][{i}] = {v} is outside the DOP853 pattern"));
            }
        }
        Ok(())
    }
}

// ------------------------------------------------------------------------------------------------
// Options, statistics, errors

/// The controller's parameters (see the [module documentation](self) for the formulas).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// Safety factor `safe ∈ (1e-4, 1)`; default 0.9.
    pub safety: f64,
    /// Smallest step ratio `fac_min ∈ (0, 1)`; default 0.333.
    pub fac_min: f64,
    /// Largest step ratio `fac_max > 1`; default 6.
    pub fac_max: f64,
    /// Lund (PI) stabilisation `β ∈ [0, 0.2]`; default 0 (the classic controller).
    pub beta: f64,
    /// Largest number of steps, accepted plus rejected; default 100 000.
    pub max_steps: usize,
    /// Largest step size; `None` for `|t_end − t_0|`.
    pub h_max: Option<f64>,
    /// First step size; `None` for Hairer's `HINIT` estimate.
    pub h_init: Option<f64>,
}

impl Default for Options {
    fn default() -> Self {
        Self { safety: 0.9, fac_min: 0.333, fac_max: 6.0, beta: 0.0, max_steps: 100_000, h_max: None, h_init: None }
    }
}

impl Options {
    /// `Ok` if every option is in its range, else [`Dop853Error::InvalidOption`].
    pub fn check(&self) -> Result<(), Dop853Error> {
        let bad = |what: &'static str, value: f64, range: &str| {
            Err(Dop853Error::InvalidOption { what, reason: format!("{value} is not in {range}") })
        };
        if !(self.safety > 1e-4 && self.safety < 1.0) {
            return bad("safety", self.safety, "(1e-4, 1)");
        }
        if !(self.fac_min > 0.0 && self.fac_min < 1.0) {
            return bad("fac_min", self.fac_min, "(0, 1)");
        }
        if !(self.fac_max > 1.0 && self.fac_max.is_finite()) {
            return bad("fac_max", self.fac_max, "(1, ∞)");
        }
        if !(0.0..=0.2).contains(&self.beta) {
            return bad("beta", self.beta, "[0, 0.2]");
        }
        if self.max_steps == 0 {
            return bad("max_steps", 0.0, "[1, ∞)");
        }
        for (what, v) in [("h_max", self.h_max), ("h_init", self.h_init)] {
            if let Some(v) = v
                && !(v.is_finite() && v > 0.0)
            {
                return bad(what, v, "(0, ∞)");
            }
        }
        Ok(())
    }
}

/// Work of an adaptive integration.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Accepted steps.
    pub accepted: usize,
    /// Rejected steps (every rejection, the first step's included).
    pub rejected: usize,
    /// Evaluations of the vector field (12 per accepted step, 11 per rejected one, 3 more per
    /// accepted step with dense output, 1 or 2 at the start).
    pub evaluations: usize,
}

impl Stats {
    /// Accepted plus rejected steps.
    pub fn steps(&self) -> usize {
        self.accepted + self.rejected
    }
}

/// What can go wrong in an adaptive integration (the fixed step reports [`GeomError`]).
/// [`GeomError`] converts from it (`?` in code that reports `GeomError`).
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Error)]
pub enum Dop853Error {
    /// `rtol` or `atol` is not finite and positive.
    #[error("tolerances must be finite and positive, got rtol = {rtol}, atol = {atol}")]
    InvalidTolerance {
        /// Relative tolerance.
        rtol: f64,
        /// Absolute tolerance.
        atol: f64,
    },
    /// A time (`t_0`, `t_end`, an output time) is not finite, not ordered or out of range.
    #[error("invalid time {what} = {value}: {reason}")]
    InvalidTime {
        /// Which time.
        what: &'static str,
        /// Its value.
        value: f64,
        /// Why it is invalid.
        reason: &'static str,
    },
    /// The initial state has a NaN or infinite entry.
    #[error("non-finite state at t = {t}")]
    NonFiniteState {
        /// Where.
        t: f64,
    },
    /// The step size fell below `10 ε |t|`: the solution is (nearly) singular, or the tolerance
    /// is below what round-off allows.
    #[error("step size underflow at t = {t}: h = {h:e}")]
    StepSizeUnderflow {
        /// The time reached.
        t: f64,
        /// The step size that was too small.
        h: f64,
    },
    /// More than `max_steps` steps (accepted plus rejected) were needed.
    #[error("more than {max_steps} steps needed: stopped at t = {t}")]
    MaxStepsExceeded {
        /// The time reached.
        t: f64,
        /// The limit ([`Options::max_steps`]).
        max_steps: usize,
    },
    /// An option is out of range.
    #[error("invalid DOP853 option {what}: {reason}")]
    InvalidOption {
        /// Which option.
        what: &'static str,
        /// Why.
        reason: String,
    },
    /// The vector field reported an error other than a non-finite value.
    #[error("vector field failed at t = {t}: {source}")]
    Field {
        /// The time of the step in which it failed.
        t: f64,
        /// The field's error.
        source: GeomError,
    },
}

impl From<Dop853Error> for GeomError {
    fn from(e: Dop853Error) -> Self {
        match e {
            Dop853Error::NonFiniteState { .. } => GeomError::NonFinite { what: "DOP853 state" },
            Dop853Error::Field { source, .. } => source,
            Dop853Error::InvalidTolerance { .. } => {
                GeomError::InvalidParameter { what: "DOP853 tolerance", reason: e.to_string() }
            }
            Dop853Error::InvalidTime { .. } => {
                GeomError::InvalidParameter { what: "DOP853 time", reason: e.to_string() }
            }
            Dop853Error::StepSizeUnderflow { .. } | Dop853Error::MaxStepsExceeded { .. } => {
                GeomError::InvalidParameter { what: "DOP853 step size", reason: e.to_string() }
            }
            Dop853Error::InvalidOption { .. } => {
                GeomError::InvalidParameter { what: "DOP853 option", reason: e.to_string() }
            }
        }
    }
}

// ------------------------------------------------------------------------------------------------
// The method

/// Dormand–Prince 8(5,3) for the autonomous field `F`: the fixed-step eighth-order method
/// ([`OneStep`]) and the adaptive integration with dense output (see the [module
/// documentation](self)).
#[derive(Debug, Clone)]
pub struct Dop853<F> {
    field: F,
    coef: Coefficients,
    options: Options,
}

/// `y + h Σ_{j ∈ cols} w_j k_j`, one pass per term.
#[inline(always)]
fn combine<St: LinearState, const L: usize, const M: usize>(
    y: &St,
    h: f64,
    w: &[f64; L],
    k: &[St; 16],
    cols: [usize; M],
) -> St {
    let mut acc = *y;
    for j in cols {
        acc = acc.add_scaled(h * w[j], &k[j]);
    }
    acc
}

/// `Σ_{j ∈ cols} w_j k_j` over the first 12 stages.
#[inline(always)]
fn weighted<St: LinearState, const M: usize>(w: &[f64; 12], k: &[St; 16], cols: [usize; M]) -> St {
    let mut acc = St::zero();
    for j in cols {
        acc = acc.add_scaled(w[j], &k[j]);
    }
    acc
}

/// Whether a field error means "not finite here" (a step to reject) rather than a failure.
fn is_non_finite(e: &GeomError) -> bool {
    matches!(e, GeomError::NonFinite { .. })
}

impl<H> Dop853<HamiltonianVectorField<H>> {
    /// DOP853 for the Hamiltonian vector field of `ham` ([`HamiltonianVectorField`]).
    pub fn hamiltonian(ham: H) -> Self {
        Self::new(HamiltonianVectorField(ham))
    }
}

impl<F> Dop853<F> {
    /// DOP853 with the published coefficients and default [`Options`].
    pub fn new(field: F) -> Self {
        Self { field, coef: Coefficients::DOP853, options: Options::default() }
    }
    /// DOP853 with other coefficients (e.g. a perturbed copy of [`Coefficients::DOP853`]);
    /// [`GeomError::InvalidParameter`] unless they pass [`Coefficients::check`].
    pub fn with_coefficients(field: F, coefficients: Coefficients) -> Result<Self, GeomError> {
        coefficients.check()?;
        Ok(Self { field, coef: coefficients, options: Options::default() })
    }
    /// The same method with other controller options; [`Dop853Error::InvalidOption`] if one is
    /// out of range.
    pub fn with_options(mut self, options: Options) -> Result<Self, Dop853Error> {
        options.check()?;
        self.options = options;
        Ok(self)
    }
    /// The vector field.
    pub fn field(&self) -> &F {
        &self.field
    }
    /// The controller options.
    pub fn options(&self) -> &Options {
        &self.options
    }
    /// The coefficients.
    pub fn coefficients(&self) -> &Coefficients {
        &self.coef
    }

    /// Stages 2..12 into `k[1..12]`, given `k[0] = f(y)`; `evaluations` counts the calls.
    #[inline(always)]
    fn stages<St: LinearState>(
        &self,
        y: &St,
        h: f64,
        k: &mut [St; 16],
        evaluations: &mut usize,
    ) -> Result<(), GeomError>
    where
        F: VectorField<St>,
    {
        let a = &self.coef.a;
        macro_rules! stage {
            ($i:expr, $cols:expr) => {{
                let yi = combine(y, h, &a[$i], k, $cols);
                *evaluations += 1;
                k[$i] = self.field.eval(&yi)?;
            }};
        }
        stage!(1, COLS_2);
        stage!(2, COLS_3);
        stage!(3, COLS_4);
        stage!(4, COLS_5);
        stage!(5, COLS_6);
        stage!(6, COLS_7);
        stage!(7, COLS_8);
        stage!(8, COLS_9);
        stage!(9, COLS_10);
        stage!(10, COLS_11);
        stage!(11, COLS_12);
        Ok(())
    }

    /// The dense-output stages 14..16 into `k[13..16]` (with `k[12] = f(y_1)` set) and the
    /// coefficients `r_1..r_8` of the interpolant.
    fn dense_coefficients<St: LinearState>(
        &self,
        y0: &St,
        y1: &St,
        h: f64,
        k: &mut [St; 16],
        evaluations: &mut usize,
    ) -> Result<[St; 8], GeomError>
    where
        F: VectorField<St>,
    {
        let a = &self.coef.a;
        for (i, cols) in [(13, COLS_14), (14, COLS_15), (15, COLS_16)] {
            let y = combine(y0, h, &a[i], k, cols);
            *evaluations += 1;
            k[i] = self.field.eval(&y)?;
        }
        let diff = y1.add_scaled(-1.0, y0);
        let bspl = St::zero().add_scaled(h, &k[0]).add_scaled(-1.0, &diff);
        let r4 = diff.add_scaled(-h, &k[12]).add_scaled(-1.0, &bspl);
        let zero = St::zero();
        let d = |r: usize| combine(&zero, h, &self.coef.d[r], k, COLS_D);
        Ok([*y0, diff, bspl, r4, d(0), d(1), d(2), d(3)])
    }
}

impl<F: VectorField<St>, St: LinearState> OneStep<St> for Dop853<F> {
    fn name(&self) -> String {
        "DOP853 (Dormand–Prince 8(5,3), fixed step; explicit, not symplectic)".into()
    }
    fn order(&self) -> u32 {
        8
    }
    /// `y_1 = y_0 + h Σ b_i k_i` with the 12 stages (no error control); the state is untouched
    /// on error ([`GeomError::InvalidStep`] for a zero or non-finite `h`,
    /// [`GeomError::NonFinite`] for a non-finite state, or the field's error).
    fn step(&self, state: &mut St, h: f64) -> Result<(), GeomError> {
        check_step(h)?;
        if !state.all_finite() {
            return Err(GeomError::NonFinite { what: "state before step" });
        }
        let mut k = [St::zero(); 16];
        k[0] = self.field.eval(state)?;
        let mut evaluations = 1;
        self.stages(state, h, &mut k, &mut evaluations)?;
        let next = combine(state, h, &self.coef.b, &k, COLS_B);
        if !next.all_finite() {
            return Err(GeomError::NonFinite { what: "state after step" });
        }
        *state = next;
        Ok(())
    }
}

// ------------------------------------------------------------------------------------------------
// Adaptive integration

/// An adaptive integration in progress: the time and state reached, the next step size, the
/// controller's memory, the statistics and (if requested) the interpolant of the last accepted
/// step. Created by [`Dop853::start`], advanced by [`Dop853::advance`]; holds no reference to
/// the method, and nothing in it is on the heap.
#[derive(Debug, Clone)]
pub struct Integration<St> {
    t: f64,
    y: St,
    /// `f(y)`, the first stage of the next step.
    f: St,
    h: f64,
    t0: f64,
    t_end: f64,
    dir: f64,
    rtol: f64,
    atol: f64,
    h_max: f64,
    err_old: f64,
    rejected_last: bool,
    finished: bool,
    stats: Stats,
    want_dense: bool,
    /// `r_1..r_8` of the last accepted step, from `t_old` with step `h_old`.
    cont: [St; 8],
    t_old: f64,
    h_old: f64,
}

impl<St: LinearState> Integration<St> {
    /// The initial time.
    pub fn t0(&self) -> f64 {
        self.t0
    }
    /// The time reached.
    pub fn t(&self) -> f64 {
        self.t
    }
    /// The state at [`Integration::t`].
    pub fn y(&self) -> &St {
        &self.y
    }
    /// The final time.
    pub fn t_end(&self) -> f64 {
        self.t_end
    }
    /// The step size the controller proposes for the next step.
    pub fn next_step(&self) -> f64 {
        self.h
    }
    /// Work so far.
    pub fn stats(&self) -> Stats {
        self.stats
    }
    /// Whether `t_end` has been reached.
    pub fn is_finished(&self) -> bool {
        self.finished
    }
    /// The interval `(t_old, t)` of the last accepted step, where [`Integration::dense`] applies
    /// (`None` before the first step, or without dense output).
    pub fn dense_interval(&self) -> Option<(f64, f64)> {
        (self.want_dense && self.stats.accepted > 0).then_some((self.t_old, self.t))
    }

    /// The dense output `u(θ)` at `t`, `θ = (t − t_old)/h` (module documentation), for `t` in
    /// the last accepted step (end points included; at `t = t_0` before any step, `y_0`).
    /// [`Dop853Error::InvalidTime`] for a `t` outside it, or when the integration was started
    /// without dense output.
    pub fn dense(&self, t: f64) -> Result<St, Dop853Error> {
        let outside = |reason| Err(Dop853Error::InvalidTime { what: "dense output time", value: t, reason });
        if !t.is_finite() {
            return outside("not finite");
        }
        if t == self.t {
            return Ok(self.y);
        }
        if !self.want_dense {
            return outside("the integration was started without dense output");
        }
        if self.stats.accepted == 0 {
            return outside("no step taken yet: only t0 has a value");
        }
        if t == self.t_old {
            return Ok(self.cont[0]);
        }
        let theta = (t - self.t_old) / self.h_old;
        if !(0.0..=1.0).contains(&theta) {
            return outside("outside the last accepted step");
        }
        let s = 1.0 - theta;
        let r = &self.cont;
        let mut acc = r[6].add_scaled(theta, &r[7]);
        acc = r[5].add_scaled(s, &acc);
        acc = r[4].add_scaled(theta, &acc);
        acc = r[3].add_scaled(s, &acc);
        acc = r[2].add_scaled(theta, &acc);
        acc = r[1].add_scaled(s, &acc);
        Ok(r[0].add_scaled(theta, &acc))
    }
}

/// The final state of [`Dop853::integrate`].
#[derive(Debug, Clone, PartialEq)]
pub struct Solution<St> {
    /// The final time (`t_end`).
    pub t: f64,
    /// The state at `t_end`.
    pub y: St,
    /// Work.
    pub stats: Stats,
}

/// The states of [`Dop853::integrate_dense`] at the requested times.
#[derive(Debug, Clone, PartialEq)]
pub struct DenseSolution<St> {
    /// One state per requested time, in order.
    pub states: Vec<St>,
    /// The state at `t_end` and the work.
    pub end: Solution<St>,
}

/// `(Σ (e5_i/sk_i)², Σ (e3_i/sk_i)²)` with `sk_i = atol + rtol max(|y0_i|, |y1_i|)`.
#[inline]
fn error_sums<St: Components>(y0: &St, y1: &St, e5: &St, e3: &St, rtol: f64, atol: f64) -> (f64, f64) {
    let (mut s5, mut s3) = (0.0, 0.0);
    for b in 0..St::BLOCKS {
        let (a, c, d, e) = (y0.block(b), y1.block(b), e5.block(b), e3.block(b));
        for i in 0..a.len() {
            let sk = atol + rtol * a[i].abs().max(c[i].abs());
            let (u, v) = (d[i] / sk, e[i] / sk);
            s5 += u * u;
            s3 += v * v;
        }
    }
    (s5, s3)
}

/// `Σ (x_i/sk_i)²` with `sk_i = atol + rtol |y_i|` (the initial-step norms).
fn scaled_sum<St: Components>(x: &St, y: &St, rtol: f64, atol: f64) -> f64 {
    let mut s = 0.0;
    for b in 0..St::BLOCKS {
        for (xi, yi) in x.block(b).iter().zip(y.block(b)) {
            let u = xi / (atol + rtol * yi.abs());
            s += u * u;
        }
    }
    s
}

impl<F> Dop853<F> {
    /// Starts an adaptive integration of `y' = f(y)` from `(t0, y0)` towards `t_end` (backwards
    /// if `t_end < t0`) with tolerances `rtol`, `atol` (both finite and positive); `dense` asks
    /// for the interpolant of every accepted step (3 more evaluations per step). Evaluates
    /// `f(y0)` and, unless [`Options::h_init`] is set, chooses the first step (`HINIT`).
    pub fn start<St: Components>(
        &self,
        t0: f64,
        y0: St,
        t_end: f64,
        rtol: f64,
        atol: f64,
        dense: bool,
    ) -> Result<Integration<St>, Dop853Error>
    where
        F: VectorField<St>,
    {
        if !(rtol.is_finite() && atol.is_finite() && rtol > 0.0 && atol > 0.0) {
            return Err(Dop853Error::InvalidTolerance { rtol, atol });
        }
        if !t0.is_finite() {
            return Err(Dop853Error::InvalidTime { what: "t0", value: t0, reason: "not finite" });
        }
        if !t_end.is_finite() {
            return Err(Dop853Error::InvalidTime { what: "t_end", value: t_end, reason: "not finite" });
        }
        if !y0.all_finite() {
            return Err(Dop853Error::NonFiniteState { t: t0 });
        }
        let span = (t_end - t0).abs();
        if !span.is_finite() {
            return Err(Dop853Error::InvalidTime { what: "t_end", value: t_end, reason: "|t_end − t0| overflows" });
        }
        let dir = if t_end >= t0 { 1.0 } else { -1.0 };
        let h_max = self.options.h_max.unwrap_or(span).min(span);
        let mut stats = Stats { evaluations: 1, ..Stats::default() };
        let field_error = |source| Dop853Error::Field { t: t0, source };
        let f0 = self.field.eval(&y0).map_err(field_error)?;
        if !f0.all_finite() {
            return Err(field_error(GeomError::NonFinite { what: "f(y0)" }));
        }
        let h = match self.options.h_init {
            _ if span == 0.0 => 0.0,
            Some(h) => h.min(h_max) * dir,
            None => {
                stats.evaluations += 1;
                self.initial_step(&y0, &f0, dir, h_max, rtol, atol).map_err(field_error)?
            }
        };
        Ok(Integration {
            t: t0,
            y: y0,
            f: f0,
            h,
            t0,
            t_end,
            dir,
            rtol,
            atol,
            h_max,
            err_old: 1e-4,
            rejected_last: false,
            finished: span == 0.0,
            stats,
            want_dense: dense,
            cont: [y0; 8],
            t_old: t0,
            h_old: 0.0,
        })
    }

    /// Hairer's `HINIT` for order 8 (module documentation).
    fn initial_step<St: Components>(
        &self,
        y0: &St,
        f0: &St,
        dir: f64,
        h_max: f64,
        rtol: f64,
        atol: f64,
    ) -> Result<f64, GeomError>
    where
        F: VectorField<St>,
    {
        let dnf = scaled_sum(f0, y0, rtol, atol);
        let dny = scaled_sum(y0, y0, rtol, atol);
        let mut h = if dnf <= 1e-10 || dny <= 1e-10 { 1e-6 } else { (dny / dnf).sqrt() * 0.01 };
        h = h.min(h_max);
        let y1 = y0.add_scaled(h * dir, f0);
        let f1 = match self.field.eval(&y1) {
            Ok(f1) if f1.all_finite() => f1,
            // the trial Euler step left the domain: start with the first guess
            Ok(_) => return Ok(h * dir),
            Err(e) if is_non_finite(&e) => return Ok(h * dir),
            Err(e) => return Err(e),
        };
        let der2 = scaled_sum(&f1.add_scaled(-1.0, f0), y0, rtol, atol).sqrt() / h;
        let der12 = der2.abs().max(dnf.sqrt());
        let h1 = if der12 <= 1e-15 { (h * 1e-3).max(1e-6) } else { (0.01 / der12).powf(1.0 / 8.0) };
        Ok((100.0 * h).min(h1).min(h_max) * dir)
    }

    /// Advances `run` by one accepted step (after as many rejected ones as the controller needs)
    /// and, if it was started with dense output, computes the interpolant of that step. A
    /// finished integration is left as it is. On error, `run` keeps the last accepted state (and
    /// its time, which the error reports).
    pub fn advance<St: Components>(&self, run: &mut Integration<St>) -> Result<(), Dop853Error>
    where
        F: VectorField<St>,
    {
        if run.finished {
            return Ok(());
        }
        let o = &self.options;
        let expo = 1.0 / 8.0 - o.beta * 0.2;
        let n = run.y.dimension().max(1) as f64;
        let mut k = [St::zero(); 16];
        loop {
            if run.stats.steps() >= o.max_steps {
                return Err(Dop853Error::MaxStepsExceeded { t: run.t, max_steps: o.max_steps });
            }
            let mut h = run.h;
            if 0.1 * h.abs() <= run.t.abs() * f64::EPSILON || h.abs() < f64::MIN_POSITIVE {
                return Err(Dop853Error::StepSizeUnderflow { t: run.t, h });
            }
            let mut last = false;
            if (run.t + 1.01 * h - run.t_end) * run.dir > 0.0 {
                h = run.t_end - run.t;
                last = true;
            }
            k[0] = run.f;
            let y0 = run.y;
            // stages, solution, error estimate; `None` when a value was not finite
            let trial = match self.stages(&y0, h, &mut k, &mut run.stats.evaluations) {
                Ok(()) => {
                    let inc = weighted(&self.coef.b, &k, COLS_B);
                    let y1 = y0.add_scaled(h, &inc);
                    let e5 = weighted(&self.coef.er, &k, COLS_B);
                    let bhh = &self.coef.bhh;
                    let e3 = inc
                        .add_scaled(-bhh[0], &k[COLS_BHH[0]])
                        .add_scaled(-bhh[1], &k[COLS_BHH[1]])
                        .add_scaled(-bhh[2], &k[COLS_BHH[2]]);
                    let (s5, s3) = error_sums(&y0, &y1, &e5, &e3, run.rtol, run.atol);
                    let mut deno = s5 + 0.01 * s3;
                    if deno <= 0.0 {
                        deno = 1.0;
                    }
                    let err = h.abs() * s5 * (1.0 / (deno * n)).sqrt();
                    (err.is_finite() && y1.all_finite()).then_some((y1, err))
                }
                Err(e) if is_non_finite(&e) => None,
                Err(source) => return Err(Dop853Error::Field { t: run.t, source }),
            };
            // the error that rejects the step: NaN (shrink by fac_min) when a value was not finite
            let (accepted, err) = match trial {
                Some((y1, err)) if err <= 1.0 => {
                    run.stats.evaluations += 1;
                    match self.field.eval(&y1) {
                        Ok(f1) if f1.all_finite() => (Some((y1, f1)), err),
                        Ok(_) => (None, f64::NAN),
                        Err(e) if is_non_finite(&e) => (None, f64::NAN),
                        Err(source) => return Err(Dop853Error::Field { t: run.t, source }),
                    }
                }
                Some((_, err)) => (None, err),
                None => (None, f64::NAN),
            };
            // the interpolant, before anything of the run changes (its stages may fail too)
            let (accepted, err) = match accepted {
                Some((y1, f1)) if run.want_dense => {
                    k[12] = f1;
                    match self.dense_coefficients(&y0, &y1, h, &mut k, &mut run.stats.evaluations) {
                        Ok(cont) if cont.iter().all(LinearState::all_finite) => (Some((y1, f1, cont)), err),
                        Ok(_) => (None, f64::NAN),
                        Err(e) if is_non_finite(&e) => (None, f64::NAN),
                        Err(source) => return Err(Dop853Error::Field { t: run.t, source }),
                    }
                }
                Some((y1, f1)) => (Some((y1, f1, run.cont)), err),
                None => (None, err),
            };
            let Some((y1, f1, cont)) = accepted else {
                // rejected: h_new = h max(fac_min, safe err^{-q}); a NaN err gives fac_min
                let fac11 = err.powf(expo);
                run.h = h / (1.0 / o.fac_min).min(fac11 / o.safety);
                run.rejected_last = true;
                run.stats.rejected += 1;
                continue;
            };
            // accepted
            let fac11 = err.powf(expo);
            let fac = (fac11 / run.err_old.powf(o.beta) / o.safety).clamp(1.0 / o.fac_max, 1.0 / o.fac_min);
            let mut h_new = h / fac;
            run.err_old = err.max(1e-4);
            run.stats.accepted += 1;
            if run.want_dense {
                run.cont = cont;
                run.t_old = run.t;
                run.h_old = h;
            }
            run.t = if last { run.t_end } else { run.t + h };
            run.y = y1;
            run.f = f1;
            if h_new.abs() > run.h_max {
                h_new = run.dir * run.h_max;
            }
            if run.rejected_last {
                h_new = run.dir * h_new.abs().min(h.abs());
            }
            run.rejected_last = false;
            run.h = h_new;
            run.finished = last;
            return Ok(());
        }
    }

    /// Integrates `y' = f(y)` from `(t0, y0)` to `t_end` adaptively (`rtol`, `atol` finite and
    /// positive); the state at `t_end` (the last step is shortened to land on it) and the work.
    pub fn integrate<St: Components>(
        &self,
        t0: f64,
        y0: St,
        t_end: f64,
        rtol: f64,
        atol: f64,
    ) -> Result<Solution<St>, Dop853Error>
    where
        F: VectorField<St>,
    {
        let mut run = self.start(t0, y0, t_end, rtol, atol, false)?;
        while !run.finished {
            self.advance(&mut run)?;
        }
        Ok(Solution { t: run.t, y: run.y, stats: run.stats })
    }

    /// [`Dop853::integrate`] with the states at `times` from the dense output (order 7) of the
    /// steps that contain them; a time equal to `t0` or `t_end` gets the state itself.
    /// `times` must be finite, in `[t0, t_end]` and ordered from `t0` towards `t_end`, else
    /// [`Dop853Error::InvalidTime`].
    pub fn integrate_dense<St: Components>(
        &self,
        t0: f64,
        y0: St,
        t_end: f64,
        times: &[f64],
        rtol: f64,
        atol: f64,
    ) -> Result<DenseSolution<St>, Dop853Error>
    where
        F: VectorField<St>,
    {
        let mut run = self.start(t0, y0, t_end, rtol, atol, true)?;
        let mut previous = t0;
        for &t in times {
            let reason = if !t.is_finite() {
                Some("not finite")
            } else if (t - t0) * run.dir < 0.0 || (t - t_end) * run.dir > 0.0 {
                Some("outside [t0, t_end]")
            } else if (t - previous) * run.dir < 0.0 {
                Some("output times are not ordered from t0 towards t_end")
            } else {
                None
            };
            if let Some(reason) = reason {
                return Err(Dop853Error::InvalidTime { what: "output time", value: t, reason });
            }
            previous = t;
        }
        let mut states = Vec::with_capacity(times.len());
        let mut next = 0;
        while next < times.len() && times[next] == t0 {
            states.push(y0);
            next += 1;
        }
        while next < times.len() {
            self.advance(&mut run)?;
            while next < times.len() && (times[next] - run.t) * run.dir <= 0.0 {
                states.push(run.dense(times[next])?);
                next += 1;
            }
        }
        while !run.finished {
            self.advance(&mut run)?;
        }
        Ok(DenseSolution { states, end: Solution { t: run.t, y: run.y, stats: run.stats } })
    }
}

// ------------------------------------------------------------------------------------------------
// The adaptive integration as a one-step map

/// The adaptive DOP853 integration over `[0, h]` as a [`OneStep`]: `step(y, h)` integrates the
/// autonomous field from `y` over a time `h` (negative for backwards) at tolerances `rtol`,
/// `atol` and lands exactly on `h`. Its error does not depend on `h` the way a fixed-step
/// method's does: it is a reference (an accurate approximation of the flow `φ_h`), not a method
/// whose order can be measured by halving `h`.
#[derive(Debug, Clone)]
pub struct Dop853Flow<F> {
    method: Dop853<F>,
    rtol: f64,
    atol: f64,
}

impl<F> Dop853Flow<F> {
    /// The flow of `method` at tolerances `rtol`, `atol`; [`GeomError::InvalidParameter`] unless
    /// both are finite and positive.
    pub fn new(method: Dop853<F>, rtol: f64, atol: f64) -> Result<Self, GeomError> {
        if !(rtol.is_finite() && atol.is_finite() && rtol > 0.0 && atol > 0.0) {
            return Err(Dop853Error::InvalidTolerance { rtol, atol }.into());
        }
        Ok(Self { method, rtol, atol })
    }
    /// The underlying method.
    pub fn method(&self) -> &Dop853<F> {
        &self.method
    }
    /// `(rtol, atol)`.
    pub fn tolerances(&self) -> (f64, f64) {
        (self.rtol, self.atol)
    }
}

impl<F: VectorField<St>, St: Components> OneStep<St> for Dop853Flow<F> {
    fn name(&self) -> String {
        format!("DOP853 adaptive (rtol = {:e}, atol = {:e})", self.rtol, self.atol)
    }
    fn order(&self) -> u32 {
        8
    }
    fn step(&self, state: &mut St, h: f64) -> Result<(), GeomError> {
        check_step(h)?;
        let sol = self.method.integrate(0.0, *state, h, self.rtol, self.atol)?;
        *state = sol.y;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The published coefficients satisfy the row sums `Σ_j a_ij = c_i`, the quadrature
    /// conditions `Σ b_i c_i^{k−1} = 1/k` (`k ≤ 8`), `Σ er_i = 0` and `Σ bhh = 1`.
    #[test]
    fn coefficients_are_consistent() {
        let c = Coefficients::DOP853;
        c.check().unwrap();
        for i in 1..16 {
            if i == 12 {
                continue;
            }
            let s: f64 = c.a[i].iter().sum();
            assert!((s - c.c[i]).abs() < 1e-14, "row {i}: {s} vs {}", c.c[i]);
        }
        for k in 1..=8 {
            let q: f64 = (0..12).map(|i| c.b[i] * c.c[i].powi(k - 1)).sum();
            assert!((q - 1.0 / k as f64).abs() < 1e-14, "B({k}): {q}");
        }
        assert!(c.er.iter().sum::<f64>().abs() < 1e-14);
        assert!((c.bhh.iter().sum::<f64>() - 1.0).abs() < 1e-15);
        let mut bad = c;
        bad.a[5][1] = 1e-3;
        assert!(bad.check().is_err());
        let mut bad = c;
        bad.d[2][3] = f64::NAN;
        assert!(bad.check().is_err());
    }
}
