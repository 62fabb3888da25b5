#pragma once
/// \file
/// `solve` for the box-constrained LCP, with or without friction coupling.

#include <vector>

#include "perp/core/box_lcp.hpp"
#include "perp/core/result.hpp"
#include "perp/solvers/method.hpp"
#include "perp/solvers/options.hpp"

namespace perp {

/// Validates the problem and the options, then runs `method` on the box LCP. `Result::z` is the
/// solution, `w` = M z + q, `residual` the box natural residual ‖z − mid(lo(z), hi(z), z − w)‖∞
/// (core/box_lcp.hpp). Methods: dantzig, pgs, psor, the Newton family through the MCP form, and
/// auto; the others throw `InvalidProblem`, as does `SolveOptions::all_solutions` (enum on an `Lcp` only).
[[nodiscard]] Result solve(const BoxLcp& problem, Method method = Method::Auto, const SolveOptions& options = {});

/// The methods that accept a `BoxLcp`, in declaration order.
[[nodiscard]] std::vector<Method> box_lcp_methods();

}  // namespace perp
