#pragma once
#include <string>

namespace perp::cli {

struct PainleveArguments {
  double theta = 0;
  double mu = 0;
  double theta_dot = 0;
  double mass = 1;
  double half_length = 1;
  double gravity = 9.81;
  bool json = false;
  bool critical_mu = false;
  std::string diagram;  ///< PNG path; empty = no diagram
  bool theta_given = false;
  bool mu_given = false;
};

/// `perp painleve`: the rod's α, β, regime and λ_N solutions; `--critical-mu`; `--diagram`.
/// Returns 0; throws `InvalidProblem` for bad or missing arguments.
int run_painleve(const PainleveArguments& args);

}  // namespace perp::cli
