// Siconos' FrictionContactProblem text format (FC_FORMAT.md): `d nc`, the NumericsMatrix W in
// dense, sparse-block or CSparse-dump storage, q and mu. Built on the token reader of the LCP and
// MLCP readers (detail::TokenReader), so that positions and messages read the same.

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <istream>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "detail.hpp"
#include "perp/core/error.hpp"
#include "perp/io/siconos.hpp"
#include "siconos_reader.hpp"

namespace perp {
namespace {

using detail::kMaxCount;  // n = d·nc must fit an int as well
using detail::kMaxReserve;

using Entry = Eigen::Triplet<double, Eigen::Index>;

using detail::index_text;

std::size_t reserve_for(long long claimed) {
  return claimed <= 0 ? 0 : std::min(static_cast<std::size_t>(claimed), kMaxReserve);
}

void add_entry(std::vector<Entry>& entries, Eigen::Index i, Eigen::Index j, double value) {
  if (value != 0) entries.emplace_back(i, j, value);  // exact zeros are not stored
}

Eigen::VectorXd read_vector(detail::TokenReader& tokens, Eigen::Index size, const std::string& name) {
  std::vector<double> values;
  values.reserve(reserve_for(size));
  for (Eigen::Index i = 0; i < size; ++i) values.push_back(tokens.read_value(name + "[" + std::to_string(i) + "]"));
  return Eigen::Map<const Eigen::VectorXd>(values.data(), size);
}

/// Storage 0: the repeated `size0 size1`, then n·n values in column-major order (FC_FORMAT.md §1).
void read_dense(detail::TokenReader& tokens, Eigen::Index n, std::vector<Entry>& entries) {
  // Siconos keeps this second pair; a file where it disagrees with the header is corrupt.
  for (const char* which : {"row", "column"}) {
    const Eigen::Index repeated = tokens.read_count(std::string("the repeated ") + which + " count of W");
    if (repeated != n) {
      tokens.fail(std::string("the repeated ") + which + " count " + std::to_string(repeated) +
                  " differs from the header's " + std::to_string(n));
    }
  }
  const long long count = static_cast<long long>(n) * n;  // n <= INT_MAX, so this fits
  entries.reserve(reserve_for(count));
  for (long long k = 0; k < count; ++k) {
    const Eigen::Index i = static_cast<Eigen::Index>(k % n);
    const Eigen::Index j = static_cast<Eigen::Index>(k / n);
    add_entry(entries, i, j, tokens.read_value("W" + index_text(i, j)));
  }
}

/// Storage 1: Siconos' SparseBlockStorage (FORMATS.md §1.2). Nothing is sized from a count before
/// the entries it counts have arrived.
void read_sparse_block(detail::TokenReader& tokens, Eigen::Index n, std::vector<Entry>& entries) {
  const detail::BlockCounts counts = detail::read_block_counts(tokens);
  const Eigen::Index block_total = counts.stored;
  const Eigen::Index block_rows = counts.rows;
  const Eigen::Index block_cols = counts.cols;
  if (block_total > static_cast<long long>(block_rows) * block_cols) {
    tokens.fail("nbblocks = " + std::to_string(block_total) + " exceeds the " + std::to_string(block_rows) + " x " +
                std::to_string(block_cols) + " blocks of the grid");
  }
  const auto row_ends = tokens.read_cumulative_sizes(block_rows, n, "blocksize0", "row count");
  const auto col_ends = tokens.read_cumulative_sizes(block_cols, n, "blocksize1", "column count");

  const std::vector<Eigen::Index> row_pointer = detail::read_block_row_pointer(tokens, block_rows, block_total);
  const detail::BlockPositions positions = detail::read_block_columns(tokens, row_pointer, block_cols);
  const std::vector<Eigen::Index>& block_row_of = positions.rows;
  const std::vector<Eigen::Index>& block_col_of = positions.cols;
  const Eigen::Index stored_count = block_total;

  for (Eigen::Index k = 0; k < stored_count; ++k) {
    const Eigen::Index number = tokens.read_count("the number of block " + std::to_string(k));
    // Siconos only warns here; a mismatch means the payload is out of step with the index.
    if (number != k) tokens.fail("expected block number " + std::to_string(k) + ", got " + std::to_string(number));
    const auto r = static_cast<std::size_t>(block_row_of[static_cast<std::size_t>(k)]);
    const auto c = static_cast<std::size_t>(block_col_of[static_cast<std::size_t>(k)]);
    const Eigen::Index first_row = r == 0 ? 0 : row_ends[r - 1];
    const Eigen::Index first_col = c == 0 ? 0 : col_ends[c - 1];
    const Eigen::Index rows = row_ends[r] - first_row;
    const long long count = static_cast<long long>(rows) * (col_ends[c] - first_col);
    for (long long e = 0; e < count; ++e) {
      const auto i = static_cast<Eigen::Index>(e % rows);
      const auto j = static_cast<Eigen::Index>(e / rows);
      const double value = tokens.read_value("W" + index_text(first_row + i, first_col + j) + " (block " +
                                             std::to_string(k) + ", entry " + index_text(i, j) + ")");
      add_entry(entries, first_row + i, first_col + j, value);
    }
  }
}

/// The line-oriented part of a storage-2 file: CSparse's text dump (cs_print), which Siconos reads
/// with fgets and strtok. Each line is split into words; every word counts as one token, so that
/// errors here and after the dump name the same positions as the token reader does.
class DumpLines {
 public:
  explicit DumpLines(detail::TokenReader& tokens) : tokens_(tokens), base_(tokens.position()) {}

