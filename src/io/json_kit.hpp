#pragma once
// The JSON readers' and writers' shared kit (not installed): the messages that name the key, the
// did-you-mean hints, and the conversions between JSON arrays and Eigen vectors and matrices. Used by
// json_problem.cpp, json_result.cpp and problem_file.cpp.

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "perp/core/error.hpp"

namespace perp::detail {

using nlohmann::json;
// Results keep their keys in the documented order, which reads better than alphabetical.
using nlohmann::ordered_json;

inline constexpr double kInfinity = std::numeric_limits<double>::infinity();

inline std::string lower_case(std::string_view text) {
  std::string lowered(text);
  std::transform(lowered.begin(), lowered.end(), lowered.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lowered;
}

// Levenshtein distance, for the did-you-mean hints (keys are a few characters long).
inline std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// " (did you mean \"q\"?)" when `word` is a known one in another letter case, a near misspelling
// of a longer one ("frcition"), or a common synonym ("lower" for "lo"); empty otherwise. Keys of
// one or two letters only match by case: "x" is not a misspelling of "c".
template <std::size_t N>
inline std::string did_you_mean(std::string_view word, const std::array<std::string_view, N>& known) {
  constexpr std::array<std::pair<std::string_view, std::string_view>, 4> kSynonyms{
      {{"lower", "lo"}, {"upper", "hi"}, {"findex", "friction"}, {"kind", "type"}}};
  const std::string lowered = lower_case(word);
  std::string_view best;
  std::size_t best_distance = std::numeric_limits<std::size_t>::max();
  for (std::string_view candidate : known) {
    const std::string candidate_lowered = lower_case(candidate);
    std::size_t distance = edit_distance(lowered, candidate_lowered);
    if (lowered == candidate_lowered) distance = 0;
    const std::size_t allowed = candidate.size() <= 2 ? 0 : candidate.size() <= 5 ? 1 : 2;
    if (distance <= allowed && distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  for (const auto& [synonym, meant] : kSynonyms) {
    if (best.empty() && lowered == synonym && std::find(known.begin(), known.end(), meant) != known.end()) best = meant;
  }
  return best.empty() ? "" : " (did you mean \"" + std::string(best) + "\"?)";
}

// "\"a\", \"b\" and \"c\"".
template <std::size_t N>
inline std::string listing(const std::array<std::string_view, N>& words, std::string_view last_joint = " and ") {
  std::string text;
  for (std::size_t i = 0; i < N; ++i) {
    if (i > 0) text += i + 1 == N ? std::string(last_joint) : std::string(", ");
    text += "\"" + std::string(words[i]) + "\"";
  }
  return text;
}

/// Reject keys perp does not know: a mistyped "Q" would otherwise only surface as "missing q".
/// `where` is the source, or "source: friction[2]" for a nested object; `what` names the object
/// ("an LCP", "a friction entry").
template <std::size_t N>
void require_known_keys(const json& object, const std::array<std::string_view, N>& keys, const std::string& where,
                        const char* what) {
  for (const auto& [key, value] : object.items()) {
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
    throw InvalidProblem(where + ": unknown key \"" + key + "\"" + did_you_mean(key, keys) + "; the keys of " + what +
                         " are " + listing(keys));
  }
}

/// The array at `key`, or nullptr when the key is absent; throws when it is not an array.
inline const json* find_array(const json& document, const char* key, const std::string& source, const char* meaning) {
  const auto found = document.find(key);
  if (found == document.end()) return nullptr;
  if (!found->is_array()) {
    throw InvalidProblem(source + ": \"" + key + "\" must be an array (" + meaning + "), got " + found->type_name());
  }
  return &*found;
}

inline const json& require_array(const json& document, const char* key, const std::string& source, const char* meaning) {
  const json* found = find_array(document, key, source, meaning);
  if (found == nullptr) throw InvalidProblem(source + ": missing key \"" + key + "\" (" + meaning + ")");
  return *found;
}

/// Compact one-line JSON, doubles printed so that they parse back to the same bits. Invalid
/// UTF-8 in a message is replaced rather than aborting the whole dump.
template <class Json>
inline std::string compact(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// "got string \"NaN\"": the offending value when it is short enough to help, its type otherwise.
inline std::string got(const json& entry) {
  constexpr std::size_t kShownLength = 40;
  const std::string text = compact(entry);
  return std::string("got ") + entry.type_name() + (text.size() <= kShownLength ? " " + text : "");
}

inline double require_number(const json& entry, const std::string& name, const std::string& source) {
  // nlohmann keeps booleans apart from numbers, so `true` is refused here as well.
  if (!entry.is_number()) throw InvalidProblem(source + ": " + name + " is not a number (" + got(entry) + ")");
  return entry.get<double>();
}

/// The rows of matrix `key` ("M row 2 has 3 entries, expected 2 like row 0", "M[1][0] is not a number").
inline Eigen::MatrixXd matrix_from_rows(const json& rows, const std::string& key, const std::string& source) {
  const auto row_count = static_cast<Eigen::Index>(rows.size());
  Eigen::Index col_count = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const json& row = rows[i];
    if (!row.is_array()) {
      throw InvalidProblem(source + ": " + key + " row " + std::to_string(i) + " is not an array (got " +
                           row.type_name() + "); " + key + " is an array of rows, each an array of numbers");
    }
    if (i == 0) {
      col_count = static_cast<Eigen::Index>(row.size());
    } else if (static_cast<Eigen::Index>(row.size()) != col_count) {
      throw InvalidProblem(source + ": " + key + " row " + std::to_string(i) + " has " + std::to_string(row.size()) +
                           " entries, expected " + std::to_string(col_count) + " like row 0");
    }
  }

  Eigen::MatrixXd matrix(row_count, col_count);
  for (Eigen::Index i = 0; i < row_count; ++i) {
    const json& row = rows[static_cast<std::size_t>(i)];
    for (Eigen::Index j = 0; j < col_count; ++j) {
      matrix(i, j) = require_number(row[static_cast<std::size_t>(j)],
                                    key + "[" + std::to_string(i) + "][" + std::to_string(j) + "]", source);
    }
  }
  return matrix;
}

inline Eigen::VectorXd vector_from_array(const json& values, const std::string& key, const std::string& source) {
  Eigen::VectorXd vector(static_cast<Eigen::Index>(values.size()));
  for (std::size_t i = 0; i < values.size(); ++i) {
    vector[static_cast<Eigen::Index>(i)] = require_number(values[i], key + "[" + std::to_string(i) + "]", source);
  }
  return vector;
}

/// Bounds: numbers, or null for `unbounded` (−∞ for "lo", +∞ for "hi"): JSON has no infinity.
inline Eigen::VectorXd bounds_from_array(const json& values, const std::string& key, double unbounded,
                                  const std::string& source) {
  Eigen::VectorXd vector(static_cast<Eigen::Index>(values.size()));
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::string name = key + "[" + std::to_string(i) + "]";
    if (values[i].is_null()) {
      vector[static_cast<Eigen::Index>(i)] = unbounded;
    } else if (values[i].is_number()) {
      vector[static_cast<Eigen::Index>(i)] = values[i].get<double>();
    } else {
      throw InvalidProblem(source + ": " + name + " is not a number or null (" + got(values[i]) + "); null means " +
                           (unbounded < 0 ? "-inf" : "+inf"));
    }
  }
  return vector;
}

// The checks every problem object shares: an object, known keys, "type" a string equal to
// `type` when present, "name"/"comment" strings.
template <std::size_t N>
void check_document(const json& document, const std::array<std::string_view, N>& keys, std::string_view type,
                    const char* what, const char* shape, const std::string& source) {
  if (!document.is_object()) {
    throw InvalidProblem(source + ": expected a JSON object " + shape + ", got " + std::string(document.type_name()));
  }
  // The type first: a QP file given to the MLCP reader is better told so than told that "Q" is unknown.
  if (const auto found = document.find("type"); found != document.end()) {
    if (!found->is_string()) throw InvalidProblem(source + ": \"type\" must be a string, got " + found->dump());
    if (found->get<std::string>() != type) {
      throw InvalidProblem(source + ": \"type\" is " + found->dump() + "; only \"" + std::string(type) +
                           "\" is supported here (parse_json_problem reads every type)");
    }
  }
  require_known_keys(document, keys, source, what);
  for (const char* free_text : {"name", "comment"}) {
    if (const auto found = document.find(free_text); found != document.end() && !found->is_string()) {
      throw InvalidProblem(source + ": \"" + free_text + "\" must be a string, got " + found->type_name());
    }
  }
}

// Runs a problem's own validation, its message prefixed with the source.
template <class Problem>
void validate_from(const Problem& problem, const std::string& source) {
  try {
    problem.validate();
  } catch (const InvalidProblem& error) {
    throw InvalidProblem(source + ": " + error.what());
  }
}

template <class Vector>
inline ordered_json vector_to_json(const Vector& values) {
  ordered_json array = ordered_json::array();
  for (Eigen::Index i = 0; i < values.size(); ++i) array.push_back(values[i]);
  return array;
}

// Infinite bounds as null (JSON has no infinity), as the reader takes them.
inline ordered_json bounds_to_json(const Eigen::VectorXd& values) {
  ordered_json array = ordered_json::array();
  for (Eigen::Index i = 0; i < values.size(); ++i) {
    if (std::isinf(values[i])) {
      array.push_back(nullptr);
    } else {
      array.push_back(values[i]);
    }
  }
  return array;
}

}  // namespace perp::detail
