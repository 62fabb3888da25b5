// The dense route of path: the piecewise-linear path of one linearization, by complementary
// pivoting with a lexicographic tie-break (declared in path_detail.hpp).

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <vector>

#include "entry/detail.hpp"
#include "path_detail.hpp"

namespace perp::path_detail {
namespace {

using detail::kInfinity;
// The basis is refactored (LU) and its values recomputed every kRefactorEvery pivots.
constexpr int kRefactorEvery = 50;
// A basis whose LU has reciprocal condition below this counts as singular.
constexpr double kSingularRcond = 1e-13;

}  // namespace

LinearPath PathFollower::follow(const Eigen::MatrixXd& M, const Eigen::VectorXd& lower, const Eigen::VectorXd& upper,
                                const Eigen::VectorXd& x0, const Eigen::VectorXd& r, int max_pivots) {
  const Eigen::Index n = x0.size();
  M_ = &M;
  r_ = &r;
  LinearPath path;
  path.points.push_back({0.0, x0});
  state_.assign(static_cast<std::size_t>(n), State::Interior);
  z_.resize(n);
  s_.resize(n);
  basic_.resize(static_cast<std::size_t>(n));
  t_ = 0.0;
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    const double l = lower[i], u = upper[i];
    if (l == u) {
      state_[k] = State::Fixed;
    } else if (x0[i] <= l) {
      state_[k] = State::AtLower;
    } else if (x0[i] >= u) {
      state_[k] = State::AtUpper;
    }
    z_[i] = std::clamp(x0[i], l, u);
    s_[i] = x0[i] - z_[i];
    basic_[k] = state_[k] == State::Interior ? z_var(i) : s_var(i, n);
  }
  if (!refactor()) {
    path.failure = "the linearization is singular on the start's active set";
    return path;
  }
  Eigen::Index entering = t_var(n);
  double sign = 1.0;
  for (;;) {
    if (path.pivots >= max_pivots) {
      path.failure = "the pivot limit of the linearized problem was reached";
      return path;
    }
    if (const std::optional<Status> stop = detail::stop_requested()) {  // the major iteration ends next
      path.failure = *stop == Status::Interrupted ? "interrupted" : "the time limit was reached";
      return path;
    }
    column(entering, n, column_);
    direction_.noalias() = inverse_ * column_;
    // Entering moves by sign·θ, basic variable p by −sign·θ·direction_p.
    double best = kInfinity;
    Eigen::Index leave = -1;  // basis position; −1 with best finite: the entering variable's own bound
    double best_rate = 0;
    const double threshold = 1e-11 * (1.0 + direction_.cwiseAbs().maxCoeff());
    if (entering == t_var(n)) best = 1.0 - t_;
    if (entering < n) {
      const Eigen::Index i = entering;
      if (std::isfinite(lower[i]) && std::isfinite(upper[i])) best = upper[i] - lower[i];
    }
    for (Eigen::Index p = 0; p < n; ++p) {
      const double rate = -sign * direction_[p];
      if (std::abs(rate) <= threshold) continue;
      const double theta = room(basic_[static_cast<std::size_t>(p)], rate, n, lower, upper);
      if (!std::isfinite(theta)) continue;
      // Smallest step first; among ties (degenerate vertices) the lexicographic rule: with the
      // right-hand side perturbed by (ε, ε², …), the step of position p is θ_p − B⁻¹(p,:)·ε / rate_p,
      // so the smallest row −B⁻¹(p,:)/rate_p wins (Cottle–Pang–Stone §4.4); it cannot cycle.
      const double tie = 1e-13 * (1.0 + (std::isfinite(best) ? best : theta));
      if (!std::isfinite(best) || theta < best - tie ||
          (theta <= best + tie && leave >= 0 && lexicographically_smaller(p, rate, leave, best_rate))) {
        best = theta;
        leave = p;
        best_rate = rate;
      }
    }
    if (!std::isfinite(best)) {
      path.failure = "the path of the linearized problem leaves along a ray";
      return path;
    }
    best = std::max(best, 0.0);
    for (Eigen::Index p = 0; p < n; ++p) add(basic_[static_cast<std::size_t>(p)], -sign * best * direction_[p], n);
    add(entering, sign * best, n);
    ++path.pivots;
    if (leave < 0) {  // the entering variable reached its own bound
      if (entering == t_var(n)) {
        t_ = 1.0;
        path.points.push_back({1.0, current_x()});
        path.complete = true;
        return path;
      }
      // z_i crossed its whole interval: it stays nonbasic at the other bound; s_i enters.
      const Eigen::Index i = entering;
      const bool to_upper = sign > 0;
      z_[i] = to_upper ? upper[i] : lower[i];
      state_[static_cast<std::size_t>(i)] = to_upper ? State::AtUpper : State::AtLower;
      path.points.push_back({t_, current_x()});
      entering = s_var(i, n);
      sign = to_upper ? 1.0 : -1.0;
      continue;
    }
    const Eigen::Index leaving = basic_[static_cast<std::size_t>(leave)];
    snap(leaving, best_rate, n, lower, upper);
    path.points.push_back({t_, current_x()});
    if (leaving == t_var(n)) {  // t reached 1: the Newton point
      t_ = 1.0;
      path.points.back() = {1.0, current_x()};
      path.complete = true;
      return path;
    }
    // Basis change at position `leave`: product-form update of the explicit inverse.
    const double pivot = direction_[leave];
    inverse_.row(leave) /= pivot;
    for (Eigen::Index p = 0; p < n; ++p) {
      if (p != leave && direction_[p] != 0.0) inverse_.row(p) -= direction_[p] * inverse_.row(leave);
    }
    basic_[static_cast<std::size_t>(leave)] = entering;
    if (entering < n) state_[static_cast<std::size_t>(entering)] = State::Interior;
    // The complement of the leaving variable enters.
    if (leaving < n) {  // z_i left at a bound: s_i enters, away from 0 on that side
      const Eigen::Index i = leaving;
      const bool at_upper = z_[i] >= upper[i];
      state_[static_cast<std::size_t>(i)] = at_upper ? State::AtUpper : State::AtLower;
      entering = s_var(i, n);
      sign = at_upper ? 1.0 : -1.0;
    } else {  // s_i reached 0: z_i enters, into the interval
      const Eigen::Index i = leaving - n;
      const bool from_upper = state_[static_cast<std::size_t>(i)] == State::AtUpper;
      entering = z_var(i);
      sign = from_upper ? -1.0 : 1.0;
    }
    if (path.pivots % kRefactorEvery == 0 && !refactor()) {
      path.failure = "the basis became singular";
      return path;
    }
  }
}

