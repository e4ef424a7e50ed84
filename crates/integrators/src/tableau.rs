//! Butcher tableaux `(A, b, c)` as validated data, and the library of standard ones.
//!
//! A tableau of `s` stages defines `Y_i = y_0 + h Σ_j a_ij f(Y_j)`, `y_1 = y_0 + h Σ_i b_i f(Y_i)`.
//! [`Tableau::new`] checks sizes, finiteness, the row-sum condition `Σ_j a_ij = c_i`, and the
//! claimed order `p`:
//! * for `p <= 4`, the eight rooted-tree conditions of order ≤ 4 (HLW = Hairer,
//!   Lubich & Wanner, *Geometric Numerical Integration*, 2006, II.1, Table 1.1);
//! * for `p > 4`, Butcher's simplifying assumptions `B(p)`: `Σ b_i c_i^{k-1} = 1/k` (`k <= p`),
//!   `C(η)`: `Σ_j a_ij c_j^{k-1} = c_i^k/k` (`k <= η`), `D(ζ)`:
//!   `Σ_i b_i c_i^{k-1} a_ij = b_j (1 - c_j^k)/k` (`k <= ζ`), which give order
//!   `min(p, η + ζ + 1, 2η + 2)` (HLW Thm II.1.11 / IV.5.1); the claimed order must not exceed it.
//!
//! Gauss–Legendre (order `2s`) and Lobatto IIIA/IIIB (order `2s - 2`) are computed from their
//! nodes (roots of shifted Legendre polynomials, resp. of `x(1-x) P'_{s-1}(2x - 1)`) by solving the
//! collocation conditions `C(s)` (Gauss, IIIA) or `D(s)` (IIIB) to round-off.

use geom_core::GeomError;
use nalgebra::{DMatrix, DVector};

/// Tolerance of the order and row-sum checks (the library's tableaux satisfy them to ~1e-15).
pub const ORDER_TOL: f64 = 1e-12;

/// `(A, b, c)` of an `S`-stage tableau as fixed-size arrays (for stack-allocated stage loops).
pub type StageArrays<const S: usize> = ([[f64; S]; S], [f64; S], [f64; S]);

/// A validated Butcher tableau.
#[derive(Debug, Clone, PartialEq)]
pub struct Tableau {
    name: String,
    a: Vec<Vec<f64>>,
    b: Vec<f64>,
    c: Vec<f64>,
    order: u32,
}

fn invalid(reason: String) -> GeomError {
    GeomError::InvalidParameter { what: "Butcher tableau", reason }
}

impl Tableau {
    /// A tableau from `A` (row-major, `s × s`), `b`, `c` and its claimed order; errors
    /// ([`GeomError::InvalidParameter`]) for empty or inconsistent sizes, non-finite entries,
    /// `Σ_j a_ij != c_i`, or a claimed order the coefficients do not satisfy.
    ///
    /// ```
    /// use integrators::Tableau;
    /// let midpoint = Tableau::new("implicit midpoint", vec![vec![0.5]], vec![1.0], vec![0.5], 2)?;
    /// assert_eq!(midpoint.stages(), 1);
    /// assert!(Tableau::new("bad", vec![vec![0.5]], vec![1.0], vec![0.5], 3).is_err());
    /// assert!(Tableau::new("bad", vec![vec![0.4]], vec![1.0], vec![0.5], 1).is_err());
    /// # Ok::<(), geom_core::GeomError>(())
    /// ```
    pub fn new(name: &str, a: Vec<Vec<f64>>, b: Vec<f64>, c: Vec<f64>, order: u32) -> Result<Self, GeomError> {
        let s = b.len();
        if s == 0 {
            return Err(invalid("no stages".into()));
        }
        if c.len() != s || a.len() != s || a.iter().any(|row| row.len() != s) {
            return Err(invalid(format!("sizes of A, b, c disagree (s = {s})")));
        }
        if !a.iter().flatten().chain(&b).chain(&c).all(|v| v.is_finite()) {
            return Err(GeomError::NonFinite { what: "Butcher tableau" });
        }
        for (i, row) in a.iter().enumerate() {
            let sum: f64 = row.iter().sum();
            if (sum - c[i]).abs() > ORDER_TOL {
                return Err(invalid(format!("row {i}: sum_j a_ij = {sum} but c_i = {}", c[i])));
            }
        }
        let t = Self { name: name.into(), a, b, c, order };
        let verified = t.verified_order();
        if verified < order {
            return Err(invalid(format!("{name}: claimed order {order}, the coefficients give only {verified}")));
        }
        Ok(t)
    }

