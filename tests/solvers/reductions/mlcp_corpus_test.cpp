// Every Siconos MLCP file × every MLCP method: the methods that should solve a file must, with the
// residual recomputed here from the returned z; every outcome must be finite and consistent; auto
// must solve all 15 files (Rectangular_mlcp.dat is not an MLCP: its M is 3×2).
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <initializer_list>
#include <ostream>
#include <set>
#include <string>

#include "perp/core/error.hpp"
#include "perp/io/siconos.hpp"
#include "perp/solvers/mlcp.hpp"
#include "../relative_check.hpp"

namespace perp::solvers_mlcp_corpus_test {
namespace {

const std::filesystem::path kMlcpCorpus = PERP_SICONOS_MLCP_DIR;

struct MlcpCase {
  std::string file;
  Eigen::Index n;  ///< equalities
  Eigen::Index m;  ///< complementarity pairs
  bool a_singular;
  /// Methods that must return Solved at tolerance 1e-8 (measured; docs/solvers.md has the table).
  std::set<std::string> must_solve;
};

void PrintTo(const MlcpCase& c, std::ostream* os) { *os << c.file; }

std::set<std::string> join(std::initializer_list<std::set<std::string>> parts) {
  std::set<std::string> all;
  for (const auto& part : parts) all.insert(part.begin(), part.end());
  return all;
}

const std::set<std::string> kNewton{"newton-fb", "newton-min", "penalized-fb", "smoothing"};
// A well conditioned: schur, and lemke on the Schur-complement LCP.
const std::set<std::string> kEliminating{"schur", "lemke"};

std::vector<MlcpCase> corpus() {
  const auto all = join({{"enum", "pgs", "auto"}, kEliminating, kNewton});
  // A well conditioned but a zero diagonal entry in M: pgs cannot run.
  const auto no_pgs = join({{"enum", "auto"}, kEliminating, kNewton});
  // A singular: schur refuses; lemke pivots u in together with some v_J.
  const auto singular = join({{"enum", "lemke", "auto"}, kNewton});
  // Buck*: A is ill-conditioned as stored (rcond 4e-13) but not once equilibrated (3e-7); M has
  // zero diagonal entries; smoothing stalls on two of them, newton-min on Buck2.
  const auto buck = join({{"enum", "newton-fb", "penalized-fb", "auto"}, kEliminating});
  return {
      {"Buck2_mlcp.dat", 20, 12, false, join({buck, {"smoothing"}})},
      {"BuckConverter_mlcp.dat", 20, 12, false, join({buck, {"newton-min"}})},
      {"BuckFirstStep_mlcp.dat", 20, 12, false, join({buck, {"newton-min"}})},
      {"PDSym_mlcp.dat", 3, 4, false, all},
      {"PD_mlcp.dat", 3, 4, true, singular},
      {"RCD_mlcp.dat", 2, 1, false, no_pgs},
      {"RLCD_mlcp.dat", 6, 2, false, no_pgs},
      {"deudeu_mlcp.dat", 1, 1, false, all},
      {"diodeBridge20_mlcp.dat", 11, 20, true, singular},
      {"diodeBridge40_mlcp.dat", 21, 40, true, join({{"lemke", "auto"}, kNewton})},  // m = 40: enum refuses
      {"diodeBridge_mlcp.dat", 3, 4, true, singular},
      {"m2n1_mlcp.dat", 1, 2, false, all},
      {"m3n2_mlcp.dat", 2, 3, false, all},
      {"relay2_mlcp.dat", 4, 2, false, no_pgs},
      {"relay3_mlcp.dat", 4, 2, false, no_pgs},
  };
}

TEST(MlcpCorpus, ListsEveryFileButRectangular) {
  std::set<std::string> on_disk;
  for (const auto& entry : std::filesystem::directory_iterator(kMlcpCorpus)) {
    if (entry.path().extension() == ".dat") on_disk.insert(entry.path().filename().string());
  }
  std::set<std::string> listed{"Rectangular_mlcp.dat"};
  for (const MlcpCase& c : corpus()) listed.insert(c.file);
  EXPECT_EQ(on_disk, listed);
}

class MlcpCorpusRun : public ::testing::TestWithParam<std::tuple<MlcpCase, Method>> {};

TEST_P(MlcpCorpusRun, MethodOnFile) {
  const auto& [c, method] = GetParam();
  const Mlcp problem = read_siconos_mlcp(kMlcpCorpus / c.file);
  ASSERT_EQ(problem.equalities(), c.n);
  ASSERT_EQ(problem.complementarities(), c.m);
  const SolveOptions options{.tolerance = 1e-8};
  if (method == Method::Enum && c.m > 25) {  // too large for enumeration: refused before any run
    EXPECT_THROW((void)solve(problem, method, options), InvalidProblem);
    return;
  }
  const Result r = solve(problem, method, options);
  ASSERT_EQ(r.z.size(), c.n + c.m);
  ASSERT_EQ(r.w.size(), c.n + c.m);
  EXPECT_TRUE(r.z.allFinite());
  EXPECT_TRUE(r.w.allFinite());
  EXPECT_LE((r.w - problem.slack(r.z)).cwiseAbs().maxCoeff(), 1e-12 * (1 + r.w.cwiseAbs().maxCoeff()));
  const MlcpResiduals recomputed = mlcp_residuals(problem, r.z);
  EXPECT_NEAR(r.residual, recomputed.natural(), 1e-14 * (1 + recomputed.natural()));
  // Solved means the relative residual meets the tolerance (docs/solvers.md), recomputed here.
  const long double relative = testing_relative::relative(problem, r.z);
  EXPECT_EQ(r.solved(), r.relative_residual <= options.tolerance) << r.message;
  if (r.solved()) {
    EXPECT_LE(relative, options.tolerance) << r.message;
  }
  const double q_scale = problem.offset().cwiseAbs().maxCoeff();
  const double z_scale = r.z.cwiseAbs().maxCoeff();
  // Every file has a solution: nothing may claim to prove otherwise.
  EXPECT_NE(r.status, Status::Infeasible) << r.message;
  if (c.must_solve.count(to_string(method))) {
    EXPECT_TRUE(r.solved()) << to_string(r.status) << ": " << r.message;
    EXPECT_LE(relative, 1e-8);
    EXPECT_LE(recomputed.equality, 1e-8 * q_scale);
    EXPECT_GE(r.z.tail(c.m).minCoeff(), -1e-8 * z_scale);
    EXPECT_GE(r.w.tail(c.m).minCoeff(), -1e-8 * q_scale);
  }
  if (c.a_singular && (method == Method::Schur)) {
    EXPECT_EQ(r.status, Status::NotApplicable) << r.message;
    EXPECT_NE(r.message.find("condition number"), std::string::npos) << r.message;
  }
}

std::string case_name(const ::testing::TestParamInfo<MlcpCorpusRun::ParamType>& info) {
  std::string name = std::get<0>(info.param).file;
  name = name.substr(0, name.size() - std::string("_mlcp.dat").size()) + "_" + to_string(std::get<1>(info.param));
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Siconos, MlcpCorpusRun,
                         ::testing::Combine(::testing::ValuesIn(corpus()), ::testing::ValuesIn(mlcp_methods())),
                         case_name);

// numerics/python/tests/test_mlcp.py in Siconos checks this z at 1e-8 (FORMATS.md §1.1).
TEST(MlcpCorpus, DiodeBridgeMatchesSiconosReferenceSolution) {
  const Mlcp problem = read_siconos_mlcp(kMlcpCorpus / "diodeBridge_mlcp.dat");
  Eigen::VectorXd reference(7);
  reference << 0.985185185, 0.985185185, 0, 9.85185185e-4, 0, 0, 9.85185185e-4;
  EXPECT_LE(natural_residual(problem, reference), 1e-8);
  for (const Method method : {Method::Auto, Method::Enum, Method::Lemke, Method::NewtonFb, Method::NewtonMin}) {
    SCOPED_TRACE(to_string(method));
    const Result r = solve(problem, method);
    ASSERT_TRUE(r.solved()) << r.message;
    EXPECT_LE((r.z - reference).cwiseAbs().maxCoeff(), 1e-8) << r.z.transpose();
  }
}

}  // namespace
}  // namespace perp::solvers_mlcp_corpus_test
