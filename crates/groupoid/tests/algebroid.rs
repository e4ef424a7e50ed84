//! The Lie algebroids of the ready-made groupoids (docs/math.md §C.8.1–C.8.2): every one passes
//! the axioms (antisymmetry, Jacobi, Leibniz, anchor morphism) on random sections, and its
//! coordinate formulas agree with the derivatives of the groupoid itself. Negative controls: a
//! wrong structure constant, structure constants of the opposite sign, the left-action generator
//! as anchor (on `S² × so(3)` and on `G × g` of left multiplication), a bracket without its anchor
//! terms, and `TS²` with the structure functions of a coordinate frame are each rejected.

use geom_core::action::{
    Diagonal, LeftMultiplication, LinearAction, RightMultiplication, RigidMotion, RotationAction, SphereRotation,
    Translation,
};
use geom_core::lie::{Chart, LieGroup, Se2, Se3, So3};
use geom_core::{Result, Scalar};
use groupoid::algebroid::{
    LieAlgebroid, LocalSection, StructureFunctions, anchor_field, anchor_from_groupoid, check_algebroid,
    check_groupoid_algebroid, section_bracket, structure_constants, structure_from_groupoid,
};
use groupoid::lagrangian::{GroupoidFamily, GroupoidLift};
use groupoid::{ActionGroupoid, GroupAsGroupoid, LieGroupoid, PairGroupoid, PairOfGroup, SpherePair, TrivialAtiyah};
use nalgebra::{Matrix3, SMatrix, SVector, Vector1, Vector2, Vector3, Vector6};

/// Both checks pass with defects at round-off; returns the largest defect.
fn passes<Gd, const R: usize, const M: usize>(label: &str, gd: &Gd, x0: &<Gd as GroupoidFamily<R>>::Base<f64>) -> f64
where
    Gd: groupoid::lagrangian::AdGroupoid<R> + LieAlgebroid<R, M>,
{
    let mut worst = 0.0f64;
    for seed in [1, 2, 3] {
        let a = check_algebroid::<_, R, M>(gd, x0, seed).unwrap_or_else(|e| panic!("{label}: {e}"));
        let g = check_groupoid_algebroid::<_, R, M>(gd, x0, seed).unwrap_or_else(|e| panic!("{label}: {e}"));
        worst = worst
            .max(a.antisymmetry)
            .max(a.jacobi)
            .max(a.leibniz)
            .max(a.anchor_morphism)
            .max(g.anchor)
            .max(g.structure);
    }
    assert!(worst < 1e-12, "{label}: largest defect {worst:e}");
    worst
}

#[test]
fn every_ready_made_algebroid_passes_the_axioms_and_matches_its_groupoid() {
    let r0 = so3(0.3, -0.2, 0.5);
    passes::<_, 3, 3>("pair R^3", &PairGroupoid::<3>, &Vector3::new(0.5, -1.0, 2.0));
    for chart in [Chart::Exp, Chart::Cayley] {
        passes::<_, 3, 3>("pair SO(3)", &PairOfGroup::new(So3, chart), &r0);
        passes::<_, 6, 6>(
            "pair SE(3)",
            &PairOfGroup::new(Se3, chart),
            &LieGroup::<f64, 6>::exp(&Se3, &SVector::from([0.1, 0.2, -0.3, 1.0, 0.5, -2.0])),
        );
        passes::<_, 3, 0>("SO(3) over a point", &GroupAsGroupoid::new(So3, chart), &());
        passes::<_, 6, 0>("SE(3) over a point", &GroupAsGroupoid::new(Se3, chart), &());
        passes::<_, 3, 2>(
            "S^2 x SO(3) (heavy top)",
            &ActionGroupoid::new(SphereRotation, chart),
            &Vector3::new(0.3, -0.2, 0.9).normalize(),
        );
        passes::<_, 3, 3>("R^3 x SO(3)", &ActionGroupoid::new(RotationAction, chart), &Vector3::new(0.3, -1.2, 0.5));
        passes::<_, 6, 3>("R^3 x SE(3)", &ActionGroupoid::new(RigidMotion, chart), &Vector3::new(1.0, 0.2, -0.4));
        passes::<_, 5, 2>("(R^2 x R^2) x SO(3)", &TrivialAtiyah::<So3, 2, 3>::new(So3, chart), &Vector2::new(0.1, 0.7));
        passes::<_, 4, 1>("(R x R) x SE(2)", &TrivialAtiyah::<Se2, 1, 3>::new(Se2, chart), &Vector1::new(-0.4));
    }
    passes::<_, 2, 2>(
        "R^2 x R^2 (translation)",
        &ActionGroupoid::new(Translation::<2>, Chart::Exp),
        &Vector2::new(1.0, 2.0),
    );
    passes::<_, 4, 2>("R^2 x GL(2)", &ActionGroupoid::new(LinearAction::<2, 4>, Chart::Exp), &Vector2::new(0.7, -0.3));
}

