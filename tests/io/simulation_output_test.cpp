// What `perp simulate` writes as asked: every K-th state (--every), the contacts on request
// (--contacts), simulation.h5 holding the CSVs' values (--format), for the planar and the 3D run.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "perp/core/error.hpp"
#include "perp/io/hdf5.hpp"
#include "perp/io/scene.hpp"
#include "perp/io/scene3d.hpp"
#include "perp/io/simulation.hpp"
#include "perp/io/simulation3d.hpp"
#include "perp/io/viewer.hpp"

namespace perp::io_simulation_output_test {
namespace {

using ::testing::HasSubstr;

std::filesystem::path scratch(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("perp_simulation_output_test_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

// RFC 4180 fields (the names here hold no quotes): a header and rows.
std::vector<std::vector<std::string>> read_csv(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> row;
    std::stringstream fields(line);
    for (std::string field; std::getline(fields, field, ',');) row.push_back(field);
    if (!line.empty() && line.back() == ',') row.emplace_back();
    rows.push_back(row);
  }
  return rows;
}

// A ball dropped from y = 1 (radius 0.1) beside a box on the ground, 1 ms steps for 0.5 s: 500
// steps, contacts from the first (the box) and the ball's from t ≈ 0.4 s.
contact::Scene ball_and_box() {
  return parse_scene_json(R"({"gravity": [0, -10], "timestep": 0.001, "duration": 0.5,
    "restitution": 0, "friction": 0.3, "ground": {"height": 0},
    "planes": [{"name": "wall", "point": [3, 0], "normal": [-1, 0]}],
    "bodies": [{"name": "ball", "shape": {"type": "disk", "radius": 0.1}, "mass": 2, "position": [0, 1]},
               {"name": "box", "shape": {"type": "box", "width": 1, "height": 0.5}, "mass": 1,
                "position": [1.5, 0.25]}]})");
}

contact3d::Scene ball_on_slope() {
  return parse_scene3d_json(R"({"dimension": 3, "gravity": [0, 0, -9.81],
    "timestep": 0.01, "duration": 0.25, "restitution": 0, "friction": 0.3,
    "planes": [{"name": "slope", "point": [0, 0, 0], "normal": [-0.3, 0, 1]}],
    "bodies": [{"name": "ball", "shape": {"type": "sphere", "radius": 0.1}, "mass": 1, "position": [0, 0, 0.11]}]})");
}

// The times a run of `steps` steps of `h` records with --every `every`: k·h for k = 0, K, 2K, …
// and the last step.
std::vector<double> recorded_times(long steps, long every, double h) {
  std::vector<double> t;
  for (long k = 0; k <= steps; ++k) {
    if (k % every == 0 || k == steps) t.push_back(static_cast<double>(k) * h);
  }
  return t;
}

// The CSV's numbers hold 12 significant digits: equal within half a unit of the 12th.
void expect_csv_number(const std::string& text, double value, const std::string& where) {
  EXPECT_NEAR(std::stod(text), value, 5e-12 * std::max(1.0, std::abs(value))) << where;
}

TEST(SimulationOutput, EveryKRecordsTheKthStatesAndTheLastWithEveryStepInStepsCsv) {
  const std::filesystem::path dir = scratch("every");
  SimulationRecord record;
  {
    StagedFiles files(dir);
    record = write_simulation(ball_and_box(), files, {.every = 7});
    files.commit();
  }
  // 500 steps: 0, 7, …, 497 (72 states) and 500.
  const std::vector<double> expected = recorded_times(500, 7, 0.001);
  ASSERT_EQ(expected.size(), 73u);
  const auto trajectory = read_csv(dir / "trajectory.csv");
  const auto energy = read_csv(dir / "energy.csv");
  ASSERT_EQ(trajectory.size(), 1 + expected.size());
  ASSERT_EQ(energy.size(), 1 + expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    expect_csv_number(trajectory[1 + i][0], expected[i], "trajectory row " + std::to_string(i));
    EXPECT_EQ(energy[1 + i][0], trajectory[1 + i][0]);
  }
  EXPECT_EQ(trajectory[2][0], "0.007");
  EXPECT_EQ(trajectory.back()[0], "0.5");
  // Before the ball lands (t < 0.4 s) it falls freely: y = 1 − 5 t², exactly for θ = ½ up to
  // rounding (the trapezoidal position update is exact for a constant acceleration). Row 11 is
  // step 70, t = 0.07 s.
  EXPECT_EQ(trajectory[11][0], "0.07");
  expect_csv_number(trajectory[11][1], 0.0, "ball.x");
  EXPECT_NEAR(std::stod(trajectory[11][2]), 1 - 5 * 0.07 * 0.07, 1e-9);
  const auto steps = read_csv(dir / "steps.csv");
  ASSERT_EQ(steps.size(), 501u);
  EXPECT_EQ(steps[1][0], "0");
  EXPECT_EQ(steps[500][0], "499");
  // The viewer's frames are among the recorded states.
  EXPECT_EQ(record.every, 7);
  EXPECT_EQ(record.frame_stride % 7, 0);
  for (const SimulationFrame& frame : record.frames) {
    EXPECT_TRUE(frame.step % 7 == 0 || frame.step == 500) << frame.step;
  }
  EXPECT_EQ(record.frames.back().step, 500);
  // The viewer's page says which steps the trajectory holds.
  const std::filesystem::path page = dir / "view.html";
  write_viewer_html(page, ball_and_box(), record, "every 7");
  std::ifstream in(page);
  const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_THAT(html, HasSubstr("\"every\":7,"));
  EXPECT_THAT(html, HasSubstr("\"step\":[0,7,14,"));
  std::filesystem::remove_all(dir);
}

TEST(SimulationOutput, ContactsOnlyOnRequest) {
  const std::filesystem::path plain = scratch("no_contacts");
  const std::filesystem::path asked = scratch("contacts");
  {
    StagedFiles files(plain);
    (void)write_simulation(ball_and_box(), files, {.format = SimulationFormat::Both});
    files.commit();
    StagedFiles with(asked);
    (void)write_simulation(ball_and_box(), with, {.contacts = true, .format = SimulationFormat::Both});
    with.commit();
  }
  EXPECT_FALSE(std::filesystem::exists(plain / "contacts.csv"));
  EXPECT_TRUE(std::filesystem::exists(plain / "trajectory.csv"));
  const Hdf5Contents without = read_hdf5(plain / kSimulationHdf5File);
  EXPECT_EQ(without.datasets.count("contacts/t"), 0u);
  EXPECT_EQ(without.datasets.count("trajectory/state"), 1u);
  const auto contacts = read_csv(asked / "contacts.csv");
  ASSERT_GE(contacts.size(), 2u);
  EXPECT_EQ(contacts[1][1], "box");
  EXPECT_EQ(contacts[1][2], "ground");
  EXPECT_EQ(read_hdf5(asked / kSimulationHdf5File).datasets.count("contacts/t"), 1u);
  std::filesystem::remove_all(plain);
  std::filesystem::remove_all(asked);
}

// Every column of every CSV equals its dataset in simulation.h5 (to the CSV's 12 digits; texts
// and integers exactly; a contact's sides by their index into contacts/surfaces).
void expect_hdf5_holds_the_csvs(const std::filesystem::path& dir, std::size_t fields) {
  const Hdf5Contents h5 = read_hdf5(dir / kSimulationHdf5File);
  EXPECT_EQ(h5.texts.at("format"), "perp simulation");
  const auto trajectory = read_csv(dir / "trajectory.csv");
  const Hdf5Dataset& t = h5.datasets.at("trajectory/t");
  const Hdf5Dataset& state = h5.datasets.at("trajectory/state");
  const std::vector<std::string>& bodies = h5.datasets.at("trajectory/bodies").texts;
  const std::vector<std::string>& names = h5.datasets.at("trajectory/fields").texts;
  ASSERT_EQ(names.size(), fields);
  ASSERT_EQ(t.shape, (std::vector<std::size_t>{trajectory.size() - 1}));
  ASSERT_EQ(state.shape, (std::vector<std::size_t>{trajectory.size() - 1, bodies.size(), fields}));
  for (std::size_t b = 0; b < bodies.size(); ++b) {
    for (std::size_t f = 0; f < fields; ++f) EXPECT_EQ(trajectory[0][1 + b * fields + f], bodies[b] + "." + names[f]);
  }
  for (std::size_t i = 1; i < trajectory.size(); ++i) {
    expect_csv_number(trajectory[i][0], t.reals[i - 1], "t");
    for (std::size_t k = 0; k < bodies.size() * fields; ++k) {
      expect_csv_number(trajectory[i][1 + k], state.reals[(i - 1) * bodies.size() * fields + k],
                        "trajectory row " + std::to_string(i) + " column " + std::to_string(k + 1));
    }
  }
  for (const char* table : {"energy", "steps", "contacts"}) {
    const auto rows = read_csv(dir / (std::string(table) + ".csv"));
    ASSERT_GE(rows.size(), 2u) << table;
    const std::vector<std::string>* surfaces =
        h5.datasets.count("contacts/surfaces") > 0 ? &h5.datasets.at("contacts/surfaces").texts : nullptr;
    for (std::size_t c = 0; c < rows[0].size(); ++c) {
      const std::string name = std::string(table) + "/" + rows[0][c];
      ASSERT_EQ(h5.datasets.count(name), 1u) << name;
      const Hdf5Dataset& column = h5.datasets.at(name);
      ASSERT_EQ(column.shape, (std::vector<std::size_t>{rows.size() - 1})) << name;
      for (std::size_t i = 1; i < rows.size(); ++i) {
        const std::string& text = i < rows.size() && c < rows[i].size() ? rows[i][c] : std::string();
        const std::string where = name + " row " + std::to_string(i);
        switch (column.kind) {
          case Hdf5Dataset::Kind::Real: expect_csv_number(text, column.reals[i - 1], where); break;
          case Hdf5Dataset::Kind::Integer:
            if (std::string(table) == "contacts" && (rows[0][c] == "body_a" || rows[0][c] == "body_b")) {
              ASSERT_NE(surfaces, nullptr);
              EXPECT_EQ(text, surfaces->at(static_cast<std::size_t>(column.integers[i - 1]))) << where;
            } else {
              EXPECT_EQ(text, std::to_string(column.integers[i - 1])) << where;
            }
            break;
          case Hdf5Dataset::Kind::Text: EXPECT_EQ(text, column.texts[i - 1]) << where; break;
        }
      }
    }
  }
}

TEST(SimulationOutput, Hdf5HoldsTheCsvValues) {
  const std::filesystem::path dir = scratch("both");
  {
    StagedFiles files(dir);
    (void)write_simulation(ball_and_box(), files, {.every = 3, .contacts = true, .format = SimulationFormat::Both});
    files.commit();
  }
  expect_hdf5_holds_the_csvs(dir, 6);
  const Hdf5Contents h5 = read_hdf5(dir / kSimulationHdf5File);
  EXPECT_EQ(h5.numbers.at("dimension"), 2);
  EXPECT_EQ(h5.numbers.at("every"), 3);
  EXPECT_EQ(h5.numbers.at("timestep"), 0.001);
  EXPECT_EQ(h5.datasets.at("contacts/surfaces").texts, (std::vector<std::string>{"ball", "box", "ground", "wall"}));
  EXPECT_EQ(h5.datasets.at("steps/step").shape, (std::vector<std::size_t>{500}));
  EXPECT_EQ(h5.datasets.at("trajectory/t").shape, (std::vector<std::size_t>{recorded_times(500, 3, 0.001).size()}));
  std::filesystem::remove_all(dir);
}

TEST(SimulationOutput, Hdf5AloneWritesNoCsv) {
  const std::filesystem::path dir = scratch("hdf5");
  {
    StagedFiles files(dir);
    (void)write_simulation(ball_and_box(), files, {.format = SimulationFormat::Hdf5});
    files.commit();
  }
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  EXPECT_EQ(names, (std::vector<std::string>{"simulation.h5"}));
  std::filesystem::remove_all(dir);
}

TEST(SimulationOutput, Simulation3dEveryKAndHdf5HoldTheCsvValues) {
  const std::filesystem::path dir = scratch("3d");
  {
    StagedFiles files(dir);
    (void)write_simulation3d(ball_on_slope(), files,
                             SimulationOutputOptions{.every = 4, .contacts = true, .format = SimulationFormat::Both});
    files.commit();
  }
  // 25 steps: 0, 4, …, 24 and 25.
  const std::vector<double> expected = recorded_times(25, 4, 0.01);
  const auto trajectory = read_csv(dir / "trajectory.csv");
  ASSERT_EQ(trajectory.size(), 1 + expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) expect_csv_number(trajectory[1 + i][0], expected[i], "t");
  EXPECT_EQ(read_csv(dir / "steps.csv").size(), 26u);
  expect_hdf5_holds_the_csvs(dir, 13);
  const Hdf5Contents h5 = read_hdf5(dir / kSimulationHdf5File);
  EXPECT_EQ(h5.numbers.at("dimension"), 3);
  EXPECT_EQ(h5.datasets.at("contacts/surfaces").texts, (std::vector<std::string>{"ball", "ground", "slope"}));
  std::filesystem::remove_all(dir);
}

TEST(SimulationOutput, BadEveryAndFormatAreRefusedNamingTheValue) {
  const std::filesystem::path dir = scratch("bad");
  StagedFiles files(dir);
  try {
    (void)write_simulation(ball_and_box(), files, {.every = 0});
    ADD_FAILURE() << "every 0 was taken";
  } catch (const InvalidProblem& e) {
    EXPECT_THAT(e.what(), HasSubstr("got 0"));
  }
  EXPECT_EQ(simulation_format_from_name("hdf5"), SimulationFormat::Hdf5);
  EXPECT_EQ(simulation_format_from_name("both"), SimulationFormat::Both);
  EXPECT_EQ(simulation_format_from_name("csv"), SimulationFormat::Csv);
  try {
    (void)simulation_format_from_name("xyz");
    ADD_FAILURE() << "format xyz was taken";
  } catch (const InvalidProblem& e) {
    EXPECT_THAT(e.what(), HasSubstr("--format xyz: expected csv, hdf5 or both"));
  }
}

}  // namespace
}  // namespace perp::io_simulation_output_test
