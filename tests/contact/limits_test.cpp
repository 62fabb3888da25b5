// Issue 15: overlapping bodies give one contact per pair, N² in all; detection refuses past
// kMaxContacts, naming the deepest overlap, instead of building an LCP that does not fit.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "perp/contact/detection.hpp"
#include "perp/core/error.hpp"
#include "test_worlds.hpp"

namespace perp::contact::contact_limits_test {
namespace {

TEST(ContactLimit, PiledDisksAreRefusedNamingTheOverlap) {
  World world;
  // 160 unit disks 1 mm apart: 160·159/2 = 12720 overlapping pairs, one contact each, over the
  // limit 8192 + 16·160 = 10752. Neighbours overlap the most, by 1 − 0.001 m.
  for (int i = 0; i < 160; ++i) {
    world.bodies.push_back(test::disk("d" + std::to_string(i), 0.5, 1, {0.001 * i, 0}));
  }
  try {
    (void)detect_contacts(world, 0.0);
    FAIL() << "expected InvalidProblem";
  } catch (const InvalidProblem& error) {
    EXPECT_THAT(error.what(), ::testing::HasSubstr("more than 10752 contacts"));
    EXPECT_THAT(error.what(), ::testing::ContainsRegex("the deepest overlap is 'd[0-9]+' with 'd[0-9]+' by 0.999 m"));
  }
  EXPECT_EQ(contact_limit(world), 10752u);
  // 120 disks: 7140 pairs, under the limit 8192 + 1920, detected as before.
  world.bodies.resize(120);
  EXPECT_EQ(detect_contacts(world, 0.0).size(), 120u * 119u / 2u);
}

}  // namespace
}  // namespace perp::contact::contact_limits_test
