// MCPs whose Jacobian is given sparse (`Mcp::J_sparse`): validation, agreement with the dense
// route, a discretized obstacle problem with a solution known in closed form, and the named
// nonlinear problems of mcp_problems.hpp from every start of docs/solvers.md's table through the
// sparse route (where block pivoting cycles or meets singular blocks on the way). Every residual is recomputed
// here from F(z).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "../mcp_problems.hpp"
#include "perp/core/error.hpp"
#include "perp/core/ncp.hpp"
#include "perp/solvers/solve.hpp"

namespace perp::solvers_sparse_mcp_test {
namespace {

using testing::HasSubstr;
using Sparse = Eigen::SparseMatrix<double>;
constexpr double kInf = std::numeric_limits<double>::infinity();

const std::vector<Method> kSparseMethods{Method::Path,        Method::NewtonFb,  Method::NewtonMin,
                                         Method::PenalizedFb, Method::Smoothing, Method::Auto};

// ‖z − mid(l, u, z − F(z))‖∞ written out here, independently of the library's residuals.
double recomputed_residual(const Mcp& p, const Eigen::VectorXd& z) {
  const Eigen::VectorXd f = p.F(z);
  double worst = 0;
  for (Eigen::Index i = 0; i < z.size(); ++i) {
    const double projected = std::min(p.upper[i], std::max(p.lower[i], z[i] - f[i]));
    worst = std::max(worst, std::abs(z[i] - projected));
  }
  return worst;
}

// The same MCP with its Jacobian given sparse.
Mcp sparse_copy(const Mcp& dense) {
  Mcp p = dense;
  const JacobianFunction J = dense.J;
  p.J = nullptr;
  p.J_sparse = [J](const Eigen::VectorXd& z) { return Sparse(J(z).sparseView()); };
  return p;
}

// F(z) = M z + q + a∘z³ with M = B + nI-ish sparse, positive definite symmetric part (strongly
// monotone F, so one solution), bounds mixed: [0, ∞), [l, u], free, (−∞, u].
struct RandomProblem {
  Mcp dense, sparse;
};
RandomProblem random_problem(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < 3; ++k) {
      const int j = static_cast<int>(rng() % static_cast<unsigned>(n));
      M(i, j) += uniform(rng);
    }
  }
  // Diagonal dominance of the symmetric part: positive definite.
  const Eigen::MatrixXd S = 0.5 * (M + M.transpose());
  for (int i = 0; i < n; ++i) M(i, i) += S.row(i).cwiseAbs().sum() + 0.5;
  Eigen::VectorXd q(n), a(n), lower(n), upper(n);
  for (int i = 0; i < n; ++i) {
    q[i] = 3 * uniform(rng);
    a[i] = 0.5 * (uniform(rng) + 1);
    switch (i % 4) {
      case 0:
        lower[i] = 0;
        upper[i] = kInf;
        break;
      case 1:
        lower[i] = -0.5;
        upper[i] = 0.4;
        break;
      case 2:
        lower[i] = -kInf;
        upper[i] = kInf;
        break;
      default:
        lower[i] = -kInf;
        upper[i] = 0.2;
        break;
    }
  }
  const Sparse Ms = M.sparseView();
  RandomProblem out;
  out.dense.F = [M, q, a](const Eigen::VectorXd& z) {
    return Eigen::VectorXd(M * z + q + a.cwiseProduct(z.array().cube().matrix()));
  };
  out.dense.J = [M, a](const Eigen::VectorXd& z) {
    Eigen::MatrixXd J = M;
    J.diagonal() += 3 * a.cwiseProduct(z.cwiseAbs2());
    return J;
  };
  out.dense.lower = lower;
  out.dense.upper = upper;
  out.sparse = out.dense;
  out.sparse.J = nullptr;
  out.sparse.J_sparse = [Ms, a](const Eigen::VectorXd& z) {
    Sparse J = Ms;
    for (Eigen::Index i = 0; i < J.rows(); ++i) J.coeffRef(i, i) += 3 * a[i] * z[i] * z[i];
    return J;
  };
  return out;
}

