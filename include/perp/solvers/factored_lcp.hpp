#pragma once
/// \file
/// The LCP whose matrix is given by its factors, M = A M⁻¹ Aᵀ: the form of the convex contact
/// problems of a time step (frictionless Signorini, Anitescu's relaxation of Coulomb friction),
/// solved without forming M.

#include <Eigen/Dense>
#include <Eigen/SparseCore>

#include "perp/core/lcp.hpp"
#include "perp/core/result.hpp"
#include "perp/solvers/method.hpp"
#include "perp/solvers/options.hpp"

namespace perp {

/// Find z with w = A M⁻¹ Aᵀ z + c, 0 <= z ⊥ w >= 0, where A is sparse (rows × dofs) and
/// M⁻¹ = diag(inverse_mass) >= 0. The matrix is symmetric positive semidefinite, and singular when
/// rows are redundant (more contacts than degrees of freedom, as in packed heaps): w is then unique
/// at every solution, z is not. A row of a contact Jacobian per constraint, c the free velocities.
struct FactoredLcp {
  Eigen::SparseMatrix<double, Eigen::RowMajor> A;  ///< rows × dofs
  Eigen::VectorXd inverse_mass;                    ///< dofs entries, each finite and >= 0
  Eigen::VectorXd c;                               ///< rows

  [[nodiscard]] Eigen::Index size() const { return c.size(); }
  /// Throws `InvalidProblem` naming the field: A not c.size() × inverse_mass.size(), a non-finite
  /// entry, a negative inverse mass.
  void validate() const;
  /// w = A M⁻¹ Aᵀ z + c.
  [[nodiscard]] Eigen::VectorXd slack(const Eigen::VectorXd& z) const;
  /// The same LCP with M = A M⁻¹ Aᵀ formed densely (for the methods that need M).
  [[nodiscard]] Lcp assembled() const;
};

/// Solves the factored LCP. interior-point (and auto, which is interior-point here) works on the
/// factors: Mehrotra's predictor-corrector, with Gondzio's centrality correctors, on the convex
/// program of the velocities min ½ vᵀ M v subject to A v + c >= 0, whose multipliers are z, with
/// one sparse LDLᵀ of M + Aᵀ D A a step (memory O(nnz(A)) and the factor's fill). Every other LCP method runs on
/// `assembled()`, up to 8000 rows (`not-applicable` above: the dense matrix would take 512 MB),
/// except pgs and psor, which sweep on the factors (the rows of A, v = M⁻¹ Aᵀ z kept current; psor
/// over-relaxed by `relaxation`; from the initial guess, at most `max_iterations` sweeps, the
/// error checked every 50; `no-solution-found` with the best point where it has not fallen by 1 %
/// in 100 sweeps, or where a sweep moved no row short of the tolerance: a fixed point of the
/// sweeps). Where the interior point stalls short of the tolerance (degenerate vertices of packed
/// heaps), Dostál's MPRGP — conjugate gradients on the free rows with projections, products with A
/// and Aᵀ only — goes on from its best point.
/// With `initial_guess` (the last time step's multipliers, say), interior-point first tries the
/// vertex of the guess's active rows (rows with z_k d_k > w_k, d_k the diagonal of A M⁻¹ Aᵀ; the
/// same crossover that ends the interior point): when the active set has not changed, that solves
/// in one or a few sparse factorizations, and the interior point is not run (iterations 0). The
/// result is judged as an `Lcp`'s: w recomputed from z, `Status::Solved` only when the relative
/// natural residual is <= tolerance.
[[nodiscard]] Result solve(const FactoredLcp& problem, Method method = Method::Auto, const SolveOptions& options = {});

}  // namespace perp
