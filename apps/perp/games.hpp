#pragma once
// perp solve on a bimatrix game: {"type": "bimatrix", "A": [[…]], "B": [[…]]}, by Lemke–Howson.
#include <string>

#include "solve.hpp"

namespace perp::cli {

/// Whether `path` names a JSON file whose top-level "type" is "bimatrix" (false for anything else,
/// including a file that cannot be read or parsed: the general reader then says what is wrong).
[[nodiscard]] bool is_bimatrix_file(const std::string& path);

/// Lemke–Howson from `--label` (default 0), or from every label with `--all` (the distinct
/// equilibria reached). Exit code 0 when every equilibrium returned has a recomputed regret within
/// the tolerance (relative to the largest payoff), 1 otherwise; throws InvalidProblem for bad input.
int run_bimatrix(const SolveArguments& args);

}  // namespace perp::cli
