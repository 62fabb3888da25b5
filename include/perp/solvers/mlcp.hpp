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
/// the equality and the complementarity residual; core/mlcp.hpp), recomputed from z whatever the
/// method computed internally. Methods (docs/solvers.md, "MLCP"):
///   - schur: when A is well conditioned (reciprocal condition estimate of A after row/column
///     equilibration >= `mlcp.schur_min_rcond`), eliminates u = −A⁻¹(C v + a) and solves the LCP
///     (B − D A⁻¹ C, b − D A⁻¹ a) with `mlcp.schur_lcp_method`; otherwise not-applicable, with the
///     estimated condition number in `message`. Its statuses are the inner LCP method's
///     (infeasible is a proof: the reduction is exact).
///   - enum: active sets α of the complementarity rows, searched outward from a guessed one; each
///     solves the bordered system [[A, C_·α], [D_α·, B_αα]] (A may be singular). m <=
///     `mlcp.enum_max_complementarities`, else not-applicable; infeasible when every set was
///     examined and every bordered system is nonsingular; `max_iterations` bounds the sets.
///   - lemke: Lemke's method after pivoting u (and, where A is singular, some v_J) into the
///     basis: the principal pivot transform of the MLCP, an LCP of size m; when no well-conditioned
///     pivot block exists, the LCP of the split u = u⁺ − u⁻ (size 2n + m). A ray proves nothing.
///   - newton-fb, newton-min, penalized-fb, smoothing: the MCP with bounds (−∞, +∞) for u and
///     [0, +∞) for v, F(z) = M z + q (solvers/newton.hpp).
///   - pgs: block Gauss–Seidel, free on the u rows, projected on the v rows; not-applicable when a
///     diagonal entry of M is zero (or negative on a v row), naming it.
///   - auto: schur, lemke, newton-fb, enum (when m <= `mlcp.enum_max_complementarities`), pgs; the
///     first that solves or proves infeasibility, with every attempt listed in `message`
///     ("auto (schur: not-applicable; lemke: solved): …"); when none does, the attempt with the
///     smallest residual. `Result::method` names the method whose z is returned.
/// Other methods, and `all_solutions`, throw `InvalidProblem`.
[[nodiscard]] Result solve(const Mlcp& problem, Method method = Method::Auto, const SolveOptions& options = {});

/// The methods that accept an `Mlcp`, in declaration order.
[[nodiscard]] std::vector<Method> mlcp_methods();

}  // namespace perp
