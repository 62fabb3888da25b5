#pragma once
// Private helpers of the io readers (not installed).

#include <Eigen/Core>
#include <climits>
#include <cstddef>
#include <filesystem>
#include <iosfwd>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

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

/// Siconos reads every count with fscanf("%d"), so nothing larger is a size it could have
/// written; the bound also keeps rows * cols inside a 64-bit Eigen::Index.
inline constexpr long long kMaxCount = INT_MAX;

/// Bound on what a Siconos reader reserves up front: a header may claim any size, but the values
/// are only stored as the stream actually delivers them, so a short file never allocates much.
inline constexpr std::size_t kMaxReserve = std::size_t{1} << 16;

/// "(i, j)": an entry's position in the readers' messages.
inline std::string index_text(Eigen::Index i, Eigen::Index j) {
  return "(" + std::to_string(i) + ", " + std::to_string(j) + ")";
}

/// The shortest decimal text that reads back as the same double, as the Siconos writers print it
/// (src/io/siconos.cpp).
void write_shortest(std::ostream& out, double value);

/// `values` (a vector, or a row or column of a matrix) on one line: separated by spaces, each as
/// `write_shortest` prints it.
template <class Values>
void write_line(std::ostream& out, const Values& values) {
  for (Eigen::Index i = 0; i < values.size(); ++i) {
    if (i > 0) out << ' ';
    write_shortest(out, values[i]);
  }
  out << '\n';
}

}  // namespace perp::detail
