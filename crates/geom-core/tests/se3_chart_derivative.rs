//! The closed forms of `(dτ^{-1}_x)ᵀ μ` and `D_x[(dτ^{-1}_x)ᵀ μ]` on SE(3) (`LieGroupFamily`
//! for `Se3`, both charts; the chart derivative of the Hamilton–Pontryagin Newton Jacobian) against four references: the 6×6 matrix `LieGroup::dtau_inv`
//! transposed times `μ`, forward AD over the 6 directions (`ad_dtau_inv_transpose_derivative`),
//! forward AD of `(dexp_x)^{-ᵀ} μ` through Barfoot's `Q` and an LU inverse (independent of the
//! identity `-J^{-1} Q J^{-1} = D_ω J^{-1}(ω)[v]` used by the closed form and by geom-core's
//! `dexp_inv`), and central finite differences of the closed-form value (so a wrong sign or a
//! transposed block cannot hide in a shared formula). Points: `ω = 0`, tiny `|ω|`
//! (1e-8, 1e-4), around the series switches (`|ω| = 1/2` in geom-core and in the chart
//! derivative, `|ω| = 2` in the chart derivative), `|ω| ≈ 3`, 5, 5.98, `v = 0`, `v ∥ ω`, large
//! `v`, `π = 0`, `p = 0`, and random.

use geom_core::lie::{Chart, LieGroup, LieGroupFamily, Se3, ad_dtau_inv_transpose_derivative};
use geom_core::linalg::invert;
use nalgebra::{Const, Matrix6, U1, Vector3, Vector6};
use num_dual::DualSVec64;
use std::f64::consts::PI;

/// xorshift64*, uniform in `[-1, 1)`.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let r = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D);
        (r >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
    fn vector(&mut self) -> Vector3<f64> {
        Vector3::new(self.next(), self.next(), self.next())
    }
}

fn x_of(w: Vector3<f64>, v: Vector3<f64>) -> Vector6<f64> {
    Vector6::new(w[0], w[1], w[2], v[0], v[1], v[2])
}

/// `ω` of norm `theta` along a fixed generic direction.
fn along(theta: f64) -> Vector3<f64> {
    Vector3::new(0.48, -0.6, 0.64) * theta // |(0.48, -0.6, 0.64)| = 1
}

/// The sample points `x = (ω, v)`, labelled.
fn points() -> Vec<(String, Vector6<f64>)> {
    let v = Vector3::new(0.7, -1.1, 0.4);
    let mut out =
        vec![("w = 0".to_string(), x_of(Vector3::zeros(), v)), ("w = 0, v = 0".to_string(), Vector6::zeros())];
    for theta in [
        1e-8,
        1e-4,
        0.1,
        0.5 - 1e-9, // series switches of geom-core and of the chart derivative, |ω|² = 1/4
        0.5 + 1e-9,
        1.0,
        2.0 - 1e-9, // the chart derivative's series switch, |ω|² = 4
        2.0,
        2.0 + 1e-9,
        3.0,
        PI - 1e-3,
        4.0,
        5.0,
        2.0 * PI - 0.3,
    ] {
        out.push((format!("|w| = {theta}"), x_of(along(theta), v)));
        out.push((format!("|w| = {theta}, v = 0"), x_of(along(theta), Vector3::zeros())));
        // v parallel to ω (Q's ω̂v̂ terms vanish) and a large v
        out.push((format!("|w| = {theta}, v || w"), x_of(along(theta), along(1.3))));
        out.push((format!("|w| = {theta}, |v| = 50"), x_of(along(theta), v * 40.0)));
    }
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for k in 0..200 {
        // |ω| up to 6 (< 2π), v up to 3
        let w = rng.vector();
        let w = w * (3.0 * (rng.next() + 1.0) / w.norm().max(1e-3));
        out.push((format!("random {k}"), x_of(w, rng.vector() * 3.0)));
    }
    out
}

fn momenta() -> [Vector6<f64>; 3] {
    [
        Vector6::new(0.7, -1.3, 0.4, 2.0, 0.5, -0.9),
        Vector6::new(0.0, 0.0, 0.0, 1.0, -2.0, 0.3),   // π = 0
        Vector6::new(33.0, -12.0, 7.0, 0.0, 0.0, 0.0), // p = 0
    ]
}

fn rel(a: &Matrix6<f64>, b: &Matrix6<f64>) -> f64 {
    (a - b).amax() / b.amax().max(1e-300)
}

