#pragma once
// The viewer pages' data writer (not installed): numbers, strings and arrays written as JSON that
// is safe inside a <script> element. Used by viewer.cpp (2D) and viewer3d.cpp (3D).

#include <cmath>
#include <cstdio>
#include <string>

namespace perp::viewer_json {

/// `digits` significant digits; −0 as 0. A NaN or ∞ is not JSON: written as null.
inline void number(std::string& out, double value, int digits = 6) {
  if (!std::isfinite(value)) {
    out += "null";
    return;
  }
  if (value == 0) value = 0;
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
  out += buffer;
}

/// A JSON string that is also safe inside <script>: '<' is written as \u003c, so no "</script>"
/// can end the element early.
inline void string(std::string& out, const std::string& text) {
  out += '"';
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '<' || u < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\u%04x", u);
      out += buffer;
    } else {
      out += c;
    }
  }
  out += '"';
}

/// [item(0),item(1),…,item(n − 1)]; `item(i)` appends the i-th element to `out`.
template <typename F>
void array(std::string& out, std::size_t n, F&& item) {
  out += '[';
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) out += ',';
    item(i);
  }
  out += ']';
}

}  // namespace perp::viewer_json
