#include "perp/core/enum_names.hpp"

#include <array>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "perp/analysis/classify.hpp"
#include "perp/core/error.hpp"
#include "perp/core/method.hpp"
#include "perp/core/status.hpp"

namespace perp::core_enum_names_test {
namespace {

enum class Colour { Red, Green, Blue };

constexpr std::array<detail::EnumName<Colour>, 3> kColours{{
    {Colour::Red, "red"},
    {Colour::Green, "green"},
    {Colour::Blue, "blue"},
}};

// The lookups at compile time, as method_name is used by the method table.
static_assert(detail::name_in(kColours, Colour::Green, "?") == "green");
static_assert(detail::name_in(kColours, static_cast<Colour>(7), "?") == "?");
static_assert(detail::in_declaration_order(kColours));

std::string error_of(std::string_view name) {
  try {
    (void)detail::value_in(kColours, name, "colour");
  } catch (const InvalidProblem& e) {
    return e.what();
  }
  return "";
}

TEST(EnumNames, LooksUpBothWays) {
  for (const auto& [value, name] : kColours) {
    EXPECT_EQ(detail::name_in(kColours, value, "?"), name);
    EXPECT_EQ(detail::value_in(kColours, name, "colour"), value);
  }
  EXPECT_EQ(detail::name_in(kColours, static_cast<Colour>(-1), "unknown-colour"), "unknown-colour");
}

// The message names what was looked up, quotes the name given and lists every valid name in table
// order; a name differing only in case is not a name.
TEST(EnumNames, UnknownNameListsTheValidOnes) {
  EXPECT_EQ(error_of("purple"), "unknown colour 'purple'; expected one of: red, green, blue");
  EXPECT_EQ(error_of("Red"), "unknown colour 'Red'; expected one of: red, green, blue");
  EXPECT_EQ(error_of(""), "unknown colour ''; expected one of: red, green, blue");
}

TEST(EnumNames, DeclarationOrderIsChecked) {
  constexpr std::array<detail::EnumName<Colour>, 3> swapped{{
      {Colour::Green, "green"},
      {Colour::Red, "red"},
      {Colour::Blue, "blue"},
  }};
  constexpr std::array<detail::EnumName<Colour>, 2> gap{{
      {Colour::Red, "red"},
      {Colour::Blue, "blue"},
  }};
  EXPECT_FALSE(detail::in_declaration_order(swapped));
  EXPECT_FALSE(detail::in_declaration_order(gap));
}

// The enums built on it give the same kind of message, each under its own word.
TEST(EnumNames, EveryEnumNamesItsKind) {
  const auto message = [](auto parse) {
    try {
      parse();
    } catch (const InvalidProblem& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_THAT(message([] { (void)from_string<Status>("ok"); }),
              testing::StartsWith("unknown status 'ok'; expected one of: solved, infeasible,"));
  EXPECT_THAT(message([] { (void)from_string<Method>("gs"); }),
              testing::StartsWith("unknown method 'gs'; expected one of: enum, lemke, murty,"));
  EXPECT_THAT(message([] { (void)from_string<Method>("gs"); }), testing::EndsWith("prox, admm, auto"));
  EXPECT_THAT(message([] { (void)from_string<MatrixClass>("P"); }),
              testing::StartsWith("unknown matrix class 'P'; expected one of: symmetric, positive-definite,"));
  EXPECT_THAT(message([] { (void)from_string<MatrixClass>("P"); }),
              testing::EndsWith("column-sufficient, row-sufficient"));
}

}  // namespace
}  // namespace perp::core_enum_names_test