#[test]
fn exp_value_matches_the_matrix() {
    for (label, x) in points() {
        for mu in momenta() {
            let closed = Se3.dtau_inv_transpose(Chart::Exp, &x, &mu).unwrap();
            let matrix = LieGroup::<f64, 6>::dtau_inv(&Se3, Chart::Exp, &x).unwrap().tr_mul(&mu);
            let err = (closed - matrix).amax() / matrix.amax();
            assert!(err < 1e-14, "{label}, mu {mu}: {err:.2e}\n{closed}\n{matrix}");
        }
    }
}

/// `D_x[(dexp_x)^{-ᵀ} μ]` by forward AD through Barfoot's `Q` (`dexp`, geom-core) and an LU
/// inverse at `DualSVec64<6>`: a reference independent of the identity
/// `-J^{-1} Q J^{-1} = D_ω J^{-1}[v]` that both the closed form and geom-core's `dexp_inv` use.
/// The LU inverse adds round-off growing with the conditioning of `dexp_x` (large `|v|`, `|ω|`
/// near 2π): the tolerance against it is 1e-13.
fn ad_through_q(x: &Vector6<f64>, mu: &Vector6<f64>) -> Matrix6<f64> {
    let xd = Vector6::from_fn(|i, _| DualSVec64::<6>::from_re(x[i]).derivative(i));
    let fwd = LieGroup::<DualSVec64<6>, 6>::dexp(&Se3, &xd);
    let v = invert(&fwd, "dexp").unwrap().tr_mul(&mu.map(DualSVec64::from_re));
    Matrix6::from_fn(|i, j| v[i].eps.unwrap_generic(Const::<6>, U1)[j])
}

#[test]
fn exp_derivative_matches_ad() {
    let (mut worst, mut worst_q) = ((0.0, String::new()), (0.0, String::new()));
    for (label, x) in points() {
        for mu in momenta() {
            let closed = Se3.dtau_inv_transpose_derivative(Chart::Exp, &x, &mu).unwrap();
            let ad = ad_dtau_inv_transpose_derivative(&Se3, Chart::Exp, &x, &mu).unwrap();
            let err = rel(&closed, &ad);
            if err > worst.0 {
                worst = (err, label.clone());
            }
            assert!(err < 1e-14, "{label}, mu {mu}: {err:.2e}\nclosed {closed}\nAD {ad}");
            // the structure of the block form: the lower-right block is zero
            assert_eq!(closed.fixed_view::<3, 3>(3, 3).amax(), 0.0);
            if x.fixed_rows::<3>(0).norm() < 2.0 * PI - 0.5 {
                let q = ad_through_q(&x, &mu);
                let err = rel(&closed, &q);
                if err > worst_q.0 {
                    worst_q = (err, label.clone());
                }
                assert!(err < 1e-13, "{label}, mu {mu}: {err:.2e} (AD through Q)\nclosed {closed}\nAD {q}");
            }
        }
    }
    eprintln!("SE(3) exp chart derivative vs AD of dexp_inv: worst relative difference {:.2e} at {}", worst.0, worst.1);
    eprintln!(
        "SE(3) exp chart derivative vs AD through Q: worst relative difference {:.2e} at {}",
        worst_q.0, worst_q.1
    );
}

#[test]
fn cayley_closed_forms_match_ad_and_the_matrix() {
    for (label, x) in points() {
        for mu in momenta() {
            let closed = Se3.dtau_inv_transpose_derivative(Chart::Cayley, &x, &mu).unwrap();
            let ad = ad_dtau_inv_transpose_derivative(&Se3, Chart::Cayley, &x, &mu).unwrap();
            assert!(rel(&closed, &ad) < 1e-14, "{label}: {:.2e}", rel(&closed, &ad));
            let v = Se3.dtau_inv_transpose(Chart::Cayley, &x, &mu).unwrap();
            let m = LieGroup::<f64, 6>::dtau_inv(&Se3, Chart::Cayley, &x).unwrap().tr_mul(&mu);
            assert!((v - m).amax() < 1e-14 * m.amax(), "{label}");
        }
    }
}

/// Central differences of the closed-form value (steps `1e-3`, `5e-4`, Richardson-extrapolated:
/// truncation `O(h⁴)`, round-off ~1e-11 relative) against the closed-form derivative, column by
/// column: a wrong sign, a swapped `ω`/`v` block or a transposed block is an O(1) error.
#[test]
fn exp_derivative_matches_finite_differences() {
    let value = |x: &Vector6<f64>, mu: &Vector6<f64>| Se3.dtau_inv_transpose(Chart::Exp, x, mu).unwrap();
    let mut worst = 0.0f64;
    for (label, x) in points() {
        if x.fixed_rows::<3>(0).norm() > 2.0 * PI - 0.5 {
            continue; // near the singularity at 2π the differences lose accuracy
        }
        for mu in momenta() {
            let closed = Se3.dtau_inv_transpose_derivative(Chart::Exp, &x, &mu).unwrap();
            let fd = Matrix6::from_fn(|i, j| {
                let diff = |h: f64| {
                    let mut e = Vector6::zeros();
                    e[j] = h;
                    (value(&(x + e), &mu)[i] - value(&(x - e), &mu)[i]) / (2.0 * h)
                };
                let h = 1e-3;
                (4.0 * diff(h / 2.0) - diff(h)) / 3.0
            });
            let err = rel(&closed, &fd);
            worst = worst.max(err);
            assert!(err < 1e-8, "{label}, mu {mu}: {err:.2e}\nclosed {closed}\nFD {fd}");
        }
    }
    eprintln!("SE(3) exp chart derivative vs central differences: worst relative difference {worst:.2e}");
}

