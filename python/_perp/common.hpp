#pragma once
// Shared by the translation units of perp._perp: array conversion (convert.cpp), options
// (options.cpp), results (results.cpp), the module's entry and status objects (module.cpp).
//
// The pure-Python layer (python/perp/_convert.py) turns user input into float64 arrays of the
// right dimension first and raises TypeError/ValueError with the argument's name; these helpers
// check again, so that calling _perp directly with anything raises and never crashes.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <Eigen/Dense>
#include <Eigen/SparseCore>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "perp/perp.hpp"
#include "perp/solvers/friction_contact.hpp"  // not in perp.hpp (yet)

namespace perp::python {

namespace py = pybind11;

/// An MLCP's result: z = (u, v), with the split and both residuals recomputed from z.
struct MlcpResult : Result {
  Eigen::Index equalities = 0;
  MlcpResiduals residuals;
};

/// A frictional contact problem's result: z = r, w = u = W r + q, with the physical criteria.
struct FrictionContactResult : Result {
  int dimension = 2;
  FrictionContactResiduals criteria;
};

/// A global frictional contact problem's result: z = r, w = u = Hᵀ v + b, the velocities v, and the
/// criteria of (v, r) (`criteria`: the contact's; `equilibrium`: ‖M v − H r − q‖∞ and its relative).
struct GlobalFrictionContactResult : FrictionContactResult {
  Eigen::VectorXd v;
  double equilibrium = 0;
  double relative_equilibrium = 0;
};

/// The Python exception type perp.InvalidProblem (a ValueError), for results that carry an error.
py::object invalid_problem_type();

/// A float64 array in Fortran order (a copy only when the input is not one already).
using FArray = py::array_t<double, py::array::f_style | py::array::forcecast>;

/// The name of `value`'s Python type ("list", "ndarray"), for TypeError messages.
std::string type_name(py::handle value);
/// The shape of `a` as numpy prints it: "(3,)", "(2, 3)", "()".
std::string shape_text(const py::array& a);

/// The 2-D array `a` as a matrix; throws ValueError naming `name` when it is not 2-D.
Eigen::MatrixXd to_matrix(const FArray& a, const char* name);
/// The 1-D array `a` as a vector; throws ValueError naming `name` when it is not 1-D.
Eigen::VectorXd to_vector(const FArray& a, const char* name);
/// A CSC matrix from its scipy arrays, each checked (sizes, monotone indptr, indices in range).
Eigen::SparseMatrix<double> to_sparse(Eigen::Index rows, Eigen::Index cols, const py::array_t<long long>& indptr,
                                      const py::array_t<long long>& indices, const FArray& data, const char* name);

/// A new numpy array holding a copy of v / M.
py::array_t<double> copy_to_numpy(const Eigen::VectorXd& v);
py::array_t<double> copy_to_numpy(const Eigen::MatrixXd& M);
/// A read-only numpy view of `data[0..n)`, kept alive by `owner`.
py::array_t<double> view(const double* data, Eigen::Index n, py::handle owner);

/// SolveOptions from the keyword arguments of a solve: tol, max_iter (None or int >= 0),
/// warm_start (None or 1-D array) and the method options (`options`: names as in docs/python.md).
/// Throws TypeError for an unknown option or a value of the wrong type, naming it; the values
/// themselves are checked by `SolveOptions::validate` in the solve.
SolveOptions make_options(double tol, const py::object& max_iter, const py::object& warm_start,
                          const py::dict& options);
/// `max_iter` (None: 0, the method's default; or an int, TypeError otherwise) into
/// `o.max_iterations`, as `make_options` reads it.
void set_max_iter(SolveOptions& o, const py::object& max_iter);
/// The method options (`options`, as `make_options` reads them) into `o`, over what it holds.
void read_method_options(SolveOptions& o, const py::dict& options);

/// Each sentence as a DeprecationWarning (the scene readers' sentences on deprecated keys, which name
/// the new spelling); a warning that the filters turn into an error is raised.
void warn_deprecations(const std::vector<std::string>& sentences);

/// The interrupt hook `make_options` sets (`SolveOptions::interrupt`): takes the GIL and runs the
/// interpreter's signal handlers; true once one raised (Ctrl-C: KeyboardInterrupt), and on every
/// later poll while that exception is pending.
std::function<bool()> signal_hook();
/// With the GIL, after a solve that ran without it: raises the exception a signal handler left
/// pending (the solve then ended `interrupted`).
void raise_pending();

/// `solve(problem, method, options)` as the bindings of the problem types run it: the method by
/// name, the options as `make_options` reads them, the GIL released during the solve, and a Ctrl-C
/// meanwhile raised as KeyboardInterrupt after it. Returns what that overload of `solve` returns.
template <class Problem>
auto solve_without_gil(const Problem& problem, const std::string& method, double tol, const py::object& max_iter,
                       const py::object& warm_start, const py::dict& options) {
  const Method m = from_string<Method>(method);
  const SolveOptions o = make_options(tol, max_iter, warm_start, options);
  decltype(solve(problem, m, o)) result;
  {
    py::gil_scoped_release release;
    result = solve(problem, m, o);
  }
  raise_pending();  // Ctrl-C during the solve: its KeyboardInterrupt
  return result;
}

/// The Python `perp.Status` member of `status` (or its name, before the package registered the enum).
py::object status_object(Status status);

/// The physical criteria of a frictional contact answer as a dict (contact.cpp; the 2D and 3D steps' reports).
py::dict criteria_dict(const FrictionContactResiduals& r);

/// A run's per-step fallbacks as a list of `steps` strings: "" except at the steps recorded in
/// `fallbacks` (step, text) (contact.cpp; the 2D and 3D simulations' dictionaries).
py::list fallback_list(py::ssize_t steps, const std::vector<std::pair<long, std::string>>& fallbacks);

/// The Python callable `function` (kept alive by the caller for the whole solve) as a C++ F or J:
/// takes the GIL, passes z as a new numpy array, converts what it returns (TypeError when it is
/// not an array of floats of the right dimension). Exceptions it raises propagate as themselves.
VectorFunction wrap_function(py::handle function, const char* name);
JacobianFunction wrap_jacobian(py::handle function, const char* name);
/// A Python callable returning (rows, cols, indptr, indices, data) of a CSC matrix (the Python layer
/// converts what the user's J returns) as the `SparseJacobianFunction` of an `Mcp`.
SparseJacobianFunction wrap_sparse_jacobian(py::handle function, const char* name);

void bind_results(py::module_& m);  // results.cpp: Result and the result types of each problem
void bind_friction_options(py::module_& m);  // options.cpp: FrictionContactOptions and its groups
void bind_problems(py::module_& m);
void bind_contact(py::module_& m);
void bind_sensitivity(py::module_& m);
void bind_contact3d(py::module_& m);  // contact3d.cpp: 3D scenes
void bind_vec_world(py::module_& m);  // vec_world.cpp: perp.VecWorld

}  // namespace perp::python
