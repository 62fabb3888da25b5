// Block principal pivoting on an Lcp of any size (block_pivoting.hpp). Auto's first try at n <= 16
// runs the same rule on the stack (lemke_small.cpp).

#include "block_pivoting.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "entry/detail.hpp"
#include "perp/core/residual.hpp"

namespace perp {
namespace {

// A principal block counts as singular when Eigen's estimate of its reciprocal condition number
// (1-norm) is below this: at about 5ε a solve of it has no correct digit, and the signs the rule
// reads from z_F would be noise.
constexpr double kBlockSingularRcond = 1e-15;
// The solution of a block must satisfy it to this fraction of the terms' size, ‖M_FF‖∞‖x‖∞ + ‖q_F‖∞
// (a backward-stable solve leaves about k ε): the test that catches LDLᵀ without pivoting on a
// symmetric indefinite block, and LDLᵀ on a singular block whose zero pivots it counts as zero
// where −q_F is outside the block's range (inside it, that solution solves the system and stays);
// both then go to LU.
constexpr double kBlockSystemResidual = 1e-10;
// Round-off allowance of the sign tests, relative to the scale of z and of w's terms (murty.cpp's).
constexpr double kBlockSign = 1e-12;

// "1 index", "3 indices" (and rounds) for the messages.
std::string counted(std::size_t count, const char* one, const char* many) {
  return std::to_string(count) + " " + (count == 1 ? one : many);
}

// M_FF x = −q_F for the sets a run visits, the factorizations' storage kept across rounds.
class BlockSystem {
 public:
  explicit BlockSystem(bool symmetric) : symmetric_(symmetric) {}

  // False when the block counts as singular (above); `rcond()` then holds the estimate.
  bool solve(const Lcp& problem, const std::vector<Eigen::Index>& set, Eigen::VectorXd& x) {
    rcond_ = 1.0;
    if (set.empty()) {
      x.resize(0);
      return true;
    }
    block_ = problem.M(set, set);
    rhs_ = -problem.q(set);
    if (symmetric_) {  // Cholesky where the block is positive definite (the case of a P-matrix), else LDLᵀ
      llt_.compute(block_);
      if (llt_.info() == Eigen::Success && accept(diagonal_rcond(), llt_.solve(rhs_), x)) return true;
      ldlt_.compute(block_);
      if (ldlt_.info() == Eigen::Success && accept(ldlt_.rcond(), ldlt_.solve(rhs_), x)) return true;
    }
    lu_.compute(block_);
    return accept(lu_.rcond(), lu_.solve(rhs_), x);
  }

  [[nodiscard]] double rcond() const { return rcond_; }

 private:
  // For a Cholesky factor L, (min L_ii / max L_ii)²: the pivots L_ii² of a positive definite
  // block lie between its extreme eigenvalues, so this is at least 1/cond₂(M_FF) (an optimistic
  // estimate). It costs O(k), where Eigen's estimate runs several triangular solves (a quarter of
  // the method's time at n = 100 on bench/'s spd family, perf), and it sees a vanishing pivot,
  // what makes such a block singular to round-off; the residual test covers the rest.
  [[nodiscard]] double diagonal_rcond() const {
    const auto diagonal = llt_.matrixLLT().diagonal();
    const double ratio = diagonal.minCoeff() / diagonal.maxCoeff();
    return ratio * ratio;
  }

  bool accept(double rcond, Eigen::VectorXd solution, Eigen::VectorXd& x) {
    rcond_ = rcond;
    if (!(rcond >= kBlockSingularRcond) || !solution.allFinite()) return false;
    const double terms =
        block_.cwiseAbs().rowwise().sum().maxCoeff() * solution.cwiseAbs().maxCoeff() + rhs_.cwiseAbs().maxCoeff();
    if (!((block_ * solution - rhs_).cwiseAbs().maxCoeff() <= kBlockSystemResidual * terms)) return false;
    x = std::move(solution);
    return true;
  }

