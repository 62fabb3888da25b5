// The JSON result files: one object per problem type, keys in the documented order
// (docs/file-formats.md).
#include "perp/io/json.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "detail.hpp"
#include "json_kit.hpp"
#include "perp/core/error.hpp"
#include "perp/core/status.hpp"

namespace perp {
namespace {

using namespace detail;

// The result object every writer shares: status, method, `sizes`, iterations, residual,
// relative_residual, then the
// problem's own vectors (`fill`), time_ms, message, history, and solutions / ray when set.
template <class Fill>
std::string result_text(const Result& result, std::initializer_list<std::pair<const char*, Eigen::Index>> sizes,
                        std::initializer_list<std::pair<const char*, double>> residuals, Fill fill, int indent) {
  ordered_json object;
  object["status"] = to_string(result.status);
  object["method"] = to_string(result.method);
  for (const auto& [key, size] : sizes) object[key] = size;
  object["iterations"] = result.iterations;
  object["residual"] = result.residual;
  object["relative_residual"] = result.relative_residual;
  for (const auto& [key, value] : residuals) object[key] = value;
  fill(object);
  object["time_ms"] = result.time_ms;
  object["message"] = result.message;
  object["history"] = result.history;
  if (!result.solutions.empty()) {
    ordered_json solutions = ordered_json::array();
    for (const Eigen::VectorXd& solution : result.solutions) solutions.push_back(vector_to_json(solution));
    object["solutions"] = std::move(solutions);
  }
  if (result.ray) object["ray"] = vector_to_json(*result.ray);
  if (!result.attempts.empty()) {  // auto's trail: every method it ran, with what it returned
    ordered_json attempts = ordered_json::array();
    for (const Attempt& a : result.attempts) {
      ordered_json entry;
      entry["method"] = to_string(a.method);
      entry["status"] = to_string(a.status);
      entry["iterations"] = a.iterations;
      entry["relative_residual"] = a.relative_residual;
      entry["message"] = a.message;
      attempts.push_back(std::move(entry));
    }
    object["attempts"] = std::move(attempts);
  }
  if (!result.attempt_order.empty()) object["attempt_order"] = result.attempt_order;

  if (indent < 0) return compact(object);
  return object.dump(indent, ' ', false, ordered_json::error_handler_t::replace);
}

}  // namespace

std::string result_to_json(const Result& result, int indent) {
  return result_text(
      result, {{"n", result.z.size()}}, {},
      [&](ordered_json& object) {
        object["z"] = vector_to_json(result.z);
        object["w"] = vector_to_json(result.w);
      },
      indent);
}

std::string box_lcp_result_to_json(const Result& result, int indent) {
  // The same vectors as an LCP's; the residual is the box natural residual set by the solve.
  return result_to_json(result, indent);
}

std::string mlcp_result_to_json(const Mlcp& problem, const Result& result, int indent) {
  const Eigen::Index n = problem.equalities();
  const Eigen::Index m = problem.complementarities();
  if (result.z.size() != n + m) {
    throw InvalidProblem("MLCP result: z expected " + std::to_string(n + m) + " entries (n + m = " + std::to_string(n) +
                         " + " + std::to_string(m) + "), got " + std::to_string(result.z.size()));
  }
  // Recomputed from z, so that the file says what z achieves whatever the solver kept.
  const MlcpResiduals residuals = mlcp_residuals(problem, result.z);
  const Eigen::VectorXd slack = problem.slack(result.z);
  return result_text(
      result, {{"n", n}, {"m", m}}, {{"equality_residual", residuals.equality}},
      [&](ordered_json& object) {
        object["u"] = vector_to_json(result.z.head(n));
        object["v"] = vector_to_json(result.z.tail(m));
        object["w"] = vector_to_json(slack.tail(m));
      },
      indent);
}

std::string qp_result_to_json(const QpResult& result, int indent) {
  return result_text(
      result.lcp, {{"n", result.x.size()}, {"k", result.mu.size()}}, {},
      [&](ordered_json& object) {
        object["x"] = vector_to_json(result.x);
        object["mu"] = vector_to_json(result.mu);
        object["nu"] = vector_to_json(result.nu);
        object["objective"] = result.objective;
      },
      indent);
}

std::string friction_contact_result_to_json(const FrictionContact& problem, const Result& result, int indent) {
  if (result.z.size() != problem.size()) {
    throw InvalidProblem("friction-contact result: r expected " + std::to_string(problem.size()) +
                         " entries (d x nc = " + std::to_string(problem.dimension) + " x " +
                         std::to_string(problem.contacts()) + "), got " + std::to_string(result.z.size()));
  }
  // Recomputed from r, so that the file says what r achieves whatever the solver kept.
  const Eigen::VectorXd u = problem.velocity(result.z);
  const FrictionContactResiduals residuals = friction_contact_residuals(problem, result.z, u);
  Result recomputed = result;
  recomputed.residual = residuals.relative_error;
  recomputed.relative_residual = residuals.relative_error;
  return result_text(
      recomputed, {{"dimension", problem.dimension}, {"contacts", problem.contacts()}},
      {{"absolute_error", residuals.absolute_error},
       {"signorini", residuals.signorini},
       {"coulomb", residuals.coulomb},
       {"complementarity", residuals.complementarity},
       {"dissipation", residuals.dissipation}},
      [&](ordered_json& object) {
        object["r"] = vector_to_json(result.z);
        object["u"] = vector_to_json(u);
      },
      indent);
}

}  // namespace perp
