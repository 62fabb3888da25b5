#include "murty.hpp"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "entry/detail.hpp"
#include "perp/core/residual.hpp"

namespace perp {
namespace {

// z with z_ᾱ = 0 and M_αα z_α = −q_α; false when M_αα is (numerically) singular.
bool principal_solve(const Lcp& problem, const std::vector<bool>& in_alpha, Eigen::VectorXd& z) {
  std::vector<Eigen::Index> alpha;
  for (std::size_t i = 0; i < in_alpha.size(); ++i) {
    if (in_alpha[i]) alpha.push_back(static_cast<Eigen::Index>(i));
  }
  z.setZero();
  if (alpha.empty()) return true;
  Eigen::MatrixXd sub;
  Eigen::VectorXd rhs;
  detail::principal_system(problem, alpha, sub, rhs);
  const Eigen::FullPivLU<Eigen::MatrixXd> lu(sub);
  if (!lu.isInvertible()) return false;
  const Eigen::VectorXd solution = lu.solve(rhs);
  if (!solution.allFinite()) return false;
  z(alpha) = solution;
  return true;
}

}  // namespace

Result solve_murty(const Lcp& problem, const SolveOptions& options) {
  if (auto trivial = detail::trivial_result(problem, Method::Murty)) return *trivial;
  const Eigen::Index n = problem.size();
  const int limit = options.iteration_limit(default_pivots(n));
  // Pivot on signs at the problem's own scale (scale-invariant); the tolerance only decides
  // "solved" at the end.
  constexpr double kRelativeSign = 1e-12;
  const detail::DataScale scale = detail::data_scale(problem);
  std::vector<bool> in_alpha(static_cast<std::size_t>(n), false);
  std::set<std::vector<bool>> visited;
  Eigen::VectorXd z = Eigen::VectorXd::Zero(n);
  Eigen::VectorXd w = problem.q;
  std::vector<double> history;
  int pivots = 0;

  const auto finish = [&](Status status, std::string message) {
    Result result = detail::make_result(problem, z, Method::Murty);
    result.iterations = pivots;
    result.history = std::move(history);
    result.status = status;
    result.message = std::move(message);
    return result;
  };

  while (true) {
    // Least index with z_i < 0 (i in α) or w_i < 0 (i not in α).
    Eigen::Index flip = -1;
    const double z_tolerance = detail::z_sign_tolerance(z, kRelativeSign);
    const double w_tolerance = detail::w_sign_tolerance(scale, z, kRelativeSign);
    for (Eigen::Index i = 0; i < n; ++i) {
      const bool in = in_alpha[static_cast<std::size_t>(i)];
      if ((in && z[i] < -z_tolerance) || (!in && w[i] < -w_tolerance)) {
        flip = i;
        break;
      }
    }
    if (flip < 0) {
      Result result = finish(Status::Solved, "");
      detail::judge(result, options.tolerance, Status::NumericalFailure,
                    "complementary basis found but its point misses the tolerance");
      if (result.solved()) result.message = "complementary basis after " + std::to_string(pivots) + " pivots";
      return result;
    }
    if (const std::optional<Status> stop = detail::stop_requested()) {
      return finish(*stop, detail::stop_message(*stop, pivots, "pivots"));
    }
    if (pivots >= limit) {
      return finish(Status::MaxIterations, "pivot limit " + std::to_string(limit) + " reached");
    }
    if (!visited.insert(in_alpha).second) {
      return finish(Status::NotApplicable, "active set repeated after " + std::to_string(pivots) +
                                               " pivots: Murty's method cycles, so M is not a P-matrix");
    }
    in_alpha[static_cast<std::size_t>(flip)] = !in_alpha[static_cast<std::size_t>(flip)];
    ++pivots;
    Eigen::VectorXd trial(n);
    if (!principal_solve(problem, in_alpha, trial)) {
      return finish(Status::NotApplicable, "principal submatrix M_aa singular after flipping index " +
                                               std::to_string(flip) + " (pivot " + std::to_string(pivots) +
                                               "): M is not a P-matrix, Murty's method cannot proceed");
    }
    z = trial;
    w = problem.slack(z);
    if (options.record_history) record_history(history, natural_residual(z, w));
    if (options.trace) {
      TraceEvent event;
      event.method = detail::trace_name(Method::Murty);
      event.kind = TraceKind::PrincipalPivot;
      event.iteration = pivots;
      (in_alpha[static_cast<std::size_t>(flip)] ? event.entered : event.left).push_back(flip);
      event.active_size = static_cast<Eigen::Index>(std::count(in_alpha.begin(), in_alpha.end(), true));
      event.residual = natural_residual(z, w);
      options.trace(event);
    }
  }
}

}  // namespace perp
