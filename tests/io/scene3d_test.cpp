#include "perp/io/scene3d.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "perp/core/error.hpp"
#include "perp/io/scene.hpp"
#include "perp/solvers/method.hpp"

namespace perp::io_scene3d_test {
namespace {

using testing::HasSubstr;

const std::string kScene = R"({"dimension": 3, "gravity": [0, 0, -9.81], "timestep": 0.01, "duration": 0.5,
  "restitution": 0.2, "friction": 0.4, "theta": 0.75, "tolerance": 1e-9, "solver": "nsgs",
  "ground": {"height": -1},
  "planes": [{"name": "wall", "point": [2, 0, 0], "normal": [-2, 0, 0], "friction": 0.1}],
  "bodies": [
    {"name": "ball", "shape": {"type": "sphere", "radius": 0.1}, "mass": 1, "position": [0, 0, 1],
     "velocity": [1, 0, 0], "angular_velocity": [0, 0, 2], "restitution": 0.9},
    {"name": "brick", "shape": {"type": "box", "size": [0.4, 0.2, 0.1]}, "mass": 2, "position": [1, 0, 0],
     "orientation": [0.7071067811865476, 0, 0, 0.7071067811865476], "inertia": [0.1, 0.2, 0.3]},
    {"name": "pill", "shape": {"type": "capsule", "radius": 0.05, "length": 0.3}, "mass": 1, "position": [0, 1, 0]},
    {"name": "can", "shape": {"type": "cylinder", "radius": 0.05, "length": 0.3}, "mass": 1, "position": [0, 2, 0],
     "fixed": true}]})";

std::string error_of(const std::string& text) {
  try {
    (void)parse_scene3d_json(text, "s.json");
  } catch (const InvalidProblem& e) {
    return e.what();
  }
  return "";
}

