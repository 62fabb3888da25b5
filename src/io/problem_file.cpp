// Reading a problem file by its extension: .json through the JSON readers, .dat through the
// Siconos readers (docs/file-formats.md).
#include "perp/io/json.hpp"

#include <string>
#include <utility>
#include <variant>

#include "detail.hpp"
#include "json_kit.hpp"
#include "perp/core/error.hpp"
#include "perp/io/siconos.hpp"

namespace perp {

using detail::lower_case;

Lcp read_lcp_file(const std::filesystem::path& path) {
  // Case-insensitive, so that "PROBLEM.DAT" from another system still reads.
  const std::string extension = lower_case(path.extension().string());
  if (extension == ".dat") return read_siconos_lcp(path);
  if (extension == ".json") return read_json_lcp(path);
  const std::string problem = path.extension().empty() ? "the file name has no extension"
                                                       : "unknown extension '" + path.extension().string() + "'";
  throw InvalidProblem("cannot read '" + path.string() + "': " + problem + "; expected '.dat' (Siconos) or '.json'");
}

Problem read_problem_file(const std::filesystem::path& path) {
  const std::string extension = lower_case(path.extension().string());
  if (extension == ".json") return parse_json_problem(detail::read_whole_file(path), path.string());
  if (extension == ".dat") {
    return read_siconos_problem(path);
  }
  return read_lcp_file(path);  // refuses the extension with the same message
}

Eigen::MatrixXd read_matrix_file(const std::filesystem::path& path) {
  if (lower_case(path.extension().string()) == ".json")
    return parse_json_matrix(detail::read_whole_file(path), path.string());
  if (lower_case(path.extension().string()) == ".dat") {
    // Which kind of .dat it is decides the message: an MLCP or friction-contact file has no
    // single M to classify, and saying so beats an LCP parse error.
    Problem problem = read_siconos_problem(path);
    if (Lcp* lcp = std::get_if<Lcp>(&problem)) return std::move(lcp->M);
    throw InvalidProblem(path.string() + " is a Siconos " + std::string(problem_type(problem)) +
                         " file, not an LCP: classify reads the matrix M of an LCP (a .dat LCP file, a .json LCP, or "
                         "a .json with only \"M\")");
  }
  return read_lcp_file(path).M;
}

}  // namespace perp
