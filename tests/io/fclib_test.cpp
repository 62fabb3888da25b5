#include "perp/io/fclib.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "perp/core/error.hpp"
#include "perp/solvers/friction_contact.hpp"

namespace perp::io_fclib_test {
namespace {

using testing::HasSubstr;

const std::filesystem::path kData = PERP_FCLIB_DIR;

std::string refusal(const std::filesystem::path& path) {
  try {
    (void)read_fclib(path);
  } catch (const InvalidProblem& e) {
    return e.what();
  }
  return "";
}

std::filesystem::path scratch(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("perp_fclib_test_" + name);
}

/// The largest violation of Coulomb's law at (r, u), written out here apart from the library's
/// residuals: r outside K_μ, û = u + μ‖u_T‖ e_N outside K_μ*, and |r·û|.
double law_violation(int d, const Eigen::VectorXd& mu, const Eigen::VectorXd& r, const Eigen::VectorXd& u) {
  double worst = 0;
  for (Eigen::Index i = 0; i < mu.size(); ++i) {
    const Eigen::VectorXd ri = r.segment(d * i, d);
    Eigen::VectorXd ui = u.segment(d * i, d);
    ui[0] += mu[i] * ui.tail(d - 1).norm();
    worst = std::max({worst, ri.tail(d - 1).norm() - mu[i] * ri[0], mu[i] * ui.tail(d - 1).norm() - ui[0],
                      std::abs(ri.dot(ui))});
  }
  return worst;
}

TEST(Fclib, ReadsTheLocalFiles) {
  for (const char* name : {"Capsules-i125-1213.hdf5", "LMGC_100_PR_PerioBox-i00361-60-03000.hdf5"}) {
    const FclibFile file = read_fclib(kData / name);
    ASSERT_FALSE(file.global()) << name;
    const auto& p = std::get<FrictionContact>(file.problem);
    EXPECT_EQ(p.dimension, 3) << name;
    EXPECT_GT(p.contacts(), 0) << name;
    EXPECT_EQ(p.W.rows(), 3 * p.contacts()) << name;
    EXPECT_EQ(p.q.size(), 3 * p.contacts()) << name;
  }
}

TEST(Fclib, ReadsTheGlobalFiles) {
  for (const char* name :
       {"Box_Stacks-i0122-82-5.hdf5", "CubeH8.hdf5", "LMGC_GlobalFrictionContactProblem00046.hdf5"}) {
    const FclibFile file = read_fclib(kData / name);
    ASSERT_TRUE(file.global()) << name;
    const auto& g = std::get<GlobalFrictionContact>(file.problem);
    EXPECT_EQ(g.M.rows(), g.M.cols()) << name;
    EXPECT_EQ(g.H.rows(), g.M.rows()) << name;
    EXPECT_EQ(g.H.cols(), g.dimension * g.contacts()) << name;
    EXPECT_EQ(g.b.size(), g.H.cols()) << name;
  }
}

TEST(Fclib, RefusesRollingFrictionGarbageAndMissingFiles) {
  EXPECT_THAT(refusal(kData / "Chute-ndof-768-nc-4-3.hdf5"), HasSubstr("rolling friction"));
  EXPECT_THAT(refusal(kData / "Chute-ndof-768-nc-4-3.hdf5"), HasSubstr("Chute-ndof-768-nc-4-3.hdf5"));
  EXPECT_THAT(refusal(kData / "no-such-file.hdf5"), HasSubstr("no such file"));
  const std::filesystem::path garbage = scratch("garbage.hdf5");
  {
    std::ofstream out(garbage);
    out << "not an HDF5 file at all\n";
  }
  EXPECT_THAT(refusal(garbage), HasSubstr("not an HDF5 file"));
  // A real file cut short: the signature is there, the rest is not.
  const std::filesystem::path truncated = scratch("truncated.hdf5");
  {
    std::ifstream in(kData / "CubeH8.hdf5", std::ios::binary);
    std::string bytes(2048, '\0');
    in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    std::ofstream out(truncated, std::ios::binary);
    out.write(bytes.data(), in.gcount());
  }
  EXPECT_THAT(refusal(truncated), HasSubstr("fclib file"));
  std::filesystem::remove(garbage);
  std::filesystem::remove(truncated);
}

TEST(Fclib, WriteThenReadGivesTheSameProblems) {
  const FclibFile local = read_fclib(kData / "Capsules-i125-1213.hdf5");
  const auto& p = std::get<FrictionContact>(local.problem);
  const std::filesystem::path local_copy = scratch("local.hdf5");
  FclibSolution solution;
  solution.r = Eigen::VectorXd::LinSpaced(p.size(), 0.0, 1.0);
  solution.u = p.velocity(solution.r);
  write_fclib(local_copy, p, &solution, "a copy");
  const FclibFile back = read_fclib(local_copy);
  const auto& q = std::get<FrictionContact>(back.problem);
  EXPECT_EQ(back.title, "a copy");
  EXPECT_EQ(q.dimension, p.dimension);
  EXPECT_EQ(Eigen::MatrixXd(q.W), Eigen::MatrixXd(p.W));
  EXPECT_EQ(q.q, p.q);
  EXPECT_EQ(q.mu, p.mu);
  ASSERT_TRUE(back.solution.has_value());
  EXPECT_EQ(back.solution->r, solution.r);
  EXPECT_EQ(back.solution->u, solution.u);

  const FclibFile global = read_fclib(kData / "CubeH8.hdf5");
  const auto& g = std::get<GlobalFrictionContact>(global.problem);
  const std::filesystem::path global_copy = scratch("global.hdf5");
  write_fclib(global_copy, g);
  const FclibFile global_back = read_fclib(global_copy);
  const auto& h = std::get<GlobalFrictionContact>(global_back.problem);
  EXPECT_EQ(Eigen::MatrixXd(h.M), Eigen::MatrixXd(g.M));
  EXPECT_EQ(Eigen::MatrixXd(h.H), Eigen::MatrixXd(g.H));
  EXPECT_EQ(h.q, g.q);
  EXPECT_EQ(h.b, g.b);
  EXPECT_EQ(h.mu, g.mu);
  std::filesystem::remove(local_copy);
  std::filesystem::remove(global_copy);
}

// The global files solved through their local form (d = 3, M not diagonal), their criteria
// recomputed here from the returned r and u.
TEST(Fclib, TheGlobalFilesSolve) {
  for (const char* name : {"CubeH8.hdf5", "LMGC_GlobalFrictionContactProblem00046.hdf5", "Box_Stacks-i0122-82-5.hdf5"}) {
    const FclibFile file = read_fclib(kData / name);
    const auto& g = std::get<GlobalFrictionContact>(file.problem);
    Eigen::VectorXd v;
    GlobalFrictionContactResiduals criteria;
    const Result result = solve(g, Method::Auto, {.tolerance = 1e-8}, v, criteria);
    EXPECT_TRUE(result.solved()) << name << ": " << result.message;
    if (!result.solved()) continue;
    const Eigen::VectorXd u = Eigen::VectorXd(g.H.transpose() * v) + g.b;
    EXPECT_TRUE(u.isApprox(result.w)) << name;
    const double scale = std::max({result.z.norm(), u.norm(), 1.0});
    EXPECT_LT(law_violation(g.dimension, g.mu, result.z, u) / scale, 1e-6) << name;
    EXPECT_LT(criteria.relative_equilibrium, 1e-10) << name;
  }
}

// Capsules solves. (LMGC_100_PR_PerioBox-i00361-60-03000 does not yet: auto ends at a relative error
// of 8e-9 with a contact still approaching at 8.7e-4, which its judgement reads as a problem without a
// solution; not asserted here, stated in docs/file-formats.md.)
TEST(Fclib, TheLocalFilesSolve) {
  for (const char* name : {"Capsules-i125-1213.hdf5"}) {
    const FclibFile file = read_fclib(kData / name);
    const auto& p = std::get<FrictionContact>(file.problem);
    const Result result = solve(p, Method::Auto, {.tolerance = 1e-8});
    EXPECT_TRUE(result.solved()) << name << ": " << result.message;
    if (!result.solved()) continue;
    const Eigen::VectorXd u = p.velocity(result.z);
    const double scale = std::max({result.z.norm(), u.norm(), p.q.norm()});
    EXPECT_LT(law_violation(p.dimension, p.mu, result.z, u) / scale, 1e-6) << name;
  }
}

}  // namespace
}  // namespace perp::io_fclib_test