  /// Drop what is left of the current line (after the origin, fgets takes the rest of its line).
  void finish_line() {
    std::string rest;
    std::getline(tokens_.stream(), rest);
    count(rest);
  }

  /// The words of the next line that holds any; throws naming `expected` at end of input.
  const std::vector<std::string>& next(const std::string& expected) {
    std::string line;
    while (std::getline(tokens_.stream(), line)) {
      words_.clear();
      std::istringstream split(line);
      for (std::string word; split >> word;) words_.push_back(word);
      if (words_.empty()) continue;
      first_ = consumed_ + 1;
      consumed_ += static_cast<long long>(words_.size());
      return words_;
    }
    if (tokens_.stream().bad()) throw InvalidProblem(tokens_.source() + ": read error");
    throw InvalidProblem(tokens_.source() + ": token " + std::to_string(base_ + consumed_ + 1) +
                         " (end of input): expected " + expected);
  }

  /// Throw for word `k` of the current line: "SOURCE: token K ('WORD'): PROBLEM".
  [[noreturn]] void fail(std::size_t k, const std::string& problem) const {
    k = std::min(k, words_.size() - 1);
    constexpr std::size_t kShownLength = 40;
    const std::string& word = words_[k];
    const std::string shown = word.size() > kShownLength ? word.substr(0, kShownLength) + "..." : word;
    throw InvalidProblem(tokens_.source() + ": token " + std::to_string(base_ + first_ + static_cast<long long>(k)) +
                         " ('" + shown + "'): " + problem);
  }

  /// Word `k` must be `text`.
  void expect(std::size_t k, std::string_view text, const std::string& what) const {
    if (k >= words_.size() || words_[k] != text) fail(k, "expected '" + std::string(text) + "' " + what);
  }

  /// Word `k` as an integer in [lowest, highest]. cs_print writes indices with %g, so "1e+06"
  /// is accepted for an exact integer.
  Eigen::Index index(std::size_t k, long long lowest, long long highest, const std::string& what,
                     std::string_view strip = {}) const {
    if (k >= words_.size()) fail(k, "expected an integer for " + what + " after this");
    std::string_view word = words_[k];
    if (!strip.empty() && word.size() > strip.size() && word.substr(word.size() - strip.size()) == strip) {
      word.remove_suffix(strip.size());
    }
    double value = 0;
    const auto [stop, error] = std::from_chars(word.data(), word.data() + word.size(), value);
    if (error != std::errc() || stop != word.data() + word.size() || !std::isfinite(value) ||
        value != std::floor(value)) {
      fail(k, "expected an integer for " + what);
    }
    if (value < static_cast<double>(lowest) || value > static_cast<double>(highest)) {
      fail(k, what + " = " + std::string(word) + " must lie in [" + std::to_string(lowest) + ", " +
                  std::to_string(highest) + "]");
    }
    return static_cast<Eigen::Index>(value);
  }