TEST(SparseMcp, AgreesWithTheDenseRouteOnRandomProblems) {
  SolveOptions options;
  options.tolerance = 1e-11;
  for (unsigned seed = 1; seed <= 6; ++seed) {
    const RandomProblem p = random_problem(12 + 5 * static_cast<int>(seed), seed);
    for (const Method method : kSparseMethods) {
      const std::string what = "seed " + std::to_string(seed) + ", " + to_string(method);
      const Result dense = solve(p.dense, method, options);
      const Result sparse = solve(p.sparse, method, options);
      ASSERT_TRUE(dense.solved()) << what << " (dense): " << dense.message;
      ASSERT_TRUE(sparse.solved()) << what << " (sparse): " << sparse.message;
      // The residual bounds the distance to the box too (|z − mid(l, u, z − F)| >= the violation).
      EXPECT_LE(recomputed_residual(p.sparse, sparse.z), 1e-9) << what;
      // One solution (strongly monotone F): both routes find it.
      EXPECT_LE((sparse.z - dense.z).cwiseAbs().maxCoeff(), 1e-8) << what;
    }
  }
}

// −u'' + κu³ = f + κu*³ on (0, 1), u(0) = u(1) = 0, u >= ψ = −1/4, f = −8 (a load pressing the
// string onto the obstacle), with N = 99 interior nodes (h = 1/100). For κ = 0 the solution is
// u* = 4(x − 1/4)² − 1/4 on [0, 1/4], −1/4 on [1/4, 3/4], 4(x − 3/4)² − 1/4 on [3/4, 1]: the
// contact points 1/4 and 3/4 are nodes, the second difference of a quadratic is exact, and the
// multiplier w = A u* − f is 0 off contact, 8/2 at the two contact ends and 8 inside. Adding
// κ(u³ − u*³) leaves F(u*) unchanged, and F stays strongly monotone (J = A + 3κ diag(u²)), so u*
// is the one solution of the nonlinear problem too.
struct Obstacle {
  Mcp problem;
  Eigen::VectorXd solution;
};
Obstacle obstacle_1d(double kappa) {
  const int n = 99;
  const double h = 1.0 / (n + 1);
  Eigen::VectorXd exact(n);
  for (int i = 0; i < n; ++i) {
    const double x = (i + 1) * h;
    exact[i] =
        x <= 0.25 ? 4 * (x - 0.25) * (x - 0.25) - 0.25 : (x >= 0.75 ? 4 * (x - 0.75) * (x - 0.75) - 0.25 : -0.25);
  }
  std::vector<Eigen::Triplet<double>> entries;
  for (int i = 0; i < n; ++i) {
    entries.emplace_back(i, i, 2 / (h * h));
    if (i > 0) entries.emplace_back(i, i - 1, -1 / (h * h));
    if (i + 1 < n) entries.emplace_back(i, i + 1, -1 / (h * h));
  }
  Sparse A(n, n);
  A.setFromTriplets(entries.begin(), entries.end());
  const Eigen::VectorXd rhs = Eigen::VectorXd::Constant(n, -8.0) + kappa * exact.array().cube().matrix();
  Obstacle out;
  out.solution = exact;
  out.problem.F = [A, rhs, kappa](const Eigen::VectorXd& u) {
    return Eigen::VectorXd(A * u + kappa * u.array().cube().matrix() - rhs);
  };
  out.problem.J_sparse = [A, kappa](const Eigen::VectorXd& u) {
    Sparse J = A;
    for (Eigen::Index i = 0; i < J.rows(); ++i) J.coeffRef(i, i) += 3 * kappa * u[i] * u[i];
    return J;
  };
  out.problem.lower = Eigen::VectorXd::Constant(n, -0.25);
  out.problem.upper = Eigen::VectorXd::Constant(n, kInf);
  return out;
}

TEST(SparseMcp, ObstacleProblemHasTheHandDerivedSolution) {
  for (const double kappa : {0.0, 50.0}) {
    const Obstacle o = obstacle_1d(kappa);
    // The construction itself: u* satisfies the MCP to round-off.
    ASSERT_LE(recomputed_residual(o.problem, o.solution), 1e-9);
    SolveOptions options;
    options.tolerance = 1e-11;
    for (const Method method : kSparseMethods) {
      const std::string what = "kappa " + std::to_string(kappa) + ", " + to_string(method);
      const Result r = solve(o.problem, method, options);
      ASSERT_TRUE(r.solved()) << what << ": " << r.message;
      EXPECT_LE((r.z - o.solution).cwiseAbs().maxCoeff(), 1e-8) << what;
      EXPECT_LE(recomputed_residual(o.problem, r.z), 1e-7) << what;
      EXPECT_TRUE((r.z.array() >= -0.25).all()) << what;
      // w = F(z) is the multiplier: 8 inside the contact set (x in (1/4, 3/4)).
      EXPECT_NEAR(r.w[49], 8.0, 1e-6) << what;
    }
  }
}

