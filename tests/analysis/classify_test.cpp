#include "perp/analysis/classify.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <random>

#include "perp/core/error.hpp"
#include "perp/io/siconos.hpp"
#include "witness_check.hpp"

namespace perp::analysis_classify_test {
namespace {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using testing_witness::expect_false_answers_witnessed;
using testing_witness::principal_minor;
using testing_witness::quadratic_form;
using testing_witness::witness_refutes;

MatrixXd matrix(std::initializer_list<std::initializer_list<double>> rows) {
  MatrixXd M(static_cast<Index>(rows.size()), static_cast<Index>(rows.begin()->size()));
  Index i = 0;
  for (const auto& row : rows) {
    Index j = 0;
    for (const double v : row) M(i, j++) = v;
    ++i;
  }
  return M;
}

std::optional<bool> holds(const MatrixReport& r, MatrixClass c) { return r[c].holds; }

/// Classify and check every false answer's witness independently.
MatrixReport checked(const MatrixXd& M, const ClassifyOptions& options = {}) {
  const MatrixReport r = classify(M, options);
  expect_false_answers_witnessed(M, r);
  return r;
}

// The Horn matrix: copositive, not PSD and not the sum of a PSD and a nonnegative matrix.
MatrixXd horn() {
  MatrixXd H(5, 5);
  for (Index i = 0; i < 5; ++i) {
    for (Index j = 0; j < 5; ++j) {
      const Index d = std::min((i - j + 5) % 5, (j - i + 5) % 5);
      H(i, j) = d == 0 ? 1.0 : (d == 1 ? -1.0 : 1.0);
    }
  }
  return H;
}

TEST(MatrixClassNames, RoundTripAndAreLowerCase) {
  for (const MatrixClass c : all_matrix_classes()) {
    EXPECT_EQ(from_string<MatrixClass>(to_string(c)), c);
    for (const char ch : to_string(c)) EXPECT_FALSE(std::isupper(static_cast<unsigned char>(ch))) << to_string(c);
  }
  EXPECT_EQ(all_matrix_classes().size(), kMatrixClassCount);
  EXPECT_EQ(to_string(MatrixClass::P), "p-matrix");
  EXPECT_EQ(to_string(MatrixClass::CopositivePlus), "copositive-plus");
  EXPECT_EQ(to_string(Decision::SufficientCondition), "sufficient-condition");
  EXPECT_THROW((void)from_string<MatrixClass>("P"), InvalidProblem);
}

// [chapter] §1.3, exercise 1: is each matrix P, is it PSD? By hand: (a) minors 2, 3, 6 and
// symmetric part [[2, .5], [.5, 3]] PD; (b) minors 1, 1, 3, symmetric part [[1, .5], [.5, 1]] PD;
// (c) minors 1, 1, 1 but symmetric part [[1, -1.5], [-1.5, 1]] has eigenvalue -0.5, and
// x = (1, 1) gives xᵀMx = -1.
TEST(Classify, ChapterExerciseA) {
  const MatrixReport r = checked(matrix({{2, 1}, {0, 3}}));
  EXPECT_EQ(holds(r, MatrixClass::P), true);
  EXPECT_EQ(holds(r, MatrixClass::PositiveDefinite), true);
  EXPECT_EQ(holds(r, MatrixClass::PositiveSemidefinite), true);
  EXPECT_EQ(holds(r, MatrixClass::Symmetric), false);
  EXPECT_EQ(holds(r, MatrixClass::Z), false);
  EXPECT_EQ(holds(r, MatrixClass::DiagonallyDominant), true);  // 2 > 1, 3 > 0
}

TEST(Classify, ChapterExerciseB) {
  const MatrixReport r = checked(matrix({{1, 2}, {-1, 1}}));
  EXPECT_EQ(holds(r, MatrixClass::P), true);
  EXPECT_EQ(holds(r, MatrixClass::PositiveDefinite), true);
  EXPECT_EQ(holds(r, MatrixClass::DiagonallyDominant), false);  // row 0: 1 <= 2
  EXPECT_EQ(holds(r, MatrixClass::StrictlyCopositive), true);
}

TEST(Classify, ChapterExerciseCIsPButNotPositiveSemidefinite) {
  const MatrixXd M = matrix({{1, -3}, {0, 1}});
  const MatrixReport r = checked(M);
  EXPECT_EQ(holds(r, MatrixClass::P), true);
  EXPECT_EQ(holds(r, MatrixClass::PositiveSemidefinite), false);
  EXPECT_EQ(holds(r, MatrixClass::PositiveDefinite), false);
  // Z and P: an M-matrix, yet not copositive: x = (1, 1) gives -1.
  EXPECT_EQ(holds(r, MatrixClass::Z), true);
  EXPECT_EQ(holds(r, MatrixClass::MMatrix), true);
  EXPECT_EQ(holds(r, MatrixClass::Copositive), false);
  EXPECT_DOUBLE_EQ(quadratic_form(M, VectorXd::Ones(2)), -1.0);
  // The symmetric part's smallest eigenvalue is -0.5: no witness can go below -0.5·‖x‖².
  const auto& w = std::get<QuadraticFormWitness>(r[MatrixClass::PositiveSemidefinite].witness);
  EXPECT_GE(w.value, -0.5 * w.x.squaredNorm() - 1e-12);
  EXPECT_EQ(holds(r, MatrixClass::ColumnSufficient), true);  // P ⇒ sufficient
}

TEST(Classify, CopositiveButNotPositiveSemidefinite) {
  // [[1, 2], [2, 1]]: eigenvalues 3 and -1 (x = (1, -1) gives -2), but nonnegative with a
  // positive diagonal, so strictly copositive.
  const MatrixReport r = checked(matrix({{1, 2}, {2, 1}}));
  EXPECT_EQ(holds(r, MatrixClass::PositiveSemidefinite), false);
  EXPECT_EQ(holds(r, MatrixClass::Copositive), true);
  EXPECT_EQ(holds(r, MatrixClass::StrictlyCopositive), true);
  EXPECT_EQ(holds(r, MatrixClass::CopositivePlus), true);
  EXPECT_EQ(holds(r, MatrixClass::P), false);  // det = -3
  const auto& minor = std::get<MinorWitness>(r[MatrixClass::P].witness);
  EXPECT_EQ(minor.indices, (std::vector<Index>{0, 1}));
  EXPECT_NEAR(minor.minor, -3, 1e-12);
}

TEST(Classify, CopositiveButNotCopositivePlus) {
  // [[0, 1], [1, 0]]: x = e_0 gives xᵀMx = 0 while (M + Mᵀ)e_0 = (0, 2).
  const MatrixReport r = checked(matrix({{0, 1}, {1, 0}}));
  EXPECT_EQ(holds(r, MatrixClass::Copositive), true);
  EXPECT_EQ(holds(r, MatrixClass::CopositivePlus), false);
  EXPECT_EQ(holds(r, MatrixClass::StrictlyCopositive), false);
  const auto& w = std::get<QuadraticFormWitness>(r[MatrixClass::CopositivePlus].witness);
  ASSERT_TRUE(w.symmetric_product.has_value());
  EXPECT_DOUBLE_EQ(w.value, 0.0);
}

TEST(Classify, HornMatrixIsCopositiveOnlyByTheExactTest) {
  const MatrixXd H = horn();
  const MatrixReport r = checked(H);
  EXPECT_EQ(holds(r, MatrixClass::PositiveSemidefinite), false);
  EXPECT_EQ(holds(r, MatrixClass::Copositive), true);
  EXPECT_EQ(r[MatrixClass::Copositive].decision, Decision::Exact);
  // x = (1, 1, 0, 0, 0): xᵀHx = 0, and (H + Hᵀ)x = (0, 0, 0, 4, 0) by hand.
  EXPECT_EQ(holds(r, MatrixClass::StrictlyCopositive), false);
  EXPECT_EQ(holds(r, MatrixClass::CopositivePlus), false);
  VectorXd x(5);
  x << 1, 1, 0, 0, 0;
  EXPECT_DOUBLE_EQ(quadratic_form(H, x), 0.0);
  EXPECT_EQ((2 * H * x), (VectorXd(5) << 0, 0, 0, 4, 0).finished());
  // Above the exact limit nothing is claimed.
  ClassifyOptions small;
  small.max_copositive_size = 4;
  const MatrixReport limited = checked(H, small);
  EXPECT_FALSE(limited[MatrixClass::Copositive].holds.has_value());
  EXPECT_EQ(limited[MatrixClass::Copositive].decision, Decision::Undecided);
  EXPECT_THAT(limited[MatrixClass::Copositive].reason, testing::HasSubstr("exact limit 4"));
}

TEST(Classify, NotCopositiveAlthoughEveryTwoByTwoIs) {
  // Every 2×2 principal submatrix [[1, -1], [-1, 1]] is PSD, but x = (1, 1, 1) gives 3 - 6 = -3.
  const MatrixXd M = matrix({{1, -1, -1}, {-1, 1, -1}, {-1, -1, 1}});
  const MatrixReport r = checked(M);
  EXPECT_EQ(holds(r, MatrixClass::Copositive), false);
  EXPECT_EQ(r[MatrixClass::Copositive].decision, Decision::Exact);
  const auto& w = std::get<QuadraticFormWitness>(r[MatrixClass::Copositive].witness);
  EXPECT_GT(w.x.minCoeff(), 0);  // the support is the whole set
}

TEST(Classify, P0ButNotP) {
  // [[1, 1], [1, 1]]: minors 1, 1, 0. PSD, and nonnegative with a positive diagonal.
  const MatrixReport r = checked(matrix({{1, 1}, {1, 1}}));
  EXPECT_EQ(holds(r, MatrixClass::P0), true);
  EXPECT_EQ(holds(r, MatrixClass::P), false);
  EXPECT_NEAR(std::get<MinorWitness>(r[MatrixClass::P].witness).minor, 0, 1e-12);
  EXPECT_EQ(holds(r, MatrixClass::PositiveSemidefinite), true);
  EXPECT_EQ(holds(r, MatrixClass::PositiveDefinite), false);
  EXPECT_EQ(holds(r, MatrixClass::StrictlyCopositive), true);
  // A skew-symmetric matrix: xᵀMx = 0 for all x, minors 0, 0, 1.
  const MatrixReport skew = checked(matrix({{0, 1}, {-1, 0}}));
  EXPECT_EQ(holds(skew, MatrixClass::P0), true);
  EXPECT_EQ(holds(skew, MatrixClass::P), false);
  EXPECT_EQ(holds(skew, MatrixClass::PositiveSemidefinite), true);
  EXPECT_EQ(holds(skew, MatrixClass::CopositivePlus), true);  // PSD ⇒ copositive-plus
}

TEST(Classify, ZButNotMMatrix) {
  // [[1, -2], [-2, 1]] (the trap 5 matrix of [chapter]): Z, det = -3; x = (1, 1) gives -2.
  const MatrixReport r = checked(matrix({{1, -2}, {-2, 1}}));
  EXPECT_EQ(holds(r, MatrixClass::Z), true);
  EXPECT_EQ(holds(r, MatrixClass::MMatrix), false);
  EXPECT_NEAR(std::get<MinorWitness>(r[MatrixClass::MMatrix].witness).minor, -3, 1e-12);
  EXPECT_EQ(holds(r, MatrixClass::Copositive), false);
  EXPECT_EQ(holds(r, MatrixClass::PositiveSemidefinite), false);
  const MatrixReport m = checked(matrix({{2, -1}, {-1, 2}}));
  EXPECT_EQ(holds(m, MatrixClass::MMatrix), true);
}

TEST(Classify, PositiveStableIsNotEnoughForP) {
  // §1.3 calls positive real parts of the eigenvalues sufficient for P; they are not:
  // M = [[-1, 1], [-4, 3]] has trace 2, det 1 (eigenvalues 1, 1) and M_00 = -1.
  const MatrixXd M = matrix({{-1, 1}, {-4, 3}});
  const Eigen::VectorXcd eigenvalues = M.eigenvalues();
  EXPECT_GT(eigenvalues.real().minCoeff(), 0.99);
  const MatrixReport r = checked(M);
  EXPECT_EQ(holds(r, MatrixClass::P), false);
  EXPECT_EQ(std::get<MinorWitness>(r[MatrixClass::P].witness).indices, std::vector<Index>{0});
}

TEST(Classify, SufficiencyWitnessReversesSigns) {
  // Not P0 (det [[1, 2], [2, 1]] = -3): neither column nor row sufficient.
  const MatrixXd M = matrix({{1, 2, 0}, {3, 1, 0}, {0, 0, 1}});
  const MatrixReport r = checked(M);
  EXPECT_EQ(holds(r, MatrixClass::ColumnSufficient), false);
  EXPECT_EQ(holds(r, MatrixClass::RowSufficient), false);
  EXPECT_TRUE(std::holds_alternative<SignReversalWitness>(r[MatrixClass::ColumnSufficient].witness));
  EXPECT_TRUE(std::get<SignReversalWitness>(r[MatrixClass::RowSufficient].witness).transposed);
  // P0, not PSD, not P and not symmetric: no exact test, so undecided.
  const MatrixReport open = checked(matrix({{0, 1}, {0, 0}}));
  EXPECT_EQ(holds(open, MatrixClass::P0), true);
  EXPECT_FALSE(open[MatrixClass::ColumnSufficient].holds.has_value());
}

TEST(Classify, TriangularAndZMatricesAreExactAtAnySize) {
  const Index n = 60;
  MatrixXd T = MatrixXd::Random(n, n).triangularView<Eigen::Upper>();
  T.diagonal().setConstant(0.5);
  const MatrixReport t = checked(T);
  EXPECT_EQ(holds(t, MatrixClass::P), true);
  EXPECT_EQ(t[MatrixClass::P].decision, Decision::Exact);
  // A tridiagonal Z-matrix: 2 on the diagonal, -1 beside it (the 1-D Laplacian) is an M-matrix;
  // with 1.9 on the diagonal the leading minors turn negative.
  MatrixXd L = MatrixXd::Zero(n, n);
  for (Index i = 0; i < n; ++i) {
    L(i, i) = 2;
    if (i + 1 < n) L(i, i + 1) = L(i + 1, i) = -1;
  }
  // Not symmetric, so that definiteness does not decide it.
  L(0, 1) = -0.5;
  const MatrixReport l = checked(L);
  EXPECT_EQ(holds(l, MatrixClass::MMatrix), true);
  MatrixXd bad = L;
  bad.diagonal().setConstant(1.9);
  const MatrixReport b = checked(bad);
  EXPECT_EQ(holds(b, MatrixClass::MMatrix), false);
  EXPECT_EQ(b[MatrixClass::P].decision, Decision::Exact);
}

// Block diagonal with 2×2 blocks [[1, -3], [0.1, 1]] (P, not PSD, not triangular, not Z): P
// overall, since its principal minors are products of the blocks'.
MatrixXd block_p_matrix(Index blocks) {
  MatrixXd M = MatrixXd::Zero(2 * blocks, 2 * blocks);
  for (Index b = 0; b < blocks; ++b) M.block(2 * b, 2 * b, 2, 2) << 1, -3, 0.1, 1;
  return M;
}

TEST(Classify, PByEnumerationAtTwentyAndUndecidedBeyondTheLimit) {
  // A permutation similarity keeps P but hides the block structure.
  std::mt19937 rng(5);
  Eigen::PermutationMatrix<Eigen::Dynamic> perm(20);
  perm.setIdentity();
  std::shuffle(perm.indices().data(), perm.indices().data() + 20, rng);
  const MatrixXd M = perm * block_p_matrix(10) * perm.transpose();
  const MatrixReport r = checked(M);
  EXPECT_EQ(holds(r, MatrixClass::P), true);
  EXPECT_EQ(r[MatrixClass::P].decision, Decision::Exact);
  EXPECT_EQ(holds(r, MatrixClass::PositiveSemidefinite), false);
  // One block made non-P ([[1, -3], [-0.5, 1]], det 1 - 1.5 < 0) is found, with its two indices.
  MatrixXd broken = block_p_matrix(10);
  broken(15, 14) = -0.5;
  const MatrixReport rb = checked(broken);
  EXPECT_EQ(holds(rb, MatrixClass::P), false);
  EXPECT_EQ(holds(rb, MatrixClass::P0), false);
  EXPECT_EQ(std::get<MinorWitness>(rb[MatrixClass::P0].witness).indices, (std::vector<Index>{14, 15}));
  // n = 26 > 20: neither PD nor dominant, triangular or Z, so P stays open.
  const MatrixReport big = checked(block_p_matrix(13));
  EXPECT_FALSE(big[MatrixClass::P].holds.has_value());
  EXPECT_EQ(big[MatrixClass::P].decision, Decision::Undecided);
  EXPECT_THAT(big[MatrixClass::P].reason, testing::HasSubstr("enumeration limit 20"));
}

TEST(Classify, MinorOnlyOfTheWholeMatrixFails) {
  // Every proper principal minor of this 3×3 is positive, its determinant is not: the
  // recursion must reach the last node. M = [[1, 0, a], [a, 1, 0], [0, a, 1]] has
  // det = 1 + a³; 2×2 minors 1, 1, 1; so a = -1.5 gives det < 0.
  const MatrixXd M = matrix({{1, 0, -1.5}, {-1.5, 1, 0}, {0, -1.5, 1}});
  const MatrixReport r = checked(M);
  EXPECT_EQ(holds(r, MatrixClass::P0), false);
  const auto& w = std::get<MinorWitness>(r[MatrixClass::P0].witness);
  EXPECT_EQ(w.indices, (std::vector<Index>{0, 1, 2}));
  EXPECT_NEAR(w.minor, 1 - 1.5 * 1.5 * 1.5, 1e-12);
}

TEST(Classify, ZeroDiagonalNodesAreSettledForP0) {
  // All diagonal entries zero: no 1×1 pivot anywhere. [[0, 1, 1], [-1, 0, 1], [-1, -1, 0]] is
  // skew-symmetric, hence PSD and P0; [[0, 1], [1, 0]] inside a 3×3 is not P0 (minor -1).
  const MatrixReport skew = checked(matrix({{0, 1, 1}, {-1, 0, 1}, {-1, -1, 0}}));
  EXPECT_EQ(holds(skew, MatrixClass::P0), true);
  const MatrixReport cyclic = checked(matrix({{0, 1, 0}, {0, 0, 1}, {1, 0, 0}}));
  // det = 1 and every 2×2 minor is 0: P0.
  EXPECT_EQ(holds(cyclic, MatrixClass::P0), true);
  // det [[0, 1, 0], [0, 0, 1], [-1, 0, 0]] = -1·(0·0 - 1·(-1)) = -1, every 2×2 minor 0.
  const MatrixReport negative = checked(matrix({{0, 1, 0}, {0, 0, 1}, {-1, 0, 0}}));
  EXPECT_EQ(holds(negative, MatrixClass::P0), false);
  EXPECT_NEAR(std::get<MinorWitness>(negative[MatrixClass::P0].witness).minor, -1, 1e-12);
}

TEST(Classify, ZeroMatrix) {
  const MatrixReport r = checked(MatrixXd::Zero(3, 3));
  EXPECT_EQ(holds(r, MatrixClass::PositiveSemidefinite), true);
  EXPECT_EQ(holds(r, MatrixClass::PositiveDefinite), false);
  EXPECT_EQ(holds(r, MatrixClass::P0), true);
  EXPECT_EQ(holds(r, MatrixClass::P), false);
  EXPECT_EQ(holds(r, MatrixClass::CopositivePlus), true);
  EXPECT_EQ(holds(r, MatrixClass::StrictlyCopositive), false);
  EXPECT_EQ(holds(r, MatrixClass::DiagonallyDominant), false);
}

TEST(Classify, AnswersDoNotDependOnTheUnitsOfM) {
  const std::vector<MatrixXd> matrices{matrix({{1, -3}, {0, 1}}), matrix({{0, 1}, {1, 0}}), horn(),
                                       matrix({{1, 1}, {1, 1}}), matrix({{1, -1, -1}, {-1, 1, -1}, {-1, -1, 1}})};
  for (const MatrixXd& M : matrices) {
    const MatrixReport reference = classify(M);
    for (const double scale : {1e-150, 1e-8, 1e8, 1e150}) {
      const MatrixReport scaled = checked(scale * M);
      for (const MatrixClass c : all_matrix_classes()) {
        EXPECT_EQ(scaled[c].holds, reference[c].holds) << to_string(c) << " at scale " << scale << "\n" << M;
      }
    }
  }
}

TEST(Classify, InvalidInput) {
  EXPECT_THROW((void)classify(MatrixXd(0, 0)), InvalidProblem);
  try {
    (void)classify(MatrixXd::Zero(2, 3));
    ADD_FAILURE() << "no exception";
  } catch (const InvalidProblem& e) {
    EXPECT_THAT(e.what(), testing::HasSubstr("square"));
  }
  MatrixXd nan = MatrixXd::Identity(2, 2);
  nan(1, 0) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW((void)classify(nan), InvalidProblem);
  ClassifyOptions bad;
  bad.tolerance = -1;
  EXPECT_THROW((void)classify(MatrixXd::Identity(2, 2), bad), InvalidProblem);
  bad = {};
  bad.max_minor_size = 41;
  EXPECT_THROW(bad.validate(), InvalidProblem);
}

TEST(Classify, CheapReportLeavesExpensiveClassesOpen) {
  // Non-symmetric, n = 300 > 200: no factorization in the cheap report.
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  MatrixXd M(300, 300);
  for (Index j = 0; j < 300; ++j) {
    for (Index i = 0; i < 300; ++i) M(i, j) = u(rng);
  }
  M.diagonal().array() += 2;
  const MatrixReport cheap = checked(M, ClassifyOptions::cheap());
  EXPECT_FALSE(cheap[MatrixClass::PositiveSemidefinite].holds.has_value());
  EXPECT_THAT(cheap[MatrixClass::PositiveSemidefinite].reason, testing::HasSubstr("cheap"));
  const MatrixReport full = checked(M);
  EXPECT_TRUE(full[MatrixClass::PositiveSemidefinite].holds.has_value());
}

TEST(Classify, EveryCorpusMatrixIsWitnessed) {
  // Siconos' LCP files, n = 2..40: every false answer is rechecked; P/P0 decided up to n = 20.
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(PERP_SICONOS_DATA_DIR)) {
    if (entry.path().extension() != ".dat") continue;
    const MatrixXd M = read_siconos_lcp(entry.path()).M;
    const MatrixReport r = classify(M);
    expect_false_answers_witnessed(M, r, entry.path().filename().string());
    if (M.rows() <= 20) {
      EXPECT_TRUE(r[MatrixClass::P].holds.has_value()) << entry.path();
      EXPECT_TRUE(r[MatrixClass::P0].holds.has_value()) << entry.path();
    }
    if (M.rows() <= 12) {
      EXPECT_TRUE(r[MatrixClass::CopositivePlus].holds.has_value()) << entry.path();
    }
    ++files;
  }
  EXPECT_EQ(files, 20);
}

// ---------------------------------------------------------------------------------------------
// Random matrices against brute force.

struct BruteForceMinors {
  bool p = true;
  bool p0 = true;
};

BruteForceMinors brute_force_minors(const MatrixXd& M) {
  BruteForceMinors b;
  const Index n = M.rows();
  for (unsigned mask = 1; mask < (1U << n); ++mask) {
    std::vector<Index> idx;
    for (Index i = 0; i < n; ++i) {
      if ((mask >> i) & 1U) idx.push_back(i);
    }
    const double minor = principal_minor(M, idx);
    if (minor <= 1e-9) b.p = false;
    if (minor < -1e-9) b.p0 = false;
  }
  return b;
}

MatrixXd random_integer_matrix(std::mt19937& rng, Index n, int range, int diagonal_boost) {
  std::uniform_int_distribution<int> entry(-range, range);
  MatrixXd M(n, n);
  for (Index j = 0; j < n; ++j) {
    for (Index i = 0; i < n; ++i) M(i, j) = entry(rng);
  }
  M.diagonal().array() += diagonal_boost;
  return M;
}

TEST(ClassifyRandom, PAndP0AgreeWithEveryMinor) {
  std::mt19937 rng(20261201);
  int p_count = 0;
  int p0_not_p = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const Index n = 1 + trial % 7;
    const MatrixXd M = random_integer_matrix(rng, n, trial % 3 == 0 ? 1 : 3, trial % 4);
    const MatrixReport r = checked(M);
    const BruteForceMinors b = brute_force_minors(M);
    ASSERT_TRUE(r[MatrixClass::P].holds.has_value());
    ASSERT_TRUE(r[MatrixClass::P0].holds.has_value());
    EXPECT_EQ(*r[MatrixClass::P].holds, b.p) << M;
    EXPECT_EQ(*r[MatrixClass::P0].holds, b.p0) << M;
    p_count += b.p ? 1 : 0;
    p0_not_p += (b.p0 && !b.p) ? 1 : 0;
  }
  // The sample covers both answers of both classes.
  EXPECT_GT(p_count, 50);
  EXPECT_GT(p0_not_p, 20);
}