/// The anchor of the algebroid (not the inherent `ActionGroupoid::anchor`) at `φ_{x_0}(u)`.
fn anchor_at<A: LieAlgebroid<R, M>, const R: usize, const M: usize>(
    alg: &A,
    x0: &A::Base<f64>,
    u: &SVector<f64, M>,
) -> SMatrix<f64, M, R> {
    alg.anchor(x0, u).expect("anchor")
}

fn so3(x: f64, y: f64, z: f64) -> Matrix3<f64> {
    geom_core::lie::so3::exp(&Vector3::new(x, y, z))
}

/// Base points of `S²` with the frame axis `k` (smallest `|x_k|`) 0, 1, 2, and the pole `z`,
/// where the axis switches between 0 and 1 inside the chart.
fn sphere_points() -> [Vector3<f64>; 5] {
    [
        Vector3::new(0.1, 0.6, 0.8).normalize(),
        Vector3::new(0.7, -0.1, -0.7).normalize(),
        Vector3::new(-0.5, 0.8, 0.05).normalize(),
        Vector3::new(0.3, -0.2, 0.9).normalize(),
        Vector3::z(),
    ]
}

#[test]
fn sphere_pair_algebroid_is_ts2_in_the_moving_frame_of_its_fibre_chart() -> Result<()> {
    for x0 in sphere_points() {
        passes::<_, 2, 2>("S^2 x S^2", &SpherePair, &x0);
        // at the centre of the chart the frame E(x_0) is the chart's coordinate frame: ρ(0) = I
        let rho0 = SpherePair.anchor::<f64>(&x0, &Vector2::zeros())?;
        assert!((rho0 - SMatrix::<f64, 2, 2>::identity()).norm() < 1e-15, "{rho0}");
    }
    // away from the centre it is not (the groupoid agrees: `passes` compared it with Tβ)
    let x0 = sphere_points()[0];
    let u = Vector2::new(0.1, -0.15);
    let rho = SpherePair.anchor::<f64>(&x0, &u)?;
    assert!((rho - SMatrix::<f64, 2, 2>::identity()).norm() > 1e-2, "{rho}");
    assert!((rho - anchor_from_groupoid::<_, 2, 2>(&SpherePair, &x0, &u)?).norm() < 1e-14);
    // [E_1, E_2] = −cot θ E_1 with cos θ = x_k: at x_0 = N(0.1, 0.6, 0.8), k = 0
    let cot = x0[0] / (x0[1] * x0[1] + x0[2] * x0[2]).sqrt();
    let c = structure_from_groupoid::<_, 2>(&SpherePair, &x0)?;
    assert!(cot > 0.09);
    assert!((c[0][(0, 1)] + cot).abs() < 1e-14 && (c[0][(1, 0)] - cot).abs() < 1e-14, "{c:?}");
    assert!(c[1].amax() < 1e-14 && c[0][(0, 0)].abs() < 1e-14 && c[0][(1, 1)].abs() < 1e-14, "{c:?}");
    let c = SpherePair.structure::<f64>(&x0, &Vector2::zeros())?;
    assert!((c[0][(0, 1)] + cot).abs() < 1e-15);
    // the bracket of the basis sections themselves: [e_1, e_2] = C^c_12 e_c at a point off-centre
    let b = section_bracket(&SpherePair, &x0, &Constant::<2, 2>(Vector2::x()), &Constant::<2, 2>(Vector2::y()), &u)?;
    let c = structure_from_groupoid::<_, 2>(&SpherePair, &SpherePair.base_chart::<f64>(&x0, &u))?;
    assert!((b - Vector2::new(c[0][(0, 1)], c[1][(0, 1)])).norm() < 1e-14, "{b}");
    Ok(())
}

