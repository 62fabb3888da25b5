#pragma once
// Private: Dostál's MPRGP (modified proportioning with reduced gradient projections) on the convex
// program of a factored LCP, min ½ λᵀ N λ + cᵀ λ subject to λ >= 0 with N = A M⁻¹ Aᵀ (positive
// semidefinite; rows of A may be redundant, so λ need not be unique). Conjugate gradients on the
// free rows, expansion steps of a fixed length ᾱ < 2/‖N‖ that leave the free set by projection,
// proportioning steps that release rows at the bound whose gradient points inside; only products
// with A and Aᵀ (never N). The variables are scaled by N's diagonal (a unit diagonal), which is
// what makes one ᾱ serve rows of very different stiffness (a wall against a light disk).
// Z. Dostál and J. Schöberl, "Minimizing quadratic functions subject to bound constraints with the
// rate of convergence and finite termination" (docs/references.md: Dostál–Schöberl 2005).

#include <Eigen/Core>
#include <functional>

#include "friction_ipm.hpp"

namespace perp::detail {

struct ProportioningOutcome {
  Eigen::VectorXd lambda;  ///< the point with the smallest error seen
  double error = 0;        ///< its `error_of`
  int iterations = 0;
};

/// From z0 (clamped at 0), at most `iterations` steps, `error_of` checked every `every` steps;
/// stops once it is <= `tolerance`, or when the smallest error seen, still above ten tolerances,
/// has not halved in `stall_steps` steps (0: no such stop). Rows with a zero diagonal (fixed dofs only) keep z0's value.
[[nodiscard]] ProportioningOutcome proportioning(const ConeProgram& program, const Eigen::VectorXd& c,
                                                 const Eigen::VectorXd& z0, int iterations, int every,
                                                 double tolerance,
                                                 const std::function<double(const Eigen::VectorXd&)>& error_of,
                                                 int stall_steps = 0);

}  // namespace perp::detail
