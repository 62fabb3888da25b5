// FrictionContactOptions: one struct per frictional contact method (nsgs, the 3D local solve, prox,
// lemke, auto). Every default is the value docs/solvers.md's option table gives, written out here
// by hand; validate() names a bad field by its whole path from SolveOptions.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <string>

#include "perp/core/error.hpp"
#include "perp/solvers/options.hpp"

namespace perp::solvers_friction_options_test {
namespace {

using testing::HasSubstr;

/// The message validate() throws for the options that `change` makes (empty when they are valid),
/// checked through FrictionContactOptions::validate(contacts) and, without a contact count, through
/// SolveOptions::validate, which must say the same.
std::string message_for(const std::function<void(FrictionContactOptions&)>& change, Eigen::Index contacts = -1) {
  SolveOptions options;
  change(options.friction_contact);
  std::string own;
  try {
    options.friction_contact.validate(contacts);
  } catch (const InvalidProblem& e) {
    own = e.what();
  }
  if (contacts < 0) {
    std::string whole;
    try {
      options.validate(0);
    } catch (const InvalidProblem& e) {
      whole = e.what();
    }
    EXPECT_EQ(own, whole);
  }
  return own;
}

TEST(FrictionContactOptions, DefaultsAreTheDocumentedValues) {
  const FrictionContactOptions o;
  EXPECT_EQ(o.nsgs.relaxation, 1.0);
  EXPECT_EQ(o.nsgs.order, ContactOrder::Natural);
  EXPECT_EQ(o.nsgs.seed, std::uint64_t{0});
  EXPECT_TRUE(o.nsgs.permutation.empty());
  EXPECT_EQ(o.nsgs.error_every, 10);
  EXPECT_EQ(o.local.tolerance, 1e-14);
  EXPECT_EQ(o.local.iterations, 50);
  EXPECT_EQ(o.prox.rho, 0.0);
  EXPECT_EQ(o.prox.max_outer, 1000);
  EXPECT_EQ(o.prox.anderson, 20);
  EXPECT_EQ(o.lemke.facets, 8);
  EXPECT_EQ(o.lemke.lcp_max_size, Eigen::Index{4000});
  EXPECT_EQ(o.automatic.nsgs_sweeps, 1000);
  EXPECT_EQ(o.automatic.shift_updates, 0);
  EXPECT_EQ(message_for([](FrictionContactOptions&) {}), "");
  // SolveOptions holds the same defaults.
  EXPECT_EQ(SolveOptions{}.friction_contact.prox.anderson, 20);
}

TEST(FrictionContactOptions, EachBadFieldIsNamedByItsPath) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // nsgs
  EXPECT_EQ(message_for([](FrictionContactOptions& o) { o.nsgs.relaxation = 2.0; }),
            "friction_contact.nsgs.relaxation must be in (0, 2), got 2");
  EXPECT_EQ(message_for([](FrictionContactOptions& o) { o.nsgs.relaxation = 0.0; }),
            "friction_contact.nsgs.relaxation must be in (0, 2), got 0");
  EXPECT_EQ(message_for([](FrictionContactOptions& o) { o.nsgs.order = static_cast<ContactOrder>(7); }),
            "friction_contact.nsgs.order is not a ContactOrder");
  EXPECT_EQ(message_for([](FrictionContactOptions& o) { o.nsgs.error_every = 0; }),
            "friction_contact.nsgs.error_every must be >= 1, got 0");
  // the 3D local solve
  EXPECT_EQ(message_for([](FrictionContactOptions& o) { o.local.tolerance = 1.0; }),
            "friction_contact.local.tolerance must be in (0, 1), got 1");
  EXPECT_EQ(message_for([&](FrictionContactOptions& o) { o.local.tolerance = nan; }),
            "friction_contact.local.tolerance must be in (0, 1), got NaN");
  EXPECT_EQ(message_for([](FrictionContactOptions& o) { o.local.iterations = 0; }),
            "friction_contact.local.iterations must be >= 1, got 0");
  // prox
  EXPECT_EQ(message_for([](FrictionContactOptions& o) { o.prox.rho = -1.0; }),
            "friction_contact.prox.rho must be finite and >= 0 (0 = automatic), got -1");
  EXPECT_EQ(message_for([](FrictionContactOptions& o) { o.prox.rho = std::numeric_limits<double>::infinity(); }),
            "friction_contact.prox.rho must be finite and >= 0 (0 = automatic), got +inf");
  EXPECT_EQ(message_for([](FrictionContactOptions& o) { o.prox.max_outer = 0; }),
            "friction_contact.prox.max_outer must be >= 1, got 0");
  EXPECT_EQ(message_for([](FrictionContactOptions& o) { o.prox.anderson = 51; }),
            "friction_contact.prox.anderson must be in [0, 50], got 51");
  EXPECT_EQ(message_for([](FrictionContactOptions& o) { o.prox.anderson = -1; }),
            "friction_contact.prox.anderson must be in [0, 50], got -1");
  // lemke
  EXPECT_EQ(message_for([](FrictionContactOptions& o) { o.lemke.facets = 2; }),
            "friction_contact.lemke.facets must be >= 3, got 2");
  EXPECT_EQ(message_for([](FrictionContactOptions& o) { o.lemke.lcp_max_size = 0; }),
            "friction_contact.lemke.lcp_max_size must be >= 1, got 0");
  // auto
  EXPECT_EQ(message_for([](FrictionContactOptions& o) { o.automatic.nsgs_sweeps = 0; }),
            "friction_contact.automatic.nsgs_sweeps must be >= 1, got 0");
  EXPECT_EQ(message_for([](FrictionContactOptions& o) { o.automatic.shift_updates = -1; }),
            "friction_contact.automatic.shift_updates must be >= 0, got -1");
}

TEST(FrictionContactOptions, TheEdgesOfEachRangeAreAccepted) {
  EXPECT_EQ(message_for([](FrictionContactOptions& o) { o.nsgs.relaxation = 1.99; }), "");
  EXPECT_EQ(message_for([](FrictionContactOptions& o) { o.nsgs.error_every = 1; }), "");
  EXPECT_EQ(message_for([](FrictionContactOptions& o) { o.local.iterations = 1; }), "");
  EXPECT_EQ(message_for([](FrictionContactOptions& o) { o.prox.anderson = 0; }), "");
  EXPECT_EQ(message_for([](FrictionContactOptions& o) { o.prox.anderson = 50; }), "");
  EXPECT_EQ(message_for([](FrictionContactOptions& o) { o.lemke.facets = 3; }), "");
  EXPECT_EQ(message_for([](FrictionContactOptions& o) { o.automatic.shift_updates = 0; }), "");
}

TEST(FrictionContactOptions, TheGivenOrderIsCheckedAgainstTheContacts) {
  const auto given = [](std::vector<Eigen::Index> permutation) {
    return [permutation](FrictionContactOptions& o) {
      o.nsgs.order = ContactOrder::Given;
      o.nsgs.permutation = permutation;
    };
  };
  EXPECT_EQ(message_for(given({2, 0, 1}), 3), "");
  EXPECT_EQ(message_for(given({0, 1}), 3),
            "friction_contact.nsgs.permutation: expected 3 entries (one per contact), got 2");
  EXPECT_EQ(message_for(given({0, 3, 1}), 3), "friction_contact.nsgs.permutation[1] is 3, outside 0..2");
  EXPECT_EQ(message_for(given({1, 0, 1}), 3), "friction_contact.nsgs.permutation[2] repeats contact 1");
  // Without the problem's contact count there is nothing to check it against.
  EXPECT_EQ(message_for(given({5})), "");
}

}  // namespace
}  // namespace perp::solvers_friction_options_test
