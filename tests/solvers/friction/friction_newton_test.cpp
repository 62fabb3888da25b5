// newton-ac, the semismooth Newton method on the Alart–Curnier function (private kernel).

#include "../../../src/solvers/friction/impulse/friction_newton.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "perp/core/friction_contact.hpp"

namespace perp::solvers_friction_newton_test {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

FrictionContact make(int d, const MatrixXd& W, const VectorXd& q, const VectorXd& mu) {
  FrictionContact problem = friction_contact_from_dense(d, W, q, mu);
  problem.validate();
  return problem;
}

Result newton(const FrictionContact& problem, const SolveOptions& options = {}) {
  return detail::solve_newton_ac(problem, options, VectorXd::Zero(problem.size()));
}

// Siconos' relative error recomputed here from r alone, with a dense W and a projection written
// for the test (not core's): e_i = r_i − P_K(r_i − û_i), error = ‖e‖ / max(‖q‖, ‖r‖, ‖u‖).
double independent_error(const FrictionContact& problem, const VectorXd& r) {
  const MatrixXd W(problem.W);
  const VectorXd u = W * r + problem.q;
  const int d = problem.dimension;
  double squared = 0;
  for (Eigen::Index i = 0; i < problem.contacts(); ++i) {
    const double mu = problem.mu[i];
    const VectorXd ri = r.segment(i * d, d);
    const VectorXd ui = u.segment(i * d, d);
    VectorXd x = ri - ui;
    x[0] -= mu * ui.tail(d - 1).norm();
    const double xn = x[0];
    const double xt = x.tail(d - 1).norm();
    VectorXd p = VectorXd::Zero(d);
    if (xt <= mu * xn) {
      p = x;
    } else if (mu * xt > -xn) {  // the side of the cone: onto its boundary ray through x_T
      const double pn = (xn + mu * xt) / (1 + mu * mu);
      p[0] = pn;
      p.tail(d - 1) = mu * pn * x.tail(d - 1) / xt;
    }
    squared += (ri - p).squaredNorm();
  }
  const double scale = std::max({problem.q.norm(), r.norm(), u.norm()});
  return scale > 0 ? std::sqrt(squared) / scale : std::sqrt(squared);
}

// The four physical criteria of Coulomb's law at (r, u = W r + q), recomputed here, each scaled
// by the size of the data so that one bound serves every problem.
void expect_coulomb_solution(const FrictionContact& problem, const Result& result, double tolerance) {
  ASSERT_TRUE(result.z.allFinite());
  const MatrixXd W(problem.W);
  const VectorXd u = W * result.z + problem.q;
  EXPECT_LE((u - result.w).lpNorm<Eigen::Infinity>(), 1e-12 * (1 + u.lpNorm<Eigen::Infinity>()));
  const double scale_r = 1 + result.z.lpNorm<Eigen::Infinity>();
  const double scale_u = 1 + u.lpNorm<Eigen::Infinity>();
  const int d = problem.dimension;
  for (Eigen::Index i = 0; i < problem.contacts(); ++i) {
    const double mu = problem.mu[i];
    const double rn = result.z[i * d];
    const double un = u[i * d];
    const VectorXd rt = result.z.segment(i * d + 1, d - 1);
    const VectorXd ut = u.segment(i * d + 1, d - 1);
    EXPECT_GE(rn, -tolerance * scale_r) << "contact " << i;
    EXPECT_GE(un, -tolerance * scale_u) << "contact " << i;
    EXPECT_LE(rt.norm(), mu * rn + tolerance * scale_r) << "contact " << i;
    EXPECT_LE(std::abs(rn * un), tolerance * scale_r * scale_u) << "contact " << i;
    EXPECT_LE(std::abs(rt.dot(ut) + mu * rn * ut.norm()), tolerance * scale_r * scale_u) << "contact " << i;
  }
  EXPECT_NEAR(result.residual, independent_error(problem, result.z), 1e-12 + 1e-9 * result.residual);
}

// ---------------------------------------------------------------------------------------------
// One contact, by hand.

struct OneContact {
  const char* name;
  int d;
  MatrixXd W;
  VectorXd q;
  double mu;
  VectorXd r;  // the solution, derived by hand in the comment of each case
};

std::vector<OneContact> one_contact_cases() {
  const MatrixXd I2 = MatrixXd::Identity(2, 2);
  const MatrixXd I3 = MatrixXd::Identity(3, 3);
  MatrixXd coupled(2, 2);
  coupled << 2, 0.5, 0.5, 1;
  MatrixXd diagonal3 = MatrixXd::Zero(3, 3);
  diagonal3.diagonal() << 2, 1, 1;
  return {
      // W = I: r = −q would stick; |r_T| = 0.2 <= 0.5 r_N, so it does (u = 0).
      {"stick-2d", 2, I2, VectorXd{{-1, 0.2}}, 0.5, VectorXd{{1, -0.2}}},
      // r_N = 1 from u_N = 0; sticking would need |r_T| = 2 > 0.5: slide, r_T = −0.5, u_T = 1.5 > 0.
      {"slide-positive-2d", 2, I2, VectorXd{{-1, 2}}, 0.5, VectorXd{{1, -0.5}}},
      // The mirror image: r_T = +0.5, u_T = −1.5 < 0.
      {"slide-negative-2d", 2, I2, VectorXd{{-1, -2}}, 0.5, VectorXd{{1, 0.5}}},
      // q_N > 0: the contact opens, r = 0, u = q.
      {"take-off-2d", 2, I2, VectorXd{{1, 0.3}}, 0.5, VectorXd{{0, 0}}},
      // μ = 0: r_T = 0 whatever u_T; r_N = 1.
      {"frictionless-2d", 2, I2, VectorXd{{-1, 2}}, 0.0, VectorXd{{1, 0}}},
      // Grazing: q_N = 0, so r = 0 with u_N = 0 (and a sliding u_T = 1).
      {"grazing-2d", 2, I2, VectorXd{{0, 1}}, 0.5, VectorXd{{0, 0}}},
      // Stick on the cone's boundary: r = −q = (1, −0.5), |r_T| = μ r_N exactly, u = 0.
      {"stick-on-boundary-2d", 2, I2, VectorXd{{-1, 0.5}}, 0.5, VectorXd{{1, -0.5}}},
      // Coupled W = [2 .5; .5 1], q = (−2, 3), μ = 0.3, sliding with u_T > 0, r_T = −0.3 r_N:
      // u_N = 2 r_N − 0.15 r_N − 2 = 0 → r_N = 2/1.85; u_T = 0.5 r_N − 0.3 r_N + 3 > 0.
      {"slide-coupled-2d", 2, coupled, VectorXd{{-2, 3}}, 0.3, VectorXd{{2 / 1.85, -0.3 * 2 / 1.85}}},
      // W = I: stick, r = −q (|r_T| = 0.2236 <= 0.5).
      {"stick-3d", 3, I3, VectorXd{{-1, 0.1, -0.2}}, 0.5, VectorXd{{1, -0.1, 0.2}}},
      // W = I, q_T = (3, 4): slide, r_N = 1, r_T = −0.5 (3, 4)/5 = (−0.3, −0.4); u_T = (2.7, 3.6).
      {"slide-3d", 3, I3, VectorXd{{-1, 3, 4}}, 0.5, VectorXd{{1, -0.3, -0.4}}},
      // The opposite tangential direction.
      {"slide-opposite-3d", 3, I3, VectorXd{{-1, -3, -4}}, 0.5, VectorXd{{1, 0.3, 0.4}}},
      // W = diag(2, 1, 1), q = (−2, 0, 3), μ = 0.4: r_N = 1, sliding along the second axis, r_T = (0, −0.4).
      {"slide-scaled-3d", 3, diagonal3, VectorXd{{-2, 0, 3}}, 0.4, VectorXd{{1, 0, -0.4}}},
      {"take-off-3d", 3, I3, VectorXd{{0.5, 1, -1}}, 0.5, VectorXd{{0, 0, 0}}},
      {"frictionless-3d", 3, I3, VectorXd{{-1, 3, 4}}, 0.0, VectorXd{{1, 0, 0}}},
      {"grazing-3d", 3, I3, VectorXd{{0, 1, 1}}, 0.5, VectorXd{{0, 0, 0}}},
      // Stick on the boundary: |q_T| = 0.5 = μ·1.
      {"stick-on-boundary-3d", 3, I3, VectorXd{{-1, 0.3, 0.4}}, 0.5, VectorXd{{1, -0.3, -0.4}}},
  };
}

TEST(FrictionNewton, OneContactByHand) {
  for (const OneContact& c : one_contact_cases()) {
    SCOPED_TRACE(c.name);
    const FrictionContact problem = make(c.d, c.W, c.q, VectorXd::Constant(1, c.mu));
    SolveOptions options;
    options.tolerance = 1e-12;
    const Result result = newton(problem, options);
    EXPECT_EQ(result.status, Status::Solved) << result.message;
    EXPECT_EQ(result.method, Method::NewtonAc);
    EXPECT_LE((result.z - c.r).lpNorm<Eigen::Infinity>(), 1e-12);
    EXPECT_LE(result.residual, 1e-12);
    EXPECT_EQ(static_cast<int>(result.history.size()), result.iterations);
    EXPECT_LE(result.iterations, 10);
    expect_coulomb_solution(problem, result, 1e-12);
  }
}

TEST(FrictionNewton, EmptyProblemAndTrivialStart) {
  FrictionContact empty;
  empty.dimension = 3;
  empty.W.resize(0, 0);
  const Result none = newton(empty);
  EXPECT_EQ(none.status, Status::Solved);
  EXPECT_EQ(none.iterations, 0);
  EXPECT_EQ(none.z.size(), 0);
  // Every q_N >= 0: r = 0 solves, no step taken.
  const FrictionContact open = make(2, MatrixXd::Identity(4, 4), VectorXd{{1, 5, 0, -3}}, VectorXd{{0.5, 0.5}});
  const Result zero = newton(open);
  EXPECT_EQ(zero.status, Status::Solved);
  EXPECT_EQ(zero.iterations, 0);
  EXPECT_TRUE(zero.z.isZero(0));
  EXPECT_TRUE(zero.w.isApprox(open.q));
}

// ---------------------------------------------------------------------------------------------
// Random multi-contact problems W = J M⁻¹ Jᵀ.

FrictionContact random_mechanical(int d, int contacts, int dofs, unsigned seed, double mu) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  const int n = d * contacts;
  MatrixXd J(n, dofs);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < dofs; ++j) J(i, j) = uniform(generator);
  }
  VectorXd mass_inverse(dofs);
  for (int j = 0; j < dofs; ++j) mass_inverse[j] = 1.0 / (1.5 + uniform(generator));
  const MatrixXd W = J * mass_inverse.asDiagonal() * J.transpose();
  // q = J v_free: a free velocity, so that some contacts approach and others separate.
  VectorXd v(dofs);
  for (int j = 0; j < dofs; ++j) v[j] = uniform(generator);
  VectorXd q = J * v;
  return make(d, W, q, VectorXd::Constant(contacts, mu));
}

