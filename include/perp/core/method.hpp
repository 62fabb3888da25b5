#pragma once
/// \file
/// The methods, with stable lower-case names shared by C++, the CLI, JSON and Python. The enum
/// and its names live in core so that `Result::method` can name its method; what each method
/// accepts, its defaults and limits are the method table of solvers/method.hpp.

#include <array>
#include <iosfwd>
#include <string>
#include <string_view>

#include "perp/core/enum_names.hpp"
#include "perp/core/status.hpp"

namespace perp {

enum class Method {
  Enum,         ///< "enum": every active set α ⊆ {1..n}, n <= 25 (src/solvers/pivoting/enumeration.hpp)
  Lemke,        ///< "lemke": complementary pivoting with lexicographic ratio test (src/solvers/pivoting/lemke.hpp)
  Murty,        ///< "murty": least-index principal pivoting, finite on P-matrices (src/solvers/pivoting/murty.hpp)
  BlockPivoting,  ///< "block-pivoting": Júdice–Pires block principal pivoting with Murty's rule as backup,
                  ///< finite on P-matrices (src/solvers/pivoting/block_pivoting.hpp)
  Pgs,          ///< "pgs": projected Gauss–Seidel (src/solvers/splitting/pgs.hpp)
  Psor,         ///< "psor": projected SOR with relaxation ω ∈ (0, 2) (src/solvers/splitting/pgs.hpp)
  NewtonFb,     ///< "newton-fb": semismooth Newton on Fischer–Burmeister, Armijo on ½‖Φ‖²
                ///< (src/solvers/newton/newton.hpp)
  NewtonMin,    ///< "newton-min": semismooth Newton on min(z, F(z)), line search on the FB merit
  PenalizedFb,  ///< "penalized-fb": semismooth Newton on the penalized FB of Chen–Chen–Kanzow
  Smoothing,    ///< "smoothing": Newton on the smoothed FB with μ → 0, warm-started (src/solvers/newton/newton.hpp)
  Path,         ///< "path": PATH-class path search on the pivoted linearizations of the normal map
                ///< (src/solvers/newton/path.hpp; docs/solvers.md)
  InteriorPoint,  ///< "interior-point": Mehrotra predictor–corrector, monotone LCPs
                  ///< (src/solvers/newton/interior_point.hpp)
  Dantzig,  ///< "dantzig": Cottle–Dantzig principal pivoting for box LCPs, as in ODE's dSolveLCP
            ///< (src/solvers/pivoting/dantzig.hpp)
  Schur,  ///< "schur": MLCP only; eliminates u by A⁻¹ and solves the LCP of the Schur complement
          ///< (perp/solvers/mlcp.hpp)
  Nsgs,   ///< "nsgs": frictional contact only; non-smooth block Gauss–Seidel over contacts
          ///< (perp/solvers/friction_contact.hpp)
  NewtonAc,  ///< "newton-ac": frictional contact only; semismooth Newton on the Alart–Curnier function
  Prox,      ///< "prox": frictional contact only; proximal-point outer loop on W + ρI around nsgs or newton-ac
  Admm,      ///< "admm": frictional contact only; ADMM with de Saxcé's shift and a spectral penalty, one sparse
             ///< factor of W + τI (src/solvers/friction/convex/admm.hpp; on H M⁻¹ Hᵀ's factors where W is not formed)
  Auto,      ///< "auto": picks from the structure of M and falls back (perp/solvers/solve.hpp)
};

namespace detail {
/// The one name table of `Method`, in declaration order (detail::EnumName, core/enum_names.hpp).
inline constexpr std::array<EnumName<Method>, 19> kMethodNames{{
    {Method::Enum, "enum"},
    {Method::Lemke, "lemke"},
    {Method::Murty, "murty"},
    {Method::BlockPivoting, "block-pivoting"},
    {Method::Pgs, "pgs"},
    {Method::Psor, "psor"},
    {Method::NewtonFb, "newton-fb"},
    {Method::NewtonMin, "newton-min"},
    {Method::PenalizedFb, "penalized-fb"},
    {Method::Smoothing, "smoothing"},
    {Method::Path, "path"},
    {Method::InteriorPoint, "interior-point"},
    {Method::Dantzig, "dantzig"},
    {Method::Schur, "schur"},
    {Method::Nsgs, "nsgs"},
    {Method::NewtonAc, "newton-ac"},
    {Method::Prox, "prox"},
    {Method::Admm, "admm"},
    {Method::Auto, "auto"},
}};
static_assert(in_declaration_order(kMethodNames) && kMethodNames.back().value == Method::Auto);
}  // namespace detail

/// The method's name: "enum", "lemke", "murty", "block-pivoting", "pgs", "psor", "newton-fb", "newton-min",
/// "penalized-fb", "smoothing", "path", "interior-point", "dantzig", "schur", "nsgs", "newton-ac",
/// "prox", "admm", "auto"; "unknown-method" for a value outside the enum. constexpr, so that the method
/// table's rows (solvers/method.cpp) take their names from it.
[[nodiscard]] constexpr std::string_view method_name(Method method) {
  return detail::name_in(detail::kMethodNames, method, "unknown-method");
}

/// `method_name(method)` as a string.
std::string to_string(Method method);

/// The inverse of `to_string`; throws `InvalidProblem` listing the valid names.
template <>
Method from_string<Method>(std::string_view name);

/// Writes `to_string(method)` (for logs and test names).
std::ostream& operator<<(std::ostream& out, Method method);

}  // namespace perp
