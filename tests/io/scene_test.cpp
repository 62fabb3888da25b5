#include "perp/io/scene.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "perp/core/error.hpp"
#include "perp/solvers/method.hpp"

namespace perp::io_scene_test {
namespace {

using ::testing::HasSubstr;

// The issue's schema example, every field shown.
const std::string kFullScene = R"({"gravity": [0, -9.81], "timestep": 0.001, "duration": 2.0, "theta": 0.5,
 "restitution": 0.5, "friction": 0.3, "ground": {"height": 0.0},
 "bodies": [{"name": "ball", "shape": {"type": "disk", "radius": 0.1}, "mass": 1.0,
             "inertia": 0.005, "position": [0.0, 1.0], "angle": 0.0,
             "velocity": [0.0, 0.0], "angular_velocity": 0.0}]})";

std::string error_of(const std::string& text) {
  try {
    (void)parse_scene_json(text, "scene.json");
  } catch (const InvalidProblem& e) {
    return e.what();
  }
  return "no error";
}

/// kFullScene with `from` replaced by `to` (once).
std::string edited(const std::string& from, const std::string& to) {
  std::string text = kFullScene;
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(Scene, ParsesEveryField) {
  const contact::Scene scene = parse_scene_json(kFullScene);
  EXPECT_DOUBLE_EQ(scene.options.gravity.y(), -9.81);
  EXPECT_DOUBLE_EQ(scene.options.timestep, 0.001);
  EXPECT_DOUBLE_EQ(scene.duration, 2.0);
  EXPECT_EQ(scene.step_count(), 2000);
  EXPECT_DOUBLE_EQ(scene.options.restitution, 0.5);
  EXPECT_DOUBLE_EQ(scene.options.friction, 0.3);
  ASSERT_TRUE(scene.world.ground.has_value());
  ASSERT_EQ(scene.world.bodies.size(), 1u);
  const contact::Body& ball = scene.world.bodies[0];
  EXPECT_EQ(ball.name, "ball");
  EXPECT_DOUBLE_EQ(std::get<contact::Disk>(ball.shape).radius, 0.1);
  EXPECT_DOUBLE_EQ(ball.moment_of_inertia(), 0.005);
  EXPECT_DOUBLE_EQ(ball.position.y(), 1.0);
}

TEST(Scene, ReadsAppliedForceAndTorque) {
  const contact::Scene scene =
      parse_scene_json(edited(R"("angular_velocity": 0.0)", R"("angular_velocity": 0.0, "force": [2, -3], "torque": 0.5)"));
  const contact::Body& ball = scene.world.bodies[0];
  EXPECT_EQ(ball.force, Eigen::Vector2d(2, -3));
  EXPECT_DOUBLE_EQ(ball.torque, 0.5);
  EXPECT_EQ(parse_scene_json(kFullScene).world.bodies[0].force, Eigen::Vector2d::Zero());
  EXPECT_THAT(error_of(edited(R"("angular_velocity": 0.0)", R"("angular_velocity": 0.0, "force": [1])")),
              HasSubstr("bodies[0].force"));
  EXPECT_THAT(error_of(edited(R"("angular_velocity": 0.0)", R"("angular_velocity": 0.0, "torque": "x")")),
              HasSubstr("bodies[0].torque"));
}

TEST(Scene, OptionalFieldsTakeTheirDefaults) {
  const contact::Scene scene = parse_scene_json(R"({"gravity": [0, -10], "timestep": 0.01, "duration": 1,
    "restitution": 0, "friction": 0, "bodies": [
      {"name": "b", "shape": {"type": "box", "width": 2, "height": 1}, "mass": 3, "position": [0, 5]},
      {"name": "r", "shape": {"type": "rod", "length": 2}, "mass": 3, "position": [4, 5]}]})");
  EXPECT_DOUBLE_EQ(scene.options.theta, 0.5);
  EXPECT_FALSE(scene.world.ground.has_value());
  EXPECT_DOUBLE_EQ(scene.world.bodies[0].moment_of_inertia(), 3.0 * 5 / 12);
  EXPECT_DOUBLE_EQ(scene.world.bodies[1].moment_of_inertia(), 1.0);
  EXPECT_DOUBLE_EQ(scene.world.bodies[0].angle, 0);
  EXPECT_EQ(scene.options.friction_model, contact::FrictionModel::Coulomb);
  EXPECT_EQ(scene.step_count(), 100);
}

