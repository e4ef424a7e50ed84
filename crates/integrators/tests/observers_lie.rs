//! Momentum-map observers on T*G states (left- and right-multiplication actions).

use discretization::LieState;
use geom_core::action::{LeftMultiplication, RightMultiplication};
use geom_core::lie::{LieGroup, So3};
use integrators::driver::{MomentumMap, Observer};
use nalgebra::Vector3;

#[test]
fn momentum_map_observers_on_lie_group_states() {
    let g = So3.exp(&Vector3::new(0.3, -0.5, 1.2));
    let mu = Vector3::new(0.7, -1.1, 2.0);
    let spatial = MomentumMap::new("e3·RΠ", LeftMultiplication::new(So3), Vector3::z());
    let body = MomentumMap::new("-Π_3", RightMultiplication::new(So3), Vector3::z());
    let s = LieState::new(g, mu);
    assert!((spatial.observe(&s) - (g * mu)[2]).abs() < 1e-15);
    assert_eq!(body.observe(&s), -mu[2]);
    assert_eq!(Observer::<LieState<_, 3>>::name(&body), "-Π_3");
}
