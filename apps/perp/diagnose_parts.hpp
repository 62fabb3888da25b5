#pragma once
// Private parts of `perp diagnose` shared by the problems' diagnosis (diagnose.cpp) and the
// scenes' (diagnose_scene.cpp): the number format, a finding, and the scene diagnosis itself.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "perp/contact/scene.hpp"

namespace perp::cli::diagnose_detail {

// The depth of an overlap (a gap <= 0) as a nonnegative number: no overlap reads 0, not -0.
inline double depth(double gap) { return gap < 0.0 ? -gap : 0.0; }

inline std::string three_digits(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", value);
  return buffer;
}

/// One finding: a likely cause, its evidence, the fix and, when it was tried, whether it helped.
inline nlohmann::ordered_json finding(const std::string& cause, const std::string& evidence, const std::string& fix,
                                      std::optional<bool> helped, const std::string& outcome) {
  nlohmann::ordered_json o;
  o["cause"] = cause;
  o["evidence"] = evidence;
  o["fix"] = fix;
  o["helped"] = helped ? nlohmann::ordered_json(*helped) : nlohmann::ordered_json(nullptr);
  o["outcome"] = outcome;
  return o;
}

/// A scene: run it (files staged in a scratch folder, never committed), look at the unsolved
/// steps and at the overlaps over time (drift), and try the fixes of [chapter] (diagnose_scene.cpp).
nlohmann::ordered_json diagnose_scene(const contact::Scene& scene);

}  // namespace perp::cli::diagnose_detail
