#pragma once
/// \file
/// Nonlinear complementarity problems: the NCP (z >= 0 ⊥ F(z) >= 0) and the mixed
/// complementarity problem MCP with box bounds (chapter §1.6). An `Lcp` is the NCP with
/// F(z) = M z + q; the Newton methods run all three through the same code.

#include <Eigen/Dense>
#include <functional>

namespace perp {

/// F: ℝⁿ → ℝⁿ.
using VectorFunction = std::function<Eigen::VectorXd(const Eigen::VectorXd&)>;
/// The dense Jacobian J(z) = ∂F/∂z, n×n (row i = gradient of F_i).
using JacobianFunction = std::function<Eigen::MatrixXd(const Eigen::VectorXd&)>;

/// Find z >= 0 with F(z) >= 0 and zᵀF(z) = 0.
struct Ncp {
  Eigen::Index n = 0;  ///< number of variables (and of components of F)
  VectorFunction F;    ///< must return n finite values
  JacobianFunction J;  ///< must return a finite n×n matrix

  [[nodiscard]] Eigen::Index size() const { return n; }
  /// Throws `InvalidProblem` when n < 0 or F or J is empty. What F and J return is checked
  /// each time they are called (`evaluate_function`, `evaluate_jacobian`).
  void validate() const;
};

/// Find z in the box [lower, upper] such that for each i:
///   z_i = lower_i ⇒ F_i(z) >= 0,  z_i = upper_i ⇒ F_i(z) <= 0,  lower_i < z_i < upper_i ⇒ F_i(z) = 0.
/// Bounds may be infinite: lower_i = −∞ and upper_i = +∞ make z_i free (F_i(z) = 0); lower = 0,
/// upper = +∞ everywhere is the NCP.
struct Mcp {
  VectorFunction F;
  JacobianFunction J;
  Eigen::VectorXd lower;  ///< n entries in [−∞, +∞), not NaN
  Eigen::VectorXd upper;  ///< n entries in (−∞, +∞], not NaN, upper >= lower

  [[nodiscard]] Eigen::Index size() const { return lower.size(); }
  /// Throws `InvalidProblem` when F or J is empty, the bounds differ in size, a bound is NaN,
  /// lower_i = +∞, upper_i = −∞ or lower_i > upper_i (naming the index and both values).
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

/// The MCP's natural residual ‖z − mid(lower, upper, z − F)‖∞: zero exactly at a solution, and
/// for bounds [0, +∞) equal to the NCP's ‖min(z, F)‖∞. Sizes must agree.
[[nodiscard]] double natural_residual(const Eigen::VectorXd& z, const Eigen::VectorXd& F, const Eigen::VectorXd& lower,
                                      const Eigen::VectorXd& upper);

}  // namespace perp
