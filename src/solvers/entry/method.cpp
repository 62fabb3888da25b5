#include "perp/solvers/method.hpp"

#include <algorithm>
#include <array>

#include "perp/core/error.hpp"

namespace perp {
namespace {

constexpr unsigned kLcp = static_cast<unsigned>(ProblemKind::Lcp);
constexpr unsigned kBox = static_cast<unsigned>(ProblemKind::BoxLcp);
constexpr unsigned kMlcp = static_cast<unsigned>(ProblemKind::Mlcp);
constexpr unsigned kNonlinear = static_cast<unsigned>(ProblemKind::Nonlinear);
constexpr unsigned kFriction = static_cast<unsigned>(ProblemKind::FrictionContact);
constexpr unsigned kNewtonFamily = kLcp | kBox | kMlcp | kNonlinear;

// A row of the table, its name from core's one name table (`method_name`).
constexpr MethodInfo row(Method method, unsigned accepts, bool exact, std::string_view default_limit,
                         std::string_view limits, std::string_view summary) {
  return MethodInfo{method, method_name(method), accepts, exact, default_limit, limits, summary};
}

// The one table of methods, in declaration order of `Method`. A new method adds its row here.
// constexpr, so that it is ready before any dynamic initialization (benchmarks register their
// names with to_string(Method) from static constructors).
constexpr std::array kTable{
    row(Method::Enum, kLcp | kMlcp, true, "2^18 active sets",
        "n <= 25 on an Lcp, m <= mlcp.enum_max_complementarities on an Mlcp; all_solutions on an Lcp",
        "every active set, nearest the guess first; proves infeasibility when every system is nonsingular"),
    row(Method::Lemke, kLcp | kMlcp | kFriction, true, "max(1000, 50 n) pivots",
        "a ray proves infeasibility only for copositive-plus M",
        "complementary pivoting with the lexicographic ratio test"),
    row(Method::Murty, kLcp, true, "max(1000, 50 n) pivots", "finite on P-matrices", "least-index principal pivoting"),
    row(Method::BlockPivoting, kLcp, true, "max(100, 10 n) rounds",
        "finite on P-matrices (single-index backup); elsewhere it may cycle or meet a singular block, and says so",
        "block principal pivoting (Judice-Pires), Murty's least-index rule as backup"),
    row(Method::Pgs, kLcp | kBox | kMlcp, false, "10000 sweeps",
        "positive diagonal on bounded rows, nonzero on free rows; converges for symmetric positive definite M",
        "projected Gauss-Seidel over the bounds"),
    row(Method::Psor, kLcp | kBox, false, "10000 sweeps", "as pgs; relaxation in (0, 2), default 1.2",
        "projected SOR over the bounds"),
    row(Method::NewtonFb, kNewtonFamily, false, "200 steps", "a stationary point of the merit may not solve",
        "semismooth Newton on Fischer-Burmeister, Armijo line search"),
    row(Method::NewtonMin, kNewtonFamily, false, "200 steps", "as newton-fb",
        "semismooth Newton on min(z, F(z)), line search on the FB merit"),
    row(Method::PenalizedFb, kNewtonFamily, false, "200 steps", "as newton-fb",
        "semismooth Newton on the penalized FB of Chen-Chen-Kanzow"),
    row(Method::Smoothing, kNewtonFamily, false, "1000 steps (all stages)", "as newton-fb",
        "Newton on the smoothed FB with mu -> 0"),
    row(Method::Path, kLcp | kBox | kNonlinear, false, "200 major iterations",
        "a linearization solved by pivoting each step; proximal perturbation when singular",
        "PATH-class: pivoted normal-map linearizations, non-monotone watchdog path search"),
    row(Method::InteriorPoint, kLcp | kFriction, false, "200 steps (a FrictionContact: 100, then 1000 nsgs sweeps)",
        "monotone (positive semidefinite) M; a FrictionContact: planar, W symmetric positive semidefinite",
        "Mehrotra predictor-corrector with crossover (a FrictionContact: on the convex program of the velocities, "
        "the de Saxce shift updated each step)"),
    row(Method::Dantzig, kLcp | kBox, true, "max(1000, 50 n) pivots per fixed box",
        "P-matrix on the clamped sets; friction by passes over fixed boxes",
        "Cottle-Dantzig principal pivoting over bounds"),
    row(Method::Schur, kMlcp, true, "that of mlcp.schur_lcp_method", "A well conditioned",
        "eliminates u and solves the LCP of the Schur complement"),
    row(Method::Nsgs, kFriction, false, "10000 sweeps", "converges for positive definite W",
        "non-smooth block Gauss-Seidel over contacts"),
    row(Method::NewtonAc, kFriction, false, "200 steps", "local convergence",
        "semismooth Newton on the Alart-Curnier function"),
    row(Method::Prox, kFriction, false, "10000 sweeps (all inner sweeps)", "",
        "proximal-point outer loop on W + rho I around nsgs"),
    row(Method::Admm, kFriction, false, "5000 iterations", "",
        "ADMM with de Saxce's shift and a spectral penalty on one sparse factor of W + tau I"),
    row(Method::Auto, kLcp | kBox | kMlcp | kNonlinear | kFriction, false, "that of each method tried", "",
        "picks an order from the problem's structure and falls back"),
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