TEST(Scene, PlanesFixedBodiesMaterialsAndSolverOptions) {
  const contact::Scene scene = parse_scene_json(R"({"gravity": [0, -10], "timestep": 0.01, "duration": 1,
    "restitution": 0.1, "friction": 0.5, "tolerance": 1e-7, "solver": "nsgs",
    "planes": [{"name": "left", "point": [-2, 0], "normal": [1, 0], "friction": 0.2},
               {"point": [0, 0], "normal": [-0.5, 2], "restitution": 0.9}],
    "bodies": [
      {"name": "shelf", "shape": {"type": "box", "width": 2, "height": 0.1}, "mass": 1, "position": [0, 2],
       "fixed": true},
      {"name": "ball", "shape": {"type": "disk", "radius": 0.1}, "mass": 1, "position": [0, 3],
       "friction": 0.7, "restitution": 0.3}]})");
  ASSERT_EQ(scene.world.planes.size(), 2u);
  EXPECT_EQ(scene.world.planes[0].name, "left");
  EXPECT_EQ(scene.world.planes[0].point, Eigen::Vector2d(-2, 0));
  EXPECT_EQ(scene.world.planes[0].friction, 0.2);
  EXPECT_FALSE(scene.world.planes[0].restitution.has_value());
  EXPECT_EQ(scene.world.planes[1].name, "");
  EXPECT_NEAR(scene.world.planes[1].unit_normal().norm(), 1, 1e-15);
  EXPECT_EQ(scene.world.planes[1].restitution, 0.9);
  EXPECT_TRUE(scene.world.bodies[0].fixed);
  EXPECT_FALSE(scene.world.bodies[1].fixed);
  EXPECT_EQ(scene.world.bodies[1].friction, 0.7);
  EXPECT_EQ(scene.world.bodies[1].restitution, 0.3);
  EXPECT_FALSE(scene.world.bodies[0].friction.has_value());
  EXPECT_EQ(scene.options.solve.tolerance, 1e-7);
  EXPECT_EQ(scene.options.method, Method::Nsgs);

  const std::string base = R"({"gravity": [0, -10], "timestep": 0.01, "duration": 1, "restitution": 0,
    "friction": 0, "bodies": [], )";
  auto error_with = [&](const std::string& tail) { return error_of(base + tail + "}"); };
  EXPECT_THAT(error_with(R"("planes": [{"point": [0, 0], "normal": [0, 0]}])"),
              HasSubstr("planes[0].normal must be a non-zero vector"));
  EXPECT_THAT(error_with(R"("planes": [{"point": [0, 0]}])"), HasSubstr("missing key \"planes[0].normal\""));
  EXPECT_THAT(error_with(R"("planes": [{"point": [0, 0], "normal": [0, 1], "slope": 1}])"),
              HasSubstr("unknown key \"planes[0].slope\""));
  EXPECT_THAT(error_with(R"("planes": [{"point": [0, 0], "normal": [0, 1], "friction": -1}])"),
              HasSubstr("planes[0].friction must be >= 0"));
  EXPECT_THAT(error_with(R"("planes": {"point": [0, 0]})"), HasSubstr("planes must be an array"));
  EXPECT_THAT(error_with(R"("solver": "fastest")"), HasSubstr("solver: "));
  EXPECT_THAT(error_with(R"("tolerance": 0)"), HasSubstr("tolerance must be > 0"));
  EXPECT_THAT(error_of(edited(R"("angular_velocity": 0.0)", R"("angular_velocity": 0.0, "fixed": 1)")),
              HasSubstr("bodies[0].fixed must be true or false"));
  EXPECT_THAT(error_of(edited(R"("angular_velocity": 0.0)", R"("angular_velocity": 0.0, "restitution": 2)")),
              HasSubstr("bodies[0].restitution must be in [0, 1]"));
}

TEST(Scene, UnknownKeysAreRefusedByName) {
  EXPECT_THAT(error_of(edited("\"theta\"", "\"thetta\"")), HasSubstr("unknown key \"thetta\""));
  EXPECT_THAT(error_of(edited("\"inertia\"", "\"inertai\"")), HasSubstr("unknown key \"bodies[0].inertai\""));
  EXPECT_THAT(error_of(edited("\"radius\"", "\"radus\"")), HasSubstr("unknown key \"bodies[0].shape.radus\""));
  EXPECT_THAT(error_of(edited("\"height\": 0.0", "\"level\": 0.0")), HasSubstr("unknown key \"ground.level\""));
  // A key of another shape is unknown to this one.
  EXPECT_THAT(error_of(edited("\"radius\"", "\"width\"")), HasSubstr("unknown key \"bodies[0].shape.width\""));
}

