//! ns per call of the SO(3) and SE(3) maps of geom-core, each beside a reference in the same run:
//! nalgebra's own rotation exp/log where it has one, otherwise a hand-written specialised formula
//! of the same map (f64, no generics, no branches for dual numbers).
//!
//! Run: `cargo bench --bench lie_groups` (prints the ratio table at the end).

mod common;

use criterion::{Criterion, criterion_group};
use geom_core::lie::{LieGroup, Se3, So3, so3};
use nalgebra::{Matrix3, Matrix4, Rotation3, Vector3, Vector6};
use std::hint::black_box;

/// Hand-written f64 Cayley map on SO(3), the reference for `So3::cayley`.
fn cayley_ref(x: &Vector3<f64>) -> Matrix3<f64> {
    let (a, b, c) = (x[0], x[1], x[2]);
    let k = 4.0 / (4.0 + a * a + b * b + c * c);
    let h = Matrix3::new(0.0, -c, b, c, 0.0, -a, -b, a, 0.0);
    Matrix3::identity() + (h + h * h * 0.5) * k
}

/// Hand-written f64 `dexp^{-1}` on SO(3) (closed form, no series branch).
fn dexp_inv_ref(x: &Vector3<f64>) -> Matrix3<f64> {
    let t = x.norm_squared();
    let th = t.sqrt();
    let d = (1.0 - 0.5 * th / (0.5 * th).tan()) / t;
    let h = x.cross_matrix();
    Matrix3::identity() - h * 0.5 + h * h * d
}

