// Side-by-side timing of perp and Siconos numerics (Debian libsiconos-numerics-dev 4.4) on
// Siconos' own FrictionContactProblem files (data/siconos/fc2d, fc3d):
//   - perp nsgs vs Siconos' NSGS (fc2d_nsgs / fc3d_nsgs with its default local solver), both
//     asked for the same relative error: Siconos first at the target, then perp at the target or
//     at the error Siconos reached when Siconos stalls above it ("to the same relative error");
//   - perp auto at the target vs every Siconos method tried at the target (2D: NSGS, Lemke;
//     3D: NSGS, NSN_AC, PROX), the fastest one that reaches it named.
//
// Each library reads the file with its own reader (Siconos' frictionContact_new_from_filename;
// its 2D driver rejects the CSparse storage of the granular-flow files, which are converted to
// 2×2 sparse blocks first, outside the timed region). Every error in the table is recomputed
// here from the returned r by one formula for both libraries (perp::friction_contact_residuals:
// Siconos' relative error, sqrt(Σ‖r_i − P_K(r_i − û_i)‖²)/max(‖q‖, ‖r‖, ‖u‖)) on perp's copy of
// the problem; the error Siconos reports for itself is printed beside it. Times are
// std::chrono::steady_clock around the solve alone; fast solves (< 20 ms) are repeated and the
// median of 5 is printed.
//
// Each Siconos solve runs in a child process under an address-space limit and a CPU-time limit
// (`--siconos-memory-mib`, default 4096; `--siconos-cpu-seconds`, default 600): on RockPile_tob1
// one of its solvers allocated until the machine killed the whole run. A solve that ends by a
// signal or past a limit is printed as failed, with the signal and the limits, and is never the
// fastest.
//
// Usage: compare_siconos_fc [--tol 1e-8] [--max-iter 100000] [--siconos-memory-mib 4096]
//                           [--siconos-cpu-seconds 600] [FILE...]
//   (default: every file of PERP_FC_DATA_DIR/fc2d and fc3d)
//
// Siconos is a comparison target only: nothing in perp links to it.

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>

#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "perp/perp.hpp"
#include "perp/solvers/friction_contact.hpp"

// Siconos numerics' C API (its headers add the extern "C" themselves).
#include <CSparseMatrix.h>
#include <FrictionContactProblem.h>
#include <Friction_cst.h>
#include <NonSmoothDrivers.h>
#include <NumericsMatrix.h>
#include <SolverOptions.h>
#include <SparseBlockMatrix.h>