TEST(ClassifyRandom, DefinitenessAgreesWithEigenvalues) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 300; ++trial) {
    const Index n = 1 + trial % 6;
    MatrixXd M = random_integer_matrix(rng, n, 2, trial % 5);
    if (trial % 3 == 0) M = M.transpose() * M;  // PSD, often singular
    const MatrixReport r = checked(M);
    const double lambda = Eigen::SelfAdjointEigenSolver<MatrixXd>(0.5 * (M + M.transpose())).eigenvalues().minCoeff();
    EXPECT_EQ(r[MatrixClass::PositiveSemidefinite].holds, lambda >= -1e-9) << M;
    EXPECT_EQ(r[MatrixClass::PositiveDefinite].holds, lambda > 1e-9) << M;
  }
}

// 2×2 symmetric [[a, b], [b, c]]: copositive ⇔ a, c >= 0 and b >= -√(ac); strictly ⇔ a, c > 0
// and b > -√(ac); copositive-plus ⇔ copositive and (a = 0 or c = 0 ⇒ b = 0).
TEST(ClassifyRandom, CopositivityOfTwoByTwoAgreesWithTheClosedForm) {
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> entry(-2, 2);
  for (int trial = 0; trial < 400; ++trial) {
    const double a = entry(rng);
    const double c = entry(rng);
    const double b = entry(rng);
    const double skew = entry(rng);
    const MatrixXd M = matrix({{a, b + skew}, {b - skew, c}});  // same symmetric part
    const MatrixReport r = checked(M);
    const bool copositive = a >= 0 && c >= 0 && (b >= 0 || b * b <= a * c);
    const bool strict = a > 0 && c > 0 && (b >= 0 || b * b < a * c);
    const bool plus = copositive && (a != 0 || b == 0) && (c != 0 || b == 0);
    EXPECT_EQ(r[MatrixClass::Copositive].holds, copositive) << M;
    EXPECT_EQ(r[MatrixClass::StrictlyCopositive].holds, strict) << M;
    EXPECT_EQ(r[MatrixClass::CopositivePlus].holds, plus) << M;
  }
}

