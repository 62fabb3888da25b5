// Siconos' MLCP text format (FORMATS.md §3): the reader (either or both of the (M, q) and the
// (A, B, C, D, a, b) sections) and the writer (both sections).

#include <Eigen/Core>
#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <fstream>
#include <istream>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "detail.hpp"
#include "perp/core/error.hpp"
#include "perp/core/mlcp.hpp"
#include "perp/io/siconos.hpp"
#include "siconos_reader.hpp"

namespace perp {
namespace {

using detail::index_text;
using detail::kMaxCount;
using detail::kMaxReserve;
using detail::TokenReader;

/// The `storage rows cols` header and payload of a NumericsMatrix that must be `size`×`size`
/// (FORMATS.md §1); `what` explains the size in the error, e.g. "n + m = 3 (n = 2, m = 1)".
Eigen::MatrixXd read_square_matrix(TokenReader& tokens, Eigen::Index size, const std::string& what) {
  const long long storage = detail::read_storage_type(tokens);
  const Eigen::Index rows = tokens.read_count("the row count of M");
  if (rows != size) {
    tokens.fail("M has " + std::to_string(rows) + " rows but " + what + "; M must be (n+m)×(n+m)");
  }
  const Eigen::Index cols = tokens.read_count("the column count of M");
  if (cols != size) {
    tokens.fail("M is " + std::to_string(rows) + "x" + std::to_string(cols) + " but " + what +
                "; M must be (n+m)×(n+m)");
  }
  return storage == 0 ? detail::read_dense_matrix(tokens, rows, cols)
                      : detail::read_sparse_block_matrix(tokens, rows, cols);
}

/// rows×cols values in row-major order (the ABCD section of an MLCP file, FORMATS.md §3.1).
/// Stored as the stream delivers them, so a header claiming a huge size cannot allocate much.
Eigen::MatrixXd read_row_major(TokenReader& tokens, Eigen::Index rows, Eigen::Index cols, const std::string& name) {
  tokens.require_tokens(rows * cols, name + "'s " + std::to_string(rows) + "x" + std::to_string(cols) + " entries");
  std::vector<double> values;
  values.reserve(std::min(static_cast<std::size_t>(rows * cols), kMaxReserve));
  for (Eigen::Index i = 0; i < rows; ++i) {
    for (Eigen::Index j = 0; j < cols; ++j) values.push_back(tokens.read_value(name + index_text(i, j)));
  }
  return Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(values.data(), rows,
                                                                                                  cols);
}

/// 0 or 1 (the section flags of an MLCP file).
bool read_flag(TokenReader& tokens, const std::string& what) {
  const long long value = tokens.read_integer(what);
  if (value != 0 && value != 1) tokens.fail("expected 0 or 1 for " + what + ", got " + std::to_string(value));
  return value == 1;
}

/// The (M, q) section's description of the rows: cumulative block boundaries read until one
/// reaches n + m, then one flag per block (0 = equality rows). perp's Mlcp keeps the n equality
/// rows first, so the equality blocks must cover exactly rows 0 .. n − 1.
void read_row_blocks(TokenReader& tokens, Eigen::Index n, Eigen::Index m) {
  const Eigen::Index total = n + m;
  std::vector<Eigen::Index> bounds;
  while (bounds.empty() || bounds.back() < total) {
    const std::string what = "blocksRows[" + std::to_string(bounds.size()) + "]";
    const Eigen::Index value = tokens.read_count(what);
    if (bounds.empty() && value != 0)
      tokens.fail(what + " = " + std::to_string(value) + ": the first block starts at row 0");
    if (!bounds.empty() && value <= bounds.back()) {
      tokens.fail(what + " = " + std::to_string(value) + " must exceed the previous boundary " +
                  std::to_string(bounds.back()) + " (blocks are nonempty)");
    }
    if (value > total) {
      tokens.fail(what + " = " + std::to_string(value) + " passes n + m = " + std::to_string(total) +
                  "; the last boundary must equal it");
    }
    bounds.push_back(value);
  }
  for (std::size_t k = 0; k + 1 < bounds.size(); ++k) {
    const std::string what = "blocksIsComp[" + std::to_string(k) + "]";
    const long long flag = tokens.read_integer(what);
    const bool equality_rows = bounds[k + 1] <= n;
    const bool complementarity_rows = bounds[k] >= n;
    if (flag == 0 && !equality_rows) {
      tokens.fail(what + " = 0 marks rows " + std::to_string(bounds[k]) + ".." + std::to_string(bounds[k + 1] - 1) +
                  " as equalities, but with n = " + std::to_string(n) + " only rows 0.." + std::to_string(n - 1) +
                  " are (perp needs the equality rows first)");
    }
    if (flag != 0 && !complementarity_rows) {
      tokens.fail(what + " = " + std::to_string(flag) + " marks rows " + std::to_string(bounds[k]) + ".." +
                  std::to_string(bounds[k + 1] - 1) + " as complementarity rows, but with n = " + std::to_string(n) +
                  " rows 0.." + std::to_string(n - 1) + " are equalities (perp needs the equality rows first)");
    }
  }
}

/// Throws when the (M, q) and ABCD sections of one file describe different problems, naming the
/// first entry that differs. They are written from the same doubles, so they must agree exactly.
void require_same(const Mlcp& from_m, const Mlcp& from_blocks, const std::string& source) {
  const auto compare = [&](const Eigen::MatrixXd& x, const Eigen::MatrixXd& y, const char* name, Eigen::Index row0,
                           Eigen::Index col0) {
    for (Eigen::Index j = 0; j < x.cols(); ++j) {
      for (Eigen::Index i = 0; i < x.rows(); ++i) {
        if (x(i, j) != y(i, j)) {
          char buffer[160];
          std::snprintf(buffer, sizeof buffer, "M(%lld, %lld) = %.17g but %s%s = %.17g",
                        static_cast<long long>(row0 + i), static_cast<long long>(col0 + j), x(i, j), name,
                        index_text(i, j).c_str(), y(i, j));
          throw InvalidProblem(source + ": the (M, q) and (A, B, C, D, a, b) sections disagree: " + buffer);
        }
      }
    }
  };
  const Eigen::Index n = from_m.equalities();
  compare(from_m.A, from_blocks.A, "A", 0, 0);
  compare(from_m.C, from_blocks.C, "C", 0, n);
  compare(from_m.D, from_blocks.D, "D", n, 0);
  compare(from_m.B, from_blocks.B, "B", n, n);
  const auto compare_vector = [&](const Eigen::VectorXd& x, const Eigen::VectorXd& y, const char* name,
                                  Eigen::Index first) {
    for (Eigen::Index i = 0; i < x.size(); ++i) {
      if (x[i] != y[i]) {
        char buffer[160];
        std::snprintf(buffer, sizeof buffer, "q[%lld] = %.17g but %s[%lld] = %.17g", static_cast<long long>(first + i),
                      x[i], name, static_cast<long long>(i), y[i]);
        throw InvalidProblem(source + ": the (M, q) and (A, B, C, D, a, b) sections disagree: " + buffer);
      }
    }
  };
  compare_vector(from_m.a, from_blocks.a, "a", 0);
  compare_vector(from_m.b, from_blocks.b, "b", n);
}

}  // namespace

Mlcp parse_siconos_mlcp(std::istream& in, const std::string& source) {
  TokenReader tokens(in, source);
  const bool has_m = read_flag(tokens, "isStorageType1 (whether the (M, q) section is present)");
  const bool has_blocks = read_flag(tokens, "isStorageType2 (whether the (A, B, C, D, a, b) section is present)");
  const Eigen::Index n = tokens.read_count("n (the number of equalities)");
  const Eigen::Index m = tokens.read_count("m (the number of complementarity pairs)");
  if (n > kMaxCount - m) tokens.fail("n + m is too large (at most " + std::to_string(kMaxCount) + ")");
  if (!has_m && !has_blocks) {
    throw InvalidProblem(source + ": both isStorageType1 and isStorageType2 are 0, so the file holds no problem");
  }
  const std::string sizes =
      "n + m = " + std::to_string(n + m) + " (n = " + std::to_string(n) + ", m = " + std::to_string(m) + ")";

  std::optional<Mlcp> from_m;
  if (has_m) {
    read_row_blocks(tokens, n, m);
    const Eigen::MatrixXd M = read_square_matrix(tokens, n + m, sizes);
    const Eigen::VectorXd q = detail::read_value_vector(tokens, n + m, "q");
    from_m = mlcp_from_blocks(M, q, n);
  }
  std::optional<Mlcp> from_blocks;
  if (has_blocks) {
    Mlcp problem;
    problem.A = read_row_major(tokens, n, n, "A");
    problem.B = read_row_major(tokens, m, m, "B");
    problem.C = read_row_major(tokens, n, m, "C");
    problem.D = read_row_major(tokens, m, n, "D");
    problem.a = detail::read_value_vector(tokens, n, "a");
    problem.b = detail::read_value_vector(tokens, m, "b");
    from_blocks = std::move(problem);
  }
  // Whatever follows b (extra numbers in many corpus files) is ignored, as Siconos does.
  if (from_m && from_blocks) require_same(*from_m, *from_blocks, source);
  Mlcp problem = from_m ? std::move(*from_m) : std::move(*from_blocks);
  return detail::validated(std::move(problem), source);
}

Mlcp read_siconos_mlcp(const std::filesystem::path& path) {
  std::istringstream in(detail::read_whole_file(path));
  return parse_siconos_mlcp(in, path.string());
}

void write_siconos_mlcp(std::ostream& out, const Mlcp& problem) {
  problem.validate();
  const Eigen::Index n = problem.equalities();
  const Eigen::Index m = problem.complementarities();
  // Both sections, as Siconos' mixedLinearComplementarity_printInFile writes them: the header,
  // the row blocks (equalities, then complementarity rows; empty blocks left out), M column-major
  // one column per line and q, then A, B, C, D row-major one row per line, a and b.
  out << 1 << ' ' << 1 << ' ' << n << ' ' << m << '\n';
  out << 0;
  if (n > 0) out << ' ' << n;
  if (m > 0) out << ' ' << n + m;
  out << '\n';
  if (n > 0) out << 0 << (m > 0 ? " " : "");
  if (m > 0) out << 1;
  out << '\n';
  const Eigen::MatrixXd M = problem.matrix();
  out << 0 << '\n' << n + m << '\n' << n + m << '\n' << n + m << '\t' << n + m << '\n';
  for (Eigen::Index j = 0; j < M.cols(); ++j) detail::write_line(out, M.col(j));
  detail::write_line(out, problem.offset());
  for (const Eigen::MatrixXd* block : {&problem.A, &problem.B, &problem.C, &problem.D}) {
    // A k×0 block has no values and no storage: row(i) of it would offset a null pointer (UB).
    if (block->cols() == 0) continue;
    for (Eigen::Index i = 0; i < block->rows(); ++i) detail::write_line(out, block->row(i));
  }
  detail::write_line(out, problem.a);
  detail::write_line(out, problem.b);
}

void write_siconos_mlcp(const std::filesystem::path& path, const Mlcp& problem) {
  problem.validate();  // before opening, so that an invalid problem does not truncate a file
  std::ofstream out(path);
  if (!out) throw InvalidProblem("cannot open '" + path.string() + "' for writing");
  write_siconos_mlcp(out, problem);
  out.flush();
  if (!out) throw InvalidProblem("error while writing '" + path.string() + "'");
}

}  // namespace perp