    /// Name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// Number of stages `s`.
    pub fn stages(&self) -> usize {
        self.b.len()
    }
    /// `a_ij`.
    pub fn a(&self, i: usize, j: usize) -> f64 {
        self.a[i][j]
    }
    /// `b_i`.
    pub fn b(&self, i: usize) -> f64 {
        self.b[i]
    }
    /// `c_i`.
    pub fn c(&self, i: usize) -> f64 {
        self.c[i]
    }
    /// Claimed (and verified) order.
    pub fn order(&self) -> u32 {
        self.order
    }
    /// Whether `a_ij = 0` for `j >= i`.
    pub fn is_explicit(&self) -> bool {
        (0..self.stages()).all(|i| (i..self.stages()).all(|j| self.a[i][j] == 0.0))
    }
    /// The coefficients as fixed-size arrays for an `S`-stage method; error unless `s = S`.
    pub fn arrays<const S: usize>(&self) -> Result<StageArrays<S>, GeomError> {
        if self.stages() != S {
            return Err(GeomError::DimensionMismatch { what: "tableau stages", expected: S, got: self.stages() });
        }
        Ok((
            core::array::from_fn(|i| core::array::from_fn(|j| self.a[i][j])),
            core::array::from_fn(|i| self.b[i]),
            core::array::from_fn(|i| self.c[i]),
        ))
    }

