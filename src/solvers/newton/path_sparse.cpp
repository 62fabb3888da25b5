// The sparse route of path (docs/solvers.md, "Sparse nonlinear problems"): the model of an `Mcp`
// whose Jacobian is `J_sparse`, and the Newton point of each linearization by block pivoting in
// place of the dense complementary pivoting of path.cpp.

#include <Eigen/Core>
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "path_detail.hpp"
#include "perp/core/ncp.hpp"
#include "perp/core/residual.hpp"
#include "sparse_linear.hpp"

namespace perp::path_detail {

bool SparseFunctionModel::function(const Eigen::VectorXd& z, Eigen::VectorXd& F) {
  return user_function(problem_, z, F, log_);
}

const Eigen::MatrixXd& SparseFunctionModel::jacobian(const Eigen::VectorXd& /*z*/) {
  throw std::logic_error("path: the dense Jacobian was requested on the sparse route");
}

const detail::SparseMatrix& SparseFunctionModel::sparse_jacobian(const Eigen::VectorXd& z) {
  if (J_at_.size() == z.size() && J_at_ == z) return J_;
  J_ = user_sparse_jacobian(problem_, z, log_);
  J_at_ = z;
  return J_;
}

double SparseFunctionModel::relative(const Eigen::VectorXd& z, const Eigen::VectorXd& F) {
  return relative_residual(z, F, sparse_jacobian(z), lower(), upper());
}

// The sparse route: the Newton point of the affine normal map A(x) = M π(x) + c + x − π(x),
// c = F(z₀) − M z₀ (M = J(z₀) + δI), found by block pivoting (the primal-dual active-set method, i.e.
// semismooth Newton on A): each index is labelled at its lower bound, at its upper bound or free;
// the labelled z_N is fixed, the free block solves M_FF z_F = −c_F − M_FN z_N (sparse LDLᵀ or LU),
// and the new labels are read from x = z − (M z + c). Unchanged labels: x is the exact zero of A.
// Starts from the labels of x₀ (the current point's active set). The "path" handed to the search is
// the segment from x₀ to that point in normal-map space (its points π(x) bend along the box).

LinearPath ActiveSetNewtonPoint::follow(const detail::SparseMatrix& M, bool symmetric, const Eigen::VectorXd& lower,
                                        const Eigen::VectorXd& upper, const Eigen::VectorXd& x0,
                                        const Eigen::VectorXd& r) {
  const Eigen::Index n = x0.size();
  LinearPath path;
  path.points.push_back({0.0, x0});
  const Eigen::VectorXd z0 = x0.cwiseMax(lower).cwiseMin(upper);
  // c = F(z₀) − M z₀, with F(z₀) = r − (x₀ − z₀).
  c_ = r - (x0 - z0);
  c_.noalias() -= M * z0;
  // The labels are read from z − D⁻¹w with D = diag(M) where positive (1 elsewhere): the same
  // conditions at a fixed point (w_F = 0, w >= 0 at lower, w <= 0 at upper), but a step of w that
  // is large against the box's width no longer flips a variable from one bound to the other.
  scale_.resize(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const double d = M.coeff(i, i);
    scale_[i] = d > 0 ? 1.0 / d : 1.0;
  }
  label_.assign(static_cast<std::size_t>(n), 0);
  for (Eigen::Index i = 0; i < n; ++i) label_[static_cast<std::size_t>(i)] = label(x0[i], lower[i], upper[i]);
  seen_.clear();
  for (int solve = 0; solve < kMaxActiveSetSolves; ++solve) {
    // A labelling seen before (FNV-1a hash of the labels) means block pivoting cycles: stop early.
    std::uint64_t hash = 1469598103934665603ULL;
    for (const int l : label_) hash = (hash ^ static_cast<std::uint64_t>(l + 1)) * 1099511628211ULL;
    if (std::find(seen_.begin(), seen_.end(), hash) != seen_.end()) break;
    seen_.push_back(hash);
    z_.resize(n);
    free_.clear();
    for (Eigen::Index i = 0; i < n; ++i) {
      const int l = label_[static_cast<std::size_t>(i)];
      z_[i] = l < 0 ? lower[i] : (l > 0 ? upper[i] : 0.0);
      if (l == 0) free_.push_back(i);
    }
    if (!free_.empty()) {
      w_.noalias() = M * z_;  // M_:N z_N (z_F = 0 here)
      const auto m = static_cast<Eigen::Index>(free_.size());
      rhs_.resize(m);
      for (Eigen::Index k = 0; k < m; ++k) {
        const Eigen::Index i = free_[static_cast<std::size_t>(k)];
        rhs_[k] = -c_[i] - w_[i];
      }
      block_ = detail::submatrix(M, free_, free_, position_);
      ++solves_;
      if (!solver_.compute(block_, symmetric) || !solver_.solve(rhs_, solution_)) {
        path.failure = "the free block of the linearization is singular";
        ++unsettled_;
        return path;
      }
      for (Eigen::Index k = 0; k < m; ++k) z_[free_[static_cast<std::size_t>(k)]] = solution_[k];
    } else {
      ++solves_;
    }
    w_.noalias() = M * z_;
    w_ += c_;
    // x = z − w on the bounded rows; on the free rows w is the solve's round-off and x = z exactly
    // (x = z − w there would move π(x) off z by w, an error of ‖M‖·|w| in the normal map).
    x_ = z_ - w_;
    for (const Eigen::Index i : free_) x_[i] = z_[i];
    bool changed = false;
    for (Eigen::Index i = 0; i < n; ++i) {
      const int l = label(z_[i] - scale_[i] * w_[i], lower[i], upper[i]);
      if (l != label_[static_cast<std::size_t>(i)]) {
        label_[static_cast<std::size_t>(i)] = l;
        changed = true;
      }
    }
    if (!changed) {
      path.points.push_back({1.0, x_});
      path.complete = true;
      return path;
    }
  }
  // Not settled (block pivoting may cycle when M is not a P-matrix, and the linearization may
  // have no solution): no Newton point, so the caller perturbs M as for a path that fails.
  path.failure = "block pivoting did not settle";
  ++unsettled_;
  return path;
}

int ActiveSetNewtonPoint::label(double x, double lower, double upper) {
  if (lower == upper || x <= lower) return -1;
  if (x >= upper) return 1;
  return 0;
}

}  // namespace perp::path_detail
