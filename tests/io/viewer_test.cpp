#include "perp/io/viewer.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "perp/core/error.hpp"
#include "perp/io/scene.hpp"

namespace perp::io_viewer_test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string read_all(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The page of a short run: the data inline (frames, bodies, planes), nothing from outside, and a
// body name that tries to close the script element written as \u003c.
TEST(Viewer, WritesOneSelfContainedPage) {
  const contact::Scene scene = parse_scene_json(R"({"gravity": [0, -10], "timestep": 0.01, "duration": 0.1,
    "restitution": 0, "friction": 0.2, "ground": {"height": 0},
    "planes": [{"name": "wall", "point": [1, 0], "normal": [-2, 0]}],
    "bodies": [{"name": "</script><b>", "shape": {"type": "disk", "radius": 0.1}, "mass": 1, "position": [0, 0.5]},
               {"name": "rod", "shape": {"type": "rod", "length": 0.5}, "mass": 1, "position": [0.5, 0.02]}]})");
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("perp_viewer_test_" + std::to_string(::getpid()));
  StagedFiles files(dir);
  const SimulationRecord record = write_simulation(scene, files, {.frame_capacity = 4});
  const std::filesystem::path page = files.temporary("view.html");  // as perp simulate writes it
  write_viewer_html(page, scene, record, "test scene");
  const std::string html = read_all(page);
  EXPECT_THAT(html, HasSubstr("<!DOCTYPE html>"));
  EXPECT_THAT(html, Not(HasSubstr("http://")));
  EXPECT_THAT(html, Not(HasSubstr("https://")));
  EXPECT_THAT(html, Not(HasSubstr("</script><b>")));
  EXPECT_THAT(html, HasSubstr(R"("name":"\u003c/script>\u003cb>")"));
  // 11 states, capacity 4: stride 2 (steps 0, 2, …, 8), then the last (10): 6 frames, decimated.
  ASSERT_EQ(record.frames.size(), 6u);
  EXPECT_THAT(html, HasSubstr(R"("steps":10,"stride":2,"decimated":true)"));
  EXPECT_THAT(html, HasSubstr(R"("step":[0,2,4,6,8,10])"));
  EXPECT_THAT(html, HasSubstr(R"("t":[0,0.02,0.04,0.06,0.08,0.1])"));
  EXPECT_THAT(html, HasSubstr(R"("planes":[{"name":"wall","point":[1,0],"normal":[-1,0]}])"));
  EXPECT_THAT(html, HasSubstr(R"("shape":"rod","length":0.5)"));
  EXPECT_THAT(html, HasSubstr(R"("ground":0)"));
  std::filesystem::remove_all(dir);
}

TEST(Viewer, AnUnwritablePathIsRefused) {
  const contact::Scene scene = parse_scene_json(R"({"gravity": [0, -10], "timestep": 0.01, "duration": 0.02,
    "restitution": 0, "friction": 0, "bodies": [{"name": "b", "shape": {"type": "disk", "radius": 0.1}, "mass": 1, "position": [0, 0]}]})");
  SimulationRecord record;
  EXPECT_THROW(write_viewer_html("/nonexistent-folder/view.html", scene, record, "x"), InvalidProblem);
}

}  // namespace
}  // namespace perp::io_viewer_test