    fn b_condition(&self, k: u32) -> bool {
        let lhs: f64 = (0..self.stages()).map(|i| self.b[i] * self.c[i].powi(k as i32 - 1)).sum();
        (lhs - 1.0 / k as f64).abs() <= ORDER_TOL
    }
    fn c_condition(&self, k: u32) -> bool {
        (0..self.stages()).all(|i| {
            let lhs: f64 = (0..self.stages()).map(|j| self.a[i][j] * self.c[j].powi(k as i32 - 1)).sum();
            (lhs - self.c[i].powi(k as i32) / k as f64).abs() <= ORDER_TOL
        })
    }
    fn d_condition(&self, k: u32) -> bool {
        (0..self.stages()).all(|j| {
            let lhs: f64 = (0..self.stages()).map(|i| self.b[i] * self.c[i].powi(k as i32 - 1) * self.a[i][j]).sum();
            (lhs - self.b[j] * (1.0 - self.c[j].powi(k as i32)) / k as f64).abs() <= ORDER_TOL
        })
    }
    /// The eight rooted-tree conditions up to order 4; returns the highest order all hold for.
    fn tree_order(&self) -> u32 {
        let s = self.stages();
        let (a, b, c) = (&self.a, &self.b, &self.c);
        let sum = |f: &dyn Fn(usize) -> f64| (0..s).map(f).sum::<f64>();
        let ac: Vec<f64> = (0..s).map(|i| sum(&|j| a[i][j] * c[j])).collect();
        let ac2: Vec<f64> = (0..s).map(|i| sum(&|j| a[i][j] * c[j] * c[j])).collect();
        let aac: Vec<f64> = (0..s).map(|i| sum(&|j| a[i][j] * ac[j])).collect();
        let ok = |v: f64, e: f64| (v - e).abs() <= ORDER_TOL;
        let conds: [(u32, f64, f64); 8] = [
            (1, sum(&|i| b[i]), 1.0),
            (2, sum(&|i| b[i] * c[i]), 0.5),
            (3, sum(&|i| b[i] * c[i] * c[i]), 1.0 / 3.0),
            (3, sum(&|i| b[i] * ac[i]), 1.0 / 6.0),
            (4, sum(&|i| b[i] * c[i].powi(3)), 0.25),
            (4, sum(&|i| b[i] * c[i] * ac[i]), 0.125),
            (4, sum(&|i| b[i] * ac2[i]), 1.0 / 12.0),
            (4, sum(&|i| b[i] * aac[i]), 1.0 / 24.0),
        ];
        let mut order = 4;
        for (p, v, e) in conds {
            if !ok(v, e) {
                order = order.min(p - 1);
            }
        }
        order
    }
    /// The order the coefficients provably have: the tree conditions up to 4, and beyond that
    /// the simplifying assumptions (module documentation).
    pub fn verified_order(&self) -> u32 {
        let trees = self.tree_order();
        if trees < 4 {
            return trees;
        }
        let bmax = (1..=2 * self.stages() as u32 + 2).take_while(|&k| self.b_condition(k)).last().unwrap_or(0);
        let eta = (1..=self.stages() as u32).take_while(|&k| self.c_condition(k)).last().unwrap_or(0);
        let zeta = (1..=self.stages() as u32).take_while(|&k| self.d_condition(k)).last().unwrap_or(0);
        let simplifying = bmax.min(eta + zeta + 1).min(2 * eta + 2);
        trees.max(simplifying)
    }
    /// The symplecticity condition of a Runge–Kutta method, `b_i a_ij + b_j a_ji = b_i b_j`
    /// (HLW Thm VI.4.3): the largest violation.
    pub fn symplecticity_defect(&self) -> f64 {
        let s = self.stages();
        let mut m = 0.0f64;
        for i in 0..s {
            for j in 0..s {
                m = m.max((self.b[i] * self.a[i][j] + self.b[j] * self.a[j][i] - self.b[i] * self.b[j]).abs());
            }
        }
        m
    }
}

/// `P_n(x)` and `P_n'(x)` (Legendre, on [-1, 1]) by the three-term recurrence.
fn legendre(n: usize, x: f64) -> (f64, f64) {
    if n == 0 {
        return (1.0, 0.0);
    }
    let (mut p0, mut p1) = (1.0, x);
    for k in 2..=n {
        let p2 = ((2 * k - 1) as f64 * x * p1 - (k - 1) as f64 * p0) / k as f64;
        p0 = p1;
        p1 = p2;
    }
    let dp = n as f64 * (x * p1 - p0) / (x * x - 1.0);
    (p1, dp)
}

/// The `s` Gauss nodes on [0, 1]: roots of `P_s(2c - 1)` by Newton from Chebyshev guesses.
fn gauss_nodes(s: usize) -> Vec<f64> {
    let mut nodes: Vec<f64> = (0..s)
        .map(|i| {
            let mut x = -(std::f64::consts::PI * (i as f64 + 0.75) / (s as f64 + 0.5)).cos();
            for _ in 0..100 {
                let (p, dp) = legendre(s, x);
                let dx = p / dp;
                x -= dx;
                if dx.abs() < 1e-16 {
                    break;
                }
            }
            (x + 1.0) / 2.0
        })
        .collect();
    nodes.sort_by(f64::total_cmp);
    nodes
}