namespace {

struct Settings {
  double tolerance = 1e-8;
  int max_iterations = 100000;
  long siconos_memory_mib = 4096;
  long siconos_cpu_seconds = 600;
  std::vector<std::filesystem::path> files;
};

struct Run {
  double ms = 0;
  double error = 0;           // recomputed here from r
  double reported = 0;        // what the solver says of itself
  int iterations = 0;
  bool reached = false;       // error <= the tolerance asked for
  std::string name;
  std::string failure;        // a Siconos solve's child that did not end normally: how it ended
};

double elapsed_ms(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

/// Runs `once` and, when it took under 20 ms, four more times; returns the median time.
double timed(const std::function<void()>& once) {
  auto start = std::chrono::steady_clock::now();
  once();
  const double first = elapsed_ms(start);
  if (first >= 20) return first;
  std::vector<double> times{first};
  for (int k = 0; k < 4; ++k) {
    start = std::chrono::steady_clock::now();
    once();
    times.push_back(elapsed_ms(start));
  }
  std::nth_element(times.begin(), times.begin() + 2, times.end());
  return times[2];
}

/// A Siconos problem read by Siconos, with the 2D CSparse storage turned into 2×2 blocks.
struct SiconosProblem {
  FrictionContactProblem* problem = nullptr;
  explicit SiconosProblem(const std::filesystem::path& path) {
    problem = frictionContact_new_from_filename(path.c_str());
    if (problem == nullptr) {
      std::fprintf(stderr, "Siconos could not read %s\n", path.c_str());
      std::exit(2);
    }
    if (problem->dimension == 2 && problem->M->storageType == NM_SPARSE) {
      SparseBlockStructuredMatrix* blocks = SBM_new();
      if (SBM_from_csparse(2, NM_csc(problem->M), blocks) != 0) {
        std::fprintf(stderr, "SBM_from_csparse failed on %s\n", path.c_str());
        std::exit(2);
      }
      NumericsMatrix* converted = NM_new();
      converted->storageType = NM_SPARSE_BLOCK;
      converted->size0 = problem->M->size0;
      converted->size1 = problem->M->size1;
      converted->matrix1 = blocks;
      NM_free(problem->M);
      problem->M = converted;
    }
  }
  ~SiconosProblem() { frictionContactProblem_free(problem); }
  SiconosProblem(const SiconosProblem&) = delete;
  SiconosProblem& operator=(const SiconosProblem&) = delete;
};

Run run_siconos(const SiconosProblem& data, const perp::FrictionContact& mine, int solver, const char* name,
                double tolerance, int max_iterations) {
  const int n = data.problem->dimension * data.problem->numberOfContacts;
  std::vector<double> r(static_cast<std::size_t>(n));
  std::vector<double> u(static_cast<std::size_t>(n));
  Run run;
  run.name = name;
  SolverOptions* options = nullptr;
  run.ms = timed([&] {
    std::fill(r.begin(), r.end(), 0.0);
    std::fill(u.begin(), u.end(), 0.0);
    if (options != nullptr) solver_options_delete(options);
    options = solver_options_create(solver);
    options->dparam[SICONOS_DPARAM_TOL] = tolerance;
    options->iparam[SICONOS_IPARAM_MAX_ITER] = max_iterations;
    if (data.problem->dimension == 2) {
      (void)fc2d_driver(data.problem, r.data(), u.data(), options);
    } else {
      (void)fc3d_driver(data.problem, r.data(), u.data(), options);
    }
  });
  run.iterations = options->iparam[SICONOS_IPARAM_ITER_DONE];
  run.reported = options->dparam[SICONOS_DPARAM_RESIDU];
  solver_options_delete(options);
  const Eigen::Map<const Eigen::VectorXd> reaction(r.data(), n);
  const Eigen::VectorXd rr = reaction;
  run.error = std::isfinite(rr.sum()) ? perp::friction_contact_residuals(mine, rr).relative_error : INFINITY;
  run.reached = run.error <= tolerance;
  return run;
}

/// `run_siconos` in a child process under the settings' limits (RLIMIT_AS, RLIMIT_CPU); its figures
/// come back through a pipe. A child that ends by a signal or without its figures gives a Run with
/// `failure` set and `reached` false.
Run run_siconos_isolated(const SiconosProblem& data, const perp::FrictionContact& mine, int solver, const char* name,
                         const Settings& settings, int max_iterations) {
  struct Figures {
    double ms, error, reported;
    int iterations, reached;
  };
  Run run;
  run.name = name;
  int channel[2];
  if (pipe(channel) != 0) {
    run.failure = std::string("pipe: ") + std::strerror(errno);
    return run;
  }
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t child = fork();
  if (child < 0) {
    run.failure = std::string("fork: ") + std::strerror(errno);
    close(channel[0]);
    close(channel[1]);
    return run;
  }
  if (child == 0) {
    close(channel[0]);
    const rlim_t bytes = static_cast<rlim_t>(settings.siconos_memory_mib) * 1024 * 1024;
    const rlimit memory{bytes, bytes};
    const rlimit cpu{static_cast<rlim_t>(settings.siconos_cpu_seconds), static_cast<rlim_t>(settings.siconos_cpu_seconds)};
    setrlimit(RLIMIT_AS, &memory);
    setrlimit(RLIMIT_CPU, &cpu);
    const Run done = run_siconos(data, mine, solver, name, settings.tolerance, max_iterations);
    const Figures figures{done.ms, done.error, done.reported, done.iterations, done.reached ? 1 : 0};
    const bool sent = write(channel[1], &figures, sizeof figures) == static_cast<ssize_t>(sizeof figures);
    close(channel[1]);
    _exit(sent ? 0 : 3);
  }
  close(channel[1]);
  Figures figures{};
  std::size_t got = 0;
  while (got < sizeof figures) {
    const ssize_t n = read(channel[0], reinterpret_cast<char*>(&figures) + got, sizeof figures - got);
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  close(channel[0]);
  int status = 0;
  waitpid(child, &status, 0);
  const std::string limits = "under " + std::to_string(settings.siconos_memory_mib) + " MiB of address space and " +
                             std::to_string(settings.siconos_cpu_seconds) + " s of CPU";
  if (WIFSIGNALED(status)) {
    const int signal = WTERMSIG(status);
    run.failure = std::string("killed by ") + (signal == SIGXCPU ? "SIGXCPU (the CPU limit)" : strsignal(signal)) + " " +
                  limits;
  } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || got != sizeof figures) {
    run.failure = "exit status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + " " + limits;
  }
  if (!run.failure.empty()) return run;
  run.ms = figures.ms;
  run.error = figures.error;
  run.reported = figures.reported;
  run.iterations = figures.iterations;
  run.reached = figures.reached != 0;
  return run;
}

Run run_perp(const perp::FrictionContact& problem, perp::Method method, double tolerance, int max_iterations) {
  perp::SolveOptions options;
  options.tolerance = tolerance;
  options.max_iterations = max_iterations;
  perp::Result result;
  Run run;
  run.ms = timed([&] { result = perp::solve(problem, method, options); });
  run.name = perp::to_string(result.method);
  run.iterations = result.iterations;
  run.reported = result.residual;
  run.error = perp::friction_contact_residuals(problem, result.z).relative_error;
  run.reached = run.error <= tolerance && result.solved();
  return run;
}

std::string cell(const Run& run) {
  if (!run.failure.empty()) return "failed: " + run.failure;
  char buffer[160];
  std::snprintf(buffer, sizeof buffer, "%.3g ms, %d it, %.1e%s", run.ms, run.iterations, run.error,
                run.reached ? "" : " (not reached)");
  return buffer;
}

long peak_resident_kib(int who) {
  rusage usage{};
  getrusage(who, &usage);
  return usage.ru_maxrss;
}

Settings parse(int argc, char** argv) {
  Settings settings;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--tol" && i + 1 < argc) {
      settings.tolerance = std::strtod(argv[++i], nullptr);
    } else if (arg == "--max-iter" && i + 1 < argc) {
      settings.max_iterations = std::atoi(argv[++i]);
    } else if (arg == "--siconos-memory-mib" && i + 1 < argc) {
      settings.siconos_memory_mib = std::atol(argv[++i]);
    } else if (arg == "--siconos-cpu-seconds" && i + 1 < argc) {
      settings.siconos_cpu_seconds = std::atol(argv[++i]);
    } else if (arg.rfind("--", 0) == 0) {
      std::fprintf(stderr,
                   "usage: compare_siconos_fc [--tol T] [--max-iter N] [--siconos-memory-mib M] "
                   "[--siconos-cpu-seconds S] [FILE...]\n");
      std::exit(2);
    } else {
      settings.files.emplace_back(arg);
    }
  }
  if (settings.siconos_memory_mib < 64 || settings.siconos_cpu_seconds < 1) {
    std::fprintf(stderr, "--siconos-memory-mib: at least 64; --siconos-cpu-seconds: at least 1\n");
    std::exit(2);
  }
  if (settings.files.empty()) {
    for (const char* sub : {"fc2d", "fc3d"}) {
      std::vector<std::filesystem::path> found;
      for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(PERP_FC_DATA_DIR) / sub)) {
        if (entry.path().extension() == ".dat") found.push_back(entry.path());
      }
      std::sort(found.begin(), found.end());
      settings.files.insert(settings.files.end(), found.begin(), found.end());
    }
  }
  return settings;
}

}  // namespace

