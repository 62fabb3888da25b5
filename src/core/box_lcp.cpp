#include "perp/core/box_lcp.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "perp/core/error.hpp"
#include "perp/core/ncp.hpp"

namespace perp {
void BoxLcp::validate() const {
  validate_lcp_data(M, q);
  const Eigen::Index n = q.size();
  if (lower.size() != n) {
    throw InvalidProblem("lower: expected size " + std::to_string(n) + " (M is " + std::to_string(n) + "x" +
                         std::to_string(n) + "), got " + std::to_string(lower.size()));
  }
  if (upper.size() != n) {
    throw InvalidProblem("upper: expected size " + std::to_string(n) + " (M is " + std::to_string(n) + "x" +
                         std::to_string(n) + "), got " + std::to_string(upper.size()));
  }
  std::vector<int> coupled(static_cast<std::size_t>(n), 0);
  for (std::size_t k = 0; k < friction.size(); ++k) {
    const FrictionCoupling& c = friction[k];
    const std::string at = "friction[" + std::to_string(k) + "]";
    if (c.index < 0 || c.index >= n) {
      throw InvalidProblem(at + ".index = " + std::to_string(c.index) + " is out of range [0, " + std::to_string(n) +
                           ")");
    }
    if (c.normal < 0 || c.normal >= n) {
      throw InvalidProblem(at + ".normal = " + std::to_string(c.normal) + " is out of range [0, " + std::to_string(n) +
                           ")");
    }
    if (c.index == c.normal) {
      throw InvalidProblem(at + ": index and normal are both " + std::to_string(c.index) +
                           "; a component cannot bound itself");
    }
    if (!std::isfinite(c.mu) || c.mu < 0) {
      throw InvalidProblem(at + ".mu = " + number_text(c.mu) + "; the friction coefficient must be finite and >= 0");
    }
    if (coupled[static_cast<std::size_t>(c.index)]++ > 0) {
      throw InvalidProblem(at + ": component " + std::to_string(c.index) + " is coupled twice");
    }
  }
  for (std::size_t k = 0; k < friction.size(); ++k) {
    if (coupled[static_cast<std::size_t>(friction[k].normal)] > 0) {
      throw InvalidProblem("friction[" + std::to_string(k) + "].normal = " + std::to_string(friction[k].normal) +
                           " is itself a coupled component; a normal must have fixed bounds");
    }
  }
  for (Eigen::Index i = 0; i < n; ++i) {
    // A coupled component's bounds come from the coupling: only NaN is refused in its own.
    require_valid_bounds(lower[i], upper[i], i, "", coupled[static_cast<std::size_t>(i)] > 0);
  }
}

Eigen::VectorXd BoxLcp::slack(const Eigen::VectorXd& z) const {
  require_size(z, q.size(), "z");
  Eigen::VectorXd w = q;
  w.noalias() += M * z;
  return w;
}

void BoxLcp::bounds_at(const Eigen::VectorXd& z, Eigen::VectorXd& lo, Eigen::VectorXd& hi) const {
  require_size(z, q.size(), "z");
  lo = lower;
  hi = upper;
  for (const FrictionCoupling& c : friction) {
    const double bound = c.mu * std::abs(z[c.normal]);
    lo[c.index] = -bound;
    hi[c.index] = bound;
  }
}

BoxLcp to_box_lcp(const Lcp& problem) {
  const Eigen::Index n = problem.size();
  return BoxLcp{problem.M,
                problem.q,
                Eigen::VectorXd::Zero(n),
                Eigen::VectorXd::Constant(n, std::numeric_limits<double>::infinity()),
                {}};
}

double natural_residual(const BoxLcp& problem, const Eigen::VectorXd& z) {
  Eigen::VectorXd lo;
  Eigen::VectorXd hi;
  problem.bounds_at(z, lo, hi);
  return natural_residual(z, problem.slack(z), lo, hi);
}

}  // namespace perp
