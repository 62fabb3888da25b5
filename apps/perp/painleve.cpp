#include "painleve.hpp"

#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>

#include "perp/perp.hpp"
#include "png.hpp"

namespace perp::cli {
namespace {

using contact::PainleveRegime;

/// Doubles in JSON output: round-trip precision.
std::string json_number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

contact::PainleveRod rod_from(const PainleveArguments& args) {
  contact::PainleveRod rod;
  rod.theta = args.theta;
  rod.friction = args.mu;
  rod.theta_dot = args.theta_dot;
  rod.mass = args.mass;
  rod.half_length = args.half_length;
  rod.gravity = args.gravity;
  return rod;
}

Color regime_color(PainleveRegime regime) {
  switch (regime) {
    case PainleveRegime::Separating:
      return {158, 202, 225};
    case PainleveRegime::Contact:
      return {199, 233, 192};
    case PainleveRegime::Indeterminate:
      return {253, 208, 162};
    case PainleveRegime::Inconsistent:
      return {252, 146, 114};
    case PainleveRegime::Degenerate:
      return {120, 120, 120};
  }
  return {255, 255, 255};
}

/// The (θ, μ) regime map for the given θ̇, m, l, g, with the curve α = 0 and the critical point.
void write_diagram(const PainleveArguments& args) {
  constexpr int kWidth = 900;
  constexpr int kHeight = 640;
  constexpr int kLeft = 70;
  constexpr int kRight = kWidth - 20;
  constexpr int kTop = 60;
  constexpr int kBottom = kHeight - 50;
  constexpr double kMaxMu = 3.0;
  Canvas canvas(kWidth, kHeight);
  contact::PainleveRod rod = rod_from(args);
  const double half_pi = std::numbers::pi / 2;
  for (int px = kLeft; px <= kRight; ++px) {
    for (int py = kTop; py <= kBottom; ++py) {
      rod.theta = std::clamp((px - kLeft + 0.5) / (kRight - kLeft + 1) * half_pi, 1e-9, half_pi - 1e-9);
      rod.friction = (kBottom - py + 0.5) / (kBottom - kTop + 1) * kMaxMu;
      canvas.set(px, py, regime_color(contact::analyze_painleve(rod).regime));
    }
  }
  const Color black{0, 0, 0};
  // α = 0: μ = (tan² θ + 4) / (3 tan θ).
  double last_x = 0;
  double last_y = 0;
  for (int i = 1; i < 2000; ++i) {
    const double theta = i * half_pi / 2000;
    const double t = std::tan(theta);
    const double mu = (t * t + 4) / (3 * t);
    const double x = kLeft + theta / half_pi * (kRight - kLeft);
    const double y = kBottom - mu / kMaxMu * (kBottom - kTop);
    if (i > 1 && mu <= kMaxMu && y >= kTop) canvas.line(last_x, last_y, x, y, black, 2);
    last_x = x;
    last_y = y;
  }
  const contact::CriticalFriction critical = contact::painleve_critical_friction();
  const int cx = static_cast<int>(kLeft + critical.theta / half_pi * (kRight - kLeft));
  const int cy = static_cast<int>(kBottom - critical.friction / kMaxMu * (kBottom - kTop));
  canvas.fill_rect(cx - 4, cy - 4, cx + 4, cy + 4, black);
  canvas.text(cx + 8, cy + 8, "mu = 4/3, theta = atan 2", black);
  canvas.line(kLeft, kTop, kLeft, kBottom, black);
  canvas.line(kLeft, kBottom, kRight, kBottom, black);
  char title[96];
  std::snprintf(title, sizeof title, "painleve rod regimes, theta dot = %g", args.theta_dot);
  canvas.text(kLeft, 12, title, black, 3);
  int legend = kLeft;
  for (PainleveRegime regime : {PainleveRegime::Separating, PainleveRegime::Contact, PainleveRegime::Indeterminate,
                                PainleveRegime::Inconsistent, PainleveRegime::Degenerate}) {
    canvas.fill_rect(legend, 40, legend + 12, 50, regime_color(regime));
    canvas.text(legend + 16, 40, to_string(regime), black);
    legend += 16 + Canvas::text_width(to_string(regime)) + 24;
  }
  canvas.text(kLeft - 12, kBottom + 8, "0", black);
  canvas.text(kRight - Canvas::text_width("1.571"), kBottom + 8, "1.571", black);
  canvas.text((kLeft + kRight) / 2 - 40, kBottom + 28, "theta (rad)", black);
  canvas.text(8, kTop, "mu = 3", black);
  canvas.text(8, (kTop + kBottom) / 2, "mu", black);
  canvas.write_png(args.diagram);
}

}  // namespace

int run_painleve(const PainleveArguments& args) {
  if (args.critical_mu) {
    const contact::CriticalFriction critical = contact::painleve_critical_friction();
    if (args.json) {
      std::printf("{\"mu\": %s, \"theta\": %s}\n", json_number(critical.friction).c_str(),
                  json_number(critical.theta).c_str());
    } else {
      std::printf("critical mu = %.10g (4/3) at theta = %.10g rad (atan 2, %.4g deg)\n", critical.friction,
                  critical.theta, critical.theta * 180 / std::numbers::pi);
    }
    return 0;
  }
  if (!args.diagram.empty()) {
    contact::PainleveRod check = rod_from(args);
    check.theta = 1.0;  // θ and μ are swept; validate the rest
    check.friction = 0;
    check.validate();
    write_diagram(args);
    std::printf("wrote %s\n", args.diagram.c_str());
    return 0;
  }
  if (!args.theta_given || !args.mu_given) {
    throw InvalidProblem("painleve: --theta and --mu are required (or --critical-mu, or --diagram FILE.png)");
  }
  const contact::PainleveAnalysis analysis = contact::analyze_painleve(rod_from(args));
  // No output carries a non-finite number (JSON has none): inputs whose alpha, beta or lambda_N
  // overflow (a mass of 1e-320, theta-dot of 1e200) are refused, naming the figure.
  bool finite = std::isfinite(analysis.alpha) && std::isfinite(analysis.beta);
  for (const double s : analysis.solutions) finite = finite && std::isfinite(s);
  if (!finite) {
    char buffer[320];
    std::snprintf(buffer, sizeof buffer,
                  "painleve: alpha = %g, beta = %g: not finite for these inputs (mass %g, half-length %g, "
                  "theta-dot %g, gravity %g overflow the range of double)",
                  analysis.alpha, analysis.beta, args.mass, args.half_length, args.theta_dot, args.gravity);
    throw InvalidProblem(buffer);
  }
  std::string solutions;
  for (double s : analysis.solutions) solutions += (solutions.empty() ? "" : ", ") + json_number(s);
  if (args.json) {
    std::printf("{\"alpha\": %s, \"beta\": %s, \"regime\": \"%s\", \"solutions\": [%s]}\n",
                json_number(analysis.alpha).c_str(), json_number(analysis.beta).c_str(),
                to_string(analysis.regime).c_str(), solutions.c_str());
  } else {
    std::printf("alpha = %.10g, beta = %.10g: %s\n", analysis.alpha, analysis.beta, to_string(analysis.regime).c_str());
    std::printf("lambda_N solutions: [%s]\n", solutions.c_str());
  }
  return 0;
}

}  // namespace perp::cli
