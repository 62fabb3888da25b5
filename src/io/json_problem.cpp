// The JSON problem files: one reader and one writer per problem type, and the reader that
// dispatches on "type" (docs/file-formats.md).
#include "perp/io/json.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "detail.hpp"
#include "json_kit.hpp"
#include "perp/core/error.hpp"
#include "perp/core/status.hpp"

namespace perp {
namespace {

using namespace detail;


constexpr std::array<std::string_view, 5> kLcpKeys{"type", "M", "q", "name", "comment"};
constexpr std::array<std::string_view, 8> kBoxLcpKeys{"type", "M", "q", "lo", "hi", "friction", "name", "comment"};
constexpr std::array<std::string_view, 9> kMlcpKeys{"type", "A", "B", "C", "D", "a", "b", "name", "comment"};
constexpr std::array<std::string_view, 7> kQpKeys{"type", "Q", "c", "A", "b", "name", "comment"};
constexpr std::array<std::string_view, 3> kFrictionKeys{"index", "normal", "mu"};
constexpr std::array<std::string_view, 7> kFrictionContactKeys{"type", "dimension", "W", "q", "mu", "name", "comment"};
constexpr std::array<std::string_view, 3> kTripletKeys{"rows", "cols", "triplets"};
constexpr std::array<std::string_view, 5> kTypes{"lcp", "box-lcp", "mlcp", "qp", "friction-contact"};

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


json problem_document(const std::string& text, const std::string& source) { return detail::parse_json(text, source); }

}  // namespace

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

}  // namespace perp