TEST(FrictionNewton, RandomMechanical2dAnd3d) {
  int sliding = 0;
  int sticking = 0;
  int open = 0;
  for (const int d : {2, 3}) {
    for (unsigned seed = 1; seed <= 6; ++seed) {
      SCOPED_TRACE("d = " + std::to_string(d) + ", seed " + std::to_string(seed));
      // Full-rank W (more degrees of freedom than contact rows).
      const FrictionContact problem = random_mechanical(d, 12, d * 12 + 10, seed, 0.3 + 0.1 * seed);
      SolveOptions options;
      options.tolerance = 1e-10;
      const Result result = newton(problem, options);
      ASSERT_EQ(result.status, Status::Solved) << result.message;
      EXPECT_LE(result.residual, 1e-10);
      expect_coulomb_solution(problem, result, 1e-8);
      const VectorXd u = result.w;
      for (Eigen::Index i = 0; i < problem.contacts(); ++i) {
        const double rn = result.z[i * d];
        const double rt = result.z.segment(i * d + 1, d - 1).norm();
        if (rn <= 1e-9) {
          ++open;
        } else if (u.segment(i * d, d).norm() <= 1e-8) {
          ++sticking;
        } else if (std::abs(rt - problem.mu[i] * rn) <= 1e-8 * (1 + rn)) {
          ++sliding;
        }
      }
    }
  }
  // The set covers the three contact states.
  EXPECT_GT(open, 0);
  EXPECT_GT(sticking, 0);
  EXPECT_GT(sliding, 0);
}

