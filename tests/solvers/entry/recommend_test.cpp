#include "perp/solvers/recommend.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "perp/core/error.hpp"
#include "perp/io/siconos.hpp"
#include "perp/solvers/solve.hpp"
#include "../test_problems.hpp"

namespace perp::solvers_recommend_test {
namespace {

using Eigen::Index;
using Eigen::MatrixXd;
using testing::HasSubstr;

Recommendation recommend_for(const MatrixXd& M) { return recommend(classify(M), M.rows()); }

void expect_well_formed(const Recommendation& r, Index n) {
  ASSERT_FALSE(r.order.empty());
  EXPECT_EQ(r.method, r.order.front());
  EXPECT_EQ(std::count(r.order.begin(), r.order.end(), Method::Auto), 0);
  EXPECT_EQ(std::set<Method>(r.order.begin(), r.order.end()).size(), r.order.size()) << "a method repeats";
  EXPECT_EQ(std::count(r.order.begin(), r.order.end(), Method::Enum), n <= kRecommendEnumerationLimit ? 1 : 0);
  EXPECT_EQ(std::count(r.order.begin(), r.order.end(), Method::Lemke), 1);
  EXPECT_FALSE(r.reason.empty());
}

TEST(Recommend, PositiveDefiniteSmallGoesToLemke) {
  const Recommendation r = recommend_for(Eigen::Matrix2d{{1.75, 0.25}, {0.25, 1.75}});
  expect_well_formed(r, 2);
  EXPECT_EQ(r.method, Method::Lemke);
  EXPECT_THAT(r.reason, HasSubstr("positive definite"));
  EXPECT_EQ(r.order, (std::vector<Method>{Method::Lemke, Method::Murty, Method::Pgs, Method::NewtonFb,
                                          Method::InteriorPoint, Method::Enum}));
}

TEST(Recommend, LargeSymmetricPositiveDefiniteGoesToPgs) {
  // Symmetric with entries in [-1, 1] and 1100 on the diagonal: SPD (Gershgorin), built in O(n²).
  const MatrixXd R = MatrixXd::Random(1100, 1100);
  MatrixXd M = R + R.transpose();
  M.diagonal().array() = 2200;
  const Recommendation r = recommend(classify(M, ClassifyOptions::cheap()), 1100);
  expect_well_formed(r, 1100);
  EXPECT_EQ(r.order, (std::vector<Method>{Method::Pgs, Method::NewtonMin, Method::Lemke, Method::NewtonFb,
                                          Method::InteriorPoint}));
  EXPECT_THAT(r.reason, HasSubstr("large"));
}

TEST(Recommend, LargeDiagonallyDominantGoesToPgs) {
  MatrixXd M = MatrixXd::Random(1100, 1100);  // entries in [-1, 1], not symmetric
  M.diagonal().array() = 1200;
  const Recommendation r = recommend(classify(M, ClassifyOptions::cheap()), 1100);
  EXPECT_EQ(r.method, Method::Pgs);
  EXPECT_THAT(r.reason, HasSubstr("diagonally dominant"));
}

TEST(Recommend, PMatrixNotPositiveDefinite) {
  // The exercise (c) of [chapter] §1.3: P, not PSD.
  const Recommendation r = recommend_for(Eigen::Matrix2d{{1, -3}, {0, 1}});
  expect_well_formed(r, 2);
  EXPECT_EQ(r.method, Method::Lemke);
  EXPECT_THAT(r.reason, HasSubstr("P-matrix"));
  EXPECT_EQ(r.order[1], Method::Murty);
}

TEST(Recommend, CopositivePlusGoesToLemke) {
  // [[1, 2], [2, 1]]: strictly copositive, not PSD, not P.
  const Recommendation r = recommend_for(Eigen::Matrix2d{{1, 2}, {2, 1}});
  EXPECT_EQ(r.method, Method::Lemke);
  EXPECT_THAT(r.reason, HasSubstr("copositive-plus"));
  // PSD but singular: named as such.
  EXPECT_THAT(recommend_for(Eigen::Matrix2d{{1, 1}, {1, 1}}).reason, HasSubstr("positive semidefinite"));
}

TEST(Recommend, NothingProvenKeepsEveryFallback) {
  const Recommendation r = recommend_for(Eigen::Matrix2d{{-1, 2}, {2, -1}});
  expect_well_formed(r, 2);
  EXPECT_THAT(r.reason, HasSubstr("no class proves"));
  EXPECT_EQ(r.order,
            (std::vector<Method>{Method::Lemke, Method::NewtonFb, Method::Enum}));  // negative diagonal: no murty, pgs
}

TEST(Recommend, SizeMustMatchTheReport) {
  EXPECT_THROW((void)recommend(classify(MatrixXd::Identity(3, 3)), 4), InvalidProblem);
}

TEST(Recommend, EveryCorpusMatrixGetsAWellFormedOrder) {
  for (const auto& entry : std::filesystem::directory_iterator(PERP_SICONOS_DATA_DIR)) {
    if (entry.path().extension() != ".dat") continue;
    const Lcp p = read_siconos_lcp(entry.path());
    for (const ClassifyOptions& options : {ClassifyOptions{}, ClassifyOptions::cheap()}) {
      const Recommendation r = recommend(classify(p.M, options), p.size());
      expect_well_formed(r, p.size());
    }
  }
}

TEST(Recommend, AutoFollowsTheRecommendedOrder) {
  // n <= 2: the bases one by one first, n <= 16: block principal pivoting (auto_lcp.cpp); solved
  // there, the message names only that attempt.
  const Lcp p = testing_problems::two_contact_block();
  ASSERT_EQ(p.size(), 2);
  const Result r = solve(p, Method::Auto);
  ASSERT_TRUE(r.solved());
  EXPECT_EQ(r.method, Method::Enum);
  EXPECT_EQ(r.message, "auto (enum): ok");
  const Lcp larger = testing_problems::random_spd(5, 7);
  const Result pivoted = solve(larger, Method::Auto);
  ASSERT_TRUE(pivoted.solved());
  EXPECT_EQ(pivoted.method, Method::BlockPivoting);  // block principal pivoting
  EXPECT_EQ(pivoted.message, "auto (bpp): ok");
  // Not solved: every attempt is listed, in the recommended order, in one line of at most
  // kAutoMessageLimit bytes; each attempt in full in `attempts`, and the reason in `attempt_order`.
  const Result none = solve(testing_problems::no_solution(), Method::Auto);
  EXPECT_THAT(none.message, HasSubstr("lemke: ray-termination; newton-fb: no-solution-found; enum: infeasible"));
  EXPECT_LE(none.message.size(), kAutoMessageLimit);
  EXPECT_EQ(none.message.find('\n'), std::string::npos);
  // (n <= 40: lemke first, then the classified order, which tries lemke again)
  ASSERT_EQ(none.attempts.size(), 4u);
  EXPECT_EQ(none.attempts[0].method, Method::Lemke);
  EXPECT_EQ(none.attempts[0].status, Status::RayTermination);
  EXPECT_EQ(none.attempts[1].method, Method::Lemke);
  EXPECT_EQ(none.attempts[2].method, Method::NewtonFb);
  EXPECT_EQ(none.attempts[2].status, Status::NoSolutionFound);
  EXPECT_EQ(none.attempts[3].method, Method::Enum);
  EXPECT_EQ(none.attempts[3].status, Status::Infeasible);
  EXPECT_THAT(none.attempts[3].message, HasSubstr("active sets"));
  EXPECT_FALSE(none.attempt_order.empty());
}

}  // namespace
}  // namespace perp::solvers_recommend_test
