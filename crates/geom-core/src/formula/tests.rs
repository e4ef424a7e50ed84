use super::*;
use crate::function::{AutoDiff, PhaseSpaceDerivatives};
use nalgebra::SVector;
use num_dual::Dual64;

fn f(text: &str, vars: &[&str]) -> Formula {
    Formula::parse(text, vars, &[]).unwrap_or_else(|e| panic!("{e}"))
}

fn err(text: &str, vars: &[&str], params: &[(&str, f64)]) -> FormulaError {
    Formula::parse(text, vars, params).expect_err(text)
}

/// Precedence and associativity, against the same expression written in Rust.
#[test]
fn precedence_and_associativity() {
    let (x, y) = (1.7f64, -0.6f64);
    let cases: [(&str, f64); 10] = [
        ("1 + 2*x - y/4", 1.0 + 2.0 * x - y / 4.0),
        ("-x^2", -(x * x)),
        ("2^3^2", 2f64.powf(9.0)),
        ("x**3 - 2*x*y", x.powi(3) - 2.0 * x * y),
        ("(x - y)*(x + y)/2", (x - y) * (x + y) / 2.0),
        ("x - y - 1", x - y - 1.0),
        ("x / y / 2", x / y / 2.0),
        ("sin(x)^2 + cos(x)^2", 1.0),
        ("atan2(y, x) + pow(x, 0.5)", y.atan2(x) + x.sqrt()),
        ("exp(ln(x)) + abs(y) + sqrt(4) + pi", x + 0.6 + 2.0 + core::f64::consts::PI),
    ];
    for (text, want) in cases {
        let got = f(text, &["x", "y"]).eval(&[x, y]);
        assert!((got - want).abs() < 1e-14 * want.abs().max(1.0), "{text}: {got} vs {want}");
    }
    // 1.5e-3 and .5 are numbers; e is not a constant (it is free for a parameter)
    assert_eq!(f("1.5e-3 + .5", &[]).eval::<f64>(&[]), 1.5e-3 + 0.5);
    assert_eq!(Formula::parse("e*x", &["x"], &[("e", 0.6)]).unwrap().eval(&[2.0]), 1.2);
}

/// Derivatives by AD of the parsed formula equal the hand derivatives, at first order (dual
/// numbers) and through a Hamiltonian's gradient and Hessian.
#[test]
fn derivatives_are_exact() {
    let g = f("x^3*sin(y) + exp(-x*y) + x^y", &["x", "y"]);
    let (x, y) = (1.3, 0.7);
    let dx = g.eval(&[Dual64::from_re(x).derivative(), Dual64::from_re(y)]).eps;
    let want = 3.0 * x * x * f64::sin(y) - y * f64::exp(-x * y) + y * x.powf(y - 1.0);
    assert!((dx - want).abs() < 1e-13, "{dx} vs {want}");
    let dy = g.eval(&[Dual64::from_re(x), Dual64::from_re(y).derivative()]).eps;
    let want = x.powi(3) * f64::cos(y) - x * f64::exp(-x * y) + x.powf(y) * x.ln();
    assert!((dy - want).abs() < 1e-13, "{dy} vs {want}");

    // Kepler: H = |p|²/2 − mu/|q|, ∇_q H = mu q/|q|³, ∇_p H = p
    let h = FormulaHamiltonian::<2>::parse(
        "0.5*(px^2 + py^2) - mu/sqrt(x^2 + y^2)",
        &["x", "y"],
        &["px", "py"],
        &[("mu", 1.5)],
    )
    .unwrap();
    let (q, p) = (SVector::from([0.4, -0.3]), SVector::from([0.1, 2.0]));
    let (hq, hp) = AutoDiff(&h).gradient(&q, &p);
    let r3 = q.norm().powi(3);
    assert!((hq - q * (1.5 / r3)).amax() < 1e-14 && (hp - p).amax() < 1e-15);
    assert!((AutoDiff(&h).value(&q, &p) - (0.5 * p.norm_squared() - 1.5 / q.norm())).abs() < 1e-15);
    assert!(h.uses_momenta());
}

