#pragma once
// The friction passes of a box LCP (private, not installed): the one outer loop of the methods that
// solve a box with fixed bounds (dantzig, the Newton family, path) when friction couples bounds to
// other unknowns (`BoxLcp::friction`: a tangent's bounds ±μ|z_normal|). pgs needs none: it re-reads
// the coupled bounds at every update.

#include <Eigen/Core>
#include <functional>
#include <string>

#include "perp/core/box_lcp.hpp"
#include "perp/core/result.hpp"
#include "perp/solvers/options.hpp"

namespace perp::detail {

/// What one fixed-box solve reports to the passes.
struct FixedBoxOutcome {
  Status status = Status::Solved;
  std::string message;
};

/// One fixed-box solve: from z (inside [lo, hi]) it solves the box LCP with these bounds held
/// fixed, leaves its point in z and w = M z + q at that point in w, and adds its iterations (and
/// any history) to `total`. `pass` counts from 1. It may re-read the coupled bounds of the
/// components it drives into lo and hi (dantzig does, by ODE's rule: pass 1 then already uses
/// the normals it solved).
using FixedBoxSolve = std::function<FixedBoxOutcome(int pass, Eigen::VectorXd& lo, Eigen::VectorXd& hi,
                                                    Eigen::VectorXd& z, Eigen::VectorXd& w, Result& total)>;

/// The passes: the coupled bounds are read at z and held fixed, z is projected onto them and the
/// fixed box is solved from it; the loop ends when the point meets the tolerance with its own
/// bounds (the relative residual, `relative_residual(BoxLcp, z, w)`: the pipeline's judgement), when
/// a solve does not end `Solved` (its status, the message prefixed "friction pass k: "), or after
/// `SolveOptions::max_friction_passes` solves (`MaxIterations`, naming the bound that moved most in
/// the last pass). Without coupling: one solve. Returns z, status, message, iterations and history;
/// w and the residuals are left to the caller (the pipeline's finish recomputes them from z).
[[nodiscard]] Result friction_passes(const BoxLcp& problem, Eigen::VectorXd z, const SolveOptions& options,
                                     const FixedBoxSolve& solve_fixed);

}  // namespace perp::detail
