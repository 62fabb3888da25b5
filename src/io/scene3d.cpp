#include "perp/io/scene3d.hpp"

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "detail.hpp"
#include "perp/core/error.hpp"
#include "perp/solvers/method.hpp"
#include "scene_reader.hpp"

namespace perp {
namespace {

using detail::child;
using nlohmann::json;

class Scene3dReader : public detail::SceneKeys {
 public:
  using SceneKeys::SceneKeys;

  Eigen::Vector3d vector3(const json& value, const std::string& path) const {
    if (!value.is_array() || value.size() != 3)
      fail(path + " must be an array of 3 numbers [x, y, z], got " + value.dump());
    return {number(value[0], path + "[0]"), number(value[1], path + "[1]"), number(value[2], path + "[2]")};
  }

  contact3d::Shape shape(const json& value, const std::string& path) const {
    require_object(value, path);
    const json& type = require(value, path, "type");
    if (!type.is_string()) fail(child(path, "type") + " must be a string, got " + type.dump());
    const std::string name = type.get<std::string>();
    const auto radius = [&] { return positive(require(value, path, "radius"), child(path, "radius")); };
    if (name == "sphere") {
      require_known_keys(value, path, {"type", "radius"});
      return contact3d::Shape::sphere(radius());
    }
    if (name == "box") {
      require_known_keys(value, path, {"type", "size"});
      const std::string at = child(path, "size");
      const Eigen::Vector3d size = vector3(require(value, path, "size"), at);
      for (Eigen::Index i = 0; i < 3; ++i) {
        if (size[i] <= 0) fail(at + "[" + std::to_string(i) + "] must be > 0, got " + number_text(size[i]));
      }
      return contact3d::Shape::box(size);
    }
    if (name == "capsule") {
      require_known_keys(value, path, {"type", "radius", "length"});
      const double length = number(require(value, path, "length"), child(path, "length"));
      if (length < 0) fail(child(path, "length") + " must be >= 0, got " + number_text(length));
      return contact3d::Shape::capsule(radius(), length);
    }
    if (name == "cylinder") {
      require_known_keys(value, path, {"type", "radius", "length"});
      return contact3d::Shape::cylinder(radius(), positive(require(value, path, "length"), child(path, "length")));
    }
    fail(child(path, "type") + " must be \"sphere\", \"box\", \"capsule\" or \"cylinder\", got \"" + name + "\"");
  }

  Eigen::Matrix3d inertia(const json& value, const std::string& path) const {
    if (value.is_array() && value.size() == 3 && value[0].is_array()) {
      Eigen::Matrix3d I;
      for (std::size_t r = 0; r < 3; ++r) {
        const Eigen::Vector3d row = vector3(value[r], path + "[" + std::to_string(r) + "]");
        I.row(static_cast<Eigen::Index>(r)) = row.transpose();
      }
      return I;
    }
    if (!value.is_array() || value.size() != 3) {
      fail(path + " must be 3 principal moments [Ixx, Iyy, Izz] or a 3×3 array, got " + value.dump());
    }
    const Eigen::Vector3d moments = vector3(value, path);
    for (Eigen::Index i = 0; i < 3; ++i) {
      if (moments[i] <= 0) fail(path + "[" + std::to_string(i) + "] must be > 0, got " + number_text(moments[i]));
    }
    return moments.asDiagonal();
  }

