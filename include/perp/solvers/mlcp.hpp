#pragma once
/// \file
/// `solve` for the mixed LCP.

#include <vector>

#include "perp/core/mlcp.hpp"
#include "perp/core/result.hpp"
#include "perp/solvers/method.hpp"
#include "perp/solvers/options.hpp"

namespace perp {

/// Validates the problem and the options, then runs `method` on the MLCP. `Result::z` = (u, v),
/// `w` = (A u + C v + a, D u + B v + b), `residual` = `natural_residual(problem, z)` (the larger of
/// the equality and the complementarity residual; core/mlcp.hpp). Methods: schur, enum, lemke,
/// pgs, the Newton family through the MCP form, and auto; the others throw `InvalidProblem`.
[[nodiscard]] Result solve(const Mlcp& problem, Method method = Method::Auto, const SolveOptions& options = {});

/// The methods that accept an `Mlcp`, in declaration order.
[[nodiscard]] std::vector<Method> mlcp_methods();

}  // namespace perp
