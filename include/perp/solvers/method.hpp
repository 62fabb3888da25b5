#pragma once
/// \file
/// The method table: which problem types each method accepts, its defaults and limits. The enum
/// `Method` and its names are core/method.hpp (included here).

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "perp/core/method.hpp"

namespace perp {

/// The problem types a method may accept (bits of `MethodInfo::accepts`).
enum class ProblemKind : unsigned {
  Lcp = 1U << 0,              ///< `Lcp` (and the `Qp` through its KKT LCP)
  BoxLcp = 1U << 1,           ///< `BoxLcp`
  Mlcp = 1U << 2,             ///< `Mlcp`
  Nonlinear = 1U << 3,        ///< `Ncp` and `Mcp` (F and J given as functions)
  FrictionContact = 1U << 4,  ///< `FrictionContact`
};

/// "an Lcp", "a BoxLcp", "an Mlcp", "an Ncp or Mcp", "a FrictionContact" (for messages).
std::string_view article_name(ProblemKind kind);

/// One row of the method table: what `solve`, `auto`, the CLI's help and the docs read.
struct MethodInfo {
  Method method;
  /// The stable name (`to_string(method)`).
  std::string_view name;
  /// The `ProblemKind` bits of the problem types it accepts.
  unsigned accepts;
  /// true: finite (pivoting, enumeration, a reduction to one); false: iterative, to a tolerance.
  bool exact;
  /// What `SolveOptions::max_iterations = 0` means for it (the default limit, in words).
  std::string_view default_limit;
  /// Its limits and assumptions, in one line.
  std::string_view limits;
  /// One line: what it does.
  std::string_view summary;

  [[nodiscard]] bool accepts_kind(ProblemKind kind) const { return (accepts & static_cast<unsigned>(kind)) != 0; }
};

/// Every method, one row each, in declaration order of `Method`.
const std::vector<MethodInfo>& method_table();

/// The row of `method`.
const MethodInfo& method_info(Method method);

/// The methods that accept `kind`, in declaration order.
std::vector<Method> methods_for(ProblemKind kind);

/// "a, b, c or d": the names of the methods that accept `kind` (for messages and help).
std::string method_names_for(ProblemKind kind);

/// Every method, in declaration order.
std::vector<Method> all_methods();

/// `methods_for(ProblemKind::Lcp)`: every method but "schur", which needs the equality block of an
/// `Mlcp`, and the frictional contact methods nsgs, newton-ac, prox.
std::vector<Method> lcp_methods();

/// The methods that accept an `Ncp` or `Mcp` (the Newton family, path and auto); the others need an
/// `Lcp` (its matrix M).
[[nodiscard]] bool accepts_nonlinear(Method method);

}  // namespace perp
