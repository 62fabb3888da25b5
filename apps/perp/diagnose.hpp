#pragma once
#include <string>

namespace CLI {
class App;
}

namespace perp::cli {

struct DiagnoseArguments {
  std::string file;
  bool json = false;
  double tolerance = 1e-8;
  double time_limit = 0;  // --time-limit S: each solve it runs (SolveOptions::time_limit); 0 = none
};

/// Adds `perp diagnose FILE [--json] [--tol T] [--time-limit S]`.
CLI::App* add_diagnose_command(CLI::App& app, DiagnoseArguments& args);

/// The troubleshooting table of [chapter] as a command: for a problem file (LCP, box LCP, MLCP, QP,
/// frictional contact) or a scene, the matrix classes and what they imply, a condition estimate,
/// the scaling, the methods in the recommended order with their outcomes and residual-curve
/// shapes, and for a failure the likely causes with evidence and the suggested fixes, each tried.
/// Returns 0 when some method (or the scene's every step) solved, 1 otherwise.
int run_diagnose(const DiagnoseArguments& args);

}  // namespace perp::cli
