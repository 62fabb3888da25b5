#include "perp/core/ncp_function.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "perp/core/error.hpp"

namespace perp {

double fischer_burmeister(double a, double b) {
  // √(a²+b²) − (a+b) loses all digits when a, b > 0 are large and nearly complementary;
  // for a + b > 0 use the conjugate form −2ab / (√(a²+b²) + a + b). hypot avoids overflow.
  const double r = std::hypot(a, b);
  const double s = a + b;
  if (s > 0.0) return -2.0 * a * b / (r + s);
  return r - s;
}

NcpGradient fischer_burmeister_gradient(double a, double b) {
  const double r = std::hypot(a, b);
  if (r == 0.0) return fischer_burmeister_clarke_at_origin(1.0, 1.0);
  return {a / r - 1.0, b / r - 1.0};
}

NcpGradient fischer_burmeister_clarke_at_origin(double da, double db) {
  const double norm = std::hypot(da, db);
  if (norm == 0.0) return {-1.0, -1.0};
  return {da / norm - 1.0, db / norm - 1.0};
}

double min_map(double a, double b) { return std::min(a, b); }

NcpGradient min_map_gradient(double a, double b) {
  if (a <= b) return {1.0, 0.0};
  return {0.0, 1.0};
}

namespace {
void require_lambda(double lambda) {
  if (!(lambda > 0.0 && lambda <= 1.0)) {
    throw InvalidProblem("penalized Fischer-Burmeister: lambda must be in (0, 1], got " + std::to_string(lambda));
  }
}
}  // namespace

double penalized_fischer_burmeister(double a, double b, double lambda) {
  require_lambda(lambda);
  return lambda * fischer_burmeister(a, b) - (1.0 - lambda) * std::max(0.0, a) * std::max(0.0, b);
}

NcpGradient penalized_fischer_burmeister_gradient(double a, double b, double lambda) {
  require_lambda(lambda);
  const NcpGradient fb = fischer_burmeister_gradient(a, b);
  // d/da [max(0,a) max(0,b)] = max(0,b) for a > 0, 0 for a < 0; at a = 0 the term is 0 in a
  // neighbourhood side, so the choice 0 is an element of its generalized gradient.
  const double pa = a > 0.0 ? std::max(0.0, b) : 0.0;
  const double pb = b > 0.0 ? std::max(0.0, a) : 0.0;
  return {lambda * fb.da - (1.0 - lambda) * pa, lambda * fb.db - (1.0 - lambda) * pb};
}

namespace {
void require_mu(double mu) {
  if (!(mu >= 0.0) || !std::isfinite(mu)) {
    throw InvalidProblem("smoothed Fischer-Burmeister: mu must be finite and >= 0, got " + number_text(mu));
  }
}
}  // namespace

namespace {
// r = √(a² + b² + 2μ) as scale · √((a/scale)² + (b/scale)² + (t/scale)²), t = √(2μ), so that
// neither the squares nor 2μ overflow (|a| up to 1.8e308 and μ up to DBL_MAX).
struct SmoothedRoot {
  double scale, r;
};
SmoothedRoot smoothed_root(double a, double b, double mu) {
  const double t = std::sqrt(2.0) * std::sqrt(mu);
  const double scale = std::max({std::abs(a), std::abs(b), t});
  const double as = a / scale, bs = b / scale, ts = t / scale;
  return {scale, scale * std::sqrt(as * as + bs * bs + ts * ts)};
}
}  // namespace

double smoothed_fischer_burmeister(double a, double b, double mu) {
  require_mu(mu);
  if (mu == 0.0) return fischer_burmeister(a, b);
  const SmoothedRoot root = smoothed_root(a, b, mu);
  const double s = a + b;
  // Same conjugate trick as φ_FB: r − s = (r² − s²)/(r + s) = (2μ − 2ab)/(r + s), numerator and
  // denominator divided by the scale.
  if (s > 0.0) {
    const double t = std::sqrt(2.0) * std::sqrt(mu);
    const double numerator = t * (t / root.scale) - 2.0 * (a / root.scale) * b;
    return numerator / (root.r / root.scale + s / root.scale);
  }
  return root.r - s;
}

NcpGradient smoothed_fischer_burmeister_gradient(double a, double b, double mu) {
  require_mu(mu);
  if (mu == 0.0) return fischer_burmeister_gradient(a, b);
  const double r = smoothed_root(a, b, mu).r;
  return {a / r - 1.0, b / r - 1.0};
}

}  // namespace perp
