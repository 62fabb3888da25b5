#include "perp/io/json.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include "detail.hpp"
#include "perp/core/error.hpp"
#include "perp/core/status.hpp"
#include "perp/io/siconos.hpp"

namespace perp {
namespace {

using nlohmann::json;
// Results keep their keys in the documented order, which reads better than alphabetical.
using nlohmann::ordered_json;

constexpr std::array<std::string_view, 5> kProblemKeys{"type", "M", "q", "name", "comment"};

std::string lower_case(std::string_view text) {
  std::string lowered(text);
  std::transform(lowered.begin(), lowered.end(), lowered.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lowered;
}

/// Reject keys perp does not know: a mistyped "Q" would otherwise only surface as "missing q".
void require_known_keys(const json& document, const std::string& source) {
  for (const auto& [key, value] : document.items()) {
    if (std::find(kProblemKeys.begin(), kProblemKeys.end(), key) != kProblemKeys.end()) continue;
    std::string hint;
    for (std::string_view known : kProblemKeys) {
      if (lower_case(known) == lower_case(key)) hint = " (did you mean \"" + std::string(known) + "\"?)";
    }
    throw InvalidProblem(source + ": unknown key \"" + key + "\"" + hint +
                         "; the keys of an LCP are \"type\", \"M\", \"q\", \"name\" and \"comment\"");
  }
}

const json& require_array(const json& document, const char* key, const std::string& source, const char* meaning) {
  const auto found = document.find(key);
  if (found == document.end()) {
    throw InvalidProblem(source + ": missing key \"" + key + "\" (" + meaning + ")");
  }
  if (!found->is_array()) {
    throw InvalidProblem(source + ": \"" + key + "\" must be an array (" + meaning + "), got " + found->type_name());
  }
  return *found;
}

/// Compact one-line JSON, doubles printed so that they parse back to the same bits. Invalid
/// UTF-8 in a message is replaced rather than aborting the whole dump.
template <class Json>
std::string compact(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

double require_number(const json& entry, const std::string& name, const std::string& source) {
  // nlohmann keeps booleans apart from numbers, so `true` is refused here as well.
  if (!entry.is_number()) {
    // Show the offending value when it is short enough to help, its type otherwise.
    constexpr std::size_t kShownLength = 40;
    const std::string text = compact(entry);
    const std::string shown = text.size() <= kShownLength ? " " + text : "";
    throw InvalidProblem(source + ": " + name + " is not a number (got " + entry.type_name() + shown + ")");
  }
  return entry.get<double>();
}

Eigen::MatrixXd matrix_from_rows(const json& rows, const std::string& source) {
  const auto row_count = static_cast<Eigen::Index>(rows.size());
  Eigen::Index col_count = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const json& row = rows[i];
    if (!row.is_array()) {
      throw InvalidProblem(source + ": M row " + std::to_string(i) + " is not an array (got " + row.type_name() +
                           "); M is an array of rows, each an array of numbers");
    }
    if (i == 0) {
      col_count = static_cast<Eigen::Index>(row.size());
    } else if (static_cast<Eigen::Index>(row.size()) != col_count) {
      throw InvalidProblem(source + ": M row " + std::to_string(i) + " has " + std::to_string(row.size()) +
                           " entries, expected " + std::to_string(col_count) + " like row 0");
    }
  }

  Eigen::MatrixXd matrix(row_count, col_count);
  for (Eigen::Index i = 0; i < row_count; ++i) {
    const json& row = rows[static_cast<std::size_t>(i)];
    for (Eigen::Index j = 0; j < col_count; ++j) {
      matrix(i, j) = require_number(row[static_cast<std::size_t>(j)],
                                    "M[" + std::to_string(i) + "][" + std::to_string(j) + "]", source);
    }
  }
  return matrix;
}

template <class Vector>
ordered_json vector_to_json(const Vector& values) {
  ordered_json array = ordered_json::array();
  for (Eigen::Index i = 0; i < values.size(); ++i) array.push_back(values[i]);
  return array;
}

}  // namespace

namespace detail {

std::string read_whole_file(const std::filesystem::path& path) {
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored)) {
    throw InvalidProblem("cannot open '" + path.string() + "': it is a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const bool missing = !std::filesystem::exists(path, ignored);
    throw InvalidProblem("cannot open '" + path.string() + "'" + (missing ? ": no such file" : ""));
  }
  std::ostringstream contents;
  contents << in.rdbuf();
  if (in.bad()) throw InvalidProblem("error while reading '" + path.string() + "'");
  return contents.str();
}

json parse_json(const std::string& text, const std::string& source) {
  try {
    return json::parse(text);
  } catch (const json::parse_error& error) {
    throw InvalidProblem(source + ": malformed JSON at byte " + std::to_string(error.byte) + ": " + error.what());
  } catch (const json::exception& error) {
    // e.g. a number literal too large for a double (out_of_range.406).
    throw InvalidProblem(source + ": malformed JSON: " + error.what());
  }
}

}  // namespace detail

Lcp parse_json_lcp(const std::string& text, const std::string& source) {
  const json document = detail::parse_json(text, source);

  if (!document.is_object()) {
    throw InvalidProblem(source + ": expected a JSON object {\"M\": [[...], ...], \"q\": [...]}, got " +
                         std::string(document.type_name()));
  }
  require_known_keys(document, source);

  if (const auto type = document.find("type"); type != document.end()) {
    if (!type->is_string()) {
      throw InvalidProblem(source + ": \"type\" must be a string, got " + type->dump());
    }
    if (type->get<std::string>() != "lcp") {
      throw InvalidProblem(source + ": \"type\" is " + type->dump() + "; only \"lcp\" is supported here");
    }
  }
  for (const char* free_text : {"name", "comment"}) {
    if (const auto found = document.find(free_text); found != document.end() && !found->is_string()) {
      throw InvalidProblem(source + ": \"" + free_text + "\" must be a string, got " + found->type_name());
    }
  }

  const json& rows = require_array(document, "M", source, "the rows of M");
  const json& offsets = require_array(document, "q", source, "the vector q");

  Lcp problem;
  problem.M = matrix_from_rows(rows, source);
  problem.q.resize(static_cast<Eigen::Index>(offsets.size()));
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    problem.q[static_cast<Eigen::Index>(i)] = require_number(offsets[i], "q[" + std::to_string(i) + "]", source);
  }

