// perp._perp: box LCP, MLCP, QP, NCP/MCP and frictional contact solves, and problem files.
#include <pybind11/stl.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <sstream>

#include "common.hpp"
#include "perp/io/fclib.hpp"

namespace perp::python {

namespace {

std::vector<FrictionCoupling> couplings(const py::object& friction) {
  std::vector<FrictionCoupling> out;
  if (friction.is_none()) return out;
  Eigen::Index position = 0;
  for (py::handle entry : friction) {
    const std::string where = "friction[" + std::to_string(position++) + "]";
    py::tuple t;
    try {
      t = py::reinterpret_borrow<py::object>(entry).cast<py::tuple>();
    } catch (const py::cast_error&) {
      throw py::type_error(where + ": expected a tuple (index, normal, mu)");
    }
    if (t.size() != 3)
      throw py::value_error(where + ": expected a tuple (index, normal, mu), got " + std::to_string(t.size()) +
                            " entries");
    FrictionCoupling c;
    try {
      c.index = t[0].cast<Eigen::Index>();
      c.normal = t[1].cast<Eigen::Index>();
      c.mu = t[2].cast<double>();
    } catch (const py::cast_error&) {
      throw py::type_error(where + ": expected (int index, int normal, float mu)");
    }
    out.push_back(c);
  }
  return out;
}

py::list coupling_list(const std::vector<FrictionCoupling>& friction) {
  py::list out;
  for (const FrictionCoupling& c : friction) out.append(py::make_tuple(c.index, c.normal, c.mu));
  return out;
}

Result solve_box(const FArray& M, const FArray& q, const FArray& lo, const FArray& hi, const py::object& friction,
                 const std::string& method, double tol, const py::object& max_iter, const py::object& warm_start,
                 const py::dict& options) {
  BoxLcp problem{to_matrix(M, "M"), to_vector(q, "q"), to_vector(lo, "lo"), to_vector(hi, "hi"), couplings(friction)};
  return solve_without_gil(problem, method, tol, max_iter, warm_start, options);
}

MlcpResult solve_mlcp(const FArray& A, const FArray& B, const FArray& C, const FArray& D, const FArray& a,
                      const FArray& b, const std::string& method, double tol, const py::object& max_iter,
                      const py::object& warm_start, const py::dict& options) {
  Mlcp problem{to_matrix(A, "A"), to_matrix(B, "B"), to_matrix(C, "C"),
               to_matrix(D, "D"), to_vector(a, "a"), to_vector(b, "b")};
  MlcpResult out;
  static_cast<Result&>(out) = solve_without_gil(problem, method, tol, max_iter, warm_start, options);
  out.equalities = problem.equalities();
  out.residuals = mlcp_residuals(problem, out.z);
  return out;
}

QpResult solve_qp(const FArray& Q, const FArray& c, const FArray& A, const FArray& b, const std::string& method,
                  double tol, const py::object& max_iter, const py::object& warm_start, const py::dict& options) {
  Qp problem{to_matrix(Q, "Q"), to_vector(c, "c"), to_matrix(A, "A"), to_vector(b, "b")};
  return solve_without_gil(problem, method, tol, max_iter, warm_start, options);
}

/// An Ncp's or Mcp's Jacobian from the Python callable J: sparse (`J_sparse`, J returns the CSC
/// arrays) or dense (`J`).
template <class Problem>
void set_jacobian(Problem& problem, const py::function& J, bool sparse) {
  if (sparse) {
    problem.J_sparse = wrap_sparse_jacobian(J, "J");
  } else {
    problem.J = wrap_jacobian(J, "J");
  }
}

Result solve_ncp(const py::function& F, const py::function& J, Eigen::Index n, const std::string& method, double tol,
                 const py::object& max_iter, const py::object& warm_start, const py::dict& options, bool sparse) {
  Ncp problem{n, wrap_function(F, "F"), nullptr};
  set_jacobian(problem, J, sparse);
  return solve_without_gil(problem, method, tol, max_iter, warm_start, options);
}

Result solve_mcp(const py::function& F, const py::function& J, const FArray& lower, const FArray& upper,
                 const std::string& method, double tol, const py::object& max_iter, const py::object& warm_start,
                 const py::dict& options, bool sparse) {
  Mcp problem{wrap_function(F, "F"), nullptr, to_vector(lower, "lower"), to_vector(upper, "upper")};
  set_jacobian(problem, J, sparse);
  return solve_without_gil(problem, method, tol, max_iter, warm_start, options);
}

/// A matrix from what the Python layer passes: a dense 2-D array, or (rows, cols, indptr, indices,
/// data) of a CSC matrix. `name` is the argument's, for the messages.
Eigen::SparseMatrix<double> operator_from(const py::object& W, const char* name = "W") {
  if (py::isinstance<py::tuple>(W)) {
    auto t = W.cast<py::tuple>();
    if (t.size() != 5) throw py::value_error(std::string(name) + ": expected (rows, cols, indptr, indices, data)");
    return to_sparse(t[0].cast<Eigen::Index>(), t[1].cast<Eigen::Index>(), t[2].cast<py::array_t<long long>>(),
                     t[3].cast<py::array_t<long long>>(), t[4].cast<FArray>(), name);
  }
  return to_matrix(W.cast<FArray>(), name).sparseView(1.0, 0.0);
}

py::tuple csc_tuple(const Eigen::SparseMatrix<double>& W) {
  Eigen::SparseMatrix<double> C = W;
  C.makeCompressed();
  py::array_t<long long> indptr(C.cols() + 1);
  py::array_t<long long> indices(C.nonZeros());
  py::array_t<double> data(C.nonZeros());
  std::copy(C.outerIndexPtr(), C.outerIndexPtr() + C.cols() + 1, indptr.mutable_data());
  std::copy(C.innerIndexPtr(), C.innerIndexPtr() + C.nonZeros(), indices.mutable_data());
  std::copy(C.valuePtr(), C.valuePtr() + C.nonZeros(), data.mutable_data());
  return py::make_tuple(C.rows(), C.cols(), indptr, indices, data);
}

FrictionContactResult solve_friction_contact(int dimension, const py::object& W, const FArray& q, const FArray& mu,
                                             const std::string& method, double tol, const py::object& max_iter,
                                             const py::object& warm_start, const py::dict& options) {
  FrictionContact problem{dimension, operator_from(W), to_vector(q, "q"), to_vector(mu, "mu")};
  FrictionContactResult out;
  static_cast<Result&>(out) = solve_without_gil(problem, method, tol, max_iter, warm_start, options);
  out.dimension = dimension;
  out.criteria = friction_contact_residuals(problem, out.z, out.w);
  return out;
}

/// perp.friction_contact_residuals: the physical criteria of a given r (u = W r + q recomputed),
/// `friction_contact_residuals` of the library, with no solve. The problem is validated first, and
/// r of the wrong size is refused by name.
py::dict friction_contact_criteria(int dimension, const py::object& W, const FArray& q, const FArray& mu,
                                   const FArray& r) {
  const FrictionContact problem{dimension, operator_from(W), to_vector(q, "q"), to_vector(mu, "mu")};
  problem.validate();
  return criteria_dict(friction_contact_residuals(problem, to_vector(r, "r")));
}

/// perp.GlobalFrictionContact.solve: M and H as given (dense arrays, or scipy.sparse as CSC arrays,
/// never densified here), perp's `solve(GlobalFrictionContact)`.
GlobalFrictionContactResult solve_global_friction_contact(int dimension, const py::object& M, const py::object& H,
                                                          const FArray& q, const FArray& b, const FArray& mu,
                                                          const std::string& law, const std::string& method, double tol,
                                                          const py::object& max_iter, const py::object& warm_start,
                                                          const py::dict& options) {
  GlobalFrictionContact problem;
  problem.dimension = dimension;
  if (law == "coulomb") {
    problem.law = FrictionLaw::Coulomb;
  } else if (law == "convex") {
    problem.law = FrictionLaw::Convex;
  } else {
    throw InvalidProblem("law: expected 'coulomb' or 'convex', got '" + law + "'");
  }
  problem.M = operator_from(M, "M");
  problem.H = operator_from(H, "H");
  problem.q = to_vector(q, "q");
  problem.b = to_vector(b, "b");
  problem.mu = to_vector(mu, "mu");
  const Method m = from_string<Method>(method);
  const SolveOptions o = make_options(tol, max_iter, warm_start, options);
  GlobalFrictionContactResult out;
  GlobalFrictionContactResiduals criteria;
  {
    py::gil_scoped_release release;
    static_cast<Result&>(out) = solve(problem, m, o, out.v, criteria);
  }
  raise_pending();
  out.dimension = dimension;
  out.criteria = criteria.contact;
  out.equilibrium = criteria.equilibrium;
  out.relative_equilibrium = criteria.relative_equilibrium;
  return out;
}

Result solve_factored_lcp(const py::object& A, const FArray& inverse_mass, const FArray& c, const std::string& method,
                          double tol, const py::object& max_iter, const py::object& warm_start,
                          const py::dict& options) {
  const FactoredLcp problem{operator_from(A, "A"), to_vector(inverse_mass, "inverse_mass"), to_vector(c, "c")};
  return solve_without_gil(problem, method, tol, max_iter, warm_start, options);
}

Result solve_sparse_lcp(const py::object& M, const FArray& q, const std::string& method, double tol,
                        const py::object& max_iter, const py::object& warm_start, const py::dict& options) {
  const SparseLcp problem{operator_from(M, "M"), to_vector(q, "q")};
  return solve_without_gil(problem, method, tol, max_iter, warm_start, options);
}

// ---------------------------------------------------------------------------------------------
// Problems as dicts: {"type": "lcp", "M": ..., "q": ...} and so on (keys as in the JSON files).

py::dict problem_dict(const Problem& problem) {
  py::dict d;
  d["type"] = std::string(problem_type(problem));
  std::visit(
      [&d](const auto& p) {
        using P = std::decay_t<decltype(p)>;
        if constexpr (std::is_same_v<P, Lcp>) {
          d["M"] = copy_to_numpy(p.M);
          d["q"] = copy_to_numpy(p.q);
        } else if constexpr (std::is_same_v<P, BoxLcp>) {
          d["M"] = copy_to_numpy(p.M);
          d["q"] = copy_to_numpy(p.q);
          d["lo"] = copy_to_numpy(p.lower);
          d["hi"] = copy_to_numpy(p.upper);
          d["friction"] = coupling_list(p.friction);
        } else if constexpr (std::is_same_v<P, Mlcp>) {
          d["A"] = copy_to_numpy(p.A);
          d["B"] = copy_to_numpy(p.B);
          d["C"] = copy_to_numpy(p.C);
          d["D"] = copy_to_numpy(p.D);
          d["a"] = copy_to_numpy(p.a);
          d["b"] = copy_to_numpy(p.b);
        } else if constexpr (std::is_same_v<P, Qp>) {
          d["Q"] = copy_to_numpy(p.Q);
          d["c"] = copy_to_numpy(p.c);
          d["A"] = copy_to_numpy(p.A);
          d["b"] = copy_to_numpy(p.b);
        } else {
          d["dimension"] = p.dimension;
          d["W"] = csc_tuple(p.W);
          d["q"] = copy_to_numpy(p.q);
          d["mu"] = copy_to_numpy(p.mu);
        }
      },
      problem);
  return d;
}

FArray entry(const py::dict& d, const char* key) {
  if (!d.contains(key)) throw py::value_error(std::string("problem: missing '") + key + "'");
  return d[key].cast<FArray>();
}

Problem problem_from_dict(const py::dict& d) {
  const auto type = d["type"].cast<std::string>();
  if (type == "lcp") return Lcp{to_matrix(entry(d, "M"), "M"), to_vector(entry(d, "q"), "q")};
  if (type == "box-lcp") {
    return BoxLcp{to_matrix(entry(d, "M"), "M"), to_vector(entry(d, "q"), "q"), to_vector(entry(d, "lo"), "lo"),
                  to_vector(entry(d, "hi"), "hi"),
                  couplings(d.contains("friction") ? py::object(d["friction"]) : py::object(py::none()))};
  }
  if (type == "mlcp") {
    return Mlcp{to_matrix(entry(d, "A"), "A"), to_matrix(entry(d, "B"), "B"), to_matrix(entry(d, "C"), "C"),
                to_matrix(entry(d, "D"), "D"), to_vector(entry(d, "a"), "a"), to_vector(entry(d, "b"), "b")};
  }
  if (type == "qp") {
    return Qp{to_matrix(entry(d, "Q"), "Q"), to_vector(entry(d, "c"), "c"), to_matrix(entry(d, "A"), "A"),
              to_vector(entry(d, "b"), "b")};
  }
  if (type == "friction-contact") {
    return FrictionContact{d["dimension"].cast<int>(), operator_from(d["W"]), to_vector(entry(d, "q"), "q"),
                           to_vector(entry(d, "mu"), "mu")};
  }
  throw InvalidProblem("problem type '" + type + "' is not one of lcp, box-lcp, mlcp, qp, friction-contact");
}

py::dict read_problem(const std::string& path) {
  Problem problem = [&] {
    py::gil_scoped_release release;
    return read_problem_file(path);
  }();
  return problem_dict(problem);
}

py::dict parse_json(const std::string& text, const std::string& source) {
  return problem_dict(parse_json_problem(text, source));
}

std::string to_json(const py::dict& d) { return problem_to_json(problem_from_dict(d)); }

void write_siconos(const std::string& path, const py::dict& d) {
  const Problem problem = problem_from_dict(d);
  std::visit(
      [&path](const auto& p) {
        using P = std::decay_t<decltype(p)>;
        if constexpr (std::is_same_v<P, Lcp>) {
          write_siconos_lcp(std::filesystem::path(path), p);
        } else if constexpr (std::is_same_v<P, Mlcp>) {
          write_siconos_mlcp(std::filesystem::path(path), p);
        } else if constexpr (std::is_same_v<P, FrictionContact>) {
          write_siconos_friction_contact(std::filesystem::path(path), p);
        } else {
          throw InvalidProblem(std::string("write_siconos: Siconos has no file format for a ") +
                               std::string(problem_type(Problem(p))) + " (use write_json)");
        }
      },
      problem);
}

py::dict fclib_solution_dict(const FclibSolution& s) {
  py::dict d;
  d["v"] = copy_to_numpy(s.v);
  d["u"] = copy_to_numpy(s.u);
  d["r"] = copy_to_numpy(s.r);
  return d;
}

/// An fclib file as a dict: "kind" ("local" or "global"), the problem's fields (W, or M and H, as CSC
/// tuples; q, b, mu, dimension), title, description, math_info, solution (None or {v, u, r}) and
/// guesses (a list of such dicts).
py::dict read_fclib_dict(const std::string& path) {
  const FclibFile file = [&] {
    py::gil_scoped_release release;
    return read_fclib(path);
  }();
  py::dict d;
  if (const auto* local = std::get_if<FrictionContact>(&file.problem)) {
    d["kind"] = "local";
    d["dimension"] = local->dimension;
    d["W"] = csc_tuple(local->W);
    d["q"] = copy_to_numpy(local->q);
    d["mu"] = copy_to_numpy(local->mu);
  } else {
    const auto& global = std::get<GlobalFrictionContact>(file.problem);
    d["kind"] = "global";
    d["dimension"] = global.dimension;
    d["M"] = csc_tuple(global.M);
    d["H"] = csc_tuple(global.H);
    d["q"] = copy_to_numpy(global.q);
    d["b"] = copy_to_numpy(global.b);
    d["mu"] = copy_to_numpy(global.mu);
  }
  // fclib's info strings are not always UTF-8 (CubeH8's description is not): invalid bytes replaced.
  auto text = [](const std::string& t) {
    return py::reinterpret_steal<py::str>(PyUnicode_DecodeUTF8(t.data(), static_cast<Py_ssize_t>(t.size()), "replace"));
  };
  d["title"] = text(file.title);
  d["description"] = text(file.description);
  d["math_info"] = text(file.math_info);
  if (file.solution) {
    d["solution"] = fclib_solution_dict(*file.solution);
  } else {
    d["solution"] = py::none();
  }
  py::list guesses;
  for (const auto& g : file.guesses) guesses.append(fclib_solution_dict(g));
  d["guesses"] = guesses;
  return d;
}

FclibSolution fclib_solution_from(const py::dict& s) {
  FclibSolution out;
  auto get = [&](const char* key) {
    return s.contains(key) && !s[key].is_none() ? to_vector(s[key].cast<FArray>(), key) : Eigen::VectorXd();
  };
  out.v = get("v");
  out.u = get("u");
  out.r = get("r");
  return out;
}

void write_fclib_dict(const std::string& path, const py::dict& d, const py::object& solution) {
  std::optional<FclibSolution> stored;
  if (!solution.is_none()) stored = fclib_solution_from(solution.cast<py::dict>());
  const FclibSolution* given = stored ? &*stored : nullptr;
  const std::string kind = d["kind"].cast<std::string>();
  if (kind == "local") {
    const FrictionContact problem{d["dimension"].cast<int>(), operator_from(d["W"]), to_vector(entry(d, "q"), "q"),
                                  to_vector(entry(d, "mu"), "mu")};
    py::gil_scoped_release release;
    write_fclib(path, problem, given);
    return;
  }
  GlobalFrictionContact g;
  g.dimension = d["dimension"].cast<int>();
  g.M = operator_from(d["M"], "M");
  g.H = operator_from(d["H"], "H");
  g.q = to_vector(entry(d, "q"), "q");
  g.b = to_vector(entry(d, "b"), "b");
  g.mu = to_vector(entry(d, "mu"), "mu");
  py::gil_scoped_release release;
  write_fclib(path, g, given);
}

}  // namespace

void bind_problems(py::module_& m) {
  using py::arg;
  m.def("solve_box", &solve_box, arg("M"), arg("q"), arg("lo"), arg("hi"), arg("friction"), arg("method"), arg("tol"),
        arg("max_iter"), arg("warm_start"), arg("options"));
  m.def("solve_mlcp", &solve_mlcp, arg("A"), arg("B"), arg("C"), arg("D"), arg("a"), arg("b"), arg("method"),
        arg("tol"), arg("max_iter"), arg("warm_start"), arg("options"));
  m.def("solve_qp", &solve_qp, arg("Q"), arg("c"), arg("A"), arg("b"), arg("method"), arg("tol"), arg("max_iter"),
        arg("warm_start"), arg("options"));
  m.def("solve_ncp", &solve_ncp, arg("F"), arg("J"), arg("n"), arg("method"), arg("tol"), arg("max_iter"),
        arg("warm_start"), arg("options"), arg("sparse") = false);
  m.def("solve_mcp", &solve_mcp, arg("F"), arg("J"), arg("lower"), arg("upper"), arg("method"), arg("tol"),
        arg("max_iter"), arg("warm_start"), arg("options"), arg("sparse") = false);
  m.def("solve_friction_contact", &solve_friction_contact, arg("dimension"), arg("W"), arg("q"), arg("mu"),
        arg("method"), arg("tol"), arg("max_iter"), arg("warm_start"), arg("options"));
  m.def("friction_contact_residuals", &friction_contact_criteria, arg("dimension"), arg("W"), arg("q"), arg("mu"),
        arg("r"));
  m.def("solve_global_friction_contact", &solve_global_friction_contact, arg("dimension"), arg("M"), arg("H"), arg("q"),
        arg("b"), arg("mu"), arg("law"), arg("method"), arg("tol"), arg("max_iter"), arg("warm_start"), arg("options"));
  m.def("solve_factored_lcp", &solve_factored_lcp, arg("A"), arg("inverse_mass"), arg("c"), arg("method"), arg("tol"),
        arg("max_iter"), arg("warm_start"), arg("options"));
  m.def("solve_sparse_lcp", &solve_sparse_lcp, arg("M"), arg("q"), arg("method"), arg("tol"),
        arg("max_iter"), arg("warm_start"), arg("options"));
  m.def("read_problem", &read_problem, arg("path"));
  m.def("parse_json", &parse_json, arg("text"), arg("source"));
  m.def("to_json", &to_json, arg("problem"));
  m.def("write_siconos", &write_siconos, arg("path"), arg("problem"));
  m.def("read_fclib", &read_fclib_dict, arg("path"));
  m.def("write_fclib", &write_fclib_dict, arg("path"), arg("problem"), arg("solution"));
}

}  // namespace perp::python