#[test]
fn multiplication_action_algebroids_pass_and_match_their_groupoids() -> Result<()> {
    let rotations = [Matrix3::identity(), so3(0.3, -0.2, 0.5), so3(-1.2, 0.4, 2.0)];
    let se3 = |v: [f64; 6]| LieGroup::<f64, 6>::exp(&Se3, &SVector::from(v));
    let motions = [se3([0.0; 6]), se3([0.1, 0.2, -0.3, 1.0, 0.5, -2.0]), se3([-0.8, 1.1, 0.4, -0.3, 2.0, 0.7])];
    let se2 = |v: [f64; 3]| LieGroup::<f64, 3>::exp(&Se2, &Vector3::from(v));
    let planar = [se2([0.0; 3]), se2([0.7, 1.0, -0.5]), se2([-2.0, 0.3, 1.5])];
    for chart in [Chart::Exp, Chart::Cayley] {
        let (left, right) = (
            ActionGroupoid::new(LeftMultiplication::new(So3), chart),
            ActionGroupoid::new(RightMultiplication::new(So3), chart),
        );
        for x0 in &rotations {
            passes::<_, 3, 3>("SO(3) x so(3) (left multiplication)", &left, x0);
            passes::<_, 3, 3>("SO(3) x so(3) (right multiplication)", &right, x0);
            // left: ρ(0) = −Ad_{x_0^{-1}} = −x_0ᵀ (the right-invariant field −ξ x_0)
            let rho = anchor_at(&left, x0, &Vector3::zeros());
            assert!((rho + x0.transpose()).norm() < 1e-15, "{rho}");
            // right: the algebroid of the pair groupoid SO(3) x SO(3), ρ(u) = (dτ_{−u})^{-1}
            let u = Vector3::new(0.1, -0.05, 0.12);
            let pair = PairOfGroup::new(So3, chart);
            assert!((anchor_at(&right, x0, &u) - anchor_at(&pair, x0, &u)).norm() < 1e-15);
            // and ρ_left(u) = −ρ_right(u) Ad_{x^{-1}}, x = x_0 τ(u)
            let x = right.base_chart::<f64>(x0, &u);
            assert!((anchor_at(&left, x0, &u) + anchor_at(&right, x0, &u) * x.transpose()).norm() < 1e-14);
        }
        for x0 in &motions {
            passes::<_, 6, 6>(
                "SE(3) x se(3) (left multiplication)",
                &ActionGroupoid::new(LeftMultiplication::new(Se3), chart),
                x0,
            );
            passes::<_, 6, 6>(
                "SE(3) x se(3) (right multiplication)",
                &ActionGroupoid::new(RightMultiplication::new(Se3), chart),
                x0,
            );
        }
        for x0 in &planar {
            passes::<_, 3, 3>(
                "SE(2) x se(2) (left multiplication)",
                &ActionGroupoid::new(LeftMultiplication::new(Se2), chart),
                x0,
            );
            passes::<_, 3, 3>(
                "SE(2) x se(2) (right multiplication)",
                &ActionGroupoid::new(RightMultiplication::new(Se2), chart),
                x0,
            );
        }
    }
    Ok(())
}