TEST(SparseMcp, NamedNonlinearProblemsThroughTheSparseRoute) {
  using namespace mcp_problems;
  struct Named {
    const char* name;
    Mcp problem;
    Eigen::VectorXd start;
  };
  const Eigen::Vector4d starts[] = {Eigen::Vector4d::Zero(), Eigen::Vector4d::Ones(), Eigen::Vector4d(1, 0, 1, 0),
                                    Eigen::Vector4d(0, 1, 1, 0)};
  std::vector<Named> cases;
  for (const Eigen::Vector4d& start : starts) {
    cases.push_back({"Kojima-Shindo", to_mcp(kojima_shindo()), start});
    cases.push_back({"Josephy", to_mcp(josephy()), start});
  }
  cases.push_back({"Josephy", to_mcp(josephy()), Eigen::Vector4d::Constant(100)});
  cases.push_back({"Mathiesen", to_mcp(mathiesen()), Eigen::VectorXd::Ones(4)});
  cases.push_back({"HS35", to_mcp(hs35()), Eigen::VectorXd::Zero(4)});
  for (const double start : {0.0, 0.5, 3.0}) {
    cases.push_back({"Billups", to_mcp(billups()), Eigen::VectorXd::Constant(1, start)});
  }
  cases.push_back({"Nash-Cournot", nash_cournot(), Eigen::VectorXd::Constant(5, 10.0)});
  cases.push_back({"Nash-Cournot, capacity 10", nash_cournot(10), Eigen::VectorXd::Constant(5, 1.0)});

  for (const Named& c : cases) {
    const Mcp p = sparse_copy(c.problem);
    SolveOptions options;
    options.initial_guess = c.start;
    options.tolerance = 1e-10;
    for (const Method method : {Method::Path, Method::Auto}) {
      const Result r = solve(p, method, options);
      EXPECT_TRUE(r.solved()) << c.name << " from " << c.start.transpose() << ", " << to_string(method) << ": "
                              << r.message;
      if (r.solved()) {
        EXPECT_LE(recomputed_residual(p, r.z), 1e-6) << c.name << ", " << to_string(method);
      }
    }
  }
}

TEST(SparseMcp, NcpTakesASparseJacobianToo) {
  // F(z) = (z₁ − 1, z₂ + 1): z = (1, 0), F = (0, 1).
  Ncp p;
  p.n = 2;
  p.F = [](const Eigen::VectorXd& z) { return Eigen::VectorXd(Eigen::Vector2d(z[0] - 1, z[1] + 1)); };
  p.J_sparse = [](const Eigen::VectorXd&) {
    Sparse J(2, 2);
    J.setIdentity();
    return J;
  };
  SolveOptions options;
  options.tolerance = 1e-12;
  for (const Method method : kSparseMethods) {
    const Result r = solve(p, method, options);
    ASSERT_TRUE(r.solved()) << to_string(method) << ": " << r.message;
    EXPECT_NEAR(r.z[0], 1.0, 1e-10);
    EXPECT_NEAR(r.z[1], 0.0, 1e-10);
  }
}

Mcp small_sparse(Sparse (*jacobian)(const Eigen::VectorXd&)) {
  Mcp p;
  p.F = [](const Eigen::VectorXd& z) { return Eigen::VectorXd(z.array() - 1.0); };
  p.J_sparse = jacobian;
  p.lower = Eigen::VectorXd::Zero(3);
  p.upper = Eigen::VectorXd::Constant(3, kInf);
  return p;
}

