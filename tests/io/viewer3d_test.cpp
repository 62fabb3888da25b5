#include "perp/io/viewer3d.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "perp/core/error.hpp"
#include "perp/io/scene3d.hpp"

namespace perp::io_viewer3d_test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string read_all(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A ball dropped 5 mm onto the ground beside a wall: 0.1 s at h = 0.01 (11 states).
contact3d::Scene ball_scene(const std::string& name) {
  return parse_scene3d_json(R"({"dimension": 3, "gravity": [0, 0, -10], "timestep": 0.01, "duration": 0.1,
    "restitution": 0, "friction": 0.2, "ground": {"height": 0},
    "planes": [{"name": "wall", "point": [1, 0, 0], "normal": [-2, 0, 0]}],
    "bodies": [{"name": ")" + name + R"(", "shape": {"type": "sphere", "radius": 0.1}, "mass": 1, "position": [0, 0, 0.105]},
               {"name": "post", "shape": {"type": "cylinder", "radius": 0.1, "length": 0.4}, "mass": 1,
                "position": [0.5, 0, 0.2], "fixed": true}]})");
}

class Viewer3d : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("perp_viewer3d_test_" + std::to_string(::getpid()));
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

// The frames: all 11 states (stride 1); the ball (5 mm up, falling at g) meets the ground at
// t = √(2·0.005/10) = 0.0316 s, so the frames from step 4 on carry its ground contact (body 0,
// side −1) pushing up.
TEST_F(Viewer3d, KeepsEveryStateOfAShortRunWithItsContacts) {
  const contact3d::Scene scene = ball_scene("ball");
  StagedFiles files(dir_);
  const Simulation3dRecord record = write_simulation3d(scene, files);
  ASSERT_EQ(record.frames.size(), 11u);
  EXPECT_EQ(record.frame_stride, 1);
  EXPECT_FALSE(record.decimated());
  EXPECT_TRUE(record.frames[0].contacts.empty());
  EXPECT_EQ(record.frames[0].pose, (std::vector<double>{0, 0, 0.105, 1, 0, 0, 0, 0.5, 0, 0.2, 1, 0, 0, 0}));
  const Simulation3dFrame& last = record.frames.back();
  EXPECT_EQ(last.step, 10);
  EXPECT_DOUBLE_EQ(last.t, 0.1);
  ASSERT_EQ(last.contacts.size(), 1u);
  EXPECT_EQ(last.contacts[0].body_a, 0);
  EXPECT_EQ(last.contacts[0].body_b, contact3d::kGround);
  // At rest: the impulse is m g h straight up, at the ball's lowest point.
  EXPECT_NEAR(last.contacts[0].impulse.z(), 1 * 10 * 0.01, 1e-9);
  EXPECT_NEAR(last.contacts[0].impulse.head<2>().norm(), 0, 1e-12);
  EXPECT_NEAR(last.contacts[0].point.z(), last.pose[2] - 0.1, 1e-12);
}

// Over the budget the stride doubles and every other frame goes. A frame holds 4 + 14 numbers
// (two poses), + 8 from step 4 on (the ball's ground contact, active from step 3 whose predicted
// gap 0.0005 − h/2 · 0.3 < 0). With 60: frames 0–3 make 72 (stride 2: 0, 2 = 36), + frame 4 (26)
// 62 (stride 4: 0, 4 = 44), + frame 8 70 (stride 8: 0, 8 = 44); then the last step, 10.
TEST_F(Viewer3d, HalvesTheFramesOverTheBudget) {
  contact3d::Scene scene = ball_scene("ball");
  Simulation3dRecord record;
  record.steps = scene.step_count();
  Frame3dSampler sampler(record, record.steps, scene.world, scene.options.gravity, 60);
  for (long k = 0; k < record.steps; ++k) {
    const contact3d::StepReport report = contact3d::moreau_jean_step(scene.world, scene.options);
    sampler.add(k + 1, 0.01 * static_cast<double>(k + 1), scene.world, report);
  }
  EXPECT_TRUE(record.decimated());
  std::size_t numbers = 0;
  for (std::size_t i = 0; i < record.frames.size(); ++i) {
    const Simulation3dFrame& f = record.frames[i];
    if (i + 1 < record.frames.size()) {
      EXPECT_EQ(f.step % record.frame_stride, 0) << "frame " << i;
      numbers += 4 + f.pose.size() + 8 * f.contacts.size();
    }
    EXPECT_DOUBLE_EQ(f.t, 0.01 * static_cast<double>(f.step));
  }
  EXPECT_LE(numbers, 60u);
  EXPECT_EQ(record.frames.front().step, 0);
  EXPECT_EQ(record.frames.front().pose[2], 0.105);  // frame 0 survives the halvings intact
  EXPECT_EQ(record.frames.back().step, 10);
  EXPECT_EQ(record.frame_stride, 8);
  ASSERT_EQ(record.frames.size(), 3u);
  EXPECT_EQ(record.frames[1].step, 8);
}

