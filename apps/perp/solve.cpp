#include "solve.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <system_error>
#include <variant>
#include <vector>

#include "format.hpp"
#include "games.hpp"
#include "history_plot.hpp"
#include "perp/io/fclib.hpp"
#include "perp/perp.hpp"
#include "perp/solvers/friction_contact.hpp"
#include "trace.hpp"

namespace perp::cli {
namespace {

constexpr int kExitSolved = 0;
constexpr int kExitNotSolved = 1;

// The result object, with the trace array when --trace was given.
std::string json_text(const std::string& result, const nlohmann::ordered_json* trace) {
  return trace != nullptr ? with_trace(result, *trace) : result;
}

void print_common(const SolveArguments& args, const std::string& what, const Result& result) {
  std::cout << args.file << " (" << what << ")\n" << result.brief_report() << "\n" << result.message << "\n";
  if (!args.verbose) return;
  // --verbose: auto's route, then one line per method its chain ran, its message in full.
  if (!result.attempt_order.empty()) std::cout << "auto's route: " << result.attempt_order << "\n";
  for (std::size_t k = 0; k < result.attempts.size(); ++k) {
    const Attempt& a = result.attempts[k];
    std::cout << "  attempt " << k + 1 << ": " << to_string(a.method) << ": " << to_string(a.status) << ", "
              << a.iterations << (a.iterations == 1 ? " iteration" : " iterations") << ", relative residual "
              << a.relative_residual << ": " << a.message << "\n";
  }
}

int report(const SolveArguments& args, const Lcp& problem, const Result& result, const nlohmann::ordered_json* trace) {
  if (args.json) {
    std::cout << json_text(result_to_json(result), trace) << "\n";
  } else {
    print_common(args, "LCP, n = " + std::to_string(problem.size()), result);
    std::cout << "z = " << format_vector(result.z) << "\n"
              << "w = " << format_vector(result.w) << "\n";
    if (result.ray) std::cout << "ray (z part) = " << format_vector(*result.ray) << "\n";
    for (std::size_t i = 0; i < result.solutions.size(); ++i) {
      std::cout << "solution " << i + 1 << ": " << format_vector(result.solutions[i]) << "\n";
    }
  }
  return result.solved() ? kExitSolved : kExitNotSolved;
}

int report(const SolveArguments& args, const BoxLcp& problem, const Result& result,
           const nlohmann::ordered_json* trace) {
  if (args.json) {
    std::cout << json_text(box_lcp_result_to_json(result), trace) << "\n";
  } else {
    print_common(args,
                 "box LCP, n = " + std::to_string(problem.size()) + ", " + std::to_string(problem.friction.size()) +
                     " friction couplings",
                 result);
    std::cout << "z = " << format_vector(result.z) << "\n"
              << "w = " << format_vector(result.w) << "\n";
  }
  return result.solved() ? kExitSolved : kExitNotSolved;
}

int report(const SolveArguments& args, const Mlcp& problem, const Result& result, const nlohmann::ordered_json* trace) {
  if (args.json) {
    std::cout << json_text(mlcp_result_to_json(problem, result), trace) << "\n";
  } else {
    const Eigen::Index n = problem.equalities();
    const Eigen::Index m = problem.complementarities();
    print_common(args, "MLCP, n = " + std::to_string(n) + " equalities, m = " + std::to_string(m) + " pairs",
                 result);
    const MlcpResiduals r = mlcp_residuals(problem, result.z);
    std::cout << "u = " << format_vector(result.z.head(n)) << "\n"
              << "v = " << format_vector(result.z.tail(m)) << "\n"
              << "w = " << format_vector(result.w.tail(m)) << "\n"
              << "equality residual " << r.equality << ", complementarity residual " << r.complementarity << "\n";
  }
  return result.solved() ? kExitSolved : kExitNotSolved;
}

int report(const SolveArguments& args, const Qp& problem, const QpResult& result, const nlohmann::ordered_json* trace) {
  if (args.json) {
    std::cout << json_text(qp_result_to_json(result), trace) << "\n";
  } else {
    print_common(args,
                 "QP, n = " + std::to_string(problem.variables()) +
                     " variables, k = " + std::to_string(problem.constraints()) + " constraints",
                 result.lcp);
    std::cout << "x = " << format_vector(result.x) << "\n"
              << "mu = " << format_vector(result.mu) << "\n"
              << "nu = " << format_vector(result.nu) << "\n"
              << "objective = " << result.objective << "\n";
  }
  return result.solved() ? kExitSolved : kExitNotSolved;
}

/// The four physical criteria, one line.
void print_criteria(const FrictionContactResiduals& c) {
  std::cout << "signorini " << c.signorini << ", coulomb " << c.coulomb << ", complementarity " << c.complementarity
            << ", dissipation " << c.dissipation << "\n";
}

int report(const SolveArguments& args, const FrictionContact& problem, const Result& result,
           const nlohmann::ordered_json* trace) {
  if (args.json) {
    std::cout << json_text(friction_contact_result_to_json(problem, result), trace) << "\n";
  } else {
    print_common(args,
                 "friction contact, d = " + std::to_string(problem.dimension) + ", " +
                     std::to_string(problem.contacts()) + " contacts, n = " + std::to_string(problem.size()),
                 result);
    // Recomputed from r, as the JSON writer does.
    const Eigen::VectorXd u = problem.velocity(result.z);
    const FrictionContactResiduals r = friction_contact_residuals(problem, result.z, u);
    std::cout << "recomputed from r: relative error " << r.relative_error << ", absolute " << r.absolute_error << "\n";
    print_criteria(r);
    std::cout << "r = " << format_vector(result.z) << "\n"
              << "u = " << format_vector(u) << "\n";
  }
  return result.solved() ? kExitSolved : kExitNotSolved;
}

/// The stored solution's and guesses' relative errors, for comparison (those with r of the problem's
/// size; `perp simulate --dump` stores an unsolved step's impulses as a guess).
void print_stored(const FclibFile& file, Eigen::Index n, const std::function<double(const Eigen::VectorXd&)>& error_of) {
  if (file.solution && file.solution->r.size() == n) {
    std::cout << "the file's stored solution: relative error " << error_of(file.solution->r) << "\n";
  }
  for (std::size_t k = 0; k < file.guesses.size(); ++k) {
    if (file.guesses[k].r.size() != n) continue;
    std::cout << "the file's guess " << k << ": relative error " << error_of(file.guesses[k].r) << "\n";
  }
}

/// `perp solve FILE.hdf5`: an fclib file's local or global problem.
int solve_fclib(const SolveArguments& args, const SolveOptions& options, Method method) {
  const FclibFile file = read_fclib(args.file);
  if (const auto* local = std::get_if<FrictionContact>(&file.problem)) {
    const Result result = solve(*local, method, options);
    const int code = report(args, *local, result, nullptr);
    if (!args.json) {
      print_stored(file, local->size(),
                   [&](const Eigen::VectorXd& r) { return friction_contact_residuals(*local, r).relative_error; });
    }
    return code;
  }
  const auto& global = std::get<GlobalFrictionContact>(file.problem);
  Eigen::VectorXd v;
  GlobalFrictionContactResiduals criteria;
  const Result result = solve(global, method, options, v, criteria);
  if (args.json) {
    nlohmann::ordered_json out = nlohmann::ordered_json::parse(result_to_json(result));
    out["v"] = std::vector<double>(v.data(), v.data() + v.size());
    out["r"] = std::vector<double>(result.z.data(), result.z.data() + result.z.size());
    out["u"] = std::vector<double>(result.w.data(), result.w.data() + result.w.size());
    out["equilibrium"] = criteria.equilibrium;
    std::cout << out.dump() << "\n";
  } else {
    print_common(args,
                 "global friction contact, d = " + std::to_string(global.dimension) + ", " +
                     std::to_string(global.contacts()) + (global.contacts() == 1 ? " contact, " : " contacts, ") +
                     std::to_string(global.dofs()) + " dofs",
                 result);
    const FrictionContactResiduals& c = criteria.contact;
    std::cout << "recomputed from (v, r): relative error " << c.relative_error << ", absolute " << c.absolute_error
              << ", equilibrium |M v - H r - q| " << criteria.equilibrium << "\n";
    print_criteria(c);
    print_stored(file, global.size(), [&](const Eigen::VectorXd& r) {
      return global_friction_contact_residuals(global, global_velocity(global, r), r).contact.relative_error;
    });
  }
  return result.solved() ? kExitSolved : kExitNotSolved;
}

// A number option's text must be within the range of a double, as in the problem files: CLI11
// would read "1e-400" as 0 and the message would then say "got 0".
const CLI::Validator kInRange(
    [](std::string& text) -> std::string {
      double value = 0;
      const char* first = text.data() + (text.starts_with('+') ? 1 : 0);
      const auto [stop, error] = std::from_chars(first, text.data() + text.size(), value);
      (void)stop;
      if (error == std::errc::result_out_of_range) return text + " is out of the range of a double (overflow or underflow)";
      return std::string();
    },
    "");

// The numbers of a vector file: separated by whitespace or commas, optionally inside [ ]; each
// must read whole as a finite double. Read in chunks: a NUL byte (a binary file, /dev/zero) is
// refused where it is met, and more than kMaxVectorFileBytes (a pipe or device that never ends)
// where that is passed, so that no input fills the memory (issue 38: /dev/zero used to).
Eigen::VectorXd read_vector_file(const std::string& path, const char* option) {
  constexpr std::size_t kMaxVectorFileBytes = std::size_t{256} << 20;
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored)) {
    throw InvalidProblem(std::string(option) + ": cannot open '" + path + "': it is a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InvalidProblem(std::string(option) + ": cannot open '" + path + "'");
  std::string text;
  std::vector<char> chunk(std::size_t{1} << 16);
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    const auto nul = std::find(chunk.begin(), chunk.begin() + static_cast<std::ptrdiff_t>(got), '\0');
    if (nul != chunk.begin() + static_cast<std::ptrdiff_t>(got)) {
      throw InvalidProblem(std::string(option) + ": '" + path + "' holds a NUL byte at offset " +
                           std::to_string(text.size() + static_cast<std::size_t>(nul - chunk.begin())) +
                           ": expected a text file of numbers");
    }
    if (text.size() + got > kMaxVectorFileBytes) {
      throw InvalidProblem(std::string(option) + ": '" + path + "' holds more than " +
                           std::to_string(kMaxVectorFileBytes) + " bytes (256 MiB), the most perp reads for a vector");
    }
    text.append(chunk.data(), got);
  }
  if (in.bad()) throw InvalidProblem(std::string(option) + ": error while reading '" + path + "'");
  for (char& c : text) {
    if (c == ',' || c == '[' || c == ']') c = ' ';
  }
  std::vector<double> values;
  std::istringstream words(text);
  std::string word;
  while (words >> word) {
    double value = 0;
    const char* first = word.data() + (word.starts_with('+') ? 1 : 0);
    const auto [stop, error] = std::from_chars(first, word.data() + word.size(), value);
    if (error != std::errc() || stop != word.data() + word.size() || !std::isfinite(value)) {
      throw InvalidProblem(std::string(option) + ": entry " + std::to_string(values.size()) + " of '" + path +
                           "' is not a finite number: '" + word + "'");
    }
    values.push_back(value);
  }
  return Eigen::Map<const Eigen::VectorXd>(values.data(), static_cast<Eigen::Index>(values.size()));
}

}  // namespace

