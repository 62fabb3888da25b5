#include "perp/io/scene.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "detail.hpp"
#include "scene_reader.hpp"
#include "perp/core/error.hpp"
#include "perp/solvers/method.hpp"

namespace perp {
namespace {

using nlohmann::json;

using detail::child;

class SceneReader : public detail::SceneKeys {
 public:
  using SceneKeys::SceneKeys;

  Eigen::Vector2d vector2(const json& value, const std::string& path) const {
    if (!value.is_array() || value.size() != 2) {
      fail(path + " must be an array of 2 numbers [x, y], got " + value.dump());
    }
    return {number(value[0], path + "[0]"), number(value[1], path + "[1]")};
  }

  contact::Shape shape(const json& value, const std::string& path) const {
    require_object(value, path);
    const json& type = require(value, path, "type");
    if (!type.is_string()) fail(child(path, "type") + " must be a string, got " + type.dump());
    const std::string name = type.get<std::string>();
    if (name == "disk") {
      require_known_keys(value, path, {"type", "radius"});
      return contact::Disk{positive(require(value, path, "radius"), child(path, "radius"))};
    }
    if (name == "box") {
      require_known_keys(value, path, {"type", "width", "height"});
      return contact::Box{positive(require(value, path, "width"), child(path, "width")),
                          positive(require(value, path, "height"), child(path, "height"))};
    }
    if (name == "rod") {
      require_known_keys(value, path, {"type", "length"});
      return contact::Rod{positive(require(value, path, "length"), child(path, "length"))};
    }
    fail(child(path, "type") + " must be \"disk\", \"box\" or \"rod\", got \"" + name + "\"");
  }

  contact::Body body(const json& value, const std::string& path) const {
    require_object(value, path);
    require_known_keys(value, path,
                       {"name", "shape", "mass", "inertia", "position", "angle", "velocity", "angular_velocity", "fixed",
                        "friction", "restitution", "force", "torque"});
    contact::Body body;
    const json& name = require(value, path, "name");
    if (!name.is_string() || name.get<std::string>().empty()) {
      fail(child(path, "name") + " must be a non-empty string, got " + name.dump());
    }
    body.name = name.get<std::string>();
    body.shape = shape(require(value, path, "shape"), child(path, "shape"));
    body.mass = positive(require(value, path, "mass"), child(path, "mass"));
    if (const json* inertia = find(value, "inertia")) body.inertia = positive(*inertia, child(path, "inertia"));
    body.position = vector2(require(value, path, "position"), child(path, "position"));
    if (const json* angle = find(value, "angle")) body.angle = number(*angle, child(path, "angle"));
    if (const json* velocity = find(value, "velocity")) body.velocity = vector2(*velocity, child(path, "velocity"));
    if (const json* omega = find(value, "angular_velocity")) {
      body.angular_velocity = number(*omega, child(path, "angular_velocity"));
    }
    if (const json* force = find(value, "force")) body.force = vector2(*force, child(path, "force"));
    if (const json* torque = find(value, "torque")) body.torque = number(*torque, child(path, "torque"));
    if (const json* fixed = find(value, "fixed")) body.fixed = boolean(*fixed, child(path, "fixed"));
    material(value, path, body.friction, body.restitution);
    return body;
  }

  contact::Plane plane(const json& value, const std::string& path) const {
    return SceneKeys::plane<contact::Plane>(value, path,
                                [this](const json& v, const std::string& at) { return vector2(v, at); });
  }