// More contact rows than degrees of freedom: W is singular (rank 2·dofs < n), as in a pile.
TEST(FrictionNewton, SingularDelassus) {
  for (const int d : {2, 3}) {
    SCOPED_TRACE("d = " + std::to_string(d));
    const FrictionContact problem = random_mechanical(d, 10, 4 * d, 7, 0.5);
    const Result result = newton(problem);
    EXPECT_EQ(result.status, Status::Solved) << result.message;
    EXPECT_LE(result.residual, 1e-8);
    expect_coulomb_solution(problem, result, 1e-6);
  }
}

TEST(FrictionNewton, QuadraticTail) {
  // 3D with sliding contacts: the function is curved on the sliding pieces, so the tail shows
  // Newton's rate instead of a finite active-set termination.
  const FrictionContact problem = random_mechanical(3, 20, 80, 11, 0.4);
  SolveOptions options;
  options.tolerance = 1e-14;
  const Result result = newton(problem, options);
  ASSERT_EQ(result.status, Status::Solved) << result.message;
  const std::vector<double>& h = result.history;
  ASSERT_GE(h.size(), 3U);
  std::string trace;
  for (const double e : h) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, " %.2e", e);
    trace += buffer;
  }
  SCOPED_TRACE("history:" + trace);
  std::printf("  quadratic tail history:%s\n", trace.c_str());
  // The last three errors: each ratio e_{k+1}/e_k at most a tenth of the one before (superlinear),
  // or a jump straight to round-off.
  const std::size_t k = h.size() - 1;
  const double last_ratio = h[k] / h[k - 1];
  const double previous_ratio = h[k - 1] / h[k - 2];
  EXPECT_TRUE(last_ratio <= 0.1 * previous_ratio || h[k] <= 1e-15) << last_ratio << " vs " << previous_ratio;
  EXPECT_LE(last_ratio, 1e-2);
  // Quadratic: once below 1e-3, e_{k+1} <= 100 e_k² (plus round-off).
  int quadratic_steps = 0;
  for (std::size_t i = 0; i + 1 < h.size(); ++i) {
    if (h[i] >= 1e-3) continue;
    EXPECT_LE(h[i + 1], 100 * h[i] * h[i] + 1e-15) << "step " << i + 1;
    ++quadratic_steps;
  }
  EXPECT_GE(quadratic_steps, 2);
}

