// perp._perp: the compiled part of the Python package (docs/python.md). This file holds the
// conversions, the options, the Result types, the LCP solve, solve_many and classify;
// problems.cpp the other problem types and the files, contact.cpp the contact layer.
#include <pybind11/stl.h>

#include <algorithm>
#include <exception>
#include <limits>
#include <set>
#include <utility>
#include <vector>

#include "common.hpp"

namespace perp::python {

namespace {

// Leaked on purpose: these hold Python objects that must not be released after the interpreter
// has finalized (static destructors run after it).
std::vector<py::object>* g_status_members = nullptr;
py::object* g_invalid_problem = nullptr;

std::string type_name(py::handle value) { return py::str(py::type::handle_of(value).attr("__name__")); }

std::string shape_text(const py::array& a) {
  std::string text = "(";
  for (py::ssize_t i = 0; i < a.ndim(); ++i) {
    text += std::to_string(a.shape(i));
    if (a.ndim() == 1 || i + 1 < a.ndim()) text += i + 1 < a.ndim() ? ", " : ",";
  }
  return text + ")";
}

}  // namespace

py::object invalid_problem_type() { return *g_invalid_problem; }

Eigen::MatrixXd to_matrix(const FArray& a, const char* name) {
  if (a.ndim() != 2) {
    throw py::value_error(std::string(name) + ": expected a 2-D array, got shape " + shape_text(a));
  }
  return Eigen::Map<const Eigen::MatrixXd>(a.data(), a.shape(0), a.shape(1));
}

Eigen::VectorXd to_vector(const FArray& a, const char* name) {
  if (a.ndim() != 1) {
    throw py::value_error(std::string(name) + ": expected a 1-D array, got shape " + shape_text(a));
  }
  return Eigen::Map<const Eigen::VectorXd>(a.data(), a.shape(0));
}

Eigen::SparseMatrix<double> to_sparse(Eigen::Index rows, Eigen::Index cols, const py::array_t<long long>& indptr,
                                      const py::array_t<long long>& indices, const FArray& data, const char* name) {
  const std::string field(name);
  if (rows < 0 || cols < 0) throw py::value_error(field + ": negative shape");
  if (indptr.ndim() != 1 || indices.ndim() != 1 || data.ndim() != 1) {
    throw py::value_error(field + ": indptr, indices and data must be 1-D");
  }
  if (indptr.shape(0) != cols + 1) {
    throw py::value_error(field + ": indptr has " + std::to_string(indptr.shape(0)) + " entries, expected " +
                          std::to_string(cols + 1));
  }
  const long long* p = indptr.data();
  const long long* r = indices.data();
  const double* v = data.data();
  const long long nnz = p[cols];
  if (p[0] != 0 || nnz != indices.shape(0) || nnz != data.shape(0)) {
    throw py::value_error(field + ": indptr does not match indices and data");
  }
  Eigen::SparseMatrix<double> W(rows, cols);
  Eigen::VectorXi counts(cols);
  for (Eigen::Index j = 0; j < cols; ++j) {
    if (p[j + 1] < p[j]) throw py::value_error(field + ": indptr is not nondecreasing");
    counts[j] = static_cast<int>(p[j + 1] - p[j]);
  }
  W.reserve(counts);
  for (Eigen::Index j = 0; j < cols; ++j) {
    for (long long k = p[j]; k < p[j + 1]; ++k) {
      if (r[k] < 0 || r[k] >= rows) {
        throw py::value_error(field + ": row index " + std::to_string(r[k]) + " out of range in column " +
                              std::to_string(j));
      }
      W.coeffRef(static_cast<Eigen::Index>(r[k]), j) += v[k];  // duplicates add up, as in scipy
    }
  }
  W.makeCompressed();
  return W;
}

py::array_t<double> copy_to_numpy(const Eigen::VectorXd& v) {
  py::array_t<double> out(v.size());
  std::copy(v.data(), v.data() + v.size(), out.mutable_data());
  return out;
}

py::array_t<double> copy_to_numpy(const Eigen::MatrixXd& M) {
  // Fortran order, so that the copy is one memcpy.
  py::array_t<double, py::array::f_style> out({M.rows(), M.cols()});
  std::copy(M.data(), M.data() + M.size(), out.mutable_data());
  return out;
}

py::array_t<double> view(const double* data, Eigen::Index n, py::handle owner) {
  py::array_t<double> out({static_cast<py::ssize_t>(n)}, {static_cast<py::ssize_t>(sizeof(double))}, data, owner);
  py::detail::array_proxy(out.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return out;
}

py::object status_object(Status status) {
  if (g_status_members == nullptr) return py::str(to_string(status));
  return (*g_status_members)[static_cast<std::size_t>(status)];
}

// ---------------------------------------------------------------------------------------------
// Options.

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

void raise_pending() {
  if (PyErr_Occurred() != nullptr) throw py::error_already_set();
}

SolveOptions make_options(double tol, const py::object& max_iter, const py::object& warm_start,
                          const py::dict& options) {
  SolveOptions o;
  o.tolerance = tol;
  o.interrupt = signal_hook();
  if (!max_iter.is_none()) {
    py::dict one;
    one["max_iter"] = max_iter;
    Fields f(one, "");
    f.integer("max_iter", o.max_iterations);
  }
  if (!warm_start.is_none()) {
    py::dict one;
    one["warm_start"] = warm_start;
    Fields f(one, "");
    Eigen::VectorXd guess;
    f.vector("warm_start", guess);
    o.initial_guess = std::move(guess);
  }
  if (options.empty()) return o;

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
  return o;
}

// ---------------------------------------------------------------------------------------------
// Callables.

namespace {

Eigen::VectorXd function_value(py::handle out, const char* name) {
  auto array = FArray::ensure(out);
  if (!array) {
    PyErr_Clear();
    throw py::type_error(std::string(name) + " must return an array of floats, got " + type_name(out));
  }
  if (array.ndim() != 1) {
    throw py::value_error(std::string(name) + " must return a 1-D array, got shape " + shape_text(array));
  }
  return Eigen::Map<const Eigen::VectorXd>(array.data(), array.shape(0));
}

}  // namespace

VectorFunction wrap_function(py::handle function, const char* name) {
  // A handle, not a py::object: the std::function is copied by the solver without the GIL, and
  // copying a handle touches no reference count. The caller keeps `function` alive.
  return [function, name](const Eigen::VectorXd& z) -> Eigen::VectorXd {
    py::gil_scoped_acquire gil;
    py::object out = function(copy_to_numpy(z));
    return function_value(out, name);
  };
}

JacobianFunction wrap_jacobian(py::handle function, const char* name) {
  return [function, name](const Eigen::VectorXd& z) -> Eigen::MatrixXd {
    py::gil_scoped_acquire gil;
    py::object out = function(copy_to_numpy(z));
    auto array = FArray::ensure(out);
    if (!array) {
      PyErr_Clear();
      throw py::type_error(std::string(name) + " must return a 2-D array of floats, got " + type_name(out));
    }
    if (array.ndim() != 2) {
      throw py::value_error(std::string(name) + " must return a 2-D array, got shape " + shape_text(array));
    }
    return Eigen::Map<const Eigen::MatrixXd>(array.data(), array.shape(0), array.shape(1));
  };
}

SparseJacobianFunction wrap_sparse_jacobian(py::handle function, const char* name) {
  return [function, name](const Eigen::VectorXd& z) -> Eigen::SparseMatrix<double> {
    py::gil_scoped_acquire gil;
    py::object out = function(copy_to_numpy(z));
    if (!py::isinstance<py::tuple>(out) || out.cast<py::tuple>().size() != 5) {
      throw py::type_error(std::string(name) + " must return a scipy.sparse matrix, got " + type_name(out));
    }
    auto t = out.cast<py::tuple>();
    return to_sparse(t[0].cast<Eigen::Index>(), t[1].cast<Eigen::Index>(), t[2].cast<py::array_t<long long>>(),
                     t[3].cast<py::array_t<long long>>(), t[4].cast<FArray>(), name);
  };
}

// ---------------------------------------------------------------------------------------------
// Results.

namespace {

/// auto's trail: one dict per method it ran (method, status, iterations, relative_residual, message).
py::list attempts_list(const Result& r) {
  py::list out;
  for (const Attempt& a : r.attempts) {
    py::dict d;
    d["method"] = to_string(a.method);
    d["status"] = status_object(a.status);
    d["iterations"] = a.iterations;
    d["relative_residual"] = a.relative_residual;
    d["message"] = a.message;
    out.append(d);
  }
  return out;
}

py::list solutions_list(const Result& r) {
  py::list out;
  for (const Eigen::VectorXd& s : r.solutions) out.append(copy_to_numpy(s));
  return out;
}

void bind_results(py::module_& m) {
  py::class_<Result>(m, "Result", "What every solve returns (see docs/python.md).", py::dynamic_attr())
      .def_property_readonly(
          "z", [](py::object self) { const auto& r = self.cast<const Result&>(); return view(r.z.data(), r.z.size(), self); },
          "The returned point (read-only view), always sized and finite.")
      .def_property_readonly(
          "w", [](py::object self) { const auto& r = self.cast<const Result&>(); return view(r.w.data(), r.w.size(), self); },
          "w = M z + q recomputed from z (F(z) for an NCP/MCP).")
      .def_property_readonly("status", [](const Result& r) { return status_object(r.status); })
      .def_property_readonly("solved", &Result::solved)
      .def_readonly("iterations", &Result::iterations)
      .def_readonly("residual", &Result::residual)
      .def_readonly("relative_residual", &Result::relative_residual,
                    "The natural residual at the problem's own scale (docs/solvers.md): solved means "
                    "relative_residual <= tol.")
      .def_property_readonly(
          "history",
          [](py::object self) {
            const auto& r = self.cast<const Result&>();
            return view(r.history.data(), static_cast<Eigen::Index>(r.history.size()), self);
          },
          "The residual after each iteration.")
      .def_readonly("message", &Result::message)
      .def_property_readonly("method", [](const Result& r) { return to_string(r.method); })
      .def_readonly("time_ms", &Result::time_ms)
      .def_property_readonly("solutions", &solutions_list, "With all_solutions=True: every distinct solution.")
      .def_property_readonly("attempts", &attempts_list,
                             "auto: every method it ran, in order, as dicts (method, status, iterations, "
                             "relative_residual, message); [] for any other method.")
      .def_readonly("attempt_order", &Result::attempt_order, "auto: why it tried the methods in that order.")
      .def_property_readonly(
          "ray",
          [](const Result& r) -> py::object {
            if (!r.ray) return py::none();
            return copy_to_numpy(*r.ray);
          },
          "After a Lemke ray termination: the z-part of the ray, else None.")
      .def("brief_report", &Result::brief_report)
      .def("__repr__", [](const Result& r) { return "<perp.Result " + r.brief_report() + ">"; });

  py::class_<MlcpResult, Result>(m, "MlcpResult", "An MLCP's result: z = (u, v).")
      .def_property_readonly("u",
                             [](py::object self) {
                               const auto& r = self.cast<const MlcpResult&>();
                               return view(r.z.data(), r.equalities, self);
                             })
      .def_property_readonly("v",
                             [](py::object self) {
                               const auto& r = self.cast<const MlcpResult&>();
                               return view(r.z.data() + r.equalities, r.z.size() - r.equalities, self);
                             })
      .def_property_readonly("equality_residual", [](const MlcpResult& r) { return r.residuals.equality; })
      .def_property_readonly("complementarity_residual", [](const MlcpResult& r) { return r.residuals.complementarity; })
      .def("__repr__", [](const MlcpResult& r) { return "<perp.MlcpResult " + r.brief_report() + ">"; });

  py::class_<FrictionContactResult, Result>(m, "FrictionContactResult",
                                            "A frictional contact problem's result: r (= z) and u = W r + q (= w).")
      .def_property_readonly("r",
                             [](py::object self) {
                               const auto& r = self.cast<const FrictionContactResult&>();
                               return view(r.z.data(), r.z.size(), self);
                             })
      .def_property_readonly("u",
                             [](py::object self) {
                               const auto& r = self.cast<const FrictionContactResult&>();
                               return view(r.w.data(), r.w.size(), self);
                             })
      .def_readonly("dimension", &FrictionContactResult::dimension)
      .def_property_readonly("criteria",
                             [](const FrictionContactResult& r) {
                               py::dict d;
                               d["absolute_error"] = r.criteria.absolute_error;
                               d["relative_error"] = r.criteria.relative_error;
                               d["signorini"] = r.criteria.signorini;
                               d["coulomb"] = r.criteria.coulomb;
                               d["complementarity"] = r.criteria.complementarity;
                               d["dissipation"] = r.criteria.dissipation;
                               return d;
                             })
      .def("__repr__",
           [](const FrictionContactResult& r) { return "<perp.FrictionContactResult " + r.brief_report() + ">"; });

  py::class_<GlobalFrictionContactResult, FrictionContactResult>(
      m, "GlobalFrictionContactResult",
      "A global frictional contact problem's result: r (= z), u = Hᵀ v + b (= w), v = M⁻¹ (H r + q), and the "
      "criteria of (v, r).")
      .def_property_readonly("v",
                             [](py::object self) {
                               const auto& r = self.cast<const GlobalFrictionContactResult&>();
                               return view(r.v.data(), r.v.size(), self);
                             })
      .def_readonly("equilibrium", &GlobalFrictionContactResult::equilibrium, "‖M v − H r − q‖∞ (momentum units).")
      .def_readonly("relative_equilibrium", &GlobalFrictionContactResult::relative_equilibrium,
                    "equilibrium / max(‖q‖∞, ‖H r‖∞, ‖M v‖∞).")
      .def("__repr__", [](const GlobalFrictionContactResult& r) {
        return "<perp.GlobalFrictionContactResult " + r.brief_report() + ">";
      });

  py::class_<QpResult>(m, "QpResult", py::dynamic_attr(), "A QP's minimizer x with its multipliers mu, nu, and the KKT LCP's result.")
      .def_property_readonly("x", [](const QpResult& r) { return copy_to_numpy(r.x); })
      .def_property_readonly("mu", [](const QpResult& r) { return copy_to_numpy(r.mu); })
      .def_property_readonly("nu", [](const QpResult& r) { return copy_to_numpy(r.nu); })
      .def_readonly("objective", &QpResult::objective)
      .def_readonly("lcp", &QpResult::lcp, py::return_value_policy::reference_internal)
      .def_property_readonly("status", [](const QpResult& r) { return status_object(r.lcp.status); })
      .def_property_readonly("solved", &QpResult::solved)
      .def_property_readonly("iterations", [](const QpResult& r) { return r.lcp.iterations; })
      .def_property_readonly("residual", [](const QpResult& r) { return r.lcp.residual; })
      .def_property_readonly("history", [](const QpResult& r) {
        return copy_to_numpy(Eigen::VectorXd(Eigen::Map<const Eigen::VectorXd>(r.lcp.history.data(),
                                                                               static_cast<Eigen::Index>(r.lcp.history.size()))));
      })
      .def_property_readonly("message", [](const QpResult& r) { return r.lcp.message; })
      .def_property_readonly("method", [](const QpResult& r) { return to_string(r.lcp.method); })
      .def_property_readonly("time_ms", [](const QpResult& r) { return r.lcp.time_ms; })
      .def("__repr__", [](const QpResult& r) {
        return "<perp.QpResult " + r.lcp.brief_report() + ", objective " + number_text(r.objective) + ">";
      });
}

// ---------------------------------------------------------------------------------------------
// LCP.

Result solve_lcp(const FArray& M, const FArray& q, const std::string& method, double tol, const py::object& max_iter,
                 const py::object& warm_start, const py::dict& options) {
  Lcp problem{to_matrix(M, "M"), to_vector(q, "q")};
  const Method m = from_string<Method>(method);
  const SolveOptions o = make_options(tol, max_iter, warm_start, options);
  Result result;
  {
    py::gil_scoped_release release;
    result = solve(problem, m, o);
  }
  raise_pending();  // Ctrl-C during the solve: its KeyboardInterrupt
  return result;
}

/// solve_many: the pairs converted here (a pair that does not convert is that item's error), the
/// batch solved by perp::solve_many (C++ threads, GIL released), errors raised as the exception
/// objects of their items.
py::list solve_many(const py::list& problems, const std::string& method, py::object threads, double tol,
                    const py::object& max_iter, const py::dict& options) {
  const Method m = from_string<Method>(method);
  const SolveOptions o = make_options(tol, max_iter, py::none(), options);
  std::vector<Lcp> batch;
  std::vector<std::size_t> slot(problems.size());      // the item's index in batch
  std::vector<std::string> errors(problems.size());   // conversion errors
  batch.reserve(problems.size());
  for (std::size_t i = 0; i < problems.size(); ++i) {
    py::handle entry = problems[i];
    try {
      auto pair = entry.cast<py::tuple>();
      if (pair.size() != 2) throw py::value_error("expected a pair (M, q)");
      batch.push_back(Lcp{to_matrix(pair[0].cast<FArray>(), "M"), to_vector(pair[1].cast<FArray>(), "q")});
      slot[i] = batch.size() - 1;
    } catch (const std::exception& error) {
      errors[i] = error.what();
      if (errors[i].empty()) errors[i] = "invalid problem";
    }
  }
  unsigned workers = 0;  // perp::solve_many: hardware_concurrency
  if (!threads.is_none()) {
    const long long k = threads.cast<long long>();
    if (k < 1) throw py::value_error("threads: expected >= 1, got " + std::to_string(k));
    workers = static_cast<unsigned>(std::min<long long>(k, 1024));
  }
  std::vector<BatchResult> solved;
  {
    py::gil_scoped_release release;
    solved = perp::solve_many(batch, m, o, workers);
  }
  raise_pending();
  py::list out;
  for (std::size_t i = 0; i < problems.size(); ++i) {
    if (!errors[i].empty()) {
      out.append(invalid_problem_type()(errors[i]));
      continue;
    }
    BatchResult& item = solved[slot[i]];
    if (item.out_of_memory) {
      out.append(py::reinterpret_borrow<py::object>(PyExc_MemoryError)(item.error));
    } else if (!item.ok()) {
      out.append(invalid_problem_type()(item.error));
    } else {
      out.append(py::cast(std::move(item.result)));
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// classify.

py::object witness_object(const Witness& witness) {
  return std::visit(
      [](const auto& w) -> py::object {
        using W = std::decay_t<decltype(w)>;
        py::dict d;
        if constexpr (std::is_same_v<W, std::monostate>) {
          return py::none();
        } else if constexpr (std::is_same_v<W, QuadraticFormWitness>) {
          d["kind"] = "quadratic-form";
          d["x"] = copy_to_numpy(w.x);
          d["value"] = w.value;
          d["symmetric_product"] = w.symmetric_product ? py::object(copy_to_numpy(*w.symmetric_product)) : py::none();
        } else if constexpr (std::is_same_v<W, MinorWitness>) {
          d["kind"] = "minor";
          py::array_t<long long> indices(static_cast<py::ssize_t>(w.indices.size()));
          std::copy(w.indices.begin(), w.indices.end(), indices.mutable_data());
          d["indices"] = indices;
          d["minor"] = w.minor;
        } else if constexpr (std::is_same_v<W, EntryWitness>) {
          d["kind"] = "entry";
          d["row"] = w.row;
          d["col"] = w.col;
          d["value"] = w.value;
          d["transposed"] = w.transposed ? py::object(py::float_(*w.transposed)) : py::none();
        } else if constexpr (std::is_same_v<W, RowWitness>) {
          d["kind"] = "row";
          d["row"] = w.row;
          d["diagonal"] = w.diagonal;
          d["off_diagonal_sum"] = w.off_diagonal_sum;
        } else {
          d["kind"] = "sign-reversal";
          d["x"] = copy_to_numpy(w.x);
          d["products"] = copy_to_numpy(w.products);
          d["transposed"] = w.transposed;
        }
        d["text"] = witness_to_text(w);
        return d;
      },
      witness);
}

py::dict classify_matrix(const FArray& M, double tolerance, Eigen::Index max_minor_size, Eigen::Index max_copositive_size,
                         long long max_minor_nodes, long long max_copositive_submatrices, bool always_factorize) {
  const Eigen::MatrixXd matrix = to_matrix(M, "M");
  ClassifyOptions options;
  options.tolerance = tolerance;
  options.max_minor_size = max_minor_size;
  options.max_copositive_size = max_copositive_size;
  options.max_minor_nodes = max_minor_nodes;
  options.max_copositive_submatrices = max_copositive_submatrices;
  options.always_factorize = always_factorize;
  MatrixReport report;
  Recommendation recommendation;
  {
    py::gil_scoped_release release;
    report = classify(matrix, options);
    recommendation = recommend(report, report.n);
  }
  py::dict out;
  out["n"] = report.n;
  out["scale"] = report.scale;
  out["tolerance"] = report.tolerance;
  out["min_diagonal"] = report.min_diagonal;
  py::dict classes;
  for (MatrixClass c : all_matrix_classes()) {
    const ClassAnswer& a = report[c];
    py::dict entry;
    entry["holds"] = a.holds ? py::object(py::bool_(*a.holds)) : py::none();
    entry["method"] = to_string(a.decision);
    entry["witness"] = witness_object(a.witness);
    entry["reason"] = a.reason;
    classes[py::str(to_string(c))] = entry;
  }
  out["classes"] = classes;
  out["implications"] = report.implications;
  py::dict rec;
  rec["method"] = to_string(recommendation.method);
  py::list order;
  for (Method method : recommendation.order) order.append(to_string(method));
  rec["order"] = order;
  rec["reason"] = recommendation.reason;
  out["recommendation"] = rec;
  out["text"] = report_to_text(report, recommendation);
  return out;
}

}  // namespace

}  // namespace perp::python

PYBIND11_MODULE(_perp, m) {
  namespace py = pybind11;
  using namespace perp::python;
  m.doc() = "The compiled part of perp (complementarity problems and contact dynamics); import perp instead.";

  g_invalid_problem =
      new py::object(py::register_exception<perp::InvalidProblem>(m, "InvalidProblem", PyExc_ValueError));

  py::list statuses;
  for (int s = 0; s <= static_cast<int>(perp::Status::NotRun); ++s) {
    statuses.append(perp::to_string(static_cast<perp::Status>(s)));
  }
  m.attr("STATUS_NAMES") = statuses;
  m.def("_register_status_type", [](py::object type) {
    auto* members = new std::vector<py::object>();
    for (int s = 0; s <= static_cast<int>(perp::Status::NotRun); ++s) {
      members->push_back(type(perp::to_string(static_cast<perp::Status>(s))));
    }
    g_status_members = members;
  });
  py::list methods;
  for (perp::Method method : perp::all_methods()) methods.append(perp::to_string(method));
  m.attr("METHOD_NAMES") = methods;
  auto names = [](const std::vector<perp::Method>& list) {
    py::list out;
    for (perp::Method method : list) out.append(perp::to_string(method));
    return out;
  };
  m.attr("LCP_METHODS") = names(perp::lcp_methods());
  m.attr("BOX_LCP_METHODS") = names(perp::box_lcp_methods());
  m.attr("MLCP_METHODS") = names(perp::mlcp_methods());
  m.attr("FRICTION_CONTACT_METHODS") = names(perp::friction_contact_methods());
  m.attr("HISTORY_LIMIT") = perp::kHistoryLimit;

  bind_results(m);
  m.def("solve_lcp", &solve_lcp, py::arg("M"), py::arg("q"), py::arg("method"), py::arg("tol"), py::arg("max_iter"),
        py::arg("warm_start"), py::arg("options"));
  m.def("solve_many", &solve_many, py::arg("problems"), py::arg("method"), py::arg("threads"), py::arg("tol"),
        py::arg("max_iter"), py::arg("options"));
  m.def("classify", &classify_matrix, py::arg("M"), py::arg("tolerance"), py::arg("max_minor_size"),
        py::arg("max_copositive_size"), py::arg("max_minor_nodes"), py::arg("max_copositive_submatrices"),
        py::arg("always_factorize"));
  bind_problems(m);
  bind_contact(m);
  bind_sensitivity(m);
  bind_contact3d(m);
  bind_vec_world(m);
}
