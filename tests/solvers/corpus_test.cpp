// Every Siconos LCP file × every method: the methods that should solve a file must, with the
// residual recomputed here from the returned z; every outcome must be finite and consistent.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <ostream>
#include <set>
#include <string>

#include "perp/core/error.hpp"
#include "perp/core/residual.hpp"
#include "perp/io/siconos.hpp"
#include "perp/solvers/enumeration.hpp"
#include "perp/solvers/solve.hpp"

namespace perp {
namespace {

struct CorpusCase {
  std::string file;
  Eigen::Index n;
  /// Methods that must return Solved. Lemke solves everything solvable here except CPS_3
  /// (a bimatrix game on which the path ends on a ray, as Siconos' own Lemke does); murty, pgs
  /// and psor only where the matrix suits them (positive diagonal; P / SPD-like).
  std::set<std::string> must_solve;
};

// Readable names in test logs instead of the parameter's bytes.
void PrintTo(const CorpusCase& c, std::ostream* os) { *os << c.file; }

const std::set<std::string> kPivoting{"enum", "lemke", "auto"};
const std::set<std::string> kAll{"enum", "lemke", "murty", "pgs", "psor", "auto"};
const std::set<std::string> kNoEnum{"lemke", "murty", "pgs", "psor", "auto"};

std::vector<CorpusCase> corpus() {
  return {
      {"lcp_CPS_1.dat", 2, kAll},
      {"lcp_CPS_2.dat", 3, kPivoting},
      {"lcp_CPS_3.dat", 4, {"enum", "auto"}},
      {"lcp_CPS_4.dat", 4, kPivoting},
      {"lcp_CPS_4bis.dat", 4, kPivoting},
      {"lcp_CPS_5.dat", 2, kAll},
      {"lcp_Pang_isolated_sol.dat", 3, kPivoting},
      {"lcp_Pang_isolated_sol_perturbed.dat", 3, {}},  // no solution
      {"lcp_deudeu.dat", 2, kAll},
      {"lcp_deudeu_block.dat", 2, kAll},
      {"lcp_enum_fails.dat", 9, {"enum", "lemke", "murty", "auto"}},
      {"lcp_exp_murty.dat", 6, kAll},
      {"lcp_exp_murty2.dat", 6, kAll},
      {"lcp_inf_sol_perturbed.dat", 3, kPivoting},
      {"lcp_mmc.dat", 26, kNoEnum},
      {"lcp_ortiz.dat", 4, kAll},
      {"lcp_ortiz_block.dat", 4, kAll},
      {"lcp_tobenna.dat", 40, {"lemke", "auto"}},
      {"lcp_trivial.dat", 9, kAll},
      {"lcp_trivial_block.dat", 9, kAll},
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
  EXPECT_EQ(r.solved(), recomputed <= options.tolerance) << r.message;
  if (c.must_solve.count(to_string(method))) {
    EXPECT_TRUE(r.solved()) << to_string(r.status) << ": " << r.message;
    EXPECT_LE(recomputed, 1e-8);
    EXPECT_GE(r.z.minCoeff(), -1e-8);
    EXPECT_GE(r.w.minCoeff(), -1e-8);
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
                         ::testing::Combine(::testing::ValuesIn(corpus()),
                                            ::testing::Values(Method::Enum, Method::Lemke, Method::Murty, Method::Pgs,
                                                              Method::Psor, Method::Auto)),
                         case_name);

}  // namespace
}  // namespace perp
