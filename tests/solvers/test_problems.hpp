#pragma once
// Small problems with hand-derived answers, shared by the solver tests.

#include <random>

#include "perp/core/lcp.hpp"

namespace perp::testing_problems {

/// [chapter] §1.2: two-contact block, m = 1, I = 1/12, L = 1, g = 10 → λ = (5, 5), with the matrix as
/// [chapter] prints it (the true Delassus operator is [[4, −2], [−2, 4]], docs/contact.md; same λ).
inline Lcp two_contact_block() { return {Eigen::Matrix2d{{1.75, 0.25}, {0.25, 1.75}}, Eigen::Vector2d{-10, -10}}; }
/// [chapter] §1.4: M = [[1, 0], [2, 1]], q = (−1, −3) → z = (1, 1), w = 0.
inline Lcp chapter_lemke_example() { return {Eigen::Matrix2d{{1, 0}, {2, 1}}, Eigen::Vector2d{-1, -3}}; }
/// [chapter] §1.2: M = (−1), q = (−1) has no solution.
inline Lcp no_solution() { return {Eigen::MatrixXd::Constant(1, 1, -1.0), Eigen::VectorXd::Constant(1, -1.0)}; }
/// [chapter] §1.2: M = 0, q = 0: every z >= 0 solves.
inline Lcp infinitely_many() { return {Eigen::MatrixXd::Zero(2, 2), Eigen::VectorXd::Zero(2)}; }
/// M = [[1, 2], [2, 1]], q = (−1, −1): exactly three solutions (1, 0), (0, 1), (1/3, 1/3).
inline Lcp three_solutions() { return {Eigen::Matrix2d{{1, 2}, {2, 1}}, Eigen::Vector2d{-1, -1}}; }

/// SPD M = AᵀA + 0.1 I, A and q uniform in [−1, 1], fixed seed.
inline Lcp random_spd(Eigen::Index n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Eigen::MatrixXd A(n, n);
  for (Eigen::Index j = 0; j < n; ++j)
    for (Eigen::Index i = 0; i < n; ++i) A(i, j) = u(rng);
  Lcp p;
  p.M = A.transpose() * A + 0.1 * Eigen::MatrixXd::Identity(n, n);
  p.q.resize(n);
  for (Eigen::Index i = 0; i < n; ++i) p.q[i] = u(rng);
  return p;
}

}  // namespace perp::testing_problems
