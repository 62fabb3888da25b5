#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "anderson.hpp"
#include "entry/detail.hpp"
#include "nsgs.hpp"
#include "stall_rule.hpp"
#include "perp/core/error.hpp"

// prox: the proximal-point loop on W + ρI around nsgs (nsgs.hpp).

namespace perp::detail {
namespace {

// prox: ρ is cut when kProxWindow outer iterations of at most kProxEasySweeps sweeps each on average
// did not cut the error tenfold.
constexpr int kProxWindow = 25;
constexpr int kProxEasySweeps = 20;

// prox's stop on progress (issue 38): `StallRule` (stall_rule.hpp) on its outer iterations, each
// counted with the smaller error of its plain and accelerated points, progress from the first
// outer iteration's (not the start's: auto's start is another method's best point, which the first
// proximal steps may leave before they fall below it). The horizon is the outer iteration at which
// the budget ends: `prox.max_outer`, or sooner the sweep limit at the sweeps per outer iteration
// so far. The watch starts afresh at each cut of ρ: a too large ρ keeps the error flat until it is
// cut (from ρ = 5 000 times the mean diagonal the error stays at 5.4e-2 for 90 outer iterations,
// then falls to 1e-12 in 20). A falling error is projected only from 200 outer iterations: Anderson
// steps drop it by orders at once (OneObject-i1028-138 at 1e-8: 1.8e-5 at outer iteration 100,
// solved at 116). The fuzz inputs that ran prox's 1 000 outer iterations or 10 000 sweeps unsolved
// (fuzz/regressions/friction/) were flat within 200 outer iterations.
constexpr StallRule kProxStall{.min_steps = 50, .slowing = 0.75, .flat = 0.00995, .project_from = 200};

}  // namespace

Result solve_prox(const FrictionContact& problem, const SolveOptions& options, const Eigen::VectorXd& r0) {
  const FrictionContactOptions& fc = options.friction_contact;
  ContactSweeper sweeper(problem, fc);
  Result result;
  result.method = Method::Prox;
  const int d = problem.dimension;
  const Eigen::Index n = problem.size();
  const int limit = options.iteration_limit(kDefaultSweeps);
  const double diagonal = sweeper.mean_diagonal();
  const double rho0 = fc.prox.rho > 0 ? fc.prox.rho : (diagonal > 0 ? diagonal : 1.0);
  const double rho_max = rho0 * 1e8;
  double rho = rho0;
  // The subproblem: W + ρI, q − ρ x_k (its W is never read: the sweeper holds it).
  FrictionContact inner;
  inner.dimension = d;
  inner.mu = problem.mu;
  inner.q = problem.q;
  Eigen::VectorXd u(n);
  const auto true_error = [&](const Eigen::VectorXd& x) {
    sweeper.product(x, u);
    u += problem.q;
    return friction_contact_residuals(problem, x, u).relative_error;
  };
  Eigen::VectorXd x = r0;  // the proximal centre x_k
  double error = true_error(x);
  Eigen::VectorXd best = x;
  double best_error = error;
  int total = 0;
  int outer = 0;
  Eigen::Index failures = 0;
  int accelerated = 0;
  const int inner_cap = std::max(100, limit / 10);
  // Where no solution exists the proximal steps do not shrink and r grows without bound, which
  // drives the relative error (divided by ‖r‖) down without solving anything: stop well before.
  const double r_scale = std::max(r0.blueNorm(), problem.q.blueNorm() / rho0);
  const double r_bound = 1e6 * r_scale;
  // Anderson acceleration of the fixed point x = S_ρ(x) (S_ρ: the proximal map, by nsgs): the
  // last m differences of S(x_k) − x_k and of S(x_k).
  const int m = fc.prox.anderson;
  AndersonMixing acceleration(m);
  double rho_floor = 0;
  int window_start = 0;
  double window_error = error;
  int window_sweeps = 0;
  StallWatch stall(kProxStall, error);
  double iterate_error = error;  // the last outer iteration's: min(plain, accelerated)
  int stall_origin = 0;          // the watch counts from here: the start, or the last cut of ρ
  const auto keep_best = [&](const Eigen::VectorXd& point, double e) {
    if (e < best_error) {
      best_error = e;
      best = point;
    }
  };
  result.status = Status::MaxIterations;
  if (error <= options.tolerance) {
    result.status = Status::Solved;
    result.message = "the start point solves (relative error " + number_text(error) + ")";
  }
  const auto solved_message = [&](double e) {
    return "relative error " + number_text(e) + " after " + std::to_string(outer) + " proximal iterations (" +
           std::to_string(total) + " nsgs sweeps, " + std::to_string(accelerated) +
           " Anderson steps taken, final rho " + number_text(rho) + ")";
  };
  while (result.status == Status::MaxIterations) {
    if (const std::optional<Status> stop = detail::stop_requested()) {
      result.status = *stop;
      result.message = detail::stop_message(*stop, outer, "proximal iterations") + " at relative error " +
                       number_text(best_error) + " (rho " + number_text(rho) + ", " + std::to_string(total) + " sweeps)";
      break;
    }
    if (outer >= fc.prox.max_outer) {
      result.message = "outer iteration limit " + std::to_string(fc.prox.max_outer) + " reached at relative error " +
                       number_text(best_error) + " (rho " + number_text(rho) + ", " + std::to_string(total) +
                       " sweeps)";
      break;
    }
    if (total >= limit) {
      result.message = "sweep limit " + std::to_string(limit) + " reached at relative error " +
                       number_text(best_error) + " after " + std::to_string(outer) + " proximal iterations (rho " +
                       number_text(rho) + ")";
      break;
    }
    if (outer > stall_origin) {
      if (outer == stall_origin + 1) stall.restart(iterate_error, stall_origin);
      const double horizon = std::min(static_cast<double>(fc.prox.max_outer), static_cast<double>(outer) * limit / total);
      if (stall.stalled(outer, iterate_error, horizon, options.tolerance)) {
        result.status = Status::NoSolutionFound;
        result.message = "stalled at relative error " + number_text(best_error) + " after " + std::to_string(outer) +
                         " proximal iterations (" + std::to_string(total) + " sweeps, rho " + number_text(rho) +
                         "): " + stall.describe("proximal iteration", "proximal iterations", options.tolerance);
        break;
      }
    }
    ++outer;
    sweeper.set_shift(rho);
    inner.q = problem.q - rho * x;
    const double inner_tolerance = std::max(0.2 * options.tolerance, std::min(1e-2, 0.01 * error));
    Eigen::VectorXd g = x;
    const SweepOutcome sub =
        run_sweeps(sweeper, inner, g, inner_tolerance, std::min(inner_cap, limit - total), fc.nsgs.error_every,
                   nullptr);
    total += std::max(sub.sweeps, 1);
    failures += sub.local_failures;
    const double g_error = true_error(g);
    if (!std::isfinite(g_error) || !g.allFinite()) {
      result.status = Status::NumericalFailure;
      result.message = "the proximal iterates stopped being finite at outer iteration " + std::to_string(outer) +
                       " (rho " + number_text(rho) + "); returning the best finite iterate, relative error " +
                       number_text(best_error);
      break;
    }
    if (g.blueNorm() > r_bound) {
      result.status = Status::NoSolutionFound;
      result.message = "the proximal iterates diverge: ||r|| exceeded " + number_text(r_bound) +
                       " (1e6 times max(||r0||, ||q||/rho0)) at outer iteration " + std::to_string(outer) +
                       "; the problem may have no solution. Returning the best iterate below that bound";
      break;
    }
    keep_best(g, g_error);
    if (g_error <= options.tolerance) {
      result.status = Status::Solved;
      result.message = solved_message(g_error);
      break;
    }
    if (sub.status != Status::Solved) {
      // A subproblem its sweeps could not solve is too weakly regularized for nsgs: ρ up, and the
      // map changed, so the acceleration starts afresh.
      rho_floor = std::max(rho_floor, 2 * rho);  // the cuts below stay above a ρ that failed
      rho = std::min(rho * 4, rho_max);
      acceleration.restart();
      x = g;
      error = g_error;
      iterate_error = g_error;
      if (options.record_history) result.history.push_back(g_error);
      continue;
    }
    Eigen::VectorXd next = g;
    double next_error = g_error;
    const bool combining = m > 0 && acceleration.ready();
    // Records (x, g) as the last pair in every case (the next differences start from it).
    std::optional<Eigen::VectorXd> candidate = m > 0 ? acceleration.combine(x, g) : std::nullopt;
    if (combining) {
      double c_error = kInfinity;
      if (candidate) {
        for (Eigen::Index i = 0; i < problem.contacts(); ++i) {
          project_on_cone(candidate->data() + i * d, d, problem.mu[i], candidate->data() + i * d);
        }
        c_error = true_error(*candidate);
      }
      if (std::isfinite(c_error) && c_error <= 2 * g_error && candidate->blueNorm() <= r_bound) {
        next = *candidate;
        next_error = c_error;
        ++accelerated;
        keep_best(next, c_error);
      } else {
        acceleration.clear_history();
      }
    } else if (m == 0 && g_error > 0.5 * error && rho > rho0 * 1e-8) {
      rho = std::max(rho * 0.5, rho0 * 1e-8);  // without acceleration: slow progress, longer proximal steps
      stall_origin = outer;
    }
    // With acceleration: when a window of easy subproblems (few sweeps each) has not cut the best
    // error tenfold, the proximal steps are too short: ρ down tenfold, the acceleration afresh.
    window_sweeps += std::max(sub.sweeps, 1);
    if (m > 0 && outer - window_start >= kProxWindow) {
      const bool easy = window_sweeps <= kProxEasySweeps * (outer - window_start);
      if (easy && best_error > 0.1 * window_error) {
        const double cut = std::max({rho * 0.1, rho0 * 1e-8, rho_floor});
        if (cut < rho) {
          rho = cut;
          acceleration.clear_history();
          stall_origin = outer;
        }
      }
      window_start = outer;
      window_error = best_error;
      window_sweeps = 0;
    }
    if (options.record_history) result.history.push_back(next_error);
    if (next_error <= options.tolerance) {
      result.status = Status::Solved;
      result.message = solved_message(next_error);
      x = next;
      break;
    }
    x = std::move(next);
    error = next_error;
    iterate_error = std::min(g_error, next_error);
  }
  result.z = std::move(best);  // every plain and accelerated point was offered to keep_best
  result.iterations = total;
  result.message += failures_note(failures);
  return result;
}

}  // namespace perp::detail