// −B⁻¹(p,:)/rate_p < −B⁻¹(q,:)/rate_q, entry by entry (ties within round-off).
bool PathFollower::lexicographically_smaller(Eigen::Index p, double rate_p, Eigen::Index q, double rate_q) const {
  for (Eigen::Index k = 0; k < inverse_.cols(); ++k) {
    const double a = -inverse_(p, k) / rate_p, b = -inverse_(q, k) / rate_q;
    const double tie = 1e-12 * std::max({1.0, std::abs(a), std::abs(b)});
    if (a < b - tie) return true;
    if (a > b + tie) return false;
  }
  return std::abs(rate_p) > std::abs(rate_q);
}

void PathFollower::column(Eigen::Index var, Eigen::Index n, Eigen::VectorXd& out) const {
  if (var < n) {
    out = M_->col(var);
  } else if (var < 2 * n) {
    out.setZero(n);
    out[var - n] = 1.0;
  } else {
    out = *r_;
  }
}

// How far basic variable `var` may move at `rate` per unit step before it meets its bound.
double PathFollower::room(Eigen::Index var, double rate, Eigen::Index n, const Eigen::VectorXd& lower,
                          const Eigen::VectorXd& upper) const {
  if (var < n) {
    if (rate < 0) return std::isfinite(lower[var]) ? std::max(0.0, (z_[var] - lower[var]) / -rate) : kInfinity;
    return std::isfinite(upper[var]) ? std::max(0.0, (upper[var] - z_[var]) / rate) : kInfinity;
  }
  if (var < 2 * n) {
    const Eigen::Index i = var - n;
    switch (state_[static_cast<std::size_t>(i)]) {
      case State::AtLower:
        return rate > 0 ? std::max(0.0, -s_[i] / rate) : kInfinity;
      case State::AtUpper:
        return rate < 0 ? std::max(0.0, s_[i] / -rate) : kInfinity;
      default:
        return kInfinity;
    }
  }
  // t may fall below 0 (Lemke's covering variable 1 − t above 1); only t = 1 ends the path.
  return rate > 0 ? std::max(0.0, (1.0 - t_) / rate) : kInfinity;
}

void PathFollower::add(Eigen::Index var, double change, Eigen::Index n) {
  if (var < n) {
    z_[var] += change;
  } else if (var < 2 * n) {
    s_[var - n] += change;
  } else {
    t_ += change;
  }
}

// The leaving variable is set exactly to the bound it met.
void PathFollower::snap(Eigen::Index var, double rate, Eigen::Index n, const Eigen::VectorXd& lower,
                        const Eigen::VectorXd& upper) {
  if (var < n) {
    z_[var] = rate < 0 ? lower[var] : upper[var];
  } else if (var < 2 * n) {
    s_[var - n] = 0.0;
  } else {
    t_ = 1.0;
    (void)rate;
  }
}

// LU of the basis matrix and its explicit inverse, recomputed from the columns (the product-form
// updates between refactorizations accumulate round-off).
bool PathFollower::refactor() {
  const Eigen::Index n = z_.size();
  basis_.resize(n, n);
  for (Eigen::Index p = 0; p < n; ++p) {
    column(basic_[static_cast<std::size_t>(p)], n, column_);
    basis_.col(p) = column_;
  }
  const Eigen::PartialPivLU<Eigen::MatrixXd> lu(basis_);
  if (!(lu.rcond() > kSingularRcond)) return false;
  inverse_ = lu.inverse();
  return inverse_.allFinite();
}

}  // namespace perp::path_detail
