#pragma once
// Private parts of dantzig (not installed): one run of the principal pivoting on a box with fixed
// bounds (`Pivoting`, src/solvers/dantzig_pivoting.cpp), which solve_dantzig (src/solvers/dantzig.cpp)
// repeats for the friction passes. The Cholesky factor of its clamped block is clamped_cholesky.hpp.

#include <Eigen/Dense>
#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "clamped_cholesky.hpp"
#include "perp/core/box_lcp.hpp"
#include "perp/core/result.hpp"
#include "perp/core/status.hpp"
#include "perp/solvers/options.hpp"
#include "entry/scratch.hpp"

namespace perp::dantzig_detail {

using detail::CholeskyFactor;
using detail::ScratchMatrix;

enum class IndexState : unsigned char { Unprocessed, Clamped, AtLower, AtUpper, Fixed };

struct PassOutcome {
  Status status = Status::Solved;
  std::string message;
  int pivots = 0;
};

// One fixed-box solve: lower <= z <= upper, every bound fixed.
class Pivoting {
 public:
  Pivoting(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, bool symmetric, double largest, double pivot_tolerance,
           int limit);

  // Drives the indices into complementarity in `order`, from z (inside the bounds; the start value
  // of each index until it is driven). z is updated in place.
  // With `warm`, the sets of the previous run are kept where they still hold under the new bounds
  // (`warm_start`) and only the other indices are driven.
  // The coupled components (`friction`) that this run drives get their bounds ±μ|z_normal|, written
  // into lower and upper, from the normals' values when the first of them is reached: with the
  // coupled components last in `order`, every normal has been driven by then, so one run already
  // uses bounds that match the normals it solved (ODE's rule for its findex rows) instead of those
  // of the last run's end.
  PassOutcome run(Eigen::VectorXd& lower, Eigen::VectorXd& upper, Eigen::VectorXd& z,
                  const std::vector<Eigen::Index>& order, const std::vector<FrictionCoupling>& friction, bool warm);

  [[nodiscard]] std::size_t clamped_count() const { return clamped_.size(); }

  // Trace every pivot to `trace` (not owned; null or empty: no trace), numbered from `base` + 1.
  void set_trace(const TraceCallback* trace, int base) {
    trace_ = trace != nullptr && *trace ? trace : nullptr;
    trace_base_ = base;
  }

  // w = M z + q at the z of the last successful `run` or `refine_again`.
  [[nodiscard]] const Eigen::VectorXd& slack() const { return residual_; }

  // One more step of iterative refinement of z_C on the final sets (see `refine`).
  void refine_again(Eigen::VectorXd& z) { (void)refine(z); }

 private:
  enum class Event { None, DrivenJoins, DrivenAtBound, ClampedLeaves, BoundedJoins };

  IndexState& state(Eigen::Index i) { return states_[static_cast<std::size_t>(i)]; }

  void reset() {
    cholesky_.clear();
    clamped_.clear();
    bounded_.clear();
    lu_current_ = false;
    std::fill(states_.begin(), states_.end(), IndexState::Unprocessed);
  }

  // x = M_CC⁻¹ M_C,i (and y = L⁻¹ M_C,i on the Cholesky path); returns the pivot
  // M_ii − M_iC M_CC⁻¹ M_C,i, or NaN when M_CC is singular (LU path, M not P).
  double solve_clamped(Eigen::Index i, bool need_x);

  // solve_clamped(d, true) when y_ already holds L⁻¹ M_Cd (Cholesky path): only the backward solve.
  double solve_from_y(Eigen::Index d);

  // Adds i to the clamped set; `y` must hold L⁻¹ M_C,i for the current C (Cholesky path).
  void add_clamped(Eigen::Index i, double pivot, const Eigen::VectorXd& y);

  // `carry` as for CholeskyFactor::remove.
  void remove_clamped(std::size_t k, double* carry = nullptr);

  // i joins the processed indices at a bound: its row of M_NC is appended.
  void add_bounded(Eigen::Index i, IndexState at);

  // Removes the r-th bounded index (the last row takes its place).
  void remove_bounded(std::size_t r);

  // dw_ −= M_NC x_ on the first `rows` entries: plain loops over four columns per sweep of dw_
  // (the compiler vectorizes them) rather than Eigen's general gemv, whose setup dominates on
  // blocks this small.
  void subtract_coupling_product(Eigen::Index rows, Eigen::Index m);

  std::string not_p(Eigen::Index i, const char* role, double pivot) const;

  // Brings index d into complementarity (Baraff 1994, §5): steps until w_d = 0 with d clamped, or
  // z_d at the bound that matches the sign of w_d. False when the pass must end (out says why).
  bool drive(Eigen::Index d, Eigen::VectorXd& z, PassOutcome& out);

  // The event of one pivot, before the sets change: the index that joins or leaves C.
  void trace_pivot(Eigen::Index d, Event event, std::size_t who, double step, int pivots);

  // One step of iterative refinement of z_C on the final sets: z_C −= M_CC⁻¹ (M z + q)_C, which
  // removes the round-off the incremental updates accumulated.
  //
  // Leaves w = M z + q at the refined z in residual_ (`slack`): the product before the step, less
  // M_:C times the step, so that the caller's residual check needs no second n×n product.
  bool refine(Eigen::VectorXd& z);

  // Warm start of a friction pass: the clamped set, its factor and the bounded set of the last run
  // are reused as far as they stay complementary under the new bounds. Bounded indices move to
  // their new bound; z_C is re-solved (M_CC z_C = −q_C − M_CN z_N) and clamped indices that leave
  // their bounds are dropped from C (Givens downdates), rounds until none does; bounded indices
  // whose w now has the wrong sign are dropped. Dropped indices become unprocessed with z inside
  // their bounds, which is all the pivoting needs of them, and are driven again.
  void warm_start(Eigen::VectorXd& z);

  const Eigen::MatrixXd& M_;
  const Eigen::VectorXd& q_;
  Eigen::Index n_;
  bool symmetric_;
  int limit_;
  double pivot_floor_ = 0;
  double m_scale_ = 0;
  const Eigen::VectorXd* lo_ = nullptr;
  const Eigen::VectorXd* hi_ = nullptr;
  CholeskyFactor cholesky_;
  Eigen::PartialPivLU<Eigen::MatrixXd> lu_;
  bool lu_current_ = false;
  ScratchMatrix coupling_storage_;         // n × n, a thread's scratch block (scratch.hpp)
  Eigen::Map<Eigen::MatrixXd>& coupling_;  // M_NC: row r for bounded_[r], column k for clamped_[k]
  Eigen::VectorXd w_;         // w of the driving index (0 on C; stale elsewhere, bounded ones included)
  Eigen::VectorXd x_, y_, rhs_, dw_;
  Eigen::VectorXd y_driving_;  // the driving index's y while y_ serves a joining index
  // w and σ (+1 at a lower bound, −1 at an upper one) of bounded_[r] in entry r: the ratio test
  // and the update of w_N then run down contiguous arrays.
  Eigen::VectorXd bounded_w_, bounded_sign_;
  Eigen::VectorXd residual_;
  std::vector<Eigen::Index> clamped_;  // C, in the order of the factor's rows
  std::vector<Eigen::Index> bounded_;  // N: processed indices at a bound (not fixed), in coupling_'s row order
  std::vector<IndexState> states_;
  const TraceCallback* trace_ = nullptr;  // set_trace: the pivots are traced when not null
  int trace_base_ = 0;
  std::vector<char> is_coupled_;  // per index: 1 when `friction` bounds it
};

}  // namespace perp::dantzig_detail
