#include <algorithm>
#include <vector>

#include "perp/contact/jacobian.hpp"
#include "perp/core/lcp.hpp"
#include "perp/solvers/factored_lcp.hpp"
#include "perp/solvers/solve.hpp"
#include "advance.hpp"
#include "material.hpp"
#include "warm_start.hpp"

// The 2D step's split impulse (the drift correction's second solve), moved out of moreau_jean.cpp.

namespace perp::contact {
namespace {

/// The rows of J_N (jacobian.hpp) of the contacts `rows` (in that order), written in place row by
/// row: each row's 3 or 6 entries sorted by column (the lower body's first), the values J_N holds
/// (d, arm × d of body a; their negatives for body b). The same matrix as J_N's rows taken from
/// `normal_jacobian` and converted to row-major, without the column-major matrix, its copy and the triplets.
Eigen::SparseMatrix<double, Eigen::RowMajor> normal_rows(const std::vector<Contact>& contacts,
                                                        const std::vector<Eigen::Index>& rows, Eigen::Index body_count) {
  Eigen::SparseMatrix<double, Eigen::RowMajor> A(static_cast<Eigen::Index>(rows.size()), 3 * body_count);
  A.resizeNonZeros(static_cast<Eigen::Index>(6 * rows.size()));
  int* const outer = A.outerIndexPtr();
  int* const inner = A.innerIndexPtr();
  double* const values = A.valuePtr();
  int written = 0;
  outer[0] = 0;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const Contact& c = contacts[static_cast<std::size_t>(rows[r])];
    const Eigen::Vector2d& d = c.normal;
    const auto side = [&](int body, const Eigen::Vector2d& arm, bool negated) {
      const double entries[3] = {d.x(), d.y(), detail::cross(arm, d)};
      for (int k = 0; k < 3; ++k) {
        inner[written] = 3 * body + k;
        values[written++] = negated ? -entries[k] : entries[k];
      }
    };
    if (c.body_b >= 0 && c.body_b < c.body_a) side(c.body_b, c.arm_b, true);
    side(c.body_a, c.arm_a, false);
    if (c.body_b > c.body_a) side(c.body_b, c.arm_b, true);
    outer[r + 1] = written;
  }
  A.resizeNonZeros(written);  // 3 entries for a contact with the ground
  return A;
}

}  // namespace

/// The split impulse's LCP is formed and solved by auto (pivoting) up to this many rows; above,
/// psor on its factors. 16: the size up to which auto on a dense LCP takes the solvers' lean
/// route (the tableau on the stack, no classification); a pile of 10 disks splits 1-6 rows.
constexpr Eigen::Index kSplitDenseRows = 16;

/// The split impulse: the frictionless problem of the overlapping contacts for a pseudo-velocity
/// from rest, 0 <= λ ⊥ J_N M⁻¹ J_Nᵀ λ + b >= 0 (b = `overlap_bias`, < 0 where a contact overlaps
/// past the slop), to a relative residual of max(kSplitTolerance, the step's tolerance): up to
/// kSplitDenseRows rows formed and solved by auto's pivoting; more rows (or where the pivots do not
/// solve) on its factors (`FactoredLcp`, never formed) by over-relaxed projected Gauss–Seidel
/// sweeps (ω = kSplitRelaxation), at most kSplitSweeps, from the multipliers the same contacts had in
/// the last step's split (`World::impulses`: a heap's overlaps change little from one step to the
/// next; bench/README.md, "The split impulse's warm start (stop 48)"); returns the position shift
/// h M⁻¹ J_Nᵀ λ.
Eigen::VectorXd split_impulse_shift(const World& world, const std::vector<int>& ordinals,
                                    const std::vector<Contact>& contacts, const Eigen::VectorXd& inverse_mass,
                                    const Eigen::VectorXd& overlap_bias, const MoreauJeanOptions& options,
                                    StepReport& report) {
  std::vector<Eigen::Index> rows;
  for (Eigen::Index k = 0; k < overlap_bias.size(); ++k) {
    if (overlap_bias[k] < 0) rows.push_back(k);
  }
  const auto count = static_cast<Eigen::Index>(rows.size());
  FactoredLcp problem;
  problem.A = normal_rows(contacts, rows, inverse_mass.size() / 3);
  problem.c.resize(count);
  for (Eigen::Index r = 0; r < count; ++r) problem.c[r] = overlap_bias[rows[static_cast<std::size_t>(r)]];
  problem.inverse_mass = inverse_mass;
  SolveOptions solve_options = options.solve;
  solve_options.initial_guess.reset();
  solve_options.tolerance = std::max(options.solve.tolerance, kSplitTolerance);
  Result result;
  if (count <= kSplitDenseRows) {
    // Few rows: J_N M⁻¹ J_Nᵀ formed (count² entries from rows of 3 or 6) and auto on the dense LCP,
    // which at this size pivots on the stack (block principal pivoting, then Lemke): the exact
    // multipliers where psor's sweeps stopped at the tolerance (the error is checked every 50
    // sweeps, so psor spent at least 50 sweeps on rows a few pivots solve).
    Lcp dense;
    dense.M.resize(count, count);
    const int* const outer = problem.A.outerIndexPtr();
    const int* const inner = problem.A.innerIndexPtr();
    const double* const values = problem.A.valuePtr();
    for (Eigen::Index a = 0; a < count; ++a) {
      for (Eigen::Index b = a; b < count; ++b) {  // symmetric: the upper triangle, mirrored
        double entry = 0;  // Σ over the columns the two sorted rows share
        int p = outer[a];
        int r = outer[b];
        while (p < outer[a + 1] && r < outer[b + 1]) {
          if (inner[p] < inner[r]) {
            ++p;
          } else if (inner[r] < inner[p]) {
            ++r;
          } else {
            entry += values[p] * inverse_mass[inner[p]] * values[r];
            ++p;
            ++r;
          }
        }
        dense.M(a, b) = entry;
        dense.M(b, a) = entry;
      }
    }
    dense.q = problem.c;
    result = solve(dense, Method::Auto, solve_options);
  }
  report.split_impulse.resize(0);
  if (!result.solved()) {  // more rows, or the pivots did not solve: psor on the factors
    solve_options.max_iterations = kSplitSweeps;
    solve_options.relaxation = kSplitRelaxation;
    Eigen::VectorXd normal, tangent, last_split;
    if (!world.impulses.empty() && last_impulses(world, contacts, ordinals, normal, tangent, &last_split) > 0) {
      Eigen::VectorXd start(count);
      for (Eigen::Index r = 0; r < count; ++r) start[r] = last_split[rows[static_cast<std::size_t>(r)]];
      if (start.maxCoeff() > 0) solve_options.initial_guess = std::move(start);
    }
    result = solve(problem, Method::Psor, solve_options);
    report.split_impulse = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(contacts.size()));
    for (Eigen::Index r = 0; r < count; ++r) report.split_impulse[rows[static_cast<std::size_t>(r)]] = result.z[r];
  }
  report.split_contacts = static_cast<std::size_t>(count);
  report.split_status = result.status;
  report.split_sweeps = static_cast<std::size_t>(result.iterations);
  return options.timestep * inverse_mass.cwiseProduct(Eigen::VectorXd(problem.A.transpose() * result.z));
}

}  // namespace perp::contact
