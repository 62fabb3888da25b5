// The private sparse factor of the interior points' Newton matrices (solvers/friction/convex/spd_factor.hpp).
#include "friction/convex/spd_factor.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>  // LDLT, the reference solve

#include <dlfcn.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace perp::detail::spd_factor_test {
namespace {

using ColSparse = Eigen::SparseMatrix<double>;

ColSparse lower_of(const Eigen::MatrixXd& dense) {
  std::vector<Eigen::Triplet<double>> entries;
  for (Eigen::Index j = 0; j < dense.cols(); ++j) {
    for (Eigen::Index i = j; i < dense.rows(); ++i) {
      if (dense(i, j) != 0) entries.emplace_back(static_cast<int>(i), static_cast<int>(j), dense(i, j));
    }
  }
  ColSparse lower(dense.rows(), dense.cols());
  lower.setFromTriplets(entries.begin(), entries.end());
  return lower;
}

/// The lower triangle of the 2D Laplacian (5-point stencil) of a side × side grid.
ColSparse laplacian_lower(int side) {
  const int n = side * side;
  std::vector<Eigen::Triplet<double>> entries;
  for (int y = 0; y < side; ++y) {
    for (int x = 0; x < side; ++x) {
      const int k = y * side + x;
      entries.emplace_back(k, k, 4.0);
      if (x + 1 < side) entries.emplace_back(k + 1, k, -1.0);
      if (y + 1 < side) entries.emplace_back(k + side, k, -1.0);
    }
  }
  ColSparse lower(n, n);
  lower.setFromTriplets(entries.begin(), entries.end());
  return lower;
}

/// tridiag(−1, `diagonal`, −1), n × n, dense.
Eigen::MatrixXd tridiagonal(int n, double diagonal) {
  Eigen::MatrixXd K = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i) {
    K(i, i) = diagonal;
    if (i + 1 < n) K(i + 1, i) = K(i, i + 1) = -1.0;
  }
  return K;
}

TEST(SpdFactor, SolvesASecondDifferenceMatrixAndRefactorsNewValues) {
  // K = tridiag(−1, 2 + s, −1), n = 200: K x = b checked against the dense solve.
  const int n = 200;
  const Eigen::MatrixXd K = tridiagonal(n, 2.0);
  Eigen::VectorXd b(n);
  for (int i = 0; i < n; ++i) b[i] = (i % 7) - 3.0;
  SpdFactor factor;
  factor.analyze(lower_of(K));
  for (const double shift : {0.0, 0.5, 1e3}) {
    const Eigen::MatrixXd shifted = K + shift * Eigen::MatrixXd::Identity(n, n);
    ASSERT_TRUE(factor.factorize(lower_of(shifted))) << "shift " << shift;
    const Eigen::VectorXd x = factor.solve(b);
    const Eigen::VectorXd expected = shifted.ldlt().solve(b);
    EXPECT_LT((x - expected).lpNorm<Eigen::Infinity>(), 1e-9 * (1 + expected.lpNorm<Eigen::Infinity>()))
        << "shift " << shift;
  }
}

TEST(SpdFactor, AnIndefinitePivotFallsBackToLdlt) {
  // [[1, 2], [2, 1]] has a negative second pivot (1 − 4 = −3): no LLᵀ exists, LDLᵀ does; x solves
  // x₁ + 2 x₂ = 3, 2 x₁ + x₂ = 3, so x = (1, 1).
  Eigen::MatrixXd K(2, 2);
  K << 1, 2, 2, 1;
  SpdFactor factor;
  factor.analyze(lower_of(K));
  ASSERT_TRUE(factor.factorize(lower_of(K)));
  const Eigen::VectorXd x = factor.solve(Eigen::Vector2d(3, 3));
  EXPECT_NEAR(x[0], 1.0, 1e-14);
  EXPECT_NEAR(x[1], 1.0, 1e-14);
  // After a new analysis the factor starts again from LLᵀ, which solves a definite matrix.
  Eigen::MatrixXd definite(2, 2);
  definite << 4, 1, 1, 3;
  factor.analyze(lower_of(definite));
  ASSERT_TRUE(factor.factorize(lower_of(definite)));
  const Eigen::VectorXd y = factor.solve(Eigen::Vector2d(1, 2));
  EXPECT_NEAR(y[0], 1.0 / 11, 1e-14);  // (3·1 − 1·2)/11
  EXPECT_NEAR(y[1], 7.0 / 11, 1e-14);  // (4·2 − 1·1)/11
  EXPECT_STREQ(SpdFactor::backend(), "cholmod");
}