int main(int argc, char** argv) {
  const Settings settings = parse(argc, argv);
  std::printf("tolerance %.0e, at most %d iterations a solve\n\n", settings.tolerance, settings.max_iterations);
  std::printf("| file | d | nc | nnz(W) | Siconos NSGS | perp nsgs (same error) | nsgs speed-up | perp auto | "
              "fastest Siconos at tol | auto speed-up |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
  std::vector<std::string> failures;  // Siconos solves whose child did not end normally
  for (const auto& path : settings.files) {
    const perp::FrictionContact mine = perp::read_siconos_friction_contact(path);
    const SiconosProblem theirs(path);
    const bool planar = mine.dimension == 2;
    const Run siconos_nsgs = run_siconos_isolated(
        theirs, mine, planar ? SICONOS_FRICTION_2D_NSGS : SICONOS_FRICTION_3D_NSGS, "NSGS", settings,
        settings.max_iterations);
    // "To the same relative error": the target, or what Siconos' NSGS reached when it stalled above it.
    const double same = siconos_nsgs.failure.empty() ? std::max(settings.tolerance, siconos_nsgs.error)
                                                      : settings.tolerance;
    const Run perp_nsgs = run_perp(mine, perp::Method::Nsgs, same, settings.max_iterations);
    const Run perp_auto = run_perp(mine, perp::Method::Auto, settings.tolerance, settings.max_iterations);

    std::vector<Run> others{siconos_nsgs};
    if (planar) {
      if (mine.size() <= 2000) {
        others.push_back(
            run_siconos_isolated(theirs, mine, SICONOS_FRICTION_2D_LEMKE, "Lemke", settings, settings.max_iterations));
      }
    } else {
      others.push_back(run_siconos_isolated(theirs, mine, SICONOS_FRICTION_3D_NSN_AC, "NSN_AC", settings,
                                            std::min(settings.max_iterations, 1000)));
      others.push_back(
          run_siconos_isolated(theirs, mine, SICONOS_FRICTION_3D_PROX, "PROX", settings, settings.max_iterations));
    }
    for (const Run& run : others) {
      if (!run.failure.empty()) failures.push_back(path.filename().string() + ", Siconos " + run.name + ": " + run.failure);
    }
    const Run* fastest = nullptr;
    for (const Run& run : others) {
      if (run.reached && (fastest == nullptr || run.ms < fastest->ms)) fastest = &run;
    }
    char nsgs_ratio[32] = "-";
    if (perp_nsgs.reached && siconos_nsgs.failure.empty()) {
      std::snprintf(nsgs_ratio, sizeof nsgs_ratio, "%.2f", siconos_nsgs.ms / perp_nsgs.ms);
    }
    char auto_ratio[32] = "- (none reached it)";
    if (fastest != nullptr && perp_auto.reached) {
      std::snprintf(auto_ratio, sizeof auto_ratio, "%.2f", fastest->ms / perp_auto.ms);
    }
    std::printf("| %s | %d | %ld | %ld | %s | %s | %s | %s: %s | %s | %s |\n", path.filename().c_str(), mine.dimension,
                static_cast<long>(mine.contacts()), static_cast<long>(mine.W.nonZeros()), cell(siconos_nsgs).c_str(),
                cell(perp_nsgs).c_str(), nsgs_ratio, perp_auto.name.c_str(), cell(perp_auto).c_str(),
                fastest != nullptr ? (fastest->name + ": " + cell(*fastest)).c_str() : "none",
                auto_ratio);
    std::fflush(stdout);
  }
  if (!failures.empty()) {
    std::printf("\nSiconos solves that did not end normally (not counted as reaching the tolerance):\n");
    for (const std::string& line : failures) std::printf("- %s\n", line.c_str());
  }
  std::printf("\npeak resident memory: %ld MiB (this process), %ld MiB (the largest Siconos child)\n",
              peak_resident_kib(RUSAGE_SELF) / 1024, peak_resident_kib(RUSAGE_CHILDREN) / 1024);
  return 0;
}
