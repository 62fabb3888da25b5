#pragma once
// Private to io/ (not installed): the checks that the scene readers share, the planar one
// (scene.cpp) and the 3D one (scene3d.cpp), so that their messages read the same: key paths
// ("bodies[1].shape.radius"), unknown keys with the list of known ones, numbers that must be
// finite or positive, and a side's optional friction and restitution.
#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <cstdint>
#include <cstdio>
#include <string_view>
#include <utility>
#include <vector>

#include "perp/contact/moreau_jean.hpp"
#include "perp/core/error.hpp"
#include "perp/core/method.hpp"

namespace perp::detail {

using nlohmann::json;

/// Where in the document a value sits, for messages: "bodies[1].shape.radius".
inline std::string child(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

class SceneKeys {
 public:
  /// `deprecations`: where the sentences on deprecated keys go (`deprecated`); null: a line each on
  /// stderr.
  explicit SceneKeys(std::string source, std::vector<std::string>* deprecations = nullptr)
      : source_(std::move(source)), deprecations_(deprecations) {}

  [[noreturn]] void fail(const std::string& what) const { throw InvalidProblem(source_ + ": " + what); }

  void require_object(const json& value, const std::string& path) const {
    if (!value.is_object()) fail((path.empty() ? "the scene" : path) + " must be an object, got " + value.type_name());
  }

  void require_known_keys(const json& object, const std::string& path,
                          std::initializer_list<std::string_view> known) const {
    for (const auto& [key, value] : object.items()) {
      if (std::find(known.begin(), known.end(), key) != known.end()) continue;
      std::string list;
      for (std::string_view name : known) list += (list.empty() ? "\"" : ", \"") + std::string(name) + "\"";
      fail("unknown key \"" + child(path, key) + "\"; the keys here are " + list);
    }
  }

  const json* find(const json& object, std::string_view key) const {
    const auto found = object.find(std::string(key));
    return found == object.end() ? nullptr : &*found;
  }

  const json& require(const json& object, const std::string& path, std::string_view key) const {
    const json* value = find(object, key);
    if (value == nullptr) fail("missing key \"" + child(path, key) + "\"");
    return *value;
  }

  double number(const json& value, const std::string& path) const {
    if (!value.is_number()) fail(path + " must be a number, got " + value.type_name() + " " + value.dump());
    const double x = value.get<double>();
    if (!std::isfinite(x)) fail(path + " is not finite");
    return x;
  }

  bool boolean(const json& value, const std::string& path) const {
    if (!value.is_boolean()) fail(path + " must be true or false, got " + value.dump());
    return value.get<bool>();
  }

  double positive(const json& value, const std::string& path) const {
    const double x = number(value, path);
    if (x <= 0) fail(path + " must be > 0, got " + value.dump());
    return x;
  }

  /// The optional "friction" (>= 0) and "restitution" (in [0, 1]) of a body or a plane.
  void material(const json& value, const std::string& path, std::optional<double>& friction,
                std::optional<double>& restitution) const {
    if (const json* mu = find(value, "friction")) {
      friction = number(*mu, child(path, "friction"));
      if (*friction < 0) fail(child(path, "friction") + " must be >= 0, got " + mu->dump());
    }
    if (const json* e = find(value, "restitution")) {
      restitution = number(*e, child(path, "restitution"));
      if (*restitution < 0 || *restitution > 1)
        fail(child(path, "restitution") + " must be in [0, 1], got " + e->dump());
    }
  }

  /// The keys every scene's step has, in 2D and 3D alike: "gravity" (read by `vector`), "timestep"
  /// and "duration" (> 0), "theta" (optional, in [0.5, 1]), "restitution" (in [0, 1]), "friction"
  /// (>= 0).
  template <class Options, class ReadVector>
  void step_keys(const json& document, Options& options, double& duration, const ReadVector& vector) const {
    options.gravity = vector(require(document, "", "gravity"), "gravity");
    options.timestep = positive(require(document, "", "timestep"), "timestep");
    duration = positive(require(document, "", "duration"), "duration");
    if (const json* theta = find(document, "theta")) {
      options.theta = number(*theta, "theta");
      if (options.theta < 0.5 || options.theta > 1) fail("theta must be in [0.5, 1], got " + theta->dump());
    }
    options.restitution = number(require(document, "", "restitution"), "restitution");
    if (options.restitution < 0 || options.restitution > 1) {
      fail("restitution must be in [0, 1], got " + document["restitution"].dump());
    }
    options.friction = number(require(document, "", "friction"), "friction");
    if (options.friction < 0) fail("friction must be >= 0, got " + document["friction"].dump());
  }

  /// The optional step keys of the contact law and the drift correction, the same in 2D and 3D:
  /// "friction_model" ("coulomb", "stewart-trinkle", "anitescu-potra": `contact::FrictionModel`'s
  /// names), "baumgarte" (in [0, 1)), "slop" (>= 0), "split_impulse" (true or false).
  template <class Options>
  void model_keys(const json& document, Options& options) const {
    if (const json* model = find(document, "friction_model")) {
      std::string names;
      for (const auto& row : contact::kFrictionModelNames) names += (names.empty() ? "\"" : ", \"") + std::string(row.name) + "\"";
      if (!model->is_string()) fail("friction_model must be one of " + names + ", got " + model->dump());
      try {
        options.friction_model = from_string<contact::FrictionModel>(model->get<std::string>());
      } catch (const InvalidProblem&) {
        fail("friction_model must be one of " + names + ", got " + model->dump());
      }
    }
    if (const json* beta = find(document, "baumgarte")) {
      options.baumgarte = number(*beta, "baumgarte");
      if (options.baumgarte < 0 || options.baumgarte >= 1) fail("baumgarte must be in [0, 1), got " + beta->dump());
    }
    if (const json* slop = find(document, "slop")) {
      options.slop = number(*slop, "slop");
      if (options.slop < 0) fail("slop must be >= 0, got " + slop->dump());
    }
    if (const json* split = find(document, "split_impulse")) options.split_impulse = boolean(*split, "split_impulse");
  }

  /// sleeping, sleep_speed, sleep_time: the same keys and messages in 2D and 3D.
  template <class Options>
  void sleep_keys(const json& document, Options& options) const {
    if (const json* sleeping = find(document, "sleeping")) options.sleeping = boolean(*sleeping, "sleeping");
    if (const json* speed = find(document, "sleep_speed")) {
      options.sleep_speed = number(*speed, "sleep_speed");
      if (options.sleep_speed < 0) fail("sleep_speed must be >= 0, got " + speed->dump());
    }
    if (const json* time = find(document, "sleep_time")) options.sleep_time = positive(*time, "sleep_time");
  }

  /// A plane {name, point, normal, friction, restitution} whose point and normal `vector` reads
  /// (2 or 3 entries): the same keys and messages in 2D and 3D.
  template <class Plane, class ReadVector>
  Plane plane(const json& value, const std::string& path, const ReadVector& vector) const {
    require_object(value, path);
    require_known_keys(value, path, {"name", "point", "normal", "friction", "restitution"});
    Plane plane;
    if (const json* name = find(value, "name")) {
      if (!name->is_string()) fail(child(path, "name") + " must be a string, got " + name->dump());
      plane.name = name->get<std::string>();
    }
    plane.point = vector(require(value, path, "point"), child(path, "point"));
    plane.normal = vector(require(value, path, "normal"), child(path, "normal"));
    if (!(plane.normal.norm() > 0) || !std::isfinite(plane.normal.norm())) {
      fail(child(path, "normal") + " must be a non-zero vector of finite length, got " +
           require(value, path, "normal").dump());
    }
    material(value, path, plane.friction, plane.restitution);
    return plane;
  }

  /// The value of `key`, or of its deprecated spelling `old` (read for one release: the sentence
  /// goes to `deprecated`), with the spelling found; null when neither is given; both given: refused.
  std::pair<const json*, std::string> find_renamed(const json& object, std::string_view key,
                                                   std::string_view old) const {
    const json* value = find(object, key);
    const json* deprecated_value = find(object, old);
    if (deprecated_value == nullptr) return {value, std::string(key)};
    if (value != nullptr) {
      fail("\"" + std::string(key) + "\" and its deprecated spelling \"" + std::string(old) +
           "\" are both given; keep \"" + std::string(key) + "\"");
    }
    deprecated(source_ + ": the scene key \"" + std::string(old) + "\" is deprecated; use \"" + std::string(key) +
               "\" (the old key is read until the next release)");
    return {deprecated_value, std::string(old)};
  }

  /// A deprecated spelling was read: `sentence` to the caller's list, or a line on stderr.
  void deprecated(const std::string& sentence) const {
    if (deprecations_ != nullptr) {
      deprecations_->push_back(sentence);
    } else {
      std::fprintf(stderr, "perp: warning: %s\n", sentence.c_str());
    }
  }

  /// The keys of each step's solve, the same in 2D and 3D, each optional: "method" (a method's
  /// name, into `options.method`; deprecated spelling "solver"), "tol" (> 0, into
  /// `options.solve.tolerance`; deprecated spelling "tolerance"), "max_iter" (an integer >= 0, into
  /// `options.solve.max_iterations`; 0: the method's default).
  template <class Options>
  void solve_keys(const json& document, Options& options) const {
    if (const auto [method, name] = find_renamed(document, "method", "solver"); method != nullptr) {
      if (!method->is_string()) fail(name + " must be a method name string, got " + method->dump());
      try {
        options.method = from_string<Method>(method->get<std::string>());
      } catch (const InvalidProblem& error) {
        fail(name + ": " + error.what());
      }
    }
    if (const auto [tol, name] = find_renamed(document, "tol", "tolerance"); tol != nullptr) {
      options.solve.tolerance = positive(*tol, name);
    }
    if (const json* max_iter = find(document, "max_iter")) {
      if (!max_iter->is_number_integer() || max_iter->get<std::int64_t>() < 0 ||
          max_iter->get<std::int64_t>() > std::numeric_limits<int>::max()) {
        fail("max_iter must be an integer in [0, 2147483647], got " + max_iter->dump());
      }
      options.solve.max_iterations = static_cast<int>(max_iter->get<std::int64_t>());
    }
  }

  /// "ground" (optional): {"height"}, into `ground` (a Ground{height}, 2D or 3D).
  template <class Ground>
  void ground_key(const json& document, std::optional<Ground>& ground) const {
    const json* value = find(document, "ground");
    if (value == nullptr) return;
    require_object(*value, "ground");
    require_known_keys(*value, "ground", {"height"});
    ground = Ground{number(require(*value, "ground", "height"), "ground.height")};
  }

  /// "planes" (optional): an array, each entry read by `plane(value, path)` and appended to `planes`.
  template <class Planes, class ReadPlane>
  void planes_key(const json& document, Planes& planes, const ReadPlane& plane) const {
    const json* values = find(document, "planes");
    if (values == nullptr) return;
    if (!values->is_array()) fail(std::string("planes must be an array, got ") + values->type_name());
    for (std::size_t i = 0; i < values->size(); ++i) {
      planes.push_back(plane((*values)[i], "planes[" + std::to_string(i) + "]"));
    }
  }

  /// "bodies" (required): an array, each entry read by `body(value, path)` into the scene's world;
  /// then the scene validated, its message given with the source.
  template <class Scene, class ReadBody>
  void bodies_key(const json& document, Scene& scene, const ReadBody& body) const {
    const json& bodies = require(document, "", "bodies");
    if (!bodies.is_array()) fail(std::string("bodies must be an array, got ") + bodies.type_name());
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      scene.world.bodies.push_back(body(bodies[i], "bodies[" + std::to_string(i) + "]"));
    }
    try {
      scene.validate();
    } catch (const InvalidProblem& error) {
      fail(error.what());
    }
  }

 private:
  std::string source_;
  std::vector<std::string>* deprecations_ = nullptr;
};

}  // namespace perp::detail
