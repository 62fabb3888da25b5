#include "perp/solvers/method.hpp"

#include <algorithm>
#include <array>
#include <ostream>

#include "perp/core/error.hpp"

namespace perp {
namespace {

constexpr unsigned kLcp = static_cast<unsigned>(ProblemKind::Lcp);
constexpr unsigned kBox = static_cast<unsigned>(ProblemKind::BoxLcp);
constexpr unsigned kMlcp = static_cast<unsigned>(ProblemKind::Mlcp);
constexpr unsigned kNonlinear = static_cast<unsigned>(ProblemKind::Nonlinear);
constexpr unsigned kFriction = static_cast<unsigned>(ProblemKind::FrictionContact);
constexpr unsigned kNewtonFamily = kLcp | kBox | kMlcp | kNonlinear;

// The one table of methods, in declaration order of `Method`. A new method adds its row here.
// constexpr, so that it is ready before any dynamic initialization (benchmarks register their
// names with to_string(Method) from static constructors).
constexpr std::array kTable{
    MethodInfo{Method::Enum, "enum", kLcp | kMlcp, true, "2^18 active sets",
     "n <= 25 on an Lcp, m <= mlcp.enum_max_complementarities on an Mlcp; all_solutions on an Lcp",
     "every active set, nearest the guess first; proves infeasibility when every system is nonsingular"},
    MethodInfo{Method::Lemke, "lemke", kLcp | kMlcp | kFriction, true, "max(1000, 50 n) pivots",
     "a ray proves infeasibility only for copositive-plus M",
     "complementary pivoting with the lexicographic ratio test"},
    MethodInfo{Method::Murty, "murty", kLcp, true, "max(1000, 50 n) pivots", "finite on P-matrices",
     "least-index principal pivoting"},
    MethodInfo{Method::Pgs, "pgs", kLcp | kBox | kMlcp, false, "10000 sweeps",
     "positive diagonal on bounded rows, nonzero on free rows; converges for symmetric positive definite M",
     "projected Gauss-Seidel over the bounds"},
    MethodInfo{Method::Psor, "psor", kLcp | kBox, false, "10000 sweeps",
     "as pgs; relaxation in (0, 2), default 1.2", "projected SOR over the bounds"},
    MethodInfo{Method::NewtonFb, "newton-fb", kNewtonFamily, false, "200 steps", "a stationary point of the merit may not solve",
     "semismooth Newton on Fischer-Burmeister, Armijo line search"},
    MethodInfo{Method::NewtonMin, "newton-min", kNewtonFamily, false, "200 steps", "as newton-fb",
     "semismooth Newton on min(z, F(z)), line search on the FB merit"},
    MethodInfo{Method::PenalizedFb, "penalized-fb", kNewtonFamily, false, "200 steps", "as newton-fb",
     "semismooth Newton on the penalized FB of Chen-Chen-Kanzow"},
    MethodInfo{Method::Smoothing, "smoothing", kNewtonFamily, false, "1000 steps (all stages)", "as newton-fb",
     "Newton on the smoothed FB with mu -> 0"},
    MethodInfo{Method::Path, "path", kLcp | kBox | kNonlinear, false, "200 major iterations",
     "a linearization solved by pivoting each step; proximal perturbation when singular",
     "PATH-class: pivoted normal-map linearizations, non-monotone watchdog path search"},
    MethodInfo{Method::InteriorPoint, "interior-point", kLcp | kFriction, false,
     "200 steps (a FrictionContact: 100, then 1000 nsgs sweeps)",
     "monotone (positive semidefinite) M; a FrictionContact: planar, W symmetric positive semidefinite",
     "Mehrotra predictor-corrector with crossover (a FrictionContact: on the convex program of the velocities, "
     "the de Saxce shift updated each step)"},
    MethodInfo{Method::Dantzig, "dantzig", kLcp | kBox, true, "max(1000, 50 n) pivots per fixed box",
     "P-matrix on the clamped sets; friction by passes over fixed boxes",
     "Cottle-Dantzig principal pivoting over bounds"},
    MethodInfo{Method::Schur, "schur", kMlcp, true, "that of mlcp.schur_lcp_method", "A well conditioned",
     "eliminates u and solves the LCP of the Schur complement"},
    MethodInfo{Method::Nsgs, "nsgs", kFriction, false, "10000 sweeps", "converges for positive definite W",
     "non-smooth block Gauss-Seidel over contacts"},
    MethodInfo{Method::NewtonAc, "newton-ac", kFriction, false, "200 steps", "local convergence",
     "semismooth Newton on the Alart-Curnier function"},
    MethodInfo{Method::Prox, "prox", kFriction, false, "10000 sweeps (all inner sweeps)", "",
     "proximal-point outer loop on W + rho I around nsgs"},
    MethodInfo{Method::Auto, "auto", kLcp | kBox | kMlcp | kNonlinear | kFriction, false, "that of each method tried", "",
     "picks an order from the problem's structure and falls back"},
};

}  // namespace

std::string_view article_name(ProblemKind kind) {
  switch (kind) {
    case ProblemKind::Lcp:
      return "an Lcp";
    case ProblemKind::BoxLcp:
      return "a BoxLcp";
    case ProblemKind::Mlcp:
      return "an Mlcp";
    case ProblemKind::Nonlinear:
      return "an Ncp or Mcp";
    case ProblemKind::FrictionContact:
      return "a FrictionContact";
  }
  return "a problem";
}

const std::vector<MethodInfo>& method_table() {
  static const std::vector<MethodInfo> table(kTable.begin(), kTable.end());
  return table;
}

const MethodInfo& method_info(Method method) {
  const auto row = std::find_if(kTable.begin(), kTable.end(), [&](const MethodInfo& m) { return m.method == method; });
  if (row == kTable.end()) throw InvalidProblem("unknown method value " + std::to_string(static_cast<int>(method)));
  return *row;
}

std::string to_string(Method method) {
  for (const MethodInfo& row : kTable) {
    if (row.method == method) return std::string(row.name);
  }
  return "unknown-method";
}

template <>
Method from_string<Method>(std::string_view name) {
  std::string valid;
  for (const MethodInfo& row : kTable) {
    if (row.name == name) return row.method;
    valid += valid.empty() ? "" : ", ";
    valid += row.name;
  }
  throw InvalidProblem("unknown method '" + std::string(name) + "'; expected one of: " + valid);
}

std::ostream& operator<<(std::ostream& out, Method method) { return out << to_string(method); }

std::vector<Method> methods_for(ProblemKind kind) {
  std::vector<Method> methods;
  for (const MethodInfo& row : kTable) {
    if (row.accepts_kind(kind)) methods.push_back(row.method);
  }
  return methods;
}

std::string method_names_for(ProblemKind kind) {
  const std::vector<Method> methods = methods_for(kind);
  std::string text;
  for (std::size_t i = 0; i < methods.size(); ++i) {
    if (i > 0) text += i + 1 == methods.size() ? " or " : ", ";
    text += method_info(methods[i]).name;
  }
  return text;
}

std::vector<Method> all_methods() {
  std::vector<Method> methods;
  for (const MethodInfo& row : kTable) methods.push_back(row.method);
  return methods;
}

std::vector<Method> lcp_methods() { return methods_for(ProblemKind::Lcp); }

bool accepts_nonlinear(Method method) { return method_info(method).accepts_kind(ProblemKind::Nonlinear); }

}  // namespace perp