fn bench(c: &mut Criterion) {
    let xs: Vec<Vector3<f64>> =
        (0..16).map(|i| Vector3::new(0.3 + 0.1 * i as f64, -0.7 + 0.05 * i as f64, 1.1 - 0.03 * i as f64)).collect();
    let rs: Vec<Matrix3<f64>> = xs.iter().map(so3::exp).collect();
    let rots: Vec<Rotation3<f64>> = rs.iter().map(|r| Rotation3::from_matrix_unchecked(*r)).collect();
    let x6: Vec<Vector6<f64>> = xs.iter().map(|w| Vector6::new(w[0], w[1], w[2], 0.5, -1.0, 2.0)).collect();
    let gs: Vec<Matrix4<f64>> = x6.iter().map(|x| LieGroup::<f64, 6>::exp(&Se3, x)).collect();

    let mut g = c.benchmark_group("so3_exp");
    g.bench_function("geomint", |b| b.iter(|| xs.iter().map(|x| so3::exp(black_box(x))).fold(0.0, |a, m| a + m[1])));
    g.bench_function("nalgebra", |b| {
        b.iter(|| xs.iter().map(|x| Rotation3::from_scaled_axis(*black_box(x))).fold(0.0, |a, m| a + m[(0, 1)]))
    });
    g.finish();

    let mut g = c.benchmark_group("so3_log");
    g.bench_function("geomint", |b| b.iter(|| rs.iter().map(|r| so3::log(black_box(r))).fold(0.0, |a, v| a + v[0])));
    g.bench_function("nalgebra", |b| {
        b.iter(|| rots.iter().map(|r| black_box(r).scaled_axis()).fold(0.0, |a, v| a + v[0]))
    });
    g.finish();

    let mut g = c.benchmark_group("so3_dexp_inv");
    g.bench_function("geomint", |b| {
        b.iter(|| {
            xs.iter().map(|x| LieGroup::<f64, 3>::dexp_inv(&So3, black_box(x)).unwrap()).fold(0.0, |a, m| a + m[1])
        })
    });
    g.bench_function("hand_written", |b| {
        b.iter(|| xs.iter().map(|x| dexp_inv_ref(black_box(x))).fold(0.0, |a, m| a + m[1]))
    });
    g.finish();

    let mut g = c.benchmark_group("so3_cayley");
    g.bench_function("geomint", |b| {
        b.iter(|| xs.iter().map(|x| LieGroup::<f64, 3>::cayley(&So3, black_box(x)).unwrap()).fold(0.0, |a, m| a + m[1]))
    });
    g.bench_function("hand_written", |b| {
        b.iter(|| xs.iter().map(|x| cayley_ref(black_box(x))).fold(0.0, |a, m| a + m[1]))
    });
    g.finish();

    // SE(3): nalgebra has no exp/log; the reference is nalgebra's rotation exp plus the
    // translation part V v written out by hand.
    let mut g = c.benchmark_group("se3_exp");
    g.bench_function("geomint", |b| {
        b.iter(|| x6.iter().map(|x| LieGroup::<f64, 6>::exp(&Se3, black_box(x))).fold(0.0, |a, m| a + m[(0, 3)]))
    });
    g.bench_function("nalgebra_rotation_plus_hand_V", |b| {
        b.iter(|| {
            x6.iter()
                .map(|x| {
                    let x = black_box(x);
                    let w = Vector3::new(x[0], x[1], x[2]);
                    let v = Vector3::new(x[3], x[4], x[5]);
                    let r = Rotation3::from_scaled_axis(w);
                    let t = w.norm_squared();
                    let th = t.sqrt();
                    let h = w.cross_matrix();
                    let vm = Matrix3::identity() + h * ((1.0 - th.cos()) / t) + h * h * ((th - th.sin()) / (t * th));
                    nalgebra::Isometry3::from_parts((vm * v).into(), r.into())
                })
                .fold(0.0, |a, m| a + m.translation.x)
        })
    });
    g.finish();

    let mut g = c.benchmark_group("se3_log");
    g.bench_function("geomint", |b| {
        b.iter(|| gs.iter().map(|m| LieGroup::<f64, 6>::log(&Se3, black_box(m)).unwrap()).fold(0.0, |a, v| a + v[3]))
    });
    g.bench_function("nalgebra_rotation_plus_hand_Vinv", |b| {
        b.iter(|| {
            gs.iter()
                .map(|m| {
                    let m = black_box(m);
                    let r = Rotation3::from_matrix_unchecked(m.fixed_view::<3, 3>(0, 0).into_owned());
                    let w = r.scaled_axis();
                    let p = m.fixed_view::<3, 1>(0, 3).into_owned();
                    let v = dexp_inv_ref(&w) * p;
                    Vector6::new(w[0], w[1], w[2], v[0], v[1], v[2])
                })
                .fold(0.0, |a, v| a + v[3])
        })
    });
    g.finish();

    let mut g = c.benchmark_group("se3_dexp_inv");
    g.bench_function("geomint", |b| {
        b.iter(|| {
            x6.iter().map(|x| LieGroup::<f64, 6>::dexp_inv(&Se3, black_box(x)).unwrap()).fold(0.0, |a, m| a + m[1])
        })
    });
    g.bench_function("generic_series", |b| {
        b.iter(|| {
            x6.iter()
                .map(|x| {
                    geom_core::lie::invert(
                        &geom_core::lie::dexp_series(&LieGroup::<f64, 6>::ad(&Se3, black_box(x))),
                        "",
                    )
                    .unwrap()
                })
                .fold(0.0, |a, m| a + m[1])
        })
    });
    g.finish();

    let mut g = c.benchmark_group("se3_cayley");
    g.bench_function("geomint", |b| {
        b.iter(|| {
            x6.iter().map(|x| LieGroup::<f64, 6>::cayley(&Se3, black_box(x)).unwrap()).fold(0.0, |a, m| a + m[(0, 3)])
        })
    });
    g.bench_function("matrix_formula", |b| {
        b.iter(|| {
            x6.iter()
                .map(|x| {
                    let m = LieGroup::<f64, 6>::hat(&Se3, black_box(x));
                    let i = Matrix4::identity();
                    (i - m * 0.5).try_inverse().unwrap() * (i + m * 0.5)
                })
                .fold(0.0, |a, m| a + m[(0, 3)])
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = bench
}

fn main() {
    benches();
    Criterion::default().final_summary();
    common::print_ratios(
        "geom-core Lie-group maps, 16 calls per iteration (ratio = geomint / reference; target <= 1.2 against nalgebra)",
        &[
            ("SO(3) exp vs nalgebra", "so3_exp", "geomint", "nalgebra"),
            ("SO(3) log vs nalgebra", "so3_log", "geomint", "nalgebra"),
            ("SO(3) dexp^-1 vs hand", "so3_dexp_inv", "geomint", "hand_written"),
            ("SO(3) Cayley vs hand", "so3_cayley", "geomint", "hand_written"),
            ("SE(3) exp vs nalgebra+V", "se3_exp", "geomint", "nalgebra_rotation_plus_hand_V"),
            ("SE(3) log vs nalgebra+V^-1", "se3_log", "geomint", "nalgebra_rotation_plus_hand_Vinv"),
            ("SE(3) dexp^-1 vs series", "se3_dexp_inv", "geomint", "generic_series"),
            ("SE(3) Cayley vs 4x4 formula", "se3_cayley", "geomint", "matrix_formula"),
        ],
    );
}
