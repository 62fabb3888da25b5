#include "perp/io/simulation.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "perp/core/error.hpp"
#include "perp/io/scene.hpp"

namespace perp::io_simulation_test {
namespace {

using ::testing::HasSubstr;

/// A fresh folder under the test's temporary directory.
std::filesystem::path scratch(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("perp_simulation_test_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

std::vector<std::vector<std::string>> read_csv(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::vector<std::vector<std::string>> rows;
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> row;
    std::stringstream fields(line);
    std::string field;
    while (std::getline(fields, field, ',')) row.push_back(field);
    rows.push_back(row);
  }
  return rows;
}

// A ball dropped from y = 1 (radius 0.1) onto the ground, plastic impact: 0.5 s of 1 ms steps.
contact::Scene falling_ball(double duration = 0.5) {
  contact::Scene scene = parse_scene_json(R"({"gravity": [0, -10], "timestep": 0.001, "duration": 0.5,
    "restitution": 0, "friction": 0, "ground": {"height": 0},
    "bodies": [{"name": "ball", "shape": {"type": "disk", "radius": 0.1}, "mass": 2, "position": [0, 1]}]})");
  scene.duration = duration;
  return scene;
}

TEST(SimulationOutput, CsvFieldsAndNumbers) {
  EXPECT_EQ(csv_field("ball"), "ball");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  // Formula injection: a leading =, +, -, @, tab or CR is neutralized by an apostrophe.
  EXPECT_EQ(csv_field("=1+2"), "'=1+2");
  EXPECT_EQ(csv_field("+x.vx"), "'+x.vx");
  EXPECT_EQ(csv_field("-d"), "'-d");
  EXPECT_EQ(csv_field("@SUM(A1)"), "'@SUM(A1)");
  EXPECT_EQ(csv_field("=HYPERLINK(\"a\",b)"), "\"'=HYPERLINK(\"\"a\"\",b)\"");
  EXPECT_EQ(csv_field("a=b"), "a=b");
  EXPECT_EQ(csv_number(-0.0), "0");
  EXPECT_EQ(csv_number(0.1), "0.1");
  EXPECT_EQ(csv_number(1.0 / 3.0), "0.333333333333");
}

TEST(SimulationOutput, WritesTheCsvsOnlyOnCommit) {
  const std::filesystem::path dir = scratch("commit");
  {
    StagedFiles files(dir);
    const SimulationRecord record = write_simulation(falling_ball(), files);
    EXPECT_EQ(record.steps, 500);
    for (const char* name : kSimulationCsvFiles) EXPECT_FALSE(std::filesystem::exists(dir / name)) << name;
    files.commit();
  }
  for (const char* name : kSimulationCsvFiles) EXPECT_TRUE(std::filesystem::exists(dir / name)) << name;
  // Uncommitted: the temporaries are removed, the committed files stay as they were.
  const auto before = std::filesystem::file_size(dir / "trajectory.csv");
  {
    StagedFiles files(dir);
    (void)write_simulation(falling_ball(0.1), files);
  }
  EXPECT_EQ(std::filesystem::file_size(dir / "trajectory.csv"), before);
  std::size_t entries = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) entries += entry.is_regular_file() ? 1 : 0;
  EXPECT_EQ(entries, kSimulationCsvFiles.size());
  std::filesystem::remove_all(dir);
}

// Energy bookkeeping against the free fall: until the ball lands (at t = sqrt(2 · 0.9 / 10) =
// 0.424 s) θ = ½ conserves kinetic + potential exactly, the potential is m g y; after the plastic
// impact the dissipated energy is the kinetic energy lost, m g · 0.9 up to one step.
TEST(SimulationOutput, EnergyBookkeeping) {
  const std::filesystem::path dir = scratch("energy");
  StagedFiles files(dir);
  const SimulationRecord record = write_simulation(falling_ball(), files);
  files.commit();
  EXPECT_DOUBLE_EQ(record.initial_energy.potential, 2 * 10 * 1.0);
  EXPECT_DOUBLE_EQ(record.initial_energy.kinetic, 0);
  const auto rows = read_csv(dir / "energy.csv");
  ASSERT_EQ(rows.size(), 502u);  // header, t = 0, 500 steps
  EXPECT_EQ(rows[0], (std::vector<std::string>{"t", "kinetic", "potential", "total", "dissipated"}));
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const double t = std::stod(rows[r][0]);
    const double kinetic = std::stod(rows[r][1]);
    const double potential = std::stod(rows[r][2]);
    EXPECT_NEAR(std::stod(rows[r][3]), kinetic + potential, 1e-10);
    EXPECT_NEAR(std::stod(rows[r][4]), 20 - kinetic - potential, 1e-10);
    if (t < 0.4) {
      EXPECT_NEAR(kinetic + potential, 20, 1e-9) << "t = " << t;
    }
  }
  const double dissipated = std::stod(rows.back()[4]);
  EXPECT_NEAR(dissipated, 2 * 10 * 0.9, 2 * 10 * 0.01);  // resting at y = 0.1, within 1 cm
  EXPECT_NEAR(record.last_energy, std::stod(rows.back()[3]), 1e-9);
  std::filesystem::remove_all(dir);
}

