#include "perp/solvers/friction_contact.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

#include "detail.hpp"
#include "friction_ipm.hpp"
#include "friction_newton.hpp"
#include "friction_shift.hpp"
#include "nsgs.hpp"
#include "perp/core/error.hpp"
#include "perp/core/lcp.hpp"
#include "perp/solvers/solve.hpp"

namespace perp {
namespace {

bool accepts_friction_contact(Method method) {
  return method == Method::Lemke || method == Method::Nsgs || method == Method::NewtonAc || method == Method::Prox ||
         method == Method::InteriorPoint || method == Method::Auto;
}

[[noreturn]] void reject(Method method) {
  throw InvalidProblem("method '" + to_string(method) +
                       "' does not accept a FrictionContact; use one of: lemke, nsgs, newton-ac, prox, interior-point, auto");
}

// z finite, w = W r + q and the relative error from z, the status judged by it. `fresh`: the
// residuals of (z, w) when the method formed w = W z + q from the z it returned (nsgs does, so the
// product and the pass are not repeated); otherwise w and the residuals are recomputed here. On
// return `fresh` holds the residuals of the returned (z, w).
template <class Velocity>
void finish(const FrictionContact& problem, const Velocity& velocity, const SolveOptions& options, Result& result,
            std::optional<FrictionContactResiduals>& fresh) {
  const Eigen::Index n = problem.size();
  if (result.z.size() != n) result.z = Eigen::VectorXd::Zero(n);
  if (!result.z.allFinite() || result.w.size() != n) fresh.reset();
  for (Eigen::Index i = 0; i < n; ++i) {
    if (!std::isfinite(result.z[i])) result.z[i] = 0.0;
  }
  if (!fresh) result.w = velocity(result.z);
  bool overflowed = false;
  if (!result.w.allFinite()) {
    // The contract keeps r and u finite: the point is dropped for r = 0 (u = q).
    overflowed = true;
    result.z.setZero();
    result.w = problem.q;
    fresh.reset();
  }
  if (!fresh) fresh = friction_contact_residuals(problem, result.z, result.w);
  const FrictionContactResiduals& residuals = *fresh;
  result.residual = residuals.relative_error;
  // Siconos' error divides by max(‖q‖, ‖r‖, ‖u‖), so a sequence r → ∞ drives it to 0 on a problem
  // with no solution (W = 0, q_N < 0: u_N = q_N whatever r). A point is accepted only when, besides,
  // no contact approaches faster than √tol · max(‖q‖∞, ‖u‖∞): measured in velocities alone, which
  // such sequences cannot shrink.
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

// lemke on the LCP of a polyhedral friction cone: per contact the unknowns r_N, β_1..β_k >= 0
// (r_T = Σ β_l t_l) and λ, with
//   u_N >= 0 ⊥ r_N,   λ + t_lᵀu_T >= 0 ⊥ β_l,   μ r_N − Σ β_l >= 0 ⊥ λ.
// 2D: t = ±1, Stewart–Trinkle's LCP, which is exactly Coulomb's law; 3D: k directions at angles 2πl/k,
// an inner approximation of the cone.
Result solve_lemke_reformulation(const FrictionContact& problem, const SolveOptions& options) {
  const int d = problem.dimension;
  const Eigen::Index nc = problem.contacts();
  const int k = d == 2 ? 2 : options.friction_contact.facets;
  const Eigen::Index per = k + 2;
  const Eigen::Index size = nc * per;
  Result result;
  result.method = Method::Lemke;
  const std::string what = d == 2 ? "the Stewart-Trinkle LCP (exact in 2D)"
                                  : "the LCP of a polyhedral cone with " + std::to_string(k) +
                                        " facets (an inner approximation of the Coulomb cone, so the "
                                        "frictional problem is solved only if its own error meets the tolerance)";
  if (size > options.friction_contact.lcp_max_size) {
    result.status = Status::NotApplicable;
    result.message = what + " would have " + std::to_string(size) + " unknowns (" + std::to_string(nc) +
                     " contacts), more than friction_contact.lcp_max_size = " +
                     std::to_string(options.friction_contact.lcp_max_size) + " for a dense LCP";
    result.z = Eigen::VectorXd::Zero(problem.size());
    return result;
  }
  // D: the (d − 1)×k tangential directions t_l as columns.
  Eigen::MatrixXd D(d - 1, k);
  if (d == 2) {
    D << 1.0, -1.0;
  } else {
    for (int l = 0; l < k; ++l) {
      const double angle = 2 * std::numbers::pi * l / k;
      D(0, l) = std::cos(angle);
      D(1, l) = std::sin(angle);
    }
  }
  Lcp lcp{Eigen::MatrixXd::Zero(size, size), Eigen::VectorXd::Zero(size)};
  for (Eigen::Index col = 0; col < problem.W.outerSize(); ++col) {
    const Eigen::Index j = col / d;
    const int b = static_cast<int>(col % d);
    for (Eigen::SparseMatrix<double>::InnerIterator it(problem.W, col); it; ++it) {
      const Eigen::Index i = it.row() / d;
      const int a = static_cast<int>(it.row() % d);
      const double w = it.value();
      for (int l = -1; l < k; ++l) {  // row: −1 the normal, l the direction t_l
        const double row_factor = l < 0 ? (a == 0 ? 1.0 : 0.0) : (a == 0 ? 0.0 : D(a - 1, l));
        if (row_factor == 0.0) continue;
        const Eigen::Index row = i * per + 1 + l;
        if (b == 0) {
          lcp.M(row, j * per) += row_factor * w;
        } else {
          for (int m = 0; m < k; ++m) lcp.M(row, j * per + 1 + m) += row_factor * w * D(b - 1, m);
        }
      }
    }
  }
  for (Eigen::Index i = 0; i < nc; ++i) {
    const Eigen::Index base = i * per;
    lcp.q[base] = problem.q[i * d];
    for (int l = 0; l < k; ++l) {
      double s = 0;
      for (int a = 1; a < d; ++a) s += D(a - 1, l) * problem.q[i * d + a];
      lcp.q[base + 1 + l] = s;
      lcp.M(base + 1 + l, base + 1 + k) = 1.0;
      lcp.M(base + 1 + k, base + 1 + l) = -1.0;
    }
    lcp.M(base + 1 + k, base) = problem.mu[i];
  }
  SolveOptions lcp_options = options;
  lcp_options.initial_guess.reset();
  const Result inner = solve(lcp, Method::Lemke, lcp_options);
  const auto to_reaction = [&](const Eigen::VectorXd& z) {
    Eigen::VectorXd r = Eigen::VectorXd::Zero(problem.size());
    for (Eigen::Index i = 0; i < nc; ++i) {
      r[i * d] = z[i * per];
      for (int a = 1; a < d; ++a) {
        for (int l = 0; l < k; ++l) r[i * d + a] += D(a - 1, l) * z[i * per + 1 + l];
      }
    }
    return r;
  };
  result.z = to_reaction(inner.z);
  result.iterations = inner.iterations;
  if (inner.ray) result.ray = to_reaction(*inner.ray);
  const double error = friction_contact_residuals(problem, result.z).relative_error;
  if (options.record_history) result.history.push_back(error);
  const std::string lcp_text = what + ", " + std::to_string(size) + " unknowns: lemke " + to_string(inner.status) +
                               " (" + inner.message + "); frictional relative error " + number_text(error);
  if (error <= options.tolerance) {
    result.status = Status::Solved;
  } else if (inner.solved()) {
    // The LCP is solved but the frictional error misses: in 3D the polyhedral approximation, in 2D round-off.
    result.status = d == 2 ? Status::NumericalFailure : Status::NoSolutionFound;
  } else {
    result.status = inner.status == Status::Infeasible && d == 3 ? Status::NoSolutionFound : inner.status;
  }
  result.message = lcp_text;
  return result;
}

using Fresh = std::optional<FrictionContactResiduals>;

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
/// auto: when no method solved but the best point is within this many tolerances, nsgs from it.
constexpr double kPolishReach = 1e3;

auto velocity_of(const FrictionContact& problem) {
  return [&problem](const Eigen::VectorXd& r) { return problem.velocity(r); };
}

// The checks every solve makes of its options and method.
void check_call(Method method, const SolveOptions& options, Eigen::Index size, Eigen::Index contacts) {
  options.validate(size);
  options.friction_contact.validate(contacts);
  if (!accepts_friction_contact(method)) reject(method);
  if (options.all_solutions) {
    throw InvalidProblem(
        "all_solutions is supported only by enum on an Lcp; the frictional contact methods stop at "
        "the first solution");
  }
  if (options.lemke.covering_vector) {
    throw InvalidProblem(
        "lemke.covering_vector is not read on a FrictionContact (lemke pivots on an LCP of its own "
        "size there); leave it unset");
  }
}

Result run(const FrictionContact& problem, Method method, const SolveOptions& options, const Eigen::VectorXd& r0,
           Fresh& fresh);

/// `run` and `finish`: a finished attempt and, in `fresh`, the residuals of its point.
Result finished_run(const FrictionContact& problem, Method method, const SolveOptions& options,
                    const Eigen::VectorXd& r0, Fresh& fresh) {
  Result result = run(problem, method, options, r0, fresh);
  finish(problem, velocity_of(problem), options, result, fresh);
  return result;
}

/// auto's second nsgs, after newton-ac: from `r0`, over-relaxed (ω = `kContinuedRelaxation` unless
/// `friction_contact.relaxation` was set), in parts of `part_sweeps`, then each as long as all the
/// sweeps so far (doubling, `limit` in all), until it solves, the limit, or the error grows tenfold
/// over the best (divergence). nsgs on a heap is slow while it finds the contact statuses and fast
/// after, and the error on the way is not monotone: measured on steps of heaps between walls (μ =
/// 0.6, tolerance 1e-10), a 151-contact step of 100 disks needs 14 900 sweeps at ω = 1, 8 600 at 1.3,
/// 4 300 at 1.6 (its error flat near 4e-5 until the statuses settle, then 1e-10 within 600 sweeps),
/// and a 1 054-contact step of 1 000 disks 26 000 at ω = 1.5 (its error even rising slowly, 3.3e-6 to
/// 3.9e-6, for 10 000 sweeps before it falls); newton-ac cycles and prox stalls on both, and Lemke
/// on the first takes 0.5-1 s. So no rule on the progress of a part: only the limit stops it.
Result continued_nsgs(const FrictionContact& problem, SolveOptions attempt, const Eigen::VectorXd& r0,
                      int part_sweeps, int limit, Fresh& fresh) {
  if (attempt.friction_contact.relaxation == 1.0) attempt.friction_contact.relaxation = kContinuedRelaxation;
  const auto part = [&](const Eigen::VectorXd& start, int sweeps) {
    attempt.max_iterations = sweeps;
    attempt.initial_guess = start;
    return finished_run(problem, Method::Nsgs, attempt, start, fresh);
  };
  Result result = part(r0, std::min(part_sweeps, limit));
  int sweeps = result.iterations;
  double best = result.residual;
  while (result.status != Status::Solved && result.z.allFinite() && result.residual <= 10 * best && sweeps < limit) {
    Result more = part(result.z, std::min(sweeps, limit - sweeps));
    sweeps += more.iterations;
    more.iterations = sweeps;
    if (!result.history.empty()) {
      more.history.insert(more.history.begin(), result.history.begin(), result.history.end());
    }
    result = std::move(more);
    best = std::min(best, result.residual);
  }
  result.message += " (" + std::to_string(sweeps) + " sweeps from newton-ac's point, over-relaxed with omega " +
                    number_text(attempt.friction_contact.relaxation) + ")";
  return result;
}

/// auto; `fresh` gets the residuals of the point it returns (each attempt is finished on its own).
/// `swept`: r0 is where nsgs' first sweeps ended (on the factors of W), so the chain starts at newton-ac.
Result solve_auto(const FrictionContact& problem, const SolveOptions& options, const Eigen::VectorXd& r0,
                  Fresh& fresh, bool swept = false) {
  const int d = problem.dimension;
  const Eigen::Index lcp_size = problem.contacts() * 4;
  std::vector<Method> order = {Method::Nsgs, Method::NewtonAc, Method::Nsgs, Method::Prox};
  if (swept) order.erase(order.begin());
  std::string reason =
      "nsgs first (sweeps of cost O(nnz(W)) with exact local solvers, warm-started), limited to "
      "friction_contact.auto_nsgs_sweeps sweeps; newton-ac next from nsgs' point (a quadratic tail once the contact "
      "statuses are found); nsgs again from the best point while it keeps cutting the error (slow starts on "
      "heaps); prox then from the best point (W + rho I is positive definite where W is singular or "
      "redundant, which stalls both)";
  // Small planar problems: Lemke on the exact Stewart-Trinkle LCP before prox, and newton-ac kept
  // short before it (see kNewtonStepsBeforeLemke).
  const bool lemke_in_chain = d == 2 && lcp_size <= options.friction_contact.lcp_max_size;
  if (lemke_in_chain) {
    order.insert(order.end() - 1, Method::Lemke);
    reason += "; on this small planar problem newton-ac gets " + std::to_string(kNewtonStepsBeforeLemke) +
              " steps, and lemke on the exact Stewart-Trinkle LCP (" + std::to_string(lcp_size) +
              " unknowns: small enough to pivot densely) runs before prox";
  }
  Eigen::VectorXd best = r0;
  double best_error = std::numeric_limits<double>::infinity();
  Fresh best_residuals;
  Fresh last_residuals;
  const int limit = options.iteration_limit(10000);
  const int budget = std::min(limit, options.friction_contact.auto_nsgs_sweeps);
  int nsgs_runs = swept ? 1 : 0;
  Result result = detail::first_that_solves(
      order,
      [&](Method method) {
        SolveOptions attempt = options;
        attempt.initial_guess = best;
        Result attempt_result;
        Fresh residuals;
        if (method == Method::Nsgs && nsgs_runs++ > 0) {
          attempt_result = continued_nsgs(problem, attempt, best, budget, limit - budget, residuals);
        } else {
          if (method == Method::Nsgs) attempt.max_iterations = budget;
          if (method == Method::NewtonAc && lemke_in_chain && options.max_iterations == 0) {
            attempt.max_iterations = kNewtonStepsBeforeLemke;
          }
          attempt_result = finished_run(problem, method, attempt, best, residuals);
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
    Result polished = finished_run(problem, Method::Nsgs, attempt, best, residuals);
    if (polished.solved()) {
      polished.message = result.message + "; then nsgs from that point: " + polished.message;
      fresh = residuals;
      return polished;
    }
  }
  return result;
}

Result run(const FrictionContact& problem, Method method, const SolveOptions& options, const Eigen::VectorXd& r0,
           Fresh& fresh) {
  fresh.reset();
  switch (method) {
    case Method::Nsgs: {
      FrictionContactResiduals residuals;
      Result result = detail::solve_nsgs(problem, options, r0, residuals);
      fresh = residuals;
      return result;
    }
    case Method::Prox:
      return detail::solve_prox(problem, options, r0);
    case Method::Lemke:
      return solve_lemke_reformulation(problem, options);
    case Method::Auto:
      return solve_auto(problem, options, r0, fresh);
    case Method::NewtonAc:
      return detail::solve_newton_ac(problem, options, r0);
    case Method::InteriorPoint:
      return detail::solve_friction_interior_point(problem, options, r0);
    default:
      break;
  }
  reject(method);
}

}  // namespace

Result solve(const FrictionContact& problem, Method method, const SolveOptions& options) {
  FrictionContactResiduals criteria;
  return solve(problem, method, options, criteria);
}

Result solve(const FrictionContact& problem, Method method, const SolveOptions& options,
             FrictionContactResiduals& criteria) {
  problem.validate();
  check_call(method, options, problem.size(), problem.contacts());
  const auto start = std::chrono::steady_clock::now();
  Result result;
  Fresh fresh;
  if (std::optional<Result> trivial = trivial_result(problem)) {
    result = *std::move(trivial);
  } else {
    const Eigen::VectorXd r0 = options.initial_guess.value_or(Eigen::VectorXd::Zero(problem.size()));
    result = run(problem, method, options, r0, fresh);
  }
  finish(problem, velocity_of(problem), options, result, fresh);
  criteria = *fresh;
  if (method != Method::Auto) result.method = method;  // auto: the method that answered
  // The frictional error is already relative (Siconos' measure, docs/solvers.md "Frictional contact").
  result.relative_residual = result.residual;
  result.time_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
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

Result solve(const FactoredFrictionContact& problem, Method method, const SolveOptions& options,
             FrictionContactResiduals& criteria) {
  problem.validate();
  check_call(method, options, problem.size(), problem.contacts());
  const auto start = std::chrono::steady_clock::now();
  FrictionContact shell;  // d, q and μ for the residuals (its W is never read)
  shell.dimension = problem.dimension;
  shell.q = problem.q;
  shell.mu = problem.mu;
  const auto velocity = [&problem](const Eigen::VectorXd& r) { return problem.velocity(r); };
  Result result;
  Fresh fresh;
  if (std::optional<Result> trivial = trivial_result(shell)) {
    result = *std::move(trivial);
  } else if (method == Method::InteriorPoint) {
    const Eigen::VectorXd r0 = options.initial_guess.value_or(Eigen::VectorXd::Zero(problem.size()));
    result = detail::solve_friction_interior_point(problem.H, problem.inverse_mass, shell, options, r0);
  } else if (method == Method::Nsgs || method == Method::Auto) {
    const Eigen::VectorXd r0 = options.initial_guess.value_or(Eigen::VectorXd::Zero(problem.size()));
    SolveOptions attempt = options;
    if (method == Method::Auto) {
      attempt.max_iterations = std::min(options.iteration_limit(10000), options.friction_contact.auto_nsgs_sweeps);
    }
    FrictionContactResiduals residuals;
    result = detail::solve_nsgs_factored(problem.H, problem.inverse_mass, shell, attempt, r0, residuals);
    fresh = residuals;
    finish(shell, velocity, attempt, result, fresh);
    if (method == Method::Auto && !result.solved()) {
      std::string story = "nsgs on the factors of W: " + to_string(result.status) + " after " +
                          std::to_string(result.iterations) + " sweeps (relative error " +
                          number_text(result.residual) + ")";
      const Eigen::VectorXd swept = result.z;
      const int sweeps = result.iterations;
      if (problem.dimension == 2) {
        // In the plane, where no contact slides at the sweeps' point: Anitescu–Potra's relaxation,
        // whose solution is Coulomb's when the bodies are at rest (a structure from rest).
        FrictionContactResiduals relaxed_residuals;
        if (std::optional<Result> relaxed = detail::solve_at_rest(problem.H, problem.inverse_mass, shell, options,
                                                                  swept, result.residual, relaxed_residuals)) {
          story += "; then " + relaxed->message;
          if (relaxed->residual < result.residual) {
            relaxed->iterations += sweeps;
            result = *std::move(relaxed);
            fresh = relaxed_residuals;
          }
        }
      }
      if (!result.solved() && problem.dimension == 2 && options.friction_contact.auto_shift_updates > 0) {
        // In the plane, when asked for: the fixed point on de Saxcé's shift from the sweeps' point,
        // each update an exact convex program on the factors (W still not formed).
        FrictionContactResiduals shifted_residuals;
        SolveOptions shift_options = options;
        shift_options.max_iterations = options.friction_contact.auto_shift_updates;
        Result shifted = detail::solve_by_shifts(problem.H, problem.inverse_mass, shell, shift_options, swept,
                                                 shifted_residuals);
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
        Fresh chained_fresh;
        Result chained = solve_auto(formed, options, swept, chained_fresh, true);
        finish(formed, velocity_of(formed), options, chained, chained_fresh);
        const FrictionContactResiduals rest_criteria = *chained_fresh;
        if (chained.solved() || chained.residual <= result.residual) {
          chained.iterations += result.iterations;
          story += "; then W formed, from the sweeps' point: " + chained.message;
          result = std::move(chained);
          fresh = rest_criteria;
        } else {
          story += "; then W formed, and its chain from the sweeps' point ended farther (" + chained.message +
                   "): the best point before it is returned";
        }
      }
      result.message = "auto: " + story;
    } else if (method == Method::Auto) {
      result.message = "auto (nsgs on the factors of W: solved): " + result.message;
    }
  } else {
    result = solve(problem.assembled(), method, options, criteria);
    result.time_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return result;
  }
  finish(shell, velocity, options, result, fresh);
  criteria = *fresh;
  if (method != Method::Auto) result.method = method;  // auto: the method that answered
  result.relative_residual = result.residual;
  result.time_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

std::vector<Method> friction_contact_methods() {
  std::vector<Method> methods;
  for (const Method method : all_methods()) {
    if (accepts_friction_contact(method)) methods.push_back(method);
  }
  return methods;
}

}  // namespace perp