std::size_t threads_of_this_process() {
  std::size_t count = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) ++count;
  return count;
}

TEST(SpdFactor, CholmodsOpenMpRegionsRunOnTheCallingThread) {
  // The 2D Laplacian of a 120 × 120 grid (14 400 unknowns) factors supernodally, with supernodes of
  // more than 1 024 entries, where CHOLMOD opens an OpenMP region of 4 threads to zero each one.
  // Factored on a thread of its own, it must add no thread to the process while that thread lives
  // (libgomp keeps a team's threads until the thread that made them ends), solve K x = b, and leave
  // the thread's max-active-levels as it found it (3 here).
  const ColSparse lower = laplacian_lower(120);
  const Eigen::Index n = lower.rows();
  const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(n, -1.0, 1.0);
  using Get = int (*)();
  using Set = void (*)(int);
  const auto get = reinterpret_cast<Get>(dlsym(RTLD_DEFAULT, "omp_get_max_active_levels"));
  const auto set = reinterpret_cast<Set>(dlsym(RTLD_DEFAULT, "omp_set_max_active_levels"));
  ASSERT_NE(get, nullptr) << "CHOLMOD is expected to bring libgomp";
  ASSERT_NE(set, nullptr);
  double residual = 1.0;
  int levels_after = -1;
  std::size_t before = 0;
  std::size_t after = 0;
  std::thread worker([&] {
    set(3);
    before = threads_of_this_process();
    SpdFactor factor;
    factor.analyze(lower);
    if (!factor.factorize(lower)) return;
    after = threads_of_this_process();  // a team's threads live as long as the thread that made them
    const Eigen::VectorXd x = factor.solve(b);
    const ColSparse full = lower.selfadjointView<Eigen::Lower>();
    residual = (full * x - b).lpNorm<Eigen::Infinity>();
    levels_after = get();
  });
  worker.join();
  EXPECT_LT(residual, 1e-10);
  EXPECT_EQ(levels_after, 3);
  EXPECT_EQ(after, before);
}

TEST(SpdFactor, CholmodsRegionsRunWithoutATeamAndOtherRegionsKeepTheirs) {
  // CHOLMOD's regions (the 120 × 120 Laplacian's supernodal factorization opens them) reach perp's
  // GOMP_parallel and run directly: the count of such regions grows and K x = b is solved. A region
  // opened outside a factorization, asking for 2 threads, still gets libgomp's team of 2 and is not
  // counted.
  const ColSparse lower = laplacian_lower(120);
  const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(lower.rows(), -1.0, 1.0);
  using Parallel = void (*)(void (*)(void*), void*, unsigned, unsigned);
  using Count = int (*)();
  const auto parallel = reinterpret_cast<Parallel>(dlsym(RTLD_DEFAULT, "GOMP_parallel"));
  const auto team_size = reinterpret_cast<Count>(dlsym(RTLD_DEFAULT, "omp_get_num_threads"));
  ASSERT_NE(parallel, nullptr);
  ASSERT_NE(team_size, nullptr) << "CHOLMOD is expected to bring libgomp";
  std::uint64_t direct_before = 0;
  std::uint64_t direct_after_factor = 0;
  std::uint64_t direct_after_user_region = 0;
  double residual = 1.0;
  std::atomic<int> seen_team{0};
  std::atomic<int> bodies{0};
  struct Probe {
    Count team_size;
    std::atomic<int>* seen_team;
    std::atomic<int>* bodies;
  } probe{team_size, &seen_team, &bodies};
  std::thread worker([&] {  // a thread of its own: the counts are per thread
    direct_before = SpdFactor::regions_run_directly();
    SpdFactor factor;
    factor.analyze(lower);
    if (!factor.factorize(lower)) return;
    const Eigen::VectorXd x = factor.solve(b);
    const ColSparse full = lower.selfadjointView<Eigen::Lower>();
    residual = (full * x - b).lpNorm<Eigen::Infinity>();
    direct_after_factor = SpdFactor::regions_run_directly();
    parallel(
        [](void* data) {
          auto* p = static_cast<Probe*>(data);
          p->seen_team->store(p->team_size());
          p->bodies->fetch_add(1);
        },
        &probe, 2, 0);
    direct_after_user_region = SpdFactor::regions_run_directly();
  });
  worker.join();
  EXPECT_LT(residual, 1e-10);
  EXPECT_GT(direct_after_factor, direct_before);
  EXPECT_EQ(direct_after_user_region, direct_after_factor);
  EXPECT_EQ(seen_team.load(), 2);
  EXPECT_EQ(bodies.load(), 2);
}

