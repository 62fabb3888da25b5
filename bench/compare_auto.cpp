// perp `auto` against every anchor in one process: Siconos numerics 4.4 (lcp_lexicolemke,
// lcp_pivot, lcp_pgs, lcp_newton_FB, lcp_newton_minFB) and Bullet 3.24 in double precision
// (btSolveDantzigLCP, btSolveProjectedGaussSeidel, btLemkeAlgorithm; Debian's bullet-float64),
// on the spd and contact families of problems.hpp (n = 10, 100, 200, 500, 1000) and on every
// Siconos LCP file in data/siconos/lcp.
//
// Everything asks for tolerance 1e-10 (Siconos: its relative error ‖·‖₂/‖q‖₂; Bullet PGS: the
// squared change of a sweep below 1e-20; perp: the relative natural residual). Every returned z is
// judged here the same way: perp::relative_residual of z with w = M z + q recomputed in double; an
// anchor counts as solved at <= 1e-8 (and its residual is printed), perp only at its tolerance.
// The fastest anchor is the fastest that solves. Timing: after untimed warm-up runs, the
// solvers of a problem run in turn for k rounds (odd, 3 to 101, about 3 s a problem), so that load
// changes hit all alike; each figure is a median (and the fastest run is printed too: on a shared
// machine it is the figure least disturbed by other load). Solvers within 100 times the fastest get
// a second warm-up run. Solvers that do not solve in the warm-up, or whose (faster) warm-up run takes
// more than 10 times the fastest solver's, are not timed again (runs = 1: that warm-up time is
// printed); perp auto is always timed.
//
// Last, the fixed cost of small solves (issue 19): µs per solve over a loop of 10^5 solves (5
// batches of 20 000, the median batch) on every problem with n <= 10 (the families at n = 10 and
// the files with n <= 9): perp auto and perp lemke through `solve`, the bare Lemke kernel
// (`solve_lemke`, private to the library: no validation, no pipeline), Siconos' lemke, pivot and pgs,
// Bullet's Dantzig, and perp auto into one reused `Result` (`solve(problem, method, options, result)`).
// Each loop iteration includes the solver's setup (zeroing z; Bullet: copying A and b, which it
// overwrites) and, for perp by value, the move-assignment of the `Result` (freeing the previous one's
// vectors). Solvers other than perp auto are timed only where they solve.
//
// Usage: compare_auto [max_n [small]]   (families up to max_n, default 1000; the files always;
//                                          with `small`, only the small-solve table)
//
// Siconos and Bullet are comparison targets only: nothing in perp links to them.

#include <BulletDynamics/MLCPSolvers/btDantzigLCP.h>
#include <BulletDynamics/MLCPSolvers/btLemkeAlgorithm.h>
#include <BulletDynamics/MLCPSolvers/btSolveProjectedGaussSeidel.h>
#include <LCP_Solvers.h>
#include <LinearComplementarityProblem.h>
#include <NumericsMatrix.h>
#include <NumericsVerbose.h>
#include <SolverOptions.h>
#include <lcp_cst.h>

#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "../src/solvers/pivoting/lemke.hpp"  // the bare kernel, for the small-solve table
#include "perp/perp.hpp"
#include "problems.hpp"
#include "siconos_lcp.hpp"