std::string with(const std::string& from, const std::string& to) {
  std::string text = kScene;
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(Scene3d, ReadsEveryKey) {
  const contact3d::Scene scene = parse_scene3d_json(kScene);
  EXPECT_EQ(scene_dimension(kScene), 3);
  EXPECT_EQ(scene.step_count(), 50);
  EXPECT_EQ(scene.options.gravity, Eigen::Vector3d(0, 0, -9.81));
  EXPECT_EQ(scene.options.theta, 0.75);
  EXPECT_EQ(scene.options.solve.tolerance, 1e-9);
  EXPECT_EQ(scene.options.method, Method::Nsgs);
  ASSERT_TRUE(scene.world.ground);
  EXPECT_EQ(scene.world.ground->height, -1);
  ASSERT_EQ(scene.world.planes.size(), 1u);
  EXPECT_EQ(scene.world.planes[0].friction, 0.1);
  ASSERT_EQ(scene.world.bodies.size(), 4u);
  EXPECT_EQ(scene.world.bodies[0].shape.kind, contact3d::ShapeKind::Sphere);
  EXPECT_EQ(scene.world.bodies[0].angular_velocity, Eigen::Vector3d(0, 0, 2));
  EXPECT_EQ(scene.world.bodies[0].restitution, 0.9);
  const contact3d::Body& brick = scene.world.bodies[1];
  EXPECT_EQ(brick.shape.size, Eigen::Vector3d(0.4, 0.2, 0.1));
  EXPECT_NEAR((brick.orientation * Eigen::Vector3d::UnitX() - Eigen::Vector3d::UnitY()).norm(), 0, 1e-15);
  EXPECT_EQ(brick.body_inertia()(2, 2), 0.3);
  EXPECT_EQ(scene.world.bodies[2].shape.kind, contact3d::ShapeKind::Capsule);
  EXPECT_TRUE(scene.world.bodies[3].fixed);
}

// The friction model and drift keys: the planar scene's names (scene_reader.hpp), and "facets".
TEST(Scene3d, ReadsTheFrictionModelAndDriftKeys) {
  const contact3d::Scene defaults = parse_scene3d_json(kScene);
  EXPECT_EQ(defaults.options.friction_model, contact::FrictionModel::Coulomb);
  EXPECT_EQ(defaults.options.baumgarte, 0.2);
  EXPECT_EQ(defaults.options.slop, 0.005);
  EXPECT_TRUE(defaults.options.split_impulse);
  EXPECT_EQ(defaults.options.solve.friction_contact.lemke.facets, 8);
  const contact3d::Scene scene =
      parse_scene3d_json(with("\"solver\": \"nsgs\"", "\"solver\": \"lemke\", \"friction_model\": \"stewart-trinkle\", "
                              "\"facets\": 16, \"baumgarte\": 0.1, \"slop\": 0.001, \"split_impulse\": false"));
  EXPECT_EQ(scene.options.friction_model, contact::FrictionModel::StewartTrinkle);
  EXPECT_EQ(scene.options.solve.friction_contact.lemke.facets, 16);
  EXPECT_EQ(scene.options.baumgarte, 0.1);
  EXPECT_EQ(scene.options.slop, 0.001);
  EXPECT_FALSE(scene.options.split_impulse);
  EXPECT_EQ(parse_scene3d_json(with("\"solver\": \"nsgs\"", "\"friction_model\": \"anitescu-potra\""))
                .options.friction_model,
            contact::FrictionModel::AnitescuPotra);
  EXPECT_THAT(error_of(with("\"solver\": \"nsgs\"", "\"friction_model\": \"cone\"")),
              HasSubstr("friction_model must be one of \"coulomb\", \"stewart-trinkle\", \"anitescu-potra\", got \"cone\""));
  EXPECT_THAT(error_of(with("\"solver\": \"nsgs\"", "\"facets\": 2")), HasSubstr("facets must be an integer in [3, 4096], got 2"));
  EXPECT_THAT(error_of(with("\"solver\": \"nsgs\"", "\"baumgarte\": 1")), HasSubstr("baumgarte must be in [0, 1), got 1"));
  EXPECT_THAT(error_of(with("\"solver\": \"nsgs\"", "\"slop\": -1")), HasSubstr("slop must be >= 0, got -1"));
  // nsgs solves no LCP: the polyhedral model refuses it.
  EXPECT_THAT(error_of(with("\"solver\": \"nsgs\"", "\"solver\": \"nsgs\", \"friction_model\": \"stewart-trinkle\"")),
              HasSubstr("method 'nsgs' does not solve an LCP"));
}

TEST(Scene3d, ReadsTheSleepingKeysAsThePlanarSceneDoes) {
  const contact3d::Scene defaults = parse_scene3d_json(kScene);
  EXPECT_FALSE(defaults.options.sleeping);
  EXPECT_EQ(defaults.options.sleep_speed, 0.01);
  EXPECT_EQ(defaults.options.sleep_time, 0.5);
  const contact3d::Scene scene = parse_scene3d_json(
      with("\"solver\": \"nsgs\"", "\"solver\": \"nsgs\", \"sleeping\": true, \"sleep_speed\": 0.02, \"sleep_time\": 0.3"));
  EXPECT_TRUE(scene.options.sleeping);
  EXPECT_EQ(scene.options.sleep_speed, 0.02);
  EXPECT_EQ(scene.options.sleep_time, 0.3);
  EXPECT_THAT(error_of(with("\"solver\": \"nsgs\"", "\"sleeping\": 1")), HasSubstr("sleeping must be true or false, got 1"));
  EXPECT_THAT(error_of(with("\"solver\": \"nsgs\"", "\"sleep_speed\": -0.5")), HasSubstr("sleep_speed must be >= 0, got -0.5"));
  EXPECT_THAT(error_of(with("\"solver\": \"nsgs\"", "\"sleep_time\": 0")), HasSubstr("sleep_time"));
}

TEST(Scene3d, RefusesBadValuesByKeyPath) {
  EXPECT_THAT(error_of(with(R"("radius": 0.1})", R"("radius": -0.1})")),
              HasSubstr("s.json: bodies[0].shape.radius must be > 0, got -0.1"));
  EXPECT_THAT(error_of(with(R"("size": [0.4, 0.2, 0.1])", R"("size": [0.4, 0])")),
              HasSubstr("bodies[1].shape.size must be an array of 3 numbers"));
  EXPECT_THAT(error_of(with("[0.7071067811865476, 0, 0, 0.7071067811865476]", "[1, 0, 0, 1]")),
              HasSubstr("bodies[1].orientation must be a unit quaternion (norm within 1e-6 of 1), got norm 1.41"));
  EXPECT_THAT(error_of(with(R"("type": "cylinder")", R"("type": "cone")")),
              HasSubstr(R"(bodies[3].shape.type must be "sphere", "box", "capsule" or "cylinder", got "cone")"));
  EXPECT_THAT(error_of(with(R"("normal": [-2, 0, 0])", R"("normal": [0, 0, 0])")),
              HasSubstr("planes[0].normal must be a non-zero vector"));
  EXPECT_THAT(error_of(with(R"("solver": "nsgs")", R"("solver": "pgs")")),
              HasSubstr("method 'pgs' does not solve a frictional contact problem"));
  EXPECT_THAT(error_of(with(R"("mass": 2)", R"("mass": 2, "spin": 1)")), HasSubstr(R"(unknown key "bodies[1].spin")"));
  EXPECT_THAT(error_of(with(R"("dimension": 3)", R"("dimension": 4)")), HasSubstr("dimension must be 2 or 3, got 4"));
  EXPECT_THAT(error_of(with(R"("dimension": 3, )", "")), HasSubstr("a 3D scene needs \"dimension\": 3"));
  EXPECT_THAT(error_of(with(R"("inertia": [0.1, 0.2, 0.3])", R"("inertia": [0.1, 0, 0.3])")),
              HasSubstr("bodies[1].inertia[1] must be > 0, got 0"));
  EXPECT_THAT(error_of(with(R"("duration": 0.5)", R"("duration": 1e300)")), HasSubstr("at most 1e9 steps a run"));
  // The planar reader takes "dimension": 2 and refuses 3.
  EXPECT_THAT(
      [] {
        try {
          (void)parse_scene_json(R"({"dimension": 3, "gravity": [0, -9.81], "timestep": 0.01, "duration": 1,
                                     "restitution": 0, "friction": 0, "bodies": []})");
        } catch (const InvalidProblem& e) {
          return std::string(e.what());
        }
        return std::string();
      }(),
      HasSubstr("dimension must be 2 in a planar scene"));
}

