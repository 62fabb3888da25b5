#pragma once
// A kernel of the solvers layer (private, not installed): call it through `solve`, which validates
// the problem and options, handles the trivial case and recomputes the result from z.
//
/// Lemke's complementary pivoting method (Lemke 1965; Cottle–Pang–Stone §4.4) on the augmented
/// problem w = M z + q + d z0, with the lexicographic minimum-ratio rule so that degenerate
/// problems cannot cycle.
///
/// Implementation: revised form with an explicit basis inverse B⁻¹. A column of B⁻¹ whose w_i is
/// basic is a unit vector and is never touched, so a pivot costs O(n·k) where k − 1 is the
/// number of basic z's (at most O(n²)); all work arrays are allocated before the first pivot, in
/// two blocks, or on the stack for n <= 16 (then a solve allocates only its result's z, w, message
/// and history).

#include "perp/core/lcp.hpp"
#include "perp/core/result.hpp"
#include "perp/solvers/options.hpp"

namespace perp {

/// `solve` has validated the problem and options. Ends `Solved` when z0 leaves
/// the basis, `RayTermination` (with `Result::ray`) when the entering column has no positive
/// entry, `MaxIterations` at the pivot limit.
[[nodiscard]] Result solve_lemke(const Lcp& problem, const SolveOptions& options);

/// The message of a solved Lemke result: a fixed sentence (the pivots are `Result::iterations`),
/// so that the success path formats no string.
inline constexpr const char* kLemkeSolved = "z0 left the basis";

/// `solve_lemke` with `solved_message` (a fixed text) as the message when it solves: `auto` puts its
/// route there without a second string.
[[nodiscard]] Result solve_lemke(const Lcp& problem, const SolveOptions& options, const char* solved_message);

}  // namespace perp
