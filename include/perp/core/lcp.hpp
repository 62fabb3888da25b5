#pragma once
/// \file
/// The linear complementarity problem LCP(q, M).

#include <Eigen/Dense>

namespace perp {

/// Find z with w = M z + q, 0 <= z ⊥ w >= 0 (Cottle–Pang–Stone §1.1; [chapter] §1.2).
struct Lcp {
  Eigen::MatrixXd M;  ///< n×n, dense. Need not be symmetric.
  Eigen::VectorXd q;  ///< n.

  /// n, the number of complementarity pairs.
  [[nodiscard]] Eigen::Index size() const { return q.size(); }

  /// Throws `InvalidProblem` when M is not square, q does not match M, or an entry is
  /// NaN/Inf; the message names the field, the sizes or the first bad index.
  void validate() const;

  /// w = M z + q. Throws `InvalidProblem` when z has the wrong size.
  [[nodiscard]] Eigen::VectorXd slack(const Eigen::VectorXd& z) const;
};

/// `Lcp::validate` on M and q held elsewhere (a `BoxLcp`), without copying them into an `Lcp`.
void validate_lcp_data(const Eigen::MatrixXd& M, const Eigen::VectorXd& q);

/// Throws `InvalidProblem` naming `field` and the first (row, col) that is NaN or ±Inf.
void require_finite(const Eigen::MatrixXd& values, const char* field);
/// Throws `InvalidProblem` naming `field` and the first index that is NaN or ±Inf.
void require_finite(const Eigen::VectorXd& values, const char* field);
/// Throws `InvalidProblem` "FIELD: expected size N, got M" when the sizes differ.
void require_size(const Eigen::VectorXd& values, Eigen::Index expected, const char* field);

}  // namespace perp
