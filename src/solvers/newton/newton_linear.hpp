#pragma once
// Private linear algebra of the Newton-type kernels (not installed): the symmetric positive
// semidefinite systems they factor, which stay solvable where the matrix is singular (contact
// Delassus operators M = J W Jᵀ with more contacts than degrees of freedom), and the Newton
// system H d = −Φ of the semismooth Newton family built on it.

#include <Eigen/Dense>
#include <vector>

namespace perp::detail {

/// A x = b for a symmetric positive semidefinite A that may be singular, when b lies in the range
/// of A (as −q_α does for the contact LCP, q = J v). Cholesky first; where it fails (A singular,
/// or indefinite only by round-off), the Cholesky factor of A + εI with ε = kRegularization·max
/// A_ii, refined by iterated Tikhonov steps x ← x + (A + εI)⁻¹(b − A x) from x = 0 (each divides
/// the error along an eigenvalue λ by 1 + λ/ε and leaves the null space alone, so x tends to the
/// least-norm solution). Once one matrix needed the shift, the next ones go to it directly
/// (`compute` of a Newton iteration's next reduced matrix skips the failing plain attempt).
class SemidefiniteSolver {
 public:
  /// Factors A, of which only the lower triangle is read. False when even A + εI has no Cholesky
  /// factor (A is not positive semidefinite: the caller falls back to LU).
  bool compute(const Eigen::MatrixXd& A);
  /// x ≈ A⁻¹ b (A the matrix given to `compute`, lower triangle). Refined until
  /// ‖A x − b‖∞ <= kRefinementResidual·(‖b‖∞ + max|A|·‖x‖∞), at most kRefinements steps.
  void solve(const Eigen::MatrixXd& A, const Eigen::VectorXd& b, Eigen::VectorXd& x);
  /// Whether the last `compute` needed the shift εI.
  [[nodiscard]] bool regularized() const { return regularized_; }

  static constexpr double kRegularization = 1e-11;
  static constexpr double kRefinementResidual = 1e-14;
  static constexpr int kRefinements = 8;

 private:
  Eigen::LLT<Eigen::MatrixXd, Eigen::Lower> llt_;
  Eigen::MatrixXd shifted_;
  Eigen::VectorXd residual_, step_;
  bool regularized_ = false;
  bool singular_seen_ = false;
};

/// The first part of a Newton system's reduction, for dense and sparse J alike: the rows with
/// |Db_i| <= kIdentityRow·|Da_i| (H's row is Da_i e_i) into `eliminated`, with d_i = −Φ_i/Da_i, and
/// the others into `rest`; d is left untouched on `rest`. False when such a row has Da_i = 0.
bool eliminate_identity_rows(const Eigen::VectorXd& Da, const Eigen::VectorXd& Db, const Eigen::VectorXd& phi,
                             Eigen::VectorXd& d, std::vector<Eigen::Index>& eliminated,
                             std::vector<Eigen::Index>& rest);

/// The semismooth Newton system H d = −Φ with H = diag(Da) + diag(Db) J (src/solvers/newton.cpp).
/// For a symmetric J the rows where D_b ≈ 0 are eliminated (d_i = −Φ_i / Da_i) and the rest,
/// divided by D_b, is the symmetric (J_RR + diag(Da_R / Db_R)) d_R = −Φ_R / Db_R − J_RN d_N, solved
/// by `SemidefiniteSolver` (singular J_RR included); otherwise, or where that matrix is
/// indefinite, by LU of H.
///
/// Once a reduced matrix has been singular (J singular positive semidefinite, as a contact
/// Delassus operator is), the steps that follow solve the proximal system H_μ d = −Φ with
/// H_μ = diag(Da) + diag(Db)(J + μI), μ = `proximal`: the Newton step of F + μ(z − z_k) at z_k
/// (one step of the proximal point method, whose subproblems are strongly monotone). The reduced
/// matrix gains μ on its diagonal, which bounds the step along the nearly singular directions
/// (eigenvalues of J_RR down to 1e-8·max J_ii on the contact benchmark) that an exact step follows
/// to lengths of 10³ and more; the caller lets μ fall with ‖Φ‖ so the fast local rate returns.
class NewtonSystem {
 public:
  /// Returns false when the system is singular (no finite d that satisfies it to
  /// ‖H_μ d + Φ‖∞ <= kSystemResidual·(‖Φ‖∞ + ‖H_μ‖·‖d‖∞)). μ = `proximal` >= 0 is used only
  /// once a reduced matrix has been found singular (see `singular_seen`); 0 otherwise.
  bool solve(const Eigen::MatrixXd& J, bool symmetric, const Eigen::VectorXd& Da, const Eigen::VectorXd& Db,
             const Eigen::VectorXd& phi, Eigen::VectorXd& d, double proximal = 0.0);

  /// Whether some reduced matrix of this system was singular (it then solves by the shifted,
  /// refined Cholesky and applies the proximal shift).
  [[nodiscard]] bool singular_seen() const { return singular_seen_; }
  /// How the systems so far were solved: by the symmetric reduction once a reduced matrix has been
  /// singular (the shifted, refined Cholesky, with the proximal shift where one was given), and by
  /// the full LU of H (non-symmetric J, or an indefinite reduced matrix).
  [[nodiscard]] int singular_steps() const { return singular_steps_; }
  [[nodiscard]] int lu_steps() const { return lu_steps_; }

  // Rows with |D_b| <= kIdentityRow·|D_a| are treated as D_a e_i (eliminated from the symmetric system).
  static constexpr double kIdentityRow = 1e-12;
  static constexpr double kSystemResidual = 1e-8;

 private:
  bool solve_symmetric(const Eigen::MatrixXd& J, const Eigen::VectorXd& Da, const Eigen::VectorXd& Db,
                       const Eigen::VectorXd& phi, Eigen::VectorXd& d, double proximal, double& applied);

  Eigen::MatrixXd H_, reduced_;
  Eigen::VectorXd rhs_, solution_, check_;
  Eigen::PartialPivLU<Eigen::MatrixXd> lu_;
  SemidefiniteSolver semidefinite_;
  std::vector<Eigen::Index> rest_, eliminated_;
  bool singular_seen_ = false;
  int singular_steps_ = 0;
  int lu_steps_ = 0;
};

}  // namespace perp::detail
