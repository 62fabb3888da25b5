// perp._perp: the method options of every solve, read by name from the dicts of the Python layer
// (make_options, common.hpp), and the interrupt hook the solves poll.
#include <pybind11/stl.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "common.hpp"

namespace perp::python {

namespace {

/// The entries of one options dict, read by name; `finish` refuses the names nobody read.
class Fields {
 public:
  Fields(const py::dict& dict, std::string prefix) : dict_(dict), prefix_(std::move(prefix)) {}

  bool has(const char* key) {
    known_.emplace_back(key);
    return dict_.contains(key);
  }
  py::handle at(const char* key) { return dict_[key]; }

  void number(const char* key, double& out) {
    if (!has(key)) return;
    py::handle v = at(key);
    const bool is_bool = py::isinstance<py::bool_>(v);
    const double value = is_bool ? 0.0 : PyFloat_AsDouble(v.ptr());
    if (is_bool || (value == -1.0 && PyErr_Occurred())) {
      PyErr_Clear();
      throw py::type_error("option '" + prefix_ + key + "': expected a float, got " + type_name(v));
    }
    out = value;
  }
  template <class Int>
  void integer(const char* key, Int& out) {
    if (!has(key)) return;
    py::handle v = at(key);
    if (py::isinstance<py::bool_>(v) || !PyIndex_Check(v.ptr())) {
      throw py::type_error("option '" + prefix_ + key + "': expected an int, got " + type_name(v));
    }
    auto index = py::reinterpret_steal<py::object>(PyNumber_Index(v.ptr()));
    if (!index) throw py::error_already_set();
    int overflow = 0;
    const long long value = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
    if (overflow != 0 || !std::in_range<Int>(value)) {
      throw py::value_error("option '" + prefix_ + key + "' = " + py::str(index).cast<std::string>() +
                            " is out of range");
    }
    out = static_cast<Int>(value);
  }
  void boolean(const char* key, bool& out) {
    if (!has(key)) return;
    py::handle v = at(key);
    if (!py::isinstance<py::bool_>(v) && type_name(v) != "bool_") {
      throw py::type_error("option '" + prefix_ + key + "': expected a bool, got " + type_name(v));
    }
    out = PyObject_IsTrue(v.ptr()) == 1;
  }
  void text(const char* key, std::string& out) {
    if (!has(key)) return;
    py::handle v = at(key);
    if (!py::isinstance<py::str>(v)) {
      throw py::type_error("option '" + prefix_ + key + "': expected a str, got " + type_name(v));
    }
    out = v.cast<std::string>();
  }
  bool vector(const char* key, Eigen::VectorXd& out) {
    if (!has(key)) return false;
    py::handle v = at(key);
    FArray array;
    try {
      array = v.cast<FArray>();
    } catch (const py::cast_error&) {
      throw py::type_error("option '" + prefix_ + key + "': expected a 1-D array of floats, got " + type_name(v));
    }
    out = to_vector(array, (prefix_ + key).c_str());
    return true;
  }
  /// The nested dict `key` (e.g. lemke={...}), or none.
  std::optional<py::dict> group(const char* key) {
    if (!has(key)) return std::nullopt;
    py::handle v = at(key);
    if (!py::isinstance<py::dict>(v)) {
      throw py::type_error("option '" + prefix_ + key + "': expected a dict, got " + type_name(v));
    }
    return v.cast<py::dict>();
  }

  void finish() const {
    for (const auto& item : dict_) {
      if (!py::isinstance<py::str>(item.first)) {
        throw py::type_error("option names must be strings, got " + type_name(item.first));
      }
      const auto key = item.first.cast<std::string>();
      if (std::find(known_.begin(), known_.end(), key) == known_.end()) {
        std::string valid;
        for (const std::string& name : known_) valid += (valid.empty() ? "" : ", ") + prefix_ + name;
        throw py::type_error("unknown option '" + prefix_ + key + "'; valid options: " + valid);
      }
    }
  }

