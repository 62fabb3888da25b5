// libFuzzer target: any bytes as a scene (perp simulate). Must throw InvalidProblem or return a
// scene that validates; a small one is stepped a few times (contacts, LCP, integration). A scene
// with "dimension": 3 goes through the 3D reader and step (FCL's detection included).
#include <cstddef>
#include <cstdint>
#include <string>

#include "perp/contact/moreau_jean.hpp"
#include "perp/contact3d/moreau_jean.hpp"
#include "perp/core/error.hpp"
#include "perp/io/scene.hpp"
#include "perp/io/scene3d.hpp"

namespace {

void step_scene3d(const std::string& text) {
  perp::contact3d::Scene scene;
  try {
    scene = perp::parse_scene3d_json(text, "fuzz.json");
  } catch (const perp::InvalidProblem&) {
    return;
  }
  scene.validate();
  if (scene.world.bodies.size() > 16) return;
  perp::contact3d::World world = scene.world;
  try {
    for (int k = 0; k < 3; ++k) (void)perp::contact3d::moreau_jean_step(world, scene.options);
  } catch (const perp::InvalidProblem&) {
    // a state the step refuses (a body driven out of range): named, not a crash
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    if (perp::scene_dimension(text, "fuzz.json") == 3) {
      step_scene3d(text);
      return 0;
    }
  } catch (const perp::InvalidProblem&) {
    return 0;
  }
  perp::contact::Scene scene;
  try {
    scene = perp::parse_scene_json(text, "fuzz.json");
  } catch (const perp::InvalidProblem&) {
    return 0;
  }
  scene.validate();
  if (scene.world.bodies.size() > 16) return 0;
  perp::contact::World world = scene.world;
  try {
    for (int k = 0; k < 3; ++k) (void)perp::contact::moreau_jean_step(world, scene.options);
  } catch (const perp::InvalidProblem&) {
    // a state the step refuses (e.g. too many contacts, a non-finite state): named, not a crash
  }
  return 0;
}