CLI::App* add_solve_command(CLI::App& app, SolveArguments& args) {
  CLI::App* solve = app.add_subcommand(
      "solve",
      "Solve an LCP, box LCP, MLCP, QP, frictional contact problem or bimatrix game from a Siconos .dat or a JSON file");
  solve
      ->add_option("FILE", args.file,
                   "problem file: .dat (Siconos LCP, MLCP or FrictionContactProblem), .json (\"type\": lcp, "
                   "box-lcp, mlcp, qp, friction-contact or bimatrix) or an fclib HDF5 file (local or global "
                   "frictional contact)")
      ->required();
  // The method list per problem type, read from the method table (solvers/method.hpp).
  const std::string methods = "LCP: " + method_names_for(ProblemKind::Lcp) +
                              "; box LCP: " + method_names_for(ProblemKind::BoxLcp) +
                              "; MLCP: " + method_names_for(ProblemKind::Mlcp) +
                              "; friction contact: " + method_names_for(ProblemKind::FrictionContact) +
                              "; a QP takes the LCP's; a bimatrix game: lemke-howson";
  solve->add_option("--method,-m", args.method, methods)->capture_default_str();
  solve->add_option("--tol", args.tolerance, "tolerance on the problem's relative residual (docs/solvers.md)")
      ->check(kInRange)
      ->capture_default_str();
  solve->add_option("--max-iter", args.max_iterations, "pivot/sweep/step limit (0 = the method's default)")
      ->capture_default_str();
  args.relaxation_option =
      solve->add_option("--relaxation", args.relaxation, "psor relaxation omega in (0, 2) (default 1.2)")->check(kInRange);
  solve->add_flag("--all", args.all,
                  "enum on an LCP: list every distinct solution; a bimatrix game: Lemke–Howson from every label");
  solve->add_option("--max-solutions", args.max_solutions,
                    "enum --all: stop after N distinct solutions (0 = no limit); the output then says more may exist")
      ->check(CLI::NonNegativeNumber);
  solve->add_option("--time-limit", args.time_limit,
                    "wall-clock limit in seconds for the whole solve, auto's attempts included (0 = none); a run "
                    "that reaches it ends with status time-limit and its last point")
      ->check(CLI::NonNegativeNumber);
  solve->add_flag("--verbose,-v", args.verbose, "also print each method auto tried (status, iterations, residual, message)");
  solve->add_option("--label", args.label,
                    "bimatrix game: the label Lemke–Howson drops first (0 … m + n − 1; default 0)")
      ->check(CLI::NonNegativeNumber);
  solve->add_option(
      "--warm-start", args.warm_start,
      "file of n numbers (whitespace or commas, [ ] allowed): the start z of the iterative methods, r for "
      "a frictional contact problem");
  solve->add_option("--covering", args.covering_vector,
                    "file of n numbers > 0: Lemke's covering vector d (default all ones)");
  solve
      ->add_option("--friction-passes", args.friction_passes,
                   "box LCP with friction couplings: most fixed-box passes of dantzig and the Newton family (>= 1)")
      ->capture_default_str();
  solve->add_flag("--json", args.json, "print one JSON object instead of a summary");
  solve->add_flag("--trace", args.trace,
                  "print every iteration (lemke: basis, entering/leaving, ratio test, z0; pivoting methods: the "
                  "index that changes set; pgs/psor: residual and active set; Newton: merit, step, active and kink "
                  "sets); with --json a \"trace\" array");
  solve->add_option("--plot", args.plot, "draw the residual history into FILE.png or FILE.svg");
  return solve;
}

