#include "trace.hpp"

#include <cmath>
#include <cstdio>
#include <type_traits>
#include <vector>

#include "perp/solvers/trace.hpp"

namespace perp::cli {
namespace {

constexpr std::size_t kShown = 12;  // entries of a list shown in a text line

nlohmann::ordered_json number(double value) {
  return std::isfinite(value) ? nlohmann::ordered_json(value) : nlohmann::ordered_json(nullptr);
}

std::string number_text(double value) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.6g", value);
  return buffer;
}

std::string index_list(const std::vector<Eigen::Index>& indices) {
  std::string text = "{";
  for (std::size_t k = 0; k < indices.size() && k < kShown; ++k) {
    text += (k ? ", " : "") + std::to_string(indices[k]);
  }
  if (indices.size() > kShown) text += ", ... (" + std::to_string(indices.size()) + ")";
  return text + "}";
}

// "active 3 (+{1} -{})"
std::string set_changes(const TraceEvent& e, const char* name) {
  std::string text;
  if (e.active_size) text = std::string(name) + " " + std::to_string(*e.active_size) + " ";
  return text + "(+" + index_list(e.entered) + " -" + index_list(e.left) + ")";
}

}  // namespace

// The fields of `for_each_field` as JSON: a non-finite number (a ratio test's +inf) as null.
nlohmann::ordered_json trace_event_json(const TraceEvent& e) {
  nlohmann::ordered_json o;
  for_each_field(e, [&o](const char* key, const auto& value) {
    using T = std::decay_t<decltype(value)>;
    if constexpr (std::is_same_v<T, double>) {
      o[key] = number(value);
    } else if constexpr (std::is_same_v<T, std::vector<double>>) {
      nlohmann::ordered_json array = nlohmann::ordered_json::array();
      for (const double v : value) array.push_back(number(v));
      o[key] = std::move(array);
    } else {
      o[key] = value;
    }
  });
  return o;
}

std::string trace_event_text(const TraceEvent& e) {
  std::string text = std::string(e.method) + " ";
  switch (e.kind) {
    case TraceKind::Pivot: {
      text += "pivot " + std::to_string(e.iteration) + ": ";
      if (e.entering) text += to_string(*e.entering) + " enters";
      if (e.leaving) text += ", " + to_string(*e.leaving) + " leaves";
      if (e.ratio) text += " (ratio " + number_text(*e.ratio) + ")";
      if (e.z0) text += "; z0 = " + number_text(*e.z0);
      text += "; basis [";
      for (std::size_t p = 0; p < e.basis.size() && p < kShown; ++p) {
        text += (p ? ", " : "") + to_string(e.basis[p]);
        if (p < e.values.size()) text += " = " + number_text(e.values[p]);
      }
      if (e.basis.size() > kShown) text += ", ...";
      text += "]; ratio test [";
      for (std::size_t p = 0; p < e.ratios.size() && p < kShown; ++p) {
        text += (p ? ", " : "") + (std::isfinite(e.ratios[p]) ? number_text(e.ratios[p]) : std::string("-"));
      }
      if (e.ratios.size() > kShown) text += ", ...";
      text += "]";
      break;
    }
    case TraceKind::PrincipalPivot:
      text += "pivot " + std::to_string(e.iteration) + ": ";
      if (e.driving)
        text += "driving " + std::to_string(*e.driving) + ", step " + number_text(e.step.value_or(0)) + ", ";
      text += set_changes(e, e.driving ? "clamped" : "basic z");
      break;
    case TraceKind::Sweep:
      text += "sweep " + std::to_string(e.iteration) + ": " + set_changes(e, "z > 0:");
      break;
    case TraceKind::NewtonStep:
      text += "step " + std::to_string(e.iteration) + ": ";
      if (e.merit) text += "merit " + number_text(*e.merit) + ", ";
      if (e.step)
        text += "t " + number_text(*e.step) + (e.direction ? std::string(" (") + e.direction + ")" : "") + ", ";
      text += set_changes(e, "active") + ", kinks " + index_list(e.kinks);
      break;
    case TraceKind::InteriorStep:
      text += "step " + std::to_string(e.iteration) + ": ";
      if (e.mu) text += "mu " + number_text(*e.mu) + ", ";
      if (e.step) text += "step " + number_text(*e.step) + ", ";
      text += set_changes(e, "z > w:");
      break;
  }
  if (e.residual && e.kind != TraceKind::Pivot) text += ", residual " + number_text(*e.residual);
  if (e.residual && e.kind == TraceKind::Pivot) text += "; residual " + number_text(*e.residual);
  return text;
}

std::string with_trace(const std::string& result_json, const nlohmann::ordered_json& trace) {
  nlohmann::ordered_json o = nlohmann::ordered_json::parse(result_json);
  o["trace"] = trace;
  return o.dump(2);
}

}  // namespace perp::cli
