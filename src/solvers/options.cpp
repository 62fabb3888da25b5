#include "perp/solvers/options.hpp"

#include <cmath>
#include <string>

#include "perp/core/error.hpp"
#include "perp/core/lcp.hpp"

namespace perp {

void SolveOptions::validate(Eigen::Index n) const {
  if (!(std::isfinite(tolerance) && tolerance > 0.0)) {
    throw InvalidProblem("tolerance must be finite and > 0, got " + std::to_string(tolerance));
  }
  if (max_iterations < 0) {
    throw InvalidProblem("max_iterations must be >= 0 (0 = method default), got " + std::to_string(max_iterations));
  }
  if (initial_guess) {
    require_size(*initial_guess, n, "initial_guess");
    require_finite(*initial_guess, "initial_guess");
  }
  if (relaxation && !(*relaxation > 0.0 && *relaxation < 2.0)) {
    throw InvalidProblem("relaxation must be in (0, 2), got " + std::to_string(*relaxation));
  }
  if (lemke.covering_vector) {
    const Eigen::VectorXd& d = *lemke.covering_vector;
    require_size(d, n, "lemke.covering_vector");
    require_finite(d, "lemke.covering_vector");
    for (Eigen::Index i = 0; i < d.size(); ++i) {
      if (!(d[i] > 0.0)) {
        throw InvalidProblem("lemke.covering_vector[" + std::to_string(i) + "] must be > 0, got " +
                             std::to_string(d[i]));
      }
    }
  }
  if (!(std::isfinite(lemke.pivot_tolerance) && lemke.pivot_tolerance > 0.0)) {
    throw InvalidProblem("lemke.pivot_tolerance must be finite and > 0, got " + std::to_string(lemke.pivot_tolerance));
  }
  const auto in_open = [](double value, double low, double high) { return value > low && value < high; };
  if (!in_open(newton.armijo, 0.0, 0.5)) {
    throw InvalidProblem("newton.armijo must be in (0, 0.5), got " + std::to_string(newton.armijo));
  }
  if (!in_open(newton.backtrack, 0.0, 1.0)) {
    throw InvalidProblem("newton.backtrack must be in (0, 1), got " + std::to_string(newton.backtrack));
  }
  if (newton.max_backtracks < 0) {
    throw InvalidProblem("newton.max_backtracks must be >= 0, got " + std::to_string(newton.max_backtracks));
  }
  if (newton.nonmonotone_memory < 0) {
    throw InvalidProblem("newton.nonmonotone_memory must be >= 0, got " + std::to_string(newton.nonmonotone_memory));
  }
  if (!(std::isfinite(newton.descent_rho) && newton.descent_rho >= 0.0)) {
    throw InvalidProblem("newton.descent_rho must be finite and >= 0, got " + std::to_string(newton.descent_rho));
  }
  if (!(newton.penalty > 0.0 && newton.penalty <= 1.0)) {
    throw InvalidProblem("newton.penalty must be in (0, 1], got " + std::to_string(newton.penalty));
  }
  if (!(std::isfinite(newton.smoothing_mu) && newton.smoothing_mu >= 0.0)) {
    throw InvalidProblem("newton.smoothing_mu must be finite and >= 0 (0 = automatic), got " +
                         std::to_string(newton.smoothing_mu));
  }
  if (!in_open(newton.smoothing_factor, 0.0, 1.0)) {
    throw InvalidProblem("newton.smoothing_factor must be in (0, 1), got " + std::to_string(newton.smoothing_factor));
  }
  if (!in_open(interior_point.step_fraction, 0.0, 1.0)) {
    throw InvalidProblem("interior_point.step_fraction must be in (0, 1), got " +
                         std::to_string(interior_point.step_fraction));
  }
  if (!in_open(dantzig.pivot_tolerance, 0.0, 1.0)) {
    throw InvalidProblem("dantzig.pivot_tolerance must be in (0, 1), got " + std::to_string(dantzig.pivot_tolerance));
  }
  if (max_friction_passes < 1) {
    throw InvalidProblem("max_friction_passes must be >= 1, got " + std::to_string(max_friction_passes));
  }
}

}  // namespace perp
