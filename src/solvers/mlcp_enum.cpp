// enum for the MLCP (docs/solvers.md): the bordered system of each active set of the
// complementarity rows, visited in order of their distance from a starting guess.

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "detail.hpp"
#include "enumeration.hpp"
#include "mlcp_detail.hpp"
#include "perp/core/residual.hpp"

namespace perp::mlcp_detail {
namespace {

using detail::kEnumerationSign;

// The magnitudes of the data, in the form `detail::sign_feasible` takes: max |(a, b)| and the
// largest entry of the four blocks.
detail::DataScale data_scale(const Mlcp& problem) {
  detail::DataScale scale;
  const auto largest = [](const auto& x) { return x.size() == 0 ? 0.0 : x.cwiseAbs().maxCoeff(); };
  scale.q_max = std::max(largest(problem.a), largest(problem.b));
  scale.m_max = std::max({largest(problem.A), largest(problem.B), largest(problem.C), largest(problem.D)});
  return scale;
}

// ---------------------------------------------------------------------------------------------
// enum: for an active set α of the complementarity rows (v_α basic with w_α = 0, v_ᾱ = 0), the
// square system
//   [ A      C_·α ] [u  ]     [ a  ]
//   [ D_α·   B_αα ] [v_α] = − [ b_α ]
// gives the candidate, accepted when v_α >= 0 and w_ᾱ = (D u + B v + b)_ᾱ >= 0. A itself may be
// singular: only the bordered system must be nonsingular.

// Solves the bordered system of α; empty when it is singular and the particular solution of the
// LU does not satisfy it. `singular` is set when the matrix is singular.
std::optional<Eigen::VectorXd> active_set_point(const Mlcp& problem, const std::vector<Eigen::Index>& alpha,
                                                bool& singular) {
  const Eigen::Index n = problem.equalities();
  const Eigen::Index m = problem.complementarities();
  const auto k = static_cast<Eigen::Index>(alpha.size());
  Eigen::MatrixXd system(n + k, n + k);
  Eigen::VectorXd rhs(n + k);
  system.topLeftCorner(n, n) = problem.A;
  system.topRightCorner(n, k) = problem.C(Eigen::all, alpha);
  system.bottomLeftCorner(k, n) = problem.D(alpha, Eigen::all);
  system.bottomRightCorner(k, k) = problem.B(alpha, alpha);
  rhs.head(n) = -problem.a;
  rhs.tail(k) = -problem.b(alpha);
  Eigen::VectorXd z = Eigen::VectorXd::Zero(n + m);
  singular = false;
  if (n + k == 0) return z;
  const Eigen::FullPivLU<Eigen::MatrixXd> lu(system);
  const Eigen::VectorXd solution = lu.solve(rhs);
  if (!lu.isInvertible()) {
    singular = true;
    // A singular system may still be consistent; keep the particular solution only when it
    // really solves it, at the scale of the terms summed.
    const double size = rhs.cwiseAbs().maxCoeff() + system.cwiseAbs().maxCoeff() * solution.cwiseAbs().sum();
    if (!solution.allFinite() || (system * solution - rhs).cwiseAbs().maxCoeff() > kEnumerationSign * size) {
      return std::nullopt;
    }
  }
  if (!solution.allFinite()) return std::nullopt;
  // Iterative refinement (Wilkinson): when A is ill-conditioned (the Buck* files: about 1e12) the
  // LU's solution misses the equations by more than the tolerance; two steps of x += S⁻¹(r − S x)
  // recover most of it. Kept only while the system residual decreases.
  Eigen::VectorXd refined = solution;
  double misfit = (rhs - system * refined).cwiseAbs().maxCoeff();
  for (int step = 0; step < 2 && misfit > 0.0; ++step) {
    const Eigen::VectorXd candidate = refined + lu.solve(Eigen::VectorXd(rhs - system * refined));
    const double candidate_misfit = (rhs - system * candidate).cwiseAbs().maxCoeff();
    if (!(candidate_misfit < misfit)) break;
    refined = candidate;
    misfit = candidate_misfit;
  }
  z.head(n) = refined.head(n);
  for (Eigen::Index i = 0; i < k; ++i) z[n + alpha[static_cast<std::size_t>(i)]] = refined[n + i];
  return z;
}

// The starting active set: the rows whose w is negative at the point of α = ∅ (v = 0 and A u = −a,
// u of least norm when A is singular). The search then visits the sets in order of their Hamming
// distance from it, so that when the guess is close the solution is found among the first sets.
std::vector<bool> starting_pattern(const Mlcp& problem) {
  const Eigen::Index n = problem.equalities();
  const Eigen::Index m = problem.complementarities();
  std::vector<bool> pattern(static_cast<std::size_t>(m), false);
  Eigen::VectorXd z = Eigen::VectorXd::Zero(n + m);
  if (n > 0) z.head(n) = problem.A.completeOrthogonalDecomposition().solve(Eigen::VectorXd(-problem.a));
  if (!z.allFinite()) return pattern;
  const Eigen::VectorXd w = problem.slack(z);
  for (Eigen::Index j = 0; j < m; ++j) pattern[static_cast<std::size_t>(j)] = w[n + j] < 0.0;
  return pattern;
}

}  // namespace

Result solve_enum(const Mlcp& problem, const SolveOptions& options) {
  const Eigen::Index n = problem.equalities();
  const Eigen::Index m = problem.complementarities();
  const std::vector<bool> start = starting_pattern(problem);
  const detail::DataScale scale = data_scale(problem);
  const long long total = 1LL << m;
  // The LCP enumeration's budget (a run of about a second) unless max_iterations asks for more.
  const long long limit =
      options.max_iterations > 0 ? options.max_iterations : std::min<long long>(total, kEnumerationBudget);

  Eigen::VectorXd best_z = Eigen::VectorXd::Zero(n + m);
  double best_residual = natural_residual(problem, best_z);
  long long examined = 0;
  long long singular_count = 0;
  long long overflowed = 0;
  long long inaccurate = 0;  // sign-feasible points that missed the tolerance
  Eigen::VectorXd inaccurate_z;
  double inaccurate_residual = 0;
  std::vector<Eigen::Index> alpha;
  alpha.reserve(static_cast<std::size_t>(m));
  // flips: the d rows (increasing) whose membership differs from `start`; d = 0, 1, …, m.
  std::vector<Eigen::Index> flips;
  for (Eigen::Index d = 0; d <= m; ++d) {
    flips.resize(static_cast<std::size_t>(d));
    for (Eigen::Index i = 0; i < d; ++i) flips[static_cast<std::size_t>(i)] = i;
    while (true) {
      if (examined >= limit) {
        Result result = make_result(problem, best_z, Method::Enum);
        result.iterations = static_cast<int>(std::min<long long>(examined, std::numeric_limits<int>::max()));
        result.status = Status::MaxIterations;
        result.message = "limit of " + std::to_string(limit) + " active sets reached (of " + std::to_string(total) +
                         "); returning the point with the smallest residual";
        return result;
      }
      ++examined;
      std::vector<bool> member = start;
      for (const Eigen::Index f : flips) member[static_cast<std::size_t>(f)] = !member[static_cast<std::size_t>(f)];
      alpha.clear();
      for (Eigen::Index j = 0; j < m; ++j) {
        if (member[static_cast<std::size_t>(j)]) alpha.push_back(j);
      }
      bool singular = false;
      const std::optional<Eigen::VectorXd> z = active_set_point(problem, alpha, singular);
      if (singular) ++singular_count;
      if (!z && !singular) ++overflowed;  // a nonsingular system whose solution is not finite
      if (z) {
        const Eigen::VectorXd w = problem.slack(*z);
        const double residual = natural_residual(problem, *z);
        if (residual < best_residual) {
          best_residual = residual;
          best_z = *z;
        }
        // Signs at the problem's own scale (all of z: the u terms are summed into w too). A
        // point that passes them but misses the absolute tolerance (an ill-conditioned bordered
        // system: the Buck* files) is kept aside and the search goes on; another active set of a
        // degenerate solution may give an accurate point.
        if (m == 0 || (z->tail(m).minCoeff() >= -detail::z_sign_tolerance(*z, kEnumerationSign) &&
                       w.tail(m).minCoeff() >= -detail::w_sign_tolerance(scale, *z, kEnumerationSign))) {
          if (relative_residual(problem, *z, w) <= options.tolerance) {
            Result result = make_result(problem, *z, Method::Enum);
            result.iterations = static_cast<int>(examined);
            result.status = Status::Solved;
            result.message = "active set of size " + std::to_string(alpha.size()) + " after " +
                             std::to_string(examined) + " of " + std::to_string(total) +
                             " (searched outward from a guessed active set)" +
                             (inaccurate ? "; " + std::to_string(inaccurate) +
                                               " earlier sign-feasible sets gave points that missed the tolerance"
                                         : std::string());
            return result;
          }
          if (inaccurate == 0 || residual < inaccurate_residual) {
            inaccurate_z = *z;
            inaccurate_residual = residual;
          }
          ++inaccurate;
        }
      }
      // Next combination of d rows out of m, in lexicographic order.
      Eigen::Index i = d - 1;
      while (i >= 0 && flips[static_cast<std::size_t>(i)] == m - d + i) --i;
      if (i < 0) break;
      ++flips[static_cast<std::size_t>(i)];
      for (Eigen::Index k = i + 1; k < d; ++k)
        flips[static_cast<std::size_t>(k)] = flips[static_cast<std::size_t>(k - 1)] + 1;
    }
  }
  if (inaccurate > 0) {
    Result result = make_result(problem, inaccurate_z, Method::Enum);
    result.iterations = static_cast<int>(examined);
    detail::judge(result, options.tolerance, Status::NumericalFailure,
                  std::to_string(inaccurate) +
                      " active sets give v >= 0, w >= 0 up to round-off, but their bordered systems are too "
                      "ill-conditioned for the tolerance; the best");
    return result;
  }
  Result result = make_result(problem, best_z, Method::Enum);
  result.iterations = static_cast<int>(examined);
  if (overflowed > 0) {
    result.status = Status::NumericalFailure;
    result.message = "no active set gives a solution, but the points of " + std::to_string(overflowed) +
                     " bordered systems overflow the range of double, so this is not a proof of infeasibility";
  } else if (singular_count == 0) {
    result.status = Status::Infeasible;
    result.message = "no solution: none of the " + std::to_string(total) +
                     " active sets gives v >= 0, w >= 0, and every bordered system [[A, C_a], [D_a, B_aa]] is "
                     "nonsingular";
  } else {
    result.status = Status::NoSolutionFound;
    result.message = "no active set gives a solution, but " + std::to_string(singular_count) +
                     " bordered systems are singular, so this is not a proof of infeasibility";
  }
  return result;
}

}  // namespace perp::mlcp_detail
