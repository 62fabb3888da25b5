// perp._perp: the method options of every solve, read by name from the dicts of the Python layer
// (make_options, common.hpp), and the interrupt hook the solves poll.
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <initializer_list>
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

ContactOrder contact_order_from(const std::string& name) {
  if (name == "natural") return ContactOrder::Natural;
  if (name == "random") return ContactOrder::Random;
  if (name == "given") return ContactOrder::Given;
  throw InvalidProblem("friction_contact.nsgs.order: '" + name + "' is not one of natural, random, given");
}

std::string contact_order_name(ContactOrder order) {
  switch (order) {
    case ContactOrder::Natural:
      return "natural";
    case ContactOrder::Random:
      return "random";
    case ContactOrder::Given:
      return "given";
  }
  return "unknown";
}

/// The keys of `friction_contact={...}` before the options were grouped by method: each old key,
/// the group that holds it now and its name there.
struct RenamedFrictionKey {
  const char* old_key;
  const char* group;
  const char* field;
};
constexpr std::array<RenamedFrictionKey, 14> kRenamedFrictionKeys{{
    {"relaxation", "nsgs", "relaxation"},
    {"order", "nsgs", "order"},
    {"seed", "nsgs", "seed"},
    {"permutation", "nsgs", "permutation"},
    {"error_every", "nsgs", "error_every"},
    {"local_tolerance", "local", "tolerance"},
    {"local_iterations", "local", "iterations"},
    {"prox_rho", "prox", "rho"},
    {"prox_max_outer", "prox", "max_outer"},
    {"prox_anderson", "prox", "anderson"},
    {"facets", "lemke", "facets"},
    {"lcp_max_size", "lemke", "lcp_max_size"},
    {"auto_nsgs_sweeps", "automatic", "nsgs_sweeps"},
    {"auto_shift_updates", "automatic", "shift_updates"},
}};

/// The group `key` of `fc` into `out`: either the bound C++ struct itself (copied) or a dict read
/// field by field by `read` (its Fields prefixed "friction_contact.KEY.").
template <class Group, class Read>
void friction_group(Fields& fc, const char* key, Group& out, Read read) {
  if (!fc.has(key)) return;
  py::handle v = fc.at(key);
  if (py::isinstance<Group>(v)) {
    out = v.cast<Group>();
    return;
  }
  const std::string prefix = std::string("friction_contact.") + key + ".";
  if (!py::isinstance<py::dict>(v)) {
    throw py::type_error("option 'friction_contact." + std::string(key) + "': expected a dict or a " +
                         std::string(py::str(py::type::of<Group>().attr("__name__"))) + ", got " + type_name(v));
  }
  Fields group(v.cast<py::dict>(), prefix);
  read(group, out);
  group.finish();
}

