// perp: the command-line tool. Thin: parse arguments, call the library, print.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <string>

#include "classify.hpp"
#include "demo.hpp"
#include "format.hpp"
#include "painleve.hpp"
#include "perp/perp.hpp"
#include "simulate.hpp"

namespace {

using perp::cli::format_vector;

constexpr int kExitSolved = 0;
constexpr int kExitNotSolved = 1;
constexpr int kExitInvalid = 2;

struct SolveArguments {
  std::string file;
  std::string method = "auto";
  double tolerance = perp::SolveOptions{}.tolerance;
  int max_iterations = 0;
  double relaxation = 0;
  const CLI::Option* relaxation_option = nullptr;  // set only when given, so 0 is refused, not ignored
  bool all = false;
  bool json = false;
};

int run_solve(const SolveArguments& args) {
  const perp::Lcp problem = perp::read_lcp_file(args.file);
  perp::SolveOptions options;
  options.tolerance = args.tolerance;
  options.max_iterations = args.max_iterations;
  options.all_solutions = args.all;
  if (args.relaxation_option != nullptr && args.relaxation_option->count() > 0) options.relaxation = args.relaxation;
  const perp::Method method = perp::from_string<perp::Method>(args.method);
  const perp::Result result = perp::solve(problem, method, options);
  if (args.json) {
    std::cout << perp::result_to_json(result) << "\n";
  } else {
    std::cout << args.file << " (n = " << problem.size() << ")\n"
              << result.brief_report() << "\n"
              << result.message << "\n"
              << "z = " << format_vector(result.z) << "\n"
              << "w = " << format_vector(result.w) << "\n";
    if (result.ray) std::cout << "ray (z part) = " << format_vector(*result.ray) << "\n";
    for (std::size_t i = 0; i < result.solutions.size(); ++i) {
      std::cout << "solution " << i + 1 << ": " << format_vector(result.solutions[i]) << "\n";
    }
  }
  return result.solved() ? kExitSolved : kExitNotSolved;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"perp: complementarity problems (LCP) and their solvers"};
  app.require_subcommand(1);

  SolveArguments solve_args;
  CLI::App* solve = app.add_subcommand("solve", "Solve an LCP from a Siconos .dat or a JSON file");
  solve->add_option("FILE", solve_args.file, "problem file: .dat (Siconos) or .json {\"M\": rows, \"q\": [...]}")
      ->required();
  solve->add_option("--method,-m", solve_args.method, "enum, lemke, murty, pgs, psor, newton-fb, newton-min, penalized-fb, smoothing, interior-point or auto")->capture_default_str();
  solve->add_option("--tol", solve_args.tolerance, "tolerance on the natural residual ||min(z, w)||_inf")
      ->capture_default_str();
  solve->add_option("--max-iter", solve_args.max_iterations, "pivot/sweep limit (0 = the method's default)")
      ->capture_default_str();
  solve_args.relaxation_option =
      solve->add_option("--relaxation", solve_args.relaxation, "psor relaxation omega in (0, 2) (default 1.2)");
  solve->add_flag("--all", solve_args.all, "enum: list every distinct solution");
  solve->add_flag("--json", solve_args.json, "print one JSON object instead of a summary");

  perp::cli::ClassifyArguments classify_args;
  CLI::App* classify = perp::cli::add_classify_command(app, classify_args);

  std::string data_dir = PERP_DATA_DIR;
  CLI::App* demo = app.add_subcommand("demo", "Run the chapter's worked examples and a few Siconos problems");
  demo->add_option("--data", data_dir, "folder holding the Siconos corpus (lcp/*.dat)")->capture_default_str();

  perp::cli::SimulateArguments simulate_args;
  CLI::App* simulate =
      app.add_subcommand("simulate", "Run a contact-dynamics scene (JSON) with Moreau-Jean time stepping");
  simulate->add_option("SCENE", simulate_args.scene, "scene file (JSON), see docs/contact.md")->required();
  simulate->add_option("--out", simulate_args.out, "folder for trajectory.csv, contacts.csv, energy.csv, plot.png")
      ->required();
  simulate->add_option("--solver", simulate_args.solver,
                       "LCP method of each step: enum, lemke, murty, pgs, psor, auto");

  perp::cli::PainleveArguments painleve_args;
  CLI::App* painleve =
      app.add_subcommand("painleve", "Painleve's sliding rod: alpha, beta, regime, lambda_N solutions");
  const CLI::Option* theta_option =
      painleve->add_option("--theta", painleve_args.theta, "angle between rod and ground, radians in (0, pi/2)");
  const CLI::Option* mu_option = painleve->add_option("--mu", painleve_args.mu, "Coulomb friction coefficient");
  painleve->add_option("--theta-dot", painleve_args.theta_dot, "d(theta)/dt, rad/s")->capture_default_str();
  painleve->add_option("--mass", painleve_args.mass, "rod mass m")->capture_default_str();
  painleve->add_option("--half-length", painleve_args.half_length, "half the rod length, l")->capture_default_str();
  painleve->add_option("--gravity", painleve_args.gravity, "g (along -y)")->capture_default_str();
  painleve->add_flag("--json", painleve_args.json, "print one JSON object");
  painleve->add_flag("--critical-mu", painleve_args.critical_mu,
                     "the smallest mu with alpha < 0 somewhere, and its theta");
  painleve->add_option("--diagram", painleve_args.diagram, "write the (theta, mu) regime map as a PNG");

  try {
    app.parse(argc, argv);
    painleve_args.theta_given = theta_option->count() > 0;
    painleve_args.mu_given = mu_option->count() > 0;
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kExitInvalid;
  }
  try {
    if (*solve) return run_solve(solve_args);
    if (*demo) return perp::cli::run_demo(data_dir);
    if (*classify) return perp::cli::run_classify(classify_args);
    if (*simulate) return perp::cli::run_simulate(simulate_args);
    if (*painleve) return perp::cli::run_painleve(painleve_args);
  } catch (const perp::InvalidProblem& e) {
    std::cerr << "perp: invalid input: " << e.what() << "\n";
    return kExitInvalid;
  } catch (const std::exception& e) {
    std::cerr << "perp: error: " << e.what() << "\n";
    return kExitInvalid;
  }
  return kExitInvalid;
}