TEST(SpdFactor, AMatrixOfAnotherPatternThanTheAnalysedIsRefusedWithItsCounts) {
  // K = tridiag(−1, 4, −1), n = 50, analysed; an uncompressed copy of it factors and solves; a
  // matrix with one more entry (K(10, 0) = −0.5) is refused, naming both counts.
  const int n = 50;
  Eigen::MatrixXd K = tridiagonal(n, 4.0);
  SpdFactor factor;
  factor.analyze(lower_of(K));
  ColSparse uncompressed = lower_of(K);
  uncompressed.uncompress();
  ASSERT_TRUE(factor.factorize(uncompressed));
  const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(n, 1.0, 2.0);
  EXPECT_LT((K * factor.solve(b) - b).lpNorm<Eigen::Infinity>(), 1e-12);
  K(10, 0) = K(0, 10) = -0.5;
  try {
    (void)factor.factorize(lower_of(K));
    if (std::string(SpdFactor::backend()) == "cholmod") ADD_FAILURE() << "a changed pattern was factored";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("50 rows and 100 entries, against 50 and 99"), std::string::npos)
        << error.what();
  }
}

TEST(SpdFactor, AnAnalysisOfThePatternAnalysedLastIsKeptAndAnotherPatternIsAnalysed) {
  // tridiag(−1, 4, −1), n = 40, then the same pattern with other values (diagonal 9), uncompressed:
  // the analysis is kept; then one more entry (K(20, 0) = −0.5): analysed afresh. Each factor
  // solves K x = b to round-off (checked by K x − b).
  const int n = 40;
  const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(n, -1.0, 3.0);
  SpdFactor factor;
  const auto solves = [&](const Eigen::MatrixXd& K, const ColSparse& lower) {
    factor.analyze(lower);
    ASSERT_TRUE(factor.factorize(lower));
    EXPECT_LT((K * factor.solve(b) - b).lpNorm<Eigen::Infinity>(), 1e-12);
  };
  const Eigen::MatrixXd first = tridiagonal(n, 4.0);
  solves(first, lower_of(first));
  EXPECT_EQ(factor.reused_analyses(), 0);
  const Eigen::MatrixXd second = tridiagonal(n, 9.0);
  ColSparse uncompressed = lower_of(second);
  uncompressed.uncompress();
  solves(second, uncompressed);
  const bool cholmod = std::string(SpdFactor::backend()) == "cholmod";
  EXPECT_EQ(factor.reused_analyses(), cholmod ? 1 : 0);
  Eigen::MatrixXd third = first;
  third(20, 0) = third(0, 20) = -0.5;
  solves(third, lower_of(third));
  EXPECT_EQ(factor.reused_analyses(), cholmod ? 1 : 0);
  solves(third, lower_of(third));
  EXPECT_EQ(factor.reused_analyses(), cholmod ? 2 : 0);
}

TEST(SpdFactor, ASingularMatrixIsRefused) {
  Eigen::MatrixXd K = Eigen::MatrixXd::Zero(2, 2);
  K(0, 0) = 1.0;  // the second pivot is exactly 0
  SpdFactor factor;
  factor.analyze(lower_of(K));
  EXPECT_FALSE(factor.factorize(lower_of(K)));
}

}  // namespace
}  // namespace perp::detail::spd_factor_test
