#pragma once
/// \file
/// Residuals of a candidate LCP solution, computed one way for every method.
/// The natural residual ‖min(z, w)‖∞ is the headline figure: it is zero exactly at a
/// solution, and it measures violations of z >= 0, w >= 0 and z·w = 0 in the units of z, w.

#include <Eigen/Dense>
#include <vector>

#include "perp/core/lcp.hpp"

namespace perp {

/// ‖min(z, w)‖∞, componentwise min. Sizes must agree.
[[nodiscard]] double natural_residual(const Eigen::VectorXd& z, const Eigen::VectorXd& w);
/// ‖min(z, M z + q)‖∞.
[[nodiscard]] double natural_residual(const Lcp& problem, const Eigen::VectorXd& z);
/// ‖φ_FB(z, w)‖₂ with φ_FB(a, b) = √(a² + b²) − a − b (core/ncp_function.hpp).
[[nodiscard]] double fischer_burmeister_residual(const Eigen::VectorXd& z, const Eigen::VectorXd& w);
/// zᵀw. Zero at a solution; can be negative when z or w is infeasible.
[[nodiscard]] double complementarity_gap(const Eigen::VectorXd& z, const Eigen::VectorXd& w);
/// max(0, −min_i v_i): how far v is from v >= 0 (0 when it is nonnegative).
[[nodiscard]] double nonnegativity_violation(const Eigen::VectorXd& v);

/// All residual measures at once, for reports.
struct Residuals {
  double natural = 0;             ///< ‖min(z, w)‖∞
  double fischer_burmeister = 0;  ///< ‖φ_FB(z, w)‖₂
  double gap = 0;                 ///< zᵀw
  double z_violation = 0;         ///< worst violation of z >= 0
  double w_violation = 0;         ///< worst violation of w >= 0
};
[[nodiscard]] Residuals residuals(const Eigen::VectorXd& z, const Eigen::VectorXd& w);
[[nodiscard]] Residuals residuals(const Lcp& problem, const Eigen::VectorXd& z);

/// Which of the three conditions fail for one pair (z_i, w_i).
struct PairCheck {
  bool z_nonnegative = true;  ///< z_i >= −tol
  bool w_nonnegative = true;  ///< w_i >= −tol
  bool complementary = true;  ///< |min(z_i, w_i)| <= tol, i.e. one of them is (near) zero
  [[nodiscard]] bool ok() const { return z_nonnegative && w_nonnegative && complementary; }
};

/// Check one pair with an absolute tolerance (tol >= 0).
[[nodiscard]] PairCheck check_complementarity(double z, double w, double tol);

/// Per-component result of checking 0 <= z ⊥ w >= 0.
struct ComplementarityCheck {
  std::vector<PairCheck> pairs;
  [[nodiscard]] bool ok() const;
  /// 0-based indices of the pairs that fail at least one condition.
  [[nodiscard]] std::vector<Eigen::Index> failing() const;
  /// "all 3 pairs satisfy ..." or one line per failing pair naming what fails.
  [[nodiscard]] std::string describe() const;
};
/// Check every pair; throws `InvalidProblem` if the sizes differ or tol < 0.
[[nodiscard]] ComplementarityCheck check_complementarity(const Eigen::VectorXd& z, const Eigen::VectorXd& w,
                                                         double tol);

}  // namespace perp