  contact3d::Body body(const json& value, const std::string& path) const {
    require_object(value, path);
    require_known_keys(value, path,
                       {"name", "shape", "mass", "inertia", "position", "orientation", "velocity", "angular_velocity",
                        "fixed", "friction", "restitution"});
    contact3d::Body body;
    const json& name = require(value, path, "name");
    if (!name.is_string() || name.get<std::string>().empty()) {
      fail(child(path, "name") + " must be a non-empty string, got " + name.dump());
    }
    body.name = name.get<std::string>();
    body.shape = shape(require(value, path, "shape"), child(path, "shape"));
    body.mass = positive(require(value, path, "mass"), child(path, "mass"));
    if (const json* I = find(value, "inertia")) body.inertia = inertia(*I, child(path, "inertia"));
    body.position = vector3(require(value, path, "position"), child(path, "position"));
    if (const json* q = find(value, "orientation")) {
      const std::string at = child(path, "orientation");
      if (!q->is_array() || q->size() != 4) fail(at + " must be a unit quaternion [w, x, y, z], got " + q->dump());
      body.orientation = Eigen::Quaterniond(number((*q)[0], at + "[0]"), number((*q)[1], at + "[1]"),
                                            number((*q)[2], at + "[2]"), number((*q)[3], at + "[3]"));
      const double norm = body.orientation.norm();
      if (std::abs(norm - 1) > 1e-6)
        fail(at + " must be a unit quaternion (norm within 1e-6 of 1), got norm " + number_text(norm));
    }
    if (const json* v = find(value, "velocity")) body.velocity = vector3(*v, child(path, "velocity"));
    if (const json* w = find(value, "angular_velocity"))
      body.angular_velocity = vector3(*w, child(path, "angular_velocity"));
    if (const json* fixed = find(value, "fixed")) body.fixed = boolean(*fixed, child(path, "fixed"));
    material(value, path, body.friction, body.restitution);
    return body;
  }

  contact3d::Plane plane(const json& value, const std::string& path) const {
    return SceneKeys::plane<contact3d::Plane>(value, path,
                                [this](const json& v, const std::string& at) { return vector3(v, at); });
  }

  contact3d::Scene scene(const json& document) const {
    require_object(document, "");
    require_known_keys(document, "",
                       {"dimension", "gravity", "timestep", "duration", "theta", "restitution", "friction", "method",
                        "tol", "max_iter", "friction_model", "facets", "baumgarte", "slop", "split_impulse", "sleeping",
                        "sleep_speed", "sleep_time", "ground", "planes", "bodies", "solver", "tolerance"});  // the last two: deprecated (solve_keys)
    contact3d::Scene scene;
    contact3d::StepOptions& options = scene.options;
    step_keys(document, options, scene.duration,
              [this](const json& v, const std::string& at) { return vector3(v, at); });
    model_keys(document, options);  // friction_model, baumgarte, slop, split_impulse (scene_reader.hpp)
    if (const json* facets = find(document, "facets")) {
      if (!facets->is_number_integer() || facets->get<std::int64_t>() < 3 || facets->get<std::int64_t>() > 4096) {
        fail("facets must be an integer in [3, 4096], got " + facets->dump());
      }
      options.solve.friction_contact.lemke.facets = static_cast<int>(facets->get<std::int64_t>());
    }
    solve_keys(document, options);  // method, tol, max_iter (scene_reader.hpp)
    sleep_keys(document, options);  // sleeping, sleep_speed, sleep_time (scene_reader.hpp)
    ground_key(document, scene.world.ground);
    planes_key(document, scene.world.planes,
               [this](const json& value, const std::string& path) { return plane(value, path); });
    bodies_key(document, scene, [this](const json& value, const std::string& path) { return body(value, path); });
    return scene;
  }
};

int dimension_of(const json& document, const std::string& source) {
  const Scene3dReader reader(source);
  reader.require_object(document, "");
  const json* dimension = reader.find(document, "dimension");
  if (dimension == nullptr) return 2;
  if (!dimension->is_number_integer() || (dimension->get<long>() != 2 && dimension->get<long>() != 3)) {
    reader.fail("dimension must be 2 or 3, got " + dimension->dump());
  }
  return static_cast<int>(dimension->get<long>());
}

}  // namespace

int scene_dimension(const std::string& text, const std::string& source) {
  return dimension_of(detail::parse_json(text, source), source);
}

int scene_file_dimension(const std::filesystem::path& path) {
  return scene_dimension(detail::read_whole_file(path), path.string());
}

contact3d::Scene parse_scene3d_json(const std::string& text, const std::string& source,
                                    std::vector<std::string>* deprecations) {
  const json document = detail::parse_json(text, source);
  if (dimension_of(document, source) != 3) {
    Scene3dReader(source).fail("a 3D scene needs \"dimension\": 3 (without it the scene is planar: io/scene.hpp)");
  }
  return Scene3dReader(source, deprecations).scene(document);
}

contact3d::Scene read_scene3d_file(const std::filesystem::path& path, std::vector<std::string>* deprecations) {
  return parse_scene3d_json(detail::read_whole_file(path), path.string(), deprecations);
}

}  // namespace perp
