#pragma once
/// \file
/// Painlevé's sliding rod ([chapter] §1.7), with α and β derived here from Newton–Euler
/// ([chapter]'s printed closed form of α is garbled).
///
/// A uniform rod of length 2l, mass m, I = m l²/3 about its centre. θ ∈ (0, π/2) is the angle
/// between the rod and the ground; the contact end A lies below the centre:
///   x_A = x_c + l cos θ,  y_A = y_c − l sin θ.
/// A slides with ẋ_A > 0, so Coulomb gives λ_T = −μ λ_N; gravity g points along −y.
/// Newton–Euler, with the torque of (λ_T, λ_N) at A about the centre, r = (l cos θ, −l sin θ):
///   m ẍ_c = λ_T,   m ÿ_c = λ_N − m g,   I (−θ̈) = r_x λ_N − r_y λ_T = l cos θ λ_N + l sin θ λ_T
/// (the body's counter-clockwise angle is −θ). Differentiating y_A twice,
///   ÿ_A = ÿ_c − l cos θ θ̈ + l sin θ θ̇²,
/// and substituting λ_T = −μ λ_N gives ÿ_A = α λ_N + β with
///   α = (1/m) (1 + 3 cos θ (cos θ − μ sin θ)),   β = −g + l θ̇² sin θ.
/// α < 0 exactly when μ > (1 + 3 cos² θ) / (3 sin θ cos θ) = (tan² θ + 4) / (3 tan θ), whose
/// minimum over θ is μ = 4/3 at tan θ = 2 (θ ≈ 63.43°): Génot–Brogliato's μ_P = 4/3.

#include <string>
#include <vector>

#include "perp/contact/body.hpp"

namespace perp::contact {

struct PainleveRod {
  /// Angle between the rod and the ground, radians, in (0, π/2).
  double theta = 1.0;
  /// dθ/dt (rad/s), finite.
  double theta_dot = 0;
  /// Coulomb coefficient μ >= 0.
  double friction = 0;
  double mass = 1;
  /// l: half the rod's length, > 0.
  double half_length = 1;
  /// g > 0 (along −y).
  double gravity = 9.81;

  /// Throws `InvalidProblem` naming the first bad field.
  void validate() const;
};

enum class PainleveRegime {
  Separating,     ///< α > 0, β >= 0 (also α = 0, β > 0 and α < 0, β = 0): only λ_N = 0
  Contact,        ///< α > 0, β < 0: λ_N = −β/α
  Indeterminate,  ///< α < 0, β > 0: two solutions, 0 and −β/α
  Inconsistent,   ///< α < 0, β < 0: no solution
  Degenerate,     ///< α = 0 within round-off (|α| <= 8ε (1 + 3|cos θ|(|cos θ| + μ|sin θ|))/m, the size of its
                  ///< terms; e.g. θ = atan 2, μ = 4/3): λ_N does not act on ÿ_A; β >= 0 gives λ_N = 0 (β = 0:
                  ///< every λ_N >= 0, 0 listed), β < 0 none
};

/// "separating", "contact", "indeterminate", "inconsistent", "degenerate".
[[nodiscard]] std::string to_string(PainleveRegime regime);

struct PainleveAnalysis {
  double alpha = 0;
  double beta = 0;
  PainleveRegime regime = PainleveRegime::Separating;
  /// Every λ_N >= 0 with 0 <= λ_N ⊥ α λ_N + β >= 0, ascending (empty when inconsistent).
  std::vector<double> solutions;
};

/// α and β above, the regime and the solutions of the one-dimensional LCP(β, α).
/// α < 0 with β = 0 has the single solution 0 and counts as separating. α = 0 within round-off
/// is `Degenerate`, whatever the sign of the round-off (at θ = atan 2, μ = 4/3 the computed α is
/// 2.2e-16, which would otherwise read as contact with λ_N = 4.4e16).
[[nodiscard]] PainleveAnalysis analyze_painleve(const PainleveRod& rod);

struct CriticalFriction {
  double friction;  ///< 4/3
  double theta;     ///< atan 2
};

/// The smallest μ for which α < 0 at some θ (an infimum: α < 0 needs μ > 4/3), and that θ. It
/// does not depend on m, l or g.
[[nodiscard]] CriticalFriction painleve_critical_friction();

/// The rod as a body of the generic contact layer: centre at (0, l sin θ) so that A touches the
/// ground (height 0), body angle −θ, angular velocity −θ̇, and the centre velocity chosen so that
/// A slides at ẋ_A = `sliding_speed` > 0 without leaving the ground (ẏ_A = 0).
[[nodiscard]] World painleve_world(const PainleveRod& rod, double sliding_speed = 1.0);

}  // namespace perp::contact
