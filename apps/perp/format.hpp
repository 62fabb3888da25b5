#pragma once
// Text shown by the CLI: vectors cut to their first entries.
#include <Eigen/Dense>
#include <cstdio>
#include <string>

namespace perp::cli {

/// "[1, 2.5, ... (40 entries)]": the first `shown` entries with `digits` significant digits.
inline std::string format_vector(const Eigen::VectorXd& v, Eigen::Index shown = 12, int digits = 10) {
  std::string text = "[";
  char buffer[40];
  for (Eigen::Index i = 0; i < v.size() && i < shown; ++i) {
    std::snprintf(buffer, sizeof buffer, "%s%.*g", i == 0 ? "" : ", ", digits, v[i]);
    text += buffer;
  }
  if (v.size() > shown) text += ", ... (" + std::to_string(v.size()) + " entries)";
  return text + "]";
}

}  // namespace perp::cli
