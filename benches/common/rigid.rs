//! Hand-written rigid-body references shared by the Lie-group benches: the heavy top's torque
//! and the Lee–Leok–McClamroch step on plain f64 with `nalgebra` fixed-size types.

use integrators::geom_core::newton::INTEGRATOR_TOL;
use nalgebra::{Matrix3, Vector3};

fn skew(x: &Vector3<f64>) -> Matrix3<f64> {
    Matrix3::new(0.0, -x[2], x[1], x[2], 0.0, -x[0], -x[1], x[0], 0.0)
}

/// The heavy top's torque `mgl Γ × χ`, `Γ = Rᵀe3`.
pub fn top_torque(r: &Matrix3<f64>, mgl: f64, chi: &Vector3<f64>) -> Vector3<f64> {
    Vector3::new(r[(2, 0)], r[(2, 1)], r[(2, 2)]).cross(chi) * mgl
}

/// The hand-written Lee–Leok–McClamroch step (integrators::lgvi's equations on plain f64):
/// `g = hΠ_k + (h²/2)M_k`, Newton on `Φ(f) = g + g×f + (g·f)f − 2Jf` (Jacobian
/// `ĝ + (g·f)I + fgᵀ − 2J`, `nalgebra`'s `try_inverse`, the same tests as geom-core's Newton)
/// from `f = ½J^{-1}g`, `F = cay(2f)`, `R_{k+1} = R_kF`, `Π_{k+1} = Fᵀ(Π_k + (h/2)M_k) + (h/2)M_{k+1}`.
pub fn hand_lgvi(
    inertia: &Matrix3<f64>,
    inertia_inv: &Matrix3<f64>,
    top: Option<(f64, &Vector3<f64>)>,
    r: &mut Matrix3<f64>,
    pi: &mut Vector3<f64>,
    h: f64,
) {
    let tol = INTEGRATOR_TOL;
    let moment = |r: &Matrix3<f64>| match top {
        Some((mgl, chi)) => top_torque(r, mgl, chi),
        None => Vector3::zeros(),
    };
    let kicked = *pi + moment(r) * (0.5 * h);
    let g = kicked * h;
    let scale = g.amax();
    let mut f = inertia_inv * g * 0.5;
    let gh = skew(&g);
    let mut previous: Option<f64> = None;
    for _ in 0..50 {
        let gf = g.dot(&f);
        let phi = g + g.cross(&f) + f * gf - inertia * f * 2.0;
        if phi.amax() <= tol * scale {
            break;
        }
        let j = gh + Matrix3::from_diagonal_element(gf) + f * g.transpose() - inertia * 2.0;
        let dx = -(j.try_inverse().expect("nonsingular") * phi);
        f += dx;
        if super::step_accepted(&mut previous, dx.amax(), f.amax(), tol) {
            break;
        }
    }
    let k = 1.0 / (1.0 + f.norm_squared());
    let sf = skew(&f);
    let big_f = Matrix3::identity() + (sf + sf * sf) * (2.0 * k);
    *r *= big_f;
    *pi = big_f.tr_mul(&kicked) + moment(r) * (0.5 * h);
}
