// Derivatives of solutions (solvers/sensitivity.hpp) for Python: one class per problem type with
// jvp, vjp, directional (where the C++ offers it) and the sorting of the components.

#include <pybind11/stl.h>

#include "common.hpp"
#include "perp/contact/step_sensitivity.hpp"
#include "perp/solvers/sensitivity.hpp"

namespace perp::python {

namespace {

SensitivityOptions sensitivity_options(double tol, const std::string& degenerate) {
  SensitivityOptions options;
  options.tolerance = tol;
  if (degenerate == "bound") {
    options.degenerate = DegenerateRule::Bound;
  } else if (degenerate == "free") {
    options.degenerate = DegenerateRule::Free;
  } else {
    throw InvalidProblem("degenerate: expected \"bound\" or \"free\", got \"" + degenerate + "\"");
  }
  return options;
}

// An optional array argument: None is an empty matrix/vector (zero perturbation).
Eigen::MatrixXd optional_matrix(const py::object& a, const char* name) {
  if (a.is_none()) return {};
  return to_matrix(a.cast<FArray>(), name);
}
Eigen::VectorXd optional_vector(const py::object& a, const char* name) {
  if (a.is_none()) return {};
  return to_vector(a.cast<FArray>(), name);
}

py::list state_names(const std::vector<ComponentState>& states) {
  py::list out;
  for (ComponentState s : states) out.append(to_string(s));
  return out;
}

// (dz, result); dz is None unless the degenerate-set problem was solved (no number beside a
// status that is not "solved").
py::tuple directional_tuple(const detail::BoxSensitivity::Directional& d) {
  if (d.solve.status != Status::Solved) return py::make_tuple(py::none(), d.solve);
  return py::make_tuple(copy_to_numpy(d.dz), d.solve);
}

// The read-only properties every class has.
template <class S, class Class>
void common_properties(Class& cls) {
  cls.def_property_readonly("states", [](const S& s) { return state_names(s.states()); },
                            "Per component: free, at-lower, at-upper, degenerate-lower or degenerate-upper.")
      .def_property_readonly("degenerate", [](const S& s) { return s.degenerate(); },
                             "Whether some component is degenerate.")
      .def_property_readonly("differentiable", [](const S& s) { return s.differentiable(); },
                             "False when z is not locally unique (the reduced system singular, or at a degenerate "
                             "point the Schur complement on the degenerate components not a P-matrix): jvp and "
                             "vjp raise, directional returns (None, result) with the reason.")
      .def_property_readonly("locally_unique", [](const S& s) { return s.locally_unique(); },
                             "At a degenerate point: whether the solution is strongly regular (locally unique); "
                             "True where no component is degenerate.")
      .def_property_readonly("rule", [](const S& s) { return s.rule(); }, "The sets and the element chosen, in words.")
      .def("__repr__", [](const S& s) { return "<perp derivatives: " + s.rule() + ">"; });
}

}  // namespace

void bind_step_derivatives(py::module_& m) {
  using contact::StepSensitivity;
  py::class_<StepSensitivity> step(m, "StepDerivatives",
                                   "Derivatives of one Moreau–Jean step under fixed contact activation "
                                   "(docs/sensitivity.md); from moreau_jean_step(..., derivatives=True).");
  step.def(
          "jvp",
          [](const StepSensitivity& s, const py::object& q, const py::object& v, const py::object& force,
             const py::object& mass, const py::object& friction, const py::object& restitution) {
            contact::StepTangent t;
            t.q = optional_vector(q, "q");
            t.v = optional_vector(v, "v");
            t.force = optional_vector(force, "force");
            t.mass = optional_vector(mass, "mass");
            t.friction = optional_vector(friction, "friction");
            t.restitution = optional_vector(restitution, "restitution");
            const contact::StepState out = s.jvp(t);
            return py::make_tuple(copy_to_numpy(out.q), copy_to_numpy(out.v));
          },
          py::arg("q") = py::none(), py::arg("v") = py::none(), py::arg("force") = py::none(),
          py::arg("mass") = py::none(), py::arg("friction") = py::none(), py::arg("restitution") = py::none(),
          "(dq_next, dv_next) along the perturbation; None is zero. q, v, force, mass: 3 per body (x, y, angle; "
          "the diagonal of M is m, m, I); friction, restitution: one per active contact.")
      .def(
          "vjp",
          [](const StepSensitivity& s, const py::object& q_bar, const py::object& v_bar) {
            const contact::StepTangent g =
                s.vjp({optional_vector(q_bar, "q_bar"), optional_vector(v_bar, "v_bar")});
            py::dict d;
            d["q"] = copy_to_numpy(g.q);
            d["v"] = copy_to_numpy(g.v);
            d["force"] = copy_to_numpy(g.force);
            d["mass"] = copy_to_numpy(g.mass);
            d["friction"] = copy_to_numpy(g.friction);
            d["restitution"] = copy_to_numpy(g.restitution);
            return d;
          },
          py::arg("q_bar") = py::none(), py::arg("v_bar") = py::none(),
          "The gradients of L on every input (a dict: q, v, force, mass, friction, restitution) for "
          "q_bar = dL/dq_next, v_bar = dL/dv_next.")
      .def_property_readonly("friction", [](const StepSensitivity& s) { return copy_to_numpy(s.friction()); },
                             "Each active contact's μ.")
      .def_property_readonly("restitution", [](const StepSensitivity& s) { return copy_to_numpy(s.restitution()); },
                             "Each active contact's e.")
      .def_property_readonly("geometry_exact", &StepSensitivity::geometry_exact,
                             "False when a contact's geometric derivative came from differences of detection.")
      .def_property_readonly("states", [](const StepSensitivity& s) { return state_names(s.states()); },
                             "Per impulse unknown: free, at-lower, at-upper, degenerate-lower or degenerate-upper.")
      .def_property_readonly("differentiable", &StepSensitivity::differentiable,
                             "False when the impulses are not locally unique (see minimum_norm).")
      .def_property_readonly("rule", &StepSensitivity::rule, "The sets and the element chosen, in words.")
      .def("__repr__", [](const StepSensitivity& s) { return "<perp step derivatives: " + s.rule() + ">"; });
}

/// perp._perp.RolloutRun (rollout.cpp).
void bind_rollout(py::module_& m);

void bind_sensitivity(py::module_& m) {
  bind_step_derivatives(m);
  bind_rollout(m);
  py::class_<LcpSensitivity> lcp(m, "LcpDerivatives", "Derivatives of an LCP solution z(M, q) (docs/sensitivity.md).");
  lcp.def(py::init([](const FArray& M, const FArray& q, const FArray& z, double tol, const std::string& degenerate) {
            return LcpSensitivity(Lcp{to_matrix(M, "M"), to_vector(q, "q")}, to_vector(z, "z"),
                                  sensitivity_options(tol, degenerate));
          }),
          py::arg("M"), py::arg("q"), py::arg("z"), py::arg("tol") = 1e-9, py::arg("degenerate") = "bound")
      .def(
          "jvp",
          [](const LcpSensitivity& s, const py::object& dM, const py::object& dq) {
            return copy_to_numpy(s.jvp(optional_matrix(dM, "dM"), optional_vector(dq, "dq")));
          },
          py::arg("dM") = py::none(), py::arg("dq") = py::none(), "dz along (dM, dq); None is zero.")
      .def(
          "vjp",
          [](const LcpSensitivity& s, const FArray& z_bar) {
            const auto g = s.vjp(to_vector(z_bar, "z_bar"));
            return py::make_tuple(copy_to_numpy(g.M), copy_to_numpy(g.q));
          },
          py::arg("z_bar"), "(M_bar, q_bar): the gradients of L for z_bar = dL/dz.")
      .def(
          "directional",
          [](const LcpSensitivity& s, const py::object& dM, const py::object& dq) {
            return directional_tuple(s.directional(optional_matrix(dM, "dM"), optional_vector(dq, "dq")));
          },
          py::arg("dM") = py::none(), py::arg("dq") = py::none(),
          "(dz, result): the exact one-sided derivative and the solve of the degenerate-set box LCP; dz is None "
          "unless result.status is solved (result.message says why).");
  common_properties<LcpSensitivity>(lcp);

  py::class_<BoxLcpSensitivity> box(m, "BoxLcpDerivatives", "Derivatives of a box LCP solution.");
  box.def(py::init([](const FArray& M, const FArray& q, const FArray& lo, const FArray& hi,
                      const std::vector<std::tuple<Eigen::Index, Eigen::Index, double>>& friction, const FArray& z,
                      double tol, const std::string& degenerate) {
            BoxLcp problem{to_matrix(M, "M"), to_vector(q, "q"), to_vector(lo, "lo"), to_vector(hi, "hi"), {}};
            for (const auto& [index, normal, mu] : friction) problem.friction.push_back({index, normal, mu});
            return BoxLcpSensitivity(problem, to_vector(z, "z"), sensitivity_options(tol, degenerate));
          }),
          py::arg("M"), py::arg("q"), py::arg("lo"), py::arg("hi"), py::arg("friction"), py::arg("z"),
          py::arg("tol") = 1e-9, py::arg("degenerate") = "bound")
      .def(
          "jvp",
          [](const BoxLcpSensitivity& s, const py::object& dM, const py::object& dq, const py::object& dlo,
             const py::object& dhi, const py::object& dmu) {
            return copy_to_numpy(s.jvp({optional_matrix(dM, "dM"), optional_vector(dq, "dq"), optional_vector(dlo, "dlo"),
                                        optional_vector(dhi, "dhi"), optional_vector(dmu, "dmu")}));
          },
          py::arg("dM") = py::none(), py::arg("dq") = py::none(), py::arg("dlo") = py::none(),
          py::arg("dhi") = py::none(), py::arg("dmu") = py::none())
      .def(
          "directional",
          [](const BoxLcpSensitivity& s, const py::object& dM, const py::object& dq, const py::object& dlo,
             const py::object& dhi, const py::object& dmu) {
            return directional_tuple(s.directional({optional_matrix(dM, "dM"), optional_vector(dq, "dq"),
                                                    optional_vector(dlo, "dlo"), optional_vector(dhi, "dhi"),
                                                    optional_vector(dmu, "dmu")}));
          },
          py::arg("dM") = py::none(), py::arg("dq") = py::none(), py::arg("dlo") = py::none(),
          py::arg("dhi") = py::none(), py::arg("dmu") = py::none(),
          "(dz, result): the exact one-sided derivative along (dM, dq, dlo, dhi, dmu) and the solve of the "
          "degenerate-set box LCP; None is zero.")
      .def(
          "vjp",
          [](const BoxLcpSensitivity& s, const FArray& z_bar) {
            const auto g = s.vjp(to_vector(z_bar, "z_bar"));
            py::dict out;
            out["M"] = copy_to_numpy(g.M);
            out["q"] = copy_to_numpy(g.q);
            out["lo"] = copy_to_numpy(g.lower);
            out["hi"] = copy_to_numpy(g.upper);
            out["mu"] = copy_to_numpy(g.mu);
            return out;
          },
          py::arg("z_bar"), "A dict of gradients: M, q, lo, hi, mu.");
  common_properties<BoxLcpSensitivity>(box);

  py::class_<MlcpSensitivity> mlcp(m, "MlcpDerivatives", "Derivatives of an MLCP solution z = (u, v).");
  mlcp.def(py::init([](const FArray& A, const FArray& B, const FArray& C, const FArray& D, const FArray& a,
                       const FArray& b, const FArray& z, double tol, const std::string& degenerate) {
             Mlcp problem{to_matrix(A, "A"), to_matrix(B, "B"), to_matrix(C, "C"), to_matrix(D, "D"), to_vector(a, "a"),
                          to_vector(b, "b")};
             return MlcpSensitivity(problem, to_vector(z, "z"), sensitivity_options(tol, degenerate));
           }),
           py::arg("A"), py::arg("B"), py::arg("C"), py::arg("D"), py::arg("a"), py::arg("b"), py::arg("z"),
           py::arg("tol") = 1e-9, py::arg("degenerate") = "bound")
      .def(
          "jvp",
          [](const MlcpSensitivity& s, const py::object& dA, const py::object& dB, const py::object& dC,
             const py::object& dD, const py::object& da, const py::object& db) {
            return copy_to_numpy(s.jvp({optional_matrix(dA, "dA"), optional_matrix(dB, "dB"), optional_matrix(dC, "dC"),
                                        optional_matrix(dD, "dD"), optional_vector(da, "da"), optional_vector(db, "db")}));
          },
          py::arg("dA") = py::none(), py::arg("dB") = py::none(), py::arg("dC") = py::none(),
          py::arg("dD") = py::none(), py::arg("da") = py::none(), py::arg("db") = py::none())
      .def(
          "directional",
          [](const MlcpSensitivity& s, const py::object& dA, const py::object& dB, const py::object& dC,
             const py::object& dD, const py::object& da, const py::object& db) {
            return directional_tuple(s.directional({optional_matrix(dA, "dA"), optional_matrix(dB, "dB"),
                                                    optional_matrix(dC, "dC"), optional_matrix(dD, "dD"),
                                                    optional_vector(da, "da"), optional_vector(db, "db")}));
          },
          py::arg("dA") = py::none(), py::arg("dB") = py::none(), py::arg("dC") = py::none(),
          py::arg("dD") = py::none(), py::arg("da") = py::none(), py::arg("db") = py::none(),
          "(dz, result): the exact one-sided derivative along the blocks' perturbation and the solve of the "
          "degenerate-set box LCP; None is zero.")
      .def(
          "vjp",
          [](const MlcpSensitivity& s, const FArray& z_bar) {
            const auto g = s.vjp(to_vector(z_bar, "z_bar"));
            py::dict out;
            out["A"] = copy_to_numpy(g.A);
            out["B"] = copy_to_numpy(g.B);
            out["C"] = copy_to_numpy(g.C);
            out["D"] = copy_to_numpy(g.D);
            out["a"] = copy_to_numpy(g.a);
            out["b"] = copy_to_numpy(g.b);
            return out;
          },
          py::arg("z_bar"), "A dict of gradients: A, B, C, D, a, b.");
  common_properties<MlcpSensitivity>(mlcp);

  py::class_<QpSensitivity> qp(m, "QpDerivatives", "Derivatives of a convex QP's (x, mu).");
  qp.def(py::init([](const FArray& Q, const FArray& c, const FArray& A, const FArray& b, const FArray& x,
                     const FArray& mu, double tol, const std::string& degenerate) {
           Qp problem{to_matrix(Q, "Q"), to_vector(c, "c"), to_matrix(A, "A"), to_vector(b, "b")};
           return QpSensitivity(problem, to_vector(x, "x"), to_vector(mu, "mu"), sensitivity_options(tol, degenerate));
         }),
         py::arg("Q"), py::arg("c"), py::arg("A"), py::arg("b"), py::arg("x"), py::arg("mu"), py::arg("tol") = 1e-9,
         py::arg("degenerate") = "bound")
      .def(
          "jvp",
          [](const QpSensitivity& s, const py::object& dQ, const py::object& dc, const py::object& dA,
             const py::object& db) {
            const auto d = s.jvp({optional_matrix(dQ, "dQ"), optional_matrix(dA, "dA"), optional_vector(dc, "dc"),
                                  optional_vector(db, "db")});
            return py::make_tuple(copy_to_numpy(d.x), copy_to_numpy(d.mu));
          },
          py::arg("dQ") = py::none(), py::arg("dc") = py::none(), py::arg("dA") = py::none(),
          py::arg("db") = py::none(), "(dx, dmu).")
      .def(
          "vjp",
          [](const QpSensitivity& s, const FArray& x_bar, const py::object& mu_bar) {
            const auto g = s.vjp(to_vector(x_bar, "x_bar"), optional_vector(mu_bar, "mu_bar"));
            py::dict out;
            out["Q"] = copy_to_numpy(g.Q);
            out["c"] = copy_to_numpy(g.c);
            out["A"] = copy_to_numpy(g.A);
            out["b"] = copy_to_numpy(g.b);
            return out;
          },
          py::arg("x_bar"), py::arg("mu_bar") = py::none(), "A dict of gradients: Q, c, A, b.");
  common_properties<QpSensitivity>(qp);

  py::class_<FrictionContactSensitivity> fc(m, "FrictionContactDerivatives",
                                            "Derivatives of a 2D frictional contact solution r(W, q, mu).");
  fc.def(py::init([](const FArray& W, const FArray& q, const FArray& mu, const FArray& r, double tol,
                     const std::string& degenerate) {
           const FrictionContact problem = friction_contact_from_dense(2, to_matrix(W, "W"), to_vector(q, "q"),
                                                                       to_vector(mu, "mu"));
           return FrictionContactSensitivity(problem, to_vector(r, "r"), sensitivity_options(tol, degenerate));
         }),
         py::arg("W"), py::arg("q"), py::arg("mu"), py::arg("r"), py::arg("tol") = 1e-9, py::arg("degenerate") = "bound")
      .def(
          "jvp",
          [](const FrictionContactSensitivity& s, const py::object& dW, const py::object& dq, const py::object& dmu) {
            return copy_to_numpy(s.jvp({optional_matrix(dW, "dW"), optional_vector(dq, "dq"), optional_vector(dmu, "dmu")}));
          },
          py::arg("dW") = py::none(), py::arg("dq") = py::none(), py::arg("dmu") = py::none())
      .def(
          "vjp",
          [](const FrictionContactSensitivity& s, const FArray& r_bar) {
            const auto g = s.vjp(to_vector(r_bar, "r_bar"));
            py::dict out;
            out["W"] = copy_to_numpy(g.W);
            out["q"] = copy_to_numpy(g.q);
            out["mu"] = copy_to_numpy(g.mu);
            return out;
          },
          py::arg("r_bar"), "A dict of gradients: W (dense), q, mu.");
  common_properties<FrictionContactSensitivity>(fc);
}

}  // namespace perp::python
