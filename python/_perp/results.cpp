// perp._perp: the Result types every solve returns (Result, MlcpResult, FrictionContactResult,
// GlobalFrictionContactResult, QpResult), bound as read-only views of their arrays.
#include <pybind11/stl.h>

#include <string>

#include "common.hpp"

namespace perp::python {

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

}  // namespace

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

}  // namespace perp::python
