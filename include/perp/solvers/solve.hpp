#pragma once
/// \file
/// The one entry point: `solve(problem, method, options)`.

#include "perp/core/lcp.hpp"
#include "perp/core/ncp.hpp"
#include "perp/core/result.hpp"
#include "perp/solvers/method.hpp"
#include "perp/solvers/options.hpp"

namespace perp {

/// Validates the problem and the options (throwing `InvalidProblem` with a message that names
/// the field), handles n = 0 and q >= 0 (z = 0) without pivoting, then runs `method`.
/// Failure to solve is a status in the result, never an exception.
///
/// `Method::Auto` returns z = 0 at once when q >= 0 (n = 0 included; `Result::method` is then
/// `Method::Auto`). Otherwise it steers by measured cost (docs/solvers.md, "Auto"): n <= 40, lemke; M
/// symmetric with a positive diagonal, block principal pivoting from the start while its
/// infeasible count keeps halving, then PGS in chunks with its rate measured, block pivoting again
/// once the active set holds, dantzig and lemke when the rate is slow, newton-min from the PGS
/// point when the sweep budget is spent; otherwise, and where those end unsolved, the order that
/// `classify(M, ClassifyOptions::cheap())` and `recommend(report, n)` imply (solvers/recommend.hpp),
/// the first that solves or else the attempt with the smallest residual. `message` names every
/// switch and why; `Result::method` the method whose z is returned.
[[nodiscard]] Result solve(const Lcp& problem, Method method = Method::Auto, const SolveOptions& options = {});

/// The same solve, into `result`, reusing the storage of its vectors: for loops that solve many
/// small problems of one size (a controller at every tick, a batch). Every field of `result` is
/// overwritten with what `solve(problem, method, options)` returns. With `Method::Auto` at n <= 16,
/// where its first tries answer (the triangular sweep, block principal pivoting or Lemke on the
/// stack: docs/solvers.md, "Auto"), z, w and the history are written in place, so a solve of the
/// size of the last one allocates nothing; elsewhere the result is assigned as a whole. Throws as
/// `solve` does (`result` is then unspecified).
void solve(const Lcp& problem, Method method, const SolveOptions& options, Result& result);

/// The NCP z >= 0 ⊥ F(z) >= 0, through its MCP form. Methods: newton-fb, newton-min, penalized-fb,
/// smoothing and auto (newton-fb, then newton-min, then smoothing; the first that solves, or the
/// attempt with the smallest residual). Other methods need an `Lcp` and throw `InvalidProblem`.
/// `Result::w` is F(z) and `residual` the natural residual ‖min(z, F(z))‖∞.
[[nodiscard]] Result solve(const Ncp& problem, Method method = Method::Auto, const SolveOptions& options = {});

/// The MCP (box bounds, possibly infinite): as for the NCP; `residual` is
/// ‖z − mid(lower, upper, z − F(z))‖∞.
[[nodiscard]] Result solve(const Mcp& problem, Method method = Method::Auto, const SolveOptions& options = {});

}  // namespace perp
