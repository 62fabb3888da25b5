#include "perp/core/lcp.hpp"

#include <cmath>
#include <string>

#include "perp/core/error.hpp"

namespace perp {

namespace {
// x·0 is ±0 for every finite x and NaN for ±inf and NaN, so one sum (a vectorized reduction)
// tells whether every entry is finite; Eigen's allFinite tests entry by entry, several times
// slower, which showed in the solve time of problems with n ≈ 100.
template <class Values>
bool all_finite(const Values& values) {
  return (values.array() * 0.0).sum() == 0.0;
}
}  // namespace

void require_finite(const Eigen::MatrixXd& values, const char* field) {
  if (all_finite(values)) return;
  for (Eigen::Index i = 0; i < values.rows(); ++i) {
    for (Eigen::Index j = 0; j < values.cols(); ++j) {
      if (!std::isfinite(values(i, j))) {
        throw InvalidProblem(std::string(field) + "(" + std::to_string(i) + ", " + std::to_string(j) + ") is " +
                             (std::isnan(values(i, j)) ? "NaN" : "infinite") + "; every entry must be finite");
      }
    }
  }
}

void require_finite(const Eigen::VectorXd& values, const char* field) {
  if (all_finite(values)) return;
  for (Eigen::Index i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) {
      throw InvalidProblem(std::string(field) + "[" + std::to_string(i) + "] is " +
                           (std::isnan(values[i]) ? "NaN" : "infinite") + "; every entry must be finite");
    }
  }
}

void require_size(const Eigen::VectorXd& values, Eigen::Index expected, const char* field) {
  if (values.size() != expected) {
    throw InvalidProblem(std::string(field) + ": expected size " + std::to_string(expected) + ", got " +
                         std::to_string(values.size()));
  }
}

void Lcp::validate() const { validate_lcp_data(M, q); }

void validate_lcp_data(const Eigen::MatrixXd& M, const Eigen::VectorXd& q) {
  if (M.rows() != M.cols()) {
    throw InvalidProblem("M must be square: got " + std::to_string(M.rows()) + "x" + std::to_string(M.cols()));
  }
  if (q.size() != M.rows()) {
    throw InvalidProblem("q: expected size " + std::to_string(M.rows()) + " (M is " + std::to_string(M.rows()) + "x" +
                         std::to_string(M.cols()) + "), got " + std::to_string(q.size()));
  }
  require_finite(M, "M");
  require_finite(q, "q");
}

Eigen::VectorXd Lcp::slack(const Eigen::VectorXd& z) const {
  require_size(z, q.size(), "z");
  Eigen::VectorXd w = q;
  w.noalias() += M * z;
  return w;
}

}  // namespace perp