// examples/scenes/pyramid3d.json: the square pyramid of 10 layers, layer l a (10 − l)² grid of 1 × 1 ×
// 0.5 m boxes, each on four below: 1² + 2² + … + 10² = 385 boxes, the top box's centre at
// (4.5, 4.5, 0.25 + 0.5 · 9). Read only (a step costs about half a second).
TEST(Scene3d, PyramidOfTenLayersReads) {
  const contact3d::Scene scene = read_scene3d_file(PERP_EXAMPLE_SCENES_DIR "/pyramid3d.json");
  ASSERT_EQ(scene.world.bodies.size(), 385u);
  EXPECT_EQ(scene.step_count(), 600L);
  const Eigen::Vector3d top = scene.world.bodies.back().position;
  EXPECT_NEAR((top - Eigen::Vector3d(4.5, 4.5, 4.75)).norm(), 0.0, 1e-12);
}

// examples/scenes/tower3d.json: ten 1 × 1 × 0.5 m boxes stacked on the ground, h = 1/60 s, μ = 0.5,
// 10 s. Every step is solved and the tower stands: no box moves by more than 1 mm.
TEST(Scene3d, TowerOfTenBoxesStands) {
  contact3d::Scene scene = read_scene3d_file(PERP_EXAMPLE_SCENES_DIR "/tower3d.json");
  ASSERT_EQ(scene.world.bodies.size(), 10u);
  const contact3d::World start = scene.world;
  const contact3d::RunSummary summary =
      contact3d::run(scene.world, scene.options, static_cast<std::size_t>(scene.step_count()));
  EXPECT_EQ(summary.steps, 600u);
  EXPECT_EQ(summary.unsolved, 0u);
  double moved = 0;
  for (std::size_t i = 0; i < 10; ++i) {
    moved = std::max(moved, (scene.world.bodies[i].position - start.bodies[i].position).norm());
  }
  EXPECT_LT(moved, 1e-3);
  EXPECT_LT(summary.max_penetration, 1e-3);
}

// The 3D reader takes the same step keys as the planar one (scene_reader.hpp): "method", "tol",
// "max_iter", and the deprecated "solver" and "tolerance" (kScene's) with their sentences.
TEST(Scene3d, DeprecatedKeysReadAsTheNewOnesWithAWarning) {
  std::vector<std::string> notes;
  const contact3d::Scene old = parse_scene3d_json(kScene, "old.json", &notes);
  ASSERT_EQ(notes.size(), 2U);
  // in the order solve_keys reads them: the method, then the tolerance
  EXPECT_THAT(notes[0], HasSubstr("old.json: the scene key \"solver\" is deprecated; use \"method\""));
  EXPECT_THAT(notes[1], HasSubstr("old.json: the scene key \"tolerance\" is deprecated; use \"tol\""));
  notes.clear();
  const contact3d::Scene fresh = parse_scene3d_json(
      with(R"("tolerance": 1e-9, "solver": "nsgs")", R"("tol": 1e-9, "method": "nsgs", "max_iter": 7)"), "new.json",
      &notes);
  EXPECT_TRUE(notes.empty());
  EXPECT_EQ(fresh.options.method, old.options.method);
  EXPECT_EQ(fresh.options.method, Method::Nsgs);
  EXPECT_EQ(fresh.options.solve.tolerance, 1e-9);
  EXPECT_EQ(old.options.solve.tolerance, 1e-9);
  EXPECT_EQ(fresh.options.solve.max_iterations, 7);
  EXPECT_THAT(error_of(with(R"("solver": "nsgs")", R"("solver": "nsgs", "method": "nsgs")")),
              HasSubstr("\"method\" and its deprecated spelling \"solver\" are both given"));
}

}  // namespace
}  // namespace perp::io_scene3d_test
