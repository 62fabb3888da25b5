#pragma once
/// \file
/// The mixed linear complementarity problem ([chapter] §1.2): equality constraints with free
/// unknowns u beside complementarity pairs (v, w), as in circuits with diodes and in
/// multibody systems with bilateral and unilateral constraints.

#include <Eigen/Dense>

#include "perp/core/lcp.hpp"

namespace perp {

/// Find u ∈ ℝⁿ (free) and v ∈ ℝᵐ with
///   A u + C v + a = 0,
///   0 <= v ⊥ w = D u + B v + b >= 0.
/// In block form z = (u, v), M = [[A, C], [D, B]], q = (a, b): the layout of Siconos' MLCP files.
///
/// A solve returns a `Result` whose z = (u, v) has n + m entries and whose
/// w = (A u + C v + a, D u + B v + b): its first n entries are the equality residuals (zero at a
/// solution), its last m the complementarity slacks. `Result::residual` is `mlcp_residual`.
struct Mlcp {
  Eigen::MatrixXd A;  ///< n×n (the equations in the free unknowns)
  Eigen::MatrixXd B;  ///< m×m
  Eigen::MatrixXd C;  ///< n×m
  Eigen::MatrixXd D;  ///< m×n
  Eigen::VectorXd a;  ///< n
  Eigen::VectorXd b;  ///< m

  /// n, the number of free unknowns and of equations.
  [[nodiscard]] Eigen::Index equalities() const { return a.size(); }
  /// m, the number of complementarity pairs.
  [[nodiscard]] Eigen::Index complementarities() const { return b.size(); }
  /// n + m, the size of z = (u, v).
  [[nodiscard]] Eigen::Index size() const { return a.size() + b.size(); }

  /// Throws `InvalidProblem` when a block's shape does not match n = size(a) and m = size(b)
  /// ("C: expected 3x4, got 3x2"), or an entry is NaN/Inf (naming the block and the index).
  void validate() const;

  /// M = [[A, C], [D, B]], (n+m)×(n+m).
  [[nodiscard]] Eigen::MatrixXd matrix() const;
  /// q = (a, b).
  [[nodiscard]] Eigen::VectorXd offset() const;
  /// (A u + C v + a, D u + B v + b) for z = (u, v). Throws `InvalidProblem` when z has the wrong size.
  [[nodiscard]] Eigen::VectorXd slack(const Eigen::VectorXd& z) const;
};

/// Builds the MLCP from its block form: M is (n+m)×(n+m), q has n+m entries, the first n rows
/// and columns belong to u. Throws `InvalidProblem` when the sizes do not fit.
[[nodiscard]] Mlcp mlcp_from_blocks(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, Eigen::Index n);

/// The residuals of z = (u, v) for an MLCP, in the units of the data.
struct MlcpResiduals {
  double equality = 0;         ///< ‖A u + C v + a‖∞
  double complementarity = 0;  ///< ‖min(v, D u + B v + b)‖∞
  /// The larger of the two: the figure a solve is judged by.
  [[nodiscard]] double natural() const { return equality > complementarity ? equality : complementarity; }
};
[[nodiscard]] MlcpResiduals mlcp_residuals(const Mlcp& problem, const Eigen::VectorXd& z);
/// `mlcp_residuals(problem, z).natural()`.
[[nodiscard]] double natural_residual(const Mlcp& problem, const Eigen::VectorXd& z);

}  // namespace perp
