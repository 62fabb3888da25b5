#include "perp/io/json.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <charconv>
#include <string>
#include <string_view>
#include <system_error>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "detail.hpp"
#include "perp/core/error.hpp"
#include "perp/core/status.hpp"
#include "perp/io/siconos.hpp"

namespace perp {
namespace {

using nlohmann::json;
// Results keep their keys in the documented order, which reads better than alphabetical.
using nlohmann::ordered_json;

constexpr std::array<std::string_view, 5> kLcpKeys{"type", "M", "q", "name", "comment"};
constexpr std::array<std::string_view, 8> kBoxLcpKeys{"type", "M", "q", "lo", "hi", "friction", "name", "comment"};
constexpr std::array<std::string_view, 9> kMlcpKeys{"type", "A", "B", "C", "D", "a", "b", "name", "comment"};
constexpr std::array<std::string_view, 7> kQpKeys{"type", "Q", "c", "A", "b", "name", "comment"};
constexpr std::array<std::string_view, 3> kFrictionKeys{"index", "normal", "mu"};
constexpr std::array<std::string_view, 7> kFrictionContactKeys{"type", "dimension", "W", "q", "mu", "name", "comment"};
constexpr std::array<std::string_view, 3> kTripletKeys{"rows", "cols", "triplets"};
constexpr std::array<std::string_view, 5> kTypes{"lcp", "box-lcp", "mlcp", "qp", "friction-contact"};

constexpr double kInfinity = std::numeric_limits<double>::infinity();

std::string lower_case(std::string_view text) {
  std::string lowered(text);
  std::transform(lowered.begin(), lowered.end(), lowered.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lowered;
}

// Levenshtein distance, for the did-you-mean hints (keys are a few characters long).
std::size_t edit_distance(std::string_view a, std::string_view b) {
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
std::string did_you_mean(std::string_view word, const std::array<std::string_view, N>& known) {
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
std::string listing(const std::array<std::string_view, N>& words, std::string_view last_joint = " and ") {
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
const json* find_array(const json& document, const char* key, const std::string& source, const char* meaning) {
  const auto found = document.find(key);
  if (found == document.end()) return nullptr;
  if (!found->is_array()) {
    throw InvalidProblem(source + ": \"" + key + "\" must be an array (" + meaning + "), got " + found->type_name());
  }
  return &*found;
}

const json& require_array(const json& document, const char* key, const std::string& source, const char* meaning) {
  const json* found = find_array(document, key, source, meaning);
  if (found == nullptr) throw InvalidProblem(source + ": missing key \"" + key + "\" (" + meaning + ")");
  return *found;
}

/// Compact one-line JSON, doubles printed so that they parse back to the same bits. Invalid
/// UTF-8 in a message is replaced rather than aborting the whole dump.
template <class Json>
std::string compact(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// "got string \"NaN\"": the offending value when it is short enough to help, its type otherwise.
std::string got(const json& entry) {
  constexpr std::size_t kShownLength = 40;
  const std::string text = compact(entry);
  return std::string("got ") + entry.type_name() + (text.size() <= kShownLength ? " " + text : "");
}

double require_number(const json& entry, const std::string& name, const std::string& source) {
  // nlohmann keeps booleans apart from numbers, so `true` is refused here as well.
  if (!entry.is_number()) throw InvalidProblem(source + ": " + name + " is not a number (" + got(entry) + ")");
  return entry.get<double>();
}

/// The rows of matrix `key` ("M row 2 has 3 entries, expected 2 like row 0", "M[1][0] is not a number").
Eigen::MatrixXd matrix_from_rows(const json& rows, const std::string& key, const std::string& source) {
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

Eigen::VectorXd vector_from_array(const json& values, const std::string& key, const std::string& source) {
  Eigen::VectorXd vector(static_cast<Eigen::Index>(values.size()));
  for (std::size_t i = 0; i < values.size(); ++i) {
    vector[static_cast<Eigen::Index>(i)] = require_number(values[i], key + "[" + std::to_string(i) + "]", source);
  }
  return vector;
}

/// Bounds: numbers, or null for `unbounded` (−∞ for "lo", +∞ for "hi"): JSON has no infinity.
Eigen::VectorXd bounds_from_array(const json& values, const std::string& key, double unbounded,
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

Lcp lcp_from_document(const json& document, const std::string& source) {
  check_document(document, kLcpKeys, "lcp", "an LCP", "{\"M\": [[...], ...], \"q\": [...]}", source);
  Lcp problem;
  problem.M = matrix_from_rows(require_array(document, "M", source, "the rows of M"), "M", source);
  problem.q = vector_from_array(require_array(document, "q", source, "the vector q"), "q", source);
  validate_from(problem, source);
  return problem;
}

// A friction index: an integer literal >= 0 ("1.0" is refused: an index is not a measurement).
Eigen::Index require_index(const json& entry, const char* key, const std::string& where) {
  const auto found = entry.find(key);
  if (found == entry.end()) {
    throw InvalidProblem(where + ": missing key \"" + key + "\" (the 0-based index of the " +
                         (std::string_view(key) == "index" ? "tangential" : "normal") + " component)");
  }
  if (!found->is_number_integer()) {
    throw InvalidProblem(where + "." + key + " must be an integer (0-based), " + got(*found));
  }
  if (found->is_number_unsigned()) {
    const auto value = found->get<std::uint64_t>();
    if (value > static_cast<std::uint64_t>(std::numeric_limits<Eigen::Index>::max())) {
      throw InvalidProblem(where + "." + key + " = " + found->dump() + " is out of range");
    }
    return static_cast<Eigen::Index>(value);
  }
  const auto value = found->get<std::int64_t>();
  if (value < 0) throw InvalidProblem(where + "." + key + " = " + std::to_string(value) + " is negative (0-based)");
  return static_cast<Eigen::Index>(value);
}

FrictionCoupling friction_from(const json& entry, std::size_t k, const std::string& source) {
  const std::string where = source + ": friction[" + std::to_string(k) + "]";
  if (!entry.is_object()) {
    throw InvalidProblem(where + " must be an object {\"index\": i, \"normal\": j, \"mu\": μ}, " + got(entry));
  }
  require_known_keys(entry, kFrictionKeys, where, "a friction entry");
  FrictionCoupling coupling;
  coupling.index = require_index(entry, "index", where);
  coupling.normal = require_index(entry, "normal", where);
  const auto mu = entry.find("mu");
  if (mu == entry.end()) throw InvalidProblem(where + ": missing key \"mu\" (the friction coefficient)");
  coupling.mu = require_number(*mu, "friction[" + std::to_string(k) + "].mu", source);
  return coupling;
}

BoxLcp box_lcp_from_document(const json& document, const std::string& source) {
  check_document(document, kBoxLcpKeys, "box-lcp", "a box LCP",
                 "{\"type\": \"box-lcp\", \"M\": [[...], ...], \"q\": [...], \"lo\": [...], \"hi\": [...]}", source);
  BoxLcp problem;
  problem.M = matrix_from_rows(require_array(document, "M", source, "the rows of M"), "M", source);
  problem.q = vector_from_array(require_array(document, "q", source, "the vector q"), "q", source);
  problem.lower = bounds_from_array(require_array(document, "lo", source, "the lower bounds, null for -inf"), "lo",
                                    -kInfinity, source);
  problem.upper = bounds_from_array(require_array(document, "hi", source, "the upper bounds, null for +inf"), "hi",
                                    kInfinity, source);
  const Eigen::Index n = problem.q.size();
  for (const auto& [key, bounds] : {std::pair<const char*, const Eigen::VectorXd*>{"lo", &problem.lower},
                                    std::pair<const char*, const Eigen::VectorXd*>{"hi", &problem.upper}}) {
    if (bounds->size() != n) {
      throw InvalidProblem(source + ": " + key + ": expected " + std::to_string(n) + " entries (n = size of q), got " +
                           std::to_string(bounds->size()));
    }
  }
  if (const json* friction = find_array(document, "friction", source, "the friction couplings")) {
    for (std::size_t k = 0; k < friction->size(); ++k)
      problem.friction.push_back(friction_from((*friction)[k], k, source));
  }
  // lo <= hi in the file's own names; a coupled component's entries are ignored (BoxLcp).
  std::vector<bool> coupled(static_cast<std::size_t>(n), false);
  for (const FrictionCoupling& c : problem.friction) {
    if (c.index >= 0 && c.index < n) coupled[static_cast<std::size_t>(c.index)] = true;
  }
  for (Eigen::Index i = 0; i < n; ++i) {
    if (!coupled[static_cast<std::size_t>(i)] && problem.lower[i] > problem.upper[i]) {
      const std::string at = "[" + std::to_string(i) + "]";
      throw InvalidProblem(source + ": lo" + at + " = " + number_text(problem.lower[i]) + " > hi" + at + " = " +
                           number_text(problem.upper[i]));
    }
  }
  validate_from(problem, source);
  return problem;
}

// An MLCP block: absent or [] is accepted for an empty shape, whose size is then not in doubt.
Eigen::MatrixXd mlcp_block(const json& document, const char* key, Eigen::Index rows, Eigen::Index cols,
                           const char* shape, Eigen::Index n, Eigen::Index m, const std::string& source) {
  const json* found = find_array(document, key, source, "an array of rows");
  const bool empty = rows == 0 || cols == 0;
  if (found == nullptr) {
    if (empty) return Eigen::MatrixXd(rows, cols);
    throw InvalidProblem(source + ": missing key \"" + key + "\" (the " + shape + " block, " + std::to_string(rows) +
                         "x" + std::to_string(cols) + " for n = " + std::to_string(n) + ", m = " + std::to_string(m) +
                         ")");
  }
  Eigen::MatrixXd block = matrix_from_rows(*found, key, source);
  if (block.size() == 0 && empty) block.resize(rows, cols);  // [] for an n×0 or 0×m block
  return block;
}

// The size of "a" (n) or "b" (m); when the vector is absent, zero, unless a block says otherwise.
Eigen::Index mlcp_dimension(const json& document, const char* vector_key, const char* dimension,
                            std::initializer_list<std::pair<const char*, bool>> blocks, const std::string& source) {
  if (document.contains(vector_key)) {
    return static_cast<Eigen::Index>(require_array(document, vector_key, source, "a vector").size());
  }
  // (block key, whether its rows (true) or its columns (false) count the dimension).
  for (const auto& [key, by_rows] : blocks) {
    const json* found = find_array(document, key, source, "an array of rows");
    if (found == nullptr || found->empty()) continue;
    const std::size_t size = by_rows ? found->size() : ((*found)[0].is_array() ? (*found)[0].size() : 0);
    if (size > 0) {
      throw InvalidProblem(source + ": missing key \"" + vector_key + "\" (" + dimension + " = " +
                           std::to_string(size) + " from " + (by_rows ? "the rows of " : "the columns of ") + key +
                           ")");
    }
  }
  return 0;
}

Mlcp mlcp_from_document(const json& document, const std::string& source) {
  check_document(document, kMlcpKeys, "mlcp", "an MLCP",
                 "{\"type\": \"mlcp\", \"A\": [[...]], \"B\": [[...]], \"C\": [[...]], \"D\": [[...]], \"a\": [...], "
                 "\"b\": [...]}",
                 source);
  const Eigen::Index n = mlcp_dimension(document, "a", "n", {{"A", true}, {"C", true}, {"D", false}}, source);
  const Eigen::Index m = mlcp_dimension(document, "b", "m", {{"B", true}, {"D", true}, {"C", false}}, source);
  Mlcp problem;
  problem.a = n > 0 || document.contains("a")
                  ? vector_from_array(require_array(document, "a", source, "a vector"), "a", source)
                  : Eigen::VectorXd(0);
  problem.b = m > 0 || document.contains("b")
                  ? vector_from_array(require_array(document, "b", source, "a vector"), "b", source)
                  : Eigen::VectorXd(0);
  problem.A = mlcp_block(document, "A", n, n, "n×n", n, m, source);
  problem.B = mlcp_block(document, "B", m, m, "m×m", n, m, source);
  problem.C = mlcp_block(document, "C", n, m, "n×m", n, m, source);
  problem.D = mlcp_block(document, "D", m, n, "m×n", n, m, source);
  validate_from(problem, source);
  return problem;
}

Qp qp_from_document(const json& document, const std::string& source) {
  check_document(document, kQpKeys, "qp", "a QP",
                 "{\"type\": \"qp\", \"Q\": [[...]], \"c\": [...], \"A\": [[...]], \"b\": [...]}", source);
  Qp problem;
  problem.Q = matrix_from_rows(require_array(document, "Q", source, "the rows of Q"), "Q", source);
  problem.c = vector_from_array(require_array(document, "c", source, "the vector c"), "c", source);
  const Eigen::Index n = problem.c.size();
  const json* rows = find_array(document, "A", source, "the rows of A");
  const json* offsets = find_array(document, "b", source, "the vector b");
  problem.A = rows != nullptr ? matrix_from_rows(*rows, "A", source) : Eigen::MatrixXd(0, n);
  problem.b = offsets != nullptr ? vector_from_array(*offsets, "b", source) : Eigen::VectorXd(0);
  if (rows == nullptr && problem.b.size() > 0) {
    throw InvalidProblem(source + ": missing key \"A\" (the " + std::to_string(problem.b.size()) + "x" +
                         std::to_string(n) + " constraint matrix of A x >= b; k = size of b)");
  }
  if (offsets == nullptr && problem.A.rows() > 0) {
    throw InvalidProblem(source + ": missing key \"b\" (the right-hand side of A x >= b, " +
                         std::to_string(problem.A.rows()) + " entries for the rows of A)");
  }
  if (problem.A.size() == 0 && problem.b.size() == 0) problem.A.resize(0, n);  // "A": [] with no constraints
  validate_from(problem, source);
  return problem;
}

// An integer literal >= 0 at `name` ("W.triplets[2][0]", "dimension"); 1.0 is refused.
Eigen::Index require_count(const json& entry, const std::string& name, const std::string& source) {
  if (!entry.is_number_integer()) throw InvalidProblem(source + ": " + name + " must be an integer, " + got(entry));
  if (entry.is_number_unsigned()) {
    const auto value = entry.get<std::uint64_t>();
    if (value > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) {
      throw InvalidProblem(source + ": " + name + " = " + entry.dump() + " is out of range");
    }
    return static_cast<Eigen::Index>(value);
  }
  const auto value = entry.get<std::int64_t>();
  if (value < 0) throw InvalidProblem(source + ": " + name + " = " + std::to_string(value) + " is negative");
  if (value > std::numeric_limits<int>::max()) throw InvalidProblem(source + ": " + name + " is out of range");
  return static_cast<Eigen::Index>(value);
}

// "W" as {"rows": n, "cols": n, "triplets": [[i, j, v], ...]}: each (i, j) at most once. The sizes
// must equal n (the size of q) before anything is allocated, so a claim of 10⁹ rows cannot.
Eigen::SparseMatrix<double> sparse_from_triplets(const json& object, Eigen::Index n, const std::string& source) {
  require_known_keys(object, kTripletKeys, source + ": W", "a sparse W");
  Eigen::Index size[2] = {0, 0};
  const char* names[2] = {"rows", "cols"};
  for (int k = 0; k < 2; ++k) {
    const auto found = object.find(names[k]);
    if (found == object.end()) {
      throw InvalidProblem(source + ": W: missing key \"" + names[k] + "\" (W is {\"rows\": n, \"cols\": n, " +
                           "\"triplets\": [[i, j, value], ...]})");
    }
    size[k] = require_count(*found, std::string("W.") + names[k], source);
    if (size[k] != n) {
      throw InvalidProblem(source + ": W." + names[k] + " = " + std::to_string(size[k]) + " but q has " +
                           std::to_string(n) + " entries; W must be n×n (n = dimension x contacts)");
    }
  }
  const auto found = object.find("triplets");
  if (found == object.end()) throw InvalidProblem(source + ": W: missing key \"triplets\" ([[i, j, value], ...])");
  if (!found->is_array()) {
    throw InvalidProblem(source + ": W.triplets must be an array of [i, j, value], got " + found->type_name());
  }
  struct Indexed {
    Eigen::Index row, col;
    std::size_t at;
    double value;
  };
  std::vector<Indexed> triplets;
  triplets.reserve(found->size());
  for (std::size_t k = 0; k < found->size(); ++k) {
    const json& entry = (*found)[k];
    const std::string name = "W.triplets[" + std::to_string(k) + "]";
    if (!entry.is_array() || entry.size() != 3) {
      throw InvalidProblem(source + ": " + name + " must be an array [i, j, value] (0-based), " + got(entry));
    }
    const Eigen::Index i = require_count(entry[0], name + "[0]", source);
    const Eigen::Index j = require_count(entry[1], name + "[1]", source);
    for (const auto& [index, which] : {std::pair<Eigen::Index, const char*>{i, "[0]"}, {j, "[1]"}}) {
      if (index >= n) {
        throw InvalidProblem(source + ": " + name + which + " = " + std::to_string(index) + " is out of range (W is " +
                             std::to_string(n) + "x" + std::to_string(n) + ", indices 0-based)");
      }
    }
    triplets.push_back({i, j, k, require_number(entry[2], name + "[2]", source)});
  }
  std::sort(triplets.begin(), triplets.end(), [](const Indexed& a, const Indexed& b) {
    return std::tie(a.col, a.row, a.at) < std::tie(b.col, b.row, b.at);
  });
  for (std::size_t k = 1; k < triplets.size(); ++k) {
    if (triplets[k].row == triplets[k - 1].row && triplets[k].col == triplets[k - 1].col) {
      throw InvalidProblem(source + ": W.triplets[" + std::to_string(triplets[k].at) + "] gives W(" +
                           std::to_string(triplets[k].row) + ", " + std::to_string(triplets[k].col) +
                           ") again (already W.triplets[" + std::to_string(triplets[k - 1].at) + "])");
    }
  }
  std::vector<Eigen::Triplet<double, Eigen::Index>> entries;
  entries.reserve(triplets.size());
  for (const Indexed& t : triplets) {
    if (t.value != 0) entries.emplace_back(t.row, t.col, t.value);
  }
  Eigen::SparseMatrix<double> W(n, n);
  W.setFromTriplets(entries.begin(), entries.end());
  return W;
}

FrictionContact friction_contact_from_document(const json& document, const std::string& source) {
  check_document(document, kFrictionContactKeys, "friction-contact", "a friction-contact problem",
                 "{\"type\": \"friction-contact\", \"dimension\": 2 or 3, \"W\": ..., \"q\": [...], \"mu\": [...]}",
                 source);
  FrictionContact problem;
  const auto dimension = document.find("dimension");
  if (dimension == document.end()) {
    throw InvalidProblem(source + ": missing key \"dimension\" (2 or 3: the components of a contact)");
  }
  if (!dimension->is_number_integer() || (dimension->get<std::int64_t>() != 2 && dimension->get<std::int64_t>() != 3)) {
    throw InvalidProblem(source + ": \"dimension\" must be 2 or 3, " + got(*dimension));
  }
  problem.dimension = static_cast<int>(dimension->get<std::int64_t>());
  problem.q = vector_from_array(require_array(document, "q", source, "the free local velocity"), "q", source);
  problem.mu =
      vector_from_array(require_array(document, "mu", source, "one friction coefficient per contact"), "mu", source);
  const auto W = document.find("W");
  if (W == document.end()) {
    throw InvalidProblem(source + ": missing key \"W\" (rows, or {\"rows\": n, \"cols\": n, \"triplets\": [...]})");
  }
  if (W->is_array()) {
    problem.W = matrix_from_rows(*W, "W", source).sparseView(0.0, 0.0);
  } else if (W->is_object()) {
    problem.W = sparse_from_triplets(*W, problem.q.size(), source);
  } else {
    throw InvalidProblem(source + ": \"W\" must be an array of rows or {\"rows\": n, \"cols\": n, \"triplets\": " +
                         "[[i, j, value], ...]}, got " + W->type_name());
  }
  validate_from(problem, source);
  return problem;
}

template <class Vector>
ordered_json vector_to_json(const Vector& values) {
  ordered_json array = ordered_json::array();
  for (Eigen::Index i = 0; i < values.size(); ++i) array.push_back(values[i]);
  return array;
}

// Infinite bounds as null (JSON has no infinity), as the reader takes them.
ordered_json bounds_to_json(const Eigen::VectorXd& values) {
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

// One row of a matrix per line: a problem file stays readable, unlike nlohmann's one number per
// line, and is still plain JSON.
std::string rows_text(const Eigen::MatrixXd& matrix) {
  if (matrix.rows() == 0) return "[]";
  std::string text = "[";
  for (Eigen::Index i = 0; i < matrix.rows(); ++i) {
    text += i == 0 ? "\n    " : ",\n    ";
    text += compact(vector_to_json(matrix.row(i)));
  }
  return text + "\n  ]";
}

// {"type": ..., key: value, ...} with one key per line, values already JSON text.
std::string document_text(std::string_view type, std::initializer_list<std::pair<const char*, std::string>> fields) {
  std::string text = "{\n  \"type\": \"" + std::string(type) + "\"";
  for (const auto& [key, value] : fields) text += ",\n  \"" + std::string(key) + "\": " + value;
  return text + "\n}\n";
}

// The result object every writer shares: status, method, `sizes`, iterations, residual,
// relative_residual, then the
// problem's own vectors (`fill`), time_ms, message, history, and solutions / ray when set.
template <class Fill>
std::string result_text(const Result& result, std::initializer_list<std::pair<const char*, Eigen::Index>> sizes,
                        std::initializer_list<std::pair<const char*, double>> residuals, Fill fill, int indent) {
  ordered_json object;
  object["status"] = to_string(result.status);
  object["method"] = result.method;
  for (const auto& [key, size] : sizes) object[key] = size;
  object["iterations"] = result.iterations;
  object["residual"] = result.residual;
  object["relative_residual"] = result.relative_residual;
  for (const auto& [key, value] : residuals) object[key] = value;
  fill(object);
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

json problem_document(const std::string& text, const std::string& source) { return detail::parse_json(text, source); }

}  // namespace

namespace detail {

std::string read_whole_file(const std::filesystem::path& path, std::size_t limit) {
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored)) {
    throw InvalidProblem("cannot open '" + path.string() + "': it is a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const bool missing = !std::filesystem::exists(path, ignored);
    throw InvalidProblem("cannot open '" + path.string() + "'" + (missing ? ": no such file" : ""));
  }
  // A regular file is read as it is (its size bounds what it holds); anything else (a pipe,
  // /dev/zero, /dev/urandom) is read in chunks up to `limit` bytes, so that an endless stream
  // is refused instead of filling the memory.
  const bool regular = std::filesystem::is_regular_file(path, ignored);
  std::string contents;
  constexpr std::size_t kChunk = std::size_t{1} << 16;
  std::vector<char> chunk(kChunk);
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(kChunk));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (!regular && contents.size() + got > limit) {
      throw InvalidProblem("cannot read '" + path.string() + "': it is not a regular file and holds more than " +
                           std::to_string(limit) + " bytes (" + (limit == kMaxStreamBytes ? "1 GiB, " : "") +
                           "the most perp reads from a pipe or device)");
    }
    contents.append(chunk.data(), got);
  }
  if (in.bad()) throw InvalidProblem("error while reading '" + path.string() + "'");
  return contents;
}

namespace {

// Every number literal outside strings must be within the range of a double, as in the .dat
// readers (std::from_chars: 1e-400 and 1e400 are out of range, subnormals such as 1e-310 are
// not); nlohmann's parser would silently read 1e-400 as 0.
void require_numbers_in_range(const std::string& text, const std::string& source) {
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
      continue;
    }
    if (c != '-' && (c < '0' || c > '9')) continue;
    std::size_t end = i;
    while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '-' ||
                                 text[end] == '+' || text[end] == '.' || text[end] == 'e' || text[end] == 'E')) {
      ++end;
    }
    double value = 0;
    const auto [stop, error] = std::from_chars(text.data() + i, text.data() + end, value);
    (void)stop;
    if (error == std::errc::result_out_of_range) {
      throw InvalidProblem(source + ": malformed JSON: the number " + text.substr(i, std::min<std::size_t>(end - i, 40)) +
                           " at byte " + std::to_string(i) +
                           " is out of the range of a double (overflow or underflow)");
    }
    i = end - 1;
  }
}

}  // namespace

json parse_json(const std::string& text, const std::string& source) {
  require_numbers_in_range(text, source);
  // The callback sees the depth of every array and object as it opens; refusing there keeps
  // the parser's (iterative) stack and every later recursive walk of the value shallow. It also
  // sees every key: a key given twice in one object is refused (the parser would keep the last).
  std::vector<std::vector<std::string>> keys;  // the keys of each open object, innermost last
  const json::parser_callback_t limit_depth = [&source, &keys](int depth, json::parse_event_t event,
                                                               json& parsed) {
    if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) &&
        depth >= kMaxJsonDepth) {
      throw InvalidProblem(source + ": JSON nested deeper than " + std::to_string(kMaxJsonDepth) +
                           " levels of arrays and objects (the most perp reads)");
    }
    if (event == json::parse_event_t::object_start) keys.emplace_back();
    if (event == json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
    if (event == json::parse_event_t::key && !keys.empty()) {
      const std::string key = parsed.get<std::string>();
      std::vector<std::string>& seen = keys.back();
      if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
        throw InvalidProblem(source + ": the key \"" + key + "\" appears twice in one object");
      }
      seen.push_back(key);
    }
    return true;
  };
  try {
    return json::parse(text, limit_depth);
  } catch (const json::parse_error& error) {
    throw InvalidProblem(source + ": malformed JSON at byte " + std::to_string(error.byte) + ": " + error.what());
  } catch (const json::exception& error) {
    // e.g. a number literal too large for a double (out_of_range.406).
    throw InvalidProblem(source + ": malformed JSON: " + error.what());
  }
}

}  // namespace detail

Lcp parse_json_lcp(const std::string& text, const std::string& source) {
  return lcp_from_document(problem_document(text, source), source);
}

Lcp read_json_lcp(const std::filesystem::path& path) {
  return parse_json_lcp(detail::read_whole_file(path), path.string());
}

std::string lcp_to_json(const Lcp& problem) {
  // NaN would print as null and the file would not read back.
  problem.validate();
  return document_text("lcp", {{"M", rows_text(problem.M)}, {"q", compact(vector_to_json(problem.q))}});
}

BoxLcp parse_json_box_lcp(const std::string& text, const std::string& source) {
  return box_lcp_from_document(problem_document(text, source), source);
}

BoxLcp read_json_box_lcp(const std::filesystem::path& path) {
  return parse_json_box_lcp(detail::read_whole_file(path), path.string());
}

std::string box_lcp_to_json(const BoxLcp& problem) {
  problem.validate();
  ordered_json friction = ordered_json::array();
  for (const FrictionCoupling& c : problem.friction) {
    ordered_json entry;
    entry["index"] = c.index;
    entry["normal"] = c.normal;
    entry["mu"] = c.mu;
    friction.push_back(std::move(entry));
  }
  const std::string M = rows_text(problem.M);
  const std::string q = compact(vector_to_json(problem.q));
  const std::string lo = compact(bounds_to_json(problem.lower));
  const std::string hi = compact(bounds_to_json(problem.upper));
  if (problem.friction.empty()) return document_text("box-lcp", {{"M", M}, {"q", q}, {"lo", lo}, {"hi", hi}});
  return document_text("box-lcp", {{"M", M}, {"q", q}, {"lo", lo}, {"hi", hi}, {"friction", compact(friction)}});
}

Mlcp parse_json_mlcp(const std::string& text, const std::string& source) {
  return mlcp_from_document(problem_document(text, source), source);
}

Mlcp read_json_mlcp(const std::filesystem::path& path) {
  return parse_json_mlcp(detail::read_whole_file(path), path.string());
}

std::string mlcp_to_json(const Mlcp& problem) {
  problem.validate();
  return document_text("mlcp", {{"A", rows_text(problem.A)},
                                {"B", rows_text(problem.B)},
                                {"C", rows_text(problem.C)},
                                {"D", rows_text(problem.D)},
                                {"a", compact(vector_to_json(problem.a))},
                                {"b", compact(vector_to_json(problem.b))}});
}

Qp parse_json_qp(const std::string& text, const std::string& source) {
  return qp_from_document(problem_document(text, source), source);
}

Qp read_json_qp(const std::filesystem::path& path) {
  return parse_json_qp(detail::read_whole_file(path), path.string());
}

std::string qp_to_json(const Qp& problem) {
  problem.validate();
  return document_text("qp", {{"Q", rows_text(problem.Q)},
                              {"c", compact(vector_to_json(problem.c))},
                              {"A", rows_text(problem.A)},
                              {"b", compact(vector_to_json(problem.b))}});
}

FrictionContact parse_json_friction_contact(const std::string& text, const std::string& source) {
  return friction_contact_from_document(problem_document(text, source), source);
}

FrictionContact read_json_friction_contact(const std::filesystem::path& path) {
  return parse_json_friction_contact(detail::read_whole_file(path), path.string());
}

std::string friction_contact_to_json(const FrictionContact& problem) {
  problem.validate();
  constexpr Eigen::Index kLargestDense = 16;
  const Eigen::Index n = problem.size();
  std::string W;
  if (n <= kLargestDense) {
    W = rows_text(Eigen::MatrixXd(problem.W));
  } else {
    W = "{\"rows\": " + std::to_string(n) + ", \"cols\": " + std::to_string(n) + ", \"triplets\": [";
    bool first = true;
    for (Eigen::Index j = 0; j < problem.W.outerSize(); ++j) {
      for (Eigen::SparseMatrix<double>::InnerIterator it(problem.W, j); it; ++it) {
        ordered_json triplet = ordered_json::array({it.row(), j, it.value()});
        W += (first ? "\n    " : ",\n    ") + compact(triplet);
        first = false;
      }
    }
    W += first ? "]}" : "\n  ]}";
  }
  return document_text("friction-contact", {{"dimension", std::to_string(problem.dimension)},
                                            {"W", W},
                                            {"q", compact(vector_to_json(problem.q))},
                                            {"mu", compact(vector_to_json(problem.mu))}});
}

Problem parse_json_problem(const std::string& text, const std::string& source) {
  const json document = problem_document(text, source);
  if (!document.is_object()) {
    throw InvalidProblem(source + ": expected a JSON object with a \"type\" (" + listing(kTypes, " or ") + "), got " +
                         std::string(document.type_name()));
  }
  std::string type = "lcp";
  if (const auto found = document.find("type"); found != document.end()) {
    if (!found->is_string()) throw InvalidProblem(source + ": \"type\" must be a string, got " + found->dump());
    type = found->get<std::string>();
  }
  if (type == "lcp") return lcp_from_document(document, source);
  if (type == "box-lcp") return box_lcp_from_document(document, source);
  if (type == "mlcp") return mlcp_from_document(document, source);
  if (type == "qp") return qp_from_document(document, source);
  if (type == "friction-contact") return friction_contact_from_document(document, source);
  throw InvalidProblem(source + ": unknown \"type\" \"" + type + "\"" + did_you_mean(type, kTypes) +
                       "; the types are " + listing(kTypes) + " (absent means \"lcp\")");
}

std::string problem_to_json(const Problem& problem) {
  struct Writer {
    std::string operator()(const Lcp& p) const { return lcp_to_json(p); }
    std::string operator()(const BoxLcp& p) const { return box_lcp_to_json(p); }
    std::string operator()(const Mlcp& p) const { return mlcp_to_json(p); }
    std::string operator()(const Qp& p) const { return qp_to_json(p); }
    std::string operator()(const FrictionContact& p) const { return friction_contact_to_json(p); }
  };
  return std::visit(Writer{}, problem);
}

std::string result_to_json(const Result& result, int indent) {
  return result_text(
      result, {{"n", result.z.size()}}, {},
      [&](ordered_json& object) {
        object["z"] = vector_to_json(result.z);
        object["w"] = vector_to_json(result.w);
      },
      indent);
}

std::string box_lcp_result_to_json(const Result& result, int indent) {
  // The same vectors as an LCP's; the residual is the box natural residual set by the solve.
  return result_to_json(result, indent);
}

std::string mlcp_result_to_json(const Mlcp& problem, const Result& result, int indent) {
  const Eigen::Index n = problem.equalities();
  const Eigen::Index m = problem.complementarities();
  if (result.z.size() != n + m) {
    throw InvalidProblem("MLCP result: z expected " + std::to_string(n + m) + " entries (n + m = " + std::to_string(n) +
                         " + " + std::to_string(m) + "), got " + std::to_string(result.z.size()));
  }
  // Recomputed from z, so that the file says what z achieves whatever the solver kept.
  const MlcpResiduals residuals = mlcp_residuals(problem, result.z);
  const Eigen::VectorXd slack = problem.slack(result.z);
  return result_text(
      result, {{"n", n}, {"m", m}}, {{"equality_residual", residuals.equality}},
      [&](ordered_json& object) {
        object["u"] = vector_to_json(result.z.head(n));
        object["v"] = vector_to_json(result.z.tail(m));
        object["w"] = vector_to_json(slack.tail(m));
      },
      indent);
}

std::string qp_result_to_json(const QpResult& result, int indent) {
  return result_text(
      result.lcp, {{"n", result.x.size()}, {"k", result.mu.size()}}, {},
      [&](ordered_json& object) {
        object["x"] = vector_to_json(result.x);
        object["mu"] = vector_to_json(result.mu);
        object["nu"] = vector_to_json(result.nu);
        object["objective"] = result.objective;
      },
      indent);
}

std::string friction_contact_result_to_json(const FrictionContact& problem, const Result& result, int indent) {
  if (result.z.size() != problem.size()) {
    throw InvalidProblem("friction-contact result: r expected " + std::to_string(problem.size()) +
                         " entries (d x nc = " + std::to_string(problem.dimension) + " x " +
                         std::to_string(problem.contacts()) + "), got " + std::to_string(result.z.size()));
  }
  // Recomputed from r, so that the file says what r achieves whatever the solver kept.
  const Eigen::VectorXd u = problem.velocity(result.z);
  const FrictionContactResiduals residuals = friction_contact_residuals(problem, result.z, u);
  Result recomputed = result;
  recomputed.residual = residuals.relative_error;
  recomputed.relative_residual = residuals.relative_error;
  return result_text(
      recomputed, {{"dimension", problem.dimension}, {"contacts", problem.contacts()}},
      {{"absolute_error", residuals.absolute_error},
       {"signorini", residuals.signorini},
       {"coulomb", residuals.coulomb},
       {"complementarity", residuals.complementarity},
       {"dissipation", residuals.dissipation}},
      [&](ordered_json& object) {
        object["r"] = vector_to_json(result.z);
        object["u"] = vector_to_json(u);
      },
      indent);
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

Problem read_problem_file(const std::filesystem::path& path) {
  const std::string extension = lower_case(path.extension().string());
  if (extension == ".json") return parse_json_problem(detail::read_whole_file(path), path.string());
  if (extension == ".dat") {
    return read_siconos_problem(path);
  }
  return read_lcp_file(path);  // refuses the extension with the same message
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
