#include "perp/core/status.hpp"

#include <array>
#include <ostream>
#include <utility>

#include "perp/core/error.hpp"

namespace perp {
namespace {

constexpr std::array<std::pair<Status, std::string_view>, 8> kStatusNames{{
    {Status::Solved, "solved"},
    {Status::Infeasible, "infeasible"},
    {Status::RayTermination, "ray-termination"},
    {Status::MaxIterations, "max-iterations"},
    {Status::NumericalFailure, "numerical-failure"},
    {Status::NotApplicable, "not-applicable"},
    {Status::NoSolutionFound, "no-solution-found"},
    {Status::NotRun, "not-run"},
}};

}  // namespace

std::string to_string(Status status) {
  for (const auto& [value, name] : kStatusNames) {
    if (value == status) return std::string(name);
  }
  return "unknown-status";
}

std::ostream& operator<<(std::ostream& out, Status status) { return out << to_string(status); }

template <>
Status from_string<Status>(std::string_view name) {
  std::string valid;
  for (const auto& [value, known] : kStatusNames) {
    if (known == name) return value;
    valid += valid.empty() ? "" : ", ";
    valid += known;
  }
  throw InvalidProblem("unknown status '" + std::string(name) + "'; expected one of: " + valid);
}

}  // namespace perp
