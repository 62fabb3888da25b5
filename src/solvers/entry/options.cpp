#include "perp/solvers/options.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "perp/core/enum_names.hpp"
#include "perp/core/error.hpp"
#include "perp/core/lcp.hpp"

namespace perp {

void SolveOptions::validate(Eigen::Index n) const {
  if (!(std::isfinite(tolerance) && tolerance > 0.0)) {
    throw InvalidProblem("tolerance must be finite and > 0, got " + number_text(tolerance));
  }
  if (!(time_limit > 0.0)) {
    throw InvalidProblem("time_limit must be > 0 seconds (+inf = none), got " + number_text(time_limit));
  }
  if (max_solutions < 0) {
    throw InvalidProblem("max_solutions must be >= 0 (0 = no limit), got " + std::to_string(max_solutions));
  }
  if (max_iterations < 0) {
    throw InvalidProblem("max_iterations must be >= 0 (0 = method default), got " + std::to_string(max_iterations));
  }
  if (initial_guess) {
    require_size(*initial_guess, n, "initial_guess");
    require_finite(*initial_guess, "initial_guess");
  }
  if (relaxation && !(*relaxation > 0.0 && *relaxation < 2.0)) {
    throw InvalidProblem("relaxation must be in (0, 2), got " + number_text(*relaxation));
  }
  if (lemke.covering_vector) {
    const Eigen::VectorXd& d = *lemke.covering_vector;
    require_size(d, n, "lemke.covering_vector");
    require_finite(d, "lemke.covering_vector");
    for (Eigen::Index i = 0; i < d.size(); ++i) {
      if (!(d[i] > 0.0)) {
        throw InvalidProblem("lemke.covering_vector[" + std::to_string(i) + "] must be > 0, got " +
                             number_text(d[i]));
      }
    }
  }
  if (!(std::isfinite(lemke.pivot_tolerance) && lemke.pivot_tolerance > 0.0)) {
    throw InvalidProblem("lemke.pivot_tolerance must be finite and > 0, got " + number_text(lemke.pivot_tolerance));
  }
  const auto in_open = [](double value, double low, double high) { return value > low && value < high; };
  if (!in_open(newton.armijo, 0.0, 0.5)) {
    throw InvalidProblem("newton.armijo must be in (0, 0.5), got " + number_text(newton.armijo));
  }
  if (!in_open(newton.backtrack, 0.0, 1.0)) {
    throw InvalidProblem("newton.backtrack must be in (0, 1), got " + number_text(newton.backtrack));
  }
  if (newton.max_backtracks < 0) {
    throw InvalidProblem("newton.max_backtracks must be >= 0, got " + std::to_string(newton.max_backtracks));
  }
  if (newton.nonmonotone_memory < 0) {
    throw InvalidProblem("newton.nonmonotone_memory must be >= 0, got " + std::to_string(newton.nonmonotone_memory));
  }
  if (!(std::isfinite(newton.descent_rho) && newton.descent_rho >= 0.0)) {
    throw InvalidProblem("newton.descent_rho must be finite and >= 0, got " + number_text(newton.descent_rho));
  }
  if (!(newton.penalty > 0.0 && newton.penalty <= 1.0)) {
    throw InvalidProblem("newton.penalty must be in (0, 1], got " + number_text(newton.penalty));
  }
  if (!(std::isfinite(newton.smoothing_mu) && newton.smoothing_mu >= 0.0)) {
    throw InvalidProblem("newton.smoothing_mu must be finite and >= 0 (0 = automatic), got " +
                         number_text(newton.smoothing_mu));
  }
  if (!in_open(newton.smoothing_factor, 0.0, 1.0)) {
    throw InvalidProblem("newton.smoothing_factor must be in (0, 1), got " + number_text(newton.smoothing_factor));
  }
  if (!in_open(interior_point.step_fraction, 0.0, 1.0)) {
    throw InvalidProblem("interior_point.step_fraction must be in (0, 1), got " +
                         number_text(interior_point.step_fraction));
  }
  if (!in_open(dantzig.pivot_tolerance, 0.0, 1.0)) {
    throw InvalidProblem("dantzig.pivot_tolerance must be in (0, 1), got " + number_text(dantzig.pivot_tolerance));
  }
  if (max_friction_passes < 1) {
    throw InvalidProblem("max_friction_passes must be >= 1, got " + std::to_string(max_friction_passes));
  }
  if (!(mlcp.schur_min_rcond > 0.0 && mlcp.schur_min_rcond <= 1.0)) {
    throw InvalidProblem("mlcp.schur_min_rcond must be in (0, 1], got " + number_text(mlcp.schur_min_rcond));
  }
  // From the method table, without building a list (validate runs on every solve): the values
  // that accept an Lcp as bits, read from the table once; any other value (one that does not, or
  // is outside the enum) asks the table itself, which refuses it.
  static const unsigned long long lcp_methods = [] {  // row by row: method_table() would allocate
    unsigned long long bits = 0;
    for (unsigned value = 0; value <= static_cast<unsigned>(Method::Auto) && value < 64; ++value) {
      if (method_info(static_cast<Method>(value)).accepts_kind(ProblemKind::Lcp)) bits |= 1ULL << value;
    }
    return bits;
  }();
  const auto schur = static_cast<unsigned>(mlcp.schur_lcp_method);
  const bool schur_lcp = schur < 64 && ((lcp_methods >> schur) & 1ULL) != 0;
  if (!schur_lcp && !method_info(mlcp.schur_lcp_method).accepts_kind(ProblemKind::Lcp)) {
    throw InvalidProblem("mlcp.schur_lcp_method must be a method that accepts an Lcp, got '" +
                         to_string(mlcp.schur_lcp_method) + "'");
  }
  if (mlcp.enum_max_complementarities < 0 || mlcp.enum_max_complementarities > 30) {
    throw InvalidProblem("mlcp.enum_max_complementarities must be in [0, 30], got " +
                         std::to_string(mlcp.enum_max_complementarities));
  }
  friction_contact.validate();
}

void FrictionContactOptions::validate(Eigen::Index contacts) const {
  if (!(nsgs.relaxation > 0.0 && nsgs.relaxation < 2.0)) {
    throw InvalidProblem("friction_contact.nsgs.relaxation must be in (0, 2), got " + number_text(nsgs.relaxation));
  }
  if (nsgs.order != ContactOrder::Natural && nsgs.order != ContactOrder::Random && nsgs.order != ContactOrder::Given) {
    throw InvalidProblem("friction_contact.nsgs.order is not a ContactOrder");
  }
  if (nsgs.error_every < 1) {
    throw InvalidProblem("friction_contact.nsgs.error_every must be >= 1, got " + std::to_string(nsgs.error_every));
  }
  if (!(local.tolerance > 0.0 && local.tolerance < 1.0)) {
    throw InvalidProblem("friction_contact.local.tolerance must be in (0, 1), got " + number_text(local.tolerance));
  }
  if (local.iterations < 1) {
    throw InvalidProblem("friction_contact.local.iterations must be >= 1, got " + std::to_string(local.iterations));
  }
  if (!(std::isfinite(prox.rho) && prox.rho >= 0.0)) {
    throw InvalidProblem("friction_contact.prox.rho must be finite and >= 0 (0 = automatic), got " +
                         number_text(prox.rho));
  }
  if (prox.max_outer < 1) {
    throw InvalidProblem("friction_contact.prox.max_outer must be >= 1, got " + std::to_string(prox.max_outer));
  }
  if (prox.anderson < 0 || prox.anderson > 50) {
    throw InvalidProblem("friction_contact.prox.anderson must be in [0, 50], got " + std::to_string(prox.anderson));
  }
  if (lemke.facets < 3) {
    throw InvalidProblem("friction_contact.lemke.facets must be >= 3, got " + std::to_string(lemke.facets));
  }
  if (lemke.lcp_max_size < 1) {
    throw InvalidProblem("friction_contact.lemke.lcp_max_size must be >= 1, got " + std::to_string(lemke.lcp_max_size));
  }
  if (automatic.shift_updates < 0) {
    throw InvalidProblem("friction_contact.automatic.shift_updates must be >= 0, got " +
                         std::to_string(automatic.shift_updates));
  }
  if (automatic.nsgs_sweeps < 1) {
    throw InvalidProblem("friction_contact.automatic.nsgs_sweeps must be >= 1, got " +
                         std::to_string(automatic.nsgs_sweeps));
  }
  const std::vector<Eigen::Index>& permutation = nsgs.permutation;
  if (nsgs.order == ContactOrder::Given && contacts >= 0) {
    if (static_cast<Eigen::Index>(permutation.size()) != contacts) {
      throw InvalidProblem("friction_contact.nsgs.permutation: expected " + std::to_string(contacts) +
                           " entries (one per contact), got " + std::to_string(permutation.size()));
    }
    std::vector<char> seen(static_cast<std::size_t>(contacts), 0);
    for (std::size_t k = 0; k < permutation.size(); ++k) {
      const Eigen::Index c = permutation[k];
      if (c < 0 || c >= contacts) {
        throw InvalidProblem("friction_contact.nsgs.permutation[" + std::to_string(k) + "] is " + std::to_string(c) +
                             ", outside 0.." + std::to_string(contacts - 1));
      }
      if (seen[static_cast<std::size_t>(c)]) {
        throw InvalidProblem("friction_contact.nsgs.permutation[" + std::to_string(k) + "] repeats contact " +
                             std::to_string(c));
      }
      seen[static_cast<std::size_t>(c)] = 1;
    }
  }
}

}  // namespace perp

namespace perp {

namespace {

constexpr std::array<detail::EnumName<TraceKind>, 5> kTraceKindNames{{
    {TraceKind::Pivot, "pivot"},
    {TraceKind::PrincipalPivot, "principal-pivot"},
    {TraceKind::Sweep, "sweep"},
    {TraceKind::NewtonStep, "newton-step"},
    {TraceKind::InteriorStep, "interior-step"},
}};
static_assert(detail::in_declaration_order(kTraceKindNames));

}  // namespace

std::string to_string(TraceKind kind) { return std::string(detail::name_in(kTraceKindNames, kind, "unknown")); }

std::string to_string(const PivotVariable& variable) {
  switch (variable.kind) {
    case PivotVariable::Kind::W:
      return "w" + std::to_string(variable.index + 1);
    case PivotVariable::Kind::Z:
      return "z" + std::to_string(variable.index + 1);
    case PivotVariable::Kind::Z0:
      return "z0";
  }
  return "?";
}

}  // namespace perp
