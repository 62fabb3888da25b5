#pragma once
/// \file
/// Residuals of a candidate LCP solution, computed one way for every method, and the one
/// definition of "solved" (docs/solvers.md, "When a point counts as solved").
///
/// - The natural residual ‖min(z, w)‖∞ (`natural_residual`; for bounds [l, u]
///   ‖z − mid(l, u, z − w)‖∞) is zero exactly at a solution and measures violations of z >= 0,
///   w >= 0 and z·w = 0 in the units of z and w. It is `Result::residual`: reported, not judged.
/// - The relative residual (`relative_residual` below) is the natural residual at the problem's
///   own scale, dimensionless. It is `Result::relative_residual`.
/// - Solved (`Status::Solved`): the relative residual <= `SolveOptions::tolerance`, for every
///   method and every complementarity problem type (Lcp, BoxLcp, Mlcp, Mcp, Ncp, SparseLcp,
///   FactoredLcp, Qp through its KKT LCP). The frictional contact problems (FrictionContact,
///   FactoredFrictionContact, GlobalFrictionContact) are judged instead by Siconos' relative error
///   of the reaction, `FrictionContactResiduals::relative_error` (core/friction_contact.hpp), against
///   the same tolerance; their `Result::residual` and `relative_residual` both hold it.

#include <Eigen/Dense>
#include <Eigen/SparseCore>
#include <vector>

#include "perp/core/lcp.hpp"

namespace perp {
struct BoxLcp;
struct Mlcp;
}  // namespace perp

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

/// The relative natural residual: the figure every method's "solved" is judged by, for every
/// problem type (docs/solvers.md, "When a point counts as solved"). z and w are measured at the
/// problem's own scale at z:
///   Z = ‖z‖∞ (when z = 0: the largest finite bound of the box, else 1),
///   W = ‖q‖∞ (when q = 0: max_i Σ_j |M_ij| |z_j|),
/// and the natural residual is taken of z/Z and w/W (bounds divided by Z):
///   ‖z/Z − mid(lo/Z, hi/Z, z/Z − w/W)‖∞,  for the LCP  ‖min(z/Z, w/W)‖∞.
/// Unchanged when (M, q) is multiplied by any s > 0 (z unchanged, w scaled by s) or when q and z
/// are (M z + q with z scaled by s). W is the data's, not the point's: a w whose terms are large
/// (z far out) is not judged on a larger scale, so a sequence z → ∞ towards no solution never
/// passes (with W = ‖q‖∞, w >= −ε‖q‖∞ contradicts a Farkas certificate for small ε), and w's
/// round-off must itself be below the tolerance at that scale. Computed in long double, so that
/// neither the scales nor the quotients overflow or underflow for any finite data.
[[nodiscard]] double relative_residual(const Lcp& problem, const Eigen::VectorXd& z, const Eigen::VectorXd& w);
/// The same for a box LCP (the bounds in force at z, `BoxLcp::bounds_at`) and an MLCP (u free:
/// its rows count |w_i|/W, the equality residual at scale).
[[nodiscard]] double relative_residual(const BoxLcp& problem, const Eigen::VectorXd& z, const Eigen::VectorXd& w);
[[nodiscard]] double relative_residual(const Mlcp& problem, const Eigen::VectorXd& z, const Eigen::VectorXd& w);
/// The same for an MCP with F = F(z) and J = J(z): the linearization F(z) = J z + (F(z) − J z)
/// gives the scale, W = ‖F(z) − J z‖∞ (the LCP's ‖q‖∞ for F = M z + q; when it is 0,
/// max_i Σ_j |J_ij z_j|).
[[nodiscard]] double relative_residual(const Eigen::VectorXd& z, const Eigen::VectorXd& F, const Eigen::MatrixXd& J,
                                       const Eigen::VectorXd& lower, const Eigen::VectorXd& upper);
/// The same with a sparse J (O(nnz(J)); the scales are the dense overload's).
[[nodiscard]] double relative_residual(const Eigen::VectorXd& z, const Eigen::VectorXd& F,
                                       const Eigen::SparseMatrix<double>& J, const Eigen::VectorXd& lower,
                                       const Eigen::VectorXd& upper);

/// W = ‖q‖∞, or when q = 0, max_i Σ_j |M_ij| |z_j| (long double: never overflows for finite data).
[[nodiscard]] long double w_scale(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, const Eigen::VectorXd& z);
/// Z = ‖z‖∞; when z = 0, the largest finite |bound| of [lo, hi], else 1. Empty lo/hi: no bounds.
[[nodiscard]] long double z_scale(const Eigen::VectorXd& z, const Eigen::VectorXd& lo, const Eigen::VectorXd& hi);
/// ‖z/Z − mid(lo/Z, hi/Z, z/Z − w/W)‖∞ for given scales (the relative residual's last step).
/// Empty lo/hi mean the LCP's [0, +∞).
[[nodiscard]] double scaled_natural_residual(const Eigen::VectorXd& z, const Eigen::VectorXd& w,
                                             const Eigen::VectorXd& lo, const Eigen::VectorXd& hi, long double Z,
                                             long double W);

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
