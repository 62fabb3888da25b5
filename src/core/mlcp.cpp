#include "perp/core/mlcp.hpp"

#include <algorithm>
#include <string>

#include "perp/core/error.hpp"
#include "perp/core/residual.hpp"

namespace perp {
namespace {

void require_shape(const Eigen::MatrixXd& block, Eigen::Index rows, Eigen::Index cols, const char* name,
                   const char* why) {
  if (block.rows() != rows || block.cols() != cols) {
    throw InvalidProblem(std::string(name) + ": expected " + std::to_string(rows) + "x" + std::to_string(cols) + " " +
                         why + ", got " + std::to_string(block.rows()) + "x" + std::to_string(block.cols()));
  }
}

}  // namespace

void Mlcp::validate() const {
  const Eigen::Index n = a.size();
  const Eigen::Index m = b.size();
  require_shape(A, n, n, "A", "(n×n, n = size of a)");
  require_shape(B, m, m, "B", "(m×m, m = size of b)");
  require_shape(C, n, m, "C", "(n×m)");
  require_shape(D, m, n, "D", "(m×n)");
  require_finite(A, "A");
  require_finite(B, "B");
  require_finite(C, "C");
  require_finite(D, "D");
  require_finite(a, "a");
  require_finite(b, "b");
}

Eigen::MatrixXd Mlcp::matrix() const {
  const Eigen::Index n = a.size();
  const Eigen::Index m = b.size();
  Eigen::MatrixXd M(n + m, n + m);
  M.topLeftCorner(n, n) = A;
  M.topRightCorner(n, m) = C;
  M.bottomLeftCorner(m, n) = D;
  M.bottomRightCorner(m, m) = B;
  return M;
}

Eigen::VectorXd Mlcp::offset() const {
  Eigen::VectorXd q(a.size() + b.size());
  q << a, b;
  return q;
}

Eigen::VectorXd Mlcp::slack(const Eigen::VectorXd& z) const {
  require_size(z, size(), "z");
  const Eigen::Index n = a.size();
  const Eigen::Index m = b.size();
  const auto u = z.head(n);
  const auto v = z.tail(m);
  Eigen::VectorXd w(n + m);
  w.head(n) = a;
  w.head(n).noalias() += A * u;
  w.head(n).noalias() += C * v;
  w.tail(m) = b;
  w.tail(m).noalias() += D * u;
  w.tail(m).noalias() += B * v;
  return w;
}

Mlcp mlcp_from_blocks(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, Eigen::Index n) {
  if (M.rows() != M.cols()) {
    throw InvalidProblem("M must be square: got " + std::to_string(M.rows()) + "x" + std::to_string(M.cols()));
  }
  require_size(q, M.rows(), "q");
  if (n < 0 || n > M.rows()) {
    throw InvalidProblem("n = " + std::to_string(n) + " equalities is out of range [0, " + std::to_string(M.rows()) +
                         "]");
  }
  const Eigen::Index m = M.rows() - n;
  return Mlcp{M.topLeftCorner(n, n),
              M.bottomRightCorner(m, m),
              M.topRightCorner(n, m),
              M.bottomLeftCorner(m, n),
              q.head(n),
              q.tail(m)};
}

MlcpResiduals mlcp_residuals(const Mlcp& problem, const Eigen::VectorXd& z) {
  const Eigen::VectorXd w = problem.slack(z);
  const Eigen::Index n = problem.equalities();
  const Eigen::Index m = problem.complementarities();
  MlcpResiduals r;
  r.equality = n > 0 ? w.head(n).cwiseAbs().maxCoeff() : 0.0;
  r.complementarity = m > 0 ? natural_residual(Eigen::VectorXd(z.tail(m)), Eigen::VectorXd(w.tail(m))) : 0.0;
  return r;
}

double natural_residual(const Mlcp& problem, const Eigen::VectorXd& z) { return mlcp_residuals(problem, z).natural(); }

}  // namespace perp
