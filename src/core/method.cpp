#include "perp/core/method.hpp"

#include <ostream>

#include "perp/core/error.hpp"

namespace perp {

std::string to_string(Method method) { return std::string(method_name(method)); }

template <>
Method from_string<Method>(std::string_view name) {
  std::string valid;
  for (int value = 0; value <= static_cast<int>(Method::Auto); ++value) {
    const auto method = static_cast<Method>(value);
    if (method_name(method) == name) return method;
    valid += valid.empty() ? "" : ", ";
    valid += method_name(method);
  }
  throw InvalidProblem("unknown method '" + std::string(name) + "'; expected one of: " + valid);
}

std::ostream& operator<<(std::ostream& out, Method method) { return out << to_string(method); }

}  // namespace perp