/// The branches of the coefficients `d(t), d'(t), d''(t)` meet at `|ω|² = 1/4` (9 against 18
/// series terms) and `|ω|² = 4` (series against closed form): `ω = (2, 0, 0)` takes the closed
/// forms, the next float below the series; the derivative is continuous there to round-off.
#[test]
fn exp_derivative_is_continuous_across_the_series_switches() {
    let v = Vector3::new(0.7, -1.1, 0.4);
    for switch in [0.5f64, 2.0] {
        let below = Vector3::new(f64::from_bits(switch.to_bits() - 1), 0.0, 0.0);
        let at = Vector3::new(switch, 0.0, 0.0);
        for mu in momenta() {
            let lo = Se3.dtau_inv_transpose_derivative(Chart::Exp, &x_of(below, v), &mu).unwrap();
            let hi = Se3.dtau_inv_transpose_derivative(Chart::Exp, &x_of(at, v), &mu).unwrap();
            assert!(rel(&lo, &hi) < 3e-15, "|w| = {switch}: {:.2e}", rel(&lo, &hi));
            let lo = Se3.dtau_inv_transpose(Chart::Exp, &x_of(below, v), &mu).unwrap();
            let hi = Se3.dtau_inv_transpose(Chart::Exp, &x_of(at, v), &mu).unwrap();
            assert!((lo - hi).amax() < 3e-15 * hi.amax(), "|w| = {switch}");
        }
    }
}

/// Outside the domain of `dexp^{-1}` (`|ω|` a nonzero multiple of 2π) both maps return an
/// error, never a panic or a non-finite value.
#[test]
fn exp_errors_outside_the_domain() {
    let mu = momenta()[0];
    for k in [1.0, 2.0, 3.0] {
        let x = x_of(along(2.0 * PI * k), Vector3::new(1.0, 2.0, 3.0));
        assert!(Se3.dtau_inv_transpose(Chart::Exp, &x, &mu).is_err(), "k = {k}");
        assert!(Se3.dtau_inv_transpose_derivative(Chart::Exp, &x, &mu).is_err(), "k = {k}");
        assert!(LieGroup::<f64, 6>::dtau_inv(&Se3, Chart::Exp, &x).is_err());
    }
    // the Cayley chart is defined everywhere
    let x = x_of(along(2.0 * PI), Vector3::new(1.0, 2.0, 3.0));
    assert!(Se3.dtau_inv_transpose_derivative(Chart::Cayley, &x, &mu).is_ok());
}

/// `dexp^{-1}` (lower-left block `D_ω J^{-1}(ω)[v]`, geom-core) is the inverse of `dexp` (lower-left
/// block Barfoot's `Q`, an independent formula), with its first derivatives: at
/// `DualSVec64<6>`, `dexp^{-1}_x dexp_x = I` in value and in all six derivative directions.
#[test]
fn dexp_inv_inverts_dexp_with_derivatives() {
    for (label, x) in points() {
        if x.fixed_rows::<3>(0).norm() > 2.0 * PI - 0.5 {
            continue; // dexp^{-1} grows like 1/(2π - |ω|)
        }
        let xd = Vector6::from_fn(|i, _| DualSVec64::<6>::from_re(x[i]).derivative(i));
        let inv = LieGroup::<DualSVec64<6>, 6>::dexp_inv(&Se3, &xd).unwrap();
        let fwd = LieGroup::<DualSVec64<6>, 6>::dexp(&Se3, &xd);
        let prod = inv * fwd;
        let scale = inv.map(|v| v.re).amax() * fwd.map(|v| v.re).amax();
        let value = (prod.map(|v| v.re) - Matrix6::identity()).amax();
        assert!(value < 1e-14 * scale, "{label}: {value:.2e}");
        let slope = prod.iter().map(|v| v.eps.unwrap_generic(Const::<6>, U1).amax()).fold(0.0, f64::max);
        assert!(slope < 1e-14 * scale * (1.0 + x.amax()), "{label}: derivative {slope:.2e}");
    }
}
