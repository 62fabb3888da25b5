#include "perp/core/qp.hpp"

#include <cmath>
#include <string>

#include "perp/core/error.hpp"

namespace perp {
namespace {

// Q symmetric to a tolerance relative to its largest entry.
void require_symmetric(const Eigen::MatrixXd& Q, const char* name) {
  const double scale = Q.size() > 0 ? Q.cwiseAbs().maxCoeff() : 0.0;
  const double tolerance = 1e-10 * scale;
  for (Eigen::Index i = 0; i < Q.rows(); ++i) {
    for (Eigen::Index j = i + 1; j < Q.cols(); ++j) {
      if (std::abs(Q(i, j) - Q(j, i)) > tolerance) {
        const std::string n(name);
        throw InvalidProblem(n + " must be symmetric: " + n + "(" + std::to_string(i) + ", " + std::to_string(j) +
                             ") = " + number_text(Q(i, j)) + " but " + n + "(" + std::to_string(j) + ", " +
                             std::to_string(i) + ") = " + number_text(Q(j, i)));
      }
    }
  }
}

}  // namespace

void Qp::validate() const {
  const Eigen::Index n = c.size();
  const Eigen::Index k = b.size();
  if (Q.rows() != n || Q.cols() != n) {
    throw InvalidProblem("Q: expected " + std::to_string(n) + "x" + std::to_string(n) + " (n = size of c), got " +
                         std::to_string(Q.rows()) + "x" + std::to_string(Q.cols()));
  }
  // An empty A (no general constraints) may come as 0×0 from a caller that has none.
  const bool no_constraints = k == 0 && A.size() == 0;
  if (!no_constraints && (A.rows() != k || A.cols() != n)) {
    throw InvalidProblem("A: expected " + std::to_string(k) + "x" + std::to_string(n) +
                         " (k = size of b, n = size of c), got " + std::to_string(A.rows()) + "x" +
                         std::to_string(A.cols()));
  }
  require_finite(Q, "Q");
  require_finite(c, "c");
  require_finite(A, "A");
  require_finite(b, "b");
  require_symmetric(Q, "Q");
}

double Qp::objective(const Eigen::VectorXd& x) const {
  require_size(x, c.size(), "x");
  return 0.5 * x.dot(Q * x) + c.dot(x);
}

Lcp kkt_lcp(const Qp& problem) {
  problem.validate();
  const Eigen::Index n = problem.variables();
  const Eigen::Index k = problem.constraints();
  Lcp lcp{Eigen::MatrixXd::Zero(n + k, n + k), Eigen::VectorXd(n + k)};
  lcp.M.topLeftCorner(n, n) = problem.Q;
  if (k > 0) {
    lcp.M.topRightCorner(n, k) = -problem.A.transpose();
    lcp.M.bottomLeftCorner(k, n) = problem.A;
  }
  lcp.q << problem.c, -problem.b;
  return lcp;
}

Qp qp_from_lcp(const Lcp& problem) {
  problem.validate();
  require_symmetric(problem.M, "M");
  const Eigen::Index n = problem.size();
  return Qp{problem.M, problem.q, Eigen::MatrixXd(0, n), Eigen::VectorXd(0)};
}

}  // namespace perp
