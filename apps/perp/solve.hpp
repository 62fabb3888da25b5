#pragma once
// perp solve: read any problem file (LCP, box LCP, MLCP, QP, friction contact, bimatrix game), solve it, print
// the result.
#include <CLI/CLI.hpp>
#include <string>

namespace perp::cli {

struct SolveArguments {
  std::string file;
  std::string method = "auto";
  double tolerance = 1e-8;
  int max_iterations = 0;
  double relaxation = 0;
  const CLI::Option* relaxation_option = nullptr;  // set only when given, so 0 is refused, not ignored
  bool all = false;
  int max_solutions = 0;  // --max-solutions: enum --all stops after this many (0 = no limit)
  double time_limit = 0;  // --time-limit S: SolveOptions::time_limit in seconds (0 = none)
  bool verbose = false;   // --verbose: auto's attempts, one line each
  bool json = false;
  bool trace = false;  // --trace: every iteration (SolveOptions::trace), as text or the JSON "trace" array
  /// --plot FILE.png|svg: the convergence history (residual per iteration); empty = none.
  std::string plot;
  std::string warm_start;       // file of numbers: z (r for a frictional problem); empty: none
  std::string covering_vector;  // file of numbers: Lemke's d; empty: all ones
  int friction_passes = 50;     // SolveOptions::max_friction_passes
  int label = -1;               // bimatrix games: Lemke–Howson's dropped label; −1 = unset (0)
};

CLI::App* add_solve_command(CLI::App& app, SolveArguments& args);

/// Exit code: 0 solved, 1 not solved; throws InvalidProblem for bad input.
int run_solve(const SolveArguments& args);

}  // namespace perp::cli
