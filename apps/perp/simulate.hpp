#pragma once
#include <array>
#include <csignal>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "perp/core/error.hpp"
#include "perp/io/simulation.hpp"

namespace perp::cli {

struct SimulateArguments {
  std::string scene;
  std::string out;
  /// --method NAME: any `Method` name; unset = the scene's "method" (default auto).
  std::optional<std::string> method;
  /// --solver NAME: the deprecated spelling of --method (read for one release, with a warning on
  /// stderr; both given: refused).
  std::optional<std::string> solver;
  /// --tol T: each step's solve tolerance (finite, > 0); unset = the scene's "tol" (default 1e-10).
  std::optional<double> tol;
  /// --max-iter N: each step's iteration limit (>= 0, 0: the method's); unset = the scene's "max_iter".
  std::optional<long> max_iter;
  /// "png" (default), "svg" or "none": the format of DIR/plot.*.
  std::string plot = "png";
  /// --dump DIR: each step whose frictional contact problem was not solved, as DIR/step-NNNNN.hdf5
  /// (fclib); empty = none.
  std::string dump;
  /// --dump-every K: also every K-th step (0 = only the unsolved ones).
  long dump_every = 0;
  /// --dump-max N: at most N files.
  long dump_max = 1000;
  /// --every K: record every K-th step in trajectory and energy (>= 1).
  long every = 1;
  /// --contacts: write contacts.csv (or simulation.h5's contacts group).
  bool contacts = false;
  /// --format csv|hdf5|both.
  std::string format = "csv";
};

/// The output options of `args` (--every, --contacts, --format); throws `InvalidProblem` naming a
/// bad value ("--every 0: …", "--format xyz: …").
[[nodiscard]] SimulationOutputOptions output_options(const SimulateArguments& args);

/// The method flag as given, "--method NAME" (or the deprecated "--solver NAME", with its warning
/// line on stderr), and its name; nullopt without either. Throws `InvalidProblem` when both are given.
[[nodiscard]] std::optional<std::pair<std::string, std::string>> method_flag(const SimulateArguments& args);

/// --tol and --max-iter into the step options `solve` (a SolveOptions), over the scene's "tol" and
/// "max_iter"; throws `InvalidProblem` naming the flag and its value when out of range.
template <class Solve>
void apply_solve_flags(const SimulateArguments& args, Solve& solve) {
  if (args.tol) {
    if (!(*args.tol > 0) || !(*args.tol <= std::numeric_limits<double>::max())) {
      throw InvalidProblem("--tol " + number_text(*args.tol) + ": the tolerance must be finite and > 0");
    }
    solve.tolerance = *args.tol;
  }
  if (args.max_iter) {
    if (*args.max_iter < 0 || *args.max_iter > std::numeric_limits<int>::max()) {
      throw InvalidProblem("--max-iter " + std::to_string(*args.max_iter) + ": expected an integer in [0, " +
                           std::to_string(std::numeric_limits<int>::max()) + "] (0: the method's own limit)");
    }
    solve.max_iterations = static_cast<int>(*args.max_iter);
  }
}

/// A run stopped by SIGINT, SIGTERM or SIGHUP (thrown by `stop_if_signalled`; no std::exception).
struct Stopped {
  int signal;
};
/// Throws `Stopped` when one of those signals arrived since the `StopHandlers` were set.
void stop_if_signalled();
/// Those signals noted (not acted on) for the lifetime of a run, the earlier handlers restored
/// after; a second signal ends the process at once.
class StopHandlers {
 public:
  StopHandlers();
  StopHandlers(const StopHandlers&) = delete;
  StopHandlers& operator=(const StopHandlers&) = delete;
  ~StopHandlers();

 private:
  static constexpr std::array<int, 3> kSignals = {SIGINT, SIGTERM, SIGHUP};
  std::array<struct sigaction, 3> previous_{};
};
/// Says on stderr that --out (and --dump) are as they were; returns the exit status 128 + signal.
int stopped_exit(const Stopped& stopped, const SimulateArguments& args);
/// --dump-every, --dump-max, and --dump apart from --out (each folder is replaced as a whole).
void check_dump_arguments(const SimulateArguments& args);
/// The summary lines of --dump (nothing without it).
void print_dumps(const SimulateArguments& args, long dumped, long left_out, long first_left_out);
/// The summary's note on the steps that fell back (nothing when none did).
void print_fallbacks(long fallbacks);

/// `perp simulate SCENE.json --out DIR [--method NAME] [--tol T] [--max-iter N] [--plot png|svg|none] [--every K] [--contacts]
/// [--format csv|hdf5|both] [--dump DIR2 [--dump-every K] [--dump-max N]]`: runs the scene and
/// writes DIR/trajectory.csv, energy.csv, steps.csv (contacts.csv with --contacts; simulation.h5 with
/// --format hdf5 or both), the plot (plot.png or plot.svg) and view.html. Returns 0 when every
/// step's LCP was solved, 1 otherwise; throws `InvalidProblem` for a bad scene or option.
int run_simulate(const SimulateArguments& args);

/// The same for a scene with "dimension": 3 (io/scene3d.hpp): writes DIR/trajectory.csv,
/// energy.csv, steps.csv, contacts.csv and simulation.h5 as asked (io/simulation3d.hpp) and view.html
/// (io/viewer3d.hpp; left out, with a note on stderr, where three.js cannot be read), and with --dump
/// the steps' problems as in 2D; no plot yet. Returns 0 when every step was solved, 1 otherwise.
int run_simulate3d(const SimulateArguments& args);

/// A folder as the summary prints it before "/{files}": `folder` without its trailing slashes
/// ("out/" and "out//" print "out", so the line reads "wrote out/{...}", not "out//{...}").
[[nodiscard]] inline std::string folder_text(std::string folder) {
  while (!folder.empty() && folder.back() == '/') folder.pop_back();
  return folder;
}

}  // namespace perp::cli
