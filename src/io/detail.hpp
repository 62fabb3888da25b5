#pragma once
// Private helpers of the io readers (not installed).

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace perp::detail {

/// The whole file as bytes. Throws `InvalidProblem` naming the path when it is a directory, does
/// not exist, cannot be opened or fails while reading.
[[nodiscard]] std::string read_whole_file(const std::filesystem::path& path);

/// `text` parsed as JSON. Throws `InvalidProblem` "SOURCE: malformed JSON at byte N: ..." for bad
/// syntax, "SOURCE: malformed JSON: ..." for other parse errors (e.g. a number too large for a double).
[[nodiscard]] nlohmann::json parse_json(const std::string& text, const std::string& source);

}  // namespace perp::detail
