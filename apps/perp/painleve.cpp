#include "painleve.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>

#include "perp/perp.hpp"
#include "plot.hpp"

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

Rgb regime_color(PainleveRegime regime) {
  switch (regime) {
    case PainleveRegime::Separating:
      return {158 / 255.0, 202 / 255.0, 225 / 255.0};
    case PainleveRegime::Contact:
      return {199 / 255.0, 233 / 255.0, 192 / 255.0};
    case PainleveRegime::Indeterminate:
      return {253 / 255.0, 208 / 255.0, 162 / 255.0};
    case PainleveRegime::Inconsistent:
      return {252 / 255.0, 146 / 255.0, 114 / 255.0};
    case PainleveRegime::Degenerate:
      return {120 / 255.0, 120 / 255.0, 120 / 255.0};
  }
  return {1, 1, 1};
}

/// The (θ, μ) regime map for the given θ̇, m, l, g, with the curve α = 0, the critical point and,
/// with --theta and --mu, the point asked (named with its regime). Returns that regime's line for
/// the terminal ("" without a point asked).
std::string write_diagram(const PainleveArguments& args) {
  const PlotFormat format = plot_format_from_path(args.diagram);
  // The μ axis reaches 3, or past the point asked.
  const double kMaxMu = args.mu_given ? std::max(3.0, 1.1 * args.mu) : 3.0;
  const double half_pi = std::numbers::pi / 2;
  const contact::PainleveRod base = rod_from(args);
  char title[96];
  std::snprintf(title, sizeof title, "Painleve rod regimes, theta dot = %g rad/s", args.theta_dot);
  Panel panel{.title = title,
              .x_label = "theta (rad), angle between rod and ground",
              .y_label = "mu (Coulomb coefficient)",
              .x_range = std::array<double, 2>{0, half_pi},
              .y_range = std::array<double, 2>{0, kMaxMu}};
  panel.fill = [base, half_pi](double theta, double mu) {
    contact::PainleveRod rod = base;
    rod.theta = std::clamp(theta, 1e-9, half_pi - 1e-9);
    rod.friction = std::max(mu, 0.0);
    return regime_color(contact::analyze_painleve(rod).regime);
  };
  for (const PainleveRegime regime : {PainleveRegime::Separating, PainleveRegime::Contact,
                                      PainleveRegime::Indeterminate, PainleveRegime::Inconsistent,
                                      PainleveRegime::Degenerate}) {
    panel.fill_legend.emplace_back(to_string(regime), regime_color(regime));
  }
  // α = 0: μ = (tan² θ + 4) / (3 tan θ).
  Series alpha{"alpha = 0: mu = (tan^2 + 4) / (3 tan)", {}, {}, Rgb{0, 0, 0}, 2};
  for (int i = 1; i < 2000; ++i) {
    const double theta = i * half_pi / 2000;
    const double t = std::tan(theta);
    alpha.x.push_back(theta);
    alpha.y.push_back((t * t + 4) / (3 * t));
  }
  panel.series.push_back(std::move(alpha));
  const contact::CriticalFriction critical = contact::painleve_critical_friction();
  panel.markers.push_back({"mu = 4/3 at theta = atan 2", critical.theta, critical.friction, Rgb{0, 0, 0}});
  std::string asked;
  if (args.theta_given && args.mu_given) {
    const contact::PainleveAnalysis analysis = contact::analyze_painleve(rod_from(args));
    char label[160];
    std::snprintf(label, sizeof label, "asked: theta = %.4g, mu = %.4g (%s)", args.theta, args.mu,
                  to_string(analysis.regime).c_str());
    const Rgb blue{0.1, 0.1, 0.85};
    panel.markers.push_back({label, args.theta, args.mu, blue, false});
    // Guides from both axes to the point, so that it reads at a glance.
    panel.series.push_back({"", {0, args.theta}, {args.mu, args.mu}, blue, 1, true});
    panel.series.push_back({"", {args.theta, args.theta}, {0, args.mu}, blue, 1, true});
    asked = label;
  }
  Figure figure{.width = 900};
  figure.panels.push_back({std::move(panel), 620});
  write_figure(figure, args.diagram, format);
  return asked;
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
    if (args.theta_given != args.mu_given) {
      throw InvalidProblem(std::string("painleve --diagram: give both --theta and --mu to mark a point on the map (got only ") +
                           (args.theta_given ? "--theta" : "--mu") + ")");
    }
    contact::PainleveRod check = rod_from(args);
    if (!args.theta_given) {
      check.theta = 1.0;  // θ and μ are swept; validate the rest
      check.friction = 0;
    }
    check.validate();
    const std::string asked = write_diagram(args);
    if (asked.empty()) {
      std::printf("wrote %s\n", args.diagram.c_str());
    } else {
      std::printf("wrote %s, marking %s\n", args.diagram.c_str(), asked.c_str());
    }
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
