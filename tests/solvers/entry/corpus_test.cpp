// Every Siconos LCP file × every method: the methods that should solve a file must, with the
// residual recomputed here from the returned z; every outcome must be finite and consistent.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <initializer_list>
#include <ostream>
#include <set>
#include <string>

#include "perp/core/error.hpp"
#include "perp/core/residual.hpp"
#include "perp/io/siconos.hpp"
#include "perp/solvers/solve.hpp"
#include "../relative_check.hpp"

namespace perp::solvers_corpus_test {
namespace {

struct CorpusCase {
  std::string file;
  Eigen::Index n;
  /// Methods that must return Solved. Lemke solves everything solvable here except CPS_3
  /// (a bimatrix game on which the path ends on a ray, as Siconos' own Lemke does); murty, pgs
  /// and psor only where the matrix suits them (positive diagonal; P / SPD-like); the Newton
  /// family on every solvable file but tobenna (newton-min also stalls on CPS_4 and CPS_4bis);
  /// interior-point on the files whose M is positive semidefinite; dantzig where every pivot it meets
  /// is positive (P-matrices, and CPS_4/CPS_4bis), ending not-applicable elsewhere; block-pivoting
  /// on the P-matrices and where a (singular, symmetric) block it meets still yields a solution
  /// (CPS_1, CPS_3, deudeu), not-applicable elsewhere.
  std::set<std::string> must_solve;
};

// Readable names in test logs instead of the parameter's bytes.
void PrintTo(const CorpusCase& c, std::ostream* os) { *os << c.file; }

// Methods by family; the cases below combine them.
const std::set<std::string> kPivoting{"enum", "lemke", "auto"};
const std::set<std::string> kSplitting{"murty", "pgs", "psor"};
const std::set<std::string> kBlock{"block-pivoting"};
const std::set<std::string> kNewton{"newton-fb", "newton-min", "penalized-fb", "smoothing"};
const std::set<std::string> kFbType{"newton-fb", "penalized-fb", "smoothing"};  // newton-min stalls on CPS_4*

std::set<std::string> join(std::initializer_list<std::set<std::string>> parts) {
  std::set<std::string> all;
  for (const auto& part : parts) all.insert(part.begin(), part.end());
  return all;
}

// Files whose M is positive semidefinite (the symmetric part): the interior-point method must solve
// them; on every other file it must say not-applicable.
const std::set<std::string> kMonotone{"interior-point"};
// dantzig (Cottle–Dantzig principal pivoting on the box [0, +inf)) needs positive pivots; on the other
// files it must stop not-applicable, naming the index and the pivot.
const std::set<std::string> kDantzig{"dantzig"};

std::vector<CorpusCase> corpus() {
  const auto all = join({kPivoting, kSplitting, kBlock, kNewton, kMonotone, kDantzig});
  const auto no_enum = join({{"lemke", "auto"}, kSplitting, kBlock, kNewton, kMonotone, kDantzig});
  return {
      {"lcp_CPS_1.dat", 2, all},
      {"lcp_CPS_2.dat", 3, join({kPivoting, kNewton})},
      {"lcp_CPS_3.dat", 4, join({{"enum", "auto"}, kBlock, kNewton})},
      {"lcp_CPS_4.dat", 4, join({kPivoting, kFbType, kMonotone, kDantzig})},
      {"lcp_CPS_4bis.dat", 4, join({kPivoting, kFbType, kMonotone, kDantzig})},
      {"lcp_CPS_5.dat", 2, all},
      {"lcp_Pang_isolated_sol.dat", 3, join({kPivoting, kNewton})},
      {"lcp_Pang_isolated_sol_perturbed.dat", 3, {}},  // no solution
      {"lcp_deudeu.dat", 2, all},
      {"lcp_deudeu_block.dat", 2, all},
      {"lcp_enum_fails.dat", 9, join({{"enum", "lemke", "murty", "auto"}, kBlock, kNewton, kDantzig})},
      {"lcp_exp_murty.dat", 6, all},
      {"lcp_exp_murty2.dat", 6, all},
      {"lcp_inf_sol_perturbed.dat", 3, join({kPivoting, kNewton, kMonotone})},
      {"lcp_mmc.dat", 26, no_enum},
      {"lcp_ortiz.dat", 4, all},
      {"lcp_ortiz_block.dat", 4, all},
      // Lemke solves it; the Newton family ends at a stationary point of the merit or the limit.
      {"lcp_tobenna.dat", 40, {"lemke", "auto"}},
      {"lcp_trivial.dat", 9, all},
      {"lcp_trivial_block.dat", 9, all},
  };
}

class Corpus : public ::testing::TestWithParam<std::tuple<CorpusCase, Method>> {};

TEST_P(Corpus, MethodOnFile) {
  const auto& [c, method] = GetParam();
  const Lcp problem = read_siconos_lcp(std::filesystem::path(PERP_SICONOS_DATA_DIR) / c.file);
  ASSERT_EQ(problem.size(), c.n);
  if (method == Method::Enum && problem.size() > kMaxEnumerationSize) {
    EXPECT_THROW((void)solve(problem, method), InvalidProblem);
    return;
  }
  const SolveOptions options{.tolerance = 1e-8, .max_iterations = 20000};
  const Result r = solve(problem, method, options);
  ASSERT_EQ(r.z.size(), c.n);
  ASSERT_EQ(r.w.size(), c.n);
  EXPECT_TRUE(r.z.allFinite());
  EXPECT_TRUE(r.w.allFinite());
  const double recomputed = natural_residual(problem, r.z);
  EXPECT_NEAR(r.residual, recomputed, 1e-12 * (1 + recomputed));
  // Solved means the relative residual meets the tolerance (docs/solvers.md), recomputed here.
  const long double relative = testing_relative::relative(problem, r.z);
  EXPECT_EQ(r.solved(), r.relative_residual <= options.tolerance) << r.message;
  if (r.solved()) {
    EXPECT_LE(relative, options.tolerance) << r.message;
  }
  if (c.must_solve.count(to_string(method))) {
    EXPECT_TRUE(r.solved()) << to_string(r.status) << ": " << r.message;
    EXPECT_LE(relative, 1e-8);
    EXPECT_GE(r.z.minCoeff(), -1e-8 * r.z.cwiseAbs().maxCoeff());
    EXPECT_GE(r.w.minCoeff(), -1e-8 * problem.q.cwiseAbs().maxCoeff());
  }
  if (method == Method::InteriorPoint && !c.must_solve.count("interior-point")) {
    // Not monotone: the method must say so rather than iterate.
    EXPECT_EQ(r.status, Status::NotApplicable) << c.file << ": " << r.message;
  }
  if (method == Method::Dantzig && !c.must_solve.count("dantzig")) {
    EXPECT_EQ(r.status, Status::NotApplicable) << c.file << ": " << r.message;
    EXPECT_THAT(r.message, ::testing::HasSubstr("index ")) << c.file;
  }
  if (method == Method::BlockPivoting && !c.must_solve.count("block-pivoting")) {
    // Not a P-matrix here: the method must say what stopped it rather than claim a point.
    EXPECT_EQ(r.status, Status::NotApplicable) << c.file << ": " << r.message;
    EXPECT_THAT(r.message, ::testing::HasSubstr("not a P-matrix")) << c.file;
  }
  if (c.file == "lcp_Pang_isolated_sol_perturbed.dat") {
    EXPECT_FALSE(r.solved()) << r.message;
  }
}

std::string case_name(const ::testing::TestParamInfo<Corpus::ParamType>& info) {
  std::string name = std::get<0>(info.param).file.substr(4);  // drop "lcp_"
  name = name.substr(0, name.size() - 4) + "_" + to_string(std::get<1>(info.param));
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Siconos, Corpus,
                         ::testing::Combine(::testing::ValuesIn(corpus()), ::testing::ValuesIn(lcp_methods())),
                         case_name);

}  // namespace
}  // namespace perp::solvers_corpus_test
