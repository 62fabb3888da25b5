#include "perp/io/simulation.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "perp/core/error.hpp"
#include "perp/io/fclib.hpp"
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
    const SimulationRecord record = write_simulation(falling_ball(), files, {.contacts = true});
    EXPECT_EQ(record.steps, 500);
    for (const char* name : kSimulationCsvFiles) EXPECT_FALSE(std::filesystem::exists(dir / name)) << name;
    files.commit();
  }
  for (const char* name : kSimulationCsvFiles) EXPECT_TRUE(std::filesystem::exists(dir / name)) << name;
  // Uncommitted: the temporaries are removed, the committed files stay as they were.
  const auto before = std::filesystem::file_size(dir / "trajectory.csv");
  {
    StagedFiles files(dir);
    (void)write_simulation(falling_ball(0.1), files, {.contacts = true});
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
  scene.options.baumgarte = 0;  // the plain scheme: the split impulse would pull the ball back out
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

TEST(SimulationOutput, StepDumpNames) {
  EXPECT_EQ(step_dump_name(12), "step-00012.hdf5");
  EXPECT_EQ(step_dump_name(123456), "step-123456.hdf5");
  EXPECT_TRUE(is_step_dump_name("step-00012.hdf5"));
  EXPECT_TRUE(is_step_dump_name("step-123456.hdf5"));
  for (const char* name : {"step-.hdf5", "step-12a.hdf5", "step-00012.h5", "trajectory.csv", "xstep-00012.hdf5"}) {
    EXPECT_FALSE(is_step_dump_name(name)) << name;
  }
}

// A block sliding on the ground with friction (μ 0.3), every step dumped: each file holds the step's
// local problem and its impulses as the solution; the problem read back is the step's (W, q, μ) and
// the impulses solve it (criteria recomputed from the file's matrices).
TEST(SimulationOutput, DumpsTheStepsProblemsAsFclibFiles) {
  contact::Scene scene = parse_scene_json(R"({"gravity": [0, -10], "timestep": 0.01, "duration": 0.05,
    "restitution": 0, "friction": 0.3, "ground": {"height": 0},
    "bodies": [{"name": "block", "shape": {"type": "box", "width": 1, "height": 0.5}, "mass": 1,
                "position": [0, 0.25], "velocity": [1, 0]}]})");
  const std::filesystem::path dir = scratch("dump_out");
  const std::filesystem::path dump_dir = scratch("dump");
  {
    StagedFiles files(dir);
    StagedFiles dump(dump_dir, is_step_dump_name);
    const SimulationRecord record =
        write_simulation(scene, files, {.contacts = true, .dump = &dump, .dump_every = 1, .dump_limit = 3});
    EXPECT_EQ(record.unsolved, 0);
    EXPECT_EQ(record.dumped, 3);
    EXPECT_EQ(record.dumps_left_out, 2);
    EXPECT_EQ(record.first_left_out, 3);
    files.commit();
    dump.commit();
  }
  const std::vector<std::vector<std::string>> contacts = read_csv(dir / "contacts.csv");
  for (long step = 0; step < 3; ++step) {
    const std::filesystem::path file = dump_dir / step_dump_name(step);
    ASSERT_TRUE(std::filesystem::exists(file)) << file;
    const FclibFile read = read_fclib(file);
    ASSERT_FALSE(read.global());
    EXPECT_THAT(read.title, HasSubstr("step " + std::to_string(step)));
    EXPECT_THAT(read.description, HasSubstr("status solved"));
    const auto& problem = std::get<FrictionContact>(read.problem);
    ASSERT_EQ(problem.contacts(), 2);
    ASSERT_TRUE(read.solution.has_value());
    EXPECT_TRUE(read.guesses.empty());
    const Eigen::VectorXd r = read.solution->r;
    // The impulses are contacts.csv's (two rows a step, 12 digits).
    for (Eigen::Index k = 0; k < 2; ++k) {
      const std::vector<std::string>& row = contacts[static_cast<std::size_t>(1 + 2 * step + k)];
      EXPECT_NEAR(std::stod(row[6]), r[2 * k], 1e-11);
      EXPECT_NEAR(std::stod(row[7]), r[2 * k + 1], 1e-11);
    }
    // Sliding at 1 m/s: both contacts on the cone's edge, r_T = −μ r_N; u = W r + q with u_N = 0.
    const Eigen::VectorXd u = Eigen::MatrixXd(problem.W) * r + problem.q;
    EXPECT_NEAR((u - read.solution->u).cwiseAbs().maxCoeff(), 0.0, 1e-12);
    for (Eigen::Index k = 0; k < 2; ++k) {
      EXPECT_NEAR(r[2 * k + 1], -0.3 * r[2 * k], 1e-9);
      EXPECT_NEAR(u[2 * k], 0.0, 1e-9);
      EXPECT_GT(u[2 * k + 1], 0.0);
    }
  }
  EXPECT_FALSE(std::filesystem::exists(dump_dir / step_dump_name(3)));
  // An LCP model poses no frictional contact problem: refused before any step, naming it.
  scene.options.friction_model = contact::FrictionModel::StewartTrinkle;
  StagedFiles files(dir);
  StagedFiles dump(dump_dir, is_step_dump_name);
  try {
    (void)write_simulation(scene, files, {.dump = &dump});
    ADD_FAILURE() << "an LCP model was dumped";
  } catch (const InvalidProblem& e) {
    EXPECT_THAT(e.what(), HasSubstr("Coulomb model"));
  }
  // A folder holding something else is refused, as --out.
  std::ofstream(dump_dir / "notes.txt") << "mine";
  EXPECT_THROW(StagedFiles(dump_dir, is_step_dump_name), InvalidProblem);
  std::filesystem::remove_all(dir);
  std::filesystem::remove_all(dump_dir);
}

}  // namespace
}  // namespace perp::io_simulation_test
