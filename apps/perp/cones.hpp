#pragma once
#include <string>

namespace CLI {
class App;
}

namespace perp::cli {

struct ConesArguments {
  std::string file;
  std::string plot;
  bool json = false;
};

/// Adds `perp cones FILE [--plot FILE.png|svg] [--json]`.
CLI::App* add_cones_command(CLI::App& app, ConesArguments& args);

/// For an LCP with a 2×2 M: the four complementary cones in q-space ([chapter] §1.2), which of
/// them hold q, the solutions, and what the picture shows of Q (every q covered) and uniqueness
/// (no two cones overlap). Returns 0; throws `InvalidProblem` for another size or type.
int run_cones(const ConesArguments& args);

}  // namespace perp::cli
