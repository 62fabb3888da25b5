#include "perp/core/ncp_function.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "perp/core/error.hpp"

namespace perp::core_ncp_function_test {
namespace {

// Central differences, for checking analytic gradients away from kinks.
template <class F>
NcpGradient numeric_gradient(F f, double a, double b) {
  const double h = 1e-6;
  return {(f(a + h, b) - f(a - h, b)) / (2 * h), (f(a, b + h) - f(a, b - h)) / (2 * h)};
}

TEST(FischerBurmeister, ZeroExactlyOnTheComplementarityCorner) {
  EXPECT_EQ(fischer_burmeister(0, 0), 0);
  EXPECT_EQ(fischer_burmeister(0, 7), 0);
  EXPECT_EQ(fischer_burmeister(3, 0), 0);
  EXPECT_DOUBLE_EQ(fischer_burmeister(3, 4), 5 - 7);  // √(9+16) − 7
  EXPECT_DOUBLE_EQ(fischer_burmeister(-1, 0), 2);     // 1 + 1
  EXPECT_DOUBLE_EQ(fischer_burmeister(-3, -4), 5 + 7);
}

TEST(FischerBurmeister, AccurateForLargeAndNearlyComplementaryArguments) {
  // √(1e300² + 1²) − 1e300 − 1 ≈ −1: the naive formula overflows or cancels to −1 exactly by luck,
  // the conjugate form gives −2ab/(r + a + b) ≈ −1.
  EXPECT_NEAR(fischer_burmeister(1e300, 1.0), -1.0, 1e-12);
  // a = 1e8, b = 1e-8: φ ≈ −b (relative accuracy matters here).
  EXPECT_NEAR(fischer_burmeister(1e8, 1e-8) / -1e-8, 1.0, 1e-10);
}

TEST(FischerBurmeister, GradientMatchesFiniteDifferences) {
  for (const auto& [a, b] : {std::pair{1.0, 2.0}, {-0.5, 0.3}, {2.0, -3.0}, {-1.0, -1.0}}) {
    const NcpGradient g = fischer_burmeister_gradient(a, b);
    const NcpGradient fd = numeric_gradient([](double x, double y) { return fischer_burmeister(x, y); }, a, b);
    EXPECT_NEAR(g.da, fd.da, 1e-7);
    EXPECT_NEAR(g.db, fd.db, 1e-7);
  }
}

TEST(FischerBurmeister, ClarkeElementAtTheOriginLiesInTheGeneralizedGradient) {
  // ∂φ_FB(0,0) = {(ξ − 1, ρ − 1) : ξ² + ρ² <= 1}.
  const auto inside = [](NcpGradient g) { return std::hypot(g.da + 1, g.db + 1) <= 1 + 1e-15; };
  const NcpGradient g = fischer_burmeister_gradient(0, 0);
  EXPECT_NEAR(g.da, 1 / std::sqrt(2.0) - 1, 1e-15);
  EXPECT_NEAR(g.db, 1 / std::sqrt(2.0) - 1, 1e-15);
  EXPECT_TRUE(inside(g));
  const NcpGradient along_a = fischer_burmeister_clarke_at_origin(1, 0);
  EXPECT_DOUBLE_EQ(along_a.da, 0);
  EXPECT_DOUBLE_EQ(along_a.db, -1);
  EXPECT_TRUE(inside(fischer_burmeister_clarke_at_origin(-3, 4)));
  const NcpGradient centre = fischer_burmeister_clarke_at_origin(0, 0);
  EXPECT_EQ(centre.da, -1);
  EXPECT_EQ(centre.db, -1);
  // The element along d is the limit of the gradient at t·d, t → 0⁺.
  const NcpGradient limit = fischer_burmeister_gradient(3e-12, 4e-12);
  const NcpGradient element = fischer_burmeister_clarke_at_origin(3, 4);
  EXPECT_NEAR(limit.da, element.da, 1e-12);
  EXPECT_NEAR(limit.db, element.db, 1e-12);
}

TEST(MinMap, ValueAndGradient) {
  EXPECT_EQ(min_map(2, -1), -1);
  EXPECT_EQ(min_map_gradient(2, -1).db, 1);
  EXPECT_EQ(min_map_gradient(2, -1).da, 0);
  EXPECT_EQ(min_map_gradient(-2, 1).da, 1);
  EXPECT_EQ(min_map_gradient(1, 1).da + min_map_gradient(1, 1).db, 1);  // a convex combination
}

TEST(PenalizedFischerBurmeister, ReducesToFbAtLambdaOneAndPenalizesBothPositive) {
  EXPECT_DOUBLE_EQ(penalized_fischer_burmeister(3, 4, 1.0), fischer_burmeister(3, 4));
  // λ = 0.5: 0.5 (5 − 7) − 0.5·3·4 = −1 − 6 = −7.
  EXPECT_DOUBLE_EQ(penalized_fischer_burmeister(3, 4, 0.5), -7);
  EXPECT_EQ(penalized_fischer_burmeister(0, 5, 0.5), 0);
  for (const auto& [a, b] : {std::pair{1.0, 2.0}, {-0.5, 0.3}, {2.0, -3.0}}) {
    const NcpGradient g = penalized_fischer_burmeister_gradient(a, b, 0.7);
    const NcpGradient fd =
        numeric_gradient([](double x, double y) { return penalized_fischer_burmeister(x, y, 0.7); }, a, b);
    EXPECT_NEAR(g.da, fd.da, 1e-7);
    EXPECT_NEAR(g.db, fd.db, 1e-7);
  }
  EXPECT_THROW((void)penalized_fischer_burmeister(1, 1, 0.0), InvalidProblem);
  EXPECT_THROW((void)penalized_fischer_burmeister(1, 1, 1.5), InvalidProblem);
}

TEST(SmoothedFischerBurmeister, ZeroOnTheCentralPathAndSmooth) {
  // φ_μ(a, b) = 0 ⇔ a, b > 0 and ab = μ: (2, 0.5) with μ = 1.
  EXPECT_NEAR(smoothed_fischer_burmeister(2, 0.5, 1.0), 0.0, 1e-15);
  EXPECT_DOUBLE_EQ(smoothed_fischer_burmeister(0, 0, 2.0), 2.0);  // √4
  EXPECT_EQ(smoothed_fischer_burmeister(3, 4, 0.0), fischer_burmeister(3, 4));
  const NcpGradient g = smoothed_fischer_burmeister_gradient(0, 0, 0.5);  // smooth at the origin
  EXPECT_DOUBLE_EQ(g.da, -1);
  for (const auto& [a, b] : {std::pair{1.0, 2.0}, {0.0, 0.0}, {-0.5, 0.3}}) {
    const NcpGradient s = smoothed_fischer_burmeister_gradient(a, b, 0.1);
    const NcpGradient fd =
        numeric_gradient([](double x, double y) { return smoothed_fischer_burmeister(x, y, 0.1); }, a, b);
    EXPECT_NEAR(s.da, fd.da, 1e-7);
    EXPECT_NEAR(s.db, fd.db, 1e-7);
  }
  EXPECT_THROW((void)smoothed_fischer_burmeister(1, 1, -1e-3), InvalidProblem);
}

}  // namespace
}  // namespace perp::core_ncp_function_test
