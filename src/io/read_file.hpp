#pragma once
// Private helper of the io readers (not installed).

#include <filesystem>
#include <string>

namespace perp::detail {

/// The whole file as bytes. Throws `InvalidProblem` naming the path when it is a directory, does
/// not exist, cannot be opened or fails while reading.
[[nodiscard]] std::string read_whole_file(const std::filesystem::path& path);

}  // namespace perp::detail
