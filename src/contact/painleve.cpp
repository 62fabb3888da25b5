#include "perp/contact/painleve.hpp"

#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>

#include "perp/core/enum_names.hpp"
#include "perp/core/error.hpp"

namespace perp::contact {

void PainleveRod::validate() const {
  auto fail = [](const std::string& what) { throw InvalidProblem("painleve: " + what); };
  if (!std::isfinite(theta) || theta <= 0 || theta >= std::numbers::pi / 2) {
    fail("theta must be in (0, pi/2) radians, got " + std::to_string(theta));
  }
  if (!std::isfinite(theta_dot)) fail("theta_dot is not finite");
  if (!std::isfinite(friction) || friction < 0) fail("mu must be finite and >= 0, got " + std::to_string(friction));
  if (!std::isfinite(mass) || mass <= 0) fail("mass must be finite and > 0, got " + std::to_string(mass));
  if (!std::isfinite(half_length) || half_length <= 0) {
    fail("half_length must be finite and > 0, got " + std::to_string(half_length));
  }
  if (!std::isfinite(gravity) || gravity <= 0) fail("gravity must be finite and > 0, got " + std::to_string(gravity));
}

namespace {

constexpr std::array<perp::detail::EnumName<PainleveRegime>, 5> kRegimeNames{{
    {PainleveRegime::Separating, "separating"},
    {PainleveRegime::Contact, "contact"},
    {PainleveRegime::Indeterminate, "indeterminate"},
    {PainleveRegime::Inconsistent, "inconsistent"},
    {PainleveRegime::Degenerate, "degenerate"},
}};
static_assert(perp::detail::in_declaration_order(kRegimeNames));

}  // namespace

std::string to_string(PainleveRegime regime) { return std::string(perp::detail::name_in(kRegimeNames, regime, "unknown")); }

PainleveAnalysis analyze_painleve(const PainleveRod& rod) {
  rod.validate();
  const double c = std::cos(rod.theta);
  const double s = std::sin(rod.theta);
  PainleveAnalysis result;
  result.alpha = (1 + 3 * c * (c - rod.friction * s)) / rod.mass;
  result.beta = -rod.gravity + rod.half_length * rod.theta_dot * rod.theta_dot * s;
  const double alpha = result.alpha;
  const double beta = result.beta;
  // The round-off of α: a few ulps of the largest of the terms summed in it.
  const double alpha_terms = (1 + 3 * std::abs(c) * (std::abs(c) + rod.friction * std::abs(s))) / rod.mass;
  if (std::abs(alpha) <= 8 * std::numeric_limits<double>::epsilon() * alpha_terms) {
    result.regime = PainleveRegime::Degenerate;
    if (beta >= 0) result.solutions = {0.0};
    return result;
  }
  if (alpha > 0) {
    result.regime = beta >= 0 ? PainleveRegime::Separating : PainleveRegime::Contact;
    result.solutions = {beta >= 0 ? 0.0 : -beta / alpha};
  } else if (beta > 0) {
    result.regime = alpha < 0 ? PainleveRegime::Indeterminate : PainleveRegime::Separating;
    result.solutions = alpha < 0 ? std::vector<double>{0.0, -beta / alpha} : std::vector<double>{0.0};
  } else if (beta < 0) {
    result.regime = PainleveRegime::Inconsistent;
  } else {  // α < 0, β = 0
    result.regime = PainleveRegime::Separating;
    result.solutions = {0.0};
  }
  return result;
}

CriticalFriction painleve_critical_friction() { return {4.0 / 3.0, std::atan(2.0)}; }

World painleve_world(const PainleveRod& rod, double sliding_speed) {
  rod.validate();
  if (!std::isfinite(sliding_speed) || sliding_speed <= 0) {
    throw InvalidProblem("painleve: sliding_speed must be finite and > 0, got " + std::to_string(sliding_speed));
  }
  const double l = rod.half_length;
  const double c = std::cos(rod.theta);
  const double s = std::sin(rod.theta);
  Body body;
  body.name = "rod";
  body.shape = Rod{2 * l};
  body.mass = rod.mass;
  body.position = {0.0, l * s};
  body.angle = -rod.theta;
  body.angular_velocity = -rod.theta_dot;
  // ẋ_A = ẋ_c − l sin θ θ̇, ẏ_A = ẏ_c − l cos θ θ̇ = 0.
  body.velocity = {sliding_speed + l * s * rod.theta_dot, l * c * rod.theta_dot};
  World world;
  world.bodies.push_back(body);
  world.ground = Ground{0.0};
  return world;
}

}  // namespace perp::contact