TEST(Scene, BadValuesAreRefusedByName) {
  EXPECT_THAT(error_of(edited("\"mass\": 1.0", "\"mass\": -1")), HasSubstr("bodies[0].mass must be > 0"));
  EXPECT_THAT(error_of(edited("\"radius\": 0.1", "\"radius\": 0")), HasSubstr("bodies[0].shape.radius must be > 0"));
  EXPECT_THAT(error_of(edited("\"timestep\": 0.001", "\"timestep\": \"fast\"")),
              HasSubstr("timestep must be a number, got string"));
  EXPECT_THAT(error_of(edited("\"theta\": 0.5", "\"theta\": 0.2")), HasSubstr("theta must be in [0.5, 1]"));
  EXPECT_THAT(error_of(edited("\"restitution\": 0.5", "\"restitution\": 1.5")), HasSubstr("restitution must be in"));
  EXPECT_THAT(error_of(edited("\"friction\": 0.3", "\"friction\": -0.3")), HasSubstr("friction must be >= 0"));
  EXPECT_THAT(error_of(edited("\"position\": [0.0, 1.0]", "\"position\": [0.0]")),
              HasSubstr("bodies[0].position must be an array of 2 numbers"));
  EXPECT_THAT(error_of(edited("\"velocity\": [0.0, 0.0]", "\"velocity\": [0.0, true]")),
              HasSubstr("bodies[0].velocity[1] must be a number"));
  EXPECT_THAT(error_of(edited("\"type\": \"disk\"", "\"type\": \"sphere\"")),
              HasSubstr("bodies[0].shape.type must be \"disk\", \"box\" or \"rod\""));
  EXPECT_THAT(error_of(edited("\"duration\": 2.0", "\"duration\": 0")), HasSubstr("duration must be > 0"));
  EXPECT_THAT(error_of(edited("\"name\": \"ball\"", "\"name\": \"\"")), HasSubstr("bodies[0].name must be"));
  EXPECT_THAT(error_of(edited("\"duration\": 2.0", "\"duration\": 1e300")), HasSubstr("over 1e9 steps"));
  EXPECT_THAT(error_of(edited("\"inertia\": 0.005", "\"inertia\": 1e999")), HasSubstr("malformed JSON"));
}

// Issue 15: finite values whose derived quantities overflow are refused at read time with their
// key path (before, "M(0, 0) is NaN" at the first step or "detect_contacts: margin must be finite").
TEST(Scene, OverflowingMagnitudesAreRefusedByKeyPath) {
  EXPECT_THAT(error_of(edited("\"mass\": 1.0", "\"mass\": 1e-320")),
              HasSubstr("bodies[0].mass = 9.99989e-321 is too small: 1/mass overflows"));
  EXPECT_THAT(error_of(edited("\"velocity\": [0.0, 0.0]", "\"velocity\": [1e300, 0.0]")),
              HasSubstr("bodies[0].velocity: a speed of 1e+300"));
  EXPECT_THAT(error_of(edited("\"inertia\": 0.005", "\"inertia\": 1e-320")), HasSubstr("bodies[0].inertia: the moment of inertia"));
  // Without "inertia", a disk of radius 1e300 has m r²/2 = inf.
  std::string huge_disk = edited("\"radius\": 0.1", "\"radius\": 1e300");
  huge_disk.erase(huge_disk.find("\"inertia\": 0.005, "), 17);
  EXPECT_THAT(error_of(huge_disk), HasSubstr("bodies[0].shape: the moment of inertia inf"));
  std::string heavy_high = edited("\"mass\": 1.0", "\"mass\": 1e10");
  heavy_high.replace(heavy_high.find("\"position\": [0.0, 1.0]"), 22, "\"position\": [0.0, 1e300]");
  EXPECT_THAT(error_of(heavy_high), HasSubstr("bodies[0].position: the potential energy m g y = inf"));
  EXPECT_THAT(error_of(edited("\"timestep\": 0.001", "\"timestep\": 1e300")),
              HasSubstr("timestep = 1e+300: gravity × timestep² = inf overflows"));
}

