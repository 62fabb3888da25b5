// enum (docs/solvers.md): the one enumeration of active sets, for the LCP (no free rows, from
// α = ∅) and the MLCP (u free, from a guessed active set); enumeration.hpp says what it accepts.

#include "enumeration.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "entry/detail.hpp"
#include "reductions/mlcp_detail.hpp"
#include "perp/core/error.hpp"

namespace perp {

namespace detail {
namespace {

// Two solutions closer than this (relative to their size) are the same solution.
constexpr double kDistinct = 1e-7;

// The active sets of m rows by their Hamming distance d from `start`, d = 0, 1, …, m, and at one
// distance by the pattern of the flipped rows in increasing binary value (the next pattern of the
// same popcount by Gosper's rule). Generated on the fly: no 2^m table.
class ActiveSetOrder {
 public:
  ActiveSetOrder(Eigen::Index m, std::uint64_t start) : end_(std::uint64_t{1} << m), m_(m), start_(start) {}
  [[nodiscard]] bool done() const { return flips_ >= end_; }
  [[nodiscard]] std::uint64_t set() const { return start_ ^ flips_; }
  void advance() {
    if (flips_ != 0) {
      const std::uint64_t lowest = flips_ & (~flips_ + 1);
      const std::uint64_t ripple = flips_ + lowest;
      flips_ = ripple | (((flips_ ^ ripple) >> 2) / lowest);
      if (flips_ < end_) return;
    }
    ++distance_;  // every set at this distance done: the smallest pattern of the next
    flips_ = distance_ > m_ ? end_ : (std::uint64_t{1} << distance_) - 1;
  }

