//! GL(n), the invertible `n × n` real matrices, with algebra gl(n) = all `n × n` matrices.
//!
//! Algebra coordinates are the column-major vectorisation `x = vec(X)`, `x[i + n j] = X_ij`, so
//! `D = n^2` (checked at compile time) and `hat`/`vee` reshape. With `vec(A X B) = (Bᵀ ⊗ A) vec X`:
//!
//! * `Ad_g = g^{-T} ⊗ g` (`vec(g X g^{-1})`), `ad_X = I ⊗ X - Xᵀ ⊗ I` (`vec(XY - YX)`).
//! * `exp` is the matrix exponential (scaling and squaring of a degree-18 Taylor polynomial);
//!   `log` the principal logarithm by inverse scaling and squaring: Denman–Beavers square roots
//!   until `|A - I|_F <= 1/4`, then the Gregory series `log A = 2 atanh(Z) = 2 sum Z^{2k+1}/(2k+1)`,
//!   `Z = (A - I)(A + I)^{-1}`, times `2^k`. It fails (an error) where no principal real log
//!   exists (an eigenvalue on the closed negative real axis) or the iteration does not converge.
//! * `dexp` and `dexp^{-1}` are the series of the trait (`dexp_x = sum ad^k/(k+1)!`).
//! * `cay(X) = (I - X/2)^{-1}(I + X/2)` (error if `I - X/2` is singular),
//!   `cay^{-1}(g) = 2 (g - I)(g + I)^{-1}` (error if `g + I` is singular),
//!   `dcay_X^{-1} = (I + X/2)ᵀ ⊗ (I - X/2)`, the coordinates of
//!   `Y ↦ (I - X/2) Y (I + X/2) = Y - [X, Y]/2 - X Y X/4`; `dcay` is its inverse (trait default).
//!
//! Elements are assumed invertible (as for every group, a caller's value is trusted; use
//! [`Gl::from_matrix`] or [`LieGroup::check_element`] to validate). `inverse` and `adjoint` of a
//! singular (or non-finite) matrix return a NaN-filled matrix, and `defect` is `+inf` there.
//! Every branch is taken on real parts only, so the maps are exact at dual numbers too.

use super::{LieGroup, MEMBERSHIP_TOLERANCE};
use crate::linalg::{Lu, invert};
use crate::{GeomError, Result, Scalar};
use nalgebra::{SMatrix, SVector};

/// Taylor degree of the exp core (`|X/2^s|_F <= 1/2`: truncation below `1e-21`).
const EXP_DEGREE: usize = 18;
/// Square roots are taken until `|A - I|_F` is at most this.
const LOG_RADIUS: f64 = 0.25;
/// Maximal number of square roots in `log`.
const MAX_SQRTS: usize = 64;
/// Maximal number of Denman–Beavers iterations per square root.
const MAX_DB: usize = 100;

/// Compile-time check `D == N^2` (evaluated when a method is monomorphised).
#[inline(always)]
const fn check_dims<const N: usize, const D: usize>() {
    const { assert!(D == N * N, "Gl<N, D> requires D = N * N") }
}

/// The Kronecker product `a ⊗ b` of two `n × n` matrices as an `n^2 × n^2` matrix
/// (`(a ⊗ b)[(p n + q), (r n + s)] = a_pr b_qs`).
pub(crate) fn kron<S: Scalar, const N: usize, const D: usize>(
    a: &SMatrix<S, N, N>,
    b: &SMatrix<S, N, N>,
) -> SMatrix<S, D, D> {
    check_dims::<N, D>();
    SMatrix::from_fn(|i, j| a[(i / N, j / N)] * b[(i % N, j % N)])
}

/// Frobenius norm of the real part.
#[inline]
fn re_norm<S: Scalar, const N: usize>(a: &SMatrix<S, N, N>) -> f64 {
    a.iter().map(|v| v.re() * v.re()).sum::<f64>().sqrt()
}

