#pragma once
/// \file
/// The box-constrained LCP (a linear MCP), with the friction coupling of ODE-style engines.

#include <Eigen/Dense>
#include <vector>

#include "perp/core/lcp.hpp"

namespace perp {

/// Ties the bounds of a tangential component to a normal one (ODE's "findex"):
///   −μ |z_normal| <= z_index <= μ |z_normal|,
/// so the bounds move as the normal force z_normal changes (Coulomb's cone, faceted by the
/// tangential directions). For a normal force z_normal >= 0 that is −μ z_normal <= z_index <= μ z_normal.
struct FrictionCoupling {
  Eigen::Index index = 0;   ///< the coupled (tangential) component i, 0-based
  Eigen::Index normal = 0;  ///< the component j whose value bounds z_i, 0-based, j != i
  double mu = 0;            ///< friction coefficient μ_i, finite and >= 0
};

/// Find z with lower <= z <= upper and w = M z + q such that for each i:
///   z_i = lower_i ⇒ w_i >= 0,   z_i = upper_i ⇒ w_i <= 0,   lower_i < z_i < upper_i ⇒ w_i = 0
/// (equivalently z = mid(lower, upper, z − w)). Bounds may be infinite: lower = 0, upper = +∞
/// everywhere is the LCP; lower = −∞, upper = +∞ makes z_i free (w_i = 0); lower_i = upper_i
/// fixes z_i. For a component listed in `friction`, its bounds are −μ|z_j|, μ|z_j| at the
/// solution itself, and its `lower`/`upper` entries are ignored (they may be anything but NaN).
struct BoxLcp {
  Eigen::MatrixXd M;                       ///< n×n, dense
  Eigen::VectorXd q;                       ///< n
  Eigen::VectorXd lower;                   ///< n entries in [−∞, +∞), not NaN
  Eigen::VectorXd upper;                   ///< n entries in (−∞, +∞], not NaN, upper >= lower
  std::vector<FrictionCoupling> friction;  ///< optional; at most one entry per component

  [[nodiscard]] Eigen::Index size() const { return q.size(); }

  /// Throws `InvalidProblem` when M is not square, q/lower/upper do not match it, M or q holds
  /// NaN/Inf, a bound is NaN, lower_i = +∞, upper_i = −∞ or lower_i > upper_i (naming the index
  /// and both values); for `friction`: an index or normal out of range, index == normal, a
  /// component coupled twice, a normal that is itself coupled, or μ negative or not finite.
  void validate() const;

  /// w = M z + q. Throws `InvalidProblem` when z has the wrong size.
  [[nodiscard]] Eigen::VectorXd slack(const Eigen::VectorXd& z) const;

  /// The bounds in force at z: `lower`/`upper`, with each coupled component's replaced by
  /// ∓μ|z_normal|. Sizes `lo` and `hi` to n.
  void bounds_at(const Eigen::VectorXd& z, Eigen::VectorXd& lo, Eigen::VectorXd& hi) const;
};

/// The LCP as a box LCP: bounds [0, +∞).
[[nodiscard]] BoxLcp to_box_lcp(const Lcp& problem);

/// ‖z − mid(lo(z), hi(z), z − w)‖∞ with w = M z + q and the bounds in force at z (`bounds_at`):
/// zero exactly at a solution; for bounds [0, +∞) it is the LCP's ‖min(z, w)‖∞.
[[nodiscard]] double natural_residual(const BoxLcp& problem, const Eigen::VectorXd& z);

}  // namespace perp
