#include "box_passes.hpp"

#include <cmath>
#include <string>
#include <utility>

#include "perp/core/error.hpp"
#include "perp/core/residual.hpp"

namespace perp::detail {

Result friction_passes(const BoxLcp& problem, Eigen::VectorXd z, const SolveOptions& options,
                       const FixedBoxSolve& solve_fixed) {
  const bool coupled = !problem.friction.empty();
  const int passes = coupled ? options.max_friction_passes : 1;
  Result total;
  Eigen::VectorXd lo, hi, next_lo, next_hi, w;
  problem.bounds_at(z, lo, hi);
  for (int pass = 1;; ++pass) {
    z = z.cwiseMax(lo).cwiseMin(hi);  // each pass starts inside its bounds
    FixedBoxOutcome out = solve_fixed(pass, lo, hi, z, w, total);
    total.status = out.status;
    total.message = std::move(out.message);
    if (total.status != Status::Solved) {
      if (coupled) total.message = "friction pass " + std::to_string(pass) + ": " + total.message;
      break;
    }
    if (!coupled) break;
    // The coupled bounds at the new z, and the one that moved most since the pass began.
    problem.bounds_at(z, next_lo, next_hi);
    double moved = 0;
    Eigen::Index where = 0;
    for (const FrictionCoupling& c : problem.friction) {
      const double change = std::abs(next_hi[c.index] - hi[c.index]);
      if (change > moved) {
        moved = change;
        where = c.index;
      }
    }
    lo.swap(next_lo);
    hi.swap(next_hi);
    if (relative_residual(problem, z, w) <= options.tolerance) {
      total.message += "; friction bounds settled after " + std::to_string(pass) + (pass == 1 ? " pass" : " passes");
      break;
    }
    if (pass >= passes) {
      total.status = Status::MaxIterations;
      total.message = "friction pass limit " + std::to_string(passes) +
                      " (max_friction_passes) reached: the bound of component " + std::to_string(where) +
                      " still moved by " + number_text(moved) + " in the last pass";
      break;
    }
  }
  total.z = std::move(z);
  return total;
}

}  // namespace perp::detail
