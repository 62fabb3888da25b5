#pragma once
#include <optional>
#include <string>

namespace perp::cli {

struct SimulateArguments {
  std::string scene;
  std::string out;
  /// Any `Method` name; unset = the scene's default (auto).
  std::optional<std::string> solver;
};

/// `perp simulate SCENE.json --out DIR [--solver NAME]`: runs the scene and writes
/// DIR/trajectory.csv, DIR/contacts.csv, DIR/energy.csv and DIR/plot.png. Returns 0 when every
/// step's LCP was solved, 1 otherwise; throws `InvalidProblem` for a bad scene or option.
int run_simulate(const SimulateArguments& args);

}  // namespace perp::cli