 private:
  std::uint64_t end_;
  Eigen::Index m_;
  std::uint64_t start_;
  std::uint64_t flips_ = 0;
  Eigen::Index distance_ = 0;
};

// The point of the basic rows S (the free rows and α): z_S solves M_SS z_S = −q_S, z = 0
// elsewhere. False when there is none: M_SS singular (`singular` set) and the LU's particular
// solution does not satisfy the system at the scale of the terms summed (a singular system may
// still be consistent: M = 0, q = 0), or M_SS nonsingular but z_S overflows. Then iterative
// refinement (Wilkinson): when M_SS is ill-conditioned (the MLCP Buck* files: about 1e12) the
// LU's solution misses the equations by more than the tolerance; two steps of x += S⁻¹(r − S x)
// recover most of it, each kept only while the system's residual decreases.
bool set_point(const ActiveSetSearch& search, const std::vector<Eigen::Index>& basic, Eigen::VectorXd& z,
               bool& singular) {
  z.setZero();
  singular = false;
  if (basic.empty()) return true;
  const Eigen::MatrixXd system = search.M(basic, basic);
  const Eigen::VectorXd rhs = -search.q(basic);
  const Eigen::FullPivLU<Eigen::MatrixXd> lu(system);
  Eigen::VectorXd x = lu.solve(rhs);
  if (!lu.isInvertible()) {
    singular = true;
    const double size = rhs.cwiseAbs().maxCoeff() + system.cwiseAbs().maxCoeff() * x.cwiseAbs().sum();
    if (!x.allFinite() || (system * x - rhs).cwiseAbs().maxCoeff() > kEnumerationSign * size) return false;
  }
  if (!x.allFinite()) return false;
  double misfit = (rhs - system * x).cwiseAbs().maxCoeff();
  for (int step = 0; step < 2 && misfit > 0.0; ++step) {
    const Eigen::VectorXd candidate = x + lu.solve(Eigen::VectorXd(rhs - system * x));
    const double candidate_misfit = (rhs - system * candidate).cwiseAbs().maxCoeff();
    if (!(candidate_misfit < misfit)) break;
    x = candidate;
    misfit = candidate_misfit;
  }
  z(basic) = x;
  return true;
}

// max |w_i| over the free rows and |min(z_j, w_j)| over the others: the natural residual of the
// LCP (free = 0) and of the MLCP.
double natural_residual_at(Eigen::Index free, const Eigen::VectorXd& z, const Eigen::VectorXd& w) {
  const Eigen::Index m = z.size() - free;
  const double equality = free > 0 ? w.head(free).cwiseAbs().maxCoeff() : 0.0;
  const double complementarity = m > 0 ? z.tail(m).cwiseMin(w.tail(m)).cwiseAbs().maxCoeff() : 0.0;
  return std::max(equality, complementarity);
}

// z_j >= 0 and w_j >= 0 on the complementarity rows up to round-off at the data's scale (all of z:
// the free rows' terms are summed into w too); `sign_feasible` when there are no free rows.
bool complementarity_signs(const DataScale& scale, Eigen::Index free, const Eigen::VectorXd& z,
                           const Eigen::VectorXd& w) {
  const Eigen::Index m = z.size() - free;
  if (m == 0) return true;
  return z.tail(m).minCoeff() >= -z_sign_tolerance(z, kEnumerationSign) &&
         w.tail(m).minCoeff() >= -w_sign_tolerance(scale, z, kEnumerationSign);
}

}  // namespace

Result enumerate_active_sets(const ActiveSetSearch& search, const SolveOptions& options,
                             const std::function<Result(Eigen::VectorXd)>& result_at) {
  const Eigen::Index size = search.q.size();
  const Eigen::Index free = search.free;
  const Eigen::Index m = size - free;
  if (m > 62) throw InvalidProblem("enum: at most 62 complementarity rows, got " + std::to_string(m));
  const std::uint64_t total = std::uint64_t{1} << m;
  const std::string total_text = std::to_string(total);
  // The budget: `max_iterations` active sets when set, else kEnumerationBudget (a run of a few
  // seconds); past it the solve ends MaxIterations with the best point seen.
  const auto limit = static_cast<std::uint64_t>(options.iteration_limit(kEnumerationBudget));
  const DataScale scale = data_scale(search.M, search.q);
  // The words of the messages: an LCP's principal submatrices, an MLCP's bordered systems.
  const bool bordered = free > 0;
  const std::string unknown = bordered ? "v" : "z";
  const std::string systems = bordered ? "bordered systems" : "principal submatrices";

  Eigen::VectorXd z(size);
  Eigen::VectorXd w(size);
  Eigen::VectorXd best_z = Eigen::VectorXd::Zero(size);
  double best_residual = natural_residual_at(free, best_z, search.q);
  std::vector<Eigen::VectorXd> solutions;
  int examined = 0;
  int singular_count = 0;
  int overflowed = 0;
  int inaccurate = 0;  // sign-feasible points whose relative residual missed the tolerance
  Eigen::VectorXd inaccurate_z;
  double inaccurate_residual = 0;
  std::vector<Eigen::Index> basic;
  basic.reserve(static_cast<std::size_t>(size));

  // With all_solutions, why the search ended before the last set once it has a solution to return.
  std::string stopped_early;
  for (ActiveSetOrder order(m, search.start); !order.done(); order.advance()) {
    const std::optional<Status> stop = stop_requested();
    if (stop && solutions.empty()) {
      Result result = result_at(best_z);
      result.iterations = examined;
      result.status = *stop;
      result.message = stop_message(*stop, examined, "active sets") + " (of " + total_text +
                       "); returning the point with the smallest residual";
      return result;
    }
    if (stop) {
      stopped_early = *stop == Status::Interrupted ? "interrupted"
                                                   : "after " + number_text(installed_time_limit()) + " s (time_limit)";
      break;
    }
    if (static_cast<std::uint64_t>(examined) >= limit && !solutions.empty()) {
      stopped_early = "after " + std::to_string(limit) + " active sets (max_iterations)";
      break;
    }
    if (static_cast<std::uint64_t>(examined) >= limit) {
      Result result = result_at(best_z);
      result.iterations = examined;
      result.status = Status::MaxIterations;
      result.message = "limit of " + std::to_string(limit) + " active sets reached (of " + total_text +
                       "; raise it with max_iterations, --max-iter); returning the point with the smallest residual";
      result.solutions = std::move(solutions);
      return result;
    }
    ++examined;
    basic.clear();
    for (Eigen::Index i = 0; i < free; ++i) basic.push_back(i);
    const std::uint64_t set = order.set();
    for (Eigen::Index j = 0; j < m; ++j) {
      if (set & (std::uint64_t{1} << j)) basic.push_back(free + j);
    }
    bool singular = false;
    const bool found = set_point(search, basic, z, singular);
    if (singular) ++singular_count;
    if (!found) {
      if (!singular) ++overflowed;  // a nonsingular system whose point is not finite: no verdict
      continue;
    }
    w.noalias() = search.M * z;
    w += search.q;
    const double residual = natural_residual_at(free, z, w);
    if (residual < best_residual) {
      best_residual = residual;
      best_z = z;
    }
    if (!complementarity_signs(scale, free, z, w)) continue;
    // Signs pass at the data's scale; the tolerance is the problem type's relative residual.
    Result candidate = result_at(z);
    if (candidate.relative_residual <= options.tolerance) {
      if (options.all_solutions) {
        const bool seen = std::any_of(solutions.begin(), solutions.end(), [&](const Eigen::VectorXd& s) {
          return (s - z).cwiseAbs().maxCoeff() <=
                 kDistinct * std::max(s.cwiseAbs().maxCoeff(), z.cwiseAbs().maxCoeff());
        });
        if (!seen) solutions.push_back(z);
        if (options.max_solutions > 0 && solutions.size() >= static_cast<std::size_t>(options.max_solutions)) {
          // (at the last set the listing is complete: nothing more may exist)
          if (static_cast<std::uint64_t>(examined) < total) {
            stopped_early = "at max_solutions = " + std::to_string(options.max_solutions);
          }
          break;
        }
        continue;
      }
      candidate.iterations = examined;
      candidate.status = Status::Solved;
      candidate.message = "active set of size " + std::to_string(basic.size() - static_cast<std::size_t>(free)) +
                          " after " + std::to_string(examined) + " of " + total_text +
                          (search.start != 0 ? " (searched outward from a guessed active set)" : "");
      if (inaccurate > 0) {
        candidate.message +=
            "; " + std::to_string(inaccurate) + " earlier sign-feasible sets gave points that missed the tolerance";
      }
      return candidate;
    }
    // An ill-conditioned system's point: kept aside, the search goes on (another active set of a
    // degenerate solution may give an accurate point).
    if (inaccurate == 0 || residual < inaccurate_residual) {
      inaccurate_z = z;
      inaccurate_residual = residual;
    }
    ++inaccurate;
  }

  if (!solutions.empty()) {
    Result result = result_at(solutions.front());
    result.iterations = examined;
    result.status = Status::Solved;
    const std::string found = std::to_string(solutions.size()) + " distinct solution" + (solutions.size() == 1 ? "" : "s");
    result.message = stopped_early.empty()
                         ? found + " among " + total_text + " active sets"
                         : "stopped " + stopped_early + " with " + found + ", " + std::to_string(examined) + " of " +
                               total_text + " active sets examined; more may exist";
    result.solutions = std::move(solutions);
    return result;
  }
  if (inaccurate > 0) {
    Result result = result_at(inaccurate_z);
    result.iterations = examined;
    judge(result, options.tolerance, Status::NumericalFailure,
          std::to_string(inaccurate) + " active sets give " + unknown + " >= 0, w >= 0 up to round-off, but their " +
              systems + " are too ill-conditioned for the tolerance; the best");
    return result;
  }
  Result result = result_at(best_z);
  result.iterations = examined;
  if (overflowed > 0) {
    result.status = Status::NumericalFailure;
    result.message = "no active set gives a solution, but the points of " + std::to_string(overflowed) +
                     " active sets overflow the range of double, so this is not a proof of infeasibility";
  } else if (singular_count == 0) {
    result.status = Status::Infeasible;
    result.message = "no solution: none of the " + total_text + " active sets gives " + unknown +
                     " >= 0, w >= 0, and " +
                     (bordered ? "every bordered system [[A, C_a], [D_a, B_aa]]" : "every M_aa") + " is nonsingular";
  } else {
    result.status = Status::NoSolutionFound;
    result.message = "no active set gives a solution, but " + std::to_string(singular_count) + " " + systems +
                     " are singular, so this is not a proof of infeasibility";
  }
  return result;
}

}  // namespace detail

namespace {

// The MLCP's first active set: the rows whose w is negative at the point of α = ∅ (v = 0 and
// A u = −a, u of least norm when A is singular).
std::uint64_t guessed_active_set(const Mlcp& problem) {
  const Eigen::Index n = problem.equalities();
  const Eigen::Index m = problem.complementarities();
  Eigen::VectorXd z = Eigen::VectorXd::Zero(n + m);
  if (n > 0) z.head(n) = problem.A.completeOrthogonalDecomposition().solve(Eigen::VectorXd(-problem.a));
  if (!z.allFinite()) return 0;
  const Eigen::VectorXd w = problem.slack(z);
  std::uint64_t set = 0;
  for (Eigen::Index j = 0; j < m; ++j) {
    if (w[n + j] < 0.0) set |= std::uint64_t{1} << j;
  }
  return set;
}

}  // namespace

Result solve_enumeration(const Lcp& problem, const SolveOptions& options) {
  return detail::enumerate_active_sets({problem.M, problem.q}, options, [&](Eigen::VectorXd z) {
    return detail::make_result(problem, std::move(z), Method::Enum);
  });
}

Result solve_enumeration(const Mlcp& problem, const SolveOptions& options) {
  const Eigen::MatrixXd M = problem.matrix();
  const Eigen::VectorXd q = problem.offset();
  return detail::enumerate_active_sets(
      {M, q, problem.equalities(), guessed_active_set(problem)}, options,
      [&](Eigen::VectorXd z) { return mlcp_detail::make_result(problem, std::move(z), Method::Enum); });
}

}  // namespace perp