TEST(FrictionNewton, WarmStartAtTheSolution) {
  for (const int d : {2, 3}) {
    const FrictionContact problem = random_mechanical(d, 15, 15 * d + 5, 3, 0.6);
    SolveOptions options;
    options.tolerance = 1e-12;
    const Result first = newton(problem, options);
    ASSERT_EQ(first.status, Status::Solved) << first.message;
    SolveOptions loose;
    loose.tolerance = 1e-10;
    const Result again = detail::solve_newton_ac(problem, loose, first.z);
    EXPECT_EQ(again.status, Status::Solved);
    EXPECT_EQ(again.iterations, 0);
    EXPECT_TRUE(again.history.empty());
    // From a point near the solution (1e-6 off), one or two steps.
    VectorXd nearby = first.z;
    for (Eigen::Index i = 0; i < nearby.size(); ++i) nearby[i] += 1e-6 * std::cos(static_cast<double>(i));
    const Result close = detail::solve_newton_ac(problem, loose, nearby);
    EXPECT_EQ(close.status, Status::Solved) << close.message;
    EXPECT_LE(close.iterations, 2);
  }
}

TEST(FrictionNewton, NonSymmetricDelassus) {
  for (const int d : {2, 3}) {
    SCOPED_TRACE("d = " + std::to_string(d));
    FrictionContact base = random_mechanical(d, 10, 10 * d + 6, 5, 0.5);
    MatrixXd W(base.W);
    std::mt19937 generator(9);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    MatrixXd S(W.rows(), W.cols());
    for (Eigen::Index i = 0; i < S.size(); ++i) S.data()[i] = uniform(generator);
    W += 0.2 * (S - S.transpose()) + 0.05 * S;  // a skew part and a small non-symmetric one
    const FrictionContact problem = make(d, W, base.q, base.mu);
    ASSERT_GT((W - W.transpose()).cwiseAbs().maxCoeff(), 0.1);
    const Result result = newton(problem);
    EXPECT_EQ(result.status, Status::Solved) << result.message;
    expect_coulomb_solution(problem, result, 1e-7);
  }
}

