#pragma once
// Private helpers of the io readers (not installed).

#include <cstddef>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace perp::detail {

/// The most bytes read from a file that is not a regular file (a pipe, /dev/zero, a FIFO): 1 GiB.
/// A regular file's size is known up front and read as it is.
inline constexpr std::size_t kMaxStreamBytes = std::size_t{1} << 30;

/// The deepest nesting of arrays and objects a JSON problem or scene may have: 64 levels (a
/// problem needs 3, a scene 5). Deeper documents are refused at parse time, before any
/// recursive step (formatting, destruction) could exhaust the stack.
inline constexpr int kMaxJsonDepth = 64;

/// The whole file as bytes. Throws `InvalidProblem` naming the path when it is a directory, does
/// not exist, cannot be opened, fails while reading, or is not a regular file and delivers more
/// than `limit` bytes.
[[nodiscard]] std::string read_whole_file(const std::filesystem::path& path, std::size_t limit = kMaxStreamBytes);

/// `text` parsed as JSON. Throws `InvalidProblem` "SOURCE: malformed JSON at byte N: ..." for bad
/// syntax, "SOURCE: malformed JSON: ..." for other parse errors (e.g. a number too large for a
/// double), and "SOURCE: JSON nested deeper than 64 levels ..." past `kMaxJsonDepth`.
[[nodiscard]] nlohmann::json parse_json(const std::string& text, const std::string& source);

}  // namespace perp::detail