/// `friction_contact=`: a FrictionContactOptions, or a dict of its groups (nsgs, local, prox, lemke,
/// automatic), each a dict or the group's bound struct. The flat keys of before the groups
/// (`kRenamedFrictionKeys`) are read into their group with a DeprecationWarning naming the new path;
/// an old key given beside its new one is a ValueError.
void read_friction_contact(FrictionContactOptions& c, py::handle value) {
  if (py::isinstance<FrictionContactOptions>(value)) {
    c = value.cast<FrictionContactOptions>();
    return;
  }
  if (!py::isinstance<py::dict>(value)) {
    throw py::type_error("option 'friction_contact': expected a dict or a FrictionContactOptions, got " +
                         type_name(value));
  }
  // A copy of the dict (and of the groups' dicts) with the old keys moved into their groups.
  auto grouped = py::reinterpret_steal<py::dict>(PyDict_Copy(value.ptr()));
  if (!grouped) throw py::error_already_set();
  for (const RenamedFrictionKey& renamed : kRenamedFrictionKeys) {
    if (!grouped.contains(renamed.old_key)) continue;
    const std::string old_name = std::string("friction_contact.") + renamed.old_key;
    const std::string new_name = std::string("friction_contact.") + renamed.group + "." + renamed.field;
    py::object given = grouped[renamed.old_key];
    if (PyDict_DelItemString(grouped.ptr(), renamed.old_key) != 0) throw py::error_already_set();
    if (!grouped.contains(renamed.group)) {
      grouped[renamed.group] = py::dict();
    } else if (py::isinstance<py::dict>(grouped[renamed.group])) {
      auto copy = py::reinterpret_steal<py::dict>(PyDict_Copy(py::object(grouped[renamed.group]).ptr()));
      if (!copy) throw py::error_already_set();
      grouped[renamed.group] = copy;
    }
    py::object group = grouped[renamed.group];
    if (!py::isinstance<py::dict>(group) || group.cast<py::dict>().contains(renamed.field)) {
      throw py::value_error("option '" + old_name + "' is the old name of '" + new_name + "'; give it once, as '" +
                            new_name + "'");
    }
    const std::string sentence = "option '" + old_name + "' is deprecated; use '" + new_name +
                                 "' (the old name is read until the next release)";
    // stacklevel 2: the line that called the perp function whose binding read the options
    if (PyErr_WarnEx(PyExc_DeprecationWarning, sentence.c_str(), 2) != 0) throw py::error_already_set();
    group.cast<py::dict>()[renamed.field] = given;
  }
  Fields fc(grouped, "friction_contact.");
  friction_group(fc, "nsgs", c.nsgs, [](Fields& n, NsgsOptions& o) {
    n.number("relaxation", o.relaxation);
    std::string order;
    n.text("order", order);
    if (!order.empty()) o.order = contact_order_from(order);
    n.integer("seed", o.seed);
    if (n.has("permutation")) {
      py::handle v = n.at("permutation");
      try {
        o.permutation = v.cast<std::vector<Eigen::Index>>();
      } catch (const py::cast_error&) {
        throw py::type_error("option 'friction_contact.nsgs.permutation': expected a sequence of ints, got " +
                             type_name(v));
      }
    }
    n.integer("error_every", o.error_every);
  });
  friction_group(fc, "local", c.local, [](Fields& l, LocalSolveOptions& o) {
    l.number("tolerance", o.tolerance);
    l.integer("iterations", o.iterations);
  });
  friction_group(fc, "prox", c.prox, [](Fields& p, ProxOptions& o) {
    p.number("rho", o.rho);
    p.integer("max_outer", o.max_outer);
    p.integer("anderson", o.anderson);
  });
  friction_group(fc, "lemke", c.lemke, [](Fields& l, FrictionLemkeOptions& o) {
    l.integer("facets", o.facets);
    l.integer("lcp_max_size", o.lcp_max_size);
  });
  friction_group(fc, "automatic", c.automatic, [](Fields& a, FrictionAutoOptions& o) {
    a.integer("nsgs_sweeps", o.nsgs_sweeps);
    a.integer("shift_updates", o.shift_updates);
  });
  fc.finish();
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
  if (f.has("friction_contact")) read_friction_contact(o.friction_contact, f.at("friction_contact"));
  f.finish();
}

}  // namespace perp::python

