#include "dantzig.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "reductions/box_passes.hpp"
#include "dantzig_detail.hpp"
#include "entry/detail.hpp"
#include "perp/core/error.hpp"
#include "perp/core/lcp.hpp"
#include "perp/core/ncp.hpp"
#include "perp/core/residual.hpp"
#include "entry/pipeline.hpp"

namespace perp {

namespace {

// The default order: free components first (they are clamped for good), then the others with fixed
// bounds, then the coupled ones (whose bounds are read from their normals when they are driven),
// each group in index order.
std::vector<Eigen::Index> dantzig_default_order(const BoxLcp& problem) {
  using detail::kInfinity;
  const Eigen::Index n = problem.size();
  std::vector<char> is_coupled(static_cast<std::size_t>(n), 0);
  for (const FrictionCoupling& c : problem.friction) is_coupled[static_cast<std::size_t>(c.index)] = 1;
  std::vector<Eigen::Index> order;
  order.reserve(static_cast<std::size_t>(n));
  for (int group = 0; group < 3; ++group) {
    for (Eigen::Index i = 0; i < n; ++i) {
      const bool free = problem.lower[i] == -kInfinity && problem.upper[i] == kInfinity;
      const int in = is_coupled[static_cast<std::size_t>(i)] ? 2 : (free ? 0 : 1);
      if (in == group) order.push_back(i);
    }
  }
  return order;
}

// Whether `order` is a permutation of 0..n−1.
bool dantzig_is_permutation(const std::vector<Eigen::Index>& order, Eigen::Index n) {
  if (static_cast<Eigen::Index>(order.size()) != n) return false;
  std::vector<char> seen(static_cast<std::size_t>(n), 0);
  for (const Eigen::Index i : order) {
    if (i < 0 || i >= n || seen[static_cast<std::size_t>(i)] != 0) return false;
    seen[static_cast<std::size_t>(i)] = 1;
  }
  return true;
}

// One solve on fixed bounds (detail::FixedBoxSolve: a friction pass, or the whole solve of an LCP):
// the pivoting from z, then up to two more refinement steps where the point misses the tolerance.
// The pass's w = M z + q is the one the last refinement left (its product less the refinement
// step's columns): the residual checks read it instead of forming M z again (a few such products
// per pass were a tenth of a small solve). `bounds_at(z, lo, hi)` reads the bounds at z for the
// history's residual (the coupled ones re-read at the new z).
template <class BoundsAt>
detail::FixedBoxOutcome fixed_pass(dantzig_detail::Pivoting& pivoting, const SolveOptions& options,
                                   const std::vector<Eigen::Index>& order,
                                   const std::vector<FrictionCoupling>& friction, int number, Eigen::VectorXd& lo,
                                   Eigen::VectorXd& hi, Eigen::VectorXd& z, Eigen::VectorXd& w, Result& total,
                                   const BoundsAt& bounds_at) {
  pivoting.set_trace(&options.trace, total.iterations);
  const dantzig_detail::PassOutcome out = pivoting.run(lo, hi, z, order, friction, number > 1);
  total.iterations += out.pivots;
  if (out.status != Status::Solved) return {out.status, out.message};
  std::string message = std::to_string(total.iterations) + " pivots, " + std::to_string(pivoting.clamped_count()) +
                        " of " + std::to_string(z.size()) + " components clamped";
  w = pivoting.slack();
  double fixed_box = natural_residual(z, w, lo, hi);
  for (int step = 0; step < 2 && fixed_box > options.tolerance; ++step) {  // an ill-conditioned M_CC
    pivoting.refine_again(z);
    w = pivoting.slack();
    fixed_box = natural_residual(z, w, lo, hi);
  }
  if (options.record_history) {  // the residual with the bounds re-read at the new z
    Eigen::VectorXd coupled_lo, coupled_hi;
    bounds_at(z, coupled_lo, coupled_hi);
    record_history(total.history, natural_residual(z, w, coupled_lo, coupled_hi));
  }
  if (fixed_box > options.tolerance) {
    return {Status::NumericalFailure,
            "the pivoting ended (" + message + ") at a point with residual " + number_text(fixed_box) +
                " > tolerance " + number_text(options.tolerance) +
                " and |z|_inf = " + number_text(z.cwiseAbs().maxCoeff()) +
                ": round-off on an ill-conditioned M_CC, or a friction loop whose impulses grow without bound"};
  }
  return {Status::Solved, std::move(message)};
}

// The result of the pivoting's point z: non-finite entries set to 0, w = M z + q and both
// residuals formed afresh from z (the box form's natural residual on its bounds at z, the LCP's
// |min(z, w)|), the status and message of the passes, then the pipeline's judgement, here too:
// auto_lcp.cpp's pivoting finish calls these kernels directly and reads their status (under solve
// it runs again on the same point and changes nothing).
template <class Problem>
void conclude_dantzig(const Problem& problem, Eigen::VectorXd z, Status status, std::string message, double tolerance,
                      Result& result) {
  for (Eigen::Index i = 0; i < z.size(); ++i) {
    if (!std::isfinite(z[i])) z[i] = 0.0;
  }
  result.w = problem.slack(z);
  result.z = std::move(z);
  if constexpr (std::is_same_v<Problem, BoxLcp>) {
    Eigen::VectorXd lo, hi;
    problem.bounds_at(result.z, lo, hi);
    result.residual = natural_residual(result.z, result.w, lo, hi);
  } else {
    result.residual = natural_residual(result.z, result.w);
  }
  result.relative_residual = relative_residual(problem, result.z, result.w);
  result.status = status;
  result.message = std::move(message);
  detail::settle(result, tolerance);
}

Result dantzig_in_order(const BoxLcp& problem, const SolveOptions& options, const std::vector<Eigen::Index>& order) {
  using dantzig_detail::Pivoting;
  const Eigen::Index n = problem.size();
  Result result;
  result.method = Method::Dantzig;
  const int limit = options.iteration_limit(default_pivots(n));
  // The Cholesky path when M is symmetric to round-off (products such as A Aᵀ are no more).
  const detail::MatrixScan entries = detail::scan_matrix(problem.M);
  Pivoting pivoting(problem.M, problem.q, entries.symmetric, entries.largest, options.dantzig.pivot_tolerance, limit);

  // The coupled bounds start from z = 0 (the tangential components are at 0 until the first pass
  // reads their bounds from the normals it solved), then follow the last solution (box_passes.hpp).
  const auto bounds_at = [&problem](const Eigen::VectorXd& z, Eigen::VectorXd& lo, Eigen::VectorXd& hi) {
    problem.bounds_at(z, lo, hi);
  };
  const auto pass = [&](int number, Eigen::VectorXd& lo, Eigen::VectorXd& hi, Eigen::VectorXd& z, Eigen::VectorXd& w,
                        Result& total) {
    return fixed_pass(pivoting, options, order, problem.friction, number, lo, hi, z, w, total, bounds_at);
  };
  Result passes = detail::friction_passes(problem, Eigen::VectorXd::Zero(n), options, pass);
  result.iterations = passes.iterations;
  result.history = std::move(passes.history);
  conclude_dantzig(problem, std::move(passes.z), passes.status, std::move(passes.message), options.tolerance, result);
  return result;
}

Result dantzig_empty() {
  Result result;
  result.method = Method::Dantzig;
  result.status = Status::Solved;
  result.message = "empty problem (n = 0)";
  return result;
}

}  // namespace

Result solve_dantzig(const BoxLcp& problem, const SolveOptions& options) {
  if (problem.size() == 0) return dantzig_empty();
  return dantzig_in_order(problem, options, dantzig_default_order(problem));
}

Result solve_dantzig(const BoxLcp& problem, const SolveOptions& options, const std::vector<Eigen::Index>& order) {
  if (problem.size() == 0) return dantzig_empty();
  const bool plain = problem.friction.empty() && (problem.lower.array() > -detail::kInfinity).all();
  if (!plain || !dantzig_is_permutation(order, problem.size())) {
    return dantzig_in_order(problem, options, dantzig_default_order(problem));
  }
  return dantzig_in_order(problem, options, order);
}

Result solve_dantzig(const Lcp& problem, const SolveOptions& options, const std::vector<Eigen::Index>& order,
                     const detail::MatrixScan& scan) {
  using dantzig_detail::Pivoting;
  const Eigen::Index n = problem.size();
  if (n == 0) return dantzig_empty();
  if (!dantzig_is_permutation(order, n)) {
    std::vector<Eigen::Index> identity(static_cast<std::size_t>(n));
    for (std::size_t k = 0; k < identity.size(); ++k) identity[k] = static_cast<Eigen::Index>(k);
    return solve_dantzig(problem, options, identity, scan);
  }
  Result result;
  result.method = Method::Dantzig;
  Pivoting pivoting(problem.M, problem.q, scan.symmetric, scan.largest, options.dantzig.pivot_tolerance,
                    options.iteration_limit(default_pivots(n)));
  // The box [0, +∞): one pass on bounds that nothing couples (the box form's friction_passes).
  Eigen::VectorXd lo = Eigen::VectorXd::Zero(n);
  Eigen::VectorXd hi = Eigen::VectorXd::Constant(n, detail::kInfinity);
  Eigen::VectorXd z = Eigen::VectorXd::Zero(n);
  Eigen::VectorXd w;
  const auto bounds_at = [&lo, &hi](const Eigen::VectorXd&, Eigen::VectorXd& at_lo, Eigen::VectorXd& at_hi) {
    at_lo = lo;
    at_hi = hi;
  };
  detail::FixedBoxOutcome out = fixed_pass(pivoting, options, order, {}, 1, lo, hi, z, w, result, bounds_at);
  conclude_dantzig(problem, std::move(z), out.status, std::move(out.message), options.tolerance, result);
  return result;
}

}  // namespace perp
