// Side-by-side timing of perp's box-LCP solvers and Bullet's Dantzig solver (btSolveDantzigLCP,
// Debian libbullet-dev, the ODE solver as Bullet ships it) on the box LCPs of problems.hpp:
// contact problems with fixed friction boxes, with friction coupled to the normals (findex),
// and a dense SPD problem with free (nub) rows, at n ≈ 100, 500, 1000.
//
// Each solver is timed with std::chrono::steady_clock around the solve call alone; Bullet's
// inputs (which it overwrites and leaves permuted) are copied back from a pristine float copy
// before each call, outside the timed region. After one untimed warm-up run each, the solvers of
// a problem run in turn for k rounds (k odd, 3 to 31, chosen from the warm-up times), so that the
// load of a shared machine hits all of them alike; the figure is each solver's median.
// Every residual is perp's natural_residual(BoxLcp, z) of the returned z, recomputed here in
// double on the double problem: the same yardstick for every solver. With friction coupling,
// Bullet's row also gives the residual of its z against the bounds it fixed during the solve
// (see frozen_problem): small there and large on the coupled problem means the solver
// did what it promises, and that promise is an approximation of the coupled problem.
//
// Usage: compare_bullet [max_n]   (sizes 100, 500, 1000 up to max_n; default all)
//
// Bullet is a comparison target only: nothing in perp links to it.

#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "perp/perp.hpp"
#include "problems.hpp"

// Bullet's Dantzig LCP (C++; its headers are included as SYSTEM, see bench/CMakeLists.txt).
#include <BulletDynamics/MLCPSolvers/btDantzigLCP.h>

namespace {

using perp::bench::BoxVariant;

#ifdef BT_USE_DOUBLE_PRECISION
constexpr const char* kBulletPrecision = "double (BT_USE_DOUBLE_PRECISION defined)";
#else
constexpr const char* kBulletPrecision = "float (BT_USE_DOUBLE_PRECISION not defined)";
#endif

/// About this much wall time per problem (all its solvers together, warm-up excluded).
constexpr double kProblemBudgetMs = 6000;
constexpr int kMinRounds = 3;
constexpr int kMaxRounds = 31;

/// One solver under test: `setup` (untimed) and `solve` (timed) for one run.
struct Contestant {
  std::function<void()> setup;
  std::function<void()> solve;
};

double run_ms(const Contestant& contestant) {
  contestant.setup();
  const auto start = std::chrono::steady_clock::now();
  contestant.solve();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

/// Runs every contestant once untimed, then k rounds in which each runs once in turn (so that a
/// change in the machine's load hits all of them alike), k odd in [kMinRounds, kMaxRounds] and
/// chosen from the warm-up times so that the rounds take about kProblemBudgetMs. Returns each
/// contestant's median time in ms, and the number of rounds in `rounds`.
std::vector<double> round_robin_median_ms(const std::vector<Contestant>& contestants, int& rounds) {
  double warm_ms = 0;
  for (const Contestant& contestant : contestants) warm_ms += run_ms(contestant);
  rounds = std::clamp(static_cast<int>(kProblemBudgetMs / std::max(warm_ms, 1e-3)), kMinRounds, kMaxRounds);
  if (rounds % 2 == 0) --rounds;
  std::vector<std::vector<double>> times(contestants.size());
  for (int round = 0; round < rounds; ++round) {
    for (std::size_t c = 0; c < contestants.size(); ++c) times[c].push_back(run_ms(contestants[c]));
  }
  std::vector<double> medians;
  for (std::vector<double>& t : times) {
    const auto middle = t.begin() + static_cast<std::ptrdiff_t>(t.size() / 2);
    std::nth_element(t.begin(), middle, t.end());
    medians.push_back(*middle);
  }
  return medians;
}

/// A BoxLcp in the form btSolveDantzigLCP takes (btDantzigLCP.h): A x = b + w, so A = M and
/// b = −q; A is n×n row by row (Bullet's row stride is n, no padding); lo <= 0 <= hi is
/// required; rows with lo = −∞ and hi = +∞ are free (Bullet moves them to the front itself,
/// `nub` only says how many lead already); a coupled row i has findex[i] = its normal and
/// hi[i] = μ, and Bullet sets its bounds to ±|μ x[normal]| once, from the x of the rows solved
/// before the first coupled one (it moves all coupled rows to the end). Every array but x and w
/// is overwritten or left permuted, so each solve starts from a fresh copy.
struct BulletProblem {
  int n = 0;
  int nub = 0;
  std::vector<btScalar> A, b, lo, hi;
  std::vector<int> findex;  // empty when nothing is coupled (Bullet then gets a null pointer)
};

btScalar to_bt(double value) { return static_cast<btScalar>(value); }

BulletProblem to_bullet(const perp::BoxLcp& problem) {
  const Eigen::Index n = problem.size();
  BulletProblem out;
  out.n = static_cast<int>(n);
  const auto size = static_cast<std::size_t>(n);
  out.A.resize(size * size);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < n; ++j) out.A[static_cast<std::size_t>(i * n + j)] = to_bt(problem.M(i, j));
  }
  out.b.resize(size);
  out.lo.resize(size);
  out.hi.resize(size);
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    out.b[k] = to_bt(-problem.q[i]);
    // ±∞ converts to btScalar's ±∞, which is what Bullet compares against (BT_INFINITY).
    out.lo[k] = to_bt(problem.lower[i]);
    out.hi[k] = to_bt(problem.upper[i]);
  }
  if (!problem.friction.empty()) {
    out.findex.assign(size, -1);
    for (const perp::FrictionCoupling& c : problem.friction) {
      const auto k = static_cast<std::size_t>(c.index);
      out.findex[k] = static_cast<int>(c.normal);
      out.lo[k] = to_bt(-c.mu);
      out.hi[k] = to_bt(c.mu);
    }
  }
  const btScalar infinity = std::numeric_limits<btScalar>::infinity();
  for (std::size_t k = 0; k < size; ++k) {
    if (!(out.lo[k] <= 0 && out.hi[k] >= 0)) {
      throw std::invalid_argument("btSolveDantzigLCP needs lo <= 0 <= hi; row " + std::to_string(k) + " has [" +
                                  std::to_string(out.lo[k]) + ", " + std::to_string(out.hi[k]) + "]");
    }
  }
  while (out.nub < out.n && out.lo[static_cast<std::size_t>(out.nub)] == -infinity &&
         out.hi[static_cast<std::size_t>(out.nub)] == infinity &&
         (out.findex.empty() || out.findex[static_cast<std::size_t>(out.nub)] < 0)) {
    ++out.nub;
  }
  return out;
}

