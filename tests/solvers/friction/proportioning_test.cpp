// MPRGP on a factored LCP's convex program (solvers/friction/convex/proportioning.hpp), and psor on the
// factors; every answer judged by the natural residual recomputed here from a dense N = A M⁻¹ Aᵀ.
#include "friction/convex/proportioning.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "natural_error.hpp"
#include "perp/solvers/factored_lcp.hpp"

namespace perp::detail::proportioning_test {
namespace {

using RowSparse = Eigen::SparseMatrix<double, Eigen::RowMajor>;

RowSparse sparse_of(const Eigen::MatrixXd& dense) { return dense.sparseView(); }

using test::natural_error;

TEST(Proportioning, RedundantRowsShareTheLoadAndTheVelocityIsExact) {
  // One dof of mass 2 held by two identical rows: w_k = (z1 + z2)/2 − 1, so every z >= 0 with
  // z1 + z2 = 2 solves (z is not unique; v = (z1 + z2)/2 = 1 is).
  const Eigen::MatrixXd A = (Eigen::MatrixXd(2, 1) << 1, 1).finished();
  const Eigen::VectorXd inverse_mass = Eigen::VectorXd::Constant(1, 0.5);
  const Eigen::VectorXd c = Eigen::VectorXd::Constant(2, -1.0);
  const ConeProgram program = ConeProgram::restricted(sparse_of(A), inverse_mass);
  const auto error_of = [&](const Eigen::VectorXd& z) { return natural_error(A, inverse_mass, c, z); };
  const ProportioningOutcome outcome = proportioning(program, c, Eigen::VectorXd::Zero(2), 100, 1, 1e-14, error_of);
  ASSERT_LE(outcome.error, 1e-14);
  EXPECT_GE(outcome.lambda.minCoeff(), 0.0);
  EXPECT_NEAR(outcome.lambda.sum(), 2.0, 1e-13);
}

TEST(Proportioning, ReleasesARowFromTheBoundAndKeepsAnotherAtIt) {
  // Two dofs of mass 1, rows e1 (c = −3), e2 (c = +1), e1 − e2 (c = −1); N = A Aᵀ is singular (row
  // 3 = row 1 − row 2). By hand, z = (3, 0, 0) is the only solution: v = (3, 0), w = (0, 1, 2)
  // (with z3 > 0, w3 = 0 and w1 = 0 force z2 = z3 + 2 > 0, and then w2 = 0 contradicts them).
  const Eigen::MatrixXd A = (Eigen::MatrixXd(3, 2) << 1, 0, 0, 1, 1, -1).finished();
  const Eigen::VectorXd inverse_mass = Eigen::VectorXd::Ones(2);
  const Eigen::VectorXd c = (Eigen::VectorXd(3) << -3, 1, -1).finished();
  const ConeProgram program = ConeProgram::restricted(sparse_of(A), inverse_mass);
  const auto error_of = [&](const Eigen::VectorXd& z) { return natural_error(A, inverse_mass, c, z); };
  // From a start with the wrong rows active: z = (0, 1, 1).
  const Eigen::VectorXd start = (Eigen::VectorXd(3) << 0, 1, 1).finished();
  const ProportioningOutcome outcome = proportioning(program, c, start, 200, 1, 1e-13, error_of);
  ASSERT_LE(outcome.error, 1e-13);
  EXPECT_NEAR(outcome.lambda[0], 3.0, 1e-12);
  EXPECT_NEAR(outcome.lambda[1], 0.0, 1e-12);
  EXPECT_NEAR(outcome.lambda[2], 0.0, 1e-12);
}

/// A random heap-like program: `rows` rows on `dofs` dofs, two nonzeros a row, every fifth row a
/// copy of the one before (redundant), masses 0.5–2, c of both signs.
struct Random {
  Eigen::MatrixXd A;
  Eigen::VectorXd inverse_mass;
  Eigen::VectorXd c;
};

Random random_program(int rows, int dofs, unsigned seed) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::uniform_int_distribution<int> pick(0, dofs - 1);
  Random r{Eigen::MatrixXd::Zero(rows, dofs), Eigen::VectorXd(dofs), Eigen::VectorXd(rows)};
  for (int j = 0; j < dofs; ++j) r.inverse_mass[j] = 1.0 / (1.25 + 0.75 * unit(engine));
  for (int k = 0; k < rows; ++k) {
    if (k % 5 == 4) {
      r.A.row(k) = r.A.row(k - 1);
    } else {
      const int a = pick(engine);
      int b = pick(engine);
      if (b == a) b = (a + 1) % dofs;
      r.A(k, a) = 1.0;
      r.A(k, b) = unit(engine);
    }
    r.c[k] = unit(engine) - 0.3;
  }
  return r;
}

TEST(Proportioning, SolvesRandomRedundantProgramsFromZeroAndFromAStart) {
  for (unsigned seed = 1; seed <= 5; ++seed) {
    const Random r = random_program(60, 24, seed);
    const ConeProgram program = ConeProgram::restricted(sparse_of(r.A), r.inverse_mass);
    const auto error_of = [&](const Eigen::VectorXd& z) { return natural_error(r.A, r.inverse_mass, r.c, z); };
    const ProportioningOutcome cold = proportioning(program, r.c, Eigen::VectorXd::Zero(60), 5000, 5, 1e-11, error_of);
    ASSERT_LE(cold.error, 1e-11) << "seed " << seed;
    EXPECT_GE(cold.lambda.minCoeff(), 0.0);
    // v = M⁻¹ Aᵀ z is unique: the same from the interior point on the factors (another method).
    FactoredLcp problem{sparse_of(r.A), r.inverse_mass, r.c};
    SolveOptions options;
    options.tolerance = 1e-12;
    const Result ip = solve(problem, Method::InteriorPoint, options);
    ASSERT_TRUE(ip.solved()) << ip.message;
    const Eigen::VectorXd v_ip = r.inverse_mass.asDiagonal() * r.A.transpose() * ip.z;
    const Eigen::VectorXd v_mprgp = r.inverse_mass.asDiagonal() * r.A.transpose() * cold.lambda;
    EXPECT_LE((v_ip - v_mprgp).cwiseAbs().maxCoeff(), 1e-8) << "seed " << seed;
    // From a perturbed answer.
    Eigen::VectorXd start = (ip.z + Eigen::VectorXd::Constant(60, 0.1)).cwiseMax(0.0);
    const ProportioningOutcome warm = proportioning(program, r.c, start, 5000, 5, 1e-11, error_of);
    EXPECT_LE(warm.error, 1e-11) << "seed " << seed;
  }
}

TEST(Proportioning, StopsWhereTheErrorHasNotHalvedFarFromTheTarget) {
  // The caller's measure held at 1 (it never halves): with a stall window of 30 steps the run ends at
  // step 30 where the target is over ten times below (1e-3), runs on where it is within ten (0.2),
  // and a window of 0 never stops it.
  const Random r = random_program(60, 24, 3);
  const ConeProgram program = ConeProgram::restricted(sparse_of(r.A), r.inverse_mass);
  int calls = 0;
  const auto flat = [&](const Eigen::VectorXd&) {
    ++calls;
    return 1.0;
  };
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(60);
  const ProportioningOutcome far = proportioning(program, r.c, zero, 200, 1, 1e-3, flat, 30);
  EXPECT_EQ(far.iterations, 30);
  const ProportioningOutcome near = proportioning(program, r.c, zero, 200, 1, 0.2, flat, 30);
  EXPECT_GT(near.iterations, 30);
  const ProportioningOutcome never = proportioning(program, r.c, zero, 200, 1, 1e-3, flat, 0);
  EXPECT_GT(never.iterations, 30);
  EXPECT_GT(calls, 60);
}

TEST(Proportioning, ARowOnFixedDofsKeepsItsStart) {
  // Row 1 touches only a fixed dof (M⁻¹ = 0): its diagonal is 0 and its z stays as given.
  const Eigen::MatrixXd A = (Eigen::MatrixXd(2, 2) << 1, 0, 0, 1).finished();
  const Eigen::VectorXd inverse_mass = (Eigen::VectorXd(2) << 1, 0).finished();
  const Eigen::VectorXd c = (Eigen::VectorXd(2) << -2, 0.5).finished();
  const ConeProgram program = ConeProgram::restricted(sparse_of(A), inverse_mass);
  const auto error_of = [&](const Eigen::VectorXd& z) { return natural_error(A, inverse_mass, c, z); };
  const ProportioningOutcome outcome =
      proportioning(program, c, (Eigen::VectorXd(2) << 0, 0.25).finished(), 100, 1, 0.0, error_of);
  EXPECT_NEAR(outcome.lambda[0], 2.0, 1e-13);
  EXPECT_EQ(outcome.lambda[1], 0.25);
}

TEST(FactoredLcpSweeps, PsorOverRelaxesOnTheFactorsAndSolves) {
  const Random r = random_program(40, 16, 7);
  FactoredLcp problem{sparse_of(r.A), r.inverse_mass, r.c};
  SolveOptions options;
  options.tolerance = 1e-9;
  options.relaxation = 1.6;
  const Result psor = solve(problem, Method::Psor, options);
  ASSERT_TRUE(psor.solved()) << psor.message;
  EXPECT_EQ(psor.method, Method::Psor);
  EXPECT_NE(psor.message.find("over-relaxed (omega 1.6)"), std::string::npos) << psor.message;
  EXPECT_LE(natural_error(r.A, r.inverse_mass, r.c, psor.z), 1e-8);
  options.relaxation.reset();
  const Result pgs = solve(problem, Method::Pgs, options);
  ASSERT_TRUE(pgs.solved()) << pgs.message;
  EXPECT_LT(psor.iterations, pgs.iterations) << "psor " << psor.iterations << ", pgs " << pgs.iterations;
}

}  // namespace
}  // namespace perp::detail::proportioning_test
