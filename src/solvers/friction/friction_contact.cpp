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
#include "friction/convex/friction_shift.hpp"
#include "friction/impulse/nsgs.hpp"
#include "perp/core/error.hpp"
#include "perp/solvers/solve.hpp"
#include "entry/pipeline.hpp"

namespace perp {
namespace {

using Fresh = std::optional<FrictionContactResiduals>;

// z sized and finite, u = W r + q (`velocity`) and the relative error from z. `fresh`: the
// residuals of (z, w) when the method formed w = W z + q from the z it returned (nsgs does, so the
// product and the pass are not repeated); otherwise w and the residuals are formed here. On return
// `fresh` holds the residuals of the returned (z, w). Returns whether u overflowed at the point
// reached: the point is then dropped for r = 0 (u = q), as the contract keeps r and u finite.
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

void FactoredFrictionContact::validate() const {
  if (dimension != 2 && dimension != 3) {
    throw InvalidProblem("dimension: expected 2 or 3, got " + std::to_string(dimension));
  }
  const Eigen::Index n = dimension * mu.size();
  if (q.size() != n) {
    throw InvalidProblem("q: expected size " + std::to_string(n) + " (dimension " + std::to_string(dimension) +
                         " x " + std::to_string(mu.size()) + " contacts, one mu each), got " + std::to_string(q.size()));
  }
  if (H.rows() != n || H.cols() != inverse_mass.size()) {
    throw InvalidProblem("H: expected " + std::to_string(n) + "x" + std::to_string(inverse_mass.size()) +
                         " (dimension x contacts, inverse_mass's size), got " + std::to_string(H.rows()) + "x" +
                         std::to_string(H.cols()));
  }
  detail::validate_factors(H, "H", inverse_mass);
  require_finite(q, "q");
  require_finite(mu, "mu");
  for (Eigen::Index i = 0; i < mu.size(); ++i) {
    if (mu[i] < 0) throw InvalidProblem("mu[" + std::to_string(i) + "] is " + number_text(mu[i]) + "; must be >= 0");
  }
}

Eigen::VectorXd FactoredFrictionContact::velocity(const Eigen::VectorXd& r) const {
  require_size(r, q.size(), "r");
  return detail::factored_product(H, inverse_mass, r, q);
}

FrictionContact FactoredFrictionContact::assembled() const {
  FrictionContact problem;
  problem.dimension = dimension;
  const Eigen::SparseMatrix<double> scaled = H * inverse_mass.asDiagonal();
  problem.W = scaled * Eigen::SparseMatrix<double>(H.transpose());
  problem.W.makeCompressed();
  problem.q = q;
  problem.mu = mu;
  return problem;
}

namespace {

// What the factored form supplies to the pipeline: the steps of FrictionContactSteps on `shell`
// (d, q and μ for the residuals; its W is never formed or read), with u = H M⁻¹ Hᵀ r + q.
struct FactoredFrictionContactSteps {
  static constexpr ProblemKind kind = ProblemKind::FrictionContact;
  FrictionContact shell;
  Fresh fresh;
  bool overflowed = false;

