#include "judgement.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "entry/detail.hpp"
#include "perp/core/error.hpp"

namespace perp::detail::friction {

// The judgement of the frictional contact problem, in place of the pipeline's `settle`: on the
// relative error `residuals` of the point, and on its velocities. Siconos' error divides by
// max(‖q‖, ‖r‖, ‖u‖), so a sequence r → ∞ drives it to 0 on a problem with no solution (W = 0,
// q_N < 0: u_N = q_N whatever r). A point is accepted only when, besides, no contact approaches
// faster than √tol · max(‖q‖∞, ‖u‖∞): measured in velocities alone, which such sequences cannot
// shrink. An `Infeasible` proof is kept; a status left `NotRun` becomes `NoSolutionFound` (as settle).
void judge_point(const FrictionContact& problem, const SolveOptions& options, const FrictionContactResiduals& residuals,
                 bool overflowed, Result& result) {
  if (result.status == Status::NotRun) result.status = Status::NoSolutionFound;
  const double velocity_scale = std::max(problem.q.lpNorm<Eigen::Infinity>(), result.w.lpNorm<Eigen::Infinity>());
  const double approach_limit = std::sqrt(options.tolerance) * velocity_scale;
  const bool penetrating = residuals.signorini > approach_limit;
  if (overflowed) {
    result.status = Status::NumericalFailure;
    result.message += "; u = W r + q overflowed at the point reached, so r = 0 is returned instead";
  } else if (result.solved() && !(result.residual <= options.tolerance)) {
    result.status = Status::NumericalFailure;
    result.message += "; but the recomputed relative error " + number_text(result.residual) + " misses the tolerance";
  } else if (result.solved() && penetrating) {
    result.status = Status::NoSolutionFound;
    result.message += "; but a contact still approaches at " + number_text(residuals.signorini) +
                      " (more than sqrt(tol) * max|u|, max|q|): the relative error shrinks only because r grows "
                      "without bound, the sign of a problem with no solution";
  } else if (!result.solved() && result.status != Status::Infeasible && result.residual <= options.tolerance &&
             !penetrating) {
    result.message += "; the point reached solves to the tolerance nevertheless (was " + to_string(result.status) + ")";
    result.status = Status::Solved;
  }
  detail::mark_stopped(result);  // unsolved while time_limit or the interrupt stopped it: that status
}

// n = 0, or q_N >= 0 at every contact: r = 0 solves (u = q, û_N = q_N + μ‖q_T‖ >= μ‖q_T‖),
// confirmed by its residual.
std::optional<Result> trivial_result(const FrictionContact& problem) {
  Result result;
  if (problem.size() == 0) {
    result.status = Status::Solved;
    result.message = "empty problem (no contacts)";
    return result;
  }
  const int d = problem.dimension;
  for (Eigen::Index i = 0; i < problem.contacts(); ++i) {
    if (problem.q[i * d] < 0) return std::nullopt;
  }
  result.z = Eigen::VectorXd::Zero(problem.size());
  if (friction_contact_residuals(problem, result.z, problem.q).relative_error != 0.0) return std::nullopt;
  result.status = Status::Solved;
  result.message = "q_N >= 0 at every contact: r = 0 solves exactly (every contact separates)";
  return result;
}

// The refusals of a FrictionContact beyond the method table's (pipeline.hpp's check_method) and
// SolveOptions::validate: the permutation's size, and an option no method reads here.
void check_friction_options(const SolveOptions& options, Eigen::Index contacts) {
  options.friction_contact.validate(contacts);
  if (options.lemke.covering_vector) {
    throw InvalidProblem(
        "lemke.covering_vector is not read on a FrictionContact (lemke pivots on an LCP of its own "
        "size there); leave it unset");
  }
}

// The start of a method: `initial_guess`, else r = 0.
Eigen::VectorXd start_of(const SolveOptions& options, Eigen::Index size) {
  return options.initial_guess.value_or(Eigen::VectorXd::Zero(size));
}

}  // namespace perp::detail::friction