/// One line of the table.
struct Row {
  std::string solver;
  double ms = 0;
  std::string iterations;  // "-" where the solver does not report a count
  double residual = 0;
  std::string status;
};

/// Bullet's working copies of a problem and its solve: `reset` restores the inputs Bullet
/// overwrites, `solve` runs btSolveDantzigLCP on them.
class BulletSolver {
 public:
  explicit BulletSolver(const perp::BoxLcp& problem)
      : pristine_(to_bullet(problem)),
        work_(pristine_),
        x_(static_cast<std::size_t>(pristine_.n)),
        w_(static_cast<std::size_t>(pristine_.n)) {}

  void reset() {
    std::copy(pristine_.A.begin(), pristine_.A.end(), work_.A.begin());
    std::copy(pristine_.b.begin(), pristine_.b.end(), work_.b.begin());
    std::copy(pristine_.lo.begin(), pristine_.lo.end(), work_.lo.begin());
    std::copy(pristine_.hi.begin(), pristine_.hi.end(), work_.hi.begin());
    std::copy(pristine_.findex.begin(), pristine_.findex.end(), work_.findex.begin());
  }
  void solve() {
    returned_ = btSolveDantzigLCP(pristine_.n, work_.A.data(), x_.data(), work_.b.data(), w_.data(), pristine_.nub,
                                  work_.lo.data(), work_.hi.data(),
                                  work_.findex.empty() ? nullptr : work_.findex.data(), scratch_);
  }
  /// Bullet's bool: false when it stopped on a non-positive step (its "s <= 0" exit).
  [[nodiscard]] bool returned() const { return returned_; }
  /// x widened to double.
  [[nodiscard]] Eigen::VectorXd z() const {
    Eigen::VectorXd z(pristine_.n);
    for (Eigen::Index i = 0; i < z.size(); ++i) z[i] = static_cast<double>(x_[static_cast<std::size_t>(i)]);
    return z;
  }

