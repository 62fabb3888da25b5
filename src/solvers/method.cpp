#include "perp/solvers/method.hpp"

#include <array>
#include <ostream>
#include <utility>

#include "perp/core/error.hpp"

namespace perp {
namespace {

constexpr std::array<std::pair<Method, std::string_view>, 17> kMethodNames{{
    {Method::Enum, "enum"},
    {Method::Lemke, "lemke"},
    {Method::Murty, "murty"},
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
    {Method::Auto, "auto"},
}};

}  // namespace

std::string to_string(Method method) {
  for (const auto& [value, name] : kMethodNames) {
    if (value == method) return std::string(name);
  }
  return "unknown-method";
}

template <>
Method from_string<Method>(std::string_view name) {
  std::string valid;
  for (const auto& [value, known] : kMethodNames) {
    if (known == name) return value;
    valid += valid.empty() ? "" : ", ";
    valid += known;
  }
  throw InvalidProblem("unknown method '" + std::string(name) + "'; expected one of: " + valid);
}

std::ostream& operator<<(std::ostream& out, Method method) { return out << to_string(method); }

std::vector<Method> all_methods() {
  std::vector<Method> methods;
  for (const auto& entry : kMethodNames) methods.push_back(entry.first);
  return methods;
}

std::vector<Method> lcp_methods() {
  std::vector<Method> methods;
  for (const auto& entry : kMethodNames) {
    switch (entry.first) {
      case Method::Schur:
      case Method::Nsgs:
      case Method::NewtonAc:
      case Method::Prox:
        break;
      default:
        methods.push_back(entry.first);
    }
  }
  return methods;
}

bool accepts_nonlinear(Method method) {
  switch (method) {
    case Method::NewtonFb:
    case Method::NewtonMin:
    case Method::PenalizedFb:
    case Method::Smoothing:
    case Method::Path:
    case Method::Auto:
      return true;
    default:
      return false;
  }
}

}  // namespace perp
