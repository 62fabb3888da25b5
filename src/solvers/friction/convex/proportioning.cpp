#include "proportioning.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "entry/stop.hpp"

namespace perp::detail {

namespace {

/// The steps between full recomputations of the gradient (the recursive update drifts).
constexpr int kRefreshEvery = 50;
/// Γ: a proportioning step where the chopped gradient outweighs Γ times the free one.
constexpr double kProportion = 1.0;
/// Power iterations for ‖N‖ (the expansion step's length ᾱ = kStepShare / ‖N‖).
constexpr int kPowerSteps = 12;
constexpr double kStepShare = 1.8;
/// The stall stop applies only while the error is above this many tolerances (near it, the last
/// factor of ten may come slowly and still come).
constexpr double kStallFar = 10.0;

}  // namespace

ProportioningOutcome proportioning(const ConeProgram& program, const Eigen::VectorXd& c, const Eigen::VectorXd& z0,
                                   int iterations, int every, double tolerance,
                                   const std::function<double(const Eigen::VectorXd&)>& error_of, int stall_steps) {
  const Eigen::Index m = program.A.rows();
  // λ = s ⊙ y with s_k = d_k^{-1/2}: the problem in y has a unit diagonal. Rows with d_k = 0 (on
  // fixed dofs only) keep λ_k as given: s_k = 0 holds them out of every product.
  Eigen::VectorXd s(m);
  for (Eigen::Index k = 0; k < m; ++k) {
    s[k] = program.row_diagonal[k] > 0 ? 1.0 / std::sqrt(program.row_diagonal[k]) : 0.0;
  }
  Eigen::VectorXd held = Eigen::VectorXd::Zero(m);  // the λ_k of rows held out
  Eigen::VectorXd y(m);
  for (Eigen::Index k = 0; k < m; ++k) {
    if (s[k] > 0) {
      y[k] = std::max(0.0, z0[k]) / s[k];
    } else {
      y[k] = 0;
      held[k] = std::max(0.0, z0[k]);
    }
  }
  Eigen::VectorXd velocity(program.mass.size());
  const auto apply = [&](const Eigen::VectorXd& x, Eigen::VectorXd& out) {  // out = S N S x
    velocity.noalias() = program.At * s.cwiseProduct(x);
    velocity.array() /= program.mass.array();
    out.noalias() = program.A * velocity;
    out.array() *= s.array();
  };
  // The gradient's constant: S (c + N λ_held).
  Eigen::VectorXd offset = c;
  if (held.any()) {
    velocity.noalias() = program.At * held;
    velocity.array() /= program.mass.array();
    offset.noalias() += program.A * velocity;
  }
  offset.array() *= s.array();
  // Clamped: a conjugate step that ends exactly on the bound may leave −1e-18 by round-off.
  const auto lambda_of = [&](const Eigen::VectorXd& x) -> Eigen::VectorXd {
    return s.cwiseProduct(x.cwiseMax(0.0)) + held;
  };

  ProportioningOutcome outcome;
  outcome.lambda = lambda_of(y);
  outcome.error = error_of(outcome.lambda);
  if (!(outcome.error > tolerance) || m == 0) return outcome;

  // ‖S N S‖ by power iteration from a ones vector (an estimate from below: ᾱ keeps a margin).
  Eigen::VectorXd power = (s.array() > 0).cast<double>().matrix();
  Eigen::VectorXd image(m);
  double norm = 0;
  for (int k = 0; k < kPowerSteps && power.norm() > 0; ++k) {
    power /= power.norm();
    apply(power, image);
    norm = image.norm();
    power = image;
  }
  if (!(norm > 0)) return outcome;
  const double step = kStepShare / (1.05 * norm);

  Eigen::VectorXd g(m);
  apply(y, g);
  g += offset;
  Eigen::VectorXd free_gradient(m);
  const auto split = [&](double& chopped_sq, double& proportion) {
    // φ (free gradient), β (chopped); returns ‖β‖² and φ̃ᵀφ (φ̃ the reduced free gradient).
    chopped_sq = 0;
    proportion = 0;
    for (Eigen::Index k = 0; k < m; ++k) {
      if (!(s[k] > 0)) {
        free_gradient[k] = 0;
      } else if (y[k] > 0) {
        free_gradient[k] = g[k];
        proportion += std::min(y[k] / step, g[k]) * g[k];
      } else {
        free_gradient[k] = 0;
        const double b = std::min(g[k], 0.0);
        chopped_sq += b * b;
      }
    }
  };
  double chopped_sq = 0;
  double proportion = 0;
  split(chopped_sq, proportion);
  Eigen::VectorXd p = free_gradient;
  Eigen::VectorXd Ap(m);
  Eigen::VectorXd d(m);
  double halving_mark = outcome.error;  // the stall test: the error at the last halving, and when
  int last_halving = 0;
  for (int iteration = 1; iteration <= iterations; ++iteration) {
    if (stop_requested()) break;
    outcome.iterations = iteration;
    if (chopped_sq <= kProportion * kProportion * proportion) {
      apply(p, Ap);
      const double curvature = p.dot(Ap);
      if (!(curvature > 0)) break;  // p = 0 or on N's null space: y is a minimizer on this face
      const double conjugate = g.dot(p) / curvature;
      double feasible = std::numeric_limits<double>::infinity();
      for (Eigen::Index k = 0; k < m; ++k) {
        if (p[k] > 0 && y[k] > 0) feasible = std::min(feasible, y[k] / p[k]);
      }
      if (conjugate <= feasible) {
        y.noalias() -= conjugate * p;
        g.noalias() -= conjugate * Ap;
        split(chopped_sq, proportion);
        const double gamma = free_gradient.dot(Ap) / curvature;
        p = free_gradient - gamma * p;
      } else {
        // Expansion: to the boundary, then a projected gradient step of length ᾱ on the free set.
        y.noalias() -= feasible * p;
        g.noalias() -= feasible * Ap;
        split(chopped_sq, proportion);
        y = (y - step * free_gradient).cwiseMax(0.0);
        apply(y, g);
        g += offset;
        split(chopped_sq, proportion);
        p = free_gradient;
      }
    } else {
      // Proportioning: release the rows at the bound whose gradient points inside.
      for (Eigen::Index k = 0; k < m; ++k) d[k] = (s[k] > 0 && !(y[k] > 0)) ? std::min(g[k], 0.0) : 0.0;
      apply(d, Ap);
      const double curvature = d.dot(Ap);
      if (!(curvature > 0)) break;
      const double length = g.dot(d) / curvature;
      y.noalias() -= length * d;
      g.noalias() -= length * Ap;
      split(chopped_sq, proportion);
      p = free_gradient;
    }
    if (iteration % kRefreshEvery == 0) {
      apply(y, g);
      g += offset;
      split(chopped_sq, proportion);
    }
    if (iteration % every != 0 && iteration != iterations) continue;
    const Eigen::VectorXd lambda = lambda_of(y);
    const double error = error_of(lambda);
    if (!std::isfinite(error)) break;
    if (error < outcome.error) {
      outcome.lambda = lambda;
      outcome.error = error;
    }
    if (outcome.error <= tolerance) break;
    if (outcome.error <= 0.5 * halving_mark) {
      halving_mark = outcome.error;
      last_halving = iteration;
    }
    if (stall_steps > 0 && iteration - last_halving >= stall_steps && outcome.error > kStallFar * tolerance) break;
  }
  return outcome;
}

}  // namespace perp::detail