/// A matrix of NaN (the documented result of `inverse`/`adjoint` on a singular element).
#[inline]
fn nan<S: Scalar, const R: usize, const C: usize>() -> SMatrix<S, R, C> {
    SMatrix::from_element(S::from(f64::NAN))
}

/// The matrix exponential `e^X` by scaling and squaring: `e^X = (T_18(X/2^s))^{2^s}` with
/// `|X/2^s|_F <= 1/2` and `T_18` the Taylor polynomial of degree 18 (Horner). Accurate to
/// round-off; `s` is chosen from the real part only.
pub(crate) fn expm<S: Scalar, const N: usize>(x: &SMatrix<S, N, N>) -> SMatrix<S, N, N> {
    let norm = re_norm(x);
    let s = if norm > 0.5 && norm.is_finite() { ((norm / 0.5).log2().ceil() as i32).clamp(0, 1100) } else { 0 };
    let a = x * S::from(0.5f64.powi(s));
    let id = SMatrix::<S, N, N>::identity();
    // Horner: I + A(I + A/2 (I + A/3 (...)))
    let mut p = id;
    for k in (1..=EXP_DEGREE).rev() {
        p = id + a * p * S::from(1.0 / k as f64);
    }
    for _ in 0..s {
        p = p * p;
    }
    p
}

/// One principal square root by the Denman–Beavers iteration
/// `Y ← (Y + Z^{-1})/2`, `Z ← (Z + Y^{-1})/2`, `Y_0 = A`, `Z_0 = I` (`Y → A^{1/2}`). Converged when
/// the relative change of `Y` is below `1e-13` (or, below `1e-6`, stops decreasing: round-off),
/// after which two more steps settle the dual parts. With an eigenvalue on the negative real axis
/// the real iteration cannot converge: [`GeomError::NotConverged`] after `MAX_DB` steps.
fn sqrtm<S: Scalar, const N: usize>(a: &SMatrix<S, N, N>) -> Result<SMatrix<S, N, N>> {
    let mut y = *a;
    let mut z = SMatrix::<S, N, N>::identity();
    let half = S::from(0.5);
    let mut extra = 0;
    let mut prev = f64::INFINITY;
    let mut iterations = 0;
    while iterations < MAX_DB {
        iterations += 1;
        let yi = invert(&y, "Denman-Beavers square root")?;
        let zi = invert(&z, "Denman-Beavers square root")?;
        let y_next = (y + zi) * half;
        z = (z + yi) * half;
        let change = re_norm(&(y_next - y));
        y = y_next;
        let size = re_norm(&y);
        if !size.is_finite() {
            break;
        }
        let converged = change <= 1e-13 * size || (change <= 1e-6 * size && change >= prev);
        if extra > 0 || converged {
            extra += 1;
            if extra > 2 {
                return Ok(y);
            }
        }
        prev = change;
    }
    Err(GeomError::NotConverged { iterations, residual: re_norm(&(y * y - a)), step: prev })
}

/// The principal matrix logarithm (inverse scaling and squaring, see the module documentation);
/// [`GeomError::OutsideDomain`] or [`GeomError::NotConverged`] where it does not exist (an
/// eigenvalue on the closed negative real axis) or the iteration fails.
pub(crate) fn logm<S: Scalar, const N: usize>(g: &SMatrix<S, N, N>) -> Result<SMatrix<S, N, N>> {
    let outside = GeomError::OutsideDomain {
        map: "log on GL(n)",
        reason: "no principal real logarithm (an eigenvalue on the closed negative real axis)",
    };
    if !g.iter().all(|v| v.re().is_finite()) {
        return Err(GeomError::NonFinite { what: "GL(n) element" });
    }
    let id = SMatrix::<S, N, N>::identity();
    let mut a = *g;
    let mut k = 0;
    while re_norm(&(a - id)) > LOG_RADIUS {
        if k == MAX_SQRTS {
            return Err(outside);
        }
        a = sqrtm(&a).map_err(|e| match e {
            GeomError::SingularMatrix { .. } => outside.clone(),
            other => other,
        })?;
        k += 1;
    }
    let z = (a - id) * invert(&(a + id), "log on GL(n)")?;
    let z2 = z * z;
    let mut power = z;
    let mut sum = z;
    for j in 1..40 {
        power *= z2;
        let term = power * S::from(1.0 / (2 * j + 1) as f64);
        sum += term;
        if re_norm(&term) <= 1e-18 * re_norm(&sum) {
            break;
        }
    }
    let log = sum * S::from(2.0f64.powi(k as i32 + 1));
    // safety net (real parts): the result must be a logarithm of g
    let residual = re_norm(&(expm(&log) - g));
    if residual.is_nan() || residual > 1e-6 * (1.0 + re_norm(g)) {
        return Err(outside);
    }
    Ok(log)
}