/// The `s` Lobatto nodes on [0, 1]: `0`, `1` and the roots of `P'_{s-1}(2c - 1)`.
fn lobatto_nodes(s: usize) -> Vec<f64> {
    let n = s - 1;
    let mut nodes = vec![0.0, 1.0];
    for i in 1..n {
        // roots of P'_n interlace the Gauss-Lobatto points; start from Chebyshev-Gauss-Lobatto
        let mut x = -(std::f64::consts::PI * i as f64 / n as f64).cos();
        for _ in 0..100 {
            // P'_n and P''_n from the Legendre ODE: (1-x^2) P'' = 2x P' - n(n+1) P
            let (p, dp) = legendre(n, x);
            let ddp = (2.0 * x * dp - (n * (n + 1)) as f64 * p) / (1.0 - x * x);
            let dx = dp / ddp;
            x -= dx;
            if dx.abs() < 1e-16 {
                break;
            }
        }
        nodes.push((x + 1.0) / 2.0);
    }
    nodes.sort_by(f64::total_cmp);
    nodes
}

/// Solve the Vandermonde-type system `Σ_j V_kj w_j = r_k` (small, by LU).
fn solve(v: DMatrix<f64>, r: DVector<f64>) -> Vec<f64> {
    v.lu().solve(&r).expect("nonsingular Vandermonde system for distinct nodes").iter().copied().collect()
}

/// Quadrature weights `b` for nodes `c`: `Σ_j b_j c_j^{k-1} = 1/k`, `k = 1..s`.
fn weights(c: &[f64]) -> Vec<f64> {
    let s = c.len();
    let v = DMatrix::from_fn(s, s, |k, j| c[j].powi(k as i32));
    let r = DVector::from_fn(s, |k, _| 1.0 / (k + 1) as f64);
    solve(v, r)
}

/// Collocation matrix for nodes `c`: `Σ_j a_ij c_j^{k-1} = c_i^k / k` (condition `C(s)`).
fn collocation(c: &[f64]) -> Vec<Vec<f64>> {
    let s = c.len();
    let v = DMatrix::from_fn(s, s, |k, j| c[j].powi(k as i32));
    (0..s)
        .map(|i| {
            let r = DVector::from_fn(s, |k, _| c[i].powi(k as i32 + 1) / (k + 1) as f64);
            solve(v.clone(), r)
        })
        .collect()
}

fn check_stages(family: &str, s: usize, range: std::ops::RangeInclusive<usize>) -> Result<(), GeomError> {
    if range.contains(&s) {
        Ok(())
    } else {
        Err(GeomError::InvalidParameter {
            what: "stages",
            reason: format!("{family} is available for s in {}..={}, not {s}", range.start(), range.end()),
        })
    }
}

/// Gauss–Legendre collocation with `s = 1..=5` stages: order `2s`, symmetric, symplectic.
pub fn gauss_legendre(s: usize) -> Result<Tableau, GeomError> {
    check_stages("Gauss-Legendre", s, 1..=5)?;
    let c = gauss_nodes(s);
    Tableau::new(&format!("Gauss-Legendre {s}"), collocation(&c), weights(&c), c, 2 * s as u32)
}

/// Lobatto IIIA with `s = 2..=5` stages (collocation at the Lobatto nodes): order `2s - 2`.
/// `s = 2` is the trapezoidal rule.
pub fn lobatto_iiia(s: usize) -> Result<Tableau, GeomError> {
    check_stages("Lobatto IIIA", s, 2..=5)?;
    let c = lobatto_nodes(s);
    Tableau::new(&format!("Lobatto IIIA {s}"), collocation(&c), weights(&c), c, 2 * s as u32 - 2)
}