 private:
  BulletProblem pristine_;
  BulletProblem work_;
  std::vector<btScalar> x_, w_;
  btDantzigScratchMemory scratch_;  // reused between solves, as Bullet's btDantzigSolver does
  bool returned_ = false;
};

/// The box LCP that ODE's findex rule solves when rows are coupled: Bullet reaches the coupled
/// rows last and then fixes their bounds once, to ±μ|x_normal| with x the solution of the
/// uncoupled rows' subproblem (coupled rows at 0), and never revisits them. This builds that
/// subproblem, solves it with `solve_uncoupled` and returns `problem` with those fixed bounds and
/// no coupling, so that a z can be judged against the problem the rule solves.
perp::BoxLcp frozen_problem(const perp::BoxLcp& problem,
                            const std::function<Eigen::VectorXd(const perp::BoxLcp&)>& solve_uncoupled) {
  std::vector<bool> coupled(static_cast<std::size_t>(problem.size()), false);
  for (const perp::FrictionCoupling& c : problem.friction) coupled[static_cast<std::size_t>(c.index)] = true;
  std::vector<Eigen::Index> rows;
  std::vector<Eigen::Index> position(coupled.size(), -1);
  for (Eigen::Index i = 0; i < problem.size(); ++i) {
    if (coupled[static_cast<std::size_t>(i)]) continue;
    position[static_cast<std::size_t>(i)] = static_cast<Eigen::Index>(rows.size());
    rows.push_back(i);
  }
  const perp::BoxLcp uncoupled{problem.M(rows, rows), problem.q(rows), problem.lower(rows), problem.upper(rows), {}};
  const Eigen::VectorXd x = solve_uncoupled(uncoupled);

  perp::BoxLcp frozen{problem.M, problem.q, problem.lower, problem.upper, {}};
  for (const perp::FrictionCoupling& c : problem.friction) {
    const double bound = c.mu * std::abs(x[position[static_cast<std::size_t>(c.normal)]]);
    frozen.lower[c.index] = -bound;
    frozen.upper[c.index] = bound;
  }
  return frozen;
}

std::string frozen_residual_text(double residual) {
  char text[64];
  std::snprintf(text, sizeof text, "; %.2e at the frozen bounds", residual);
  return text;
}

/// A perp solver under test: a method with its options.
struct PerpEntry {
  std::string label;
  perp::Method method;
  perp::SolveOptions options;
  bool frozen = false;  // the ODE-rule row (one friction pass): also judge z at the frozen bounds
};

/// Times Bullet and perp's `entries` on `problem`, round-robin; Bullet's row first.
std::vector<Row> compare(const perp::BoxLcp& problem, const std::vector<PerpEntry>& entries, int& rounds) {
  BulletSolver bullet(problem);
  std::vector<perp::Result> results(entries.size());
  std::vector<Contestant> contestants;
  contestants.push_back({[&] { bullet.reset(); }, [&] { bullet.solve(); }});
  for (std::size_t k = 0; k < entries.size(); ++k) {
    contestants.push_back(
        {[] {}, [&, k] { results[k] = perp::solve(problem, entries[k].method, entries[k].options); }});
  }
  const std::vector<double> medians = round_robin_median_ms(contestants, rounds);

  std::vector<Row> rows;
  Row row;
  row.solver = "bullet dantzig";
  row.ms = medians[0];
  const Eigen::VectorXd z = bullet.z();
  row.iterations = "-";
  row.residual = perp::natural_residual(problem, z);
  row.status = bullet.returned() ? "returned true" : "returned false";
  if (!problem.friction.empty()) {
    const perp::BoxLcp frozen = frozen_problem(problem, [](const perp::BoxLcp& uncoupled) {
      BulletSolver solver(uncoupled);
      solver.solve();
      return solver.z();
    });
    row.status += frozen_residual_text(perp::natural_residual(frozen, z));
  }
  rows.push_back(row);
  for (std::size_t k = 0; k < entries.size(); ++k) {
    const perp::Result& result = results[k];
    row.solver = entries[k].label;
    if (entries[k].method == perp::Method::Auto) row.solver += " (" + perp::to_string(result.method) + ")";
    row.ms = medians[k + 1];
    row.iterations = std::to_string(result.iterations);
    row.residual = perp::natural_residual(problem, result.z);
    row.status = perp::to_string(result.status);
    if (entries[k].frozen) {
      const perp::BoxLcp frozen = frozen_problem(problem, [&](const perp::BoxLcp& uncoupled) {
        return perp::solve(uncoupled, perp::Method::Dantzig, entries[k].options).z;
      });
      row.status += frozen_residual_text(perp::natural_residual(frozen, result.z));
    }
    rows.push_back(row);
  }
  return rows;
}

