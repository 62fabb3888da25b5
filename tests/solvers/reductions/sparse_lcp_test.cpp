#include "perp/solvers/sparse_lcp.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "perp/core/error.hpp"
#include "perp/core/lcp.hpp"
#include "perp/solvers/solve.hpp"

namespace perp::solvers_sparse_lcp_test {
namespace {

using testing::HasSubstr;

Eigen::SparseMatrix<double> sparse(const Eigen::MatrixXd& dense) { return dense.sparseView(); }

// ‖min(z, M z + q)‖∞ recomputed here from the data and z alone.
double natural(const SparseLcp& p, const Eigen::VectorXd& z) {
  const Eigen::VectorXd w = p.M * z + p.q;
  return z.cwiseMin(w).cwiseAbs().maxCoeff();
}

// Pentadiagonal, symmetric, strictly diagonally dominant (so positive definite): 5 nonzeros a row.
SparseLcp pentadiagonal(Eigen::Index n, std::uint32_t seed) {
  std::vector<Eigen::Triplet<double>> entries;
  for (Eigen::Index i = 0; i < n; ++i) {
    entries.emplace_back(i, i, 4.0);
    if (i + 1 < n) {
      entries.emplace_back(i, i + 1, -1.0);
      entries.emplace_back(i + 1, i, -1.0);
    }
    if (i + 2 < n) {
      entries.emplace_back(i, i + 2, -0.5);
      entries.emplace_back(i + 2, i, -0.5);
    }
  }
  SparseLcp p;
  p.M.resize(n, n);
  p.M.setFromTriplets(entries.begin(), entries.end());
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  p.q.resize(n);
  for (Eigen::Index i = 0; i < n; ++i) p.q[i] = uniform(rng);
  return p;
}

TEST(SparseLcp, EveryMethodSolvesTheHandCases) {
  // [[2, 1], [1, 2]] z = (5, 6) with both z > 0: z = (4/3, 7/3), w = 0.
  const SparseLcp both{sparse((Eigen::MatrixXd(2, 2) << 2, 1, 1, 2).finished()), Eigen::Vector2d(-5, -6)};
  // 2 I, q = (−2, 3): z = (1, 0), w = (0, 3).
  const SparseLcp one{sparse(2 * Eigen::MatrixXd::Identity(2, 2)), Eigen::Vector2d(-2, 3)};
  for (const Method method : sparse_lcp_methods()) {
    SCOPED_TRACE(to_string(method));
    const Result a = solve(both, method, {.tolerance = 1e-12});
    ASSERT_TRUE(a.solved()) << a.message;
    EXPECT_NEAR(a.z[0], 4.0 / 3, 1e-10);
    EXPECT_NEAR(a.z[1], 7.0 / 3, 1e-10);
    EXPECT_NEAR(a.w.cwiseAbs().maxCoeff(), 0.0, 1e-10);
    const Result b = solve(one, method, {.tolerance = 1e-12});
    ASSERT_TRUE(b.solved()) << b.message;
    EXPECT_NEAR(b.z[0], 1.0, 1e-12);
    EXPECT_NEAR(b.z[1], 0.0, 1e-12);
    EXPECT_NEAR(b.w[1], 3.0, 1e-12);
  }
  // q >= 0: z = 0.
  const Result trivial = solve(SparseLcp{sparse(Eigen::MatrixXd::Identity(3, 3)), Eigen::Vector3d(0, 1, 2)});
  ASSERT_TRUE(trivial.solved());
  EXPECT_EQ(trivial.z, Eigen::VectorXd::Zero(3));
}

TEST(SparseLcp, AgreesWithTheDenseLcp) {
  // n = 600: the dense LCP by Lemke beside every sparse method; M is positive definite, so the
  // solution is unique and z itself must agree.
  const SparseLcp p = pentadiagonal(600, 4);
  const Result dense = solve(Lcp{Eigen::MatrixXd(p.M), p.q}, Method::Lemke, {.tolerance = 1e-12});
  ASSERT_TRUE(dense.solved()) << dense.message;
  for (const Method method : sparse_lcp_methods()) {
    SCOPED_TRACE(to_string(method));
    const Result r = solve(p, method, {.tolerance = 1e-10});
    ASSERT_TRUE(r.solved()) << r.message;
    EXPECT_LE((r.z - dense.z).lpNorm<Eigen::Infinity>(), 1e-8);
    EXPECT_LE(natural(p, r.z), 1e-9);
  }
}

TEST(SparseLcp, AHundredThousandUnknownsWithoutDensifying) {
  // 100 000 unknowns, 5 nonzeros a row: dense M would take 80 GB.
  const SparseLcp p = pentadiagonal(100000, 7);
  for (const Method method : {Method::Auto, Method::Pgs}) {
    SCOPED_TRACE(to_string(method));
    const Result r = solve(p, method, {.tolerance = 1e-8});
    ASSERT_TRUE(r.solved()) << r.message;
    EXPECT_LE(natural(p, r.z), 1e-8 * p.q.cwiseAbs().maxCoeff());
    EXPECT_GE(r.z.minCoeff(), 0.0);
  }
}

TEST(SparseLcp, RefusalsNameWhatIsWrong) {
  const SparseLcp p{sparse(Eigen::MatrixXd::Identity(2, 2)), Eigen::Vector2d(-1, -1)};
  const Result lemke = solve(p, Method::Lemke);
  EXPECT_EQ(lemke.status, Status::NotApplicable);
  EXPECT_THAT(lemke.message, HasSubstr("needs M dense"));
  EXPECT_EQ(lemke.z.size(), 2);
  // A zero diagonal: the sweeps cannot divide by it; path can.
  const SparseLcp zero_diagonal{sparse((Eigen::MatrixXd(2, 2) << 1, 1, -1, 0).finished()), Eigen::Vector2d(-1, 1)};
  const Result swept = solve(zero_diagonal, Method::Pgs);
  EXPECT_EQ(swept.status, Status::NotApplicable);
  EXPECT_THAT(swept.message, HasSubstr("M(1, 1) = 0"));
  // Bad data: named field, index and value.
  const SparseLcp wide{Eigen::SparseMatrix<double>(2, 3), Eigen::Vector2d(-1, -1)};
  EXPECT_THAT([&] { (void)solve(wide); }, testing::ThrowsMessage<InvalidProblem>(HasSubstr("M: expected 2x2")));
  Eigen::MatrixXd nan = Eigen::MatrixXd::Identity(2, 2);
  nan(1, 0) = std::numeric_limits<double>::quiet_NaN();
  const SparseLcp bad{sparse(nan), Eigen::Vector2d(-1, -1)};
  EXPECT_THAT([&] { (void)solve(bad); }, testing::ThrowsMessage<InvalidProblem>(HasSubstr("M(1, 0)")));
  // A sweep limit that does not reach the tolerance says so.
  const Result short_run = solve(pentadiagonal(50, 1), Method::Pgs, {.tolerance = 1e-14, .max_iterations = 2});
  EXPECT_EQ(short_run.status, Status::MaxIterations);
  EXPECT_EQ(short_run.iterations, 2);
}

}  // namespace
}  // namespace perp::solvers_sparse_lcp_test