 private:
  py::dict dict_;
  std::string prefix_;
  std::vector<std::string> known_;
};

Method method_option(const std::string& name) { return from_string<Method>(name); }

// A trace event as the dict the Python callback receives: the keys of `perp solve --trace --json`
// (docs/cli.md), pivot variables by their names in [chapter] §1.4, lists as Python lists.
// (for_each_field, options.hpp), with Python floats as they are (+inf stays inf).
py::dict trace_event_dict(const TraceEvent& e) {
  py::dict d;
  for_each_field(e, [&d](const char* key, const auto& value) { d[key] = value; });
  return d;
}

}  // namespace

std::function<bool()> signal_hook() {
  return [] {
    const py::gil_scoped_acquire gil;
    // A KeyboardInterrupt already raised by an earlier poll stays pending: every later poll stops too.
    return PyErr_Occurred() != nullptr || PyErr_CheckSignals() != 0;
  };
}

void warn_deprecations(const std::vector<std::string>& sentences) {
  for (const std::string& sentence : sentences) {
    // stacklevel 2: the line that called the perp function whose binding read the scene
    if (PyErr_WarnEx(PyExc_DeprecationWarning, sentence.c_str(), 2) != 0) throw py::error_already_set();
  }
}

void raise_pending() {
  if (PyErr_Occurred() != nullptr) throw py::error_already_set();
}

void set_max_iter(SolveOptions& o, const py::object& max_iter) {
  if (max_iter.is_none()) {
    o.max_iterations = 0;
    return;
  }
  py::dict one;
  one["max_iter"] = max_iter;
  Fields f(one, "");
  f.integer("max_iter", o.max_iterations);
}

SolveOptions make_options(double tol, const py::object& max_iter, const py::object& warm_start,
                          const py::dict& options) {
  SolveOptions o;
  o.tolerance = tol;
  o.interrupt = signal_hook();
  set_max_iter(o, max_iter);
  if (!warm_start.is_none()) {
    py::dict one;
    one["warm_start"] = warm_start;
    Fields f(one, "");
    Eigen::VectorXd guess;
    f.vector("warm_start", guess);
    o.initial_guess = std::move(guess);
  }
  read_method_options(o, options);
  return o;
}

void read_method_options(SolveOptions& o, const py::dict& options) {
  if (options.empty()) return;

  Fields f(options, "");
  if (f.has("relaxation")) {
    double relaxation = 0;
    f.number("relaxation", relaxation);
    o.relaxation = relaxation;
  }
  f.boolean("all_solutions", o.all_solutions);
  f.integer("max_solutions", o.max_solutions);
  if (f.has("time_limit") && !f.at("time_limit").is_none()) f.number("time_limit", o.time_limit);
  f.boolean("record_history", o.record_history);
  f.boolean("measure_time", o.measure_time);
  f.integer("max_friction_passes", o.max_friction_passes);
  if (f.has("trace") && !f.at("trace").is_none()) {
    // Called with the GIL taken per event (the solve runs without it); the handle is borrowed from
    // the options dict, which outlives the solve, so copying it touches no reference count.
    py::handle callback = f.at("trace");
    if (PyCallable_Check(callback.ptr()) == 0) {
      throw py::type_error("option 'trace': expected a callable taking one dict, got " + type_name(callback));
    }
    o.trace = [callback](const TraceEvent& event) {
      py::gil_scoped_acquire gil;
      callback(trace_event_dict(event));
    };
  }
  if (auto g = f.group("lemke")) {
    Fields l(*g, "lemke.");
    Eigen::VectorXd d;
    if (l.vector("covering_vector", d)) o.lemke.covering_vector = std::move(d);
    l.number("pivot_tolerance", o.lemke.pivot_tolerance);
    l.boolean("refine", o.lemke.refine);
    l.finish();
  }
  if (auto g = f.group("newton")) {
    Fields n(*g, "newton.");
    n.number("armijo", o.newton.armijo);
    n.number("backtrack", o.newton.backtrack);
    n.integer("max_backtracks", o.newton.max_backtracks);
    n.integer("nonmonotone_memory", o.newton.nonmonotone_memory);
    n.boolean("line_search", o.newton.line_search);
    n.number("descent_rho", o.newton.descent_rho);
    n.number("penalty", o.newton.penalty);
    n.number("smoothing_mu", o.newton.smoothing_mu);
    n.number("smoothing_factor", o.newton.smoothing_factor);
    n.finish();
  }
  if (auto g = f.group("interior_point")) {
    Fields ip(*g, "interior_point.");
    ip.number("step_fraction", o.interior_point.step_fraction);
    ip.boolean("crossover", o.interior_point.crossover);
    ip.finish();
  }
  if (auto g = f.group("dantzig")) {
    Fields d(*g, "dantzig.");
    d.number("pivot_tolerance", o.dantzig.pivot_tolerance);
    d.finish();
  }
  if (auto g = f.group("mlcp")) {
    Fields ml(*g, "mlcp.");
    ml.number("schur_min_rcond", o.mlcp.schur_min_rcond);
    std::string inner;
    ml.text("schur_lcp_method", inner);
    if (!inner.empty()) o.mlcp.schur_lcp_method = method_option(inner);
    ml.integer("enum_max_complementarities", o.mlcp.enum_max_complementarities);
    ml.finish();
  }
  if (auto g = f.group("friction_contact")) {
    Fields fc(*g, "friction_contact.");
    FrictionContactOptions& c = o.friction_contact;
    fc.number("relaxation", c.relaxation);
    std::string order;
    fc.text("order", order);
    if (order == "natural") {
      c.order = ContactOrder::Natural;
    } else if (order == "random") {
      c.order = ContactOrder::Random;
    } else if (order == "given") {
      c.order = ContactOrder::Given;
    } else if (!order.empty()) {
      throw InvalidProblem("friction_contact.order: '" + order + "' is not one of natural, random, given");
    }
    fc.integer("seed", c.seed);
    if (fc.has("permutation")) {
      py::handle v = fc.at("permutation");
      try {
        c.permutation = v.cast<std::vector<Eigen::Index>>();
      } catch (const py::cast_error&) {
        throw py::type_error("option 'friction_contact.permutation': expected a sequence of ints, got " +
                             type_name(v));
      }
    }
    fc.integer("error_every", c.error_every);
    fc.number("local_tolerance", c.local_tolerance);
    fc.integer("local_iterations", c.local_iterations);
    fc.number("prox_rho", c.prox_rho);
    fc.integer("prox_max_outer", c.prox_max_outer);
    fc.integer("prox_anderson", c.prox_anderson);
    fc.integer("facets", c.facets);
    fc.integer("lcp_max_size", c.lcp_max_size);
    fc.integer("auto_nsgs_sweeps", c.auto_nsgs_sweeps);
    fc.integer("auto_shift_updates", c.auto_shift_updates);
    fc.finish();
  }
  f.finish();
}

}  // namespace perp::python