namespace {

constexpr double kTolerance = 1e-10;
constexpr double kAnchorSolved = 1e-8;
constexpr double kProblemBudgetMs = 3000;
constexpr int kMinRounds = 3;
constexpr int kMaxRounds = 101;
constexpr int kIterationLimit = 10000;
constexpr double kSlowFactor = 10;

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// One contestant: `setup` (untimed) then `solve` (timed); `z` reads back the point it returned.
struct Contestant {
  std::string name;
  std::function<void()> setup;
  std::function<void()> solve;
  std::function<Eigen::VectorXd()> z;
  std::function<std::string()> note;  // iterations or the route, after the last run
  double ms = 0;                      // median of the timed runs
  double best_ms = 0;                 // fastest of them (the figure least disturbed by other load)
  double relative = 0;
  bool solved = false;
  bool timed = false;  // timed in the rounds (else `ms` is the one warm-up run)
};

double time_once(Contestant& c) {
  c.setup();
  const double start = now_ms();
  c.solve();
  return now_ms() - start;
}

/// Warm-up, judging, then round-robin medians of the contestants that solved.
void run_all(const perp::Lcp& problem, std::vector<Contestant>& contestants, bool perp_exact, int& rounds) {
  double warm = 0;
  double first_fastest = std::numeric_limits<double>::infinity();
  for (Contestant& c : contestants) {
    c.ms = time_once(c);
    first_fastest = std::min(first_fastest, c.ms);
  }
  for (Contestant& c : contestants) {
    // A second warm-up run where a load spike could have decided (within 100× of the fastest).
    if (c.ms <= 100 * first_fastest) c.ms = std::min(c.ms, time_once(c));
    const Eigen::VectorXd z = c.z();
    const Eigen::VectorXd w = problem.M * z + problem.q;
    c.relative = z.allFinite() && z.size() == problem.size() ? perp::relative_residual(problem, z, w)
                                                             : std::numeric_limits<double>::infinity();
    const bool is_perp = c.name.rfind("perp", 0) == 0;
    c.solved = c.relative <= (is_perp && perp_exact ? kTolerance : kAnchorSolved);
  }
  // Contestants more than kSlowFactor times slower than the fastest solving one in the warm-up keep
  // their warm-up time (one run, marked in the table): timing them again would change nothing.
  double fastest = std::numeric_limits<double>::infinity();
  for (const Contestant& c : contestants) {
    if (c.solved) fastest = std::min(fastest, c.ms);
  }
  for (Contestant& c : contestants) {
    c.timed = c.solved && (&c == &contestants.front() || c.ms <= kSlowFactor * fastest);  // auto always
    if (c.timed) warm += c.ms;
  }
  rounds = std::clamp(static_cast<int>(kProblemBudgetMs / std::max(warm, 1e-3)), kMinRounds, kMaxRounds);
  if (rounds % 2 == 0) --rounds;
  std::vector<std::vector<double>> times(contestants.size());
  for (int r = 0; r < rounds; ++r) {
    for (std::size_t k = 0; k < contestants.size(); ++k) {
      if (contestants[k].timed) times[k].push_back(time_once(contestants[k]));
    }
  }
  for (std::size_t k = 0; k < contestants.size(); ++k) {
    if (times[k].empty()) {
      contestants[k].best_ms = contestants[k].ms;
      continue;
    }
    auto middle = times[k].begin() + static_cast<std::ptrdiff_t>(times[k].size() / 2);
    std::nth_element(times[k].begin(), middle, times[k].end());
    contestants[k].ms = *middle;
    contestants[k].best_ms = *std::min_element(times[k].begin(), times[k].end());
  }
}

// ---- Siconos -----------------------------------------------------------------------------------

using SiconosSolve = void (*)(LinearComplementarityProblem*, double*, double*, int*, SolverOptions*);

/// A Siconos solver as a contestant; the state lives in a shared block kept by the lambdas.
Contestant siconos(const perp::Lcp& problem, const char* name, int id, SiconosSolve run) {
  struct State {
    explicit State(const perp::Lcp& p) : lcp(p) {}
    perp::bench::SiconosLcp lcp;
    perp::bench::SiconosOptions options;
    Eigen::VectorXd z, w;
    int info = 0;
  };
  auto state = std::make_shared<State>(problem);
  state->options.reset(solver_options_create(id));
  state->options->iparam[SICONOS_IPARAM_MAX_ITER] = kIterationLimit;
  state->options->dparam[SICONOS_DPARAM_TOL] = kTolerance;
  state->z = Eigen::VectorXd::Zero(problem.size());
  state->w = Eigen::VectorXd::Zero(problem.size());
  Contestant c;
  c.name = std::string("siconos ") + name;
  c.setup = [state] { state->z.setZero(); };
  c.solve = [state, run] {
    run(state->lcp.get(), state->z.data(), state->w.data(), &state->info, state->options.get());
  };
  c.z = [state] { return state->z; };
  c.note = [state] {
    return std::to_string(state->options->iparam[SICONOS_IPARAM_ITER_DONE]) + " it, info " +
           std::to_string(state->info);
  };
  return c;
}

void add_siconos(const perp::Lcp& problem, std::vector<Contestant>& out) {
  out.push_back(siconos(problem, "lemke", SICONOS_LCP_LEMKE, lcp_lexicolemke));
  out.push_back(siconos(problem, "pivot", SICONOS_LCP_PIVOT, lcp_pivot));
  out.push_back(siconos(problem, "pgs", SICONOS_LCP_PGS, lcp_pgs));
  out.push_back(siconos(problem, "newton-fb", SICONOS_LCP_NEWTON_FB_FBLSA, lcp_newton_FB));
  out.push_back(siconos(problem, "newton-minfb", SICONOS_LCP_NEWTON_MIN_FBLSA, lcp_newton_minFB));
}

// ---- Bullet (double) ---------------------------------------------------------------------------

void add_bullet(const perp::Lcp& problem, std::vector<Contestant>& out) {
  const int n = static_cast<int>(problem.size());
  const auto size = static_cast<std::size_t>(n);
  // Dantzig: A x = b + w, A row by row, b = −q, bounds [0, ∞).
  struct Dantzig {
    std::vector<btScalar> A0, b0, A, b, lo, hi, x, w;
    btDantzigScratchMemory scratch;
  };
  auto d = std::make_shared<Dantzig>();
  d->A0.resize(size * size);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) d->A0[static_cast<std::size_t>(i * n + j)] = problem.M(i, j);
  }
  d->b0.resize(size);
  for (int i = 0; i < n; ++i) d->b0[static_cast<std::size_t>(i)] = -problem.q[i];
  d->x.assign(size, 0.0);
  d->w.assign(size, 0.0);
  Contestant dantzig;
  dantzig.name = "bullet dantzig";
  dantzig.setup = [d, size] {
    d->A = d->A0;
    d->b = d->b0;
    d->lo.assign(size, 0.0);
    d->hi.assign(size, BT_INFINITY);
    std::fill(d->x.begin(), d->x.end(), 0.0);
  };
  dantzig.solve = [d, n] {
    (void)btSolveDantzigLCP(n, d->A.data(), d->x.data(), d->b.data(), d->w.data(), 0, d->lo.data(), d->hi.data(),
                            nullptr, d->scratch);
  };
  dantzig.z = [d] { return Eigen::Map<const Eigen::VectorXd>(d->x.data(), static_cast<Eigen::Index>(d->x.size())); };
  dantzig.note = [] { return std::string("-"); };
  out.push_back(dantzig);

  struct Matrix {
    btMatrixXu A;
    btVectorXu b, x, lo, hi;
    btAlignedObjectArray<int> dependency;
    btSolveProjectedGaussSeidel pgs;
  };
  auto m = std::make_shared<Matrix>();
  m->A.resize(n, n);
  m->A.setZero();
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (problem.M(i, j) != 0.0) m->A.setElem(i, j, problem.M(i, j));
    }
  }
  m->b.resize(n);
  m->x.resize(n);
  m->lo.resize(n);
  m->hi.resize(n);
  for (int i = 0; i < n; ++i) {
    m->b[i] = -problem.q[i];
    m->lo[i] = 0.0;
    m->hi[i] = BT_INFINITY;
  }
  m->dependency.resize(n, -1);
  m->pgs.m_leastSquaresResidualThreshold = kTolerance * kTolerance;
  Contestant pgs;
  pgs.name = "bullet pgs";
  pgs.setup = [m] { m->x.setZero(); };
  pgs.solve = [m] { (void)m->pgs.solveMLCP(m->A, m->b, m->x, m->lo, m->hi, m->dependency, kIterationLimit, true); };
  pgs.z = [m] {
    Eigen::VectorXd z(m->x.rows());
    for (int i = 0; i < m->x.rows(); ++i) z[i] = m->x[i];
    return z;
  };
  pgs.note = [] { return std::string("-"); };
  out.push_back(pgs);

  struct Lemke {
    btMatrixXu M;
    btVectorXu q, solution;
    std::unique_ptr<btLemkeAlgorithm> lemke;
  };
  auto l = std::make_shared<Lemke>();
  l->M = m->A;
  l->q.resize(n);
  for (int i = 0; i < n; ++i) l->q[i] = problem.q[i];
  Contestant lemke;
  lemke.name = "bullet lemke";
  lemke.setup = [l] { l->lemke = std::make_unique<btLemkeAlgorithm>(l->M, l->q); };
  lemke.solve = [l] { l->solution = l->lemke->solve(static_cast<unsigned>(kIterationLimit)); };
  lemke.z = [l, n] {
    Eigen::VectorXd z = Eigen::VectorXd::Zero(n);
    if (l->solution.rows() == 2 * n) {
      for (int i = 0; i < n; ++i) z[i] = l->solution[n + i];
    }
    return z;
  };
  lemke.note = [l] {
    return std::to_string(l->lemke->getSteps()) + " steps, info " + std::to_string(l->lemke->getInfo());
  };
  out.push_back(lemke);
}

