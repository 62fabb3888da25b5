#pragma once
// Private sparse linear algebra of the nonlinear kernels (not installed): what path and the Newton
// family need when an `Mcp` gives its Jacobian as `J_sparse` (docs/solvers.md, "Sparse nonlinear
// problems"). Nothing here forms a dense n×n matrix.

#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>
#include <Eigen/SparseLU>
#include <vector>

namespace perp::detail {

using SparseMatrix = Eigen::SparseMatrix<double>;

/// Whether A equals its transpose exactly (A compressed).
[[nodiscard]] bool is_symmetric(const SparseMatrix& A);
/// ‖A‖∞ = max_i Σ_j |A_ij| and ‖A‖₁ = max_j Σ_i |A_ij|.
[[nodiscard]] double max_row_sum(const SparseMatrix& A);
[[nodiscard]] double max_column_sum(const SparseMatrix& A);
/// A lower bound on the smallest eigenvalue of ½(A + Aᵀ) (Gershgorin's discs).
[[nodiscard]] double gershgorin_lower_bound(const SparseMatrix& A);
/// The rows `rows` and columns `cols` of A (both as lists of indices; the result's row k is A's row
/// rows[k]); `position` is a scratch vector.
[[nodiscard]] SparseMatrix submatrix(const SparseMatrix& A, const std::vector<Eigen::Index>& rows,
                                     const std::vector<Eigen::Index>& cols, std::vector<Eigen::Index>& position);

/// A x = b for a square sparse A: LDLᵀ with AMD ordering (SimplicialLDLT) when A is symmetric,
/// otherwise, or when that factorization fails or does not satisfy the system, LU with COLAMD
/// ordering (SparseLU). A solve is accepted only when ‖A x − b‖∞ <= kResidual (‖b‖∞ + ‖A‖∞ ‖x‖∞).
class SparseSolver {
 public:
  /// False when neither factorization exists (A singular to working precision).
  bool compute(const SparseMatrix& A, bool symmetric);
  /// False when the solution is not finite or misses the residual test.
  bool solve(const Eigen::VectorXd& b, Eigen::VectorXd& x);
  /// "LDL^T" or "LU": the factorization of the last successful `compute`.
  [[nodiscard]] const char* kind() const { return use_ldlt_ ? "LDL^T" : "LU"; }

  static constexpr double kResidual = 1e-8;

 private:
  bool factor_lu();
  bool accept(const Eigen::VectorXd& b, const Eigen::VectorXd& x);

  const SparseMatrix* A_ = nullptr;
  double norm_ = 0;
  bool use_ldlt_ = false;
  bool lu_ready_ = false;
  Eigen::SimplicialLDLT<SparseMatrix> ldlt_;
  Eigen::SparseLU<SparseMatrix, Eigen::COLAMDOrdering<int>> lu_;
  Eigen::VectorXd check_;
};

/// The semismooth Newton system H d = −Φ, H = diag(Da) + diag(Db) J, with J sparse (the sparse
/// counterpart of `NewtonSystem`, newton_linear.hpp). Rows with |Db_i| <= NewtonSystem::kIdentityRow·|Da_i| give
/// d_i = −Φ_i/Da_i; the rest is the reduced system (J_RR + diag(Da_R/Db_R)) d_R = −Φ_R/Db_R − J_RN d_N,
/// symmetric when J is (LDLᵀ), otherwise LU (`SparseSolver`).
class SparseNewtonSystem {
 public:
  /// False when the system is singular or its solution misses ‖H d + Φ‖∞ <= kSystemResidual·(‖Φ‖∞ +
  /// ‖H‖∞‖d‖∞).
  bool solve(const SparseMatrix& J, bool symmetric, const Eigen::VectorXd& Da, const Eigen::VectorXd& Db,
             const Eigen::VectorXd& phi, Eigen::VectorXd& d);

  static constexpr double kSystemResidual = 1e-8;

 private:
  SparseSolver solver_;
  SparseMatrix reduced_;
  std::vector<Eigen::Index> rest_, eliminated_, position_;
  Eigen::VectorXd rhs_, solution_, full_, check_;
};

}  // namespace perp::detail