/// Lobatto IIIB with `s = 2..=5` stages: the symplectic conjugate of Lobatto IIIA,
/// `â_ij = b_j (1 - a_ji / b_i)` (so `b_i â_ij + b_j a_ji = b_i b_j`, HLW VI.4), order `2s - 2`
/// as the `p`-part of the partitioned pair IIIA–IIIB (HLW Thm II.2.2).
///
/// Lobatto IIIB does **not** satisfy the row-sum condition `Σ_j â_ij = c_i` (for `s = 2`,
/// `A = [[1/2, 0], [1/2, 0]]`, `c = (0, 1)`), nor `C(1)`, so the stand-alone checks of
/// [`Tableau::new`] do not apply; its order is certified through IIIA (verified by
/// [`Tableau::new`]) and the conjugacy relation, which holds by construction, and is measured in
/// the partitioned-pair order tests.
pub fn lobatto_iiib(s: usize) -> Result<Tableau, GeomError> {
    let iiia = lobatto_iiia(s)?;
    let (c, b) = (iiia.c.clone(), iiia.b.clone());
    let a: Vec<Vec<f64>> = (0..s).map(|i| (0..s).map(|j| b[j] * (1.0 - iiia.a[j][i] / b[i])).collect()).collect();
    Ok(Tableau { name: format!("Lobatto IIIB {s}"), a, b, c, order: iiia.order })
}

/// Classical explicit RK4 (order 4).
pub fn rk4() -> Tableau {
    let a =
        vec![vec![0.0, 0.0, 0.0, 0.0], vec![0.5, 0.0, 0.0, 0.0], vec![0.0, 0.5, 0.0, 0.0], vec![0.0, 0.0, 1.0, 0.0]];
    Tableau::new("RK4", a, vec![1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0], vec![0.0, 0.5, 0.5, 1.0], 4)
        .expect("RK4 is a valid tableau")
}

/// Explicit Euler (order 1).
pub fn explicit_euler() -> Tableau {
    Tableau::new("explicit Euler", vec![vec![0.0]], vec![1.0], vec![0.0], 1).expect("valid")
}

/// Implicit Euler (order 1), `c = a = b = 1`.
pub fn implicit_euler() -> Tableau {
    Tableau::new("implicit Euler", vec![vec![1.0]], vec![1.0], vec![1.0], 1).expect("valid")
}

/// Heun's method (explicit trapezoidal RK2, order 2).
pub fn heun() -> Tableau {
    Tableau::new("Heun", vec![vec![0.0, 0.0], vec![1.0, 0.0]], vec![0.5, 0.5], vec![0.0, 1.0], 2).expect("valid")
}

/// Explicit midpoint RK2 (order 2).
pub fn explicit_midpoint() -> Tableau {
    Tableau::new("explicit midpoint", vec![vec![0.0, 0.0], vec![0.5, 0.0]], vec![0.0, 1.0], vec![0.0, 0.5], 2)
        .expect("valid")
}

/// Kutta's third-order method (order 3).
pub fn kutta3() -> Tableau {
    let a = vec![vec![0.0, 0.0, 0.0], vec![0.5, 0.0, 0.0], vec![-1.0, 2.0, 0.0]];
    Tableau::new("Kutta 3", a, vec![1.0 / 6.0, 2.0 / 3.0, 1.0 / 6.0], vec![0.0, 0.5, 1.0], 3).expect("valid")
}

/// The symplectic Euler pair as a partitioned tableau `(tableau for q, tableau for p)` =
/// `(implicit Euler, explicit Euler)`: `q_{n+1} = q_n + h H_p(q_{n+1}, p_n)`,
/// `p_{n+1} = p_n - h H_q(q_{n+1}, p_n)`, HLW (VI.3.2) (`classical::SymplecticEulerB`); swapping
/// the pair gives its adjoint (VI.3.1). The pair satisfies `b_i â_ij + b̂_j a_ji = b_i b̂_j`.
pub fn symplectic_euler_pair() -> (Tableau, Tableau) {
    (implicit_euler(), explicit_euler())
}

/// Every tableau of the library, for registries and tests.
pub fn library() -> Vec<Tableau> {
    let mut v = vec![explicit_euler(), implicit_euler(), heun(), explicit_midpoint(), kutta3(), rk4()];
    for s in 1..=5 {
        v.push(gauss_legendre(s).expect("valid"));
    }
    for s in 2..=5 {
        v.push(lobatto_iiia(s).expect("valid"));
        v.push(lobatto_iiib(s).expect("valid"));
    }
    v
}