int run_solve(const SolveArguments& args) {
  if (is_bimatrix_file(args.file)) return run_bimatrix(args);
  if (args.label >= 0) throw InvalidProblem("--label applies to a bimatrix game; " + args.file + " is not one");
  const Problem problem = is_hdf5_file(args.file) ? Problem{} : read_problem_file(args.file);
  if (args.all && !is_hdf5_file(args.file) && !std::holds_alternative<Lcp>(problem)) {
    throw InvalidProblem("--all lists every solution of an LCP by enum; " + args.file + " holds a " +
                         std::string(problem_type(problem)) + " problem");
  }
  SolveOptions options;
  options.tolerance = args.tolerance;
  options.max_iterations = args.max_iterations;
  options.all_solutions = args.all;
  options.max_solutions = args.max_solutions;
  if (args.time_limit > 0) options.time_limit = args.time_limit;
  if (args.relaxation_option != nullptr && args.relaxation_option->count() > 0) options.relaxation = args.relaxation;
  options.max_friction_passes = args.friction_passes;
  // Sizes, signs and finiteness are checked by SolveOptions::validate inside solve, which names the
  // field ("initial_guess", "lemke.covering_vector") and both sizes.
  if (!args.warm_start.empty()) options.initial_guess = read_vector_file(args.warm_start, "--warm-start");
  if (!args.covering_vector.empty())
    options.lemke.covering_vector = read_vector_file(args.covering_vector, "--covering");
  const Method method = from_string<Method>(args.method);
  if (args.all && method != Method::Enum) {
    std::cerr << "perp: warning: --all lists every solution only with --method enum; " << to_string(method)
              << " stops at the first\n";
  }
  if (!args.plot.empty()) (void)plot_format_from_path(args.plot);  // a bad name is refused before solving
  // --trace: text lines as the iterations happen, or the events kept for the JSON object.
  nlohmann::ordered_json trace = nlohmann::ordered_json::array();
  if (args.trace) {
    options.trace = [&](const TraceEvent& event) {
      if (args.json) {
        trace.push_back(trace_event_json(event));
      } else {
        std::cout << trace_event_text(event) << "\n";
      }
    };
  }
  if (is_hdf5_file(args.file)) {
    if (args.trace || !args.plot.empty() || args.all) {
      throw InvalidProblem("--trace, --plot and --all do not apply to an fclib file (" + args.file + ")");
    }
    return solve_fclib(args, options, method);
  }
  return std::visit(
      [&](const auto& p) {
        const auto result = solve(p, method, options);
        if (!args.plot.empty()) write_history_plot(args.plot, args.file, result);
        return report(args, p, result, args.trace ? &trace : nullptr);
      },
      problem);
}

}  // namespace perp::cli
