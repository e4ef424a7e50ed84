//! `geomint list`: the problem catalogue and the method registry, one line each.

use geomint::workbench::catalogue;
use geomint::workbench::methods;
use geomint::workbench::problem::Family;

/// Prints the catalogue (defaults, parameters, the methods that apply, with their order where a
/// problem's differs from the registry's) and the registry by family.
pub(crate) fn list() {
    // (method, problem, order) where a problem's order of a method differs from the registry's
    let mut overrides: Vec<(&str, &str, u32)> = Vec::new();
    say!("problems (geomint run PROBLEM …):");
    for e in catalogue::ENTRIES {
        let p = match (e.build)(&e.params.iter().map(|p| p.default).collect::<Vec<_>>()) {
            Ok(p) => p,
            Err(err) => {
                say!("  {:<22} (cannot build: {err})", e.name);
                continue;
            }
        };
        let (h, t) = p.defaults();
        say!("  {:<22} {} [{}; h = {h}, t-end = {t}]", e.name, p.summary(), p.family().name());
        for q in e.params {
            say!("  {:<22}   --param {}={} : {}", "", q.name, q.default, q.about);
        }
        // a method whose order on this problem is not the registry's says so (Problem::order_of)
        let names: Vec<String> = p
            .methods()
            .into_iter()
            .map(|m| match methods::find(m).map(|info| (info.order, p.order_of(info))) {
                Some((registry, here)) if registry != here => {
                    overrides.push((m, e.name, here));
                    format!("{m} (order {here} here)")
                }
                _ => m.to_string(),
            })
            .collect();
        say!("  {:<22}   methods: {}", "", names.join(", "));
    }
    say!(
        "  {:<22} a gravitational N-body system from a file: --system FILE (lines mass, x, y, z, vx, vy, vz)",
        catalogue::nbody::NAME
    );
    say!("  {:<22}   --param G=1 : gravitational constant G > 0", "");
    say!(
        "  {:<22} your Hamiltonian system from formulas: --system FILE.toml (H, or T and V; q, p, q0, p0; {} degrees of freedom; every T*R^n method), or your Lagrangian (L; q, v, q0, v0; del-midpoint)",
        catalogue::system::NAME,
        catalogue::system::DEGREES_TEXT
    );
    say!("\nmethods (--method NAME):");
    // the name column fits the longest name, with a space after it
    let width = methods::METHODS.iter().map(|m| m.name.len() + 1).max().unwrap_or(0).max(22);
    for family in [Family::Canonical, Family::LieGroup, Family::Groupoid] {
        say!("  [{}]", family.name());
        for m in methods::for_family(family) {
            let except: Vec<String> =
                overrides.iter().filter(|o| o.0 == m.name).map(|(_, p, o)| format!("{o} on {p}")).collect();
            let order =
                if except.is_empty() { m.order.to_string() } else { format!("{} ({})", m.order, except.join(", ")) };
            say!("  {:<width$} order {}, {:<20} {}", m.name, order, m.structure.label(), m.summary);
        }
    }
}
