#pragma once
/// \file
/// Nonlinear complementarity problems: the NCP (z >= 0 ⊥ F(z) >= 0) and the mixed
/// complementarity problem MCP with box bounds ([chapter] §1.6). An `Lcp` is the NCP with
/// F(z) = M z + q; the Newton methods run all three through the same code.

#include <Eigen/Dense>
#include <Eigen/SparseCore>
#include <functional>

namespace perp {

/// F: ℝⁿ → ℝⁿ.
using VectorFunction = std::function<Eigen::VectorXd(const Eigen::VectorXd&)>;
/// The dense Jacobian J(z) = ∂F/∂z, n×n (row i = gradient of F_i).
using JacobianFunction = std::function<Eigen::MatrixXd(const Eigen::VectorXd&)>;
/// The sparse Jacobian J(z) = ∂F/∂z, n×n, compressed column storage: for large problems whose J has
/// few nonzeros per row (docs/solvers.md, "Sparse nonlinear problems"). Entries absent from the
/// pattern are zero; explicit zeros are allowed.
using SparseJacobianFunction = std::function<Eigen::SparseMatrix<double>(const Eigen::VectorXd&)>;

/// Find z >= 0 with F(z) >= 0 and zᵀF(z) = 0.
struct Ncp {
  Eigen::Index n = 0;  ///< number of variables (and of components of F)
  VectorFunction F;    ///< must return n finite values
  JacobianFunction J;  ///< must return a finite n×n matrix (dense); leave empty when J_sparse is set
  SparseJacobianFunction J_sparse;  ///< the same as a sparse matrix; set exactly one of J and J_sparse

  [[nodiscard]] Eigen::Index size() const { return n; }
  /// Throws `InvalidProblem` when n < 0, F is empty, or not exactly one of J and J_sparse is set.
  /// What F and J return is checked each time they are called (`evaluate_function`,
  /// `evaluate_jacobian`).
  void validate() const;
};

/// Find z in the box [lower, upper] such that for each i:
///   z_i = lower_i ⇒ F_i(z) >= 0,  z_i = upper_i ⇒ F_i(z) <= 0,  lower_i < z_i < upper_i ⇒ F_i(z) = 0.
/// Bounds may be infinite: lower_i = −∞ and upper_i = +∞ make z_i free (F_i(z) = 0); lower = 0,
/// upper = +∞ everywhere is the NCP.
struct Mcp {
  VectorFunction F;
  JacobianFunction J;     ///< dense J(z); leave empty when J_sparse is set
  Eigen::VectorXd lower;  ///< n entries in [−∞, +∞), not NaN
  Eigen::VectorXd upper;  ///< n entries in (−∞, +∞], not NaN, upper >= lower
  /// Sparse J(z) (set exactly one of J and J_sparse). With it, path and the Newton family factor
  /// sparse matrices only (Eigen's SimplicialLDLT / SparseLU) and never form an n×n dense matrix.
  SparseJacobianFunction J_sparse;

  [[nodiscard]] Eigen::Index size() const { return lower.size(); }
  /// Whether the Jacobian is given as a sparse matrix (J_sparse).
  [[nodiscard]] bool sparse() const { return static_cast<bool>(J_sparse); }
  /// Throws `InvalidProblem` when F is empty, not exactly one of J and J_sparse is set, the bounds
  /// differ in size, a bound is NaN, lower_i = +∞, upper_i = −∞ or lower_i > upper_i (naming the
  /// index and both values).
  void validate() const;
};

/// Bound pair i of a box (an `Mcp`'s, a `BoxLcp`'s): throws `InvalidProblem`
/// "PREFIXlower[i] is NaN", "PREFIXlower[i] is +inf; …", "PREFIXupper[i] is -inf; …" or
/// "PREFIXlower[i] = a > upper[i] = b". With `only_nan`, NaN is the only check.
void require_valid_bounds(double lower, double upper, Eigen::Index i, const char* prefix, bool only_nan = false);

/// The MCP form of an NCP: bounds [0, +∞).
[[nodiscard]] Mcp to_mcp(const Ncp& problem);

/// F(z), checked: throws `InvalidProblem` when F returns the wrong size or a NaN/±Inf entry,
/// naming `what` (for example "F at the start point"), the index and the value.
[[nodiscard]] Eigen::VectorXd evaluate_function(const VectorFunction& F, const Eigen::VectorXd& z, const char* what);
/// J(z), checked the same way (n×n, finite).
[[nodiscard]] Eigen::MatrixXd evaluate_jacobian(const JacobianFunction& J, const Eigen::VectorXd& z, const char* what);
/// The sparse J(z), checked the same way (n×n, every stored entry finite; the message names the
/// row and column of the first bad entry). Returned compressed.
[[nodiscard]] Eigen::SparseMatrix<double> evaluate_jacobian(const SparseJacobianFunction& J, const Eigen::VectorXd& z,
                                                            const char* what);

/// The MCP's natural residual ‖z − mid(lower, upper, z − F)‖∞: zero exactly at a solution, and
/// for bounds [0, +∞) equal to the NCP's ‖min(z, F)‖∞. Sizes must agree.
[[nodiscard]] double natural_residual(const Eigen::VectorXd& z, const Eigen::VectorXd& F, const Eigen::VectorXd& lower,
                                      const Eigen::VectorXd& upper);

}  // namespace perp