// ---- perp --------------------------------------------------------------------------------------

/// A perp contestant: `run(options, result)` solves into the Result kept between calls, at
/// kTolerance without history and without reading the clock (measure_time off: the anchors' kernels
/// time nothing, and the harness times the batches); its note is the returned method and its
/// iterations.
Contestant perp_contestant(std::string name, std::function<void(const perp::SolveOptions&, perp::Result&)> run) {
  auto result = std::make_shared<perp::Result>();
  perp::SolveOptions options;
  options.tolerance = kTolerance;
  options.record_history = false;
  options.measure_time = false;
  Contestant c;
  c.name = std::move(name);
  c.setup = [] {};
  c.solve = [result, options, solve_into = std::move(run)] { solve_into(options, *result); };
  c.z = [result] { return result->z; };
  c.note = [result] { return perp::to_string(result->method) + ", " + std::to_string(result->iterations) + " it"; };
  return c;
}

Contestant perp_method(const perp::Lcp& problem, perp::Method method) {
  return perp_contestant("perp " + perp::to_string(method),
                         [&problem, method](const perp::SolveOptions& options, perp::Result& result) {
                           result = perp::solve(problem, method, options);
                         });
}

struct Summary {
  std::string name;
  double auto_ms = 0;
  double anchor_ms = 0;
  double auto_best = 0;
  double anchor_best = 0;
  std::string anchor;
  bool auto_solved = false;
};