/// The general linear group GL(N) with `D = N^2`-dimensional algebra coordinates `vec(X)`
/// (column-major); elements are `SMatrix<S, N, N>` (see the module documentation).
///
/// ```
/// use geom_core::lie::{Gl, LieGroup};
/// use nalgebra::{Matrix2, Vector4};
/// let g = Gl::<2, 4>;
/// let x = Vector4::new(0.1, 0.2, -0.3, 0.05); // X = [[0.1, -0.3], [0.2, 0.05]]
/// let m: Matrix2<f64> = g.exp(&x);
/// assert!(Gl::<2, 4>::from_matrix(m).is_ok());
/// assert!((LieGroup::<f64, 4>::log(&g, &m).unwrap() - x).norm() < 1e-14);
/// assert!(Gl::<2, 4>::from_matrix(Matrix2::new(1.0, 2.0, 2.0, 4.0)).is_err());
/// // a negative eigenvalue has no real principal logarithm
/// assert!(LieGroup::<f64, 4>::log(&g, &Matrix2::new(-1.0, 0.0, 0.0, 2.0)).is_err());
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Gl<const N: usize, const D: usize>;

impl<const N: usize, const D: usize> Gl<N, D> {
    /// A checked element: finite and invertible (LU with partial pivoting, pivots above
    /// `1e-14 · max|g_ij|`).
    pub fn from_matrix(g: SMatrix<f64, N, N>) -> Result<SMatrix<f64, N, N>> {
        LieGroup::<f64, D>::check_element(&Gl::<N, D>, &g, MEMBERSHIP_TOLERANCE)?;
        Ok(g)
    }
    /// The matrix exponential `e^X` of an `N × N` matrix, by scaling and squaring:
    /// `e^X = (T_18(X/2^s))^{2^s}` with `|X/2^s|_F <= 1/2` and `T_18` the Taylor polynomial of
    /// degree 18 (accurate to round-off; `s` is chosen from the real part, so it is exact under
    /// dual numbers).
    pub fn expm<S: Scalar>(x: &SMatrix<S, N, N>) -> SMatrix<S, N, N> {
        expm(x)
    }
    /// The principal matrix logarithm (`exp(log g) = g`, eigenvalues of `log g` with imaginary
    /// parts in `(-π, π)`) by inverse scaling and squaring: Denman–Beavers square roots until
    /// `|A - I|_F <= 1/4`, then `2^k · 2 atanh((A - I)(A + I)^{-1})`. Errors
    /// ([`GeomError::OutsideDomain`], [`GeomError::NotConverged`], [`GeomError::NonFinite`]) where
    /// no principal real logarithm exists (an eigenvalue on the closed negative real axis) or the
    /// iteration fails.
    pub fn logm<S: Scalar>(g: &SMatrix<S, N, N>) -> Result<SMatrix<S, N, N>> {
        logm(g)
    }
}

impl<S: Scalar, const N: usize, const D: usize> LieGroup<S, D> for Gl<N, D> {
    type Element = SMatrix<S, N, N>;
    type Matrix = SMatrix<S, N, N>;

