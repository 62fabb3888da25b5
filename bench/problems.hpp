#pragma once
/// \file
/// The problems every benchmark in bench/ runs on, generated the same way everywhere so that
/// perp_bench and compare_siconos time the very same numbers (and box_bench and compare_bullet
/// the same box LCPs, further down).
///
///   M = AᵀA + 0.1·I,  A ∈ ℝ^{n×n} with entries uniform in [−1, 1],  q uniform in [−1, 1]^n.
///
/// M is symmetric positive definite (its smallest eigenvalue is >= 0.1), so the LCP has exactly
/// one solution and every method in perp applies; about half of q is negative, so the solution
/// has a nontrivial active set and Lemke needs O(n) pivots.

#include <Eigen/Dense>
#include <Eigen/SparseCore>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <string_view>
#include <utility>
#include <vector>

#include "perp/core/box_lcp.hpp"
#include "perp/core/lcp.hpp"

namespace perp::bench {

/// The seed of the generator. Each size n seeds its own engine with `kProblemSeed + n`, so a
/// problem does not depend on which other sizes were generated before it.
inline constexpr std::uint64_t kProblemSeed = 20240601;

/// A double in [0, 1) from the top 53 bits of the engine's output (the same on every platform,
/// unlike std::uniform_real_distribution).
inline double uniform_unit(std::mt19937_64& engine) { return static_cast<double>(engine() >> 11) * 0x1.0p-53; }

/// The dense SPD problem of size n described above. Deterministic: std::mt19937_64 is fully
/// specified by the standard, and the values are drawn in a fixed order (A column by column,
/// then q) through our own affine map of the engine's output, because
/// std::uniform_real_distribution's algorithm is implementation-defined.
inline Lcp spd_problem(Eigen::Index n) {
  std::mt19937_64 engine(kProblemSeed + static_cast<std::uint64_t>(n));
  // 53 random bits → a double in [0, 1), then mapped to [−1, 1).
  const auto uniform_pm1 = [&engine] { return 2.0 * uniform_unit(engine) - 1.0; };
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

/// The contact family: the frictionless velocity-level LCP of random planar rigid bodies,
///
///   M = J W Jᵀ,  q = J v,
///
/// J the contact Jacobian (one normal row per contact), W = diag(1/m, 1/m, 1/I) per body (x, y, θ),
/// v the bodies' velocities before the impulses (uniform in [−1, 1]). n contacts between
/// b = max(2, ⌈n/4⌉) bodies, so rank M <= 3b < n from n = 8 on: M is singular positive
/// semidefinite, as the Delassus operator of an over-constrained pile is. Each contact takes a
/// uniform body a and, one time in four, the ground, else a body one to four indices further on
/// (cyclically); its normal is within ±0.3 rad of vertical, its lever arms uniform in
/// [−0.25, 0.25]² m; masses uniform in [0.5, 2] kg, inertias m·[0.02, 0.08] kg m². The LCP has a
/// solution for every such q (q = J v lies in the range of J, so no d >= 0 with M d = 0 has
/// qᵀd < 0), usually not a unique one. Seeded with kProblemSeed + 104729 + n.
/// `contacts_per_body` sets b = max(2, ⌈n/contacts_per_body⌉); 10 gives the denser variant
/// (rank M <= 3n/10) of docs/solvers.md's "Singular positive semidefinite M".
inline Lcp contact_problem(Eigen::Index n, Eigen::Index contacts_per_body = 4) {
  std::mt19937_64 engine(kProblemSeed + 104729 + static_cast<std::uint64_t>(n));
  const auto uniform = [&engine](double low, double high) { return low + (high - low) * uniform_unit(engine); };
  const Eigen::Index bodies = std::max<Eigen::Index>(2, (n + contacts_per_body - 1) / contacts_per_body);
  Eigen::VectorXd inverse_mass(3 * bodies);
  for (Eigen::Index body = 0; body < bodies; ++body) {
    const double mass = uniform(0.5, 2.0);
    inverse_mass[3 * body] = inverse_mass[3 * body + 1] = 1.0 / mass;
    inverse_mass[3 * body + 2] = 1.0 / (mass * uniform(0.02, 0.08));
  }
  Eigen::VectorXd velocity(3 * bodies);
  for (Eigen::Index i = 0; i < velocity.size(); ++i) velocity[i] = uniform(-1.0, 1.0);
  Eigen::MatrixXd jacobian = Eigen::MatrixXd::Zero(n, 3 * bodies);
  for (Eigen::Index c = 0; c < n; ++c) {
    const auto a = static_cast<Eigen::Index>(uniform_unit(engine) * static_cast<double>(bodies));
    Eigen::Index b = -1;  // the ground
    if (uniform_unit(engine) >= 0.25) {
      const auto offset = 1 + static_cast<Eigen::Index>(uniform_unit(engine) * 4.0);
      b = (a + std::min(offset, bodies - 1)) % bodies;
    }
    const double angle = uniform(-0.3, 0.3);
    const double nx = std::sin(angle), ny = std::cos(angle);
    const double rax = uniform(-0.25, 0.25), ray = uniform(-0.25, 0.25);
    const double rbx = uniform(-0.25, 0.25), rby = uniform(-0.25, 0.25);
    jacobian(c, 3 * a) += nx;
    jacobian(c, 3 * a + 1) += ny;
    jacobian(c, 3 * a + 2) += rax * ny - ray * nx;
    if (b >= 0) {
      jacobian(c, 3 * b) -= nx;
      jacobian(c, 3 * b + 1) -= ny;
      jacobian(c, 3 * b + 2) -= rbx * ny - rby * nx;
    }
  }
  Lcp problem;
  problem.M = jacobian * inverse_mass.asDiagonal() * jacobian.transpose();
  problem.M = (0.5 * (problem.M + problem.M.transpose())).eval();
  problem.q = jacobian * velocity;
  return problem;
}

// ---------------------------------------------------------------------------------------------
// Box LCPs (issue 4): the problems of box_bench and compare_bullet.
//
// contact_box_problem: the velocity-level contact problem of a rigid-body engine. k contacts
// between b = ⌈2k/3⌉ rigid bodies (6 degrees of freedom each, so the 3k contact rows stay below
// the 4k velocities and W is positive definite without help), each contact a normal row n and two
// tangent rows t₁, t₂ (an orthonormal frame at the contact point):
//
//   W = J M⁻¹ Jᵀ + ε I,   q = J v,   ε = kContactCfm,
//
// J the 3k × 6b contact Jacobian (row for direction d at a contact between bodies a and b with
// lever arms r_a, r_b: [d, r_a × d] on a's velocities, −[d, r_b × d] on b's; a contact with the
// ground has only the a block), M the block-diagonal mass matrix (masses uniform in [0.5, 2] kg,
// diagonal inertias m·[0.02, 0.08] kg m²), v the bodies' velocities before the impulses (uniform
// in [−1, 1] m/s and rad/s, so about half of the contacts approach and half separate). ε is the
// constraint force mixing an engine adds to W (ODE's CFM, Bullet's m_globalCfm). The rows are
// ordered contact by contact (n, t₁, t₂), as an engine assembles them; n = 3k with k = round(n/3):
// 99, 501 and 999 for the requested 100, 500 and 1000.
//
// Contacts are local, as in a pile: body a is uniform, and its partner is the ground (one contact
// in four) or a body one to four indices further on (cyclically), so W has a few nonzero 3×3
// blocks per block row (stored dense, as the Dantzig solvers want it). Friction coefficients μ are
// uniform in [0.2, 0.8] per contact. The engine is seeded with kProblemSeed + 7919 + n (requested).
//
// The variants differ only in the tangent rows' bounds:
//   BoxVariant::Fixed     t ∈ [−μ·kFixedNormalImpulse, +μ·kFixedNormalImpulse] (a friction box
//                         sized from a guessed normal impulse, as engines do when they decouple)
//   BoxVariant::Friction  t coupled to its normal: −μ z_n <= t <= μ z_n (BoxLcp::friction, ODE's
//                         findex); the tangent rows' lower/upper are ±∞ (ignored)
// Normals are [0, +∞) in both.
//
// BoxVariant::SpdNub: the dense SPD matrix and q of spd_problem(n) with its first n/10 rows free
// (bilateral joint rows: Bullet's and ODE's "nub"), the rest alternately [0, +∞) and
// [−kSpdBoxHalfWidth, +kSpdBoxHalfWidth]. Its n is exactly the requested one.

enum class BoxVariant { Fixed, Friction, SpdNub };

inline constexpr BoxVariant kBoxVariants[] = {BoxVariant::Fixed, BoxVariant::Friction, BoxVariant::SpdNub};

inline std::string_view to_string(BoxVariant variant) {
  switch (variant) {
    case BoxVariant::Fixed:
      return "contact-fixed";
    case BoxVariant::Friction:
      return "contact-friction";
    case BoxVariant::SpdNub:
      return "spd-nub";
  }
  return "?";
}

/// Constraint force mixing added to W's diagonal (ε above).
inline constexpr double kContactCfm = 1e-6;
/// The normal impulse (N s) that sizes the fixed friction boxes of BoxVariant::Fixed.
inline constexpr double kFixedNormalImpulse = 0.3;
/// The half-width of the bounded rows of BoxVariant::SpdNub.
inline constexpr double kSpdBoxHalfWidth = 0.5;

/// The number of free (nub) rows of BoxVariant::SpdNub, which are its leading rows.
inline Eigen::Index spd_nub_rows(Eigen::Index n) { return n / 10; }

namespace detail {

/// The contact problem described above, with `coupled` choosing the tangent bounds.
inline BoxLcp contact_box_problem(Eigen::Index requested_n, bool coupled) {
  const Eigen::Index contacts = std::max<Eigen::Index>(1, (requested_n + 1) / 3);
  const Eigen::Index bodies = std::max<Eigen::Index>(2, (2 * contacts + 2) / 3);
  const Eigen::Index n = 3 * contacts;
  std::mt19937_64 engine(kProblemSeed + 7919 + static_cast<std::uint64_t>(requested_n));
  const auto uniform = [&engine](double low, double high) { return low + (high - low) * uniform_unit(engine); };

  // M⁻¹ as a diagonal (body-frame inertias, diagonal), 6 entries per body.
  Eigen::VectorXd inverse_mass(6 * bodies);
  for (Eigen::Index body = 0; body < bodies; ++body) {
    const double mass = uniform(0.5, 2.0);
    for (int axis = 0; axis < 3; ++axis) inverse_mass[6 * body + axis] = 1.0 / mass;
    for (int axis = 0; axis < 3; ++axis) inverse_mass[6 * body + 3 + axis] = 1.0 / (mass * uniform(0.02, 0.08));
  }
  Eigen::VectorXd velocity(6 * bodies);
  for (Eigen::Index i = 0; i < velocity.size(); ++i) velocity[i] = uniform(-1.0, 1.0);

  std::vector<Eigen::Triplet<double>> entries;
  entries.reserve(static_cast<std::size_t>(n) * 12);
  Eigen::VectorXd mu(contacts);
  for (Eigen::Index c = 0; c < contacts; ++c) {
    const auto a = static_cast<Eigen::Index>(uniform_unit(engine) * static_cast<double>(bodies));
    Eigen::Index b = -1;  // the ground
    if (uniform_unit(engine) >= 0.25) {
      const auto offset = 1 + static_cast<Eigen::Index>(uniform_unit(engine) * 4.0);
      b = (a + std::min(offset, bodies - 1)) % bodies;
    }
    // A normal mostly along +z (bodies resting on each other), and a tangent frame.
    Eigen::Vector3d normal(uniform(-0.3, 0.3), uniform(-0.3, 0.3), 1.0);
    normal.normalize();
    Eigen::Vector3d t1 = normal.unitOrthogonal();
    Eigen::Vector3d t2 = normal.cross(t1);
    const Eigen::Vector3d r_a(uniform(-0.25, 0.25), uniform(-0.25, 0.25), uniform(-0.25, 0.25));
    const Eigen::Vector3d r_b(uniform(-0.25, 0.25), uniform(-0.25, 0.25), uniform(-0.25, 0.25));
    mu[c] = uniform(0.2, 0.8);
    const Eigen::Vector3d directions[3] = {normal, t1, t2};
    for (int k = 0; k < 3; ++k) {
      const Eigen::Index row = 3 * c + k;
      const Eigen::Vector3d& d = directions[k];
      const Eigen::Vector3d arm_a = r_a.cross(d);
      for (int axis = 0; axis < 3; ++axis) {
        entries.emplace_back(row, 6 * a + axis, d[axis]);
        entries.emplace_back(row, 6 * a + 3 + axis, arm_a[axis]);
      }
      if (b >= 0) {
        const Eigen::Vector3d arm_b = r_b.cross(d);
        for (int axis = 0; axis < 3; ++axis) {
          entries.emplace_back(row, 6 * b + axis, -d[axis]);
          entries.emplace_back(row, 6 * b + 3 + axis, -arm_b[axis]);
        }
      }
    }
  }
  Eigen::SparseMatrix<double> jacobian(n, 6 * bodies);
  jacobian.setFromTriplets(entries.begin(), entries.end());
  const Eigen::SparseMatrix<double> scaled = jacobian * inverse_mass.asDiagonal();
  const Eigen::SparseMatrix<double> delassus = scaled * jacobian.transpose();

  BoxLcp problem;
  problem.M = Eigen::MatrixXd(delassus);
  problem.M = (0.5 * (problem.M + problem.M.transpose())).eval();
  problem.M.diagonal().array() += kContactCfm;
  problem.q = jacobian * velocity;
  const double infinity = std::numeric_limits<double>::infinity();
  problem.lower = Eigen::VectorXd::Zero(n);
  problem.upper = Eigen::VectorXd::Constant(n, infinity);
  for (Eigen::Index c = 0; c < contacts; ++c) {
    for (Eigen::Index k = 1; k <= 2; ++k) {
      const Eigen::Index row = 3 * c + k;
      if (coupled) {
        problem.lower[row] = -infinity;
        problem.upper[row] = infinity;
        problem.friction.push_back(FrictionCoupling{row, 3 * c, mu[c]});
      } else {
        problem.lower[row] = -mu[c] * kFixedNormalImpulse;
        problem.upper[row] = mu[c] * kFixedNormalImpulse;
      }
    }
  }
  return problem;
}

inline BoxLcp spd_nub_problem(Eigen::Index n) {
  const Lcp base = spd_problem(n);
  BoxLcp problem{base.M, base.q, Eigen::VectorXd(n), Eigen::VectorXd(n), {}};
  const double infinity = std::numeric_limits<double>::infinity();
  const Eigen::Index nub = spd_nub_rows(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    if (i < nub) {
      problem.lower[i] = -infinity;
      problem.upper[i] = infinity;
    } else if ((i - nub) % 2 == 0) {
      problem.lower[i] = 0;
      problem.upper[i] = infinity;
    } else {
      problem.lower[i] = -kSpdBoxHalfWidth;
      problem.upper[i] = kSpdBoxHalfWidth;
    }
  }
  return problem;
}

}  // namespace detail

/// The box LCP of `variant` for the requested size n (the contact variants round it to 3k).
inline BoxLcp box_problem(BoxVariant variant, Eigen::Index n) {
  switch (variant) {
    case BoxVariant::Fixed:
      return detail::contact_box_problem(n, false);
    case BoxVariant::Friction:
      return detail::contact_box_problem(n, true);
    case BoxVariant::SpdNub:
      return detail::spd_nub_problem(n);
  }
  return {};
}

/// The optional argument of the side-by-side programs: the largest n to run (default 1000, e.g.
/// `compare_siconos 100` for a quick check or under valgrind). 0 after printing the usage when it is
/// not a positive integer.
inline long max_n_argument(int argc, char** argv) {
  if (argc <= 1) return 1000;
  char* end = nullptr;
  const long max_n = std::strtol(argv[1], &end, 10);
  if (end == argv[1] || *end != '\0' || max_n < 1) {
    std::fprintf(stderr, "usage: %s [max_n]   (max_n: a positive integer, default 1000)\n", argv[0]);
    return 0;
  }
  return max_n;
}

}  // namespace perp::bench
