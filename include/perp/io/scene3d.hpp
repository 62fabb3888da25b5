#pragma once
/// \file
/// 3D scene files (issue 36) for `perp simulate`: the planar format (io/scene.hpp) with
/// "dimension": 3, z up, 3-vectors and quaternions. Every key, the optional ones marked:
///
///   {"dimension": 3,
///    "gravity": [0, 0, -9.81], "timestep": 0.001, "duration": 2.0,
///    "theta": 0.5,                          optional, default 0.5, in [0.5, 1]
///    "restitution": 0.0, "friction": 0.5,
///    "tol": 1e-10,                          optional: each step's solve tolerance (> 0);
///                                           "tolerance" is its deprecated spelling
///    "max_iter": 0,                         optional: each step's iteration limit (0: the method's)
///    "method": "auto",                      optional: a method of the friction model's problem;
///                                           "solver" is its deprecated spelling
///    "friction_model": "coulomb",           optional, default: or "anitescu-potra" (the convex
///                                           law), "stewart-trinkle" (the polyhedral LCP)
///    "facets": 8,                           optional: k of the polyhedral model, in [3, 4096]
///    "baumgarte": 0.2, "slop": 0.005,       optional: drift correction, as in 2D (defaults shown)
///    "split_impulse": true,                 optional, default true
///    "sleeping": false,                     optional: islands with sleeping, as in 2D;
///    "sleep_speed": 0.01, "sleep_time": 0.5,          its speed (>= 0) and time (> 0)
///    "ground": {"height": 0.0},             optional: the plane z = height
///    "planes": [{"name": "slope",           optional; name optional
///                "point": [0, 0, 0], "normal": [-0.5, 0, 0.87],
///                "friction": 0.2, "restitution": 0.5}],   optional
///    "bodies": [{"name": "box", "shape": {"type": "box", "size": [1, 1, 1]}, "mass": 1.0,
///                "inertia": [0.1, 0.2, 0.3],            optional: principal moments along the body
///                                                       axes (or a 3×3 array); default from the shape
///                "position": [0, 0, 0.5],
///                "orientation": [1, 0, 0, 0],           optional: unit quaternion [w, x, y, z]
///                "velocity": [0, 0, 0],                 optional, world frame
///                "angular_velocity": [0, 0, 0],         optional, world frame
///                "fixed": false, "friction": 0.5, "restitution": 0.3}]}   optional
///
/// Shapes: {"type": "sphere", "radius"}, {"type": "box", "size": [lx, ly, lz]} (full edge
/// lengths), {"type": "capsule", "radius", "length"} (the segment, along the body z axis),
/// {"type": "cylinder", "radius", "length"}. Unknown keys, missing keys, values of the wrong type
/// or out of range are refused with `InvalidProblem` naming the key path ("bodies[1].orientation").

#include <filesystem>
#include <string>
#include <vector>

#include "perp/contact3d/scene.hpp"

namespace perp {

/// The scene's "dimension": 2 when the key is absent. Throws `InvalidProblem` when the text is not
/// a JSON object or the dimension is not 2 or 3.
[[nodiscard]] int scene_dimension(const std::string& text, const std::string& source = "<input>");
[[nodiscard]] int scene_file_dimension(const std::filesystem::path& path);

/// `deprecations`: where a sentence goes for each deprecated key the scene uses ("solver", "tolerance":
/// read for one release, docs/python.md "One spelling per setting"); null: a line each on stderr
/// ("perp: warning: …").
[[nodiscard]] contact3d::Scene parse_scene3d_json(const std::string& text, const std::string& source = "<input>",
                                  std::vector<std::string>* deprecations = nullptr);
[[nodiscard]] contact3d::Scene read_scene3d_file(const std::filesystem::path& path,
                                 std::vector<std::string>* deprecations = nullptr);

}  // namespace perp
