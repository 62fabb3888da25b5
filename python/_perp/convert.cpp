// perp._perp: array conversion both ways and Python callables as the library's F and J (common.hpp).
#include <algorithm>
#include <string>

#include "common.hpp"

namespace perp::python {

std::string type_name(py::handle value) { return py::str(py::type::handle_of(value).attr("__name__")); }

std::string shape_text(const py::array& a) {
  std::string text = "(";
  for (py::ssize_t i = 0; i < a.ndim(); ++i) {
    text += std::to_string(a.shape(i));
    if (a.ndim() == 1 || i + 1 < a.ndim()) text += i + 1 < a.ndim() ? ", " : ",";
  }
  return text + ")";
}

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
  if (indptr.ndim() != 1 || indices.ndim() != 1 || data.ndim() != 1) {
    throw py::value_error(std::string(name) + ": indptr, indices and data must be 1-D");
  }
  // The checks themselves (sizes, indptr, indices) are the library's, fuzzed by fuzz/csc_fuzz.cpp.
  return csc_matrix(rows, cols, {indptr.data(), static_cast<std::size_t>(indptr.shape(0))},
                    {indices.data(), static_cast<std::size_t>(indices.shape(0))},
                    {data.data(), static_cast<std::size_t>(data.shape(0))}, name);
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

}  // namespace perp::python
