#include "perp/solvers/pgs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "detail.hpp"
#include "perp/core/residual.hpp"

namespace perp {
namespace {

// w is updated incrementally (w += Δz_i M_:i); it is recomputed from z this often to keep
// round-off from accumulating, and always before a convergence claim.
constexpr int kRefreshEvery = 64;

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
      result.status = Status::NumericalFailure;
      char buffer[160];
      std::snprintf(buffer, sizeof buffer,
                    "M(%td, %td) = %.6g: projected Gauss-Seidel needs a positive diagonal", static_cast<std::ptrdiff_t>(i),
                    static_cast<std::ptrdiff_t>(i), M(i, i));
      result.message = buffer;
      return result;
    }
  }
  const Eigen::VectorXd inverse_diagonal = M.diagonal().cwiseInverse() * relaxation;
  const int limit = options.iteration_limit(10000);

  Eigen::VectorXd w = problem.slack(z);
  Eigen::VectorXd last_finite = z;
  std::vector<double> history;
  if (options.record_history) history.reserve(static_cast<std::size_t>(std::min(limit, 10000)));

  const auto finish = [&](const Eigen::VectorXd& point, Status status, std::string message, int sweeps) {
    Result result = detail::make_result(problem, point, name);
    result.iterations = sweeps;
    result.history = std::move(history);
    result.status = status;
    result.message = std::move(message);
    return result;
  };

  for (int sweep = 1; sweep <= limit; ++sweep) {
    for (Eigen::Index i = 0; i < n; ++i) {
      const double updated = std::max(0.0, z[i] - inverse_diagonal[i] * w[i]);
      const double change = updated - z[i];
      if (change != 0.0) {
        z[i] = updated;
        w.noalias() += change * M.col(i);
      }
    }
    if (sweep % kRefreshEvery == 0) w = problem.slack(z);
    double residual = natural_residual(z, w);
    if (!std::isfinite(residual)) {
      return finish(last_finite, Status::NumericalFailure,
                    "iterates stopped being finite at sweep " + std::to_string(sweep) +
                        ": the iteration diverges (is M positive definite?)",
                    sweep);
    }
    if (residual <= options.tolerance) {
      w = problem.slack(z);
      residual = natural_residual(z, w);
    }
    if (options.record_history) history.push_back(residual);
    if (residual <= options.tolerance) {
      return finish(z, Status::Solved, "converged after " + std::to_string(sweep) + " sweeps", sweep);
    }
    last_finite = z;
  }
  Result result = finish(z, Status::MaxIterations, "", limit);
  detail::judge(result, options.tolerance, Status::MaxIterations,
                "sweep limit " + std::to_string(limit) + " reached");
  return result;
}

}  // namespace perp
