#include "sparse_linear.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "newton_linear.hpp"

namespace perp::detail {

bool is_symmetric(const SparseMatrix& A) {
  if (A.rows() != A.cols()) return false;
  const SparseMatrix transpose = A.transpose();
  SparseMatrix difference = A - transpose;
  difference.prune(0.0, 0.0);
  return difference.nonZeros() == 0;
}

double max_row_sum(const SparseMatrix& A) {
  Eigen::VectorXd sums = Eigen::VectorXd::Zero(A.rows());
  for (Eigen::Index j = 0; j < A.outerSize(); ++j) {
    for (SparseMatrix::InnerIterator it(A, j); it; ++it) sums[it.row()] += std::abs(it.value());
  }
  return sums.size() == 0 ? 0.0 : sums.maxCoeff();
}

double max_column_sum(const SparseMatrix& A) {
  double largest = 0.0;
  for (Eigen::Index j = 0; j < A.outerSize(); ++j) {
    double sum = 0.0;
    for (SparseMatrix::InnerIterator it(A, j); it; ++it) sum += std::abs(it.value());
    largest = std::max(largest, sum);
  }
  return largest;
}

double gershgorin_lower_bound(const SparseMatrix& A) {
  // Disc i of S = ½(A + Aᵀ): centre A_ii, radius Σ_{j≠i} |A_ij + A_ji| / 2 <= (Σ_{j≠i}|A_ij| + Σ_{j≠i}|A_ji|) / 2.
  const Eigen::Index n = A.rows();
  Eigen::VectorXd diagonal = Eigen::VectorXd::Zero(n), radius = Eigen::VectorXd::Zero(n);
  for (Eigen::Index j = 0; j < A.outerSize(); ++j) {
    for (SparseMatrix::InnerIterator it(A, j); it; ++it) {
      if (it.row() == j) {
        diagonal[j] += it.value();
      } else {
        radius[it.row()] += 0.5 * std::abs(it.value());
        radius[j] += 0.5 * std::abs(it.value());
      }
    }
  }
  return n == 0 ? 0.0 : (diagonal - radius).minCoeff();
}

SparseMatrix submatrix(const SparseMatrix& A, const std::vector<Eigen::Index>& rows,
                       const std::vector<Eigen::Index>& cols, std::vector<Eigen::Index>& position) {
  position.assign(static_cast<std::size_t>(A.rows()), -1);
  for (std::size_t k = 0; k < rows.size(); ++k)
    position[static_cast<std::size_t>(rows[k])] = static_cast<Eigen::Index>(k);
  std::vector<Eigen::Triplet<double>> entries;
  entries.reserve(static_cast<std::size_t>(A.nonZeros()));
  for (std::size_t k = 0; k < cols.size(); ++k) {
    for (SparseMatrix::InnerIterator it(A, cols[k]); it; ++it) {
      const Eigen::Index r = position[static_cast<std::size_t>(it.row())];
      if (r >= 0) entries.emplace_back(static_cast<int>(r), static_cast<int>(k), it.value());
    }
  }
  SparseMatrix out(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(cols.size()));
  out.setFromTriplets(entries.begin(), entries.end());
  return out;
}

bool SparseSolver::compute(const SparseMatrix& A, bool symmetric) {
  A_ = &A;
  norm_ = max_row_sum(A);
  lu_ready_ = false;
  use_ldlt_ = false;
  if (symmetric) {
    ldlt_.compute(A);
    use_ldlt_ = ldlt_.info() == Eigen::Success;
    if (use_ldlt_) return true;
  }
  return factor_lu();
}

bool SparseSolver::factor_lu() {
  use_ldlt_ = false;
  lu_.analyzePattern(*A_);
  lu_.factorize(*A_);
  lu_ready_ = lu_.info() == Eigen::Success;
  return lu_ready_;
}

bool SparseSolver::accept(const Eigen::VectorXd& b, const Eigen::VectorXd& x) {
  if (!x.allFinite()) return false;
  check_.noalias() = *A_ * x;
  check_ -= b;
  const double scale =
      (b.size() == 0 ? 0.0 : b.cwiseAbs().maxCoeff()) + norm_ * (x.size() == 0 ? 0.0 : x.cwiseAbs().maxCoeff());
  return check_.size() == 0 || check_.cwiseAbs().maxCoeff() <= kResidual * scale;
}

bool SparseSolver::solve(const Eigen::VectorXd& b, Eigen::VectorXd& x) {
  if (A_ == nullptr) return false;
  if (use_ldlt_) {
    x = ldlt_.solve(b);
    if (accept(b, x)) return true;
    // LDLᵀ without pivoting can be unstable on an indefinite matrix: LU instead.
    if (!lu_ready_ && !factor_lu()) return false;
  }
  if (!lu_ready_) return false;
  x = lu_.solve(b);
  return accept(b, x);
}

bool SparseNewtonSystem::solve(const SparseMatrix& J, bool symmetric, const Eigen::VectorXd& Da,
                               const Eigen::VectorXd& Db, const Eigen::VectorXd& phi, Eigen::VectorXd& d) {
  const Eigen::Index n = phi.size();
  d.setZero(n);
  if (!eliminate_identity_rows(Da, Db, phi, d, eliminated_, rest_)) return false;
  if (!rest_.empty()) {
    // Right-hand side of the rows kept: (−Φ_R − Db_R ∘ (J_RN d_N)) / Db_R, with d_R = 0 in d here.
    check_.noalias() = J * d;
    const auto m = static_cast<Eigen::Index>(rest_.size());
    rhs_.resize(m);
    Eigen::VectorXd shift(m);
    for (Eigen::Index b = 0; b < m; ++b) {
      const Eigen::Index i = rest_[static_cast<std::size_t>(b)];
      rhs_[b] = (-phi[i] - Db[i] * check_[i]) / Db[i];
      shift[b] = Da[i] / Db[i];
    }
    reduced_ = submatrix(J, rest_, rest_, position_);
    SparseMatrix diagonal(m, m);
    diagonal.reserve(Eigen::VectorXi::Constant(m, 1));
    for (Eigen::Index b = 0; b < m; ++b) diagonal.insert(b, b) = shift[b];
    reduced_ += diagonal;
    reduced_.makeCompressed();
    if (!solver_.compute(reduced_, symmetric) || !solver_.solve(rhs_, solution_)) return false;
    for (Eigen::Index b = 0; b < m; ++b) d[rest_[static_cast<std::size_t>(b)]] = solution_[b];
  }
  if (!d.allFinite()) return false;
  // H d = −Φ checked without forming H: Da∘d + Db∘(J d) + Φ.
  check_.noalias() = J * d;
  const double residual = n == 0 ? 0.0 : (Da.cwiseProduct(d) + Db.cwiseProduct(check_) + phi).cwiseAbs().maxCoeff();
  const double h_norm = n == 0 ? 0.0 : Da.cwiseAbs().maxCoeff() + Db.cwiseAbs().maxCoeff() * max_row_sum(J);
  const double scale = n == 0 ? 0.0 : phi.cwiseAbs().maxCoeff() + h_norm * d.cwiseAbs().maxCoeff();
  return residual <= kSystemResidual * scale;
}

}  // namespace perp::detail
