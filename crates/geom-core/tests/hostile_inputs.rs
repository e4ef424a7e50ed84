//! No silent wrong results from SO(3) (issue "reliability", item A): every `Result`-returning map
//! of `So3` returns a typed error for NaN, ±∞ and magnitudes whose squares overflow (`1e200`,
//! `1e300`), and the exponential (not a `Result`, by design) is documented and checked by the
//! chart `τ`, which is.

use geom_core::GeomError;
use geom_core::lie::{Chart, LieGroup, So3, so3};
use nalgebra::{Matrix3, Vector3};

const HOSTILE: [f64; 5] = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e200, 1e300];

fn vectors() -> Vec<Vector3<f64>> {
    HOSTILE.iter().flat_map(|&v| [Vector3::new(v, 0.0, 0.0), Vector3::new(0.3, v, -0.2), Vector3::repeat(v)]).collect()
}

fn is_typed(e: &GeomError) -> bool {
    matches!(e, GeomError::NonFinite { .. } | GeomError::OutsideDomain { .. } | GeomError::OffManifold { .. })
}

#[test]
fn so3_maps_of_the_algebra_return_errors_for_hostile_arguments() {
    let g = So3;
    for x in vectors() {
        let finite = x.iter().all(|v| v.is_finite());
        for (name, r) in [
            ("cayley", LieGroup::<f64, 3>::cayley(&g, &x).map(|_| ())),
            ("dcay", LieGroup::<f64, 3>::dcay(&g, &x).map(|_| ())),
            ("dexp_inv", LieGroup::<f64, 3>::dexp_inv(&g, &x).map(|_| ())),
            ("tau exp", LieGroup::<f64, 3>::tau(&g, Chart::Exp, &x).map(|_| ())),
            ("tau cayley", LieGroup::<f64, 3>::tau(&g, Chart::Cayley, &x).map(|_| ())),
            ("compose_tau exp", LieGroup::<f64, 3>::compose_tau(&g, Chart::Exp, &Matrix3::identity(), &x).map(|_| ())),
        ] {
            let e = r.expect_err(&format!("{name}({x:?}) returned Ok"));
            assert!(is_typed(&e), "{name}({x:?}): {e:?}");
            // NaN and ∞ are non-finite inputs; 1e200 and 1e300 are finite, their squares overflow
            assert_eq!(matches!(e, GeomError::NonFinite { .. }), !finite, "{name}({x:?}): {e:?}");
        }
        // the exponential is not a Result: NaN entries, as its documentation says (never a
        // finite wrong rotation)
        assert!(so3::exp(&x).iter().any(|v| v.is_nan()), "exp({x:?}) = {}", so3::exp(&x));
    }
}

#[test]
fn so3_maps_of_the_group_return_errors_for_hostile_matrices() {
    let g = So3;
    for v in HOSTILE {
        for m in [Matrix3::identity() * v, Matrix3::from_element(v), {
            let mut r = Matrix3::identity();
            r[(0, 1)] = v;
            r
        }] {
            let finite = m.iter().all(|x| x.is_finite());
            for (name, r) in [
                ("log", LieGroup::<f64, 3>::log(&g, &m)),
                ("cayley_inv", LieGroup::<f64, 3>::cayley_inv(&g, &m)),
                ("tau_inv exp", LieGroup::<f64, 3>::tau_inv(&g, Chart::Exp, &m)),
            ] {
                let e = r.expect_err(&format!("{name}({m:?}) returned Ok"));
                assert!(is_typed(&e), "{name}: {e:?}");
                assert_eq!(matches!(e, GeomError::NonFinite { .. }), !finite, "{name}({m:?}): {e:?}");
            }
        }
    }
}

/// The checks reject only what they must: rotations (entries within `[-1, 1]` up to rounding)
/// and arguments up to `|x| = 1e150` go through, with the same values as the free functions.
#[test]
fn so3_checks_pass_rotations_and_large_finite_arguments() {
    let g = So3;
    for x in [Vector3::new(0.3, -0.2, 0.1), Vector3::new(3.0, 1.0, -2.0), Vector3::new(1e150, 0.0, 0.0)] {
        let r = LieGroup::<f64, 3>::tau(&g, Chart::Exp, &x).unwrap();
        assert_eq!(r, so3::exp(&x));
        assert!(LieGroup::<f64, 3>::defect(&g, &r) < 1e-12, "exp({x:?})");
        assert_eq!(LieGroup::<f64, 3>::cayley(&g, &x).unwrap(), so3::cayley(&x));
        assert_eq!(LieGroup::<f64, 3>::log(&g, &r).unwrap(), so3::log(&r));
    }
}
