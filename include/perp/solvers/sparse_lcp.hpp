#pragma once
/// \file
/// The LCP whose matrix is sparse and is never formed densely: for problems above the dense
/// limit (n in the tens of thousands and more), which the dense `Lcp` would take n² doubles for.

#include <Eigen/Dense>
#include <Eigen/SparseCore>
#include <vector>

#include "perp/core/result.hpp"
#include "perp/solvers/method.hpp"
#include "perp/solvers/options.hpp"

namespace perp {

/// Find z with w = M z + q, 0 <= z ⊥ w >= 0, M sparse (n × n, column-major).
struct SparseLcp {
  Eigen::SparseMatrix<double> M;  ///< n × n, finite entries
  Eigen::VectorXd q;              ///< n, finite

  [[nodiscard]] Eigen::Index size() const { return q.size(); }
  /// Throws `InvalidProblem` naming the field: M not q.size() × q.size(), a non-finite entry of M
  /// (with its row and column) or of q.
  void validate() const;
  /// w = M z + q.
  [[nodiscard]] Eigen::VectorXd slack(const Eigen::VectorXd& z) const;
};

/// The methods that run on a sparse M (the others need it dense: `not-applicable`, with the
/// size it would take): pgs and psor (projected Gauss–Seidel sweeps on M's rows, each needing
/// M_ii > 0; psor's ω from `SolveOptions::relaxation`, default `kDefaultRelaxation`; the error
/// checked every 10 sweeps, at most `max_iterations` sweeps), and path, newton-fb and newton-min on
/// the MCP F(z) = M z + q, J = M, bounds [0, ∞) — their sparse route: each linearization factored
/// by a sparse LDLᵀ or LU, never formed densely (docs/solvers.md, "Sparse nonlinear problems").
/// auto is path. The result is judged as an `Lcp`'s: w = M z + q recomputed from z, the relative
/// natural residual (core/residual.hpp, the sparse overload) against the tolerance.
[[nodiscard]] Result solve(const SparseLcp& problem, Method method = Method::Auto, const SolveOptions& options = {});

/// The methods `solve(SparseLcp)` runs (auto included).
[[nodiscard]] const std::vector<Method>& sparse_lcp_methods();

}  // namespace perp
