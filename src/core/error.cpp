#include "perp/core/error.hpp"

#include <cmath>
#include <cstdio>

namespace perp {

std::string number_text(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+inf" : "-inf";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

}  // namespace perp