#[test]
fn diagonal_rotation_algebroid_passes_and_stacks_the_one_particle_anchor() -> Result<()> {
    let q = Vector6::new(0.3, -1.2, 0.5, 1.0, 0.2, -0.4);
    let q3 = SVector::<f64, 9>::from([0.3, -1.2, 0.5, 1.0, 0.2, -0.4, -0.7, 0.9, 1.3]);
    for chart in [Chart::Exp, Chart::Cayley] {
        let two = ActionGroupoid::new(Diagonal::<_, 3, 2, 6>::new(RotationAction), chart);
        passes::<_, 3, 6>("(R^3)^2 x so(3)", &two, &q);
        passes::<_, 3, 9>(
            "(R^3)^3 x so(3)",
            &ActionGroupoid::new(Diagonal::<_, 3, 3, 9>::new(RotationAction), chart),
            &q3,
        );
        // ρ(e_a)(q_1, q_2) = (−e_a × q_1, −e_a × q_2): the one-particle anchors stacked
        let one = ActionGroupoid::new(RotationAction, chart);
        let u = Vector6::new(0.05, -0.1, 0.02, 0.1, 0.0, -0.07);
        let rho = anchor_at(&two, &q, &u);
        for k in 0..2 {
            let qk: Vector3<f64> = q.fixed_rows::<3>(3 * k).into();
            let uk: Vector3<f64> = u.fixed_rows::<3>(3 * k).into();
            let block = anchor_at(&one, &qk, &uk);
            assert!((rho.fixed_rows::<3>(3 * k) - block).norm() < 1e-15);
            let x = qk + uk;
            assert!((block.column(2) - Vector3::new(x[1], -x[0], 0.0)).norm() < 1e-15, "−e_3 × x");
        }
    }
    Ok(())
}

struct Constant<const R: usize, const M: usize>(SVector<f64, R>);
impl<const R: usize, const M: usize> LocalSection<R, M> for Constant<R, M> {
    fn eval<S: Scalar>(&self, _u: &SVector<S, M>) -> SVector<S, R> {
        self.0.map(S::from)
    }
}

/// `X = (u_2, u_1 u_3, 1)` and `Y = (u_1², 0, u_2)` on `TR^3`.
struct Xs;
impl LocalSection<3, 3> for Xs {
    fn eval<S: Scalar>(&self, u: &SVector<S, 3>) -> SVector<S, 3> {
        SVector::from([u[1], u[0] * u[2], S::from(1.0)])
    }
}
struct Ys;
impl LocalSection<3, 3> for Ys {
    fn eval<S: Scalar>(&self, u: &SVector<S, 3>) -> SVector<S, 3> {
        SVector::from([u[0] * u[0], S::from(0.0), u[1]])
    }
}

#[test]
fn brackets_agree_with_closed_forms() -> Result<()> {
    // TR^3: the bracket of vector fields, [X, Y] = DY X − DX Y, by hand:
    // DY X = (2u_1 u_2, 0, u_1 u_3), DX Y = (0, u_3 u_1² + u_1 u_2, 0)
    let x0 = Vector3::new(0.3, -0.4, 1.1);
    let u = Vector3::new(0.1, 0.2, -0.3);
    let q = x0 + u;
    let expected = Vector3::new(2.0 * q[0] * q[1], -(q[2] * q[0] * q[0] + q[0] * q[1]), q[0] * q[2]);
    // sections are written in the chart coordinates u, with x = x0 + u
    struct Shift<T>(T, Vector3<f64>);
    impl<T: LocalSection<3, 3>> LocalSection<3, 3> for Shift<T> {
        fn eval<S: Scalar>(&self, u: &SVector<S, 3>) -> SVector<S, 3> {
            self.0.eval(&(u + self.1.map(S::from)))
        }
    }
    let b = section_bracket(&PairGroupoid::<3>, &x0, &Shift(Xs, x0), &Shift(Ys, x0), &u)?;
    assert!((b - expected).norm() < 1e-14, "{b} vs {expected}");

    // so(3): [e_1, e_2] = e_3 (geom_core::lie: [x, y] = x × y), C^c_ab = ε_abc
    let gd = GroupAsGroupoid::new(So3, Chart::Cayley);
    let (e1, e2) = (Constant::<3, 0>(Vector3::x()), Constant::<3, 0>(Vector3::y()));
    let b = section_bracket(&gd, &(), &e1, &e2, &SVector::<f64, 0>::zeros())?;
    assert!((b - Vector3::z()).norm() < 1e-15);
    let c = structure_constants::<f64, _, 3>(&So3);
    assert_eq!((c[2][(0, 1)], c[2][(1, 0)], c[0][(1, 2)], c[1][(2, 0)]), (1.0, -1.0, 1.0, 1.0));

    // heavy top: at x0 the anchor of ξ is ξ_M(x0) = −ξ × x0 = x0 × ξ, read in the frame E(x0)
    let top = ActionGroupoid::new(SphereRotation, Chart::Exp);
    let x0 = Vector3::new(0.3, -0.2, 0.9).normalize();
    let xi = Vector3::new(0.2, 0.5, -0.3);
    let rho = anchor_field(&top, &x0, &Constant::<3, 2>(xi), &Vector2::zeros())?;
    let (f1, f2) = groupoid::SpherePair::frame(&x0);
    let w = x0.cross(&xi);
    assert!((rho - Vector2::new(w.dot(&f1), w.dot(&f2))).norm() < 1e-15);
    // constant sections of an action algebroid bracket like the algebra: [e_1, e_2] = e_3
    let b = section_bracket(
        &top,
        &x0,
        &Constant::<3, 2>(Vector3::x()),
        &Constant::<3, 2>(Vector3::y()),
        &Vector2::new(0.05, -0.1),
    )?;
    assert!((b - Vector3::z()).norm() < 1e-15);
    Ok(())
}

