//! Quickstart: the geom-core layer in one page.
//!
//! * exp/log round trips on SO(3) and SE(3), and Cayley on SO(3), with the right-trivialized
//!   `dexp` checked against an exact AD derivative of `exp` (num-dual);
//! * the momentum map `J(q, p) = x × p` of the rotation action of SO(3) on R^3 (N particles,
//!   diagonal action) and its equivariance `J(T*Φ_g(q, p)) = Ad*_{g^{-1}} J(q, p)`;
//! * Newton's method with an AD Jacobian.
//!
//! Run: `cargo run --release --example quickstart`.

use geom_core::action::{Diagonal, GroupAction, RotationAction};
use geom_core::lie::{Chart, LieGroup, Se3, So3};
use geom_core::{GeomError, Scalar};
use nalgebra::{SVector, Vector3, Vector6};
use num_dual::Dual64;

fn main() -> Result<(), GeomError> {
    println!("geomint quickstart: geom-core (Lie groups, actions, momentum maps, Newton)\n");

    // --- SO(3) and SE(3): exp, log, Cayley, dexp against AD ------------------------------
    let x = Vector3::new(0.4, -1.3, 2.1);
    let r = So3.exp(&x);
    let so3_roundtrip = (So3.log(&r)? - x).norm();
    let so3_defect = LieGroup::<f64, 3>::defect(&So3, &r);
    let c = So3.cayley(&x)?;
    let cay_roundtrip = (So3.cayley_inv(&c)? - x).norm();

    let y = Vector3::new(0.3, 0.2, -0.5);
    // (D exp(x)·y) exp(x)^{-1} from dual numbers, against the closed-form dexp_x y
    let xd = SVector::<Dual64, 3>::from_fn(|i, _| Dual64::new(x[i], y[i]));
    let moved = So3.exp(&xd);
    let deriv = moved.map(|v| v.eps) * r.transpose();
    let dexp_err = (geom_core::lie::so3::vee(&deriv) - So3.dexp(&x) * y).norm();

    let xi = Vector6::new(0.4, -1.3, 2.1, 1.0, -2.0, 0.5);
    let g = Se3.exp(&xi);
    let se3_roundtrip = (Se3.log(&g)? - xi).norm();
    let dexp_inv_err = (Se3.dexp(&xi) * Se3.dexp_inv(&xi)? - nalgebra::Matrix6::identity()).norm();

    println!("Lie groups");
    println!("  SO(3)  |log(exp x) - x|                 = {so3_roundtrip:.2e}   (|x| = {:.2})", x.norm());
    println!("  SO(3)  |R^T R - I| + |det R - 1|        = {so3_defect:.2e}");
    println!("  SO(3)  |cay^-1(cay x) - x|              = {cay_roundtrip:.2e}");
    println!("  SO(3)  |dexp_x y - AD derivative|        = {dexp_err:.2e}");
    println!("  SE(3)  |log(exp x) - x|                 = {se3_roundtrip:.2e}");
    println!("  SE(3)  |dexp dexp^-1 - I|               = {dexp_inv_err:.2e}");
    for chart in [Chart::Exp, Chart::Cayley] {
        // tau(-x) = tau(x)^-1 and dtau_{-x} = Ad_{tau(-x)} dtau_x (docs/math.md §D.2)
        let t = So3.tau(chart, &x)?;
        let tm = So3.tau(chart, &(-x))?;
        let key = (So3.dtau(chart, &(-x))? - So3.adjoint(&tm) * So3.dtau(chart, &x)?).norm();
        println!(
            "  SO(3)  {:<6}: |tau(-x) tau(x) - I| = {:.2e}, |dtau_-x - Ad dtau_x| = {:.2e}",
            chart.name(),
            (tm * t - nalgebra::Matrix3::identity()).norm(),
            key
        );
    }

    // --- momentum map of rotations on 3 particles ---------------------------------------
    let action = Diagonal::<RotationAction, 3, 3, 9>::new(RotationAction);
    let q = SVector::<f64, 9>::from_column_slice(&[1.0, 0.0, 0.0, 0.0, 2.0, 0.5, -1.0, 0.3, 0.7]);
    let p = SVector::<f64, 9>::from_column_slice(&[0.0, 1.0, 0.2, -0.4, 0.0, 1.0, 0.3, -0.2, 0.1]);
    let j = action.momentum_map(&q, &p);
    let total_l: Vector3<f64> = (0..3)
        .map(|k| {
            Vector3::from_column_slice(&q.as_slice()[3 * k..3 * k + 3])
                .cross(&Vector3::from_column_slice(&p.as_slice()[3 * k..3 * k + 3]))
        })
        .sum();
    let gr = So3.exp(&Vector3::new(0.7, 0.1, -0.4));
    let (q2, p2) = action.cotangent_lift(&gr, &q, &p);
    let j2 = action.momentum_map(&q2, &p2);
    let equivariance = (j2 - So3.coadjoint(&So3.inverse(&gr), &j)).norm();
    println!("\nMomentum map of SO(3) acting diagonally on 3 particles in R^3");
    println!("  J(q, p)                                  = [{:.4}, {:.4}, {:.4}]", j[0], j[1], j[2]);
    println!("  |J - sum_k x_k × p_k|                    = {:.2e}", (j - total_l).norm());
    println!("  |J(T*Phi_g(q,p)) - Ad*_(g^-1) J(q,p)|    = {equivariance:.2e}");

    // --- Newton with an AD Jacobian: the rotation whose Cayley coordinates solve cay(x) e3 = n
    let target = Vector3::new(0.36, 0.48, 0.8);
    let residual = CayleyPointsTo { target };
    let opts = geom_core::newton::NewtonOptions::default();
    let (sol, report) = geom_core::newton::newton_ad(&residual, &Vector3::zeros(), &opts)?;
    println!("\nNewton (AD Jacobian): find x in R^3 (x3 = 0) with cay(x) e3 = n, |n| = 1");
    println!(
        "  converged in {} iterations, |F| = {:.2e}; |cay(x) e3 - n| = {:.2e}",
        report.iterations,
        report.residual,
        (So3.cayley(&sol)? * Vector3::z() - target).norm()
    );
    Ok(())
}

/// `F(x) = (cay(x) e3 - n)_{1,2}, x_3`: a 3 × 3 nonlinear system solved by Newton with AD.
struct CayleyPointsTo {
    target: Vector3<f64>,
}

impl geom_core::newton::Residual<3> for CayleyPointsTo {
    #[inline]
    fn eval<S: Scalar>(&self, x: &SVector<S, 3>) -> geom_core::Result<SVector<S, 3>> {
        let v = So3.cayley(x)? * Vector3::new(S::from(0.0), S::from(0.0), S::from(1.0));
        let n = self.target.map(S::from);
        Ok(Vector3::new(v[0] - n[0], v[1] - n[1], x[2]))
    }
}