// W = −I and an approaching contact: u_N = −r_N − 1 < 0 for every r_N >= 0, so there is no
// solution; and no unbounded r drives the relative error down (u_N grows with r_N).
// (With W = 0 instead, r_N → ∞ makes Siconos' relative error ‖e‖/max(‖q‖, ‖r‖, ‖u‖) vanish
// although u_N = −1 stays: the relative measure cannot see that case.)
TEST(FrictionNewton, NoSolutionEndsNotSolvedWithFiniteR) {
  for (const double mu : {0.0, 0.3}) {
    SCOPED_TRACE("mu = " + std::to_string(mu));
    const FrictionContact problem = make(2, -MatrixXd::Identity(2, 2), VectorXd{{-1, 0.5}}, VectorXd::Constant(1, mu));
    const Result result = newton(problem);
    EXPECT_NE(result.status, Status::Solved);
    EXPECT_TRUE(result.z.allFinite());
    EXPECT_GT(result.residual, 1e-3);
    EXPECT_THAT(result.message, testing::HasSubstr("relative error"));
    EXPECT_NEAR(result.residual, independent_error(problem, result.z), 1e-12);
  }
}

// An uncompressed W (inserted entry by entry) is read as the compressed one; the history can be off.
TEST(FrictionNewton, UncompressedWAndNoHistory) {
  const FrictionContact compressed = random_mechanical(3, 8, 30, 4, 0.5);
  FrictionContact uncompressed = compressed;
  uncompressed.W.uncompress();
  ASSERT_FALSE(uncompressed.W.isCompressed());
  const Result a = newton(compressed);
  SolveOptions options;
  options.record_history = false;
  const Result b = newton(uncompressed, options);
  ASSERT_EQ(a.status, Status::Solved) << a.message;
  EXPECT_EQ(b.status, Status::Solved) << b.message;
  EXPECT_EQ(a.iterations, b.iterations);
  EXPECT_LE((a.z - b.z).lpNorm<Eigen::Infinity>(), 1e-12 * (1 + a.z.lpNorm<Eigen::Infinity>()));
  EXPECT_FALSE(a.history.empty());
  EXPECT_TRUE(b.history.empty());
}

TEST(FrictionNewton, IterationLimit) {
  const FrictionContact problem = random_mechanical(3, 20, 70, 2, 0.5);
  SolveOptions options;
  options.max_iterations = 1;
  options.tolerance = 1e-14;
  const Result result = newton(problem, options);
  EXPECT_EQ(result.status, Status::MaxIterations);
  EXPECT_EQ(result.iterations, 1);
  EXPECT_THAT(result.message, testing::HasSubstr("iteration limit"));
}

// ---------------------------------------------------------------------------------------------
// Siconos' FrictionContact files. A throwaway reader for storage 0 (dense, column-major),
// storage 1 (sparse block, d×d blocks) and the CSC form of storage 2, as FC_FORMAT.md describes;
// io/ gets the proper reader.

std::string corpus_dir() { return PERP_SICONOS_FC_DIR; }

