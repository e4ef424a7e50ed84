//! The three state spaces of the catalogue; a problem's family selects the methods that apply.

/// The state space a problem lives on; it selects the methods that apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Family {
    /// Canonical Hamiltonian systems on `T*R^n` (`PhaseState<N>`).
    Canonical,
    /// Left-trivialized systems on `T*G` for a matrix Lie group (`LieState`).
    LieGroup,
    /// Discrete Lagrangian flows on a Lie groupoid, possibly constrained.
    Groupoid,
    /// An ordinary differential equation `ẏ = f(t, y)` on `R^n` with no structure the library
    /// knows of (a user's vector field): the explicit Runge–Kutta methods.
    Ode,
}

impl Family {
    /// The family's name as printed by `geomint list`.
    pub fn name(self) -> &'static str {
        match self {
            Family::Canonical => "canonical T*R^n",
            Family::LieGroup => "Lie group T*G",
            Family::Groupoid => "Lie groupoid",
            Family::Ode => "ODE on R^n",
        }
    }
}