// Frames: every stride-th step, the stride doubling when 2 · capacity are kept, the last step
// always kept, each frame's time and pose a row of trajectory.csv.
TEST(SimulationOutput, FramesAreEvenlyDecimatedAndMatchTheTrajectory) {
  const std::filesystem::path dir = scratch("frames");
  StagedFiles files(dir);
  const SimulationRecord record = write_simulation(falling_ball(), files, {.frame_capacity = 10});
  files.commit();
  // 501 states, capacity 10: at most 20 kept; strides 1, 2, 4, … until 500 / stride < 20: 32.
  EXPECT_EQ(record.frame_stride, 32);
  ASSERT_EQ(record.frames.size(), 500 / 32 + 1 + 1u);  // steps 0, 32, …, 480 and the last, 500
  EXPECT_TRUE(record.decimated());
  for (std::size_t i = 0; i + 1 < record.frames.size(); ++i) EXPECT_EQ(record.frames[i].step, 32 * static_cast<long>(i));
  EXPECT_EQ(record.frames.back().step, 500);
  const auto rows = read_csv(dir / "trajectory.csv");
  for (const SimulationFrame& frame : record.frames) {
    const auto& row = rows[static_cast<std::size_t>(frame.step) + 1];
    EXPECT_EQ(csv_number(frame.t), row[0]);
    EXPECT_EQ(csv_number(frame.state[0]), row[1]);
    EXPECT_EQ(csv_number(frame.state[1]), row[2]);
    EXPECT_EQ(csv_number(frame.state[2]), row[3]);
  }
  // Resting on the ground at the end: one contact carrying m g h = 0.02 N·s upwards.
  const SimulationFrame& last = record.frames.back();
  ASSERT_EQ(last.contacts.size(), 1u);
  EXPECT_NEAR(last.contacts[0].y, 0, 1e-3);
  EXPECT_NEAR(last.contacts[0].impulse_x, 0, 1e-12);
  EXPECT_NEAR(last.contacts[0].impulse_y, 2 * 10 * 0.001, 1e-9);
  // Every step counted once, by its method: free flight has no contact ("none").
  long counted = 0;
  for (const auto& [method, count] : record.steps_by_method) counted += count;
  EXPECT_EQ(counted, 500);
  EXPECT_GT(record.steps_by_method.at("none"), 400);  // the fall lasts 0.424 s of the 0.5
  EXPECT_EQ(record.fallbacks, 0);
  EXPECT_LE(record.deepest_overlap, 0);
  EXPECT_GE(record.deepest_overlap_step, 0);
  std::filesystem::remove_all(dir);
}

TEST(SimulationOutput, AFullRunKeepsEveryFrame) {
  const std::filesystem::path dir = scratch("full");
  StagedFiles files(dir);
  const SimulationRecord record = write_simulation(falling_ball(0.05), files);
  EXPECT_EQ(record.frames.size(), 51u);
  EXPECT_FALSE(record.decimated());
  std::filesystem::remove_all(dir);
}

TEST(SimulationOutput, NonFiniteValuesAreRefusedNamingTheQuantity) {
  contact::Scene scene = falling_ball();
  scene.options.timestep = 1e153;
  scene.duration = 5e153;
  scene.world.bodies[0].velocity = Eigen::Vector2d(0, 1e152);
  const std::filesystem::path dir = scratch("overflow");
  StagedFiles files(dir);
  try {
    (void)write_simulation(scene, files);
    ADD_FAILURE() << "no error";
  } catch (const InvalidProblem& e) {
    EXPECT_THAT(e.what(), HasSubstr("at t = 2e+153 s, the potential energy is -inf"));
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace perp::io_simulation_test
