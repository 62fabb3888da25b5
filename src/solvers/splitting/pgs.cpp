#include "pgs.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "entry/detail.hpp"
#include "perp/core/error.hpp"
#include "perp/core/ncp.hpp"
#include "perp/core/residual.hpp"

namespace perp {
namespace {

using detail::kInfinity;
using detail::kPgsRefreshEvery;
// A residual this many times the smallest seen means the sweeps diverge (a converging run does not
// lose ten orders of magnitude on the way); the run stops there with the best point.
constexpr double kPgsDivergence = 1e10;

// What differs between the problem types the kernel runs on: the fixed bounds (the LCP's [0, ∞)),
// the friction coupling (the box LCP's only), and the natural residual on the bounds (the LCP's
// |min(z, w)|, which the box form |z − mid(lo, hi, z − w)| equals only up to rounding).
const std::vector<FrictionCoupling> kPgsUncoupled;

void fixed_bounds(const Lcp& problem, Eigen::VectorXd& lo, Eigen::VectorXd& hi) {
  lo.setZero(problem.size());
  hi.setConstant(problem.size(), kInfinity);
}
void fixed_bounds(const BoxLcp& problem, Eigen::VectorXd& lo, Eigen::VectorXd& hi) {
  lo = problem.lower;
  hi = problem.upper;
}
const std::vector<FrictionCoupling>& coupling_of(const Lcp&) { return kPgsUncoupled; }
const std::vector<FrictionCoupling>& coupling_of(const BoxLcp& problem) { return problem.friction; }
double bounded_residual(const Lcp&, const Eigen::VectorXd& z, const Eigen::VectorXd& w, const Eigen::VectorXd&,
                        const Eigen::VectorXd&) {
  return natural_residual(z, w);
}
double bounded_residual(const BoxLcp&, const Eigen::VectorXd& z, const Eigen::VectorXd& w, const Eigen::VectorXd& lo,
                        const Eigen::VectorXd& hi) {
  return natural_residual(z, w, lo, hi);
}
// Whether to try the relative test (core/residual.hpp) on an exact w after this sweep: the LCP's
// O(n) bound of it (detail::may_meet); the box LCP's absolute residual within the tolerance, or
// every kPgsRefreshEvery sweeps, where w is exact anyway.
detail::DataScale scale_for(const Lcp& problem) { return detail::data_scale(problem); }
detail::DataScale scale_for(const BoxLcp&) { return {}; }
bool may_converge(const Lcp&, const detail::DataScale& scale, const Eigen::VectorXd& z, const Eigen::VectorXd& w,
                  double, int, double tolerance) {
  return detail::may_meet(scale, z, w, tolerance);
}
bool may_converge(const BoxLcp&, const detail::DataScale&, const Eigen::VectorXd&, const Eigen::VectorXd&,
                  double residual, int sweep, double tolerance) {
  return residual <= tolerance || sweep % kPgsRefreshEvery == 0;
}

// The coupled bounds ∓μ_i|z_j| at z (the fixed bounds of the other rows never change).
void couple_bounds(const std::vector<FrictionCoupling>& friction, const Eigen::VectorXd& z, Eigen::VectorXd& lo,
                   Eigen::VectorXd& hi) {
  for (const FrictionCoupling& c : friction) {
    hi[c.index] = c.mu * std::abs(z[c.normal]);
    lo[c.index] = -hi[c.index];
  }
}

// w += Σ_k delta[k] · column[k] for up to four columns in one pass over w, so that w is loaded and
// stored once per group rather than once per column (what makes a sweep cost one product).
void add_columns(double* __restrict w, Eigen::Index n, const double* const* column, const double* delta, int count) {
  // Named locals with __restrict tell the compiler w and the columns do not overlap, so the
  // loops vectorize without run-time alias checks.
  const double d0 = delta[0], d1 = count > 1 ? delta[1] : 0.0, d2 = count > 2 ? delta[2] : 0.0,
               d3 = count > 3 ? delta[3] : 0.0;
  const double* __restrict c0 = column[0];
  const double* __restrict c1 = count > 1 ? column[1] : nullptr;
  const double* __restrict c2 = count > 2 ? column[2] : nullptr;
  const double* __restrict c3 = count > 3 ? column[3] : nullptr;
  switch (count) {
    case 1:
      for (Eigen::Index r = 0; r < n; ++r) w[r] += d0 * c0[r];
      break;
    case 2:
      for (Eigen::Index r = 0; r < n; ++r) w[r] += d0 * c0[r] + d1 * c1[r];
      break;
    case 3:
      for (Eigen::Index r = 0; r < n; ++r) w[r] += d0 * c0[r] + d1 * c1[r] + d2 * c2[r];
      break;
    case 4:
      for (Eigen::Index r = 0; r < n; ++r) w[r] += d0 * c0[r] + d1 * c1[r] + d2 * c2[r] + d3 * c3[r];
      break;
    default:
      break;
  }
}

// One Gauss–Seidel sweep in groups of four rows. Inside a group the order is exact: each row's
// w is corrected by the earlier changes of its group through the group's diagonal block
// (contiguous entries of M), and the group's nonzero changes then reach all of w at once.
// Rows whose z does not change cost nothing beyond the projection. `normal[i] >= 0` (only when
// kCoupled): row i's bounds are ∓mu[i]|z_normal[i]|, read at its own update.
// kLcp: the bounds are the LCP's [0, ∞) whatever lo and hi hold (they are not read).
template <bool kCoupled, bool kLcp = false>
void gauss_seidel_sweep(const Eigen::MatrixXd& M, const Eigen::VectorXd& step, const std::vector<Eigen::Index>& normal,
                        const Eigen::VectorXd& mu, Eigen::VectorXd& lo, Eigen::VectorXd& hi, Eigen::VectorXd& z,
                        Eigen::VectorXd& w) {
  constexpr Eigen::Index kGroup = 4;
  const Eigen::Index n = z.size();
  double* const wp = w.data();
  for (Eigen::Index start = 0; start < n; start += kGroup) {
    const Eigen::Index width = std::min(kGroup, n - start);
    double local[kGroup];
    for (Eigen::Index k = 0; k < width; ++k) local[k] = wp[start + k];
    const double* column[kGroup];
    double delta[kGroup];
    int count = 0;
    for (Eigen::Index k = 0; k < width; ++k) {
      const Eigen::Index i = start + k;
      if constexpr (kCoupled) {
        const Eigen::Index j = normal[static_cast<std::size_t>(i)];
        if (j >= 0) {
          hi[i] = mu[i] * std::abs(z[j]);
          lo[i] = -hi[i];
        }
      }
      const double unprojected = z[i] - step[i] * local[k];
      double updated;
      if constexpr (kLcp) {
        updated = unprojected < 0.0 ? 0.0 : unprojected;  // NaN stays NaN, as clamp leaves it
      } else {
        updated = std::clamp(unprojected, lo[i], hi[i]);
      }
      const double change = updated - z[i];
      if (change == 0.0) continue;
      z[i] = updated;
      const double* const c = M.data() + i * n;
      for (Eigen::Index l = k + 1; l < width; ++l) local[l] += change * c[start + l];
      column[count] = c;
      delta[count] = change;
      ++count;
    }
    add_columns(wp, n, column, delta, count);
  }
}

// The one kernel (pgs.hpp) on an Lcp or a BoxLcp. Returns z, the status, message, iterations and
// history; w and the residuals are left to the caller.
template <class Problem>
Result projected_gauss_seidel(const Problem& problem, const SolveOptions& options, double relaxation) {
  const char* name = detail::trace_name(relaxation == 1.0 ? Method::Pgs : Method::Psor);
  const Eigen::Index n = problem.size();
  const Eigen::MatrixXd& M = problem.M;
  const std::vector<FrictionCoupling>& friction = coupling_of(problem);
  Eigen::VectorXd lo, hi;
  fixed_bounds(problem, lo, hi);
  Eigen::VectorXd z = detail::bounded_start(lo, hi, friction, options);
  Result result;
  result.method = relaxation == 1.0 ? Method::Pgs : Method::Psor;

  // normal[i] >= 0: component i is coupled to z_normal[i] with coefficient mu[i].
  std::vector<Eigen::Index> normal(static_cast<std::size_t>(n), -1);
  Eigen::VectorXd mu = Eigen::VectorXd::Zero(n);
  for (const FrictionCoupling& c : friction) {
    normal[static_cast<std::size_t>(c.index)] = c.normal;
    mu[c.index] = c.mu;
  }
  for (Eigen::Index i = 0; i < n; ++i) {
    const bool free = normal[static_cast<std::size_t>(i)] < 0 && lo[i] == -kInfinity && hi[i] == kInfinity;
    if (free ? M(i, i) == 0.0 : !(M(i, i) > 0.0)) {
      result.status = Status::NotApplicable;
      result.message = "M(" + std::to_string(i) + ", " + std::to_string(i) + ") = " + number_text(M(i, i)) +
                       (free ? ": projected Gauss-Seidel divides by the diagonal of a free row"
                             : ": projected Gauss-Seidel needs a positive diagonal on a bounded row");
      result.z = std::move(z);
      return result;
    }
  }
  const Eigen::VectorXd step = M.diagonal().cwiseInverse() * relaxation;
  const int limit = options.iteration_limit(kDefaultSweeps);
  if (options.record_history) result.history.reserve(static_cast<std::size_t>(std::min(limit, kDefaultSweeps)));
  const detail::DataScale scale = scale_for(problem);

  // From z = 0, w = q needs no product.
  Eigen::VectorXd w = (z.array() == 0.0).all() ? Eigen::VectorXd(problem.q) : problem.slack(z);
  couple_bounds(friction, z, lo, hi);
  // The point of smallest residual seen (sweep 0: the start): what a diverging run returns.
  Eigen::VectorXd best = z;
  double best_residual = bounded_residual(problem, z, w, lo, hi);
  int best_sweep = 0;

  // The trace (only with options.trace): the active set {i : lo_i < z_i < hi_i} (z_i > 0 for the
  // LCP) of the last event, and the residual with w recomputed from z, so that it does not depend
  // on the incremental w.
  TraceEvent event;
  std::vector<char> inside;
  const auto trace = [&](int sweep) {
    event.method = name;
    event.kind = TraceKind::Sweep;
    event.iteration = sweep;
    event.entered.clear();
    event.left.clear();
    inside.resize(static_cast<std::size_t>(n), 0);
    Eigen::Index count = 0;
    for (Eigen::Index i = 0; i < n; ++i) {
      const char now = lo[i] < z[i] && z[i] < hi[i] ? 1 : 0;
      char& before = inside[static_cast<std::size_t>(i)];
      if (now && !before) event.entered.push_back(i);
      if (!now && before) event.left.push_back(i);
      before = now;
      count += now;
    }
    event.active_size = count;
    event.residual = bounded_residual(problem, z, problem.slack(z), lo, hi);
    options.trace(event);
  };
  if (options.trace) trace(0);

  Status status = Status::MaxIterations;
  std::string message;
  int sweep = 1;
  for (; sweep <= limit; ++sweep) {
    if (const std::optional<Status> stop = detail::stop_requested()) {
      status = *stop;
      message = detail::stop_message(*stop, sweep - 1, "sweeps");
      break;
    }
    if (friction.empty()) {
      gauss_seidel_sweep<false>(M, step, normal, mu, lo, hi, z, w);
    } else {
      gauss_seidel_sweep<true>(M, step, normal, mu, lo, hi, z, w);
    }
    couple_bounds(friction, z, lo, hi);
    if (options.trace) trace(sweep);
    if (sweep % kPgsRefreshEvery == 0) w = problem.slack(z);
    double residual = bounded_residual(problem, z, w, lo, hi);
    if (!std::isfinite(residual) || residual > kPgsDivergence * std::max(best_residual, options.tolerance)) {
      message = (std::isfinite(residual) ? "the residual grew to " + number_text(residual) + " at sweep "
                                         : std::string("iterates stopped being finite at sweep ")) +
                std::to_string(sweep) + ": the iteration diverges (is M positive definite?); returning the point of " +
                "smallest residual " + number_text(best_residual) + ", sweep " + std::to_string(best_sweep);
      z = best;
      status = Status::NumericalFailure;
      break;
    }
    if (residual < best_residual) {
      best = z;
      best_residual = residual;
      best_sweep = sweep;
    }
    bool converged = false;
    if (may_converge(problem, scale, z, w, residual, sweep, options.tolerance)) {
      w = problem.slack(z);
      residual = bounded_residual(problem, z, w, lo, hi);
      converged = relative_residual(problem, z, w) <= options.tolerance;
    }
    if (options.record_history) record_history(result.history, residual);
    if (converged) {
      status = Status::Solved;
      message = "converged after " + std::to_string(sweep) + " sweeps";
      break;
    }
  }
  if (status == Status::MaxIterations) message = "sweep limit " + std::to_string(limit) + " reached";
  result.iterations = detail::stopped_from_outside(status) ? sweep - 1 : std::min(sweep, limit);
  result.z = std::move(z);
  result.status = status;
  result.message = std::move(message);
  return result;
}

}  // namespace

Eigen::VectorXd detail::bounded_start(const Eigen::VectorXd& lower, const Eigen::VectorXd& upper,
                                      const std::vector<FrictionCoupling>& friction, const SolveOptions& options) {
  Eigen::VectorXd z = options.initial_guess.value_or(Eigen::VectorXd::Zero(lower.size()));
  // (A coupled component's own lower/upper entries may be anything; it is overwritten below.)
  z = z.cwiseMax(lower).cwiseMin(upper);
  for (const FrictionCoupling& c : friction) {
    const double bound = c.mu * std::abs(z[c.normal]);
    z[c.index] = std::clamp(options.initial_guess ? (*options.initial_guess)[c.index] : 0.0, -bound, bound);
  }
  return z;
}

void detail::gauss_seidel_sweeps(const Eigen::MatrixXd& M, const Eigen::VectorXd& inverse_diagonal, Eigen::VectorXd& z,
                                 Eigen::VectorXd& w, int sweeps) {
  // The LCP's bounds are fixed in the kernel: nothing to allocate (auto calls this a sweep at a time).
  static const std::vector<Eigen::Index> uncoupled;
  Eigen::VectorXd unused;
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    gauss_seidel_sweep<false, true>(M, inverse_diagonal, uncoupled, unused, unused, unused, z, w);
  }
}

Result solve_psor(const Lcp& problem, const SolveOptions& options, double relaxation) {
  if (!options.initial_guess) {
    if (auto trivial = detail::trivial_result(problem, relaxation == 1.0 ? Method::Pgs : Method::Psor)) return *trivial;
  }
  Result result = projected_gauss_seidel(problem, options, relaxation);
  detail::recompute(problem, result);
  if (result.status == Status::MaxIterations) {
    const std::string why_not = result.message;
    detail::judge(result, options.tolerance, Status::MaxIterations, why_not);
  }
  return result;
}

Result solve_psor(const BoxLcp& problem, const SolveOptions& options, double relaxation) {
  return projected_gauss_seidel(problem, options, relaxation);
}

}  // namespace perp
