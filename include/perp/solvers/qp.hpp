#pragma once
/// \file
/// Convex QPs solved through the LCP of their KKT conditions (core/qp.hpp).

#include "perp/core/qp.hpp"
#include "perp/solvers/method.hpp"
#include "perp/solvers/options.hpp"

namespace perp {

/// Validates the QP (and that Q is PSD, naming a direction of negative curvature when it is not),
/// builds `kkt_lcp(problem)`, solves it with `method` (any LCP method; auto by default) and splits
/// z = (x, μ), w = (ν, A x − b) into the result.
///
/// Q is PSD when its smallest eigenvalue is >= −1e-10·max|Q_ij|; otherwise `InvalidProblem` says
/// "Q is not positive semidefinite: x = [...] gives xᵀQx = v < 0". The status is the LCP solve's,
/// except for a QP without a minimizer: when the LCP is not solved, Lemke's secondary ray on the
/// KKT LCP (run for the purpose when `method` was another) is checked against the data, and when
/// it certifies that the QP is infeasible (λ >= 0, Aᵀλ <= 0, bᵀλ > 0) or unbounded below (d >= 0,
/// A d >= 0, Q d = 0, cᵀd < 0, and a feasible point exists) the status becomes `Infeasible` (the
/// KKT LCP provably has no solution), `lcp.ray` holds the ray and `lcp.message` starts with
/// "the QP is infeasible: ..." or "the QP is unbounded below: ...". x, μ, ν are then the LCP
/// method's last point, sized and finite.
[[nodiscard]] QpResult solve(const Qp& problem, Method method = Method::Auto, const SolveOptions& options = {});

}  // namespace perp