  /// Word `k` as a finite double (cs_print's %g).
  double value(std::size_t k, const std::string& what) const {
    if (k >= words_.size()) fail(k, "expected a number for " + what + " after this");
    const std::string& word = words_[k];
    const char* first = word.data();
    if (word.size() > 1 && word[0] == '+' && word[1] != '-') ++first;
    double value = 0;
    const auto [stop, error] = std::from_chars(first, word.data() + word.size(), value);
    if (error == std::errc::result_out_of_range) fail(k, what + " is out of the range of a double");
    if (error != std::errc() || stop != word.data() + word.size()) fail(k, "expected a number for " + what);
    if (std::isnan(value)) fail(k, what + " is NaN; every entry must be finite");
    if (std::isinf(value)) fail(k, what + " is infinite; every entry must be finite");
    return value;
  }

  [[nodiscard]] std::size_t size() const { return words_.size(); }
  [[nodiscard]] const std::string& word(std::size_t k) const { return words_[k]; }

  /// Hand the counted words back to the token reader, which reads q and mu next.
  void done() { tokens_.skip(consumed_); }

 private:
  void count(const std::string& line) {
    std::istringstream split(line);
    for (std::string word; split >> word;) ++consumed_;
  }

  detail::TokenReader& tokens_;
  long long base_;          // position of the last token read before the dump (the origin)
  long long consumed_ = 0;  // words read from lines so far
  long long first_ = 0;     // 1-based offset of the current line's first word after base_
  std::vector<std::string> words_;
};

/// Storage 2 (FC_FORMAT.md §1): `origin` (1 triplet, 2 CSC, 3 CSR), then line by line the banner,
/// the size line and the entries, each value with cs_print's %g (6 significant digits).
void read_csparse(detail::TokenReader& tokens, Eigen::Index n, std::vector<Entry>& entries) {
  const long long origin = tokens.read_integer("the CSparse origin (1 triplet, 2 CSC, 3 CSR)");
  if (origin < 1 || origin > 3) {
    tokens.fail("unsupported CSparse origin " + std::to_string(origin) + " (expected 1 triplet, 2 CSC or 3 CSR)");
  }
  DumpLines lines(tokens);
  lines.finish_line();

  lines.next("the CSparse banner line ('CSparse Version ...')");
  lines.expect(0, "CSparse", "(the banner line of cs_print)");

  // "[triplet: |csr: ]M-by-N, nzmax: Z nnz: K[, 1-norm: X]"
  const char* prefix = origin == 1 ? "triplet:" : origin == 3 ? "csr:" : nullptr;
  const std::string kind = origin == 1 ? "triplet" : origin == 2 ? "CSC" : "CSR";
  lines.next("the CSparse size line ('M-by-N, nzmax: Z nnz: K')");
  std::size_t at = 0;
  if (prefix != nullptr) lines.expect(at++, prefix, "(the size line of a " + kind + " dump)");
  if (at >= lines.size()) lines.fail(at, "expected 'M-by-N,' after this");
  {
    const std::string expected = std::to_string(n) + "-by-" + std::to_string(n) + ",";
    if (lines.word(at) != expected) {
      lines.fail(at, "expected the size '" + expected + "' (W is n×n, n = " + std::to_string(n) + ")");
    }
    ++at;
  }
  lines.expect(at, "nzmax:", "(the size line)");
  lines.index(at + 1, 0, LLONG_MAX, "nzmax");
  lines.expect(at + 2, "nnz:", "(the size line)");
  const long long limit = static_cast<long long>(n) * n;
  const Eigen::Index nnz = lines.index(at + 3, 0, limit, "nnz (at most n·n)", ",");
  entries.reserve(reserve_for(nnz));

  if (origin == 1) {
    for (Eigen::Index k = 0; k < nnz; ++k) {
      const std::string which = "triplet entry " + std::to_string(k);
      lines.next(which + " ('i j : value')");
      const Eigen::Index i = lines.index(0, 0, n - 1, "the row of " + which);
      const Eigen::Index j = lines.index(1, 0, n - 1, "the column of " + which);
      lines.expect(2, ":", "after 'i j' in " + which);
      add_entry(entries, i, j, lines.value(3, "W" + index_text(i, j)));
    }
  } else {
    // CSC: one "col j : locations P to Q" line per column, then its entries "i : value"; CSR the
    // same with "row".
    const char* line_word = origin == 2 ? "col" : "row";
    long long location = 0;
    for (Eigen::Index j = 0; j < n; ++j) {
      const std::string header =
          std::string("'") + line_word + " " + std::to_string(j) + " : locations P to Q' (" + kind + " dump)";
      lines.next(header);
      lines.expect(0, line_word, "to begin " + header);
      lines.index(1, j, j, origin == 2 ? "the column number" : "the row number");
      lines.expect(2, ":", "in " + header);
      lines.expect(3, "locations", "in " + header);
      lines.index(4, location, location, "the first location (entries so far)");
      lines.expect(5, "to", "in " + header);
      const Eigen::Index last = lines.index(6, location - 1, nnz - 1, "the last location (at most nnz - 1)");
      for (; location <= last; ++location) {
        const std::string which = "location " + std::to_string(location);
        lines.next(which + " ('index : value')");
        const Eigen::Index i = lines.index(0, 0, n - 1, "the index of " + which);
        lines.expect(1, ":", "after the index in " + which);
        const Eigen::Index row = origin == 2 ? i : j;
        const Eigen::Index col = origin == 2 ? j : i;
        add_entry(entries, row, col, lines.value(2, "W" + index_text(row, col)));
      }
    }
    if (location != nnz) {
      lines.fail(6, "the dump holds " + std::to_string(location) +
                        " entries but its size line says nnz = " + std::to_string(nnz));
    }
  }
  lines.done();
}

/// The d×d blocks that hold an entry of W, sorted by block row then block column.
std::vector<std::pair<Eigen::Index, Eigen::Index>> stored_blocks(const Eigen::SparseMatrix<double>& W, int d) {
  std::vector<std::pair<Eigen::Index, Eigen::Index>> blocks;
  blocks.reserve(static_cast<std::size_t>(W.nonZeros()));
  for (Eigen::Index j = 0; j < W.outerSize(); ++j) {
    for (Eigen::SparseMatrix<double>::InnerIterator it(W, j); it; ++it) blocks.emplace_back(it.row() / d, j / d);
  }
  std::sort(blocks.begin(), blocks.end());
  blocks.erase(std::unique(blocks.begin(), blocks.end()), blocks.end());
  return blocks;
}

}  // namespace

FrictionContact parse_siconos_friction_contact(std::istream& in, const std::string& source) {
  detail::TokenReader tokens(in, source);
  const long long d = tokens.read_integer("the dimension d (2 or 3)");
  if (d != 2 && d != 3) tokens.fail("the dimension d must be 2 or 3, got " + std::to_string(d));
  const Eigen::Index nc = tokens.read_count("nc (the number of contacts)");
  if (nc > kMaxCount / d) {
    tokens.fail("d·nc = " + std::to_string(d) + " x " + std::to_string(nc) + " is too large (at most " +
                std::to_string(kMaxCount) + ")");
  }
  const Eigen::Index n = static_cast<Eigen::Index>(d) * nc;
  const std::string sizes =
      "n = d·nc = " + std::to_string(n) + " (d = " + std::to_string(d) + ", nc = " + std::to_string(nc) + ")";

  const long long storage = tokens.read_integer("the storage type of W (0 dense, 1 sparse block, 2 CSparse dump)");
  if (storage < 0 || storage > 2) {
    tokens.fail("unsupported storage type " + std::to_string(storage) +
                " (expected 0 = dense, 1 = sparse block or 2 = CSparse dump)");
  }
  // Siconos does not compare these with d·nc; perp does, since the problem needs an n×n W.
  const Eigen::Index rows = tokens.read_count("the row count of W");
  if (rows != n) tokens.fail("W has " + std::to_string(rows) + " rows but " + sizes + "; W must be n×n");
  const Eigen::Index cols = tokens.read_count("the column count of W");
  if (cols != n) tokens.fail("W has " + std::to_string(cols) + " columns but " + sizes + "; W must be n×n");

  std::vector<Entry> entries;
  if (storage == 0) {
    read_dense(tokens, n, entries);
  } else if (storage == 1) {
    read_sparse_block(tokens, n, entries);
  } else {
    read_csparse(tokens, n, entries);
  }

  FrictionContact problem;
  problem.dimension = static_cast<int>(d);
  problem.q = read_vector(tokens, n, "q");
  problem.mu = read_vector(tokens, nc, "mu");
  // Whatever follows mu (an extra 0 or 1 in 25 corpus files) is ignored, as Siconos does.

  // Built only now: n values of q have arrived, so W's n + 1 column pointers are backed by input.
  problem.W.resize(n, n);
  problem.W.setFromTriplets(entries.begin(), entries.end());  // duplicates (CSparse triplets) add up
  return detail::validated(std::move(problem), source);
}

FrictionContact read_siconos_friction_contact(const std::filesystem::path& path) {
  std::istringstream in(detail::read_whole_file(path));
  return parse_siconos_friction_contact(in, path.string());
}

void write_siconos_friction_contact(std::ostream& out, const FrictionContact& problem, SiconosStorage storage) {
  problem.validate();
  const int d = problem.dimension;
  const Eigen::Index nc = problem.contacts();
  const Eigen::Index n = problem.size();
  const auto blocks = stored_blocks(problem.W, d);
  const bool dense = blocks.empty() || storage == SiconosStorage::Dense ||
                     (storage == SiconosStorage::Automatic &&
                      2 * static_cast<long long>(blocks.size()) >= static_cast<long long>(nc) * nc);

  out << d << '\n' << nc << '\n';
  if (dense) {
    // NM_write_in_file's dense layout: the sizes twice, then one column per line.
    out << 0 << '\n' << n << '\n' << n << '\n' << n << '\t' << n << '\n';
    Eigen::VectorXd column = Eigen::VectorXd::Zero(n);
    for (Eigen::Index j = 0; j < n; ++j) {
      for (Eigen::SparseMatrix<double>::InnerIterator it(problem.W, j); it; ++it) column[it.row()] = it.value();
      detail::write_line(out, column);
      for (Eigen::SparseMatrix<double>::InnerIterator it(problem.W, j); it; ++it) column[it.row()] = 0;
    }
  } else {
    // SBM_write_in_file's layout with d×d blocks and every block row in the row pointer.
    const auto block_count = static_cast<Eigen::Index>(blocks.size());
    out << 1 << '\n' << n << '\n' << n << '\n' << block_count << '\n' << nc << '\n' << nc << '\n';
    for (int pass = 0; pass < 2; ++pass) {
      for (Eigen::Index b = 0; b < nc; ++b) out << (b > 0 ? " " : "") << (b + 1) * d;
      out << '\n';
    }
    out << nc + 1 << '\n' << block_count << '\n';
    Eigen::Index k = 0;
    for (Eigen::Index r = 0; r <= nc; ++r) {
      while (k < block_count && blocks[static_cast<std::size_t>(k)].first < r) ++k;
      out << (r > 0 ? " " : "") << k;
    }
    out << '\n';
    for (std::size_t b = 0; b < blocks.size(); ++b) out << (b > 0 ? " " : "") << blocks[b].second;
    out << '\n';
    Eigen::VectorXd values = Eigen::VectorXd::Zero(block_count * d * d);
    for (Eigen::Index j = 0; j < n; ++j) {
      for (Eigen::SparseMatrix<double>::InnerIterator it(problem.W, j); it; ++it) {
        const std::pair<Eigen::Index, Eigen::Index> key{it.row() / d, j / d};
        const auto where = std::lower_bound(blocks.begin(), blocks.end(), key) - blocks.begin();
        values[where * d * d + (j % d) * d + it.row() % d] = it.value();  // column-major in the block
      }
    }
    for (Eigen::Index b = 0; b < block_count; ++b) {
      out << b << '\n';
      detail::write_line(out, values.segment(b * d * d, d * d));
    }
  }
  detail::write_line(out, problem.q);
  detail::write_line(out, problem.mu);
}

void write_siconos_friction_contact(const std::filesystem::path& path, const FrictionContact& problem,
                                    SiconosStorage storage) {
  problem.validate();  // before opening, so that an invalid problem does not truncate a file
  std::ofstream out(path);
  if (!out) throw InvalidProblem("cannot open '" + path.string() + "' for writing");
  write_siconos_friction_contact(out, problem, storage);
  out.flush();
  if (!out) throw InvalidProblem("error while writing '" + path.string() + "'");
}

}  // namespace perp
