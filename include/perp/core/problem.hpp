#pragma once
/// \file
/// Any of the complementarity problems a file may hold: what `perp solve FILE` reads
/// (io/json.hpp `parse_json_problem`, `read_problem_file`) before dispatching to its solve.

#include <string_view>
#include <variant>

#include "perp/core/box_lcp.hpp"
#include "perp/core/friction_contact.hpp"
#include "perp/core/lcp.hpp"
#include "perp/core/mlcp.hpp"
#include "perp/core/qp.hpp"

namespace perp {

/// One problem of any of the types a file may hold, in the order of the JSON "type" names.
using Problem = std::variant<Lcp, BoxLcp, Mlcp, Qp, FrictionContact>;

/// The JSON "type" of each alternative: "lcp", "box-lcp", "mlcp", "qp", "friction-contact".
[[nodiscard]] inline std::string_view problem_type(const Problem& problem) {
  constexpr std::string_view kNames[] = {"lcp", "box-lcp", "mlcp", "qp", "friction-contact"};
  return kNames[problem.index()];
}

}  // namespace perp
