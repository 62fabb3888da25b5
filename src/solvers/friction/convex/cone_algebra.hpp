#pragma once
// Private: the algebra of the second-order cone Q = {(t, x) : ‖x‖ <= t} in R³ that the 3D interior
// point steps on (cone_ipm.cpp): the determinant, the step to the boundary, the Jordan product and
// its inverse, the Nesterov–Todd scaling, the lift into the interior. Not installed.

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>

namespace perp::detail::cone {

using ConeVector = Eigen::Vector3d;
using ConeMatrix = Eigen::Matrix3d;

/// x0² − ‖x1‖² as (x0 − ‖x1‖)(x0 + ‖x1‖): no cancellation near the boundary.
inline double cone_det(const ConeVector& x) {
  const double tail = x.tail<2>().norm();
  return (x[0] - tail) * (x[0] + tail);
}

/// The largest α >= 0 with x + α d in Q (+inf when the whole ray stays in), for x inside Q.
inline double step_in_cone(const ConeVector& x, const ConeVector& d) {
  const double a = d[0] * d[0] - d.tail<2>().squaredNorm();
  const double b = x[0] * d[0] - x.tail<2>().dot(d.tail<2>());
  const double c = std::max(cone_det(x), 0.0);
  // x + α d leaves Q where a α² + 2 b α + c first reaches 0 (c > 0 at α = 0; the path cannot reach −Q
  // without crossing the boundary).
  double alpha = std::numeric_limits<double>::infinity();
  const double disc = b * b - a * c;
  if (std::abs(a) <= 1e-300) {
    if (b < 0) alpha = -c / (2 * b);
  } else if (disc >= 0) {
    const double root = std::sqrt(disc);
    const double t = b >= 0 ? -b - root : -b + root;
    for (const double candidate : {t / a, t != 0 ? c / t : std::numeric_limits<double>::infinity()}) {
      if (candidate >= 0 && candidate < alpha) alpha = candidate;
    }
  }
  // Moving along the axis into the apex: x0 + α d0 must stay >= 0 too.
  if (d[0] < 0) alpha = std::min(alpha, -x[0] / d[0]);
  return alpha;
}

/// x ∘ y = (xᵀy, x0 y1 + y0 x1).
inline ConeVector jordan(const ConeVector& x, const ConeVector& y) {
  ConeVector out;
  out[0] = x.dot(y);
  out.tail<2>() = x[0] * y.tail<2>() + y[0] * x.tail<2>();
  return out;
}

/// x with λ ∘ x = b, λ inside Q, `det` = λ0² − ‖λ1‖² (from s and z: √(det s · det z), which
/// round-off keeps positive where λ's own entries, both near the boundary, would not).
inline ConeVector jordan_divide(const ConeVector& lambda, double det, const ConeVector& b) {
  const double l1b1 = lambda.tail<2>().dot(b.tail<2>());
  ConeVector x;
  x[0] = (lambda[0] * b[0] - l1b1) / det;
  x.tail<2>() = (-b[0] * lambda.tail<2>() + (det / lambda[0]) * b.tail<2>() + (l1b1 / lambda[0]) * lambda.tail<2>()) / det;
  return x;
}

/// The Nesterov–Todd scaling of one cone at (s, z) inside Q: W (symmetric, W z = W⁻¹ s) and W⁻¹
/// (Vandenberghe 2010, §4.3: w̄ from the normalized s̄, z̄; W = η [w̄₀ w̄₁ᵀ; w̄₁ I + w̄₁w̄₁ᵀ/(1 + w̄₀)]).
inline void nt_scaling(const ConeVector& s, const ConeVector& z, ConeMatrix& W, ConeMatrix& W_inverse) {
  const double s_det = std::max(cone_det(s), 1e-300);
  const double z_det = std::max(cone_det(z), 1e-300);
  const double s_norm = std::sqrt(s_det);
  const double z_norm = std::sqrt(z_det);
  const ConeVector s_bar = s / s_norm;
  const ConeVector z_bar = z / z_norm;
  const double gamma = std::sqrt(std::max((1 + s_bar.dot(z_bar)) / 2, 1e-300));
  ConeVector w;
  w[0] = (s_bar[0] + z_bar[0]) / (2 * gamma);
  w.tail<2>() = (s_bar.tail<2>() - z_bar.tail<2>()) / (2 * gamma);
  const double eta = std::sqrt(s_norm / z_norm);
  const Eigen::Matrix2d lower = Eigen::Matrix2d::Identity() + w.tail<2>() * w.tail<2>().transpose() / (1 + w[0]);
  W(0, 0) = w[0];
  W.block<1, 2>(0, 1) = w.tail<2>().transpose();
  W.block<2, 1>(1, 0) = w.tail<2>();
  W.block<2, 2>(1, 1) = lower;
  W_inverse = W;
  W_inverse.block<1, 2>(0, 1) *= -1;
  W_inverse.block<2, 1>(1, 0) *= -1;
  W *= eta;
  W_inverse /= eta;
}

/// The smallest t >= 0 with x + t e in Q's interior by `margin` (x0 − ‖x1‖ >= margin after it).
inline double lift_into_cone(const ConeVector& x, double margin) { return std::max(0.0, margin + x.tail<2>().norm() - x[0]); }

}  // namespace perp::detail::cone
