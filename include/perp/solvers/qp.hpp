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
[[nodiscard]] QpResult solve(const Qp& problem, Method method = Method::Auto, const SolveOptions& options = {});

}  // namespace perp