/// Bad formulas: one error naming the column and the cause; no panic.
#[test]
fn bad_formulas_name_the_column() {
    let v = ["q", "p"];
    let e = err("0.5*p^2 + nu*q", &v, &[("mu", 1.0)]);
    assert_eq!(e.column, 11);
    assert!(e.message.contains("unknown name 'nu'") && e.message.contains("mu"), "{e}");
    let e = err("sin(q, p)", &v, &[]);
    assert_eq!(e.column, 1);
    assert!(e.message.contains("takes 1 argument"), "{e}");
    let e = err("atan2(q)", &v, &[]);
    assert!(e.message.contains("takes 2 argument"), "{e}");
    let e = err("(q + p", &v, &[]);
    assert_eq!(e.column, 7);
    assert!(e.message.contains("expected ')'"), "{e}");
    let e = err("q + * p", &v, &[]);
    assert_eq!(e.column, 5);
    let e = err("q $ p", &v, &[]);
    assert_eq!((e.column, e.message.as_str()), (3, "unexpected character '$'"));
    let e = err("q p", &v, &[]);
    assert_eq!(e.column, 3);
    let e = err("", &v, &[]);
    assert!(e.message.contains("empty"), "{e}");
    let e = err("sin q", &v, &[]);
    assert!(e.message.contains("expected '('"), "{e}");
    let e = err("q", &["q", "q"], &[]);
    assert!(e.message.contains("declared twice"), "{e}");
    let e = err("q*a", &["q"], &[("a", f64::NAN)]);
    assert!(e.message.contains("not finite"), "{e}");
    // the message names the formula and the column
    assert_eq!(e.to_string(), "parameter 'a' is not finite (NaN) at column 1 of 'q*a'");
    // a wrong number of variables for a Hamiltonian
    assert!(FormulaHamiltonian::<2>::parse("q", &["q"], &["p"], &[]).is_err());
    assert!(FormulaFunction::<2>::parse("q", &["q"], &[]).is_err());
}

/// Hostile sizes are refused, not overflowed: deep nesting, long chains, huge formulas.
#[test]
fn hostile_formulas_are_refused() {
    let deep = format!("{}q{}", "(".repeat(100_000), ")".repeat(100_000));
    assert!(err(&deep, &["q"], &[]).message.contains("nested"));
    let minus = format!("{}q", "-".repeat(100_000));
    assert!(err(&minus, &["q"], &[]).message.contains("nested"));
    let chain = vec!["q"; 2 * MAX_DEPTH].join("+");
    assert!(err(&chain, &["q"], &[]).message.contains("nested"));
    let chain = vec!["q"; MAX_DEPTH / 2].join("+");
    assert_eq!(f(&chain, &["q"]).eval(&[1.0]), (MAX_DEPTH / 2) as f64);
    let powers = format!("{}q", "q^".repeat(100_000));
    assert!(Formula::parse(&powers, &["q"], &[]).is_err());
    // a wide but shallow formula: many terms in a balanced tree stays under the node limit
    let wide = (0..50).map(|k| format!("({k}*q + {k}*q)")).collect::<Vec<_>>().join(" * 1 + ");
    assert!(Formula::parse(&wide, &["q"], &[]).is_ok());
}

/// Constants fold when parsed: the tree of `2*pi*x` has the constant `2π` and one variable.
#[test]
fn constants_fold() {
    let g = f("2*pi*x + 3^2", &["x"]);
    assert_eq!(g.nodes.len(), 5, "{:?}", g.nodes);
    assert_eq!(g.eval(&[1.0]), 2.0 * core::f64::consts::PI + 9.0);
    assert!(g.uses(0));
    assert!(!f("0*1 + 4", &["x"]).uses(0));
    // integer powers are powi (exact, negative bases allowed), others powf
    assert_eq!(f("x^3", &["x"]).eval(&[-2.0]), -8.0);
    assert!(f("x^0.5", &["x"]).eval(&[-2.0f64]).is_nan());
    let d = f("x^-2", &["x"]).eval(&[Dual64::from_re(2.0).derivative()]);
    assert_eq!((d.re, d.eps), (0.25, -0.25));
}

