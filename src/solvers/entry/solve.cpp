#include "perp/solvers/solve.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "auto/auto_lcp.hpp"
#include "pivoting/block_pivoting.hpp"
#include "detail.hpp"
#include "pipeline.hpp"
#include "perp/analysis/classify.hpp"
#include "perp/core/error.hpp"
#include "perp/core/residual.hpp"
#include "pivoting/dantzig.hpp"
#include "pivoting/enumeration.hpp"
#include "newton/interior_point.hpp"
#include "pivoting/lemke.hpp"
#include "pivoting/lemke_small.hpp"
#include "pivoting/murty.hpp"
#include "newton/newton.hpp"
#include "splitting/pgs.hpp"
#include "newton/path.hpp"
#include "perp/solvers/recommend.hpp"

namespace perp {
namespace {

Result solve_auto(const Lcp& problem, const SolveOptions& options);
Result run_method(const Lcp& problem, Method method, const SolveOptions& options);

// Data far from unit scale is solved as the equivalent LCP (2^a M, 2^b q), whose largest entries
// of M and of q are in [1, 2): with z = 2^(a−b) z' and w = 2^−b w', M z + q = w exactly when
// 2^a M z' + 2^b q = w', so the solution sets correspond, complementarity included, and the
// relative residual is the same. The methods' internal absolute quantities (pivot thresholds,
// interior-point and smoothing parameters, merit values) then mean what they mean at unit
// scale, and nothing under- or overflows on the way. Powers of two are applied exactly (ldexp),
// subnormal data included, and never so far down that a nonzero entry would leave the normal
// range. Applied when max|M|, max|q| or their ratio is outside [2^-64, 2^64].
constexpr int kUnitWindow = 64;

// The exponent that brings `largest` into [1, 2), limited so that `smallest` (the smallest
// nonzero magnitude) stays normal; 0 for an all-zero block.
int unit_exponent(double largest, double smallest) {
  if (!(largest > 0.0)) return 0;
  int exponent = -std::ilogb(largest);
  if (exponent < 0) exponent = std::max(exponent, std::min(0, -1022 - std::ilogb(smallest)));
  return exponent;
}

struct Extent {
  double largest = 0.0, smallest = 0.0;
};
template <class Range>
Extent extent(const Range& values) {
  Extent e;
  for (const double x : values) {
    const double a = std::abs(x);
    if (a == 0.0) continue;
    e.largest = std::max(e.largest, a);
    e.smallest = e.smallest == 0.0 ? a : std::min(e.smallest, a);
  }
  return e;
}

bool outside_window(double x) { return x > 0.0 && (std::ilogb(x) < -kUnitWindow || std::ilogb(x) > kUnitWindow); }

// Whether data with these largest magnitudes of M and q is solved at unit scale (above).
bool far_from_unit_scale(double m_largest, double q_largest) {
  return outside_window(m_largest) || outside_window(q_largest) ||
         (m_largest > 0.0 && q_largest > 0.0 && std::abs(std::ilogb(q_largest) - std::ilogb(m_largest)) > kUnitWindow);
}

// The method on the problem, or on its equivalent at unit scale (above).
Result run_scaled(const Lcp& problem, Method method, const SolveOptions& options) {
  // The largest magnitudes decide (detail::data_scale: one vectorized pass each over finite,
  // validated data); the smallest nonzero ones, a branch per entry, only where the data is to be
  // scaled.
  const detail::DataScale largest = detail::data_scale(problem);
  if (far_from_unit_scale(largest.m_max, largest.q_max)) {
    const Extent m = extent(problem.M.reshaped());
    const Extent q = extent(problem.q);
    const int a = unit_exponent(m.largest, m.smallest);
    const int b = unit_exponent(q.largest, q.smallest);
    Lcp unit{problem.M, problem.q};
    for (double& x : unit.M.reshaped()) x = std::ldexp(x, a);
    for (double& x : unit.q) x = std::ldexp(x, b);
    const auto to_original = [&](Eigen::VectorXd z) {  // z = 2^(a−b) z'
      for (double& x : z) x = std::ldexp(x, a - b);
      return z;
    };
    SolveOptions unit_options = options;
    if (options.initial_guess) {
      unit_options.initial_guess = *options.initial_guess;
      for (double& x : *unit_options.initial_guess) x = std::ldexp(x, b - a);
    }
    Result result = run_method(unit, method, unit_options);
    if (result.z.size() == problem.size()) result.z = to_original(std::move(result.z));  // finish recomputes w
    if (result.ray) result.ray = to_original(std::move(*result.ray));
    for (Eigen::VectorXd& solution : result.solutions) solution = to_original(std::move(solution));
    result.message += " [run on the equivalent LCP (2^" + std::to_string(a) + " M, 2^" + std::to_string(b) +
                      " q), z scaled back by 2^" + std::to_string(a - b) + "]";
    return result;
  }
  return run_method(problem, method, options);
}

Result run_method(const Lcp& problem, Method method, const SolveOptions& options) {
  switch (method) {
    case Method::Enum:
      return solve_enumeration(problem, options);
    case Method::Lemke:
      return solve_lemke(problem, options);
    case Method::Murty:
      return solve_murty(problem, options);
    case Method::BlockPivoting:
      return solve_block_pivoting(problem, options);
    case Method::Pgs:
      return solve_psor(problem, options, 1.0);
    case Method::Psor:
      return solve_psor(problem, options, options.relaxation.value_or(kDefaultRelaxation));
    case Method::NewtonFb:
    case Method::NewtonMin:
    case Method::PenalizedFb:
    case Method::Smoothing:
      return solve_newton(problem, *detail::reformulation_of(method), options);
    case Method::Path:
      return solve_path(problem, options);
    case Method::InteriorPoint:
      return solve_interior_point(problem, options);
    case Method::Auto:
      return detail::solve_auto_lcp(problem, options, solve_auto);
    case Method::Dantzig:  // on the box [0, +∞), in index order
      return solve_dantzig(problem, options, {}, detail::scan_matrix(problem.M));
    case Method::Schur:
    case Method::Nsgs:
    case Method::NewtonAc:
    case Method::Prox:
    case Method::Admm:
      break;
  }
  throw InvalidProblem("method '" + to_string(method) + "' does not accept an Lcp");
}

// What the LCP supplies to the pipeline (pipeline.hpp).
struct LcpSteps {
  static constexpr ProblemKind kind = ProblemKind::Lcp;
  static void check(const Lcp& problem, Method method, const SolveOptions&) {
    if (method == Method::Enum && problem.size() > kMaxEnumerationSize) {
      throw InvalidProblem("enum: enumeration checks 2^n active sets and is limited to n <= " +
                           std::to_string(kMaxEnumerationSize) + ", got n = " + std::to_string(problem.size()) +
                           "; use lemke, murty or pgs");
    }
  }
  // n = 0 or q >= 0: z = 0 (but enum lists every solution when asked to).
  static std::optional<Result> trivial(const Lcp& problem, const SolveOptions& options) {
    if (options.all_solutions) return std::nullopt;
    return detail::trivial_result(problem, Method::Auto);
  }
  static Result run(const Lcp& problem, Method method, const SolveOptions& options) {
    return run_scaled(problem, method, options);
  }
  // z sized and finite, w = M z + q and both residuals from z (detail::recompute).
  static void finish(const Lcp& problem, const SolveOptions&, Result& result) { detail::recompute(problem, result); }
};

// The order comes from the cheap matrix report (O(n²) tests, Cholesky factorizations only where
// the order depends on them, exact enumerations only for n <= 6) and its recommendation.
Result solve_auto(const Lcp& problem, const SolveOptions& options) {
  const Eigen::Index n = problem.size();
  ClassifyOptions cheap = ClassifyOptions::cheap();
  cheap.symmetric_factorization_above = kRecommendPgsFirstSize;  // where the order depends on PD/PSD
  const Recommendation recommendation = recommend(classify(problem.M, cheap), n);
  SolveOptions attempt_options = options;
  attempt_options.relaxation.reset();  // pgs runs with ω = 1 inside auto
  return detail::first_that_solves(
      recommendation.order,
      [&](Method method) { return detail::attempt<LcpSteps>(problem, method, attempt_options); },
      recommendation.reason);
}

// The NCP/MCP: the Newton kernels compute w = F(z) from the returned z themselves; F is the
// user's function, so it is not called again here.
struct McpSteps {
  static constexpr ProblemKind kind = ProblemKind::Nonlinear;
  static void check(const Mcp&, Method, const SolveOptions&) {}
  static std::optional<Result> trivial(const Mcp&, const SolveOptions&) { return std::nullopt; }
  static Result run(const Mcp& problem, Method method, const SolveOptions& options) {
    if (method == Method::Path) return solve_path(problem, options);
    if (method == Method::Auto) {
      // Each attempt starts from the point of smallest relative residual found so far.
      SolveOptions attempt_options = options;
      double best = std::numeric_limits<double>::infinity();
      int tries = 0;
      return detail::first_that_solves(
          {Method::Path, Method::NewtonFb, Method::NewtonMin, Method::Smoothing},
          [&](Method attempt) {
            Result result;
            const bool first = tries++ == 0;
            try {
              result = detail::attempt<McpSteps>(problem, attempt, attempt_options);
            } catch (const InvalidProblem& error) {
              // The first method (path) checks the input; a refusal of a later one is the user's
              // F or J not finite (or of the wrong size) where an earlier attempt had it finite:
              // that attempt fails, and the best point so far stands.
              if (first || !attempt_options.initial_guess) throw;
              result.status = Status::NumericalFailure;
              result.z = *attempt_options.initial_guess;
              result.residual = result.relative_residual = std::numeric_limits<double>::infinity();
              result.message = error.what();
              return result;
            }
            if (result.z.size() == problem.size() && result.relative_residual < best) {
              best = result.relative_residual;
              attempt_options.initial_guess = result.z;
            }
            return result;
          },
          "F is nonlinear: path, then the Newton family (FB first), each from the best point so far");
    }
    return solve_newton(problem, *detail::reformulation_of(method), options);
  }
  static void finish(const Mcp&, const SolveOptions&, Result&) {}
};

// The lean route of small LCPs (issue 19: the fixed cost of a solve at n <= 10 near that of the
// kernel). lemke, and auto (whose first tries up to kSmallLcp are block principal pivoting on
// the stack, then Lemke: auto_lcp.cpp), on n <= kSmallLcp without a trace or all_solutions, on finite
// data near unit scale with some q_i < 0, run those kernels directly: one pass over M and one over
// q (finite, and run_scaled's window), the options validated as always, no classification, the
// systems and the tableau on the stack (lemke_small.cpp, lemke.cpp), w and the residuals recomputed
// from z once, and a fixed message. That is what the pipeline returns on such a problem
// (the same kernels on the same data, judged on the same recomputed residual), less its repeated
// passes and strings. Anything else, and a Lemke run that does not solve, takes the full pipeline
// from the start (false; `result` is then to be overwritten, `spent_ms` the time lost here).
using detail::kSmallLcp;

bool solve_small(const Lcp& problem, Method method, const SolveOptions& options, double& spent_ms, Result& result) {
  const Eigen::Index n = problem.size();
  if ((method != Method::Lemke && method != Method::Auto) || n == 0 || n > kSmallLcp || problem.M.rows() != n ||
      problem.M.cols() != n || options.trace || options.all_solutions) {
    return false;
  }
  // The clock only where asked (SolveOptions::measure_time): its two reads are about half of a
  // 2-unknown solve.
  const bool timed = options.measure_time;
  const auto start = timed ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
  // max|M| and max|q| with NaN propagated: finite exactly when every entry is (Lcp::validate's
  // test: where it fails, the pipeline throws its message).
  constexpr double kLargest = std::numeric_limits<double>::max();
  const double m = problem.M.cwiseAbs().maxCoeff<Eigen::PropagateNaN>();
  const double q = problem.q.cwiseAbs().maxCoeff<Eigen::PropagateNaN>();
  if (!(m <= kLargest) || !(q <= kLargest) || !(problem.q.minCoeff() < 0.0)) {
    return false;  // invalid or trivial (q >= 0): the pipeline's cases
  }
  // Both maxima in [2^-32, 2^32] are inside run_scaled's window with room to spare (a test without
  // its ilogb calls); elsewhere the window itself decides, and data to be scaled takes the pipeline.
  constexpr double kNear = 4294967296.0;  // 2^32
  const bool near = m >= 1.0 / kNear && m <= kNear && q >= 1.0 / kNear && q <= kNear;
  if (!near && far_from_unit_scale(m, q)) return false;
  options.validate(n);
  const auto elapsed = [&] {
    return timed ? std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() : 0.0;
  };
  const bool direct = method == Method::Auto;
  // auto's first tries (auto_lcp.cpp): one pgs sweep on a triangular M, at n <= 2 the complementary
  // bases one by one, block principal pivoting on the stack, Lemke's path on a stack tableau, each
  // into `result` itself (a failed try leaves it to be overwritten).
  if (direct && detail::auto_direct_tries(problem, options, result)) {
    result.time_ms = elapsed();
    return true;
  }
  const char* const solved_message = method != Method::Auto ? kLemkeSolved
                                     : direct               ? detail::kAutoDirectThenLemkeSolved
                                                            : detail::kAutoLemkeSolved;
  result = solve_lemke(problem, options, solved_message);
  const double ms = elapsed();
  if (!result.solved()) {
    spent_ms = ms;
    return false;
  }
  result.time_ms = ms;
  return true;
}

}  // namespace

Result solve(const Lcp& problem, Method method, const SolveOptions& options) {
  Result result;  // filled in place by the lean route (one object, returned without a move)
  solve(problem, method, options, result);
  return result;
}

void solve(const Lcp& problem, Method method, const SolveOptions& options, Result& result) {
  // What the lean route's kernels do not write: cleared, their storage kept.
  result.solutions.clear();
  result.ray.reset();
  double spent_ms = 0;
  if (solve_small(problem, method, options, spent_ms, result)) return;
  result = detail::solve_through<LcpSteps>(problem, method, options);
  result.time_ms += spent_ms;
}

Result solve(const Ncp& problem, Method method, const SolveOptions& options) {
  return solve(to_mcp(problem), method, options);
}

Result solve(const Mcp& problem, Method method, const SolveOptions& options) {
  return detail::solve_through<McpSteps>(problem, method, options);
}

}  // namespace perp
