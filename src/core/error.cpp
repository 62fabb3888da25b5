#include "perp/core/error.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace perp {

std::string number_text(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+inf" : "-inf";
  // The shortest text that reads back as the same double (std::to_chars): "1e-20", "0.1", not
  // %.17g's "9.9999999999999995e-21" and "0.10000000000000001".
  char buffer[32];
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, value);
  (void)error;  // 32 characters hold any double
  return std::string(buffer, end);
}

}  // namespace perp
