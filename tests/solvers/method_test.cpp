#include "perp/solvers/method.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "perp/core/error.hpp"

namespace perp {
namespace {

TEST(Method, StableNamesRoundTrip) {
  EXPECT_EQ(all_methods().size(), 17u);
  for (const Method m : all_methods()) EXPECT_EQ(from_string<Method>(to_string(m)), m);
  EXPECT_EQ(to_string(Method::Enum), "enum");
  EXPECT_EQ(to_string(Method::Lemke), "lemke");
  EXPECT_EQ(to_string(Method::Murty), "murty");
  EXPECT_EQ(to_string(Method::Pgs), "pgs");
  EXPECT_EQ(to_string(Method::Psor), "psor");
  EXPECT_EQ(to_string(Method::Dantzig), "dantzig");
  EXPECT_EQ(to_string(Method::Schur), "schur");
  EXPECT_EQ(to_string(Method::Nsgs), "nsgs");
  EXPECT_EQ(to_string(Method::NewtonAc), "newton-ac");
  EXPECT_EQ(to_string(Method::Prox), "prox");
  EXPECT_EQ(to_string(Method::Auto), "auto");
}

TEST(Method, LcpMethodsLeaveOutTheOtherTypesOwn) {
  const std::vector<Method> lcp = lcp_methods();
  for (const Method own : {Method::Schur, Method::Nsgs, Method::NewtonAc, Method::Prox}) {
    EXPECT_EQ(std::count(lcp.begin(), lcp.end(), own), 0) << to_string(own);
  }
  EXPECT_EQ(lcp.size(), all_methods().size() - 4);
}

TEST(Method, UnknownNameIsAnError) {
  try {
    (void)from_string<Method>("Lemke");
    FAIL();
  } catch (const InvalidProblem& e) {
    EXPECT_THAT(e.what(), testing::HasSubstr("unknown method 'Lemke'"));
    EXPECT_THAT(e.what(), testing::HasSubstr("enum, lemke, murty, pgs, psor, newton-fb, newton-min, penalized-fb, "
                                             "smoothing, path, interior-point, dantzig, schur, nsgs, newton-ac, prox, auto"));
  }
}

}  // namespace
}  // namespace perp
