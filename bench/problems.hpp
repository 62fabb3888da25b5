#pragma once
/// \file
/// The problems every benchmark in bench/ runs on, generated the same way everywhere so that
/// perp_bench and compare_siconos time the very same numbers.
///
///   M = AᵀA + 0.1·I,  A ∈ ℝ^{n×n} with entries uniform in [−1, 1],  q uniform in [−1, 1]^n.
///
/// M is symmetric positive definite (its smallest eigenvalue is >= 0.1), so the LCP has exactly
/// one solution and every method in perp applies; about half of q is negative, so the solution
/// has a nontrivial active set and Lemke needs O(n) pivots.

#include <Eigen/Dense>
#include <cstdint>
#include <random>
#include <utility>

#include "perp/core/lcp.hpp"

namespace perp::bench {

/// The seed of the generator. Each size n seeds its own engine with `kProblemSeed + n`, so a
/// problem does not depend on which other sizes were generated before it.
inline constexpr std::uint64_t kProblemSeed = 20240601;

/// The dense SPD problem of size n described above. Deterministic: std::mt19937_64 is fully
/// specified by the standard, and the values are drawn in a fixed order (A column by column,
/// then q) through our own affine map of the engine's output, because
/// std::uniform_real_distribution's algorithm is implementation-defined.
inline Lcp spd_problem(Eigen::Index n) {
  std::mt19937_64 engine(kProblemSeed + static_cast<std::uint64_t>(n));
  // 53 random bits → a double in [0, 1), then mapped to [−1, 1).
  const auto uniform_pm1 = [&engine] {
    const double unit = static_cast<double>(engine() >> 11) * 0x1.0p-53;
    return 2.0 * unit - 1.0;
  };
  Eigen::MatrixXd a(n, n);
  for (Eigen::Index j = 0; j < n; ++j) {
    for (Eigen::Index i = 0; i < n; ++i) a(i, j) = uniform_pm1();
  }
  Eigen::VectorXd q(n);
  for (Eigen::Index i = 0; i < n; ++i) q(i) = uniform_pm1();

  Lcp problem;
  problem.M = a.transpose() * a;
  problem.M.diagonal().array() += 0.1;
  // AᵀA is symmetric in exact arithmetic; make it so in floating point too, so that methods
  // that test symmetry (Method::Auto) see what the formula says.
  problem.M = (0.5 * (problem.M + problem.M.transpose())).eval();
  problem.q = std::move(q);
  return problem;
}

}  // namespace perp::bench
