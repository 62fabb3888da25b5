#include "perp/solvers/method.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "perp/core/error.hpp"
#include "perp/solvers/box_lcp.hpp"
#include "perp/solvers/mlcp.hpp"
#include "perp/solvers/solve.hpp"

namespace perp::solvers_method_test {
namespace {

TEST(Method, StableNamesRoundTrip) {
  EXPECT_EQ(all_methods().size(), 19u);
  for (const Method m : all_methods()) EXPECT_EQ(from_string<Method>(to_string(m)), m);
  EXPECT_EQ(to_string(Method::Enum), "enum");
  EXPECT_EQ(to_string(Method::Lemke), "lemke");
  EXPECT_EQ(to_string(Method::Murty), "murty");
  EXPECT_EQ(to_string(Method::BlockPivoting), "block-pivoting");
  EXPECT_EQ(to_string(Method::Pgs), "pgs");
  EXPECT_EQ(to_string(Method::Psor), "psor");
  EXPECT_EQ(to_string(Method::Dantzig), "dantzig");
  EXPECT_EQ(to_string(Method::Schur), "schur");
  EXPECT_EQ(to_string(Method::Nsgs), "nsgs");
  EXPECT_EQ(to_string(Method::NewtonAc), "newton-ac");
  EXPECT_EQ(to_string(Method::Prox), "prox");
  EXPECT_EQ(to_string(Method::Admm), "admm");
  EXPECT_EQ(to_string(Method::Auto), "auto");
}

// The enum and its names are core's (core/method.hpp), so that a Result names its method: a
// compile-time table, and a Result no method has filled reads "?" in its report.
static_assert(method_name(Method::NewtonFb) == "newton-fb");
static_assert(method_name(static_cast<Method>(99)) == "unknown-method");

TEST(Method, ResultNamesItsMethod) {
  const Result unset;
  EXPECT_EQ(unset.method, Method::Auto);
  EXPECT_THAT(unset.brief_report(), testing::StartsWith("?: not-run in 0 iterations"));
  const Result r = solve(Lcp{Eigen::MatrixXd::Identity(2, 2), Eigen::VectorXd::Constant(2, -1.0)}, Method::Murty);
  EXPECT_EQ(r.method, Method::Murty);
  EXPECT_THAT(r.brief_report(), testing::StartsWith("murty: solved in "));
}

TEST(Method, LcpMethodsLeaveOutTheOtherTypesOwn) {
  const std::vector<Method> lcp = lcp_methods();
  for (const Method own : {Method::Schur, Method::Nsgs, Method::NewtonAc, Method::Prox, Method::Admm}) {
    EXPECT_EQ(std::count(lcp.begin(), lcp.end(), own), 0) << to_string(own);
  }
  EXPECT_EQ(lcp.size(), all_methods().size() - 5);
}

TEST(Method, UnknownNameIsAnError) {
  try {
    (void)from_string<Method>("Lemke");
    FAIL();
  } catch (const InvalidProblem& e) {
    EXPECT_THAT(e.what(), testing::HasSubstr("unknown method 'Lemke'"));
    EXPECT_THAT(e.what(), testing::HasSubstr("enum, lemke, murty, block-pivoting, pgs, psor, newton-fb, newton-min, "
                                             "penalized-fb, smoothing, path, interior-point, dantzig, schur, nsgs, "
                                             "newton-ac, prox, admm, auto"));
  }
}

// Benchmarks register names with to_string(Method) from static constructors, before main: the
// table must be ready then (a dynamically initialized table gave "unknown-method" there).
const std::string kNameAtStaticInitialization = to_string(Method::Dantzig);

TEST(MethodTable, ReadyDuringStaticInitialization) { EXPECT_EQ(kNameAtStaticInitialization, "dantzig"); }

// The method table (issue 14): one row per method, in declaration order, and every list of the
// methods a problem type accepts read from it.
TEST(MethodTable, OneRowPerMethodInOrder) {
  const std::vector<MethodInfo>& table = method_table();
  ASSERT_EQ(table.size(), all_methods().size());
  for (std::size_t i = 0; i < table.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(table[i].method), i);
    EXPECT_EQ(table[i].name, to_string(table[i].method));
    EXPECT_EQ(method_info(table[i].method).name, table[i].name);
    EXPECT_FALSE(table[i].summary.empty()) << table[i].name;
    EXPECT_FALSE(table[i].default_limit.empty()) << table[i].name;
    EXPECT_NE(table[i].accepts, 0U) << table[i].name;
  }
}

TEST(MethodTable, ListsOfEachTypeComeFromIt) {
  // Hand-derived from what each solve overload runs.
  EXPECT_EQ(box_lcp_methods(), (std::vector<Method>{Method::Pgs, Method::Psor, Method::NewtonFb, Method::NewtonMin,
                                                     Method::PenalizedFb, Method::Smoothing, Method::Path,
                                                     Method::Dantzig, Method::Auto}));
  EXPECT_EQ(methods_for(ProblemKind::Nonlinear), (std::vector<Method>{Method::NewtonFb, Method::NewtonMin,
                                                                      Method::PenalizedFb, Method::Smoothing,
                                                                      Method::Path, Method::Auto}));
  EXPECT_EQ(methods_for(ProblemKind::FrictionContact),
            (std::vector<Method>{Method::Lemke, Method::InteriorPoint, Method::Nsgs, Method::NewtonAc, Method::Prox,
                                 Method::Admm, Method::Auto}));
  EXPECT_EQ(method_names_for(ProblemKind::Nonlinear), "newton-fb, newton-min, penalized-fb, smoothing, path or auto");
  for (const Method m : all_methods()) {
    EXPECT_EQ(accepts_nonlinear(m), method_info(m).accepts_kind(ProblemKind::Nonlinear)) << m;
  }
  EXPECT_TRUE(method_info(Method::Lemke).exact);
  EXPECT_FALSE(method_info(Method::Pgs).exact);
}

TEST(MethodTable, RefusalsNameTheMethodsThatApply) {
  const BoxLcp box{Eigen::Matrix2d{{2, 0}, {0, 2}}, Eigen::Vector2d(-1, -1), Eigen::Vector2d(0, 0),
                   Eigen::Vector2d(1, 1), {}};
  EXPECT_THAT([&] { (void)solve(box, Method::Lemke); },
              testing::ThrowsMessage<InvalidProblem>(testing::HasSubstr(
                  "method 'lemke' does not accept a BoxLcp; use pgs, psor, newton-fb, newton-min, penalized-fb, "
                  "smoothing, path, dantzig or auto")));
}

// The LCP's pgs/psor with a warm start returned to sweeping when q >= 0; now z = 0, which solves
// exactly, is returned at once for every method (as the box LCP always did).
TEST(Pipeline, ZeroSolvesFirstWhateverTheMethodAndTheWarmStart) {
  const Lcp p{Eigen::Matrix2d{{2, 1}, {1, 2}}, Eigen::Vector2d(1, 0)};
  for (const Method m : {Method::Pgs, Method::Psor, Method::Lemke, Method::NewtonFb}) {
    const Result r = solve(p, m, {.initial_guess = Eigen::Vector2d(3, 4)});
    EXPECT_TRUE(r.solved()) << m;
    EXPECT_EQ(r.z, Eigen::Vector2d::Zero()) << m;
    EXPECT_EQ(r.iterations, 0) << m;
    EXPECT_EQ(r.method, m);
  }
}

// One rule for the zero PGS diagonal, on the three types.
TEST(Pipeline, ZeroPgsDiagonalIsNotApplicableForEveryType) {
  const Eigen::Matrix2d M{{1, 0}, {0, 0}};
  const Eigen::Vector2d q(-1, -1);
  EXPECT_EQ(solve(Lcp{M, q}, Method::Pgs).status, Status::NotApplicable);
  const BoxLcp box{M, q, Eigen::Vector2d(0, 0), Eigen::Vector2d(5, 5), {}};
  EXPECT_EQ(solve(box, Method::Pgs).status, Status::NotApplicable);
  const Mlcp mlcp{Eigen::MatrixXd{{1}}, Eigen::MatrixXd{{0}}, Eigen::MatrixXd{{0}}, Eigen::MatrixXd{{0}},
                  Eigen::VectorXd::Constant(1, -1), Eigen::VectorXd::Constant(1, -1)};
  EXPECT_EQ(solve(mlcp, Method::Pgs).status, Status::NotApplicable);
}

}  // namespace
}  // namespace perp::solvers_method_test