/// The partitioned symplecticity condition `b_i â_ij + b̂_j a_ji - b_i b̂_j` (HLW Thm VI.4.6,
/// with `b = b̂`): largest violation for the pair `(a, â)`.
pub fn partitioned_symplecticity_defect(t: &Tableau, hat: &Tableau) -> f64 {
    let s = t.stages().min(hat.stages());
    let mut m = 0.0f64;
    for i in 0..s {
        for j in 0..s {
            m = m.max((t.b(i) * hat.a(i, j) + hat.b(j) * t.a(j, i) - t.b(i) * hat.b(j)).abs());
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_orders_and_row_sums() {
        for t in library().into_iter().filter(|t| !t.name().starts_with("Lobatto IIIB")) {
            assert!(t.verified_order() >= t.order(), "{}: {} < {}", t.name(), t.verified_order(), t.order());
            for i in 0..t.stages() {
                let sum: f64 = (0..t.stages()).map(|j| t.a(i, j)).sum();
                assert!((sum - t.c(i)).abs() < 1e-14, "{}", t.name());
            }
        }
    }

    #[test]
    fn gauss_is_symplectic_and_lobatto_pair_is_partitioned_symplectic() {
        for s in 1..=5 {
            assert!(gauss_legendre(s).unwrap().symplecticity_defect() < 1e-14);
        }
        for s in 2..=5 {
            let (a, b) = (lobatto_iiia(s).unwrap(), lobatto_iiib(s).unwrap());
            assert!(partitioned_symplecticity_defect(&a, &b) < 1e-14, "s = {s}");
            assert!(a.symplecticity_defect() > 1e-3, "IIIA alone is not symplectic");
        }
        assert!(rk4().symplecticity_defect() > 1e-2);
    }

    #[test]
    fn known_coefficients() {
        let g2 = gauss_legendre(2).unwrap();
        let r = 3f64.sqrt() / 6.0;
        assert!((g2.c(0) - (0.5 - r)).abs() < 1e-15 && (g2.a(0, 1) - (0.25 - r)).abs() < 1e-15);
        let l3 = lobatto_iiia(3).unwrap();
        assert!((l3.a(1, 0) - 5.0 / 24.0).abs() < 1e-15 && (l3.a(1, 2) + 1.0 / 24.0).abs() < 1e-15);
        let l3b = lobatto_iiib(3).unwrap();
        assert!((l3b.a(0, 0) - 1.0 / 6.0).abs() < 1e-15 && (l3b.a(2, 2)).abs() < 1e-15);
        assert!((l3b.a(0, 1) + 1.0 / 6.0).abs() < 1e-15);
    }

    #[test]
    fn invalid_tableaux_are_errors() {
        assert!(Tableau::new("empty", vec![], vec![], vec![], 1).is_err());
        assert!(Tableau::new("sizes", vec![vec![0.0, 0.0]], vec![1.0], vec![0.0], 1).is_err());
        assert!(Tableau::new("nan", vec![vec![f64::NAN]], vec![1.0], vec![0.0], 1).is_err());
        assert!(Tableau::new("row sum", vec![vec![0.1]], vec![1.0], vec![0.0], 1).is_err());
        // RK4 claimed as order 5
        let t = rk4();
        let a = (0..4).map(|i| (0..4).map(|j| t.a(i, j)).collect()).collect();
        assert!(
            Tableau::new("rk4 as 5", a, (0..4).map(|i| t.b(i)).collect(), (0..4).map(|i| t.c(i)).collect(), 5).is_err()
        );
        assert!(gauss_legendre(0).is_err() && gauss_legendre(6).is_err() && lobatto_iiia(1).is_err());
        assert!(rk4().arrays::<3>().is_err() && rk4().arrays::<4>().is_ok());
    }
}