  try {
    problem.validate();
  } catch (const InvalidProblem& error) {
    throw InvalidProblem(source + ": " + error.what());
  }
  return problem;
}

Lcp read_json_lcp(const std::filesystem::path& path) {
  return parse_json_lcp(detail::read_whole_file(path), path.string());
}

std::string lcp_to_json(const Lcp& problem) {
  // NaN would print as null and the file would not read back.
  problem.validate();
  // One row of M per line: a problem file stays readable, unlike nlohmann's one number per
  // line, and is still plain JSON.
  std::string text = "{\n  \"type\": \"lcp\",\n  \"M\": [";
  for (Eigen::Index i = 0; i < problem.M.rows(); ++i) {
    text += i == 0 ? "\n    " : ",\n    ";
    text += compact(vector_to_json(problem.M.row(i)));
  }
  text += problem.M.rows() == 0 ? "],\n" : "\n  ],\n";
  text += "  \"q\": " + compact(vector_to_json(problem.q)) + "\n}\n";
  return text;
}

std::string result_to_json(const Result& result, int indent) {
  ordered_json object;
  object["status"] = to_string(result.status);
  object["method"] = result.method;
  object["n"] = result.z.size();
  object["iterations"] = result.iterations;
  object["residual"] = result.residual;
  object["z"] = vector_to_json(result.z);
  object["w"] = vector_to_json(result.w);
  object["time_ms"] = result.time_ms;
  object["message"] = result.message;
  object["history"] = result.history;
  if (!result.solutions.empty()) {
    ordered_json solutions = ordered_json::array();
    for (const Eigen::VectorXd& solution : result.solutions) solutions.push_back(vector_to_json(solution));
    object["solutions"] = std::move(solutions);
  }
  if (result.ray) object["ray"] = vector_to_json(*result.ray);

  if (indent < 0) return compact(object);
  return object.dump(indent, ' ', false, ordered_json::error_handler_t::replace);
}

Lcp read_lcp_file(const std::filesystem::path& path) {
  // Case-insensitive, so that "PROBLEM.DAT" from another system still reads.
  const std::string extension = lower_case(path.extension().string());
  if (extension == ".dat") return read_siconos_lcp(path);
  if (extension == ".json") return read_json_lcp(path);
  const std::string problem = path.extension().empty() ? "the file name has no extension"
                                                       : "unknown extension '" + path.extension().string() + "'";
  throw InvalidProblem("cannot read '" + path.string() + "': " + problem + "; expected '.dat' (Siconos) or '.json'");
}

Eigen::MatrixXd parse_json_matrix(const std::string& text, const std::string& source) {
  json document = detail::parse_json(text, source);
  if (!document.is_object() || document.contains("q")) return parse_json_lcp(text, source).M;
  // Only M: check it as an LCP with q = 0 would be, so that every message reads the same.
  document["q"] = json::array();
  if (const auto rows = document.find("M"); rows != document.end() && rows->is_array()) {
    document["q"] = json(std::vector<double>(rows->size(), 0.0));
  }
  return parse_json_lcp(document.dump(), source).M;
}

Eigen::MatrixXd read_matrix_file(const std::filesystem::path& path) {
  if (lower_case(path.extension().string()) == ".json")
    return parse_json_matrix(detail::read_whole_file(path), path.string());
  return read_lcp_file(path).M;
}

}  // namespace perp
