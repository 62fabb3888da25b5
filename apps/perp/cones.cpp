// `perp cones`: the complementary cones of a 2×2 LCP in q-space ([chapter] §1.2).
//
// w − M z = q with w = I w: q = Σ_{i ∉ α} w_i e_i + Σ_{i ∈ α} z_i (−M_{·i}), so LCP(q, M) has a
// solution with support α exactly when q lies in the cone spanned by the columns C_α (e_i for
// i ∉ α, −M_{·i} for i ∈ α). Every q has a solution iff the four cones cover the plane (M ∈ Q);
// every q has exactly one iff they cover it without overlapping (M ∈ P).
#include "cones.hpp"

#include <CLI/CLI.hpp>
#include <array>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <numbers>
#include <string>
#include <variant>

#include "format.hpp"
#include "perp/perp.hpp"
#include "plot.hpp"

namespace perp::cli {
namespace {

/// Directions sampled on the unit circle for the "as seen" coverage (offset by half a step, so
/// that no sample lies on an axis, where cones meet).
constexpr int kDirections = 3600;

struct Cone {
  unsigned basis = 0;  ///< bit i set: z_i basic (generator −M_{·i}); clear: w_i basic (e_i)
  std::array<Eigen::Vector2d, 2> generators;
  bool degenerate = false;  ///< generators collinear (or one is 0): a ray or a line, no area
  bool contains_q = false;

  [[nodiscard]] std::string name() const {
    return std::string(basis & 1u ? "z1" : "w1") + " " + (basis & 2u ? "z2" : "w2");
  }
  [[nodiscard]] Eigen::Matrix2d matrix() const {
    Eigen::Matrix2d c;
    c << generators[0], generators[1];
    return c;
  }
  /// d = C x with x >= 0 (the cone has area).
  [[nodiscard]] bool contains(const Eigen::Vector2d& d) const {
    if (degenerate) return false;
    const Eigen::Vector2d x = matrix().inverse() * d;
    const double size = x.cwiseAbs().maxCoeff();
    return x.minCoeff() >= -1e-12 * size;
  }
};

std::array<Cone, 4> complementary_cones(const Eigen::Matrix2d& M) {
  std::array<Cone, 4> cones;
  const double scale = std::max(1.0, M.cwiseAbs().maxCoeff());
  for (unsigned basis = 0; basis < 4; ++basis) {
    Cone& cone = cones[basis];
    cone.basis = basis;
    for (int i = 0; i < 2; ++i) {
      const Eigen::Vector2d e = Eigen::Vector2d::Unit(i);
      cone.generators[static_cast<std::size_t>(i)] = (basis & (1u << i)) ? Eigen::Vector2d(-M.col(i)) : e;
    }
    cone.degenerate = std::abs(cone.matrix().determinant()) <= 1e-12 * scale * scale;
  }
  return cones;
}

/// The cone as a band between radii r0 < r1: an arc from one generator to the other at r1, the
/// short way (a cone with area spans less than π), and back at r0. Each cone has its own radii, so
/// where cones overlap their bands lie side by side in their own colours instead of blending.
std::vector<std::array<double, 2>> band(const Cone& cone, double r0, double r1) {
  const double a0 = std::atan2(cone.generators[0].y(), cone.generators[0].x());
  double a1 = std::atan2(cone.generators[1].y(), cone.generators[1].x());
  while (a1 - a0 > std::numbers::pi) a1 -= 2 * std::numbers::pi;
  while (a0 - a1 > std::numbers::pi) a1 += 2 * std::numbers::pi;
  std::vector<std::array<double, 2>> points;
  constexpr int kArc = 48;
  for (int k = 0; k <= kArc; ++k) {
    const double a = a0 + (a1 - a0) * k / kArc;
    points.push_back({r1 * std::cos(a), r1 * std::sin(a)});
  }
  for (int k = kArc; k >= 0; --k) {
    const double a = a0 + (a1 - a0) * k / kArc;
    points.push_back({r0 * std::cos(a), r0 * std::sin(a)});
  }
  return points;
}

std::string vector_json_text(const Eigen::VectorXd& v) {
  std::string text = "[";
  char buffer[32];
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    std::snprintf(buffer, sizeof buffer, "%s%.17g", i == 0 ? "" : ", ", v[i]);
    text += buffer;
  }
  return text + "]";
}

}  // namespace

CLI::App* add_cones_command(CLI::App& app, ConesArguments& args) {
  CLI::App* command = app.add_subcommand(
      "cones", "The four complementary cones of a 2x2 LCP in q-space: which hold q, the solutions, Q and uniqueness");
  command->add_option("FILE", args.file, "LCP file (.dat or .json) with a 2x2 M")->required();
  command->add_option("--plot", args.plot, "draw the cones, q and the solutions into FILE.png or FILE.svg");
  command->add_flag("--json", args.json, "print one JSON object");
  return command;
}

