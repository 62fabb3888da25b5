#pragma once
/// \file
/// NCP functions: φ(a, b) = 0 ⇔ a >= 0, b >= 0, a·b = 0 ([chapter] §1.6). Each comes with its
/// gradient (∂φ/∂a, ∂φ/∂b); where φ is not differentiable, an element of Clarke's
/// generalized gradient is returned and documented.

namespace perp {

/// A gradient (∂φ/∂a, ∂φ/∂b).
struct NcpGradient {
  double da = 0;
  double db = 0;
};

/// Fischer–Burmeister: φ_FB(a, b) = √(a² + b²) − a − b. Computed without overflow or
/// cancellation for large or tiny arguments.
[[nodiscard]] double fischer_burmeister(double a, double b);
/// ∇φ_FB = (a/r − 1, b/r − 1), r = √(a² + b²). At (0, 0), where φ_FB is not differentiable,
/// returns `fischer_burmeister_clarke_at_origin(1, 1)`.
[[nodiscard]] NcpGradient fischer_burmeister_gradient(double a, double b);
/// An element of the Clarke generalized gradient of φ_FB at (0, 0):
/// ∂φ_FB(0, 0) = {(ξ − 1, ρ − 1) : ξ² + ρ² <= 1}. The element chosen is the limit of the
/// gradient along the direction (da, db): (da/‖d‖ − 1, db/‖d‖ − 1); a zero direction gives
/// (−1, −1) (ξ = ρ = 0, the centre of the set). (De Luca–Facchinei–Kanzow 1996.)
[[nodiscard]] NcpGradient fischer_burmeister_clarke_at_origin(double da, double db);

/// φ_min(a, b) = min(a, b).
[[nodiscard]] double min_map(double a, double b);
/// (1, 0) when a < b, (0, 1) when a > b; at a tie a = b the element (1, 0) of the
/// generalized gradient (the convex hull of both) is chosen.
[[nodiscard]] NcpGradient min_map_gradient(double a, double b);

/// Penalized FB of Chen–Chen–Kanzow (2000): φ_λ(a, b) = λ φ_FB(a, b) − (1 − λ) max(0, a)·max(0, b),
/// λ ∈ (0, 1]; λ = 1 is φ_FB. Throws `InvalidProblem` for λ outside (0, 1].
[[nodiscard]] double penalized_fischer_burmeister(double a, double b, double lambda);
/// Gradient of φ_λ; at (0, 0) uses the FB Clarke element along (1, 1).
[[nodiscard]] NcpGradient penalized_fischer_burmeister_gradient(double a, double b, double lambda);

/// Smoothed FB (Kanzow 1996): φ_μ(a, b) = √(a² + b² + 2μ) − a − b, μ >= 0. Smooth for μ > 0,
/// and φ_μ(a, b) = 0 ⇔ a > 0, b > 0, a·b = μ (the central path); φ_0 = φ_FB. Throws
/// `InvalidProblem` for μ < 0.
[[nodiscard]] double smoothed_fischer_burmeister(double a, double b, double mu);
/// Gradient of φ_μ: (a/r − 1, b/r − 1), r = √(a² + b² + 2μ); for μ = 0 same as FB.
[[nodiscard]] NcpGradient smoothed_fischer_burmeister_gradient(double a, double b, double mu);

}  // namespace perp
