#include "perp/core/status.hpp"

#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "perp/core/error.hpp"
#include "perp/core/result.hpp"

namespace perp::core_status_test {
namespace {

TEST(Status, NamesRoundTrip) {
  for (const Status s : {Status::Solved, Status::Infeasible, Status::RayTermination, Status::MaxIterations,
                         Status::NumericalFailure, Status::NotApplicable, Status::NoSolutionFound,
                         Status::TimeLimit, Status::Interrupted, Status::NotRun}) {
    EXPECT_EQ(from_string<Status>(to_string(s)), s);
  }
  EXPECT_EQ(to_string(Status::RayTermination), "ray-termination");
  EXPECT_EQ(to_string(Status::NotRun), "not-run");
  EXPECT_EQ(Result{}.status, Status::NotRun);  // a result no method has filled
  EXPECT_EQ(to_string(Status::MaxIterations), "max-iterations");
  EXPECT_EQ(to_string(Status::NumericalFailure), "numerical-failure");
  EXPECT_EQ(to_string(Status::TimeLimit), "time-limit");
  EXPECT_EQ(to_string(Status::Interrupted), "interrupted");
}

TEST(Status, StreamsItsName) {
  std::ostringstream out;
  out << Status::NoSolutionFound;
  EXPECT_EQ(out.str(), "no-solution-found");
}

TEST(Status, UnknownNameListsTheValidOnes) {
  try {
    (void)from_string<Status>("done");
    FAIL() << "expected InvalidProblem";
  } catch (const InvalidProblem& e) {
    EXPECT_THAT(e.what(), testing::HasSubstr("'done'"));
    EXPECT_THAT(e.what(), testing::HasSubstr("solved, infeasible, ray-termination"));
  }
}

}  // namespace
}  // namespace perp::core_status_test
