#include "newton_linear.hpp"

#include <algorithm>
#include <cmath>

namespace perp::detail {

bool SemidefiniteSolver::compute(const Eigen::MatrixXd& A) {
  regularized_ = false;
  if (!singular_seen_) {
    llt_.compute(A);
    if (llt_.info() == Eigen::Success) return true;
    singular_seen_ = true;
  }
  const double largest = A.rows() == 0 ? 0.0 : A.diagonal().cwiseAbs().maxCoeff();
  shifted_ = A;
  shifted_.diagonal().array() += kRegularization * std::max(largest, 1e-300);
  llt_.compute(shifted_);
  regularized_ = true;
  return llt_.info() == Eigen::Success;
}

void SemidefiniteSolver::solve(const Eigen::MatrixXd& A, const Eigen::VectorXd& b, Eigen::VectorXd& x) {
  x = llt_.solve(b);
  if (!regularized_ || !x.allFinite()) return;
  double scale = 0.0;  // max|A_ij| over the lower triangle, the part that was filled
  for (Eigen::Index j = 0; j < A.cols(); ++j)
    scale = std::max(scale, A.col(j).tail(A.rows() - j).cwiseAbs().maxCoeff());
  const double b_norm = b.cwiseAbs().maxCoeff();
  for (int k = 0; k < kRefinements; ++k) {
    residual_.noalias() = b - A.selfadjointView<Eigen::Lower>() * x;
    if (residual_.cwiseAbs().maxCoeff() <= kRefinementResidual * (b_norm + scale * x.cwiseAbs().maxCoeff())) return;
    step_ = llt_.solve(residual_);
    x += step_;
  }
}

bool NewtonSystem::solve(const Eigen::MatrixXd& J, bool symmetric, const Eigen::VectorXd& Da, const Eigen::VectorXd& Db,
                         const Eigen::VectorXd& phi, Eigen::VectorXd& d, double proximal) {
  const Eigen::Index n = phi.size();
  d.resize(n);
  double applied = 0.0;  // μ of the system solved
  bool done = symmetric && solve_symmetric(J, Da, Db, phi, d, proximal, applied);
  if (!done) {
    // The plain Newton step: the proximal shift belongs to the positive semidefinite route (an
    // indefinite J, as the saddle-point systems of an MLCP with a singular A, is no monotone
    // problem; the shifted step stalled there).
    applied = 0.0;
    H_ = Db.asDiagonal() * J;
    H_.diagonal() += Da;
    lu_.compute(H_);
    d = lu_.solve(-phi);
    ++lu_steps_;
  }
  if (!d.allFinite()) return false;
  // Check H_μ d = −Φ without forming H_μ: Da∘d + Db∘(J d + μ d) + Φ.
  check_.noalias() = J * d;
  check_ += applied * d;
  const double residual = (Da.cwiseProduct(d) + Db.cwiseProduct(check_) + phi).cwiseAbs().maxCoeff();
  const double h_norm =
      Da.cwiseAbs().maxCoeff() + Db.cwiseAbs().maxCoeff() * (J.cwiseAbs().rowwise().sum().maxCoeff() + applied);
  return residual <= kSystemResidual * (phi.cwiseAbs().maxCoeff() + h_norm * d.cwiseAbs().maxCoeff());
}

bool eliminate_identity_rows(const Eigen::VectorXd& Da, const Eigen::VectorXd& Db, const Eigen::VectorXd& phi,
                             Eigen::VectorXd& d, std::vector<Eigen::Index>& eliminated,
                             std::vector<Eigen::Index>& rest) {
  eliminated.clear();
  rest.clear();
  for (Eigen::Index i = 0; i < phi.size(); ++i) {
    if (std::abs(Db[i]) <= NewtonSystem::kIdentityRow * std::abs(Da[i])) {
      eliminated.push_back(i);
    } else {
      rest.push_back(i);
    }
  }
  for (const Eigen::Index i : eliminated) {
    if (Da[i] == 0.0) return false;
    d[i] = -phi[i] / Da[i];
  }
  return true;
}

bool NewtonSystem::solve_symmetric(const Eigen::MatrixXd& J, const Eigen::VectorXd& Da, const Eigen::VectorXd& Db,
                                   const Eigen::VectorXd& phi, Eigen::VectorXd& d, double proximal, double& applied) {
  applied = singular_seen_ ? proximal : 0.0;
  if (!eliminate_identity_rows(Da, Db, phi, d, eliminated_, rest_)) return false;
  if (rest_.empty()) return true;
  const auto m = static_cast<Eigen::Index>(rest_.size());
  reduced_.resize(m, m);
  rhs_.resize(m);
  for (Eigen::Index b = 0; b < m; ++b) {
    const Eigen::Index i = rest_[static_cast<std::size_t>(b)];
    double r = -phi[i];
    for (const Eigen::Index j : eliminated_) r -= Db[i] * J(i, j) * d[j];
    rhs_[b] = r / Db[i];
  }
  for (Eigen::Index c = 0; c < m; ++c) {
    const Eigen::Index j = rest_[static_cast<std::size_t>(c)];
    for (Eigen::Index b = c; b < m; ++b) reduced_(b, c) = J(rest_[static_cast<std::size_t>(b)], j);
    reduced_(c, c) += Da[j] / Db[j] + applied;
  }
  if (!semidefinite_.compute(reduced_)) return false;
  if (semidefinite_.regularized() && !singular_seen_) {
    // The first singular matrix: the proximal step from here on, this one included (the shifted
    // matrix is positive definite; `compute` shifts it by ε·max A_ii more and the refinement
    // converges in a step or two).
    singular_seen_ = true;
    if (proximal > 0.0) {
      applied = proximal;
      reduced_.diagonal().array() += applied;
      if (!semidefinite_.compute(reduced_)) return false;
    }
  }
  if (singular_seen_) ++singular_steps_;
  semidefinite_.solve(reduced_, rhs_, solution_);
  for (Eigen::Index b = 0; b < m; ++b) d[rest_[static_cast<std::size_t>(b)]] = solution_[b];
  return true;
}

}  // namespace perp::detail
