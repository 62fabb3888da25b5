#include "perp/core/status.hpp"

#include <array>
#include <ostream>

#include "perp/core/enum_names.hpp"

namespace perp {
namespace {

constexpr std::array<detail::EnumName<Status>, 10> kStatusNames{{
    {Status::Solved, "solved"},
    {Status::Infeasible, "infeasible"},
    {Status::RayTermination, "ray-termination"},
    {Status::MaxIterations, "max-iterations"},
    {Status::NumericalFailure, "numerical-failure"},
    {Status::NotApplicable, "not-applicable"},
    {Status::NoSolutionFound, "no-solution-found"},
    {Status::TimeLimit, "time-limit"},
    {Status::Interrupted, "interrupted"},
    {Status::NotRun, "not-run"},
}};
static_assert(detail::in_declaration_order(kStatusNames) && kStatusNames.back().value == Status::NotRun);

}  // namespace

std::string to_string(Status status) { return std::string(detail::name_in(kStatusNames, status, "unknown-status")); }

std::ostream& operator<<(std::ostream& out, Status status) { return out << to_string(status); }

template <>
Status from_string<Status>(std::string_view name) {
  return detail::value_in(kStatusNames, name, "status");
}

}  // namespace perp
