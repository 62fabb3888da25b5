#pragma once
/// \file
/// The one exception perp throws for invalid calls: bad sizes, non-finite data, bad options,
/// unreadable files. Solver outcomes (no solution, no convergence) are a `Status`, never this.

#include <stdexcept>
#include <string>

namespace perp {

/// Thrown for input that no method could accept. The message names the field, the sizes
/// ("expected 3, got 2") or the offending index or token, so that the caller can fix it.
class InvalidProblem : public std::invalid_argument {
 public:
  explicit InvalidProblem(const std::string& what) : std::invalid_argument(what) {}
};

/// A double as error messages print it: "NaN", "+inf", "-inf", or the shortest text that reads
/// back as the same double (std::to_chars: "1e-20", "0.1"), so that the value in the message is
/// the value in the data.
[[nodiscard]] std::string number_text(double value);

}  // namespace perp
