#pragma once
/// \file
/// One status for every solver. Whatever the status, `Result::z` and `Result::w` are sized
/// and finite; the status says what they mean.

#include <iosfwd>
#include <string>
#include <string_view>

namespace perp {

enum class Status {
  /// z, w satisfy the problem to the requested tolerance, by the measure core/residual.hpp defines
  /// for its type (the relative residual; for frictional contact, Siconos' relative error).
  Solved,
  /// The problem is proven to have no solution (e.g. enumeration checked every active set,
  /// each with a nonsingular principal pivot). z, w hold the best point the method saw.
  Infeasible,
  /// Lemke's path left along a secondary ray (`Result::ray` holds its direction). For a
  /// copositive-plus M this proves infeasibility; otherwise it only says this path failed.
  RayTermination,
  /// The iteration or pivot limit was reached first. z, w hold the last iterate.
  MaxIterations,
  /// A breakdown on the way: a zero or negative pivot, a singular system, non-finite or diverging
  /// iterates, or an end point whose residual misses the tolerance. `message` says which.
  NumericalFailure,
  /// The method's assumptions do not hold for this problem and it cannot proceed
  /// (e.g. Murty's method met a singular principal submatrix or revisited an active set; a
  /// diagonal entry that PGS cannot divide by, for every problem type).
  NotApplicable,
  /// The method ended without a solution and without a proof that none exists.
  NoSolutionFound,
  /// `SolveOptions::time_limit` ran out first (checked between iterations, so the solve ends
  /// within one iteration of the limit). z, w hold the last iterate (auto: the best attempt's).
  TimeLimit,
  /// `SolveOptions::interrupt` returned true (Ctrl-C in Python). z, w hold the last iterate.
  Interrupted,
  /// No method has run: the value of a default-constructed `Result` (z, w empty). `solve` never
  /// returns it.
  NotRun,
};

/// Stable lower-case names: "solved", "infeasible", "ray-termination", "max-iterations",
/// "numerical-failure", "not-applicable", "no-solution-found", "time-limit", "interrupted", "not-run".
std::string to_string(Status status);

/// Writes `to_string(status)`.
std::ostream& operator<<(std::ostream& out, Status status);

/// The inverse of `to_string`, for any enum perp names (specialised for `Status` here and for
/// `Method` in core/method.hpp). Throws `InvalidProblem` listing the valid names.
template <class Enum>
Enum from_string(std::string_view name);

template <>
Status from_string<Status>(std::string_view name);

}  // namespace perp
