#include "perp/core/result.hpp"

#include <cstdio>

namespace perp {

void record_history(std::vector<double>& history, double residual) {
  if (history.size() < kHistoryLimit) {
    history.push_back(residual);
  } else {
    history.back() = residual;
  }
}

std::string Result::brief_report() const {
  char buffer[200];
  std::snprintf(buffer, sizeof buffer, "%s: %s in %d iteration%s, residual %.3g, relative %.3g (%.3g ms)",
                status == Status::NotRun ? "?" : to_string(method).c_str(), to_string(status).c_str(), iterations,
                iterations == 1 ? "" : "s", residual, relative_residual, time_ms);
  return buffer;
}

}  // namespace perp