Summary compare(const std::string& label, const perp::Lcp& problem, bool bullet, bool print_all) {
  std::vector<Contestant> contestants;
  contestants.push_back(perp_method(problem, perp::Method::Auto));
  add_siconos(problem, contestants);
  if (bullet) add_bullet(problem, contestants);
  // For reference (not anchors): perp's own pivoting, Newton and splitting methods.
  for (const perp::Method method : {perp::Method::Lemke, perp::Method::Dantzig, perp::Method::NewtonMin,
                                    perp::Method::BlockPivoting, perp::Method::Pgs}) {
    contestants.push_back(perp_method(problem, method));
  }
  int rounds = 0;
  run_all(problem, contestants, true, rounds);
  Summary s;
  s.name = label;
  s.auto_ms = contestants[0].ms;
  s.auto_best = contestants[0].best_ms;
  s.anchor_best = std::numeric_limits<double>::infinity();
  s.auto_solved = contestants[0].solved;
  s.anchor_ms = std::numeric_limits<double>::infinity();
  for (std::size_t k = 1; k < contestants.size(); ++k) {
    const bool anchor = contestants[k].name.rfind("perp", 0) != 0;
    if (anchor && contestants[k].solved && contestants[k].ms < s.anchor_ms) {
      s.anchor_ms = contestants[k].ms;
      s.anchor = contestants[k].name;
    }
    if (anchor && contestants[k].solved) s.anchor_best = std::min(s.anchor_best, contestants[k].best_ms);
  }
  if (print_all) {
    for (const Contestant& c : contestants) {
      std::printf("%-22s %-22s %5d %10.4f %10.4f %10.2e %-8s %s\n", label.c_str(), c.name.c_str(), c.timed ? rounds : 1,
                  c.ms, c.best_ms, c.relative, c.solved ? "solved" : "NOT", c.note().c_str());
    }
  }
  std::printf("%-22s auto %.4f ms (%s), fastest anchor %s %.4f ms: anchor/auto = %.2f\n\n", label.c_str(), s.auto_ms,
              s.auto_solved ? "solved" : "NOT solved", s.anchor.empty() ? "(none solved)" : s.anchor.c_str(),
              s.anchor_ms, s.anchor_ms / s.auto_ms);
  std::fflush(stdout);
  return s;
}

