#pragma once
#include <string>

namespace CLI {
class App;
}

namespace perp::cli {

struct ClassifyArguments {
  std::string file;
  bool json = false;
  double tolerance = 1e-10;
  long max_minor_size = 20;
  long max_copositive_size = 12;
  long long max_minor_nodes = 0;
  long long max_copositive_submatrices = 0;
};

/// Adds `perp classify FILE [--json] [--tol T] [--max-minor-size N] [--max-copositive-size N]`.
CLI::App* add_classify_command(CLI::App& app, ClassifyArguments& args);

/// Prints the report (table or JSON) and returns 0; throws `InvalidProblem` for a bad file.
int run_classify(const ClassifyArguments& args);

}  // namespace perp::cli