namespace perp::python {

namespace {

/// "Name(field=value, …)" of a bound options struct, from its fields' Python values.
std::string options_repr(py::handle self, std::initializer_list<const char*> fields) {
  std::string text = py::type::of(self).attr("__name__").cast<std::string>() + "(";
  const char* separator = "";
  for (const char* field : fields) {
    text += separator + std::string(field) + "=" + py::repr(self.attr(field)).cast<std::string>();
    separator = ", ";
  }
  return text + ")";
}

}  // namespace

/// FrictionContactOptions and its groups as perp._perp classes: each field under its C++ name,
/// default-constructed from the C++ initializers (the one source of their defaults), the contact
/// order by its name. A group is held by its FrictionContactOptions: `o.prox.rho = 2.0` changes `o`.
/// Values are checked by `validate()`, which every solve calls.
void bind_friction_options(py::module_& m) {
  py::class_<NsgsOptions>(m, "NsgsOptions", "nsgs' options (C++ perp::NsgsOptions); defaults are C++'s.")
      .def(py::init<>())
      .def_readwrite("relaxation", &NsgsOptions::relaxation)
      .def_property(
          "order", [](const NsgsOptions& o) { return contact_order_name(o.order); },
          [](NsgsOptions& o, const std::string& name) { o.order = contact_order_from(name); },
          "The contact order of a sweep: \"natural\", \"random\" or \"given\".")
      .def_readwrite("seed", &NsgsOptions::seed)
      .def_readwrite("permutation", &NsgsOptions::permutation,
                     "The order of \"given\" (a list: assign a new one, it is copied).")
      .def_readwrite("error_every", &NsgsOptions::error_every)
      .def("__repr__", [](py::handle self) {
        return options_repr(self, {"relaxation", "order", "seed", "permutation", "error_every"});
      });
  py::class_<LocalSolveOptions>(m, "LocalSolveOptions",
                                "The 3D local solve's options (C++ perp::LocalSolveOptions); defaults are C++'s.")
      .def(py::init<>())
      .def_readwrite("tolerance", &LocalSolveOptions::tolerance)
      .def_readwrite("iterations", &LocalSolveOptions::iterations)
      .def("__repr__", [](py::handle self) { return options_repr(self, {"tolerance", "iterations"}); });
  py::class_<ProxOptions>(m, "ProxOptions", "prox's options (C++ perp::ProxOptions); defaults are C++'s.")
      .def(py::init<>())
      .def_readwrite("rho", &ProxOptions::rho)
      .def_readwrite("max_outer", &ProxOptions::max_outer)
      .def_readwrite("anderson", &ProxOptions::anderson)
      .def("__repr__", [](py::handle self) { return options_repr(self, {"rho", "max_outer", "anderson"}); });
  py::class_<FrictionLemkeOptions>(
      m, "FrictionLemkeOptions",
      "lemke's options on a frictional contact problem (C++ perp::FrictionLemkeOptions); defaults are C++'s.")
      .def(py::init<>())
      .def_readwrite("facets", &FrictionLemkeOptions::facets)
      .def_readwrite("lcp_max_size", &FrictionLemkeOptions::lcp_max_size)
      .def("__repr__", [](py::handle self) { return options_repr(self, {"facets", "lcp_max_size"}); });
  py::class_<FrictionAutoOptions>(
      m, "FrictionAutoOptions",
      "auto's options on a frictional contact problem (C++ perp::FrictionAutoOptions); defaults are C++'s.")
      .def(py::init<>())
      .def_readwrite("nsgs_sweeps", &FrictionAutoOptions::nsgs_sweeps)
      .def_readwrite("shift_updates", &FrictionAutoOptions::shift_updates)
      .def("__repr__", [](py::handle self) { return options_repr(self, {"nsgs_sweeps", "shift_updates"}); });
  py::class_<FrictionContactOptions>(m, "FrictionContactOptions",
                                     "The frictional contact methods' options, one group a method (C++ "
                                     "perp::FrictionContactOptions); defaults are C++'s.")
      .def(py::init<>())
      .def_readwrite("nsgs", &FrictionContactOptions::nsgs)
      .def_readwrite("local", &FrictionContactOptions::local)
      .def_readwrite("prox", &FrictionContactOptions::prox)
      .def_readwrite("lemke", &FrictionContactOptions::lemke)
      .def_readwrite("automatic", &FrictionContactOptions::automatic)
      .def("validate", &FrictionContactOptions::validate, py::arg("contacts") = -1,
           "Raises InvalidProblem naming the first bad field by its path (friction_contact.prox.rho); with "
           "contacts >= 0 it also checks nsgs.permutation against them.")
      .def("__repr__", [](py::handle self) {
        return options_repr(self, {"nsgs", "local", "prox", "lemke", "automatic"});
      });
}

}  // namespace perp::python