FrictionContact load_fc(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  int d = 0;
  int nc = 0;
  int storage = -1;
  int size0 = 0;
  int size1 = 0;
  in >> d >> nc >> storage >> size0 >> size1;
  const int n = d * nc;
  if (!in || size0 != n || size1 != n) throw std::runtime_error("bad header in " + path);
  std::vector<Eigen::Triplet<double>> entries;
  if (storage == 0) {
    in >> size0 >> size1;
    for (int j = 0; j < size1; ++j) {
      for (int i = 0; i < size0; ++i) {
        double v = 0;
        in >> v;
        if (v != 0) entries.emplace_back(i, j, v);
      }
    }
  } else if (storage == 1) {
    int blocks = 0;
    int block_rows = 0;
    int block_cols = 0;
    in >> blocks >> block_rows >> block_cols;
    std::vector<int> row_end(static_cast<std::size_t>(block_rows));
    std::vector<int> col_end(static_cast<std::size_t>(block_cols));
    for (int& v : row_end) in >> v;
    for (int& v : col_end) in >> v;
    int filled1 = 0;
    int filled2 = 0;
    in >> filled1 >> filled2;
    std::vector<int> row_pointer(static_cast<std::size_t>(filled1));
    std::vector<int> block_col(static_cast<std::size_t>(filled2));
    for (int& v : row_pointer) in >> v;
    for (int& v : block_col) in >> v;
    for (int br = 0; br + 1 < filled1; ++br) {
      for (int k = row_pointer[static_cast<std::size_t>(br)]; k < row_pointer[static_cast<std::size_t>(br) + 1]; ++k) {
        int number = 0;
        in >> number;
        const int bc = block_col[static_cast<std::size_t>(k)];
        const int r0 = br == 0 ? 0 : row_end[static_cast<std::size_t>(br) - 1];
        const int c0 = bc == 0 ? 0 : col_end[static_cast<std::size_t>(bc) - 1];
        const int nr = row_end[static_cast<std::size_t>(br)] - r0;
        const int ncol = col_end[static_cast<std::size_t>(bc)] - c0;
        for (int j = 0; j < ncol; ++j) {
          for (int i = 0; i < nr; ++i) {
            double v = 0;
            in >> v;
            if (v != 0) entries.emplace_back(r0 + i, c0 + j, v);
          }
        }
      }
    }
  } else if (storage == 2) {  // the CSparse text dump, CSC only (the granular-flow files)
    int origin = 0;
    in >> origin;
    if (origin != 2) throw std::runtime_error("storage 2 origin " + std::to_string(origin) + " not read: " + path);
    std::string line;
    std::getline(in, line);  // the rest of the origin line
    std::getline(in, line);  // the banner
    std::getline(in, line);  // "n-by-n, nzmax: … nnz: …"
    for (int j = 0; j < size1; ++j) {
      std::string word;
      std::string colon;
      std::string locations;
      std::string to;
      int column = 0;
      long first = 0;
      long last = 0;
      in >> word >> column >> colon >> locations >> first >> to >> last;
      if (!in || word != "col" || column != j) throw std::runtime_error("bad column header in " + path);
      for (long k = first; k <= last; ++k) {
        int row = 0;
        double v = 0;
        in >> row >> colon >> v;
        if (v != 0) entries.emplace_back(row, j, v);
      }
    }
  } else {
    throw std::runtime_error("storage " + std::to_string(storage) + " not read by the test loader: " + path);
  }
  FrictionContact problem;
  problem.dimension = d;
  problem.W.resize(n, n);
  problem.W.setFromTriplets(entries.begin(), entries.end());
  problem.q.resize(n);
  for (int i = 0; i < n; ++i) in >> problem.q[i];
  problem.mu.resize(nc);
  for (int i = 0; i < nc; ++i) in >> problem.mu[i];
  if (!in) throw std::runtime_error("truncated file " + path);
  problem.validate();
  return problem;
}

struct CorpusCase {
  const char* file;
  bool must_solve;  // newton-ac reaches 1e-8 from r = 0 (measured; RockPile_tob1 stalls near 2e-5, as every Siconos
                    // solver does)
};