/// The compiled symbolic gradient and Hessian ([`PhaseSpaceDerivatives`] of a
/// [`FormulaHamiltonian`], [`ScalarDerivatives`] of a [`FormulaFunction`]) equal automatic
/// differentiation of the same formula to round-off, for every function and operator of the
/// language, at points including a kink of `abs` (where both take `sign(0) = 1`).
#[test]
fn symbolic_derivatives_equal_automatic_ones() {
    use crate::function::ScalarDerivatives;
    let texts = [
        "0.5*(p1^2 + p2^2) - 1/sqrt(q1^2 + q2^2)",
        "sin(q1)*cos(p2) + tan(q2/3) + asin(q1/4) + acos(p1/5) + atan(q1*p1)",
        "sinh(q1)*cosh(p2) + tanh(q2) + asinh(p1) + acosh(2 + q1^2) + atanh(q2/3)",
        "exp(q1 - p2) + ln(2 + p1^2) + cbrt(3 + q2) + abs(q1 - p1) + abs(q2)*p2",
        "(1.5 + q1^2)^(p1/2) + atan2(q1, p2) + pow(1 + q2^2, 0.7) + (q1 - p1)^3/(1 + p2^2) - (2 + q1)^-2",
        "-(-(q1*q2)) + 0*p1 + 1*p2 - 0 + q1*q1*q1 - q1^3 + p1/1",
    ];
    let points = [[0.3, -0.7, 0.4, 1.1], [-1.2, 0.0, 0.9, -0.5], [0.8, 1.3, -0.6, 0.2]];
    let close = |a: f64, b: f64, what: &str| {
        assert!((a - b).abs() <= 1e-13 * a.abs().max(b.abs()).max(1.0), "{what}: symbolic {a} vs AD {b}");
    };
    for text in texts {
        let h = FormulaHamiltonian::<2>::parse(text, &["q1", "q2"], &["p1", "p2"], &[]).unwrap();
        assert!(h.symbolic(), "{text}: compiled");
        let ad = AutoDiff(&h);
        for x in points {
            let (q, p) = (SVector::from([x[0], x[1]]), SVector::from([x[2], x[3]]));
            let what = format!("{text} at {x:?}");
            close(PhaseSpaceDerivatives::value(&h, &q, &p), ad.value(&q, &p), &what);
            let ((gq, gp), (aq, ap)) = (h.gradient(&q, &p), ad.gradient(&q, &p));
            for i in 0..2 {
                close(gq[i], aq[i], &format!("∂H/∂q{i} of {what}"));
                close(gp[i], ap[i], &format!("∂H/∂p{i} of {what}"));
            }
            let (s, a) = (h.hessian(&q, &p), ad.hessian(&q, &p));
            for (b, (m, n)) in [(&s.qq, &a.qq), (&s.qp, &a.qp), (&s.pp, &a.pp)].into_iter().enumerate() {
                for (u, v) in m.iter().zip(n.iter()) {
                    close(*u, *v, &format!("Hessian block {b} of {what}"));
                }
            }
        }
    }
    // a function of three variables: the upper triangle is unpacked into the symmetric matrix
    let f = FormulaFunction::<3>::parse("x*y^2*exp(z) + sin(x*z) - y/(1 + z^2)", &["x", "y", "z"], &[]).unwrap();
    assert!(f.symbolic());
    let x = SVector::from([0.4, -1.1, 0.7]);
    let ad = AutoDiff(&f);
    for (u, v) in f.gradient(&x).iter().zip(ad.gradient(&x).iter()) {
        close(*u, *v, "gradient of f(x, y, z)");
    }
    let (s, a) = (f.hessian(&x), ad.hessian(&x));
    for (u, v) in s.iter().zip(a.iter()) {
        close(*u, *v, "Hessian of f(x, y, z)");
    }
    assert_eq!(s, s.transpose());
}

/// Shared subexpressions are computed once: the gradient of `V = −1/r` needs a handful of
/// operations, not a copy of `r` per derivative, and a derivative that is a constant or a
/// variable compiles to nothing more.
#[test]
fn symbolic_derivatives_share_subexpressions() {
    use super::symbolic::Graph;
    let v = f("-1/sqrt(x^2 + y^2)", &["x", "y"]);
    let (mut g, root) = Graph::from_tree(&v.nodes);
    let before = g.nodes().len();
    let (dx, dy) = (g.derivative(root, 0), g.derivative(root, 1));
    assert_ne!(dx, dy);
    // x^2, y^2, the sum, sqrt, its quotient, then per derivative: 2x, 2x/(2 sqrt) …: a bounded
    // number of new nodes, far from a copy of the tree per variable and per use
    assert!(g.nodes().len() - before <= 16, "{} new nodes", g.nodes().len() - before);
    let t = f("0.5*(p^2)", &["p"]);
    let (mut g, root) = Graph::from_tree(&t.nodes);
    let d = g.derivative(root, 0);
    assert_eq!(g.nodes()[d], Node::Var(0), "d(p²/2)/dp simplifies to p");
}

