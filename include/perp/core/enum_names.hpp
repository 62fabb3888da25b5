#pragma once
/// \file
/// The one helper behind the name tables of perp's enums (`Status`, `Method`, `MatrixClass`,
/// `Decision`, `TraceKind`): each enum writes its names once, as a constexpr array of {value, name}
/// pairs, and its `to_string` and `from_string<Enum>` look that array up both ways. Internal
/// (namespace `detail`); users call the enums' own `to_string`/`from_string`.

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include "perp/core/error.hpp"

namespace perp::detail {

/// One row of an enum's name table.
template <class Enum>
struct EnumName {
  Enum value;
  std::string_view name;
};

/// The name of `value` in `table`, or `unknown` for a value the table does not list.
template <class Enum, std::size_t N>
[[nodiscard]] constexpr std::string_view name_in(const std::array<EnumName<Enum>, N>& table, Enum value,
                                                 std::string_view unknown) {
  for (const EnumName<Enum>& row : table) {
    if (row.value == value) return row.name;
  }
  return unknown;
}

/// true when row i names the enum's i-th value (rows in declaration order, none missing before the
/// last): tables state it in a static_assert, since a lookup, unlike a switch, does not warn of a
/// value left out.
template <class Enum, std::size_t N>
[[nodiscard]] constexpr bool in_declaration_order(const std::array<EnumName<Enum>, N>& table) {
  for (std::size_t i = 0; i < N; ++i) {
    if (static_cast<std::size_t>(table[i].value) != i) return false;
  }
  return true;
}

/// The value named `name` in `table`; throws `InvalidProblem`
/// "unknown <what> '<name>'; expected one of: <the names in table order>".
template <class Enum, std::size_t N>
[[nodiscard]] Enum value_in(const std::array<EnumName<Enum>, N>& table, std::string_view name, std::string_view what) {
  for (const EnumName<Enum>& row : table) {
    if (row.name == name) return row.value;
  }
  std::string valid;
  for (const EnumName<Enum>& row : table) {
    if (!valid.empty()) valid += ", ";
    valid += row.name;
  }
  throw InvalidProblem("unknown " + std::string(what) + " '" + std::string(name) + "'; expected one of: " + valid);
}

}  // namespace perp::detail
