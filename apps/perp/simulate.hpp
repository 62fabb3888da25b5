#pragma once
#include <optional>
#include <string>

namespace perp::cli {

struct SimulateArguments {
  std::string scene;
  std::string out;
  /// Any `Method` name; unset = the scene's default (auto).
  std::optional<std::string> solver;
  /// "png" (default), "svg" or "none": the format of DIR/plot.*.
  std::string plot = "png";
};

/// `perp simulate SCENE.json --out DIR [--solver NAME] [--plot png|svg|none]`: runs the scene and
/// writes DIR/trajectory.csv, contacts.csv, energy.csv, steps.csv and the plot (plot.png or plot.svg). Returns 0 when every
/// step's LCP was solved, 1 otherwise; throws `InvalidProblem` for a bad scene or option.
int run_simulate(const SimulateArguments& args);

}  // namespace perp::cli