/// A program with more live registers than the stack register files hold (80 distinct constants,
/// each with a register of its own) runs on the heap file and agrees with the tree and with AD.
#[test]
fn large_programs_agree_with_the_tree() {
    let text: Vec<String> = (1..=80).map(|k| format!("{}.{k}*sin(q1*{k}.5 + p1)", k + 1)).collect();
    let text = text.join(" + ") + " + q2^2.5*p2^2";
    let h = FormulaHamiltonian::<2>::parse(&text, &["q1", "q2"], &["p1", "p2"], &[]).unwrap();
    assert!(h.symbolic(), "compiled");
    let tree = f(&text, &["q1", "q2", "p1", "p2"]);
    let ad = AutoDiff(&h);
    let (q, p) = (SVector::from([0.3, 1.7]), SVector::from([-0.4, 0.9]));
    let value = PhaseSpaceDerivatives::value(&h, &q, &p);
    let want = tree.eval(&[0.3, 1.7, -0.4, 0.9]);
    assert!((value - want).abs() <= 1e-13 * want.abs(), "{value} vs {want}");
    let ((gq, gp), (aq, ap)) = (h.gradient(&q, &p), ad.gradient(&q, &p));
    for (u, v) in gq.iter().chain(gp.iter()).zip(aq.iter().chain(ap.iter())) {
        assert!((u - v).abs() <= 1e-12 * v.abs().max(1.0), "{u} vs {v}");
    }
}

/// A formula Lagrangian: its value and derivatives are those of the same formula read as
/// `(q, v)` (AD agrees), the Legendre transform `p = ∂L/∂v` and the energy `v·∂L/∂v − L` are
/// those of `L = ½(1 + q²)v² − q²/2` by hand, the inverse transform recovers `v`, and a
/// Lagrangian linear in `v` has no inverse (a typed error, no panic).
#[test]
fn a_lagrangian_formula_and_its_legendre_transform() {
    use super::FormulaLagrangian;
    let close = |a: f64, b: f64, what: &str| assert!((a - b).abs() <= 1e-14 * b.abs().max(1.0), "{what}: {a} vs {b}");
    let l = FormulaLagrangian::<1>::parse("0.5*(1 + x^2)*u^2 - 0.5*x^2", &["x"], &["u"], &[]).unwrap();
    assert!(l.uses_velocities());
    let (q, v) = (SVector::from([0.7]), SVector::from([-1.3]));
    let m = 1.0 + 0.7 * 0.7;
    close(PhaseSpaceDerivatives::value(&l, &q, &v), 0.5 * m * 1.69 - 0.5 * 0.49, "L");
    close(l.momentum(&q, &v)[0], -m * 1.3, "p = (1 + q²) v");
    close(l.mass_matrix(&q, &v)[(0, 0)], m, "∂²L/∂v²");
    close(l.energy(&q, &v), 0.5 * m * 1.69 + 0.5 * 0.49, "E = ½(1 + q²)v² + q²/2");
    let ((gq, gv), (aq, av)) = (l.gradient(&q, &v), AutoDiff(&l).gradient(&q, &v));
    close(gq[0], aq[0], "∂L/∂q");
    close(gv[0], av[0], "∂L/∂v");
    close(gq[0], 0.7 * 1.69 - 0.7, "∂L/∂q by hand");
    let p = l.momentum(&q, &v);
    let back = l.velocity(&q, &p, &SVector::zeros()).unwrap();
    assert!((back[0] - v[0]).abs() < 1e-14, "{back} vs {v}");
    // a non-quadratic L: Newton needs several iterations, and still recovers v
    let c = FormulaLagrangian::<2>::parse("cosh(a) + b^2 + a*y - x^2", &["x", "y"], &["a", "b"], &[]).unwrap();
    let (q, v) = (SVector::from([0.2, -0.5]), SVector::from([1.1, 0.4]));
    let back = c.velocity(&q, &c.momentum(&q, &v), &SVector::zeros()).unwrap();
    assert!((back - v).amax() < 1e-13, "{back} vs {v}");
    // wrong counts and a velocity named like a coordinate
    let e = FormulaLagrangian::<2>::parse("u^2", &["x", "y"], &["u"], &[]).unwrap_err();
    assert!(e.message.contains("1 velocities"), "{e}");
    let e = FormulaLagrangian::<1>::parse("x^2", &["x"], &["x"], &[]).unwrap_err();
    assert!(e.message.contains("declared twice"), "{e}");
    // linear in v: ∂²L/∂v² = 0, the Legendre map is not invertible
    let g = FormulaLagrangian::<1>::parse("x*u - x^2", &["x"], &["u"], &[]).unwrap();
    let err = g.velocity(&SVector::from([1.0]), &SVector::from([2.0]), &SVector::zeros()).unwrap_err();
    assert!(matches!(err, crate::GeomError::SingularMatrix { .. }), "{err}");
}
