//! The Lie algebroids of the ready-made groupoids (docs/math.md §C.8.1–C.8.2): every one passes
//! the axioms (antisymmetry, Jacobi, Leibniz, anchor morphism) on random sections, and its
//! coordinate formulas agree with the derivatives of the groupoid itself. Negative controls: a
//! wrong structure constant, structure constants of the opposite sign, the left-action generator
//! as anchor, and a bracket without its anchor terms are each rejected.

use geom_core::action::{LinearAction, RigidMotion, RotationAction, SphereRotation, Translation};
use geom_core::lie::{Chart, LieGroup, Se2, Se3, So3};
use geom_core::{Result, Scalar};
use groupoid::algebroid::{
    LieAlgebroid, LocalSection, StructureFunctions, anchor_field, check_algebroid, check_groupoid_algebroid,
    section_bracket, structure_constants, structure_from_groupoid,
};
use groupoid::lagrangian::{GroupoidFamily, GroupoidLift};
use groupoid::{ActionGroupoid, GroupAsGroupoid, LieGroupoid, PairGroupoid, PairOfGroup, TrivialAtiyah};
use nalgebra::{Matrix3, SMatrix, SVector, Vector1, Vector2, Vector3};

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

fn so3(x: f64, y: f64, z: f64) -> Matrix3<f64> {
    geom_core::lie::so3::exp(&Vector3::new(x, y, z))
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
        Ok(if self.kind == Alteration::LeftGenerator { -rho } else { rho })
    }
    fn structure<S: Scalar>(&self, x0: &Gd::Base<f64>, u: &SVector<S, M>) -> Result<StructureFunctions<S, R>> {
        let mut c = self.inner.structure(x0, u)?;
        match self.kind {
            Alteration::OneConstant => {
                c[0][(0, 1)] += S::from(1.0);
                c[0][(1, 0)] -= S::from(1.0);
            }
            Alteration::OppositeAlgebra => c.iter_mut().for_each(|m| *m = -*m),
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
