// libFuzzer target: any bytes as a scene (perp simulate). Must throw InvalidProblem or return a
// scene that validates; a small one is stepped a few times (contacts, LCP, integration).
#include <cstddef>
#include <cstdint>
#include <string>

#include "perp/contact/moreau_jean.hpp"
#include "perp/core/error.hpp"
#include "perp/io/scene.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  perp::contact::Scene scene;
  try {
    scene = perp::parse_scene_json(std::string(reinterpret_cast<const char*>(data), size), "fuzz.json");
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