  contact::Scene scene(const json& document) const {
    require_object(document, "");
    require_known_keys(document, "",
                       {"dimension", "gravity", "timestep", "duration", "theta", "restitution", "friction",
                        "friction_model", "projection", "baumgarte", "slop", "split_impulse", "speculative",
                        "sleeping", "sleep_speed", "sleep_time", "ground", "planes", "bodies", "method", "tol",
                        "max_iter", "dense_pivoting_max_size", "solver",
                        "tolerance"});  // the last two: deprecated spellings (solve_keys)
    if (const json* dimension = find(document, "dimension")) {
      if (!dimension->is_number_integer() || dimension->get<long>() != 2) {
        fail("dimension must be 2 in a planar scene (a 3D scene is read by read_scene3d_file, io/scene3d.hpp), got " +
             dimension->dump());
      }
    }
    contact::Scene scene;
    contact::MoreauJeanOptions& options = scene.options;
    step_keys(document, options, scene.duration,
              [this](const json& v, const std::string& at) { return vector2(v, at); });
    model_keys(document, options);  // friction_model, baumgarte, slop, split_impulse (scene_reader.hpp)
    if (const json* projection = find(document, "projection")) options.projection = boolean(*projection, "projection");
    if (const json* speculative = find(document, "speculative")) {
      options.speculative = boolean(*speculative, "speculative");
    }
    ground_key(document, scene.world.ground);
    sleep_keys(document, options);  // sleeping, sleep_speed, sleep_time (scene_reader.hpp)
    planes_key(document, scene.world.planes,
               [this](const json& value, const std::string& path) { return plane(value, path); });
    if (const json* size = find(document, "dense_pivoting_max_size")) {
      if (!size->is_number_integer() || size->get<std::int64_t>() < 0) {
        fail("dense_pivoting_max_size must be an integer >= 0, got " + size->dump());
      }
      options.dense_pivoting_max_size = static_cast<Eigen::Index>(size->get<std::int64_t>());
    }
    solve_keys(document, options);  // method, tol, max_iter (scene_reader.hpp)
    bodies_key(document, scene, [this](const json& value, const std::string& path) { return body(value, path); });
    require_representable(scene);
    return scene;
  }

  /// Values that are finite but whose derived quantities are not (1/m, 1/I, ½mv², the distance
  /// a step moves) are refused here with their key path, rather than surfacing mid-run as "M(0, 0)
  /// is NaN" or "detect_contacts: margin must be finite".
  void require_representable(const contact::Scene& scene) const {
    const double h = scene.options.timestep;
    const double g = scene.options.gravity.norm();
    if (!std::isfinite(g * h * h) || !std::isfinite(g * h)) {
      fail(format("timestep = %g: gravity × timestep² = %g overflows the range of double", h, g * h * h));
    }
    for (std::size_t i = 0; i < scene.world.bodies.size(); ++i) {
      const contact::Body& body = scene.world.bodies[i];
      const std::string path = "bodies[" + std::to_string(i) + "]";
      if (!std::isfinite(1.0 / body.mass)) {
        fail(format("%s.mass = %g is too small: 1/mass overflows the range of double", path.c_str(), body.mass));
      }
      const double inertia = body.moment_of_inertia();
      const std::string inertia_path = path + (body.inertia ? ".inertia" : ".shape");
      if (!(inertia > 0) || !std::isfinite(inertia) || !std::isfinite(1.0 / inertia)) {
        fail(format("%s: the moment of inertia %g (from the mass and the shape's size) and its inverse must be finite "
                    "and positive",
                    inertia_path.c_str(), inertia));
      }
      const double radius = body.bounding_radius();
      if (!std::isfinite(radius) || !std::isfinite(std::abs(body.position.x()) + radius) ||
          !std::isfinite(std::abs(body.position.y()) + radius)) {
        fail(format("%s.shape: a size of %g about the position (%g, %g) overflows the range of double", path.c_str(),
                    radius, body.position.x(), body.position.y()));
      }
      const double speed = std::hypot(body.velocity.x(), body.velocity.y()) + std::abs(body.angular_velocity) * radius;
      const double kinetic = 0.5 * body.mass * body.velocity.squaredNorm() +
                             0.5 * inertia * body.angular_velocity * body.angular_velocity;
      if (!std::isfinite(body.mass * g * body.position.y())) {
        fail(format("%s.position: the potential energy m g y = %g overflows the range of double", path.c_str(),
                    body.mass * g * body.position.y()));
      }
      if (!std::isfinite(speed * h) || !std::isfinite(kinetic)) {
        fail(format("%s.velocity: a speed of %g (with the angular velocity) gives a kinetic energy of %g and moves %g "
                    "in one step: beyond the range of double",
                    path.c_str(), speed, kinetic, speed * h));
      }
    }
  }

  static std::string format(const char* pattern, auto... values) {
    char buffer[320];
    std::snprintf(buffer, sizeof buffer, pattern, values...);
    return buffer;
  }
};

}  // namespace

contact::Scene parse_scene_json(const std::string& text, const std::string& source,
                                std::vector<std::string>* deprecations) {
  return SceneReader(source, deprecations).scene(detail::parse_json(text, source));
}

contact::Scene read_scene_file(const std::filesystem::path& path, std::vector<std::string>* deprecations) {
  return parse_scene_json(detail::read_whole_file(path), path.string(), deprecations);
}

}  // namespace perp
