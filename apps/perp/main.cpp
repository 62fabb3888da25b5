// perp: the command-line tool. Thin: parse arguments, call the library, print.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <new>
#include <string>

#include "classify.hpp"
#include "cones.hpp"
#include "demo.hpp"
#include "diagnose.hpp"
#include "painleve.hpp"
#include "perp/perp.hpp"
#include "simulate.hpp"
#include "solve.hpp"

namespace {

constexpr int kExitInvalid = 2;
// The machine ran out of memory on a valid input (docs/cli.md, "Limits and exit codes").
constexpr int kExitOutOfMemory = 3;
// Standard output could not be written (a full disk, /dev/full, a closed pipe).
constexpr int kExitWriteError = 4;

// What a command printed must have reached standard output: flushed and checked, since a write
// error is otherwise silent (`perp solve … --json > /dev/full` would exit 0 with nothing written).
int checked_output(int code) {
  std::cout.flush();
  const bool failed = !std::cout || std::fflush(stdout) != 0 || std::ferror(stdout) != 0;
  if (failed) {
    std::cerr << "perp: error: could not write the output to standard output (disk full or closed pipe?)\n";
    return kExitWriteError;
  }
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"perp: complementarity problems (LCP, box LCP, MLCP, QP, frictional contact) and their solvers"};
  app.require_subcommand(1);

  perp::cli::SolveArguments solve_args;
  CLI::App* solve = perp::cli::add_solve_command(app, solve_args);

  perp::cli::ClassifyArguments classify_args;
  CLI::App* classify = perp::cli::add_classify_command(app, classify_args);

  std::string data_dir = PERP_DATA_DIR;
  CLI::App* demo = app.add_subcommand("demo", "Run the worked examples of [chapter] (docs/references.md) and a few Siconos problems");
  CLI::Option* data_option =
      demo->add_option("--data", data_dir, "folder holding the Siconos corpus (lcp/*.dat)")->capture_default_str();

  perp::cli::SimulateArguments simulate_args;
  CLI::App* simulate =
      app.add_subcommand("simulate", "Run a contact-dynamics scene (JSON) with Moreau-Jean time stepping");
  simulate->add_option("SCENE", simulate_args.scene, "scene file (JSON), see docs/contact.md")->required();
  simulate->add_option("--out", simulate_args.out,
                       "folder for trajectory.csv, energy.csv, steps.csv (contacts.csv with --contacts), "
                       "simulation.h5 (--format), plot, view.html")
      ->required();
  // --every's range and --format's names are checked by run_simulate, whose messages name the value.
  simulate->add_option("--every", simulate_args.every,
                       "record every K-th step in the trajectory and energy (steps.csv keeps every step)")
      ->capture_default_str();
  simulate->add_flag("--contacts", simulate_args.contacts, "also write each step's active contacts (contacts.csv)");
  simulate->add_option("--format", simulate_args.format, "csv, hdf5 (one file simulation.h5) or both")
      ->capture_default_str();
  simulate->add_option("--plot", simulate_args.plot, "format of the plot: png, svg or none")
      ->check(CLI::IsMember({"png", "svg", "none"}))
      ->capture_default_str();
  // From the method table, as `solve`'s list: the Coulomb model (default) takes a frictional contact
  // method or an LCP one, the LCP friction models an LCP method (simulate.cpp checks the pair).
  simulate->add_option("--method", simulate_args.method,
                       "method of each step (default: the scene's \"method\", auto); frictional contact (the "
                       "Coulomb model): " +
                           perp::method_names_for(perp::ProblemKind::FrictionContact) +
                           "; LCP (any friction model): " + perp::method_names_for(perp::ProblemKind::Lcp));
  simulate->add_option("--solver", simulate_args.solver, "deprecated spelling of --method (read until the next release)");
  // Their ranges are checked by run_simulate (apply_solve_flags), whose messages name the value.
  simulate->add_option("--tol", simulate_args.tol,
                       "each step's solve tolerance (default: the scene's \"tol\", 1e-10; docs/solvers.md)");
  simulate->add_option("--max-iter", simulate_args.max_iter,
                       "each step's iteration limit (default: the scene's \"max_iter\"; 0 = the method's default)");

  CLI::Option* dump_option = simulate->add_option(
      "--dump", simulate_args.dump,
      "folder for the frictional contact problem of each step not solved (status not solved, or a fallback "
      "taken), as fclib files step-NNNNN.hdf5 that `perp solve` replays");
  // Their ranges are checked by run_simulate, whose messages name the value as given.
  simulate->add_option("--dump-every", simulate_args.dump_every, "with --dump, also every K-th step (0: none)")
      ->needs(dump_option)
      ->capture_default_str();
  simulate->add_option("--dump-max", simulate_args.dump_max, "with --dump, at most this many files (>= 1)")
      ->needs(dump_option)
      ->capture_default_str();

  perp::cli::DiagnoseArguments diagnose_args;
  CLI::App* diagnose = perp::cli::add_diagnose_command(app, diagnose_args);

  perp::cli::ConesArguments cones_args;
  CLI::App* cones = perp::cli::add_cones_command(app, cones_args);

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
  painleve->add_option("--diagram", painleve_args.diagram, "write the (theta, mu) regime map into FILE.png or FILE.svg");

  try {
    app.parse(argc, argv);
    painleve_args.theta_given = theta_option->count() > 0;
    painleve_args.mu_given = mu_option->count() > 0;
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kExitInvalid;
  }
  try {
    if (*solve) return checked_output(perp::cli::run_solve(solve_args));
    if (*demo) {
      std::error_code ignored;
      if (data_option->count() > 0 && !std::filesystem::is_directory(std::filesystem::path(data_dir) / "lcp", ignored)) {
        std::cerr << "perp: warning: --data " << data_dir
                  << ": no lcp/ folder there; the Siconos examples are skipped\n";
      }
      return checked_output(perp::cli::run_demo(data_dir));
    }
    if (*classify) return checked_output(perp::cli::run_classify(classify_args));
    if (*simulate) return checked_output(perp::cli::run_simulate(simulate_args));
    if (*painleve) return checked_output(perp::cli::run_painleve(painleve_args));
    if (*cones) return checked_output(perp::cli::run_cones(cones_args));
    if (*diagnose) return checked_output(perp::cli::run_diagnose(diagnose_args));
  } catch (const perp::InvalidProblem& e) {
    std::cerr << "perp: invalid input: " << e.what() << "\n";
    return kExitInvalid;
  } catch (const std::bad_alloc&) {
    // Never "std::bad_alloc" alone: say which command on which input needed more memory.
    const CLI::App* command = app.get_subcommands().empty() ? nullptr : app.get_subcommands().front();
    const std::string name = command != nullptr ? command->get_name() : std::string("perp");
    std::string input;
    if (*solve) input = solve_args.file;
    if (*classify) input = classify_args.file;
    if (*cones) input = cones_args.file;
    if (*diagnose) input = diagnose_args.file;
    if (*simulate) input = simulate_args.scene;
    std::cerr << "perp: error: out of memory: `perp " << name << "`" << (input.empty() ? "" : " on '" + input + "'")
              << " needs more memory than this machine can give (std::bad_alloc); the problem is too large\n";
    return kExitOutOfMemory;
  } catch (const std::exception& e) {
    std::cerr << "perp: error: " << e.what() << "\n";
    return kExitInvalid;
  }
  return kExitInvalid;
}