// ---- the fixed cost of small solves -----------------------------------------------------------

/// µs per call of `c` (setup and solve) over kSmallBatches batches of kSmallBatch calls: the
/// median batch.
constexpr int kSmallBatches = 5;
constexpr int kSmallBatch = 20000;
double small_us(Contestant& c) {
  std::vector<double> batches;
  for (int b = 0; b < kSmallBatches; ++b) {
    const double start = now_ms();
    for (int k = 0; k < kSmallBatch; ++k) {
      c.setup();
      c.solve();
    }
    batches.push_back((now_ms() - start) * 1000.0 / kSmallBatch);
  }
  std::nth_element(batches.begin(), batches.begin() + kSmallBatches / 2, batches.end());
  return batches[kSmallBatches / 2];
}

/// perp auto solving into one Result reused from call to call (`solve(problem, method, options,
/// result)`): where auto's stack routes answer, z, w and the history keep their storage, as Siconos'
/// and Bullet's kernels write into the caller's arrays.
Contestant perp_in_place(const perp::Lcp& problem) {
  return perp_contestant("perp auto, in place", [&problem](const perp::SolveOptions& options, perp::Result& result) {
    perp::solve(problem, perp::Method::Auto, options, result);
  });
}

/// The Lemke kernel called directly (what `solve(problem, lemke)` runs after its checks).
Contestant bare_lemke(const perp::Lcp& problem) {
  return perp_contestant("bare lemke kernel", [&problem](const perp::SolveOptions& options, perp::Result& result) {
    result = perp::solve_lemke(problem, options);
  });
}

void small_table(const std::vector<std::pair<std::string, perp::Lcp>>& problems) {
  std::printf(
      "\nSmall solves: us per solve (median of %d batches of %d; NOT: does not solve to 1e-8 / perp to 1e-10)\n",
      kSmallBatches, kSmallBatch);
  std::printf("%-34s %8s %8s %8s %8s %8s %8s %8s %8s %8s  %s\n", "problem", "auto", "lemke", "bare", "sic-lmk",
              "sic-piv", "sic-pgs", "bt-dantz", "in-place", "auto/bare",
              "fastest siconos / auto, fastest anchor / auto; the same for auto in place");
  for (const auto& [label, problem] : problems) {
    std::vector<Contestant> cs;
    cs.push_back(perp_method(problem, perp::Method::Auto));
    cs.push_back(perp_method(problem, perp::Method::Lemke));
    cs.push_back(bare_lemke(problem));
    add_siconos(problem, cs);
    cs.erase(cs.begin() + 6, cs.end());  // Siconos' lemke, pivot, pgs (its Newton methods are slower)
    std::vector<Contestant> bullet;
    add_bullet(problem, bullet);
    cs.push_back(bullet.front());  // Dantzig
    cs.push_back(perp_in_place(problem));
    constexpr std::size_t kInPlace = 7;
    std::vector<double> us;
    std::vector<bool> solved;
    for (Contestant& c : cs) {
      c.setup();
      c.solve();
      const Eigen::VectorXd z = c.z();
      const Eigen::VectorXd w = problem.M * z + problem.q;
      const double relative = z.allFinite() && z.size() == problem.size() ? perp::relative_residual(problem, z, w)
                                                                          : std::numeric_limits<double>::infinity();
      solved.push_back(relative <= (c.name.rfind("perp", 0) == 0 ? kTolerance : kAnchorSolved));
      // perp auto is always timed (its right answer on lcp_Pang_isolated_sol_perturbed is "not
      // solved"); the others only where they solve (Siconos' Lemke prints a line per call on a ray).
      const bool timed = solved.back() || us.empty();
      us.push_back(timed ? small_us(c) : std::numeric_limits<double>::quiet_NaN());
    }
    double siconos = std::numeric_limits<double>::infinity();
    double anchor = std::numeric_limits<double>::infinity();
    for (std::size_t k = 3; k < kInPlace; ++k) {
      if (!solved[k]) continue;
      if (k < 6) siconos = std::min(siconos, us[k]);
      anchor = std::min(anchor, us[k]);
    }
    std::printf("%-34s", label.c_str());
    for (std::size_t k = 0; k < cs.size(); ++k) {
      if (std::isnan(us[k])) {
        std::printf(" %7s ", "-");
      } else {
        std::printf(" %7.3f%s", us[k], solved[k] ? " " : "!");
      }
    }
    std::printf(" %8.2f  %.2f, %.2f; %.2f, %.2f%s [auto: %s]\n", us[0] / us[2], siconos / us[0], anchor / us[0],
                siconos / us[kInPlace], anchor / us[kInPlace], solved[0] ? "" : " (auto NOT solved)",
                cs[0].note().c_str());
    std::fflush(stdout);
  }
  std::printf("(-: that solver's z does not solve, not timed; !: auto's z does not solve)\n");
}

}  // namespace

