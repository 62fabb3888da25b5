// Issue 15: overlapping bodies give one contact per pair, N² in all; detection refuses past
// kMaxContacts, naming the deepest overlap, instead of building an LCP that does not fit.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "perp/contact/detection.hpp"
#include "perp/core/error.hpp"
#include "test_worlds.hpp"

namespace perp::contact {
namespace {

TEST(ContactLimit, PiledDisksAreRefusedNamingTheOverlap) {
  World world;
  // 140 unit disks 1 mm apart: 140·139/2 = 9730 overlapping pairs, one contact each, over 8192.
  // Neighbours overlap the most, by 1 − 0.001 m.
  for (int i = 0; i < 140; ++i) {
    world.bodies.push_back(test::disk("d" + std::to_string(i), 0.5, 1, {0.001 * i, 0}));
  }
  try {
    (void)detect_contacts(world, 0.0);
    FAIL() << "expected InvalidProblem";
  } catch (const InvalidProblem& error) {
    EXPECT_THAT(error.what(), ::testing::HasSubstr("more than 8192 contacts"));
    EXPECT_THAT(error.what(), ::testing::ContainsRegex("the deepest overlap is 'd[0-9]+' with 'd[0-9]+' by 0.999 m"));
  }
  // 120 disks: 7140 pairs, under the limit, detected as before.
  world.bodies.resize(120);
  EXPECT_EQ(detect_contacts(world, 0.0).size(), 120u * 119u / 2u);
}

}  // namespace
}  // namespace perp::contact
