// perp._perp: the compiled part of the Python package (docs/python.md). This file holds the module's
// entry (the exception type, the status and method names), the LCP solve, solve_many and classify;
// convert.cpp the array conversions and callables, options.cpp the method options, results.cpp the
// Result types, problems.cpp the other problem types and the files, contact.cpp the contact layer.
#include <pybind11/stl.h>

#include <algorithm>
#include <exception>
#include <utility>
#include <vector>

#include "common.hpp"

namespace perp::python {

namespace {

// Leaked on purpose: these hold Python objects that must not be released after the interpreter
// has finalized (static destructors run after it).
std::vector<py::object>* g_status_members = nullptr;
py::object* g_invalid_problem = nullptr;

}  // namespace

py::object invalid_problem_type() { return *g_invalid_problem; }

py::object status_object(Status status) {
  if (g_status_members == nullptr) return py::str(to_string(status));
  return (*g_status_members)[static_cast<std::size_t>(status)];
}

// ---------------------------------------------------------------------------------------------
// LCP.

namespace {

Result solve_lcp(const FArray& M, const FArray& q, const std::string& method, double tol, const py::object& max_iter,
                 const py::object& warm_start, const py::dict& options) {
  Lcp problem{to_matrix(M, "M"), to_vector(q, "q")};
  return solve_without_gil(problem, method, tol, max_iter, warm_start, options);
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
  m.attr("SPARSE_LCP_METHODS") = names(perp::sparse_lcp_methods());
  m.attr("HISTORY_LIMIT") = perp::kHistoryLimit;

  bind_results(m);
  bind_friction_options(m);
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