TEST(Scene, MissingKeysAndBadDocuments) {
  EXPECT_THAT(error_of(R"({"gravity": [0, -9.81]})"), HasSubstr("missing key \"timestep\""));
  EXPECT_THAT(error_of(edited("\"mass\": 1.0,", "")), HasSubstr("missing key \"bodies[0].mass\""));
  EXPECT_THAT(error_of("[1, 2]"), HasSubstr("the scene must be an object"));
  EXPECT_THAT(error_of("{"), HasSubstr("malformed JSON at byte"));
  const std::string twice = edited("\"angular_velocity\": 0.0}]", R"("angular_velocity": 0.0},
    {"name": "ball", "shape": {"type": "disk", "radius": 0.1}, "mass": 1.0, "position": [1.0, 1.0]}])");
  EXPECT_THAT(error_of(twice), HasSubstr("body name \"ball\" is used twice"));
  EXPECT_THAT(error_of(edited("\"friction\": 0.3", "\"friction\": 0.3, \"friction_model\": \"tresca\"")),
              HasSubstr("friction_model must be"));
  EXPECT_THROW((void)read_scene_file("/nonexistent/scene.json"), InvalidProblem);
}

TEST(Scene, FrictionModelOption) {
  const contact::Scene scene =
      parse_scene_json(edited("\"friction\": 0.3", "\"friction\": 0.3, \"friction_model\": \"anitescu-potra\""));
  EXPECT_EQ(scene.options.friction_model, contact::FrictionModel::AnitescuPotra);
  EXPECT_FALSE(scene.options.projection);
  EXPECT_TRUE(
      parse_scene_json(edited("\"friction\": 0.3", "\"friction\": 0.3, \"projection\": true")).options.projection);
  EXPECT_THAT(error_of(edited("\"friction\": 0.3", "\"friction\": 0.3, \"projection\": 1")),
              HasSubstr("projection must be true or false"));
}

// Islands with sleeping: off unless asked; the speed and time below which an island sleeps.
TEST(Scene, SleepingOptions) {
  const contact::Scene plain = parse_scene_json(edited("\"friction\": 0.3", "\"friction\": 0.3"));
  EXPECT_FALSE(plain.options.sleeping);
  const contact::Scene scene = parse_scene_json(
      edited("\"friction\": 0.3", "\"friction\": 0.3, \"sleeping\": true, \"sleep_speed\": 0.02, \"sleep_time\": 0.25"));
  EXPECT_TRUE(scene.options.sleeping);
  EXPECT_DOUBLE_EQ(scene.options.sleep_speed, 0.02);
  EXPECT_DOUBLE_EQ(scene.options.sleep_time, 0.25);
  EXPECT_THAT(error_of(edited("\"friction\": 0.3", "\"friction\": 0.3, \"sleeping\": \"yes\"")),
              HasSubstr("sleeping must be true or false"));
  EXPECT_THAT(error_of(edited("\"friction\": 0.3", "\"friction\": 0.3, \"sleep_speed\": -1")),
              HasSubstr("sleep_speed must be >= 0"));
  EXPECT_THAT(error_of(edited("\"friction\": 0.3", "\"friction\": 0.3, \"sleep_time\": 0")),
              HasSubstr("sleep_time"));
}

// Speculative contacts: off unless asked.
TEST(Scene, SpeculativeOption) {
  EXPECT_FALSE(parse_scene_json(edited("\"friction\": 0.3", "\"friction\": 0.3")).options.speculative);
  EXPECT_TRUE(
      parse_scene_json(edited("\"friction\": 0.3", "\"friction\": 0.3, \"speculative\": true")).options.speculative);
  EXPECT_THAT(error_of(edited("\"friction\": 0.3", "\"friction\": 0.3, \"speculative\": 1")),
              HasSubstr("speculative must be true or false"));
}

TEST(Scene, DensePivotingMaxSize) {
  EXPECT_EQ(parse_scene_json(edited("\"friction\": 0.3", "\"friction\": 0.3")).options.dense_pivoting_max_size, 1000);
  const contact::Scene scene =
      parse_scene_json(edited("\"friction\": 0.3", "\"friction\": 0.3, \"dense_pivoting_max_size\": 20000"));
  EXPECT_EQ(scene.options.dense_pivoting_max_size, 20000);
  EXPECT_THAT(error_of(edited("\"friction\": 0.3", "\"friction\": 0.3, \"dense_pivoting_max_size\": -4")),
              HasSubstr("dense_pivoting_max_size must be an integer >= 0, got -4"));
  EXPECT_THAT(error_of(edited("\"friction\": 0.3", "\"friction\": 0.3, \"dense_pivoting_max_size\": 2.5")),
              HasSubstr("dense_pivoting_max_size must be an integer >= 0, got 2.5"));
}