/// An algebroid that delegates to a groupoid's, except for its structure functions or anchor.
#[derive(Debug, Clone, Copy)]
struct Altered<Gd> {
    inner: Gd,
    kind: Alteration,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Alteration {
    /// `[e_1, e_2] = e_3 + e_1` instead of `e_3`.
    OneConstant,
    /// `C → −C` (still a Lie algebra, the opposite one).
    OppositeAlgebra,
    /// `ρ → −ρ`: the generator of the left action.
    LeftGenerator,
    /// the bracket `C^c_ab X^a Y^b` without the anchor terms.
    NoAnchorTerms,
    /// `C = 0` with the anchor kept.
    ZeroStructure,
    /// `ρ = [δ^i_a]`, `C = 0`: the algebroid of a coordinate frame.
    CoordinateFrame,
}

impl<S: Scalar, Gd: LieGroupoid<S, R>, const R: usize> LieGroupoid<S, R> for Altered<Gd> {
    type Element = Gd::Element;
    type Base = Gd::Base;
    fn name(&self) -> String {
        format!("altered {}", self.inner.name())
    }
    fn source(&self, g: &Self::Element) -> Self::Base {
        self.inner.source(g)
    }
    fn target(&self, g: &Self::Element) -> Self::Base {
        self.inner.target(g)
    }
    fn identity(&self, x: &Self::Base) -> Self::Element {
        self.inner.identity(x)
    }
    fn inverse(&self, g: &Self::Element) -> Self::Element {
        self.inner.inverse(g)
    }
    fn multiply(&self, g: &Self::Element, h: &Self::Element) -> Self::Element {
        self.inner.multiply(g, h)
    }
    fn base_distance(&self, a: &Self::Base, b: &Self::Base) -> f64 {
        self.inner.base_distance(a, b)
    }
    fn fibre_exp(&self, x: &Self::Base, xi: &SVector<S, R>) -> Self::Element {
        self.inner.fibre_exp(x, xi)
    }
    fn fibre_log(&self, g: &Self::Element) -> Result<SVector<S, R>> {
        self.inner.fibre_log(g)
    }
}
impl<Gd: GroupoidFamily<R>, const R: usize> GroupoidFamily<R> for Altered<Gd> {
    type Element<S: Scalar> = Gd::Element<S>;
    type Base<S: Scalar> = Gd::Base<S>;
}
impl<S: Scalar, Gd: GroupoidLift<S, R>, const R: usize> GroupoidLift<S, R> for Altered<Gd> {
    fn lift(&self, g: &<Gd as GroupoidFamily<R>>::Element<f64>) -> <Gd as GroupoidFamily<R>>::Element<S> {
        self.inner.lift(g)
    }
    fn lift_base(&self, x: &<Gd as GroupoidFamily<R>>::Base<f64>) -> <Gd as GroupoidFamily<R>>::Base<S> {
        self.inner.lift_base(x)
    }
}
impl<Gd: LieAlgebroid<R, M>, const R: usize, const M: usize> LieAlgebroid<R, M> for Altered<Gd> {
    fn algebroid_name(&self) -> String {
        format!("{:?} {}", self.kind, self.inner.algebroid_name())
    }
    fn base_chart<S: Scalar>(&self, x0: &Gd::Base<f64>, u: &SVector<S, M>) -> Gd::Base<S> {
        self.inner.base_chart(x0, u)
    }
    fn base_chart_inv<S: Scalar>(&self, x0: &Gd::Base<f64>, x: &Gd::Base<S>) -> Result<SVector<S, M>> {
        self.inner.base_chart_inv(x0, x)
    }
    fn anchor<S: Scalar>(&self, x0: &Gd::Base<f64>, u: &SVector<S, M>) -> Result<SMatrix<S, M, R>> {
        let rho = self.inner.anchor(x0, u)?;
        Ok(match self.kind {
            Alteration::LeftGenerator => -rho,
            Alteration::CoordinateFrame => SMatrix::from_fn(|i, a| if i == a { S::from(1.0) } else { S::from(0.0) }),
            _ => rho,
        })
    }
    fn structure<S: Scalar>(&self, x0: &Gd::Base<f64>, u: &SVector<S, M>) -> Result<StructureFunctions<S, R>> {
        let mut c = self.inner.structure(x0, u)?;
        match self.kind {
            Alteration::OneConstant => {
                c[0][(0, 1)] += S::from(1.0);
                c[0][(1, 0)] -= S::from(1.0);
            }
            Alteration::OppositeAlgebra => c.iter_mut().for_each(|m| *m = -*m),
            Alteration::ZeroStructure | Alteration::CoordinateFrame => c = [SMatrix::zeros(); R],
            _ => {}
        }
        Ok(c)
    }
    fn bracket<S: Scalar>(
        &self,
        x0: &Gd::Base<f64>,
        u: &SVector<S, M>,
        x: &SVector<S, R>,
        dx: &SMatrix<S, R, M>,
        y: &SVector<S, R>,
        dy: &SMatrix<S, R, M>,
    ) -> Result<SVector<S, R>> {
        if self.kind != Alteration::NoAnchorTerms {
            let rho = self.anchor(x0, u)?;
            let c = self.structure(x0, u)?;
            return Ok(groupoid::algebroid::bracket_formula(&rho, &c, x, dx, y, dy));
        }
        let c = self.structure(x0, u)?;
        Ok(SVector::from_fn(|k, _| x.dot(&(c[k] * y))))
    }
}

fn reason(e: geom_core::GeomError) -> String {
    match e {
        geom_core::GeomError::InvalidParameter { reason, .. } => reason,
        other => panic!("expected InvalidParameter, got {other}"),
    }
}

#[test]
fn wrong_algebroids_are_rejected() {
    let so3_point = GroupAsGroupoid::new(So3, Chart::Exp);
    // [e_1, e_2] = e_3 + e_1 breaks Jacobi: [e_3, [e_1, e_2]] = [e_3, e_1] = e_2 ≠ 0
    let one = Altered { inner: so3_point, kind: Alteration::OneConstant };
    let e = check_algebroid::<_, 3, 0>(&one, &(), 1).unwrap_err();
    assert!(reason(e).contains("Jacobi"));
    let e = check_groupoid_algebroid::<_, 3, 0>(&one, &(), 1).unwrap_err();
    assert!(reason(e).contains("structure functions"));

    // the opposite algebra satisfies the axioms; only the groupoid can tell it is the wrong one
    let opposite = Altered { inner: so3_point, kind: Alteration::OppositeAlgebra };
    assert!(check_algebroid::<_, 3, 0>(&opposite, &(), 1).is_ok());
    let e = check_groupoid_algebroid::<_, 3, 0>(&opposite, &(), 1).unwrap_err();
    assert!(reason(e).contains("structure functions"));
    let c = structure_from_groupoid::<_, 3>(&so3_point, &()).unwrap();
    assert!((c[2][(0, 1)] - 1.0).abs() < 1e-14, "[e_1, e_2] = +e_3 in the left-invariant convention");

    // the left action's generator as anchor is an anti-morphism
    let top = ActionGroupoid::new(SphereRotation, Chart::Exp);
    let x0 = Vector3::new(0.3, -0.2, 0.9).normalize();
    let left = Altered { inner: top, kind: Alteration::LeftGenerator };
    let e = check_algebroid::<_, 3, 2>(&left, &x0, 1).unwrap_err();
    assert!(reason(e).contains("anchor morphism"));
    let e = check_groupoid_algebroid::<_, 3, 2>(&left, &x0, 1).unwrap_err();
    assert!(reason(e).contains("anchor"));

    // a bracket without ρ(X)(Y) − ρ(Y)(X) violates Leibniz on TR^2
    let pair = Altered { inner: PairGroupoid::<2>, kind: Alteration::NoAnchorTerms };
    let e = check_algebroid::<_, 2, 2>(&pair, &Vector2::new(0.5, 0.5), 1).unwrap_err();
    assert!(reason(e).contains("Leibniz"));
    // and on the heavy top's algebroid
    let top_bad = Altered { inner: top, kind: Alteration::NoAnchorTerms };
    assert!(check_algebroid::<_, 3, 2>(&top_bad, &x0, 1).is_err());
}

#[test]
fn wrong_new_algebroids_are_rejected() {
    // G × g of left multiplication with the left-action generator +Ad_{x^{-1}} ξ as anchor: an
    // anti-morphism, on SO(3) and on SE(3)
    let x0 = so3(0.3, -0.2, 0.5);
    let left = Altered {
        inner: ActionGroupoid::new(LeftMultiplication::new(So3), Chart::Exp),
        kind: Alteration::LeftGenerator,
    };
    let e = check_algebroid::<_, 3, 3>(&left, &x0, 1).unwrap_err();
    assert!(reason(e).contains("anchor morphism"));
    let e = check_groupoid_algebroid::<_, 3, 3>(&left, &x0, 1).unwrap_err();
    assert!(reason(e).contains("anchor"));
    let m0 = LieGroup::<f64, 6>::exp(&Se3, &SVector::from([0.1, 0.2, -0.3, 1.0, 0.5, -2.0]));
    let left = Altered {
        inner: ActionGroupoid::new(LeftMultiplication::new(Se3), Chart::Cayley),
        kind: Alteration::LeftGenerator,
    };
    assert!(reason(check_algebroid::<_, 6, 6>(&left, &m0, 1).unwrap_err()).contains("anchor morphism"));

    // TS² with the moving frame's anchor but C = 0: the frame fields do not commute
    let x0 = sphere_points()[0];
    let zero = Altered { inner: SpherePair, kind: Alteration::ZeroStructure };
    let e = check_algebroid::<_, 2, 2>(&zero, &x0, 1).unwrap_err();
    assert!(reason(e).contains("anchor morphism"));
    let e = check_groupoid_algebroid::<_, 2, 2>(&zero, &x0, 1).unwrap_err();
    assert!(reason(e).contains("structure functions"));
    // ρ = I, C = 0 is a Lie algebroid (TR² in the chart), but not the one of the sphere's fibre chart
    let flat = Altered { inner: SpherePair, kind: Alteration::CoordinateFrame };
    assert!(check_algebroid::<_, 2, 2>(&flat, &x0, 1).is_ok());
    let e = check_groupoid_algebroid::<_, 2, 2>(&flat, &x0, 1).unwrap_err();
    assert!(reason(e).contains("structure functions"), "ρ(0) = I agrees, C(0) does not");
}