TEST(FrictionNewton, SiconosCorpus) {
  const std::vector<CorpusCase> cases = {
      {"fc3d/FrictionContact3D_1c.dat", true},
      {"fc3d/FrictionContact3D_RR_1c.dat", true},
      {"fc3d/FC3D_Example1.dat", true},
      {"fc3d/FC3D_Example1_SBM.dat", true},
      {"fc3d/Rover1039.dat", true},
      {"fc3d/Rover1040.dat", true},
      {"fc3d/Rover1041.dat", true},
      {"fc3d/Rover11035.dat", true},
      {"fc3d/Rover11211.dat", true},
      {"fc3d/Rover3865.dat", true},
      {"fc3d/Rover4144.dat", true},
      {"fc3d/Rover4396.dat", true},
      {"fc3d/Rover4493.dat", true},
      {"fc3d/Rover4516.dat", true},
      {"fc3d/Rover4609.dat", true},
      {"fc3d/Rover4613.dat", true},
      {"fc3d/Rover4622.dat", true},
      {"fc3d/NESpheres_10_1.dat", true},
      {"fc3d/Confeti-ex13-4contact-Fc3D-SBM.dat", true},
      {"fc3d/Confeti-ex03-Fc3D-SBM.dat", true},
      {"fc3d/Confeti-ex13-Fc3D-SBM.dat", true},
      {"fc3d/Capsules-i100-1090.dat", true},
      {"fc3d/Capsules-i100-889.dat", true},
      {"fc3d/Capsules-i101-404.dat", true},
      {"fc3d/Capsules-i103-990.dat", true},
      {"fc3d/BoxesStack1-i100000-32.hdf5.dat", true},
      {"fc3d/OneObject-i100000-316.hdf5.dat", true},
      {"fc3d/OneObject-i100000-499.hdf5.dat", true},
      {"fc3d/OneObject-i1028-138.hdf5.dat", true},
      {"fc3d/RockPile_tob1.dat", false},
      {"fc2d/FC2D_SliderCrankLagrangian00000.dat", true},
      {"fc2d/FrictionContactProblem00031.dat", true},
      {"fc2d/FrictionContactProblem00071.dat", true},
      {"fc2d/FrictionContactProblem00374.dat", true},
      {"fc2d/FrictionContactProblem00394.dat", true},
      {"fc2d/FrictionContactProblem00727.dat", true},
      {"fc2d/fc2d_granularflowonwall_00667_00000.dat", true},
  };
  if (!std::filesystem::exists(corpus_dir() + "/fc3d/FrictionContact3D_1c.dat")) {
    GTEST_SKIP() << "no Siconos FrictionContact corpus under " << corpus_dir();
  }
  int solved = 0;
  for (const CorpusCase& c : cases) {
    SCOPED_TRACE(c.file);
    const FrictionContact problem = load_fc(corpus_dir() + "/" + c.file);
    SolveOptions options;
    options.tolerance = 1e-8;
    const auto start = std::chrono::steady_clock::now();
    const Result result = newton(problem, options);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::string tail;
    for (std::size_t i = result.history.size() > 3 ? result.history.size() - 3 : 0; i < result.history.size(); ++i) {
      char buffer[32];
      std::snprintf(buffer, sizeof buffer, " %.1e", result.history[i]);
      tail += buffer;
    }
    std::printf("  newton-ac %-44s nc %4lld  %-18s steps %3d  error %9.2e  %8.2f ms  tail%s\n", c.file,
                static_cast<long long>(problem.contacts()), to_string(result.status).c_str(), result.iterations,
                result.residual, ms, tail.c_str());
    EXPECT_TRUE(result.z.allFinite());
    EXPECT_NEAR(result.residual, friction_contact_residuals(problem, result.z).relative_error, 0.0);
    if (result.solved()) {
      ++solved;
      EXPECT_LE(result.residual, 1e-8);
    }
    if (c.must_solve) {
      EXPECT_EQ(result.status, Status::Solved) << result.message;
    }
  }
  std::printf("  newton-ac solved %d of %zu corpus files to 1e-8\n", solved, cases.size());
}

