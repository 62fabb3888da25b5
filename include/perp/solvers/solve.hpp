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
/// "auto"). Otherwise it classifies M with `ClassifyOptions::cheap()` (O(n²) tests, a Cholesky
/// factorization only where the order depends on it: symmetric M with a positive diagonal and
/// n > 1000, or n <= 16; exact enumerations only for n <= 6) and runs
/// the methods of `recommend(report, n).order` in turn until one solves (solvers/recommend.hpp):
///   - symmetric positive definite, symmetric PSD with a positive diagonal, or strictly diagonally
///     dominant with a positive diagonal, and n > 1000: pgs, then lemke;
///   - otherwise lemke first; then murty when the diagonal of M is positive and n <= 200, pgs
///     when the diagonal is positive, newton-fb, and enum when n <= 16.
/// When none solves it returns the attempt with the smallest residual, and `message` lists what
/// each method reported and why that order was chosen. `Result::method` names the method whose z
/// is returned.
[[nodiscard]] Result solve(const Lcp& problem, Method method = Method::Auto, const SolveOptions& options = {});

/// The NCP z >= 0 ⊥ F(z) >= 0, through its MCP form. Methods: newton-fb, newton-min, penalized-fb,
/// smoothing and auto (newton-fb, then newton-min, then smoothing; the first that solves, or the
/// attempt with the smallest residual). Other methods need an `Lcp` and throw `InvalidProblem`.
/// `Result::w` is F(z) and `residual` the natural residual ‖min(z, F(z))‖∞.
[[nodiscard]] Result solve(const Ncp& problem, Method method = Method::Auto, const SolveOptions& options = {});

/// The MCP (box bounds, possibly infinite): as for the NCP; `residual` is
/// ‖z − mid(lower, upper, z − F(z))‖∞.
[[nodiscard]] Result solve(const Mcp& problem, Method method = Method::Auto, const SolveOptions& options = {});

}  // namespace perp