  explicit FactoredFrictionContactSteps(const FactoredFrictionContact& problem) {
    shell.dimension = problem.dimension;
    shell.q = problem.q;
    shell.mu = problem.mu;
  }
  static void check(const FactoredFrictionContact& problem, Method, const SolveOptions& options) {
    check_friction_options(options, problem.contacts());
  }
  std::optional<Result> trivial(const FactoredFrictionContact&, const SolveOptions&) const {
    return trivial_result(shell);
  }
  Result run(const FactoredFrictionContact& problem, Method method, const SolveOptions& options);
  void finish(const FactoredFrictionContact& problem, const SolveOptions&, Result& result) {
    const auto velocity = [&problem](const Eigen::VectorXd& r) { return problem.velocity(r); };
    overflowed = recompute_point(shell, velocity, result, fresh);
  }
  void judge(const FactoredFrictionContact&, const SolveOptions& options, Result& result) const {
    judge_point(shell, options, *fresh, overflowed, result);
  }
};

// interior-point and nsgs on the factors; auto: nsgs on the factors, then in the plane the
// relaxation where nothing slides and (when asked) the shift, then W formed and auto's chain; the
// other methods on W formed.
Result FactoredFrictionContactSteps::run(const FactoredFrictionContact& problem, Method method,
                                         const SolveOptions& options) {
  fresh.reset();
  if (method == Method::Admm) {
    FrictionContactResiduals residuals;
    Result result = detail::solve_admm_factored(problem.H, problem.inverse_mass, shell, options,
                                                start_of(options, problem.size()), residuals);
    fresh = residuals;
    return result;
  }
  if (method != Method::InteriorPoint && method != Method::Nsgs && method != Method::Auto) {
    FrictionContactSteps formed;
    Result result = detail::attempt(formed, problem.assembled(), method, options);
    fresh = std::move(formed.fresh);
    return result;
  }
  const Eigen::VectorXd r0 = start_of(options, problem.size());
  if (method == Method::InteriorPoint) {
    return detail::solve_friction_interior_point(problem.H, problem.inverse_mass, shell, options, r0);
  }
  std::string from_rest;
  if (method == Method::Auto && problem.dimension == 2 && r0.isZero()) {
    // No impulse to start from and no contact sliding at the free velocity (every |q_T| within
    // 1 % of ‖q‖∞): a structure from rest. The relaxation first, where nsgs would need hundreds
    // to thousands of sweeps on a statically indeterminate pile (a 20-row pyramid's first step:
    // 50-60 ms against 170-390 ms for 1 000 sweeps and the relaxation after them; a 5-row one:
    // 2.4 ms against nsgs' 1.1 ms in 310 sweeps). Kept only where it solves.
    FrictionContactResiduals relaxed_residuals;
    if (std::optional<Result> relaxed = detail::solve_at_rest(problem.H, problem.inverse_mass, shell, options, r0, 1.0,
                                                              relaxed_residuals)) {
      if (relaxed->solved()) {
        fresh = relaxed_residuals;
        relaxed->message = detail::one_line("auto: from rest, " + relaxed->message);
        return *std::move(relaxed);
      }
      from_rest = "from rest, " + relaxed->message + " (not solved); then ";
    }
  }
  SolveOptions attempt = options;
  if (method == Method::Auto) {
    attempt.max_iterations =
        std::min(options.iteration_limit(kDefaultSweeps), options.friction_contact.automatic.nsgs_sweeps);
  }
  FrictionContactResiduals residuals;
  Result result = detail::solve_nsgs_factored(problem.H, problem.inverse_mass, shell, attempt, r0, residuals,
                                              method == Method::Auto);
  fresh = residuals;
  if (method == Method::Nsgs) return result;
  detail::conclude(*this, problem, attempt, result);  // auto decides on the sweeps' judged point
  if (result.solved()) {
    result.attempt_order = from_rest + "nsgs on the factors of W: solved";
    result.message = detail::one_line("auto (" + result.attempt_order + "): " + result.message);
    return result;
  }
  std::string story = from_rest + "nsgs on the factors of W: " + to_string(result.status) + " after " +
                      std::to_string(result.iterations) + " sweeps (relative error " + number_text(result.residual) +
                      ")";
  const Eigen::VectorXd swept = result.z;
  const int sweeps = result.iterations;
  if (problem.dimension == 2) {
    // In the plane, where no contact slides at the sweeps' point: Anitescu–Potra's relaxation,
    // whose solution is Coulomb's when the bodies are at rest (a structure from rest).
    FrictionContactResiduals relaxed_residuals;
    if (std::optional<Result> relaxed = detail::solve_at_rest(problem.H, problem.inverse_mass, shell, options, swept,
                                                              result.residual, relaxed_residuals)) {
      story += "; then " + relaxed->message;
      if (relaxed->residual < result.residual) {
        relaxed->iterations += sweeps;
        result = *std::move(relaxed);
        fresh = relaxed_residuals;
      }
    }
  }
  if (!result.solved() && problem.dimension == 2 && options.friction_contact.automatic.shift_updates > 0) {
    // In the plane, when asked for: the fixed point on de Saxcé's shift from the sweeps' point,
    // each update an exact convex program on the factors (W still not formed).
    FrictionContactResiduals shifted_residuals;
    SolveOptions shift_options = options;
    shift_options.max_iterations = options.friction_contact.automatic.shift_updates;
    Result shifted =
        detail::solve_by_shifts(problem.H, problem.inverse_mass, shell, shift_options, swept, shifted_residuals);
    story += "; then " + shifted.message;
    if (shifted.residual < result.residual) {
      shifted.iterations += sweeps;
      result = std::move(shifted);
      fresh = shifted_residuals;
    }
  }
  if (!result.solved()) {
    // W formed, and auto's chain from the sweeps' point (newton-ac first: the sweeps on the
    // factors were the chain's first nsgs). Not from the shift's point: on packed heaps, where
    // the shift stalls, the chain from its vertex solved fewer steps than from the sweeps'.
    const FrictionContact formed = problem.assembled();
    FrictionContactSteps chain;
    Result chained = solve_auto(formed, options, swept, chain.fresh, true);
    detail::conclude(chain, formed, options, chained);
    if (chained.solved() || chained.residual <= result.residual) {
      chained.iterations += result.iterations;
      story += "; then W formed, from the sweeps' point: " + chained.message;
      result = std::move(chained);
      fresh = std::move(chain.fresh);
    } else {
      story += "; then W formed, and its chain from the sweeps' point ended farther (" + chained.message +
               "): the best point before it is returned";
    }
  }
  // One line (which method's point, and its message); the story in full in attempt_order.
  result.attempt_order = story + (result.attempt_order.empty() ? "" : " [the chain's order: " + result.attempt_order + "]");
  result.message = detail::one_line("auto (nsgs on the factors of W, then " + to_string(result.method) + "): " + result.message);
  return result;
}

}  // namespace

Result solve(const FactoredFrictionContact& problem, Method method, const SolveOptions& options,
             FrictionContactResiduals& criteria) {
  if (!problem.H.isCompressed()) {
    // H filled by insert() and not compressed: the sweeps on the factors read its compressed arrays.
    FactoredFrictionContact compressed = problem;
    compressed.H.makeCompressed();
    return solve(compressed, method, options, criteria);
  }
  FactoredFrictionContactSteps steps(problem);
  Result result = detail::solve_through(steps, problem, method, options);
  criteria = *steps.fresh;
  return result;
}

std::vector<Method> friction_contact_methods() { return methods_for(ProblemKind::FrictionContact); }

}  // namespace perp
