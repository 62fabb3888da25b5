// perp._perp: VecWorld, many copies of a planar scene stepped together without the GIL (perp.VecWorld).
#include "perp/contact/vec_world.hpp"

#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "common.hpp"

namespace perp::python {

// A namespace of its own: the unity build compiles this file with the module's others.
namespace vec_world_binding {

using contact::VecWorld;

/// The bound type: a VecWorld and whether a step runs on it now. The step runs without the GIL, so
/// another Python thread could otherwise read or reset the worlds while they are being stepped.
struct PyVecWorld : VecWorld {
  using VecWorld::VecWorld;
  bool stepping = false;  // read and written with the GIL held
};

const VecWorld& idle(const PyVecWorld& v) {
  if (v.stepping) throw py::value_error("VecWorld: another thread is stepping it; wait for its step to return");
  return v;
}

/// A C-ordered float64 array (a copy only when the input is not one already).
using CArray = py::array_t<double, py::array::c_style | py::array::forcecast>;

template <class T>
py::array_t<T> vec_copy(std::span<const T> values, std::vector<py::ssize_t> shape) {
  py::array_t<T> out(shape);
  std::copy(values.begin(), values.end(), out.mutable_data());
  return out;
}

py::array_t<bool> vec_bools(std::span<const std::uint8_t> values) {
  py::array_t<bool> out(static_cast<py::ssize_t>(values.size()));
  bool* data = out.mutable_data();
  for (std::size_t i = 0; i < values.size(); ++i) data[i] = values[i] != 0;
  return out;
}

/// Steps `vec` once without the GIL; Ctrl-C (seen between worlds by the calling thread) raises
/// KeyboardInterrupt after the worlds already started have finished their step.
/// `values` as a (worlds, bodies, 3) array of doubles (`what`: its name and what its last axis holds),
/// or an empty span for None; `storage` keeps the converted array alive.
std::span<const double> per_body_array(const py::object& values, const char* name, const char* components,
                                       py::ssize_t n, py::ssize_t nb, CArray& storage) {
  if (values.is_none()) return {};
  try {
    storage = values.cast<CArray>();
  } catch (const py::cast_error&) {
    throw py::type_error(std::string(name) + ": expected an array of real numbers of shape (" + std::to_string(n) +
                         ", " + std::to_string(nb) + ", 3)");
  }
  if (storage.ndim() != 3 || storage.shape(0) != n || storage.shape(1) != nb || storage.shape(2) != 3) {
    throw InvalidProblem(std::string(name) + ": expected shape (" + std::to_string(n) + ", " + std::to_string(nb) +
                         ", 3) (worlds, bodies, " + components + "), got " + shape_text(storage));
  }
  return {storage.data(), static_cast<std::size_t>(storage.size())};
}

void vec_step(PyVecWorld& vec, const py::object& forces_in, const py::object& velocities_in) {
  (void)idle(vec);
  const auto n = static_cast<py::ssize_t>(vec.size());
  const auto nb = static_cast<py::ssize_t>(vec.bodies());
  CArray forces;
  CArray velocities;
  const std::span<const double> span = per_body_array(forces_in, "forces", "fx/fy/torque", n, nb, forces);
  const std::span<const double> targets =
      per_body_array(velocities_in, "velocities", "vx/vy/omega; NaN: not driven", n, nb, velocities);
  const std::function<bool()> hook = signal_hook();
  bool complete = true;
  vec.stepping = true;
  try {
    const py::gil_scoped_release release;
    complete = vec.step(span, hook, targets);
  } catch (...) {
    vec.stepping = false;  // (step throws only before any world steps: bad forces)
    throw;
  }
  vec.stepping = false;
  if (!complete) {
    raise_pending();  // the KeyboardInterrupt that stopped the step
    throw std::runtime_error("VecWorld.step: interrupted");
  }
}

void vec_reset(PyVecWorld& vec, const py::object& mask_in) {
  (void)idle(vec);
  if (mask_in.is_none()) {
    vec.reset();
    return;
  }
  py::array mask_array = py::array::ensure(mask_in);
  if (!mask_array || mask_array.dtype().kind() != 'b') {
    throw py::type_error("mask: expected an array of " + std::to_string(vec.size()) + " booleans, got " +
                         std::string(py::str(py::type::of(mask_in).attr("__name__"))));
  }
  if (mask_array.ndim() != 1 || mask_array.shape(0) != static_cast<py::ssize_t>(vec.size())) {
    throw InvalidProblem("mask: expected shape (" + std::to_string(vec.size()) + ",) (one per world), got " +
                         shape_text(mask_array));
  }
  const auto flags = py::array_t<bool, py::array::c_style | py::array::forcecast>::ensure(mask_array);
  std::vector<std::uint8_t> mask(vec.size());
  for (std::size_t i = 0; i < mask.size(); ++i) mask[i] = flags.data()[i] ? 1 : 0;
  vec.reset(mask);
}

}  // namespace vec_world_binding

void bind_vec_world(py::module_& m);

void bind_vec_world(py::module_& m) {
  using namespace vec_world_binding;
  using py::arg;
  py::class_<PyVecWorld>(m, "VecWorld", "N copies of a planar scene stepped together on a thread pool (perp.VecWorld).")
      .def(py::init([](const std::string& text, const std::string& source, std::size_t n, unsigned threads) {
             std::vector<std::string> deprecations;
             contact::Scene scene = parse_scene_json(text, source, &deprecations);
             warn_deprecations(deprecations);
             return std::make_unique<PyVecWorld>(std::move(scene), n, threads);
           }),
           arg("text"), arg("source"), arg("n"), arg("threads"))
      .def_static(
          "from_file",
          [](const std::string& path, std::size_t n, unsigned threads) {
            std::vector<std::string> deprecations;
            contact::Scene scene = read_scene_file(path, &deprecations);
            warn_deprecations(deprecations);
            return std::make_unique<PyVecWorld>(std::move(scene), n, threads);
          },
          arg("path"), arg("n"), arg("threads"))
      .def("step", &vec_step, arg("forces"), arg("velocities"))
      .def("reset", &vec_reset, arg("mask"))
      .def_property_readonly("n", [](const PyVecWorld& v) { return v.size(); })
      .def_property_readonly("threads", [](const PyVecWorld& v) { return v.threads(); })
      .def_property_readonly("timestep",
                             [](const PyVecWorld& pv) {
                               const VecWorld& v = idle(pv);
                               return v.scene().options.timestep;
                             })
      .def_property_readonly("body_names",
                             [](const PyVecWorld& pv) {
                               const VecWorld& v = idle(pv);
                               std::vector<std::string> names;
                               for (const contact::Body& b : v.scene().world.bodies) names.push_back(b.name);
                               return names;
                             })
      .def_property_readonly("positions",
                             [](const PyVecWorld& pv) {
                               const VecWorld& v = idle(pv);
                               return vec_copy(v.positions(), {static_cast<py::ssize_t>(v.size()),
                                                               static_cast<py::ssize_t>(v.bodies()), 3});
                             })
      .def_property_readonly("velocities",
                             [](const PyVecWorld& pv) {
                               const VecWorld& v = idle(pv);
                               return vec_copy(v.velocities(), {static_cast<py::ssize_t>(v.size()),
                                                                static_cast<py::ssize_t>(v.bodies()), 3});
                             })
      .def_property_readonly("solved",
                             [](const PyVecWorld& pv) {
                               const VecWorld& v = idle(pv);
                               return vec_bools(v.solved());
                             })
      .def_property_readonly("failed",
                             [](const PyVecWorld& pv) {
                               const VecWorld& v = idle(pv);
                               return vec_bools(v.failed());
                             })
      .def_property_readonly("criterion",
                             [](const PyVecWorld& pv) {
                               const VecWorld& v = idle(pv);
                               return vec_copy(v.criterion(), {static_cast<py::ssize_t>(v.size())});
                             })
      .def_property_readonly("contacts",
                             [](const PyVecWorld& pv) {
                               const VecWorld& v = idle(pv);
                               return vec_copy(v.contacts(), {static_cast<py::ssize_t>(v.size())});
                             })
      .def_property_readonly("body_contacts",
                             [](const PyVecWorld& pv) {
                               const VecWorld& v = idle(pv);
                               return vec_copy(v.body_contacts(), {static_cast<py::ssize_t>(v.size()),
                                                                   static_cast<py::ssize_t>(v.bodies())});
                             })
      .def_property_readonly("steps",
                             [](const PyVecWorld& pv) {
                               const VecWorld& v = idle(pv);
                               return vec_copy(v.steps(), {static_cast<py::ssize_t>(v.size())});
                             })
      .def_property_readonly("status",
                             [](const PyVecWorld& pv) {
                               const VecWorld& v = idle(pv);
                               py::list out;
                               for (Status s : v.status()) out.append(status_object(s));
                               return out;
                             })
      .def_property_readonly("fallback",
                             [](const PyVecWorld& pv) {
                               const VecWorld& v = idle(pv);
                               py::list out;
                               for (std::size_t i = 0; i < v.size(); ++i) out.append(v.fallback(i));
                               return out;
                             })
      .def_property_readonly("messages",
                             [](const PyVecWorld& pv) {
                               const VecWorld& v = idle(pv);
                               py::list out;
                               for (std::size_t i = 0; i < v.size(); ++i) out.append(v.message(i));
                               return out;
                             })
      .def(
          "world",
          [](const PyVecWorld& pv, std::size_t i) {
            const VecWorld& v = idle(pv);
            if (i >= v.size()) {
              throw py::index_error("world: index " + std::to_string(i) + " out of range for " +
                                    std::to_string(v.size()) + " worlds");
            }
            return v.world(i);
          },
          arg("i"), "A copy of world i as a perp.World (its bodies' force and torque: those of its last step).");
}

}  // namespace perp::python
