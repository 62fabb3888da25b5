#pragma once
/// \file
/// Scene files (JSON) for `perp simulate`. Every key, with the optional ones marked:
///
///   {"dimension": 2,                      optional: 2 (3: a 3D scene, io/scene3d.hpp)
///    "gravity": [0, -9.81], "timestep": 0.001, "duration": 2.0,
///    "theta": 0.5,                        optional, default 0.5, in [0.5, 1]
///    "restitution": 0.5, "friction": 0.3,
///    "friction_model": "coulomb",         optional, default: or "stewart-trinkle", "anitescu-potra"
///    "projection": false,                 optional: position-level projection of overlaps
///    "baumgarte": 0.2, "slop": 0.005,     optional: Baumgarte stabilization (default 0, 0)
///    "split_impulse": true,               optional: Baumgarte through a position-only solve
///    "tol": 1e-10,                        optional: each step's solve tolerance (> 0); "tolerance"
///                                         is its deprecated spelling
///    "max_iter": 0,                       optional: each step's iteration limit (0: the method's)
///    "method": "auto",                    optional: each step's method (`perp simulate --method`
///                                         overrides it); "solver" is its deprecated spelling
///    "ground": {"height": 0.0},           optional; without it there is no ground
///    "planes": [{"name": "wall",          optional: walls and slopes, static half-planes; name
///                "point": [2, 0],         optional; the solid is normal · (x − point) <= 0
///                "normal": [-1, 0],       (any non-zero length)
///                "friction": 0.2, "restitution": 0.5}],   optional, as for bodies
///    "bodies": [{"name": "ball", "shape": {"type": "disk", "radius": 0.1}, "mass": 1.0,
///                "inertia": 0.005,        optional, default from the shape
///                "position": [0.0, 1.0],
///                "angle": 0.0,            optional, default 0
///                "velocity": [0.0, 0.0],  optional, default [0, 0]
///                "angular_velocity": 0.0, optional, default 0
///                "fixed": false,          optional: a static (or, with a velocity, kinematic)
///                                         obstacle of infinite mass
///                "friction": 0.5,         optional: this body's μ (contacts: √(μ_a μ_b))
///                "restitution": 0.3       optional: this body's e (contacts: the larger)
///               }]}
///
/// Shapes: {"type": "disk", "radius": r}, {"type": "box", "width": w, "height": h},
/// {"type": "rod", "length": L}. Unknown keys, missing required keys, values of the wrong type
/// and values out of range are refused with `InvalidProblem` naming the key path
/// ("bodies[1].shape.radius").

#include <filesystem>
#include <string>
#include <vector>

#include "perp/contact/scene.hpp"

namespace perp {

/// `deprecations`: where a sentence goes for each deprecated key the scene uses ("solver", "tolerance":
/// read for one release, docs/python.md "One spelling per setting"); null: a line each on stderr
/// ("perp: warning: …").
[[nodiscard]] contact::Scene parse_scene_json(const std::string& text, const std::string& source = "<input>",
                                  std::vector<std::string>* deprecations = nullptr);
[[nodiscard]] contact::Scene read_scene_file(const std::filesystem::path& path,
                                 std::vector<std::string>* deprecations = nullptr);

}  // namespace perp