  bool symmetric_;
  Eigen::MatrixXd block_;
  Eigen::VectorXd rhs_;
  Eigen::LLT<Eigen::MatrixXd> llt_;
  Eigen::LDLT<Eigen::MatrixXd> ldlt_;
  Eigen::PartialPivLU<Eigen::MatrixXd> lu_;
  double rcond_ = 1.0;
};

}  // namespace

Result solve_block_pivoting(const Lcp& problem, const SolveOptions& options) {
  if (auto trivial = detail::trivial_result(problem, Method::BlockPivoting)) return *trivial;
  const Eigen::Index n = problem.size();
  const int limit = options.iteration_limit(default_block_rounds(n));
  const detail::DataScale scale = detail::data_scale(problem);
  BlockSystem system(detail::scan_matrix(problem.M).symmetric);

  // F as flags: the support of the initial guess, else the indices whose w would start negative.
  std::vector<char> in(static_cast<std::size_t>(n), 0);
  for (Eigen::Index i = 0; i < n; ++i) {
    in[static_cast<std::size_t>(i)] = options.initial_guess ? (*options.initial_guess)[i] > 0.0 : problem.q[i] < 0.0;
  }
  std::vector<Eigen::Index> set, wrong;
  Eigen::VectorXd x;
  Eigen::VectorXd z = Eigen::VectorXd::Zero(n);
  Eigen::VectorXd w = problem.q;
  std::vector<double> history;
  detail::BlockExchange rule(n);
  std::set<std::vector<char>> stretch;  // the sets left by single moves since the last block exchange
  int rounds = 0;
  int block_rounds = 0;    // rounds that moved more than one index
  Eigen::Index moved = 0;  // how many of `wrong` crossed to reach the current point
  std::string note;        // a singular start, for the message
  int undone = 0;          // block exchanges that met a singular block and were replaced by a single move
  int first_undone = 0;    // the round of the first of them

  // z and w of the current F; false (z and w left as they were) when M_FF counts as singular.
  const auto point = [&] {
    set.clear();
    for (Eigen::Index i = 0; i < n; ++i) {
      if (in[static_cast<std::size_t>(i)] != 0) set.push_back(i);
    }
    if (!system.solve(problem, set, x)) return false;
    z.setZero();
    z(set) = x;
    w.noalias() = problem.M * z;
    w += problem.q;
    return true;
  };
  const auto finish = [&](Status status, std::string message) {
    // z_F within round-off of the orthant (the sign tests' allowance), clipped onto it; w and the
    // residuals are recomputed from the returned z.
    Result result = detail::make_result(problem, z.cwiseMax(0.0), Method::BlockPivoting);
    result.iterations = rounds;
    result.history = std::move(history);
    result.status = status;
    result.message = std::move(message) + note;
    if (undone > 0) {  // one clause for all of them: on a singular M they come by the dozen
      result.message +=
          "; " + counted(static_cast<std::size_t>(undone), "block exchange", "block exchanges") +
          " met a singular block, each replaced by the single move of its least index (the first in round " +
          std::to_string(first_undone) + ")";
    }
    return result;
  };
  const auto flip = [&](Eigen::Index i) {
    char& member = in[static_cast<std::size_t>(i)];
    member = member != 0 ? 0 : 1;
  };

  if (!point()) {
    note = "; the starting block M_FF of " + counted(set.size(), "index", "indices") +
           " is singular (reciprocal condition estimate " + detail::format("%.2g", system.rcond()) +
           "), so the run started from F = {}";
    std::fill(in.begin(), in.end(), 0);
    (void)point();  // F = {}: z = 0, w = q
  }
  while (true) {
    if (options.record_history) record_history(history, natural_residual(z, w));
    if (options.trace) {  // round 0: the starting set as entered; then the indices that crossed
      TraceEvent event;
      event.method = detail::trace_name(Method::BlockPivoting);
      event.kind = TraceKind::PrincipalPivot;
      event.iteration = rounds;
      if (rounds == 0) {
        event.entered = set;
      } else {
        for (Eigen::Index m = 0; m < moved; ++m) {
          const Eigen::Index i = wrong[static_cast<std::size_t>(m)];
          (in[static_cast<std::size_t>(i)] != 0 ? event.entered : event.left).push_back(i);
        }
      }
      event.active_size = static_cast<Eigen::Index>(set.size());
      event.residual = natural_residual(z, w);
      options.trace(event);
    }
    // The indices on the wrong side, beyond round-off at the problem's own scale.
    const double z_floor = -detail::z_sign_tolerance(z, kBlockSign);
    const double w_floor = -detail::w_sign_tolerance(scale, z, kBlockSign);
    wrong.clear();
    for (Eigen::Index i = 0; i < n; ++i) {
      if (in[static_cast<std::size_t>(i)] != 0 ? z[i] < z_floor : w[i] < w_floor) wrong.push_back(i);
    }
    if (wrong.empty()) {
      Result result =
          finish(Status::Solved, "complementary set of " + counted(set.size(), "index", "indices") + " after " +
                                     counted(static_cast<std::size_t>(rounds), "round", "rounds") +
                                     " (block exchanges: " + std::to_string(block_rounds) + ")");
      if (!(result.relative_residual <= options.tolerance)) {
        detail::judge(result, options.tolerance, Status::NumericalFailure,
                      "complementary set found but its point misses the tolerance");
      }
      return result;
    }
    if (const std::optional<Status> stop = detail::stop_requested()) {
      return finish(*stop, detail::stop_message(*stop, rounds, "rounds"));
    }
    if (rounds >= limit) {
      return finish(Status::MaxIterations, "round limit " + std::to_string(limit) + " reached with " +
                                               counted(wrong.size(), "index", "indices") +
                                               " on the wrong side (z_i < 0 in F or w_i < 0 off F)");
    }
    moved = rule.moved(static_cast<Eigen::Index>(wrong.size()));
    if (rule.single()) {
      // Murty's least-index rule visits no set twice on a P-matrix; within one stretch of single
      // moves (the rule's state the same throughout) a repeated set is a cycle.
      if (!stretch.insert(in).second) {
        return finish(Status::NotApplicable,
                      "set F repeated after " + std::to_string(rounds) +
                          " rounds under the single-index rule, which does not cycle on a P-matrix: M is not a "
                          "P-matrix, block pivoting cannot finish");
      }
    } else {
      stretch.clear();
    }
    for (Eigen::Index m = 0; m < moved; ++m) flip(wrong[static_cast<std::size_t>(m)]);
    ++rounds;
    if (point()) {
      if (moved > 1) ++block_rounds;
      continue;
    }
    if (moved > 1) {  // the block exchange met a singular block: undo it, the least index alone
      if (undone++ == 0) first_undone = rounds;
      for (Eigen::Index m = 1; m < moved; ++m) flip(wrong[static_cast<std::size_t>(m)]);
      moved = 1;
      rule.single_from_now();
      stretch.clear();
      if (point()) continue;
    }
    return finish(Status::NotApplicable,
                  "principal block M_FF of " + counted(set.size(), "index", "indices") +
                      " singular (reciprocal condition estimate " + detail::format("%.2g", system.rcond()) +
                      ") after moving index " + std::to_string(wrong.front()) + " in round " + std::to_string(rounds) +
                      ": M is not a P-matrix (or not at working precision: every principal block of a "
                      "P-matrix is nonsingular), block pivoting cannot proceed");
  }
}

}  // namespace perp
