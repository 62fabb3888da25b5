// The problems as the Newton iteration sees them (newton_detail.hpp): bounds, F and J of the LCP,
// the box LCP and the user's Mcp (dense or sparse J), and the active-set completion of the linear ones.

#include <optional>
#include <string>
#include <utility>

#include "newton_detail.hpp"
#include "perp/core/error.hpp"
#include "perp/core/residual.hpp"

namespace perp::newton_detail {

LinearModel::LinearModel(const Eigen::MatrixXd& M, const Eigen::VectorXd& q)
    : M_(M), q_(q), symmetric_(detail::scan_matrix(M).symmetric) {}

bool LinearModel::function(const Eigen::VectorXd& z, Eigen::VectorXd& F) const {
  F.noalias() = M_ * z;
  F += q_;
  return F.allFinite();
}

double LinearModel::relative(const Eigen::VectorXd& z, const Eigen::VectorXd& F, const Eigen::VectorXd& lo,
                             const Eigen::VectorXd& hi) const {
  return scaled_natural_residual(z, F, lo, hi, z_scale(z, lo, hi), w_scale(M_, q_, z));
}

LcpModel::LcpModel(const Lcp& problem)
    : LinearModel(problem.M, problem.q),
      problem_(problem),
      lower_(Eigen::VectorXd::Zero(problem.size())),
      upper_(Eigen::VectorXd::Constant(problem.size(), kInfinity)) {}

double LcpModel::relative(const Eigen::VectorXd& z, const Eigen::VectorXd& F) {
  static const Eigen::VectorXd none;
  return LinearModel::relative(z, F, none, none);
}

bool LcpModel::finish(Eigen::VectorXd& z, Eigen::VectorXd& F, double tolerance) {
  alpha_.clear();
  for (Eigen::Index i = 0; i < z.size(); ++i) {
    if (z[i] > F[i]) alpha_.push_back(i);
  }
  const bool stable = alpha_ == previous_;
  previous_.swap(alpha_);
  if (!stable || previous_ == tried_) return false;
  tried_ = previous_;
  std::optional<Eigen::VectorXd> vertex = detail::active_set_point(problem_, tried_);
  if (!vertex) return false;
  Eigen::VectorXd w = problem_.slack(*vertex);
  if (!(relative_residual(problem_, *vertex, w) <= tolerance)) return false;
  z = std::move(*vertex);
  F = std::move(w);
  return true;
}

bool BoxModel::finish(Eigen::VectorXd& z, Eigen::VectorXd& F, double tolerance) {
  const Eigen::Index n = z.size();
  labels_.resize(static_cast<std::size_t>(n));
  for (Eigen::Index i = 0; i < n; ++i) {
    const double trial = z[i] - F[i];
    labels_[static_cast<std::size_t>(i)] = trial <= problem_.lower[i] ? 0 : trial >= problem_.upper[i] ? 2 : 1;
  }
  const bool stable = labels_ == previous_;
  previous_.swap(labels_);
  if (!stable || previous_ == tried_) return false;
  tried_ = previous_;
  Eigen::VectorXd vertex(n);
  std::vector<Eigen::Index> clamped;
  for (Eigen::Index i = 0; i < n; ++i) {
    const int label = previous_[static_cast<std::size_t>(i)];
    vertex[i] = label == 0 ? problem_.lower[i] : label == 2 ? problem_.upper[i] : 0.0;
    if (label == 1) clamped.push_back(i);
  }
  if (!clamped.empty()) {
    const Eigen::VectorXd rhs = -problem_.slack(vertex)(clamped);  // z_C = 0 in vertex here
    const Eigen::PartialPivLU<Eigen::MatrixXd> lu(problem_.M(clamped, clamped));
    const Eigen::VectorXd solution = lu.solve(rhs);
    if (!solution.allFinite()) return false;
    vertex(clamped) = solution;
  }
  Eigen::VectorXd w = problem_.slack(vertex);
  if (!(LinearModel::relative(vertex, w, problem_.lower, problem_.upper) <= tolerance)) return false;
  z = std::move(vertex);
  F = std::move(w);
  return true;
}

bool McpFunction::function(const Eigen::VectorXd& z, Eigen::VectorXd& F) const {
  F = problem_.F(z);
  if (F.size() != z.size()) {
    throw InvalidProblem("F returned " + std::to_string(F.size()) + " values, expected " + std::to_string(z.size()));
  }
  return F.allFinite();
}

void McpFunction::start_function(const Eigen::VectorXd& z, Eigen::VectorXd& F) const {
  F = evaluate_function(problem_.F, z, "F at the start point");
}

const Eigen::MatrixXd& McpModel::jacobian(const Eigen::VectorXd& z) {
  if (J_at_.size() == z.size() && J_at_ == z) return J_;  // already evaluated there (by `relative`)
  J_ = evaluate_jacobian(problem_.J, z, "J at an iterate");
  J_at_ = z;
  symmetric_ = detail::scan_matrix(J_).symmetric;
  return J_;
}

double McpModel::relative(const Eigen::VectorXd& z, const Eigen::VectorXd& F) {
  return relative_residual(z, F, jacobian(z), problem_.lower, problem_.upper);
}

const detail::SparseMatrix& SparseMcpModel::jacobian(const Eigen::VectorXd& z) {
  if (J_at_.size() == z.size() && J_at_ == z) return J_;
  J_ = evaluate_jacobian(problem_.J_sparse, z, "J at an iterate");
  J_at_ = z;
  symmetric_ = detail::is_symmetric(J_);
  return J_;
}

double SparseMcpModel::relative(const Eigen::VectorXd& z, const Eigen::VectorXd& F) {
  return relative_residual(z, F, jacobian(z), problem_.lower, problem_.upper);
}

void add_column(Eigen::VectorXd& out, const Eigen::MatrixXd& J, Eigen::Index j) { out += J.col(j); }
void add_column(Eigen::VectorXd& out, const detail::SparseMatrix& J, Eigen::Index j) {
  for (detail::SparseMatrix::InnerIterator it(J, j); it; ++it) out[it.row()] += it.value();
}
double max_column_sum(const Eigen::MatrixXd& J) { return J.cwiseAbs().colwise().sum().maxCoeff(); }
double max_column_sum(const detail::SparseMatrix& J) { return detail::max_column_sum(J); }

}  // namespace perp::newton_detail
