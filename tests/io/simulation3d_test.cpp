#include "perp/io/simulation3d.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "perp/io/scene3d.hpp"

namespace perp::io_simulation3d_test {
namespace {

std::vector<std::string> lines_of(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// A ball dropped onto a slope for 10 steps: the four CSVs with the issue's columns, one trajectory
// row a step plus the initial state, and the run's record.
TEST(Simulation3d, WritesTheFourCsvsWithTheirColumns) {
  const contact3d::Scene scene = parse_scene3d_json(R"({"dimension": 3, "gravity": [0, 0, -9.81],
    "timestep": 0.01, "duration": 0.1, "restitution": 0, "friction": 0.3,
    "planes": [{"name": "slope", "point": [0, 0, 0], "normal": [-0.3, 0, 1]}],
    "bodies": [{"name": "ball", "shape": {"type": "sphere", "radius": 0.1}, "mass": 1, "position": [0, 0, 0.11]}]})");
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("perp_sim3d_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  Simulation3dRecord record;
  {
    StagedFiles files(dir);
    long calls = 0;
    record = write_simulation3d(scene, files, [&](long done, long total) {
      ++calls;
      EXPECT_EQ(done, calls);
      EXPECT_EQ(total, 10);
    });
    files.commit();
    EXPECT_EQ(calls, 10);
  }
  EXPECT_EQ(record.steps, 10);
  EXPECT_EQ(record.unsolved, 0);
  EXPECT_EQ(record.most_contacts, 1u);
  const std::vector<std::string> trajectory = lines_of(dir / "trajectory.csv");
  ASSERT_EQ(trajectory.size(), 12u);
  EXPECT_EQ(trajectory[0],
            "t,ball.x,ball.y,ball.z,ball.qw,ball.qx,ball.qy,ball.qz,ball.vx,ball.vy,ball.vz,ball.wx,ball.wy,ball.wz");
  EXPECT_EQ(trajectory[1], "0,0,0,0.11,1,0,0,0,0,0,0,0,0,0");
  const std::vector<std::string> contacts = lines_of(dir / "contacts.csv");
  ASSERT_GE(contacts.size(), 2u);
  EXPECT_EQ(contacts[0], "t,body_a,body_b,feature,x,y,z,nx,ny,nz,gap,normal_impulse,tangent1_impulse,tangent2_impulse");
  EXPECT_EQ(contacts[1].substr(contacts[1].find(',') + 1, 13), "ball,slope,0,");
  const std::vector<std::string> energy = lines_of(dir / "energy.csv");
  ASSERT_EQ(energy.size(), 12u);
  EXPECT_EQ(energy[0], "t,kinetic,potential,total");
  const std::vector<std::string> steps = lines_of(dir / "steps.csv");
  ASSERT_EQ(steps.size(), 11u);
  EXPECT_EQ(steps[0],
            "step,t,contacts,status,method,iterations,residual,signorini,coulomb,complementarity,dissipation,"
            "warm_started,solve_ms,step_ms,fallback");
  // A ball on a slope: every step solved by auto's chain itself, so no row names a fallback (the
  // column is empty, the row ends in its comma).
  for (std::size_t row = 1; row < steps.size(); ++row) EXPECT_EQ(steps[row].back(), ',') << steps[row];
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace perp::io_simulation3d_test
