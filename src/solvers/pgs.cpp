#include "pgs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "detail.hpp"
#include "perp/core/residual.hpp"

namespace perp {
namespace {

using detail::kPgsRefreshEvery;

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
// Rows whose z does not change cost nothing beyond the projection.
void gauss_seidel_sweep(const Eigen::MatrixXd& M, const Eigen::VectorXd& inverse_diagonal, Eigen::VectorXd& z,
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
      const double updated = std::max(0.0, z[i] - inverse_diagonal[i] * local[k]);
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

}  // namespace

Result solve_psor(const Lcp& problem, const SolveOptions& options, double relaxation) {
  const char* name = relaxation == 1.0 ? "pgs" : "psor";
  const Eigen::Index n = problem.size();
  const Eigen::MatrixXd& M = problem.M;
  if (!options.initial_guess) {
    if (auto trivial = detail::trivial_result(problem, name)) return *trivial;
  }
  Eigen::VectorXd z = Eigen::VectorXd::Zero(n);
  if (options.initial_guess) z = options.initial_guess->cwiseMax(0.0);  // project the guess onto z >= 0

  for (Eigen::Index i = 0; i < n; ++i) {
    if (!(M(i, i) > 0.0)) {
      Result result = detail::make_result(problem, z, name);
      result.status = Status::NotApplicable;
      char buffer[160];
      std::snprintf(buffer, sizeof buffer, "M(%td, %td) = %.6g: projected Gauss-Seidel needs a positive diagonal",
                    static_cast<std::ptrdiff_t>(i), static_cast<std::ptrdiff_t>(i), M(i, i));
      result.message = buffer;
      return result;
    }
  }
  const Eigen::VectorXd inverse_diagonal = M.diagonal().cwiseInverse() * relaxation;
  const int limit = options.iteration_limit(10000);

  // From z = 0, w = q needs no product.
  Eigen::VectorXd w = options.initial_guess ? problem.slack(z) : problem.q;
  Eigen::VectorXd last_finite = z;
  std::vector<double> history;
  if (options.record_history) history.reserve(static_cast<std::size_t>(std::min(limit, 10000)));
  const detail::DataScale scale = detail::data_scale(problem);

  const auto finish = [&](const Eigen::VectorXd& point, Status status, std::string message, int sweeps) {
    Result result = detail::make_result(problem, point, name);
    result.iterations = sweeps;
    result.history = std::move(history);
    result.status = status;
    result.message = std::move(message);
    return result;
  };

  // The trace (only with options.trace): the active set {i : z_i > 0} of the last event, and the
  // residual with w recomputed from z, so that it does not depend on the incremental w.
  TraceEvent event;
  std::vector<char> positive;
  const auto trace = [&](int sweep) {
    event.method = name;
    event.kind = TraceKind::Sweep;
    event.iteration = sweep;
    event.entered.clear();
    event.left.clear();
    positive.resize(static_cast<std::size_t>(n), 0);
    Eigen::Index count = 0;
    for (Eigen::Index i = 0; i < n; ++i) {
      const char now = z[i] > 0.0 ? 1 : 0;
      char& before = positive[static_cast<std::size_t>(i)];
      if (now && !before) event.entered.push_back(i);
      if (!now && before) event.left.push_back(i);
      before = now;
      count += now;
    }
    event.active_size = count;
    event.residual = natural_residual(z, problem.slack(z));
    options.trace(event);
  };
  if (options.trace) trace(0);

  for (int sweep = 1; sweep <= limit; ++sweep) {
    gauss_seidel_sweep(M, inverse_diagonal, z, w);
    if (options.trace) trace(sweep);
    if (sweep % kPgsRefreshEvery == 0) w = problem.slack(z);
    double residual = natural_residual(z, w);
    if (!std::isfinite(residual)) {
      return finish(last_finite, Status::NumericalFailure,
                    "iterates stopped being finite at sweep " + std::to_string(sweep) +
                        ": the iteration diverges (is M positive definite?)",
                    sweep);
    }
    // The relative test (core/residual.hpp) on an exact w, tried when its O(n) bound allows.
    bool converged = false;
    if (detail::may_meet(scale, z, w, options.tolerance)) {
      w = problem.slack(z);
      residual = natural_residual(z, w);
      converged = relative_residual(problem, z, w) <= options.tolerance;
    }
    if (options.record_history) record_history(history, residual);
    if (converged) {
      return finish(z, Status::Solved, "converged after " + std::to_string(sweep) + " sweeps", sweep);
    }
    last_finite = z;
  }
  Result result = finish(z, Status::MaxIterations, "", limit);
  detail::judge(result, options.tolerance, Status::MaxIterations, "sweep limit " + std::to_string(limit) + " reached");
  return result;
}

}  // namespace perp
