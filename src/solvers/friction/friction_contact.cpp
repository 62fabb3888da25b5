#include "perp/solvers/friction_contact.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "entry/detail.hpp"
#include "friction/convex/admm.hpp"
#include "friction/convex/friction_ipm.hpp"
#include "friction/impulse/friction_lemke.hpp"
#include "friction/impulse/friction_newton.hpp"
#include "friction/impulse/nsgs.hpp"
#include "perp/core/error.hpp"
#include "perp/solvers/solve.hpp"
#include "entry/pipeline.hpp"
#include "judgement.hpp"

namespace perp {
namespace {

using detail::friction::Fresh;
using detail::friction::check_friction_options;
using detail::friction::judge_point;
using detail::friction::recompute_point;
using detail::friction::start_of;
using detail::friction::trivial_result;



/// The over-relaxation of auto's second nsgs (see continued_nsgs).
constexpr double kContinuedRelaxation = 1.5;
/// auto's newton-ac steps where Lemke follows in the chain (planar problems of at most
/// `lcp_max_size` Stewart-Trinkle unknowns). Measured on the dumped settling steps of a 100-disk
/// heap (μ = 0.6, h = 1/60, 130-180 contacts, from nsgs' 1 000 sweeps): where newton-ac solves it
/// needs 1-84 steps (most <= 20), where it fails it cycles for 68-121 steps (170-190 ms, more than
/// Lemke's 150-660 ms that solves them all); 200 steps of the heap with a cap of 20, 10 or 1 and
/// Lemke before prox took 0.54-0.70 of the time of the chain without (every step solved).
/// Larger problems keep newton-ac's own limit: there it is the method that finishes (93 steps on
/// a 1 391-contact step of a 1 000-disk heap).
constexpr int kNewtonStepsBeforeLemke = 20;
/// Lemke comes before prox (with newton-ac kept short) up to this many Stewart-Trinkle unknowns
/// (250 contacts), where its pivots cost milliseconds to a second; above, up to
/// `lcp_max_size`, it comes last: on the 1 000-disk heap's steps of 400-1 091 contacts the dense
/// tableau took 2 000-21 000 pivots and 0.6-275 s, where nsgs, newton-ac or prox solved most in
/// 0.02-1.5 s; sparse Lemke (above 200 unknowns) solves such steps in 5-25 s but ran 100 000-300 000
/// pivots (minutes) on others of 1 200-1 560 contacts (bench/HISTORY.md, "Sparse Lemke on the packed heaps").
constexpr Eigen::Index kLemkeBeforeProxMaxSize = 1000;
/// auto: when no method solved but the best point is within this many tolerances, nsgs from it.
constexpr double kPolishReach = 1e3;
/// In 3D, auto's newton-ac from nsgs' point gets this many steps. On a time step's problem (the
/// factored form, `swept`) a second start follows: nsgs from r = 0 and newton-ac from its point. On a
/// problem given by W, whose chain begins with its own nsgs (handed over by its rate,
/// kNsgsHandoff), newton-ac runs from r = 0 (its own limit) and from nsgs' point (this many steps),
/// from r = 0 first where the chain started at r = 0: on Siconos' Capsules and BoxesStack files
/// newton-ac from r = 0 solves in 10-36 steps (6.5-13 ms), where from nsgs' point after 200-400
/// sweeps it needs 10-36 or fails (Capsules-i101-404: flat at 1.1e-6 for 60 steps; bench/README.md,
/// "auto's hand-over from nsgs in 3D"). On the 1 000-sphere pour, steps whose chain from the warm start
/// failed solved from r = 0 in 5-15 Newton steps; from nsgs' point newton-ac needs 1-21 where it
/// solves (bench/README.md, "The pour's expensive steps, replayed").
constexpr int kNewtonStepsBeforeRestart = 30;

auto velocity_of(const FrictionContact& problem) {
  return [&problem](const Eigen::VectorXd& r) { return problem.velocity(r); };
}


Result run_method(const FrictionContact& problem, Method method, const SolveOptions& options, Fresh& fresh,
                  bool handoff = false);

// What the frictional contact problem supplies to the pipeline (pipeline.hpp). Its steps hand
// something on, so they are an object: `fresh`, the residuals of the point from `run` (nsgs forms
// them with its last u) through `finish` (which reuses them) to the judgement and to the caller's
// `criteria`; `overflowed`, from `finish` to the judgement.
struct FrictionContactSteps {
  static constexpr ProblemKind kind = ProblemKind::FrictionContact;
  Fresh fresh;
  bool overflowed = false;
  bool handoff = false;  // nsgs' stop is kNsgsHandoff (auto's first nsgs in 3D)