int main(int argc, char** argv) {
  numerics_set_verbose(0);
  const long max_n = perp::bench::max_n_argument(argc, argv);
  if (max_n == 0) return EXIT_FAILURE;
  const bool only_small = argc > 2 && std::strcmp(argv[2], "small") == 0;
  std::printf(
      "perp auto vs Siconos numerics (lemke, pivot, pgs, newton-fb, newton-minfb) and Bullet %d.%02d in double\n"
      "(sizeof(btScalar) = %zu: dantzig, pgs, lemke); tolerance %.0e for all; relative residual of each z judged\n"
      "here; an anchor counts as solved at <= %.0e, perp at %.0e. Medians of `rounds` round-robin runs.\n\n",
      btGetVersion() / 100, btGetVersion() % 100, sizeof(btScalar), kTolerance, kAnchorSolved, kTolerance);
  std::printf("%-22s %-22s %5s %10s %10s %10s %-8s %s\n", "problem", "solver", "runs", "median ms", "min ms",
              "relative", "", "note");
  std::vector<Summary> summaries;
  for (const char* family : {"spd", "contact"}) {
    for (const Eigen::Index n : {10, 100, 200, 500, 1000}) {
      if (n > max_n || only_small) continue;
      const perp::Lcp problem =
          std::strcmp(family, "spd") == 0 ? perp::bench::spd_problem(n) : perp::bench::contact_problem(n);
      summaries.push_back(compare(std::string(family) + " n=" + std::to_string(n), problem, true, true));
    }
  }
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(PERP_BENCH_DATA_DIR)) {
    if (entry.path().extension() == ".dat") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<std::pair<std::string, perp::Lcp>> small;
  for (const char* family : {"spd", "contact"}) {
    small.emplace_back(std::string(family) + " n=10",
                       std::strcmp(family, "spd") == 0 ? perp::bench::spd_problem(10) : perp::bench::contact_problem(10));
  }
  for (const std::filesystem::path& file : files) {
    const perp::Lcp problem = perp::read_siconos_lcp(file);
    const std::string label = file.stem().string() + " n=" + std::to_string(problem.size());
    if (!only_small) summaries.push_back(compare(label, problem, false, true));
    if (problem.size() <= 10) small.emplace_back(label, problem);
  }
  std::printf("\nSummary: fastest anchor / auto (> 1: auto faster), on the medians and on the fastest runs (min)\n");
  for (const Summary& s : summaries) {
    std::printf("%-36s auto %10.4f ms %-10s  fastest anchor %-22s %10.4f ms  ratio %6.2f  (min: %6.2f)\n",
                s.name.c_str(), s.auto_ms, s.auto_solved ? "solved" : "NOT solved",
                s.anchor.empty() ? "(none solved)" : s.anchor.c_str(), s.anchor_ms, s.anchor_ms / s.auto_ms,
                s.anchor_best / s.auto_best);
  }
  small_table(small);
  return EXIT_SUCCESS;
}
