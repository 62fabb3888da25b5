#include "enumeration.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "detail.hpp"
#include "perp/core/error.hpp"
#include "perp/core/residual.hpp"

namespace perp {

namespace {
using detail::kEnumerationSign;
// Two solutions closer than this (relative to their size) are the same solution.
constexpr double kDistinct = 1e-7;
}  // namespace

Result solve_enumeration(const Lcp& problem, const SolveOptions& options) {
  const Eigen::Index n = problem.size();
  if (n > kMaxEnumerationSize) {
    throw InvalidProblem(
        "enum: enumeration checks 2^n active sets and is limited to n <= " + std::to_string(kMaxEnumerationSize) +
        ", got n = " + std::to_string(n) + "; use lemke, murty or pgs");
  }
  if (!options.all_solutions) {
    if (auto trivial = detail::trivial_result(problem, Method::Enum)) return *trivial;
  }
  const std::uint64_t count = std::uint64_t{1} << n;
  // The budget: `max_iterations` active sets when set, else kEnumerationBudget (a run of a few
  // seconds); past it the solve ends MaxIterations with the best point seen.
  const auto limit = static_cast<std::uint64_t>(options.iteration_limit(kEnumerationBudget));
  Eigen::VectorXd z(n);
  Eigen::VectorXd best_z = Eigen::VectorXd::Zero(n);
  double best_residual = natural_residual(problem, best_z);
  std::vector<Eigen::VectorXd> solutions;
  int singular = 0;
  int overflowed = 0;
  int examined = 0;
  std::vector<Eigen::Index> alpha;
  alpha.reserve(static_cast<std::size_t>(n));
  Eigen::MatrixXd sub;
  Eigen::VectorXd rhs;
  const detail::DataScale scale = detail::data_scale(problem);

  // Visit α in order of increasing |α|, then by bit pattern (the next pattern of the same
  // popcount by Gosper's rule), so that the first solution found has the smallest support and
  // z = 0 is tried first. Generated on the fly: no 2^n table.
  std::uint64_t mask = 0;
  int support = 0;
  const auto advance = [&] {
    const std::uint64_t lowest = mask & (~mask + 1);
    const std::uint64_t ripple = mask + lowest;
    mask = mask == 0 ? count : ripple | (((mask ^ ripple) >> 2) / lowest);
    if (mask >= count) {  // every set of this size done: the smallest of the next size
      ++support;
      mask = support > n ? count : (std::uint64_t{1} << support) - 1;
    }
  };
  for (; mask < count; advance()) {
    if (static_cast<std::uint64_t>(examined) >= limit) {
      Result result = detail::make_result(problem, best_z, Method::Enum);
      result.iterations = examined;
      result.status = Status::MaxIterations;
      result.message = "limit of " + std::to_string(limit) + " active sets reached (of " + std::to_string(count) +
                       "; raise it with max_iterations, --max-iter); returning the point with the smallest residual";
      if (options.all_solutions) result.solutions = std::move(solutions);
      return result;
    }
    ++examined;
    alpha.clear();
    for (Eigen::Index i = 0; i < n; ++i) {
      if (mask & (std::uint64_t{1} << i)) alpha.push_back(i);
    }
    const auto k = static_cast<Eigen::Index>(alpha.size());
    z.setZero();
    if (k > 0) {
      detail::principal_system(problem, alpha, sub, rhs);
      const Eigen::FullPivLU<Eigen::MatrixXd> lu(sub);
      Eigen::VectorXd solution = lu.solve(rhs);
      if (!lu.isInvertible()) {
        ++singular;
        // A singular M_αα may still have solutions (e.g. M = 0, q = 0); keep the LU's
        // particular one only when it really solves the system.
        const double size = rhs.cwiseAbs().maxCoeff() + sub.cwiseAbs().maxCoeff() * solution.cwiseAbs().sum();
        if (!solution.allFinite() || (sub * solution - rhs).cwiseAbs().maxCoeff() > kEnumerationSign * size) {
          continue;
        }
      }
      if (!solution.allFinite()) {  // nonsingular, but z_α overflows: no verdict on this set
        ++overflowed;
        continue;
      }
      z(alpha) = solution;
    }
    const Eigen::VectorXd w = problem.slack(z);
    const double residual = natural_residual(z, w);
    if (residual < best_residual) {
      best_residual = residual;
      best_z = z;
    }
    // Accept by sign at the problem's own scale; whether the point meets the (absolute)
    // tolerance is judged once, at the end.
    if (!detail::sign_feasible(scale, z, w, kEnumerationSign)) continue;
    if (!options.all_solutions) {
      Result result = detail::make_result(problem, z, Method::Enum);
      result.iterations = examined;
      detail::judge(result, options.tolerance, Status::NumericalFailure,
                    "the active set's point is a solution up to round-off but");
      if (result.solved()) {
        result.message = "active set of size " + std::to_string(k) + " after " + std::to_string(examined) + " of " +
                         std::to_string(count);
      }
      return result;
    }
    const bool seen = std::any_of(solutions.begin(), solutions.end(), [&](const Eigen::VectorXd& s) {
      return (s - z).cwiseAbs().maxCoeff() <= kDistinct * std::max(s.cwiseAbs().maxCoeff(), z.cwiseAbs().maxCoeff());
    });
    if (!seen) solutions.push_back(z);
  }

  if (!solutions.empty()) {
    Result result = detail::make_result(problem, solutions.front(), Method::Enum);
    result.iterations = examined;
    const std::string found = std::to_string(solutions.size()) + " distinct solution" +
                              (solutions.size() == 1 ? "" : "s") + " among " + std::to_string(count) + " active sets";
    detail::judge(result, options.tolerance, Status::NumericalFailure, found + ", but the first");
    if (result.solved()) result.message = found;
    result.solutions = std::move(solutions);
    return result;
  }
  Result result = detail::make_result(problem, best_z, Method::Enum);
  result.iterations = examined;
  if (overflowed > 0) {
    result.status = Status::NumericalFailure;
    result.message = "no active set gives a solution, but the points of " + std::to_string(overflowed) +
                     " active sets overflow the range of double, so this is not a proof of infeasibility";
  } else if (singular == 0) {
    result.status = Status::Infeasible;
    result.message = "no solution: none of the " + std::to_string(count) +
                     " active sets gives z >= 0, w >= 0 and every M_aa is nonsingular";
  } else {
    result.status = Status::NoSolutionFound;
    result.message = "no active set gives a solution, but " + std::to_string(singular) +
                     " principal submatrices are singular, so this is not a proof of infeasibility";
  }
  return result;
}

}  // namespace perp
