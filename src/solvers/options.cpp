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
}

}  // namespace perp