  static void check(const FrictionContact& problem, Method, const SolveOptions& options) {
    check_friction_options(options, problem.contacts());
  }
  static std::optional<Result> trivial(const FrictionContact& problem, const SolveOptions&) {
    return trivial_result(problem);
  }
  Result run(const FrictionContact& problem, Method method, const SolveOptions& options) {
    return run_method(problem, method, options, fresh, handoff);
  }
  void finish(const FrictionContact& problem, const SolveOptions&, Result& result) {
    overflowed = recompute_point(problem, velocity_of(problem), result, fresh);
  }
  void judge(const FrictionContact& problem, const SolveOptions& options, Result& result) const {
    judge_point(problem, options, *fresh, overflowed, result);
  }
};

/// One attempt through the pipeline (detail::attempt), from `options.initial_guess`; `fresh` gets
/// the residuals of its point. `handoff`: nsgs stops by kNsgsHandoff (nsgs.hpp).
Result finished_run(const FrictionContact& problem, Method method, const SolveOptions& options, Fresh& fresh,
                    bool handoff = false) {
  FrictionContactSteps steps;
  steps.handoff = handoff;
  Result result = detail::attempt(steps, problem, method, options);
  fresh = std::move(steps.fresh);
  return result;
}

/// auto's second nsgs, after newton-ac: from `r0`, over-relaxed (ω = `kContinuedRelaxation` unless
/// `friction_contact.nsgs.relaxation` was set), in parts of `part_sweeps`, then each as long as all the
/// sweeps so far (doubling, `limit` in all), until it solves, the limit, or the error grows tenfold
/// over the best (divergence). nsgs on a heap is slow while it finds the contact statuses and fast
/// after, and the error on the way is not monotone: measured on steps of heaps between walls (μ =
/// 0.6, tolerance 1e-10), a 151-contact step of 100 disks needs 14 900 sweeps at ω = 1, 8 600 at 1.3,
/// 4 300 at 1.6 (its error flat near 4e-5 until the statuses settle, then 1e-10 within 600 sweeps),
/// and a 1 054-contact step of 1 000 disks 26 000 at ω = 1.5 (its error even rising slowly, 3.3e-6 to
/// 3.9e-6, for 10 000 sweeps before it falls); newton-ac cycles and prox stalls on both, and Lemke
/// on the first takes 0.5-1 s. So no rule on the progress of a part in 2D: only the limit stops it.
/// In 3D nsgs' own stop on progress (nsgs.hpp, StallRule) may end a part as stalled
/// (no-solution-found): that ends the loop too, since the next part would start from its point.
/// A part that ends without a sweep (its start meets nsgs' own stop, the relative error, but the
/// judgement rejects it: a contact still approaches) ends the loop: every later part would start
/// from the same point and stop there again, so without this stop the loop never ended (issue 38).
/// Every other part sweeps at least once, so at most `limit` parts run.
Result continued_nsgs(const FrictionContact& problem, SolveOptions attempt, const Eigen::VectorXd& r0,
                      int part_sweeps, int limit, Fresh& fresh) {
  if (attempt.friction_contact.nsgs.relaxation == 1.0) attempt.friction_contact.nsgs.relaxation = kContinuedRelaxation;
  const auto part = [&](const Eigen::VectorXd& start, int sweeps) {
    attempt.max_iterations = std::max(sweeps, 1);  // 0 would mean nsgs' default limit
    attempt.initial_guess = start;
    return finished_run(problem, Method::Nsgs, attempt, fresh);
  };
  Result result = part(r0, std::min(part_sweeps, limit));
  int sweeps = result.iterations;
  double best = result.residual;
  bool stalled = result.iterations == 0;
  while (!stalled && result.status != Status::Solved && result.status != Status::NoSolutionFound &&
         !detail::stopped_from_outside(result.status) &&
         result.z.allFinite() && result.residual <= 10 * best &&
         sweeps < limit) {
    Result more = part(result.z, std::min(std::max(sweeps, 1), limit - sweeps));
    stalled = more.iterations == 0;
    sweeps += more.iterations;
    more.iterations = sweeps;
    if (!result.history.empty()) {
      more.history.insert(more.history.begin(), result.history.begin(), result.history.end());
    }
    result = std::move(more);
    best = std::min(best, result.residual);
  }
  result.message += " (" + std::to_string(sweeps) + " sweeps from newton-ac's point, over-relaxed with omega " +
                    number_text(attempt.friction_contact.nsgs.relaxation) + ")";
  if (stalled && !result.solved()) {
    result.message += "; stopped there: that point meets nsgs' stop on the relative error, so more sweeps from it "
                      "would not move it";
  }
  return result;
}

/// auto; `fresh` gets the residuals of the point it returns (each attempt is finished on its own).
/// `swept`: r0 is where nsgs' first sweeps ended (on the factors of W), so the chain starts at newton-ac.
Result solve_auto(const FrictionContact& problem, const SolveOptions& options, const Eigen::VectorXd& r0,
                  Fresh& fresh, bool swept = false) {
  const int d = problem.dimension;
  const Eigen::Index lcp_size = problem.contacts() * 4;
  std::vector<Method> order = {Method::Nsgs, Method::NewtonAc, Method::Nsgs, Method::Prox};
  const bool restart = d == 3;
  if (restart) order.insert(order.begin() + 2, Method::NewtonAc);
  if (swept) order.erase(order.begin());
  std::string reason =
      "nsgs first (sweeps of cost O(nnz(W)) with exact local solvers, warm-started), limited to "
      "friction_contact.automatic.nsgs_sweeps sweeps; newton-ac next from nsgs' point (a quadratic tail once the "
      "contact statuses are found); nsgs again from the best point while it keeps cutting the error (slow starts on "
      "heaps); prox then from the best point (W + rho I is positive definite where W is singular or "
      "redundant, which stalls both)";
  // Small planar problems: Lemke on the exact Stewart-Trinkle LCP before prox, and newton-ac kept
  // short before it (see kNewtonStepsBeforeLemke); larger ones within lcp_max_size: Lemke last.
  const bool lemke_in_chain = d == 2 && lcp_size <= options.friction_contact.lemke.lcp_max_size;
  const bool lemke_early = lemke_in_chain && lcp_size <= kLemkeBeforeProxMaxSize;
  if (lemke_early) {
    order.insert(order.end() - 1, Method::Lemke);
    reason += "; on this small planar problem newton-ac gets " + std::to_string(kNewtonStepsBeforeLemke) +
              " steps, and lemke on the exact Stewart-Trinkle LCP (" + std::to_string(lcp_size) +
              " unknowns: small enough to pivot in milliseconds to a second) runs before prox";
  } else if (lemke_in_chain) {
    order.push_back(Method::Lemke);
    reason += "; lemke on the exact Stewart-Trinkle LCP (" + std::to_string(lcp_size) +
              " unknowns: seconds to minutes of pivots) last";
  }
  Eigen::VectorXd best = r0;
  double best_error = std::numeric_limits<double>::infinity();
  Fresh best_residuals;
  Fresh last_residuals;
  const int limit = options.iteration_limit(kDefaultSweeps);  // the whole chain's budget
  const int budget = std::min(limit, options.friction_contact.automatic.nsgs_sweeps);
  if (restart) {
    reason += swept ? "; in 3D newton-ac gets " + std::to_string(kNewtonStepsBeforeRestart) +
                          " steps from nsgs' point, then a second newton-ac from nsgs' point from r = 0 (a second start)"
                    : "; in 3D nsgs hands over as soon as its rate says its sweeps would not reach the tolerance, "
                      "then newton-ac from r = 0 (its own limit) and from nsgs' point (" +
                          std::to_string(kNewtonStepsBeforeRestart) +
                          " steps), r = 0 first where the chain started there (from nsgs' point the Alart-Curnier "
                          "Newton stalls more often)";
  }
  int nsgs_runs = swept ? 1 : 0;
  int newton_runs = 0;
  // 3D, a chain that began with its own nsgs: where that nsgs ended, and whether the chain started
  // at r = 0 (no warm start).
  Eigen::VectorXd nsgs_point = r0;
  const bool cold_start = !r0.allFinite() || r0.isZero();
  Result result = detail::first_that_solves(
      order,
      [&](Method method) {
        SolveOptions attempt = options;
        attempt.initial_guess = best;
        Result attempt_result;
        Fresh residuals;
        if (method == Method::NewtonAc && restart && !swept) {
          // 3D, a chain that began with its own nsgs: newton-ac from r = 0 and from nsgs' point, r = 0
          // first where the chain itself started there (see kNewtonStepsBeforeRestart); the start
          // from nsgs' point gets kNewtonStepsBeforeRestart steps, the one from r = 0 its own limit.
          const bool from_zero = (newton_runs++ == 0) == cold_start;
          if (from_zero) {
            attempt.initial_guess = Eigen::VectorXd::Zero(problem.size());
          } else {
            attempt.initial_guess = nsgs_point;
            if (options.max_iterations == 0) attempt.max_iterations = kNewtonStepsBeforeRestart;
          }
          attempt_result = finished_run(problem, Method::NewtonAc, attempt, residuals);
          attempt_result.message = (from_zero ? "from r = 0: " : "from nsgs' point: ") + attempt_result.message;
        } else if (method == Method::NewtonAc && restart && newton_runs++ > 0) {
          // The second start of a time step's chain: nsgs from r = 0, then newton-ac from its point.
          SolveOptions cold = options;
          cold.initial_guess = Eigen::VectorXd::Zero(problem.size());
          cold.max_iterations = budget;
          Fresh swept_residuals;
          Result from_zero = finished_run(problem, Method::Nsgs, cold, swept_residuals);
          if (from_zero.solved() || !from_zero.z.allFinite()) {
            attempt_result = std::move(from_zero);
            residuals = swept_residuals;
          } else {
            attempt.initial_guess = from_zero.z;
            attempt_result = finished_run(problem, Method::NewtonAc, attempt, residuals);
            attempt_result.iterations += from_zero.iterations;
            attempt_result.message = "from nsgs' " + std::to_string(from_zero.iterations) +
                                     " sweeps from r = 0 (" + to_string(from_zero.status) + "): " + attempt_result.message;
          }
        } else if (method == Method::Nsgs && nsgs_runs++ > 0) {
          attempt_result = continued_nsgs(problem, attempt, best, budget, limit - budget, residuals);
        } else {
          if (method == Method::NewtonAc && restart && options.max_iterations == 0) {
            attempt.max_iterations = kNewtonStepsBeforeRestart;
          }
          if (method == Method::Nsgs) attempt.max_iterations = budget;
          if (method == Method::NewtonAc && lemke_early && options.max_iterations == 0) {
            attempt.max_iterations = kNewtonStepsBeforeLemke;
          }
          attempt_result = finished_run(problem, method, attempt, residuals, restart && method == Method::Nsgs);
          if (method == Method::Nsgs) nsgs_point = attempt_result.z;
        }
        if (attempt_result.residual < best_error) {
          best_error = attempt_result.residual;
          best = attempt_result.z;
          best_residuals = residuals;
        }
        last_residuals = residuals;
        return attempt_result;
      },
      reason);
  // first_that_solves returns the attempt that solved (the last one run) or the best one.
  fresh = result.solved() ? last_residuals : result.residual == best_error ? best_residuals : Fresh{};
  if (!result.solved() && best.allFinite() && best_error <= kPolishReach * options.tolerance) {
    // The best point is within kPolishReach tolerances (Lemke's exact statuses with the round-off
    // of its pivots, or a tail): plain nsgs sweeps from it. Measured on a 100-disk heap: the two
    // steps of 600 left unsolved ended at Lemke with 3.1e-10 and 4.0e-10 against 1e-10.
    SolveOptions attempt = options;
    attempt.max_iterations = budget;
    attempt.initial_guess = best;
    Fresh residuals;
    Result polished = finished_run(problem, Method::Nsgs, attempt, residuals);
    if (polished.solved()) {
      polished.attempts = std::move(result.attempts);
      polished.attempts.push_back(
          {Method::Nsgs, polished.status, polished.iterations, polished.relative_residual, polished.message});
      polished.attempt_order = std::move(result.attempt_order);
      polished.message = detail::one_line(result.message + "; then nsgs from that point: " + polished.message);
      fresh = residuals;
      return polished;
    }
  }
  return result;
}

Result run_method(const FrictionContact& problem, Method method, const SolveOptions& options, Fresh& fresh,
                  bool handoff) {
  fresh.reset();
  const Eigen::VectorXd r0 = start_of(options, problem.size());
  switch (method) {
    case Method::Nsgs: {
      FrictionContactResiduals residuals;
      Result result = detail::solve_nsgs(problem, options, r0, residuals, handoff);
      fresh = residuals;
      return result;
    }
    case Method::Prox:
      return detail::solve_prox(problem, options, r0);
    case Method::Admm: {
      FrictionContactResiduals residuals;
      Result result = detail::solve_admm(problem, options, r0, residuals);
      fresh = residuals;
      return result;
    }
    case Method::Lemke:
      return detail::solve_friction_lemke(problem, options);
    case Method::Auto:
      return solve_auto(problem, options, r0, fresh);
    case Method::NewtonAc:
      return detail::solve_newton_ac(problem, options, r0);
    case Method::InteriorPoint:
      return detail::solve_friction_interior_point(problem, options, r0);
    default:
      break;
  }
  // The method table lets only the methods above through (check_method).
  throw InvalidProblem("method '" + to_string(method) + "' does not accept a FrictionContact");
}

}  // namespace

Result solve(const FrictionContact& problem, Method method, const SolveOptions& options) {
  FrictionContactResiduals criteria;
  return solve(problem, method, options, criteria);
}

Result solve(const FrictionContact& problem, Method method, const SolveOptions& options,
             FrictionContactResiduals& criteria) {
  FrictionContactSteps steps;
  Result result = detail::solve_through(steps, problem, method, options);
  criteria = *steps.fresh;
  return result;
}

namespace detail::friction {

Result auto_chain(const FrictionContact& problem, const SolveOptions& options, const Eigen::VectorXd& r0, Fresh& fresh,
                  bool swept) {
  FrictionContactSteps steps;
  Result result = solve_auto(problem, options, r0, steps.fresh, swept);
  detail::conclude(steps, problem, options, result);
  fresh = std::move(steps.fresh);
  return result;
}

Result attempt_on_w(const FrictionContact& problem, Method method, const SolveOptions& options, Fresh& fresh) {
  return finished_run(problem, method, options, fresh);
}

}  // namespace detail::friction

std::vector<Method> friction_contact_methods() { return methods_for(ProblemKind::FrictionContact); }

}  // namespace perp
