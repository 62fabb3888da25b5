#pragma once
// A kernel of the solvers layer (private, not installed): call it through `solve`, which validates
// the problem and options, handles the trivial case and recomputes the result from z.
//
/// The one enumeration of active sets, for the LCP and the MLCP. The unknowns z of M z + q = w are
/// `free` rows first (z_i of any sign, w_i = 0: the MLCP's u) and then m complementarity rows
/// (z_j >= 0, w_j >= 0, z_j w_j = 0); an LCP is the case free = 0. For an active set α of the
/// complementarity rows (z_α basic with w_α = 0, z_ᾱ = 0) the square system
///   M_SS z_S = −q_S,  S = the free rows ∪ α
/// (the MLCP's bordered system [[A, C_·α], [D_α·, B_αα]]; the LCP's M_αα) gives the candidate,
/// accepted when z_α >= 0 and w_ᾱ >= 0 up to round-off at the data's scale and its relative
/// residual meets the tolerance. Exponential (2^m systems), so limited to m <= 25 by `solve`.

#include <Eigen/Core>
#include <cstdint>
#include <functional>

#include "perp/core/lcp.hpp"
#include "perp/core/mlcp.hpp"
#include "perp/core/result.hpp"
#include "perp/solvers/options.hpp"

namespace perp {

namespace detail {

/// What the enumeration searches: M z + q = w with the first `free` rows free, and where it
/// starts: bit j of `start` set when complementarity row j is in the first active set visited.
struct ActiveSetSearch {
  const Eigen::MatrixXd& M;
  const Eigen::VectorXd& q;
  Eigen::Index free = 0;
  std::uint64_t start = 0;
};

/// The enumeration (`solve` has validated the problem and options). The sets are visited in order
/// of their Hamming distance from `start` (d = 0, 1, …, m), and at one distance by the pattern of
/// the flipped rows in increasing binary value; with start = ∅ that is by increasing |α|, so the
/// first solution has the smallest support and z = 0 is tried first. `result_at(z)` is the
/// problem type's own `Result` at z (w, the natural and relative residuals recomputed from z);
/// its relative residual decides whether a sign-feasible point meets the tolerance. Such a point
/// that misses it (an ill-conditioned system) is set aside and the search goes on.
/// Ends `Solved` at the first accurate point, or with `all_solutions` after every set, every
/// distinct accurate point in `solutions` (the first in z); `NumericalFailure` when only inaccurate
/// points were found or some set's point overflows; `Infeasible` when no set gives a point and
/// every system was nonsingular (a proof); `NoSolutionFound` when some system was singular;
/// `MaxIterations` when the budget (`max_iterations`, default `kEnumerationBudget`) ran out first,
/// with the point of smallest natural residual seen.
[[nodiscard]] Result enumerate_active_sets(const ActiveSetSearch& search, const SolveOptions& options,
                                           const std::function<Result(Eigen::VectorXd)>& result_at);

}  // namespace detail

// kMaxEnumerationSize (the largest n accepted) and kEnumerationBudget (active sets examined when
// `SolveOptions::max_iterations` is 0: 2^18 = 262144, every set at n <= 18; past it the solve ends
// `MaxIterations` with the point of smallest residual seen) are in solvers/options.hpp.

/// enum on an LCP: the enumeration from α = ∅, so the first solution has the smallest support;
/// with `all_solutions` every distinct one (in `solutions`, and the first in z).
[[nodiscard]] Result solve_enumeration(const Lcp& problem, const SolveOptions& options);

/// enum on an MLCP: the enumeration of its complementarity rows from a guessed active set, the rows
/// whose w is negative at v = 0 and A u = −a (u of least norm when A is singular), so that when the
/// guess is close the solution is among the first sets. A itself may be singular.
[[nodiscard]] Result solve_enumeration(const Mlcp& problem, const SolveOptions& options);

}  // namespace perp