    fn name(&self) -> String {
        check_dims::<N, D>();
        format!("GL({N})")
    }
    fn identity(&self) -> SMatrix<S, N, N> {
        check_dims::<N, D>();
        SMatrix::identity()
    }
    fn compose(&self, a: &SMatrix<S, N, N>, b: &SMatrix<S, N, N>) -> SMatrix<S, N, N> {
        check_dims::<N, D>();
        a * b
    }
    /// `g^{-1}` by LU; NaN-filled if `g` is singular.
    fn inverse(&self, a: &SMatrix<S, N, N>) -> SMatrix<S, N, N> {
        check_dims::<N, D>();
        invert(a, "GL(n) inverse").unwrap_or_else(|_| nan())
    }
    /// The matrix exponential [`Gl::expm`] of `hat(x)`.
    fn exp(&self, x: &SVector<S, D>) -> SMatrix<S, N, N> {
        expm(&self.hat(x))
    }
    /// The principal logarithm [`Gl::logm`] (then `vee`).
    fn log(&self, g: &SMatrix<S, N, N>) -> Result<SVector<S, D>> {
        Ok(self.vee(&logm(g)?))
    }
    /// Reshape `vec(X) ↦ X` (column-major).
    fn hat(&self, x: &SVector<S, D>) -> SMatrix<S, N, N> {
        check_dims::<N, D>();
        SMatrix::from_column_slice(x.as_slice())
    }
    /// `X ↦ vec(X)` (column-major).
    fn vee(&self, m: &SMatrix<S, N, N>) -> SVector<S, D> {
        check_dims::<N, D>();
        SVector::from_column_slice(m.as_slice())
    }
    fn to_matrix(&self, g: &SMatrix<S, N, N>) -> SMatrix<S, N, N> {
        check_dims::<N, D>();
        *g
    }
    /// `Ad_g = g^{-T} ⊗ g`; NaN-filled if `g` is singular.
    fn adjoint(&self, g: &SMatrix<S, N, N>) -> SMatrix<S, D, D> {
        check_dims::<N, D>();
        match invert(g, "GL(n) adjoint") {
            Ok(gi) => kron(&gi.transpose(), g),
            Err(_) => nan(),
        }
    }
    /// `ad_X = I ⊗ X - Xᵀ ⊗ I`.
    fn ad(&self, x: &SVector<S, D>) -> SMatrix<S, D, D> {
        let m = self.hat(x);
        let id = SMatrix::<S, N, N>::identity();
        kron(&id, &m) - kron(&m.transpose(), &id)
    }
    /// `vec(XY - YX)`.
    fn bracket(&self, x: &SVector<S, D>, y: &SVector<S, D>) -> SVector<S, D> {
        let (a, b) = (self.hat(x), self.hat(y));
        self.vee(&(a * b - b * a))
    }
    /// `Ad*_g mu = vec(gᵀ M g^{-T})` for `mu = vec(M)` (the transpose of `Ad_g`); NaN if singular.
    fn coadjoint(&self, g: &SMatrix<S, N, N>, mu: &SVector<S, D>) -> SVector<S, D> {
        match invert(g, "GL(n) coadjoint") {
            Ok(gi) => self.vee(&(g.transpose() * self.hat(mu) * gi.transpose())),
            Err(_) => SVector::from_element(S::from(f64::NAN)),
        }
    }
    /// `ad*_X mu = vec(Xᵀ M - M Xᵀ)` for `mu = vec(M)` (the transpose of `ad_X`).
    fn ad_star(&self, x: &SVector<S, D>, mu: &SVector<S, D>) -> SVector<S, D> {
        let (a, m) = (self.hat(x), self.hat(mu));
        self.vee(&(a.transpose() * m - m * a.transpose()))
    }
    /// `(I - X/2)^{-1}(I + X/2)`; error if `I - X/2` is singular.
    fn cayley(&self, x: &SVector<S, D>) -> Result<SMatrix<S, N, N>> {
        let m = self.hat(x) * S::from(0.5);
        let id = SMatrix::<S, N, N>::identity();
        let lu = Lu::factor(&(id - m), "Cayley on GL(n)")?;
        let rhs = id + m;
        let mut out = SMatrix::<S, N, N>::zeros();
        for j in 0..N {
            out.set_column(j, &lu.solve(&rhs.column(j).into_owned()));
        }
        Ok(out)
    }
    /// `2 (g - I)(g + I)^{-1}`; error if `g + I` is singular.
    fn cayley_inv(&self, g: &SMatrix<S, N, N>) -> Result<SVector<S, D>> {
        let id = SMatrix::<S, N, N>::identity();
        let inv = invert(&(g + id), "inverse Cayley on GL(n)")?;
        Ok(self.vee(&((g - id) * inv * S::from(2.0))))
    }
    /// `dcay_X^{-1} = (I + X/2)ᵀ ⊗ (I - X/2)`.
    fn dcay_inv(&self, x: &SVector<S, D>) -> SMatrix<S, D, D> {
        let m = self.hat(x) * S::from(0.5);
        let id = SMatrix::<S, N, N>::identity();
        kron(&(id + m).transpose(), &(id - m))
    }
    /// `0` if `g` is finite and LU-invertible, else `+inf`.
    fn defect(&self, g: &SMatrix<S, N, N>) -> f64 {
        check_dims::<N, D>();
        match Lu::factor(g, "GL(n) element") {
            Ok(_) => 0.0,
            Err(_) => f64::INFINITY,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check_group, check_matrix_group};
    use super::*;
    use nalgebra::{Matrix2, Matrix3};
    use num_dual::DualSVec64;

    fn points<const D: usize>() -> Vec<SVector<f64, D>> {
        let a = SVector::<f64, D>::from_fn(|i, _| ((i * 5 + 2) % 7) as f64 - 3.1).normalize();
        let b = SVector::<f64, D>::from_fn(|i, _| ((i * 3 + 1) % 4) as f64 - 1.4).normalize();
        vec![SVector::zeros(), a * 1e-9, b * 1e-4, a * 0.3, b * 0.9, a * 1.5, b * 2.0]
    }

    #[test]
    fn generic_identities() {
        check_group::<Gl<2, 4>, 4>(&Gl::<2, 4>, &points::<4>(), 1e-11);
        check_matrix_group::<Gl<2, 4>, 4, 2>(&Gl::<2, 4>, &points::<4>(), 1e-11);
        check_group::<Gl<3, 9>, 9>(&Gl::<3, 9>, &points::<9>(), 1e-11);
        check_matrix_group::<Gl<3, 9>, 9, 3>(&Gl::<3, 9>, &points::<9>(), 1e-11);
        check_group::<Gl<1, 1>, 1>(&Gl::<1, 1>, &points::<1>(), 1e-11);
    }

    #[test]
    fn rotation_generator_near_pi() {
        // X = θ J: exp is the rotation, log recovers θ < π
        let g = Gl::<2, 4>;
        for th in [0.5, 2.0, 3.0, 3.1, core::f64::consts::PI - 1e-6] {
            let x = SVector::<f64, 4>::new(0.0, th, -th, 0.0);
            let m = LieGroup::<f64, 4>::exp(&g, &x);
            assert!((m - Matrix2::new(th.cos(), -th.sin(), th.sin(), th.cos())).norm() < 1e-14);
            let l = LieGroup::<f64, 4>::log(&g, &m).unwrap();
            assert!((l - x).norm() < 1e-8, "log at angle {th}: {l}");
        }
        // exactly -I: no real principal logarithm
        assert!(LieGroup::<f64, 4>::log(&g, &(-Matrix2::identity())).is_err());
    }

    #[test]
    fn exp_and_log_far_from_identity() {
        let g = Gl::<3, 9>;
        // large norm (many squarings), nilpotent and diagonal cases
        let x = SVector::<f64, 9>::from_fn(|i, _| 0.8 * (i as f64 - 4.0) / 4.0);
        let x_big = x * 6.0;
        let e = LieGroup::<f64, 9>::exp(&g, &x_big);
        let ref_e = super::super::testing::expm(&LieGroup::<f64, 9>::hat(&g, &x_big));
        assert!((e - ref_e).norm() <= 1e-12 * ref_e.norm());
        let n = Matrix3::new(0.0, 1.0, 2.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0);
        let en = expm(&n);
        assert!((en - (Matrix3::identity() + n + n * n * 0.5)).norm() < 1e-15);
        assert!((logm(&en).unwrap() - n).norm() < 1e-13);
        let d = Matrix3::from_diagonal(&nalgebra::Vector3::new(1e-3, 1.0, 50.0));
        let ld = logm(&d).unwrap();
        assert!((ld - Matrix3::from_diagonal(&nalgebra::Vector3::new(1e-3f64.ln(), 0.0, 50f64.ln()))).norm() < 1e-12);
        // non-normal: log [[a, c], [0, b]] = [[ln a, c (ln b - ln a)/(b - a)], [0, ln b]]
        for (a, b, c) in [(1.0f64, 2.0f64, 100.0f64), (0.5, 3.0, -1e3), (1e-4, 1e4, 1.0)] {
            let l = logm(&Matrix2::new(a, c, 0.0, b)).unwrap();
            let want = Matrix2::new(a.ln(), c * (b.ln() - a.ln()) / (b - a), 0.0, b.ln());
            assert!((l - want).norm() <= 1e-10 * want.norm(), "{l} vs {want}");
        }
        // negative eigenvalue, singular, non-finite
        assert!(logm(&Matrix3::from_diagonal(&nalgebra::Vector3::new(-2.0, 1.0, 1.0))).is_err());
        assert!(logm(&Matrix3::from_diagonal(&nalgebra::Vector3::new(0.0, 1.0, 1.0))).is_err());
        assert!(logm(&Matrix3::from_element(f64::NAN)).is_err());
        assert!(LieGroup::<f64, 9>::defect(&g, &Matrix3::zeros()).is_infinite());
        assert!(LieGroup::<f64, 9>::inverse(&g, &Matrix3::zeros())[0].is_nan());
        assert!(LieGroup::<f64, 9>::adjoint(&g, &Matrix3::zeros())[0].is_nan());
        // Cayley: X with an eigenvalue 2 makes I - X/2 singular; g with eigenvalue -1 has no cay^-1
        let x2 = SVector::<f64, 9>::from_fn(|i, _| if i == 0 { 2.0 } else { 0.0 });
        assert!(LieGroup::<f64, 9>::cayley(&g, &x2).is_err());
        assert!(LieGroup::<f64, 9>::dcay(&g, &x2).is_err());
        let m1 = Matrix3::from_diagonal(&nalgebra::Vector3::new(-1.0, 1.0, 1.0));
        assert!(LieGroup::<f64, 9>::cayley_inv(&g, &m1).is_err());
    }

    #[test]
    fn log_derivative_is_exact_under_dual_numbers() {
        // d/dy log(exp(x + y)) at y = 0 is the identity, through the Denman-Beavers iteration
        let g = Gl::<2, 4>;
        let x = SVector::<f64, 4>::new(0.9, -0.7, 1.2, 0.3);
        let (v, j) = num_dual::jacobian(
            |y: SVector<DualSVec64<4>, 4>| LieGroup::<DualSVec64<4>, 4>::log(&g, &LieGroup::exp(&g, &y)).unwrap(),
            &x,
        );
        assert!((v - x).norm() < 1e-13);
        assert!((j - nalgebra::Matrix4::identity()).norm() < 1e-11, "{j}");
        // and through exp: d/dy exp at 0 is hat of the basis (checked in check_matrix_group); the
        // transpose rule of Ad* and ad*
        let mu = SVector::<f64, 4>::new(0.3, 1.0, -2.0, 0.5);
        let m = LieGroup::<f64, 4>::exp(&g, &x);
        let ad = LieGroup::<f64, 4>::adjoint(&g, &m);
        assert!((LieGroup::<f64, 4>::coadjoint(&g, &m, &mu) - ad.transpose() * mu).norm() < 1e-13);
    }
}