TEST(Scene, SimulateCallsBackEveryStep) {
  const contact::Scene scene = parse_scene_json(edited("\"duration\": 2.0", "\"duration\": 0.01"));
  long calls = 0;
  double last_time = 0;
  const long unsolved =
      contact::simulate(scene, [&](long, double t, const contact::World&, const contact::StepReport&) {
        ++calls;
        last_time = t;
      });
  EXPECT_EQ(unsolved, 0);
  EXPECT_EQ(calls, 10);
  EXPECT_NEAR(last_time, 0.01, 1e-15);
}

// One spelling per setting (docs/python.md): "method", "tol" and "max_iter"; the old keys "solver"
// and "tolerance" are read for one release, each with a sentence naming the new key.
TEST(Scene, DeprecatedKeysReadAsTheNewOnesWithAWarning) {
  const std::string base = R"({"gravity": [0, -10], "timestep": 0.01, "duration": 1, "restitution": 0,
    "friction": 0, "bodies": [], )";
  std::vector<std::string> notes;
  const contact::Scene fresh = parse_scene_json(base + R"("method": "nsgs", "tol": 1e-7, "max_iter": 50})", "new.json",
                                                &notes);
  EXPECT_TRUE(notes.empty());
  EXPECT_EQ(fresh.options.method, Method::Nsgs);
  EXPECT_EQ(fresh.options.solve.tolerance, 1e-7);
  EXPECT_EQ(fresh.options.solve.max_iterations, 50);
  const contact::Scene old = parse_scene_json(base + R"("solver": "nsgs", "tolerance": 1e-7})", "old.json", &notes);
  ASSERT_EQ(notes.size(), 2U);
  EXPECT_EQ(notes[0], "old.json: the scene key \"solver\" is deprecated; use \"method\" (the old key is read until "
                      "the next release)");
  EXPECT_THAT(notes[1], HasSubstr("old.json: the scene key \"tolerance\" is deprecated; use \"tol\""));
  EXPECT_EQ(old.options.method, Method::Nsgs);
  EXPECT_EQ(old.options.solve.tolerance, 1e-7);
  // Defaults where neither is given: MoreauJeanOptions' (auto, 1e-10, 0).
  const contact::Scene plain = parse_scene_json(base + R"("theta": 0.5})");
  EXPECT_EQ(plain.options.method, Method::Auto);
  EXPECT_EQ(plain.options.solve.tolerance, 1e-10);
  EXPECT_EQ(plain.options.solve.max_iterations, 0);

  EXPECT_THAT(error_of(base + R"("method": "nsgs", "solver": "lemke"})"),
              HasSubstr("\"method\" and its deprecated spelling \"solver\" are both given; keep \"method\""));
  EXPECT_THAT(error_of(base + R"("tol": 1e-8, "tolerance": 1e-8})"),
              HasSubstr("\"tol\" and its deprecated spelling \"tolerance\" are both given"));
  EXPECT_THAT(error_of(base + R"("method": "fastest"})"), HasSubstr("method: "));
  EXPECT_THAT(error_of(base + R"("method": 3})"), HasSubstr("method must be a method name string, got 3"));
  EXPECT_THAT(error_of(base + R"("tol": 0})"), HasSubstr("tol must be > 0, got 0"));
  EXPECT_THAT(error_of(base + R"("max_iter": -1})"), HasSubstr("max_iter must be an integer in [0, 2147483647], got -1"));
  EXPECT_THAT(error_of(base + R"("max_iter": 2.5})"), HasSubstr("max_iter must be an integer"));
  EXPECT_THAT(error_of(base + R"("max_iter": 2147483648})"), HasSubstr("got 2147483648"));

  // Without a list, the sentence is a line on stderr.
  testing::internal::CaptureStderr();
  (void)parse_scene_json(base + R"("solver": "nsgs"})", "old.json");
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "perp: warning: old.json: the scene key \"solver\" is deprecated; use \"method\" (the old key is read "
            "until the next release)\n");
}

}  // namespace
}  // namespace perp::io_scene_test
