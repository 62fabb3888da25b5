#include "perp/core/method.hpp"

#include <ostream>

namespace perp {

std::string to_string(Method method) { return std::string(method_name(method)); }

template <>
Method from_string<Method>(std::string_view name) {
  return detail::value_in(detail::kMethodNames, name, "method");
}

std::ostream& operator<<(std::ostream& out, Method method) { return out << to_string(method); }

}  // namespace perp