void print_header() {
  std::printf("%6s  %-17s %-26s %6s %10s %9s %8s %10s  %s\n", "n", "problem", "solver", "runs", "median ms", "/bullet",
              "iter", "residual", "status");
  std::printf("%s\n", std::string(112, '-').c_str());
}

void print_row(Eigen::Index n, BoxVariant variant, int rounds, const Row& row, double bullet_ms) {
  std::printf("%6td  %-17s %-26s %6d %10.3f %9.2f %8s %10.2e  %s\n", static_cast<std::ptrdiff_t>(n),
              std::string(perp::bench::to_string(variant)).c_str(), row.solver.c_str(), rounds, row.ms,
              row.ms / bullet_ms, row.iterations.c_str(), row.residual, row.status.c_str());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const long max_n = perp::bench::max_n_argument(argc, argv);
  if (max_n == 0) return EXIT_FAILURE;

  std::printf(
      "perp vs Bullet's btSolveDantzigLCP on the box LCPs of bench/problems.hpp (seed %llu).\n"
      "Bullet %d.%02d, btScalar = %s, sizeof(btScalar) = %zu:\n"
      "Bullet gets M, q and the bounds rounded to btScalar, and its z is widened back to double.\n"
      "residual = perp::natural_residual(BoxLcp, z) of each returned z, in double on the double\n"
      "problem (for contact-friction with the coupled bounds -mu|z_n| <= z_t <= mu|z_n| at z).\n"
      "Times: after one warm-up run each, the solvers of a problem run in turn, `runs` rounds (odd,\n"
      "%d to %d, about %.0f s a problem), so load changes hit all alike; median ms of those runs;\n"
      "/bullet = time over Bullet's. perp: default options (tolerance 1e-8), no history.\n"
      "Bullet reports no iteration count and no status beyond its bool return value. With friction\n"
      "coupling Bullet fixes the tangents' bounds once, to mu|x_n| with x_n from the rows without\n"
      "friction (ODE's findex rule): the status adds the residual at those frozen bounds, for Bullet\n"
      "and for \"perp dantzig, 1 pass\", which solves that same frozen problem (max_friction_passes\n"
      "= 1, hence max-iterations).\n\n",
      static_cast<unsigned long long>(perp::bench::kProblemSeed), btGetVersion() / 100, btGetVersion() % 100,
      kBulletPrecision, sizeof(btScalar), kMinRounds, kMaxRounds, kProblemBudgetMs / 1000);

  perp::SolveOptions options;
  options.record_history = false;  // a diagnostic; Bullet keeps none
  std::vector<PerpEntry> entries;
  for (const perp::Method method :
       {perp::Method::Dantzig, perp::Method::Pgs, perp::Method::NewtonFb, perp::Method::Auto}) {
    entries.push_back({"perp " + perp::to_string(method), method, options});
  }
  // ODE's rule in perp's terms: dantzig's first pass drives the coupled rows last and reads their
  // bounds once, on reaching the first of them, from the normals solved with the coupled rows at
  // 0; one pass then stops (max-iterations) with the solution of the same frozen problem Bullet
  // solves.
  PerpEntry one_pass{"perp dantzig, 1 pass", perp::Method::Dantzig, options, true};
  one_pass.options.max_friction_passes = 1;
  print_header();
  for (const Eigen::Index requested : {100, 500, 1000}) {
    if (requested > max_n) continue;
    for (const BoxVariant variant : perp::bench::kBoxVariants) {
      const perp::BoxLcp problem = perp::bench::box_problem(variant, requested);
      problem.validate();
      int rounds = 0;
      std::vector<PerpEntry> these = entries;
      if (!problem.friction.empty()) these.push_back(one_pass);
      const std::vector<Row> rows = compare(problem, these, rounds);
      for (const Row& row : rows) print_row(problem.size(), variant, rounds, row, rows.front().ms);
    }
  }
  return EXIT_SUCCESS;
}