int run_cones(const ConesArguments& args) {
  const Problem problem = read_problem_file(args.file);
  const Lcp* lcp = std::get_if<Lcp>(&problem);
  if (lcp == nullptr) {
    throw InvalidProblem("cones: " + args.file + " holds a " + std::string(problem_type(problem)) +
                         " problem; the cones are drawn for an LCP");
  }
  if (lcp->size() != 2) {
    throw InvalidProblem("cones: M is " + std::to_string(lcp->size()) + "x" + std::to_string(lcp->size()) +
                         "; the complementary cones are drawn in the plane, for a 2x2 M");
  }
  const bool plot = !args.plot.empty();
  const PlotFormat format = plot ? plot_format_from_path(args.plot) : PlotFormat::Png;
  const Eigen::Matrix2d M = lcp->M;
  const Eigen::Vector2d q = lcp->q;
  std::array<Cone, 4> cones = complementary_cones(M);

  SolveOptions options;
  options.all_solutions = true;
  const Result all = solve(*lcp, Method::Enum, options);
  for (const Eigen::VectorXd& z : all.solutions) {
    const Eigen::Vector2d w = M * z + q;
    // The cone of a solution: z_i basic where z_i > 0 (ties: w_i = z_i = 0, either).
    unsigned basis = 0;
    for (int i = 0; i < 2; ++i) basis |= (z[i] > w[i]) ? (1u << i) : 0u;
    cones[basis].contains_q = true;
  }

  // Coverage as seen on kDirections directions.
  int covered = 0;
  int min_count = 4;
  int max_count = 0;
  for (int k = 0; k < kDirections; ++k) {
    const double a = (k + 0.5) * 2 * std::numbers::pi / kDirections;
    const Eigen::Vector2d d(std::cos(a), std::sin(a));
    int count = 0;
    for (const Cone& cone : cones) count += cone.contains(d) ? 1 : 0;
    covered += count > 0 ? 1 : 0;
    min_count = std::min(min_count, count);
    max_count = std::max(max_count, count);
  }
  const bool q_seen = min_count >= 1;
  const bool unique_seen = max_count <= 1;
  const MatrixReport report = classify(Eigen::MatrixXd(M));
  const std::optional<bool> p_matrix = report[MatrixClass::P].holds;
  std::string q_text = q_seen ? "the cones cover every direction: every q has a solution (M is a Q-matrix, as seen)"
                              : "the cones leave directions uncovered: some q have no solution (M is not a Q-matrix)";
  std::string unique_text =
      unique_seen ? "no two cones overlap: no q has two solutions (unique, as for a P-matrix)"
                  : "cones overlap (up to " + std::to_string(max_count) + " on one direction): some q have " +
                        std::to_string(max_count) + " solutions";
  char coverage_text[96];
  std::snprintf(coverage_text, sizeof coverage_text, "%.1f%% of %d directions covered", 100.0 * covered / kDirections,
                kDirections);

  if (args.json) {
    std::cout << "{\"M\": [" << vector_json_text(M.row(0).transpose()) << ", " << vector_json_text(M.row(1).transpose())
              << "], \"q\": " << vector_json_text(q) << ", \"cones\": [";
    for (std::size_t c = 0; c < cones.size(); ++c) {
      std::cout << (c ? ", " : "") << "{\"basis\": \"" << cones[c].name() << "\", \"generators\": ["
                << vector_json_text(cones[c].generators[0]) << ", " << vector_json_text(cones[c].generators[1])
                << "], \"degenerate\": " << (cones[c].degenerate ? "true" : "false")
                << ", \"contains_q\": " << (cones[c].contains_q ? "true" : "false") << "}";
    }
    std::cout << "], \"solutions\": [";
    for (std::size_t s = 0; s < all.solutions.size(); ++s) {
      std::cout << (s ? ", " : "") << "{\"z\": " << vector_json_text(all.solutions[s])
                << ", \"w\": " << vector_json_text(M * all.solutions[s] + q) << "}";
    }
    std::cout << "], \"directions\": " << kDirections << ", \"covered\": " << covered
              << ", \"min_cones\": " << min_count << ", \"max_cones\": " << max_count
              << ", \"q_matrix_as_seen\": " << (q_seen ? "true" : "false")
              << ", \"unique_as_seen\": " << (unique_seen ? "true" : "false") << ", \"p_matrix\": "
              << (p_matrix ? (*p_matrix ? "true" : "false") : "null") << "}\n";
  } else {
    std::cout << args.file << ": M = [[" << M(0, 0) << ", " << M(0, 1) << "], [" << M(1, 0) << ", " << M(1, 1)
              << "]], q = " << format_vector(q) << "\n";
    for (const Cone& cone : cones) {
      std::cout << "cone " << cone.name() << ": generators " << format_vector(cone.generators[0]) << ", "
                << format_vector(cone.generators[1]) << (cone.degenerate ? " (degenerate: no area)" : "")
                << (cone.contains_q ? "  <- holds q" : "") << "\n";
    }
    std::cout << all.solutions.size() << " solution" << (all.solutions.size() == 1 ? "" : "s") << "\n";
    for (const Eigen::VectorXd& z : all.solutions) {
      std::cout << "  z = " << format_vector(z) << ", w = " << format_vector(M * z + q) << "\n";
    }
    std::cout << coverage_text << ": " << q_text << "\n" << unique_text << "\n";
    std::cout << "classify: " << (p_matrix ? (*p_matrix ? "M is a P-matrix" : "M is not a P-matrix") : "P undecided")
              << "\n";
  }

  if (plot) {
    double extent = std::max(1.0, q.cwiseAbs().maxCoeff());
    for (const Cone& cone : cones) {
      for (const Eigen::Vector2d& g : cone.generators) extent = std::max(extent, g.cwiseAbs().maxCoeff());
    }
    extent *= 1.25;
    Panel panel{.title = "complementary cones of M in q-space",
                .x_label = "q1",
                .y_label = "q2",
                .x_range = std::array<double, 2>{-extent, extent},
                .y_range = std::array<double, 2>{-extent, extent},
                .equal_aspect = true};
    // Each cone in its own colour (the palette's first four hues, distinct), named in the legend:
    // its two edges as lines from the origin and an opaque band at its own radius between them,
    // wider for the cones that hold q. Nothing is translucent, so overlapping cones never blend
    // into a colour of neither.
    for (const Cone& cone : cones) {
      const Rgb color = palette(cone.basis);
      if (cone.degenerate) {
        // A ray or a line: its generators drawn as segments, the first one labelled.
        bool labelled = false;
        for (const Eigen::Vector2d& g : cone.generators) {
          const double n = g.norm();
          if (n == 0) continue;
          panel.series.push_back({labelled ? "" : "cone " + cone.name() + " (no area)", {0, 3 * extent * g.x() / n},
                                  {0, 3 * extent * g.y() / n}, color, 3});
          labelled = true;
        }
        continue;
      }
      for (const Eigen::Vector2d& g : cone.generators) {
        const double n = g.norm();
        panel.series.push_back({"", {0, 3 * extent * g.x() / n}, {0, 3 * extent * g.y() / n}, color, 2});
      }
      const double r0 = extent * (0.3 + 0.16 * cone.basis);
      const double r1 = r0 + extent * (cone.contains_q ? 0.12 : 0.07);
      panel.regions.push_back(
          {"cone " + cone.name() + (cone.contains_q ? " (holds q)" : ""), band(cone, r0, r1), color, 1.0});
    }
    // Each solution as the path 0 -> x1 c1 -> q along the generators of its cone.
    for (std::size_t s = 0; s < all.solutions.size(); ++s) {
      const Eigen::VectorXd& z = all.solutions[s];
      const Eigen::Vector2d w = M * z + q;
      unsigned basis = 0;
      for (int i = 0; i < 2; ++i) basis |= (z[i] > w[i]) ? (1u << i) : 0u;
      const Cone& cone = cones[basis];
      const double x0 = (basis & 1u) ? z[0] : w[0];
      const Eigen::Vector2d corner = x0 * cone.generators[0];
      char label[128];
      std::snprintf(label, sizeof label, "solution z = (%.4g, %.4g)", z[0], z[1]);
      panel.series.push_back({label, {0, corner.x(), q.x()}, {0, corner.y(), q.y()}, palette(cone.basis), 2, true});
    }
    panel.markers.push_back({"q = (" + format_vector(q, 2, 4).substr(1, format_vector(q, 2, 4).size() - 2) + ")",
                             q.x(), q.y(), Rgb{0, 0, 0}});
    panel.notes = {std::to_string(all.solutions.size()) + " solution(s) for this q",
                   q_seen ? "Q: every q covered (as seen)" : "not Q: directions uncovered",
                   unique_seen ? "unique for every q (as seen)" : "overlaps: up to " + std::to_string(max_count) + " solutions",
                   std::string("P-matrix (classify): ") + (p_matrix ? (*p_matrix ? "yes" : "no") : "undecided")};
    Figure figure{.title = "perp cones " + std::filesystem::path(args.file).filename().string(), .width = 900};
    figure.panels.push_back({panel, 640});
    write_figure(figure, args.plot, format);
    if (!args.json) std::cout << "wrote " << args.plot << "\n";
  }
  return 0;
}

}  // namespace perp::cli
