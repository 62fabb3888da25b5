#pragma once
/// \file
/// The LCP methods, with stable lower-case names shared by C++, the CLI and JSON.

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "perp/core/status.hpp"

namespace perp {

enum class Method {
  Enum,         ///< "enum": every active set α ⊆ {1..n}, n <= 25 (solvers/enumeration.hpp)
  Lemke,        ///< "lemke": complementary pivoting with lexicographic ratio test (solvers/lemke.hpp)
  Murty,        ///< "murty": least-index principal pivoting, finite on P-matrices (solvers/murty.hpp)
  Pgs,          ///< "pgs": projected Gauss–Seidel (solvers/pgs.hpp)
  Psor,         ///< "psor": projected SOR with relaxation ω ∈ (0, 2) (solvers/pgs.hpp)
  NewtonFb,     ///< "newton-fb": semismooth Newton on Fischer–Burmeister, Armijo on ½‖Φ‖² (solvers/newton.hpp)
  NewtonMin,    ///< "newton-min": semismooth Newton on min(z, F(z)), line search on the FB merit
  PenalizedFb,  ///< "penalized-fb": semismooth Newton on the penalized FB of Chen–Chen–Kanzow
  Smoothing,    ///< "smoothing": Newton on the smoothed FB with μ → 0, warm-started (solvers/newton.hpp)
  Path,         ///< "path": PATH-class path search on the pivoted linearizations of the normal map (solvers/path.hpp)
  InteriorPoint,  ///< "interior-point": Mehrotra predictor–corrector, monotone LCPs (solvers/interior_point.hpp)
  Dantzig,  ///< "dantzig": Cottle–Dantzig principal pivoting for box LCPs, as in ODE's dSolveLCP (solvers/dantzig.hpp)
  Schur,  ///< "schur": MLCP only; eliminates u by A⁻¹ and solves the LCP of the Schur complement (solvers/mlcp.hpp)
  Nsgs,   ///< "nsgs": frictional contact only; non-smooth block Gauss–Seidel over contacts
          ///< (solvers/friction_contact.hpp)
  NewtonAc,  ///< "newton-ac": frictional contact only; semismooth Newton on the Alart–Curnier function
  Prox,      ///< "prox": frictional contact only; proximal-point outer loop on W + ρI around nsgs or newton-ac
  Auto,      ///< "auto": picks from the structure of M and falls back (solvers/solve.hpp)
};

/// "enum", "lemke", "murty", "pgs", "psor", "newton-fb", "newton-min", "penalized-fb", "smoothing",
/// "path", "interior-point", "dantzig", "schur", "nsgs", "newton-ac", "prox", "auto".
std::string to_string(Method method);

template <>
Method from_string<Method>(std::string_view name);

/// Writes `to_string(method)` (for logs and test names).
std::ostream& operator<<(std::ostream& out, Method method);

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