// The page: three.js and the data inline, nothing from outside; a body name that tries to close
// the script element is written as \u003c; the planes' normals unit.
TEST_F(Viewer3d, WritesOneSelfContainedPage) {
  const contact3d::Scene scene = ball_scene("</script><b>");
  StagedFiles files(dir_);
  const Simulation3dRecord record = write_simulation3d(scene, files);
  const std::filesystem::path page = files.temporary("view.html");
  const std::string three = read_all(three_js_path());
  ASSERT_FALSE(three.empty());
  write_viewer3d_html(page, scene, record, "test scene", read_three_js());
  const std::string html = read_all(page);
  EXPECT_THAT(html, HasSubstr(three));
  EXPECT_THAT(html, Not(HasSubstr("</script><b>")));
  EXPECT_THAT(html, HasSubstr(R"("name":"\u003c/script>\u003cb>","shape":"sphere","radius":0.1)"));
  EXPECT_THAT(html, HasSubstr(R"("shape":"cylinder","radius":0.1,"size":[1,1,1],"length":0.4,"fixed":true)"));
  EXPECT_THAT(html, HasSubstr(R"("planes":[{"name":"wall","point":[1,0,0],"normal":[-1,0,0]}])"));
  EXPECT_THAT(html, HasSubstr(R"("steps":10,"every":1,"stride":1,"decimated":false)"));
  EXPECT_THAT(html, HasSubstr(R"("step":[0,1,2,3,4,5,6,7,8,9,10])"));
  EXPECT_THAT(html, HasSubstr(R"("ground":0)"));
  EXPECT_THAT(html, HasSubstr(R"("pose":[[0,0,0.105,1,0,0,0,0.5,0,0.2,1,0,0,0],)"));
  // The last frame's contact: body 0 on the ground (−1), impulse m g h = 0.1 up (3 digits).
  // Then no body asleep in any of the 11 frames (sleeping is off).
  EXPECT_THAT(html, HasSubstr(R"(,0.1]],"asleep":[[],[],[],[],[],[],[],[],[],[],[]]})"));
  EXPECT_THAT(html, HasSubstr("[0,-1,"));
}

// With the scene's sleeping: the ball at rest on the ground (from step 4) sleeps once at rest for
// 0.03 s; the frames from then on list it (body 0) asleep, and so does the page.
TEST_F(Viewer3d, ListsTheBodiesAsleepInEachFrame) {
  contact3d::Scene scene = ball_scene("ball");
  scene.options.sleeping = true;
  scene.options.sleep_time = 0.03;
  StagedFiles files(dir_);
  const Simulation3dRecord record = write_simulation3d(scene, files);
  ASSERT_EQ(record.frames.size(), 11u);
  EXPECT_TRUE(record.frames[0].asleep.empty());
  EXPECT_EQ(record.frames.back().asleep, std::vector<int>{0});
  std::size_t first = record.frames.size();
  for (std::size_t i = 0; i < record.frames.size(); ++i) {
    if (!record.frames[i].asleep.empty() && first == record.frames.size()) first = i;
    if (first < record.frames.size()) {
      EXPECT_EQ(record.frames[i].asleep, std::vector<int>{0}) << "frame " << i;
    }
  }
  EXPECT_GE(first, 5u);
  const std::filesystem::path page = files.temporary("view.html");
  write_viewer3d_html(page, scene, record, "test scene", read_three_js());
  EXPECT_THAT(read_all(page), HasSubstr(R"(,[0]]})"));
}

// With --every 5 the page says which states trajectory.csv holds (its frames are its own sampler's).
TEST_F(Viewer3d, SaysWhichStatesTheTrajectoryHolds) {
  const contact3d::Scene scene = ball_scene("ball");
  StagedFiles files(dir_);
  const Simulation3dRecord record = write_simulation3d(scene, files, SimulationOutputOptions{.every = 5});
  EXPECT_EQ(record.every, 5);
  const std::filesystem::path page = files.temporary("view.html");
  write_viewer3d_html(page, scene, record, "every 5", read_three_js());
  const std::string html = read_all(page);
  EXPECT_THAT(html, HasSubstr(R"("steps":10,"every":5,"stride":1,)"));
  EXPECT_THAT(html, HasSubstr(R"(DATA.every > 1 ? "one every " + DATA.every + " steps (--every)." : "them all.")"));
}

TEST_F(Viewer3d, NoThreeJsIsANamedError) {
  const std::string absent = (dir_ / "absent" / "three.min.js").string();
  ASSERT_EQ(::setenv("PERP_THREE_JS", absent.c_str(), 1), 0);
  EXPECT_EQ(three_js_path(), absent);
  try {
    (void)read_three_js();
    ADD_FAILURE() << "no error without three.js";
  } catch (const InvalidProblem& e) {
    EXPECT_THAT(e.what(), HasSubstr(absent));
    EXPECT_THAT(e.what(), HasSubstr("libjs-three"));
  }
  ::unsetenv("PERP_THREE_JS");
}

// A library that would end the script element early is refused, and no page is written.
TEST_F(Viewer3d, AScriptThatWouldEndTheElementIsRefused) {
  const contact3d::Scene scene = ball_scene("ball");
  StagedFiles files(dir_);
  const Simulation3dRecord record = write_simulation3d(scene, files);
  const std::filesystem::path page = files.temporary("view.html");
  for (const char* script : {"var a = '</SCRIPT>';", "/* <!-- */"}) {
    EXPECT_THROW(write_viewer3d_html(page, scene, record, "t", script), InvalidProblem) << script;
  }
  EXPECT_FALSE(std::filesystem::exists(page));
}

}  // namespace
}  // namespace perp::io_viewer3d_test
