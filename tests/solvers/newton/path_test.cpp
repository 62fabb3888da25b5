#include "../../../src/solvers/newton/path.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "../mcp_problems.hpp"
#include "perp/core/residual.hpp"
#include "perp/solvers/solve.hpp"
#include "../test_problems.hpp"

namespace perp::solvers_path_test {
namespace {

using namespace mcp_problems;

// Independent check: the natural residual recomputed from F(z) itself, and z in the box.
void expect_mcp_solution(const Mcp& p, const Result& r, double tol, const std::string& what) {
  ASSERT_TRUE(r.solved()) << what << ": " << r.message;
  const Eigen::VectorXd f = p.F(r.z);
  EXPECT_LE(natural_residual(r.z, f, p.lower, p.upper), tol) << what;
  EXPECT_TRUE((r.z.array() >= p.lower.array()).all() && (r.z.array() <= p.upper.array()).all()) << what;
}

struct Case {
  std::string name;
  Mcp problem;
  Eigen::VectorXd start;
  // The known solution(s): true when z is one of them.
  std::function<bool(const Eigen::VectorXd&)> known;
};

bool near(const Eigen::VectorXd& z, const Eigen::VectorXd& target, double tol) {
  return (z - target).cwiseAbs().maxCoeff() <= tol;
}

std::vector<Case> library() {
  const Eigen::Vector4d ks_regular(1, 0, 3, 0), ks_degenerate(std::sqrt(6.0) / 2, 0, 0, 0.5);
  const auto ks_known = [=](const Eigen::VectorXd& z) {
    return near(z, ks_regular, 1e-6) || near(z, ks_degenerate, 1e-6);
  };
  const auto josephy_known = [=](const Eigen::VectorXd& z) { return near(z, ks_degenerate, 1e-6); };
  const std::vector<Eigen::Vector4d> starts{Eigen::Vector4d::Zero(), Eigen::Vector4d::Ones(),
                                            Eigen::Vector4d(1, 0, 1, 0), Eigen::Vector4d(0, 1, 1, 0)};
  const char* start_names[] = {"0", "1", "(1,0,1,0)", "(0,1,1,0)"};
  std::vector<Case> cases;
  for (std::size_t s = 0; s < starts.size(); ++s) {
    cases.push_back(
        {std::string("Kojima-Shindo from ") + start_names[s], to_mcp(kojima_shindo()), starts[s], ks_known});
  }
  for (std::size_t s = 0; s < starts.size(); ++s) {
    cases.push_back({std::string("Josephy from ") + start_names[s], to_mcp(josephy()), starts[s], josephy_known});
  }
  cases.push_back({"Josephy from (100,100,100,100)", to_mcp(josephy()), Eigen::Vector4d::Constant(100), josephy_known});
  const auto mathiesen_known = [](const Eigen::VectorXd& z) {
    return z.tail(3).cwiseAbs().maxCoeff() <= 1e-8 && z[0] >= -1e-8 && z[0] <= 3 + 1e-8;
  };
  cases.push_back({"Mathiesen from 1", to_mcp(mathiesen()), Eigen::Vector4d::Ones(), mathiesen_known});
  const auto billups_known = [](const Eigen::VectorXd& z) { return std::abs(z[0] - kBillupsSolution) <= 1e-8; };
  const std::pair<double, const char*> billups_starts[] = {{0.0, "0"}, {0.5, "0.5"}, {3.0, "3"}};
  for (const auto& [s, text] : billups_starts) {
    cases.push_back(
        {std::string("Billups from ") + text, to_mcp(billups()), Eigen::VectorXd::Constant(1, s), billups_known});
  }
  cases.push_back({"HS35 from 0", to_mcp(hs35()), Eigen::Vector4d::Zero(),
                   [](const Eigen::VectorXd& z) { return near(z, kHs35Solution, 1e-8); }});
  cases.push_back({"Nash-Cournot 5 firms from 10", nash_cournot(), Eigen::VectorXd::Constant(5, 10),
                   [](const Eigen::VectorXd& z) { return near(z, kNashSolution, 1e-4); }});
  // Capacities 10: firms 1–3 produce at capacity (by hand from the uncapacitated answer, the
  // first three want more than 10; F_1..F_3 < 0 there); firms 4, 5 answer with F = 0.
  cases.push_back({"Nash-Cournot 5 firms, capacity 10, from 1", nash_cournot(10), Eigen::VectorXd::Constant(5, 1),
                   [](const Eigen::VectorXd& z) {
                     return near(z.head(3), Eigen::Vector3d::Constant(10), 1e-12) && z[3] > 0 && z[3] < 10 &&
                            z[4] > 0 && z[4] < 10;
                   }});
  return cases;
}

TEST(Path, SolvesTheMcplibAndLiteratureCasesFromEveryStart) {
  for (const Case& c : library()) {
    for (const Method m : {Method::Path, Method::Auto}) {
      SolveOptions o{.tolerance = 1e-10};
      o.initial_guess = c.start;
      const Result r = solve(c.problem, m, o);
      expect_mcp_solution(c.problem, r, 1e-7, c.name + " by " + to_string(m));
      EXPECT_TRUE(c.known(r.z)) << c.name << " by " << to_string(m) << ": z = " << r.z.transpose();
      if (m == Method::Path) {
        EXPECT_EQ(r.method, Method::Path);
      }
    }
  }
}

TEST(Path, NashCournotCapacityAnswersAreComplementary) {
  // At capacity F <= 0 (the firm would produce more), below it F = 0.
  SolveOptions o{.tolerance = 1e-12};
  o.initial_guess = Eigen::VectorXd::Constant(5, 1);
  const Mcp p = nash_cournot(10);
  const Result r = solve(p, Method::Path, o);
  ASSERT_TRUE(r.solved()) << r.message;
  const Eigen::VectorXd f = p.F(r.z);
  for (int i = 0; i < 3; ++i) EXPECT_LT(f[i], 0.0);
  EXPECT_NEAR(f[3], 0.0, 1e-8);
  EXPECT_NEAR(f[4], 0.0, 1e-8);
}

TEST(Path, BillupsIsSolvedWhereMeritMethodsStall) {
  // From 0 the FB merit has a local minimum near x = -0.005 (outside the box's interior); the
  // proximal restarts carry path past it.
  SolveOptions o;
  o.initial_guess = Eigen::VectorXd::Zero(1);
  const Result r = solve(billups(), Method::Path, o);
  ASSERT_TRUE(r.solved()) << r.message;
  EXPECT_NEAR(r.z[0], kBillupsSolution, 1e-8);
  EXPECT_THAT(r.message, testing::HasSubstr("proximal-point restarts"));
}

// n = 40, M = A Aᵀ with A 40×8 (rank 8, PSD, singular); q = w* − M z* for a complementary pair,
// so a solution exists. The linearizations are singular: path perturbs them.
Lcp singular_psd_lcp() {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  Eigen::MatrixXd A(40, 8);
  for (Eigen::Index j = 0; j < 8; ++j)
    for (Eigen::Index i = 0; i < 40; ++i) A(i, j) = u(rng);
  Eigen::VectorXd z(40), w(40);
  for (Eigen::Index i = 0; i < 40; ++i) {
    const bool basic = i % 3 == 0;
    z[i] = basic ? 1 + u(rng) : 0.0;
    w[i] = basic ? 0.0 : 1 + u(rng);
  }
  Lcp p{A * A.transpose(), Eigen::VectorXd()};
  p.q = w - p.M * z;
  return p;
}

TEST(Path, SingularPsdLcpIsSolved) {
  const Lcp p = singular_psd_lcp();
  for (const Method m : {Method::Path, Method::NewtonFb, Method::NewtonMin, Method::PenalizedFb, Method::Smoothing}) {
    const Result r = solve(p, m, SolveOptions{.tolerance = 1e-12});
    ASSERT_TRUE(r.solved()) << to_string(m) << ": " << r.message;
    const Eigen::VectorXd w = p.M * r.z + p.q;
    EXPECT_LE(natural_residual(r.z, w), 1e-9) << to_string(m);
  }
}

TEST(Path, LcpsAgreeWithLemkeOnPositiveDefiniteProblems) {
  for (unsigned seed = 1; seed <= 5; ++seed) {
    const Lcp p = testing_problems::random_spd(20, seed);
    const Result a = solve(p, Method::Path);
    const Result b = solve(p, Method::Lemke);
    ASSERT_TRUE(a.solved()) << a.message;
    ASSERT_TRUE(b.solved());
    EXPECT_LE((a.z - b.z).cwiseAbs().maxCoeff(), 1e-8);  // a P-matrix LCP has one solution
  }
}

TEST(Path, ChapterExampleAndBoxLcp) {
  const Result r = solve(testing_problems::chapter_lemke_example(), Method::Path);
  ASSERT_TRUE(r.solved()) << r.message;
  EXPECT_TRUE(r.z.isApprox(Eigen::Vector2d(1, 1), 1e-12));
  // Box LCP, M = [[2, 1], [1, 2]], q = (−5, 1), 0 <= z <= 1: by hand z0 = 1 (w0 = −3 <= 0),
  // z1 = 0 (w1 = 1 + 1 = 2 >= 0).
  BoxLcp box{
      Eigen::Matrix2d{{2, 1}, {1, 2}}, Eigen::Vector2d(-5, 1), Eigen::Vector2d::Zero(), Eigen::Vector2d::Ones(), {}};
  const Result b = solve_path(box, SolveOptions{});
  ASSERT_TRUE(b.solved()) << b.message;
  EXPECT_TRUE(b.z.isApprox(Eigen::Vector2d(1, 0), 1e-12)) << b.z.transpose();
}

// The public entries validate as solve does: bad data or options are refused by name before any
// pivot (they ran on unchecked input before).
TEST(Path, DirectCallsValidate) {
  const auto error_of = [](const auto& problem, const SolveOptions& options) {
    try {
      (void)solve_path(problem, options);
    } catch (const InvalidProblem& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const Lcp nan{Eigen::Matrix2d{{2, std::nan("")}, {1, 2}}, Eigen::Vector2d(-1, -1)};
  EXPECT_THAT(error_of(nan, {}), testing::HasSubstr("M(0, 1)"));
  const Lcp good = testing_problems::chapter_lemke_example();
  EXPECT_THAT(error_of(good, {.initial_guess = Eigen::Vector3d::Zero()}), testing::HasSubstr("initial_guess"));
  EXPECT_THAT(error_of(good, {.tolerance = 0}), testing::HasSubstr("tolerance"));
  BoxLcp box{Eigen::Matrix2d{{2, 1}, {1, 2}}, Eigen::Vector2d(-5, 1), Eigen::Vector2d(0, 2), Eigen::Vector2d(1, 1), {}};
  EXPECT_THAT(error_of(box, {}), testing::HasSubstr("lower[1] = 2 > upper[1] = 1"));
  Mcp mcp = mcp_problems::nash_cournot();
  mcp.upper.resize(0);
  EXPECT_THAT(error_of(mcp, {}), testing::HasSubstr("Mcp: upper has size 0"));
  EXPECT_EQ(error_of(good, {}), "");
}

TEST(Path, NoSolutionEndsWithAStatusAndAFinitePoint) {
  // M = (−1), q = (−1): no solution ([chapter] §1.2).
  const Result r = solve(testing_problems::no_solution(), Method::Path);
  EXPECT_FALSE(r.solved());
  EXPECT_TRUE(r.z.allFinite());
  EXPECT_FALSE(r.message.empty());
}

TEST(Path, WarmStartAtTheSolutionTakesNoStep) {
  SolveOptions o;
  o.initial_guess = kHs35Solution;
  const Result r = solve(to_mcp(hs35()), Method::Path, o);
  ASSERT_TRUE(r.solved());
  EXPECT_EQ(r.iterations, 0);
}

// The iteration table of docs/solvers.md (printed; run with --gtest_filter=Path.IterationTable),
// each entry checked: a count stands for a true solution (F recomputed at z, the known solution), a
// status for a run that did not solve and says so; path and auto solve every row, as the table shows.
TEST(Path, IterationTable) {
  std::printf("| problem, start | path | newton-fb | newton-min | auto |\n|---|---|---|---|---|\n");
  for (const Case& c : library()) {
    std::printf("| %s |", c.name.c_str());
    for (const Method m : {Method::Path, Method::NewtonFb, Method::NewtonMin, Method::Auto}) {
      SolveOptions o{.tolerance = 1e-10};
      o.initial_guess = c.start;
      const Result r = solve(c.problem, m, o);
      const std::string what = c.name + " by " + to_string(m);
      if (r.solved()) {
        std::printf(" %d%s |", r.iterations, m == Method::Auto ? (" (" + to_string(r.method) + ")").c_str() : "");
        // The residual and the known solution, which bound z to round-off (newton-fb ends Mathiesen
        // from 1 at z_i = -1.9e-26 on a bound 0: solved, not inside the box to the letter).
        EXPECT_LE(natural_residual(r.z, c.problem.F(r.z), c.problem.lower, c.problem.upper), 1e-7) << what;
        EXPECT_TRUE(c.known(r.z)) << what << ": z = " << r.z.transpose();
      } else {
        std::printf(" %s |", to_string(r.status).c_str());
        EXPECT_TRUE(m == Method::NewtonFb || m == Method::NewtonMin) << what << ": " << r.message;
        EXPECT_TRUE(r.status == Status::NoSolutionFound || r.status == Status::MaxIterations ||
                    r.status == Status::NumericalFailure)
            << what << ": " << to_string(r.status);
      }
    }
    std::printf("\n");
  }
}

}  // namespace
}  // namespace perp::solvers_path_test