// Hadeler (1983): symmetric 3×3 A is copositive iff a_ii >= 0, a_ij >= -√(a_ii a_jj) and
// √(a11 a22 a33) + a12 √a33 + a13 √a22 + a23 √a11 + √(2 (a12 + √(a11 a22)) (a13 + √(a11 a33))
// (a23 + √(a22 a33))) >= 0.
TEST(ClassifyRandom, CopositivityOfThreeByThreeAgreesWithHadeler) {
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> diag(0.05, 2);
  std::uniform_real_distribution<double> off(-1.5, 1);
  int copositive_count = 0;
  for (int trial = 0; trial < 500; ++trial) {
    MatrixXd A(3, 3);
    for (Index i = 0; i < 3; ++i) A(i, i) = diag(rng);
    A(0, 1) = A(1, 0) = off(rng);
    A(0, 2) = A(2, 0) = off(rng);
    A(1, 2) = A(2, 1) = off(rng);
    const double s1 = std::sqrt(A(0, 0));
    const double s2 = std::sqrt(A(1, 1));
    const double s3 = std::sqrt(A(2, 2));
    const double b12 = A(0, 1) + s1 * s2;
    const double b13 = A(0, 2) + s1 * s3;
    const double b23 = A(1, 2) + s2 * s3;
    if (std::min({b12, b13, b23}) < 0) {
      EXPECT_EQ(classify(A)[MatrixClass::Copositive].holds, false) << A;
      continue;
    }
    const double criterion = s1 * s2 * s3 + A(0, 1) * s3 + A(0, 2) * s2 + A(1, 2) * s1 + std::sqrt(2 * b12 * b13 * b23);
    if (std::abs(criterion) < 1e-6) continue;  // too close to the boundary to judge
    const MatrixReport r = checked(A);
    EXPECT_EQ(r[MatrixClass::Copositive].holds, criterion > 0) << A;
    copositive_count += criterion > 0 ? 1 : 0;
  }
  EXPECT_GT(copositive_count, 50);
}

TEST(ClassifyRandom, CopositiveAnswersSurviveSampling) {
  // n = 4..7: no closed form; when classify says copositive, no sampled x >= 0 may disagree.
  std::mt19937_64 rng(23);
  std::uniform_real_distribution<double> u(0, 1);
  for (int trial = 0; trial < 60; ++trial) {
    const Index n = 4 + trial % 4;
    MatrixXd M = MatrixXd::Zero(n, n);
    for (Index i = 0; i < n; ++i) {
      for (Index j = 0; j <= i; ++j) M(i, j) = M(j, i) = (i == j) ? u(rng) + 0.2 : 1.2 * u(rng) - 0.6;
    }
    const MatrixReport r = checked(M);
    ASSERT_TRUE(r[MatrixClass::Copositive].holds.has_value());
    if (*r[MatrixClass::Copositive].holds) {
      for (int s = 0; s < 4000; ++s) {
        VectorXd x(n);
        for (Index i = 0; i < n; ++i) x[i] = u(rng) < 0.3 ? 0.0 : u(rng);
        EXPECT_GE(quadratic_form(M, x), -1e-12) << M << "\nx = " << x.transpose();
      }
    }
  }
}

}  // namespace
}  // namespace perp::analysis_classify_test
