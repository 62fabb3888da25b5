#pragma once
/// \file
/// Convex quadratic programs and the LCP of their KKT conditions ([chapter] §1.2, LCP ⇔ QP).

#include <Eigen/Dense>
#include <string>

#include "perp/core/lcp.hpp"
#include "perp/core/result.hpp"
#include "perp/core/status.hpp"

namespace perp {

/// minimize ½ xᵀQx + cᵀx  subject to  A x >= b,  x >= 0,
/// with Q symmetric positive semidefinite (n×n), A k×n (k may be 0).
///
/// Its KKT conditions are the LCP with z = (x, μ), w = (ν, A x − b):
///   M = [[Q, −Aᵀ], [A, 0]],  q = (c, −b),
/// where μ >= 0 are the multipliers of A x >= b and ν = Q x + c − Aᵀμ >= 0 those of x >= 0.
/// For PSD Q these conditions are necessary and sufficient, so the LCP's solutions are exactly
/// the QP's optimal points with their multipliers.
struct Qp {
  Eigen::MatrixXd Q;  ///< n×n, symmetric PSD
  Eigen::VectorXd c;  ///< n
  Eigen::MatrixXd A;  ///< k×n (k = 0: only x >= 0)
  Eigen::VectorXd b;  ///< k

  /// n, the number of variables.
  [[nodiscard]] Eigen::Index variables() const { return c.size(); }
  /// k, the number of general constraints A x >= b.
  [[nodiscard]] Eigen::Index constraints() const { return b.size(); }

  /// Throws `InvalidProblem` when Q is not n×n, A not k×n, an entry is NaN/Inf, or Q is not
  /// symmetric (|Q_ij − Q_ji| > 1e-10·max|Q|, naming the pair). Whether Q is PSD is checked by
  /// the QP solve, which needs it.
  void validate() const;

  /// ½ xᵀQx + cᵀx.
  [[nodiscard]] double objective(const Eigen::VectorXd& x) const;
};

/// The KKT LCP of a QP: M = [[Q, −Aᵀ], [A, 0]], q = (c, −b) (validates the QP first).
[[nodiscard]] Lcp kkt_lcp(const Qp& problem);

/// The other way: for symmetric M, the QP  min ½ zᵀMz + qᵀz  s.t. z >= 0  (A empty), whose KKT
/// LCP is LCP(q, M) itself (ν = M z + q = w). Equivalent to the LCP when M is PSD. Throws
/// `InvalidProblem` when the LCP is invalid or M is not symmetric.
[[nodiscard]] Qp qp_from_lcp(const Lcp& problem);

/// A QP's solution with its multipliers, and how the LCP solve that produced it went.
struct QpResult {
  Eigen::VectorXd x;     ///< the minimizer (n)
  Eigen::VectorXd mu;    ///< multipliers of A x >= b (k), >= 0
  Eigen::VectorXd nu;    ///< multipliers of x >= 0 (n): Q x + c − Aᵀμ, >= 0
  double objective = 0;  ///< ½ xᵀQx + cᵀx
  /// The solve of the KKT LCP: status, iterations, residual (the LCP's natural residual
  /// ‖min(z, w)‖∞, which bounds the KKT violation), message, method, time_ms; its z = (x, μ).
  Result lcp;

  [[nodiscard]] bool solved() const { return lcp.solved(); }
  [[nodiscard]] Status status() const { return lcp.status; }
};

}  // namespace perp