// A stand-in for nsgs, to measure newton-ac as its finisher: block Gauss–Seidel over contacts,
// each contact's problem solved approximately by the projection iteration
// r_i ← P_K(r_i − (u_i + μ‖u_T,i‖e_N)/‖W_ii‖_F), u kept equal to W r + q by column updates.
// Weaker than an exact local solver, so its sweep counts overstate nsgs'; the Newton steps from
// its r are the figure of interest.
void projected_gauss_seidel(const FrictionContact& problem, VectorXd& r, VectorXd& u, int sweeps) {
  const int d = problem.dimension;
  const Eigen::Index nc = problem.contacts();
  std::vector<MatrixXd> blocks(static_cast<std::size_t>(nc), MatrixXd::Zero(d, d));
  for (Eigen::Index j = 0; j < problem.W.outerSize(); ++j) {
    for (Eigen::SparseMatrix<double>::InnerIterator it(problem.W, j); it; ++it) {
      if (it.row() / d == j / d) blocks[static_cast<std::size_t>(j / d)](it.row() % d, j % d) = it.value();
    }
  }
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    for (Eigen::Index i = 0; i < nc; ++i) {
      const MatrixXd& block = blocks[static_cast<std::size_t>(i)];
      const double norm = block.norm();
      if (!(norm > 0)) continue;
      VectorXd ri = r.segment(i * d, d);
      VectorXd ui = u.segment(i * d, d);
      VectorXd x(d);
      VectorXd next(d);
      for (int local = 0; local < 20; ++local) {
        x = ri - ui / norm;
        x[0] -= problem.mu[i] * ui.tail(d - 1).norm() / norm;
        project_on_cone(x.data(), d, problem.mu[i], next.data());
        ui += block * (next - ri);
        const double change = (next - ri).squaredNorm();
        ri = next;
        if (change <= 1e-28 * ri.squaredNorm()) break;
      }
      const VectorXd delta = ri - r.segment(i * d, d);
      r.segment(i * d, d) = ri;
      for (int k = 0; k < d; ++k) {
        for (Eigen::SparseMatrix<double>::InnerIterator it(problem.W, i * d + k); it; ++it) {
          u[it.row()] += it.value() * delta[k];
        }
      }
    }
  }
}

double milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// Measurement for the report (set PERP_FC_MEASURE=1): newton-ac from r = 0, and from the r that the
// Gauss–Seidel stand-in reaches at 1e-4 and 1e-6 (or after 20000 sweeps), on every file.
TEST(FrictionNewton, FinisherMeasurement) {
  if (std::getenv("PERP_FC_MEASURE") == nullptr) GTEST_SKIP() << "set PERP_FC_MEASURE=1 to measure";
  std::vector<std::string> files;
  for (const char* dir : {"fc2d", "fc3d"}) {
    for (const auto& entry : std::filesystem::directory_iterator(corpus_dir() + "/" + dir)) {
      files.push_back(std::string(dir) + "/" + entry.path().filename().string());
    }
  }
  std::sort(files.begin(), files.end());
  std::printf("%-44s %5s | %-24s | %-34s | %-34s\n", "file", "nc", "newton-ac from 0", "GS to 1e-4 + newton-ac",
              "GS to 1e-6 + newton-ac");
  const char* only = std::getenv("PERP_FC_ONLY");  // a substring of the file names to measure
  for (const std::string& file : files) {
    if (only != nullptr && file.find(only) == std::string::npos) continue;
    const FrictionContact problem = load_fc(corpus_dir() + "/" + file);
    SolveOptions options;
    options.tolerance = 1e-8;
    auto start = std::chrono::steady_clock::now();
    const Result cold = newton(problem, options);
    const double cold_ms = milliseconds_since(start);
    std::printf("%-44s %5lld | %3d st %9.2e %7.1f ms", file.c_str(), static_cast<long long>(problem.contacts()),
                cold.iterations, cold.residual, cold_ms);
    VectorXd r = VectorXd::Zero(problem.size());
    VectorXd u = problem.q;
    int sweeps = 0;
    start = std::chrono::steady_clock::now();
    for (const double target : {1e-4, 1e-6}) {
      double error = friction_contact_residuals(problem, r, u).relative_error;
      while (error > target && sweeps < 20000) {
        projected_gauss_seidel(problem, r, u, 10);
        sweeps += 10;
        u = problem.velocity(r);
        error = friction_contact_residuals(problem, r, u).relative_error;
      }
      const double gs_ms = milliseconds_since(start);
      const auto finish_start = std::chrono::steady_clock::now();
      const Result warm = detail::solve_newton_ac(problem, options, r);
      const double warm_ms = milliseconds_since(finish_start);
      std::printf(" | GS %5d sw %7.1f ms %8.1e + %3d st %7.1f ms %s", sweeps, gs_ms, error, warm.iterations, warm_ms,
                  warm.solved() ? "ok" : "NOT");
      EXPECT_TRUE(warm.z.allFinite());
      if (std::getenv("PERP_FC_HISTORY") != nullptr) {
        std::printf("\n    %s:", warm.message.c_str());
        for (const double e : warm.history) std::printf(" %.1e", e);
        std::printf("\n");
      }
    }
    std::printf("\n");
  }
}

}  // namespace
}  // namespace perp::solvers_friction_newton_test