TEST(SparseMcp, ValidationNamesWhatIsWrong) {
  Mcp neither = small_sparse(nullptr);
  neither.J_sparse = nullptr;
  EXPECT_THAT([&] { (void)solve(neither, Method::Path); },
              testing::ThrowsMessage<InvalidProblem>(HasSubstr("J is empty")));
  Mcp both = small_sparse([](const Eigen::VectorXd&) { return Sparse(3, 3); });
  both.J = [](const Eigen::VectorXd&) { return Eigen::MatrixXd::Identity(3, 3).eval(); };
  EXPECT_THAT([&] { (void)solve(both, Method::NewtonFb); },
              testing::ThrowsMessage<InvalidProblem>(HasSubstr("both J and J_sparse are set")));
  Ncp ncp_both;
  ncp_both.n = 1;
  ncp_both.F = [](const Eigen::VectorXd& z) { return z; };
  ncp_both.J = [](const Eigen::VectorXd&) { return Eigen::MatrixXd::Identity(1, 1).eval(); };
  ncp_both.J_sparse = [](const Eigen::VectorXd&) { return Sparse(1, 1); };
  EXPECT_THAT([&] { (void)solve(ncp_both); }, testing::ThrowsMessage<InvalidProblem>(HasSubstr("Ncp: both J")));

  const Mcp wrong_size = small_sparse([](const Eigen::VectorXd&) { return Sparse(3, 4); });
  for (const Method method : kSparseMethods) {
    EXPECT_THAT([&] { (void)solve(wrong_size, method); },
                testing::ThrowsMessage<InvalidProblem>(HasSubstr("J_sparse returned a 3x4 matrix, expected 3x3")))
        << to_string(method);
  }
  const Mcp not_finite = small_sparse([](const Eigen::VectorXd&) {
    Sparse J(3, 3);
    J.setIdentity();
    J.coeffRef(1, 2) = std::numeric_limits<double>::quiet_NaN();
    return J;
  });
  for (const Method method : kSparseMethods) {
    EXPECT_THAT([&] { (void)solve(not_finite, method); },
                testing::ThrowsMessage<InvalidProblem>(HasSubstr("J_sparse(1, 2) is")))
        << to_string(method);
  }
  // Methods that need an Lcp refuse the nonlinear problem, sparse or not, before running.
  const Mcp fine = small_sparse([](const Eigen::VectorXd&) {
    Sparse J(3, 3);
    J.setIdentity();
    return J;
  });
  EXPECT_THROW((void)solve(fine, Method::Lemke), InvalidProblem);
  const Result r = solve(fine, Method::Path);
  ASSERT_TRUE(r.solved()) << r.message;
  EXPECT_LE((r.z - Eigen::VectorXd::Ones(3)).cwiseAbs().maxCoeff(), 1e-12);
}

// The 2-D obstacle-type problem (mcp_problems::obstacle_2d, the one bench/sparse_mcp_bench.cpp
// times) on a 40×40 grid, in both scalings.
TEST(SparseMcp, TwoDimensionalObstacleWithTwoSidedBounds) {
  const Mcp p = mcp_problems::obstacle_2d(40, true);
  SolveOptions options;
  options.tolerance = 1e-10;
  Eigen::VectorXd reference;
  for (const Method method : {Method::Path, Method::NewtonMin, Method::NewtonFb}) {
    const Result r = solve(p, method, options);
    ASSERT_TRUE(r.solved()) << to_string(method) << ": " << r.message;
    EXPECT_LE(recomputed_residual(p, r.z), 1e-9) << to_string(method);
    // Both bounds are active somewhere: the problem is not the unconstrained one.
    EXPECT_GT((r.z.array() <= -0.1).count(), 0) << to_string(method);
    EXPECT_GT((r.z.array() >= 0.1).count(), 0) << to_string(method);
    if (reference.size() == 0) {
      reference = r.z;
    } else {
      EXPECT_LE((r.z - reference).cwiseAbs().maxCoeff(), 1e-8) << to_string(method);
    }
  }
  // The same solutions with F not scaled by h² (J's entries up to 8/h²): path still solves it, and
  // to the same point.
  const Mcp plain = mcp_problems::obstacle_2d(40, false);
  const Result r = solve(plain, Method::Path, options);
  ASSERT_TRUE(r.solved()) << r.message;
  EXPECT_LE((r.z - reference).cwiseAbs().maxCoeff(), 1e-8);
}

}  // namespace
}  // namespace perp::solvers_sparse_mcp_test
