//! Hostile inputs to the public pieces of the HP step (issue 31, item 6): the truncated
//! `dτ⁻¹` refuses NaN, ∞ and arguments where its polynomial overflows, and the HP step with the
//! SO(3) charts refuses a state whose chart argument overflows, the state untouched.

use crate::hp_common::heavy_top;
use discretization::OneStep;
use geom_core::GeomError;
use geom_core::lie::{Chart, So3};
use integrators::hp::{self, truncated_dtau_inv};
use nalgebra::Vector3;

#[test]
fn truncated_dtau_inv_refuses_nan_and_overflow() {
    for chart in [Chart::Exp, Chart::Cayley] {
        for q in [0, 1, 2, 4] {
            for bad in [f64::NAN, f64::INFINITY] {
                let r = truncated_dtau_inv(&So3, chart, &Vector3::new(0.1, bad, 0.0), q);
                assert!(matches!(r, Err(GeomError::NonFinite { .. })), "{chart:?} q = {q} {bad}: {r:?}");
            }
            // |x| = 1e200: the degree-q polynomial overflows for q >= 2 (entries ~ |x|^q)
            let r = truncated_dtau_inv(&So3, chart, &Vector3::new(1e200, 1.0, 0.0), q);
            if q >= 2 {
                assert!(matches!(r, Err(GeomError::OutsideDomain { .. })), "{chart:?} q = {q}: {r:?}");
            } else {
                assert!(r.unwrap().iter().all(|v: &f64| v.is_finite()), "{chart:?} q = {q}");
            }
            // an ordinary argument is unchanged by the checks
            assert!(truncated_dtau_inv(&So3, chart, &Vector3::new(0.1, -0.2, 0.3), q).is_ok());
        }
    }
}

#[test]
fn a_step_with_an_overflowing_state_is_refused_and_leaves_the_state_untouched() {
    let (top, s0) = heavy_top();
    for chart in [Chart::Exp, Chart::Cayley] {
        let sv = hp::stormer_verlet(So3, chart, top).unwrap();
        let mut s = s0;
        s.mu = Vector3::new(1e300, 0.0, 0.0);
        let copy = s;
        let r = sv.step(&mut s, 0.1);
        assert!(r.is_err(), "{chart:?}: {r:?}");
        assert_eq!(format!("{s:?}"), format!("{copy:?}"));
    }
}
