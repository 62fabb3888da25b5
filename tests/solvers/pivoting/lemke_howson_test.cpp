#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "perp/core/error.hpp"
#include "perp/solvers/games.hpp"
#include "perp/solvers/solve.hpp"

namespace perp::solvers_lemke_howson_test {
namespace {

// Independent check: no pure deviation gains, from x and y alone.
void expect_equilibrium(const BimatrixGame& g, const Equilibrium& e) {
  ASSERT_EQ(e.x.size(), g.A.rows());
  ASSERT_EQ(e.y.size(), g.A.cols());
  EXPECT_NEAR(e.x.sum(), 1.0, 1e-12);
  EXPECT_NEAR(e.y.sum(), 1.0, 1e-12);
  EXPECT_GE(e.x.minCoeff(), 0.0);
  EXPECT_GE(e.y.minCoeff(), 0.0);
  const double v1 = e.x.dot(g.A * e.y), v2 = e.x.dot(g.B * e.y);
  EXPECT_LE((g.A * e.y).maxCoeff(), v1 + 1e-12);
  EXPECT_LE((e.x.transpose() * g.B).maxCoeff(), v2 + 1e-12);
  EXPECT_NEAR(e.payoff1, v1, 1e-12);
  EXPECT_NEAR(e.payoff2, v2, 1e-12);
  EXPECT_LE(e.regret, 1e-12);
}

// Every equilibrium of a nondegenerate game by support enumeration (equal support sizes; the
// indifference equations solved by LU): the independent list LH's answers must come from.
std::vector<std::pair<Eigen::VectorXd, Eigen::VectorXd>> support_enumeration(const BimatrixGame& g) {
  const Eigen::Index m = g.A.rows(), n = g.A.cols();
  std::vector<std::pair<Eigen::VectorXd, Eigen::VectorXd>> found;
  for (unsigned si = 1; si < (1u << m); ++si) {
    for (unsigned sj = 1; sj < (1u << n); ++sj) {
      std::vector<Eigen::Index> I, J;
      for (Eigen::Index i = 0; i < m; ++i)
        if (si >> i & 1u) I.push_back(i);
      for (Eigen::Index j = 0; j < n; ++j)
        if (sj >> j & 1u) J.push_back(j);
      if (I.size() != J.size()) continue;
      const auto k = static_cast<Eigen::Index>(I.size());
      // y_J with A_IJ y_J = v 1, Σ y = 1; x_I with B_IJᵀ x_I = u 1, Σ x = 1.
      Eigen::MatrixXd Ky = Eigen::MatrixXd::Zero(k + 1, k + 1), Kx = Ky;
      Ky.topLeftCorner(k, k) = g.A(I, J);
      Kx.topLeftCorner(k, k) = g.B(I, J).transpose();
      Ky.topRightCorner(k, 1).setConstant(-1);
      Kx.topRightCorner(k, 1).setConstant(-1);
      Ky.bottomLeftCorner(1, k).setOnes();
      Kx.bottomLeftCorner(1, k).setOnes();
      Eigen::VectorXd rhs = Eigen::VectorXd::Zero(k + 1);
      rhs[k] = 1;
      const Eigen::FullPivLU<Eigen::MatrixXd> ly(Ky), lx(Kx);
      if (!ly.isInvertible() || !lx.isInvertible()) continue;
      const Eigen::VectorXd sy = ly.solve(rhs), sx = lx.solve(rhs);
      Eigen::VectorXd x = Eigen::VectorXd::Zero(m), y = Eigen::VectorXd::Zero(n);
      x(I) = sx.head(k);
      y(J) = sy.head(k);
      if (x.minCoeff() < -1e-12 || y.minCoeff() < -1e-12) continue;
      if ((g.A * y).maxCoeff() > x.dot(g.A * y) + 1e-9) continue;
      if ((x.transpose() * g.B).maxCoeff() > x.dot(g.B * y) + 1e-9) continue;
      found.emplace_back(x, y);
    }
  }
  return found;
}

bool listed(const std::vector<std::pair<Eigen::VectorXd, Eigen::VectorXd>>& all, const Equilibrium& e) {
  for (const auto& [x, y] : all) {
    if ((x - e.x).cwiseAbs().maxCoeff() <= 1e-9 && (y - e.y).cwiseAbs().maxCoeff() <= 1e-9) return true;
  }
  return false;
}

// von Stengel (2002), the 3×2 game of Figure 2 with its three equilibria.
BimatrixGame von_stengel_3x2() {
  return bimatrix_game(Eigen::MatrixXd{{3, 3}, {2, 5}, {0, 6}}, Eigen::MatrixXd{{3, 2}, {2, 6}, {3, 1}});
}

TEST(LemkeHowson, EveryLabelEndsAtAnEquilibriumOfTheSupportEnumeration) {
  const std::vector<BimatrixGame> games{
      von_stengel_3x2(),
      bimatrix_game(Eigen::MatrixXd{{1, -1}, {-1, 1}}, Eigen::MatrixXd{{-1, 1}, {1, -1}}),  // matching pennies
      bimatrix_game(Eigen::Matrix3d::Identity(), Eigen::Matrix3d::Identity()),              // coordination
      bimatrix_game(Eigen::MatrixXd{{0, 6, 1}, {1, 0, 5}, {4, 2, 0}}, Eigen::MatrixXd{{1, 0, 4}, {5, 2, 0}, {0, 3, 1}}),
  };
  for (std::size_t g = 0; g < games.size(); ++g) {
    const auto all = support_enumeration(games[g]);
    ASSERT_FALSE(all.empty()) << "game " << g;
    const EquilibriumSet set = lemke_howson_all_labels(games[g]);
    ASSERT_FALSE(set.equilibria.empty());
    std::size_t runs = 0;
    for (std::size_t e = 0; e < set.equilibria.size(); ++e) {
      expect_equilibrium(games[g], set.equilibria[e]);
      EXPECT_TRUE(listed(all, set.equilibria[e])) << "game " << g << ": x = " << set.equilibria[e].x.transpose();
      runs += set.labels[e].size();
    }
    EXPECT_EQ(runs, static_cast<std::size_t>(games[g].A.rows() + games[g].A.cols()));
  }
}

TEST(LemkeHowson, VonStengelsGameHasThreeEquilibriaAndLabelsReachThem) {
  const BimatrixGame g = von_stengel_3x2();
  EXPECT_EQ(support_enumeration(g).size(), 3u);
  const EquilibriumSet set = lemke_howson_all_labels(g);
  EXPECT_GE(set.equilibria.size(), 2u);  // the three lie on LH paths; labels reach at least the ends of two
  // Matching pennies: the unique equilibrium (½, ½), (½, ½), reached from every label.
  const EquilibriumSet pennies =
      lemke_howson_all_labels(bimatrix_game(Eigen::MatrixXd{{1, -1}, {-1, 1}}, Eigen::MatrixXd{{-1, 1}, {1, -1}}));
  ASSERT_EQ(pennies.equilibria.size(), 1u);
  EXPECT_TRUE(pennies.equilibria[0].x.isApprox(Eigen::Vector2d(0.5, 0.5), 1e-14));
  EXPECT_TRUE(pennies.equilibria[0].y.isApprox(Eigen::Vector2d(0.5, 0.5), 1e-14));
  EXPECT_EQ(pennies.labels[0].size(), 4u);
}

TEST(LemkeHowson, CoordinationGameFromLabelZeroEndsAtThePureEquilibrium) {
  // A = B = I: dropping label 0 (row 0) brings in x_0; the best answer is column 0, whose best
  // answer is row 0 again: (e_0, e_0) with payoffs (1, 1).
  const Equilibrium e = lemke_howson(bimatrix_game(Eigen::Matrix3d::Identity(), Eigen::Matrix3d::Identity()), 0);
  EXPECT_TRUE(e.x.isApprox(Eigen::Vector3d(1, 0, 0)));
  EXPECT_TRUE(e.y.isApprox(Eigen::Vector3d(1, 0, 0)));
  EXPECT_DOUBLE_EQ(e.payoff1, 1.0);
  EXPECT_EQ(e.label, 0);
}

TEST(LemkeHowson, BadInputIsRefusedByName) {
  EXPECT_THROW((void)bimatrix_game(Eigen::MatrixXd(0, 0), Eigen::MatrixXd(0, 0)), InvalidProblem);
  EXPECT_THAT([] { (void)bimatrix_game(Eigen::MatrixXd::Ones(2, 3), Eigen::MatrixXd::Ones(3, 2)); },
              testing::ThrowsMessage<InvalidProblem>(testing::HasSubstr("expected the size of A, 2x3")));
  Eigen::MatrixXd bad = Eigen::MatrixXd::Ones(2, 2);
  bad(1, 0) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW((void)bimatrix_game(bad, Eigen::MatrixXd::Ones(2, 2)), InvalidProblem);
  EXPECT_THAT([] { (void)lemke_howson(symmetric_game(Eigen::Matrix2d::Identity()), 4); },
              testing::ThrowsMessage<InvalidProblem>(testing::HasSubstr("label 4 out of range [0, 4)")));
}

TEST(LemkeHowson, LemkeOnTheGamesLcpClaimsNoProof) {
  // The bimatrix LCP (M = [[0, A'], [B'ᵀ, 0]], q = −1) is not copositive-plus; when plain Lemke
  // ends on a ray its message must not call that a proof of infeasibility (the game has equilibria).
  const BimatrixGame g = von_stengel_3x2();
  const double shift = 1.0 - std::min(g.A.minCoeff(), g.B.minCoeff());
  Lcp lcp;
  lcp.M = Eigen::MatrixXd::Zero(5, 5);
  lcp.M.topRightCorner(3, 2) = g.A.array() + shift;
  lcp.M.bottomLeftCorner(2, 3) = (g.B.array() + shift).transpose();
  lcp.q = -Eigen::VectorXd::Ones(5);
  const Result r = solve(lcp, Method::Lemke);
  if (r.status == Status::RayTermination) {
    EXPECT_THAT(r.message, testing::Not(testing::HasSubstr("proves")));
  }
  EXPECT_NE(r.status, Status::Infeasible);
}

}  // namespace
}  // namespace perp::solvers_lemke_howson_test
