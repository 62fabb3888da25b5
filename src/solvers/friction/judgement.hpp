#pragma once
// Private: what the frictional contact problem's two entries share (friction_contact.cpp, the problem
// given by W and auto's chain on it; factored_friction_contact.cpp, the problem given by its
// factors): the point's recomputation and judgement, the trivial answer, the option checks, and
// auto's chain on W. Not installed.

#include <cmath>
#include <optional>

#include <Eigen/Dense>

#include "perp/core/friction_contact.hpp"
#include "perp/core/method.hpp"
#include "perp/core/result.hpp"
#include "perp/solvers/options.hpp"

namespace perp::detail::friction {

/// The residuals of a point where a method already formed them (nsgs does), else none.
using Fresh = std::optional<FrictionContactResiduals>;

/// z sized and finite, u = W r + q (`velocity`) and the relative error from z. `fresh`: the
/// residuals of (z, w) when the method formed w = W z + q from the z it returned (nsgs does, so the
/// product and the pass are not repeated); otherwise w and the residuals are formed here. On return
/// `fresh` holds the residuals of the returned (z, w). Returns whether u overflowed at the point
/// reached: the point is then dropped for r = 0 (u = q), as the contract keeps r and u finite.
template <class Velocity>
bool recompute_point(const FrictionContact& problem, const Velocity& velocity, Result& result, Fresh& fresh) {
  const Eigen::Index n = problem.size();
  if (result.z.size() != n) result.z = Eigen::VectorXd::Zero(n);
  if (!result.z.allFinite() || result.w.size() != n) fresh.reset();
  for (Eigen::Index i = 0; i < n; ++i) {
    if (!std::isfinite(result.z[i])) result.z[i] = 0.0;
  }
  if (!fresh) result.w = velocity(result.z);
  bool overflowed = false;
  if (!result.w.allFinite()) {
    overflowed = true;
    result.z.setZero();
    result.w = problem.q;
    fresh.reset();
  }
  if (!fresh) fresh = friction_contact_residuals(problem, result.z, result.w);
  result.residual = fresh->relative_error;
  // The frictional error is already relative (Siconos' measure, docs/solvers.md "Frictional contact").
  result.relative_residual = result.residual;
  return overflowed;
}

/// The judgement of the frictional contact problem, in place of the pipeline's `settle`: on the
/// relative error `residuals` of the point, and on its velocities. Siconos' error divides by
/// max(‖q‖, ‖r‖, ‖u‖), so a sequence r → ∞ drives it to 0 on a problem with no solution (W = 0,
/// q_N < 0: u_N = q_N whatever r). A point is accepted only when, besides, no contact approaches
/// faster than √tol · max(‖q‖∞, ‖u‖∞): measured in velocities alone, which such sequences cannot
/// shrink. An `Infeasible` proof is kept; a status left `NotRun` becomes `NoSolutionFound` (as settle).
void judge_point(const FrictionContact& problem, const SolveOptions& options, const FrictionContactResiduals& residuals,
                 bool overflowed, Result& result);

/// n = 0, or q_N >= 0 at every contact: r = 0 solves (u = q, û_N = q_N + μ‖q_T‖ >= μ‖q_T‖),
/// confirmed by its residual.
[[nodiscard]] std::optional<Result> trivial_result(const FrictionContact& problem);

/// The refusals of a FrictionContact beyond the method table's (pipeline.hpp's check_method) and
/// SolveOptions::validate: the permutation's size, and an option no method reads here.
void check_friction_options(const SolveOptions& options, Eigen::Index contacts);

/// The start of a method: `initial_guess`, else r = 0.
[[nodiscard]] Eigen::VectorXd start_of(const SolveOptions& options, Eigen::Index size);

/// auto's chain on a FrictionContact from r0 (friction_contact.cpp), its point finished and judged
/// as a solve's is (detail::conclude); `fresh` gets the residuals of that point. `swept`: r0 is
/// where nsgs' first sweeps ended on the factors of W (a time step's problem), so the chain starts
/// at newton-ac.
[[nodiscard]] Result auto_chain(const FrictionContact& problem, const SolveOptions& options, const Eigen::VectorXd& r0,
                                Fresh& fresh, bool swept);

/// One method on a FrictionContact through the pipeline (detail::attempt), from
/// `options.initial_guess`; `fresh` gets the residuals of its point.
[[nodiscard]] Result attempt_on_w(const FrictionContact& problem, Method method, const SolveOptions& options,
                                  Fresh& fresh);

}  // namespace perp::detail::friction
