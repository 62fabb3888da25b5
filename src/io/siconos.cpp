// Siconos' LCP text format (FORMATS.md §1, §2): the reader and the writer, and the choice between
// the LCP, MLCP (siconos_mlcp.cpp) and friction-contact (siconos_fc.cpp) readers for a `.dat` file
// of unknown kind. The token stream and the NumericsMatrix readers are in siconos_tokens.cpp and
// siconos_matrix.cpp.

#include "perp/io/siconos.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <charconv>
#include <fstream>
#include <istream>
#include <ostream>
#include <sstream>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "detail.hpp"
#include "perp/core/error.hpp"
#include "siconos_reader.hpp"

namespace perp {

Lcp parse_siconos_lcp(std::istream& in, const std::string& source) {
  detail::TokenReader tokens(in, source);

  const Eigen::Index n = tokens.read_count("n (the problem size)");

  const long long storage = detail::read_storage_type(tokens);

  // Siconos does not compare these with n; perp does, since an LCP needs an n×n M.
  const Eigen::Index rows = tokens.read_count("the row count of M");
  if (rows != n) {
    tokens.fail("M has " + std::to_string(rows) + " rows but n is " + std::to_string(n) + "; M must be n×n");
  }
  const Eigen::Index cols = tokens.read_count("the column count of M");
  if (cols != n) {
    tokens.fail("M has " + std::to_string(cols) + " columns but n is " + std::to_string(n) + "; M must be n×n");
  }

  Lcp problem;
  problem.M = storage == 0 ? detail::read_dense_matrix(tokens, rows, cols)
                           : detail::read_sparse_block_matrix(tokens, rows, cols);

  problem.q = detail::read_value_vector(tokens, cols, "q");
  // Whatever follows q (free-text remarks in several corpus files) is ignored, as Siconos does.

  return detail::validated(std::move(problem), source);
}

Lcp read_siconos_lcp(const std::filesystem::path& path) {
  std::istringstream in(detail::read_whole_file(path));
  return parse_siconos_lcp(in, path.string());
}

void write_siconos_lcp(std::ostream& out, const Lcp& problem) {
  // Writing NaN or a non-square M would produce a file no reader accepts.
  problem.validate();
  const Eigen::Index rows = problem.M.rows();
  const Eigen::Index cols = problem.M.cols();

  // The layout of linearComplementarity_printInFile / NM_write_in_file: n, storage 0, the sizes
  // twice, one column of M per line, then q on one line.
  out << problem.size() << '\n' << 0 << '\n' << rows << '\n' << cols << '\n' << rows << '\t' << cols << '\n';
  for (Eigen::Index j = 0; j < cols; ++j) detail::write_line(out, problem.M.col(j));
  detail::write_line(out, problem.q);
}

void write_siconos_lcp(const std::filesystem::path& path, const Lcp& problem) {
  // Validate before opening, so that an invalid problem does not truncate an existing file.
  problem.validate();
  std::ofstream out(path);
  if (!out) throw InvalidProblem("cannot open '" + path.string() + "' for writing");
  write_siconos_lcp(out, problem);
  out.flush();
  if (!out) throw InvalidProblem("error while writing '" + path.string() + "'");
}

Problem parse_siconos_problem(const std::string& text, const std::string& source) {
  // The first five tokens say which kind is likely: an MLCP starts with two 0/1 flags, a
  // friction-contact file with `d nc storage n n` (d ∈ {2, 3}, n = d·nc), an LCP with `n storage n n`.
  std::istringstream header(text);
  long long t[5] = {-1, -1, -1, -1, -1};
  for (long long& value : t) {
    std::string token;
    if (!(header >> token)) break;
    const auto [stop, error] = std::from_chars(token.data(), token.data() + token.size(), value);
    if (error != std::errc() || stop != token.data() + token.size()) {
      value = -1;
      break;
    }
  }
  const auto flag = [](long long value) { return value == 0 || value == 1; };
  const bool mlcp_likely = flag(t[0]) && flag(t[1]);
  const bool fc_likely = (t[0] == 2 || t[0] == 3) && t[1] >= 0 && t[1] <= detail::kMaxCount && t[2] >= 0 && t[2] <= 2 &&
                         t[3] == t[0] * t[1] && t[4] == t[3];

  enum Kind { kLcp, kMlcp, kFrictionContact };
  std::vector<Kind> order = {kLcp, kMlcp, kFrictionContact};
  const Kind likely = mlcp_likely ? kMlcp : fc_likely ? kFrictionContact : kLcp;
  std::stable_partition(order.begin(), order.end(), [&](Kind kind) { return kind == likely; });

  std::string messages;
  for (const Kind kind : order) {
    std::istringstream in(text);
    try {
      if (kind == kLcp) return parse_siconos_lcp(in, source);
      if (kind == kMlcp) return parse_siconos_mlcp(in, source);
      return parse_siconos_friction_contact(in, source);
    } catch (const InvalidProblem& error) {
      const char* name = kind == kLcp ? "an LCP" : kind == kMlcp ? "an MLCP" : "a friction-contact problem";
      messages += std::string("; read as ") + name + ": " + error.what();
    }
  }
  throw InvalidProblem(source + ": not a Siconos LCP, MLCP or friction-contact file" + messages);
}

Problem read_siconos_problem(const std::filesystem::path& path) {
  return parse_siconos_problem(detail::read_whole_file(path), path.string());
}

namespace detail {

void write_shortest(std::ostream& out, double value) {
  // The shortest text that reads back as the same double (never more than 17 significant
  // digits), independent of the stream's flags and locale.
  char buffer[64];
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  if (error != std::errc()) throw InvalidProblem("cannot format the value " + std::to_string(value));
  out.write(buffer, end - buffer);
}

}  // namespace detail

}  // namespace perp
