#include "perp/io/json.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../../src/io/detail.hpp"
#include "perp/core/error.hpp"
#include "perp/io/siconos.hpp"
#include "perp/solvers/qp.hpp"

namespace perp::io_json_test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::filesystem::path kCorpus = PERP_SICONOS_DATA_DIR;
const std::filesystem::path kExamples = PERP_EXAMPLES_DIR;

/// The message of the InvalidProblem that parsing `text` throws; a test failure if none.
std::string parse_error(const std::string& text) {
  try {
    (void)parse_json_lcp(text, "problem.json");
  } catch (const InvalidProblem& e) {
    return e.what();
  }
  ADD_FAILURE() << "no InvalidProblem for: " << text;
  return "";
}

std::string read_error(const std::filesystem::path& path) {
  try {
    (void)read_lcp_file(path);
  } catch (const InvalidProblem& e) {
    return e.what();
  }
  ADD_FAILURE() << "no InvalidProblem for " << path;
  return "";
}

bool same_bits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

void expect_identical(const Lcp& actual, const Lcp& expected) {
  ASSERT_EQ(actual.M.rows(), expected.M.rows());
  ASSERT_EQ(actual.M.cols(), expected.M.cols());
  ASSERT_EQ(actual.q.size(), expected.q.size());
  for (Eigen::Index i = 0; i < expected.M.rows(); ++i) {
    for (Eigen::Index j = 0; j < expected.M.cols(); ++j) {
      EXPECT_TRUE(same_bits(actual.M(i, j), expected.M(i, j)))
          << "M(" << i << ", " << j << "): " << actual.M(i, j) << " vs " << expected.M(i, j);
    }
  }
  for (Eigen::Index i = 0; i < expected.q.size(); ++i) {
    EXPECT_TRUE(same_bits(actual.q[i], expected.q[i])) << "q[" << i << "]: " << actual.q[i] << " vs " << expected.q[i];
  }
}

std::filesystem::path temp_file(const std::string& name) {
  return std::filesystem::path(::testing::TempDir()) / ("perp_json_test_" + name);
}

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

std::vector<double> as_vector(const Eigen::VectorXd& values) { return {values.data(), values.data() + values.size()}; }

// --- parsing problems -------------------------------------------------------------------

TEST(JsonLcp, ParsesRowsOfM) {
  // The JSON form lists rows, so it gives CPS_2 as the worked example writes it (FORMATS.md §2).
  const Lcp problem = parse_json_lcp(
      R"({"type": "lcp", "name": "CPS 2", "comment": "Example 4.4.7 CPS 2009",
          "M": [[0, -1, 2], [2, 0, -2], [-1, 1.0, 0]], "q": [-3, 6, -1e0]})");
  expect_identical(problem, read_siconos_lcp(kCorpus / "lcp_CPS_2.dat"));
}

TEST(JsonLcp, TypeIsOptional) {
  const Lcp problem = parse_json_lcp(R"({"M": [[2, 1], [1, 2]], "q": [-5, -6]})");
  expect_identical(problem, read_siconos_lcp(kCorpus / "lcp_deudeu.dat"));
}

TEST(JsonLcp, EmptyProblemIsValid) {
  const Lcp problem = parse_json_lcp(R"({"M": [], "q": []})");
  EXPECT_EQ(problem.size(), 0);
  EXPECT_EQ(problem.M.rows(), 0);
  EXPECT_EQ(problem.M.cols(), 0);
}

TEST(JsonLcp, RaggedRowsNameTheRow) {
  EXPECT_THAT(parse_error(R"({"M": [[1, 2], [3, 4], [5, 6, 7]], "q": [1, 2, 3]})"),
              HasSubstr("problem.json: M row 2 has 3 entries, expected 2"));
  EXPECT_THAT(parse_error(R"({"M": [[1, 2], 3], "q": [1, 2]})"), HasSubstr("M row 1 is not an array"));
}

TEST(JsonLcp, SizesMustMatch) {
  EXPECT_THAT(parse_error(R"({"M": [[1, 2, 3], [4, 5, 6]], "q": [1, 2]})"), HasSubstr("M must be square: got 2x3"));
  EXPECT_THAT(parse_error(R"({"M": [[1, 2], [3, 4]], "q": [1, 2, 3]})"), HasSubstr("q: expected size 2"));
  EXPECT_THAT(parse_error(R"({"M": [], "q": [1]})"), HasSubstr("q: expected size 0"));
}

TEST(JsonLcp, MissingOrMistypedFields) {
  EXPECT_THAT(parse_error(R"({"M": [[1]]})"), HasSubstr("problem.json: missing key \"q\""));
  EXPECT_THAT(parse_error(R"({"q": [1]})"), HasSubstr("missing key \"M\""));
  EXPECT_THAT(parse_error(R"({"M": 3, "q": [1]})"), HasSubstr("\"M\" must be an array"));
  EXPECT_THAT(parse_error(R"({"M": [[1]], "q": {"0": 1}})"), HasSubstr("\"q\" must be an array"));
  EXPECT_THAT(parse_error(R"({"M": [[1, 2], [3, 4]], "q": [1, 2], "name": 7})"),
              HasSubstr("\"name\" must be a string"));
}

TEST(JsonLcp, NonNumbersNameTheEntry) {
  EXPECT_THAT(parse_error(R"({"M": [[1, 2], ["x", 4]], "q": [1, 2]})"), HasSubstr("M[1][0] is not a number"));
  EXPECT_THAT(parse_error(R"({"M": [[1, 2], [3, true]], "q": [1, 2]})"), HasSubstr("M[1][1] is not a number"));
  EXPECT_THAT(parse_error(R"({"M": [[1, 2], [3, 4]], "q": [1, null]})"), HasSubstr("q[1] is not a number"));
}

TEST(JsonLcp, OnlyLcpTypeIsAccepted) {
  const std::string message = parse_error(R"({"type": "mlcp", "M": [[1]], "q": [1]})");
  EXPECT_THAT(message, HasSubstr("\"mlcp\""));
  EXPECT_THAT(message, HasSubstr("only \"lcp\" is supported here"));
  EXPECT_THAT(parse_error(R"({"type": 1, "M": [[1]], "q": [1]})"), HasSubstr("\"type\" must be a string"));
}

TEST(JsonLcp, UnknownKeysAreRejectedByName) {
  // The typo this check exists for: "Q" for "q".
  const std::string message = parse_error(R"({"M": [[1]], "Q": [1]})");
  EXPECT_THAT(message, HasSubstr("unknown key \"Q\""));
  EXPECT_THAT(message, HasSubstr("did you mean \"q\"?"));
  EXPECT_THAT(parse_error(R"({"M": [[1]], "q": [1], "solver": "lemke"})"), HasSubstr("unknown key \"solver\""));
}

TEST(JsonLcp, MalformedJsonGivesThePosition) {
  const std::string message = parse_error(R"({"M": [[1, 2], [3, 4]], "q": [1, 2})");
  EXPECT_THAT(message, HasSubstr("problem.json: malformed JSON at byte 35"));
  EXPECT_THAT(message, HasSubstr("parse error"));
  EXPECT_THAT(parse_error(""), HasSubstr("malformed JSON"));
  EXPECT_THAT(parse_error(R"({"M": [[NaN]], "q": [1]})"), HasSubstr("malformed JSON"));
  EXPECT_THAT(parse_error(R"({"M": [[1e400]], "q": [1]})"), HasSubstr("malformed JSON"));
  EXPECT_THAT(parse_error("[[1]]"), HasSubstr("expected a JSON object"));
}

// --- writing problems -------------------------------------------------------------------

TEST(JsonLcp, RoundTripIsBitwiseExact) {
  std::mt19937_64 bits(42);
  const Eigen::Index n = 6;
  Lcp original{Eigen::MatrixXd(n, n), Eigen::VectorXd(n)};
  // Any finite bit pattern, so that every exponent and denormals occur.
  auto random_finite = [&bits] {
    for (;;) {
      const double value = std::bit_cast<double>(bits());
      if (std::isfinite(value)) return value;
    }
  };
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < n; ++j) original.M(i, j) = random_finite();
    original.q[i] = random_finite();
  }
  original.M(0, 0) = -0.0;
  original.M(0, 1) = 0.1;
  original.M(1, 0) = std::numeric_limits<double>::denorm_min();
  original.q[0] = std::numeric_limits<double>::max();
  original.q[1] = 3;

  const std::string text = lcp_to_json(original);
  expect_identical(parse_json_lcp(text), original);
  const auto document = nlohmann::json::parse(text);
  EXPECT_EQ(document.at("type"), "lcp");
  EXPECT_EQ(document.at("M").size(), 6u);
  // Rows, not columns: row 0 holds M(0, 1) = 0.1.
  EXPECT_EQ(document.at("M").at(0).at(1).get<double>(), 0.1);
}

TEST(JsonLcp, EmptyProblemRoundTrips) {
  const Lcp empty{Eigen::MatrixXd(0, 0), Eigen::VectorXd(0)};
  EXPECT_EQ(parse_json_lcp(lcp_to_json(empty)).size(), 0);
}

TEST(JsonLcp, WritingAnInvalidProblemThrows) {
  const Lcp problem{Eigen::MatrixXd::Identity(2, 2), Eigen::Vector2d(1, std::nan(""))};
  EXPECT_THROW((void)lcp_to_json(problem), InvalidProblem);
}

// --- results ----------------------------------------------------------------------------

Result sample_result() {
  Result result;
  result.z = Eigen::Vector2d(4.0 / 3, 7.0 / 3);
  result.w = Eigen::Vector2d(0, 0);
  result.status = Status::Solved;
  result.iterations = 2;
  result.residual = 1e-16;
  result.history = {1.5, 0.25, 1e-16};
  result.message = "complementary basis found";
  result.method = Method::Lemke;
  result.time_ms = 0.125;
  return result;
}

std::set<std::string> keys_of(const nlohmann::json& object) {
  std::set<std::string> keys;
  for (const auto& [key, value] : object.items()) keys.insert(key);
  return keys;
}

TEST(ResultJson, HasExactlyTheDocumentedKeys) {
  const Result result = sample_result();
  const auto object = nlohmann::json::parse(result_to_json(result));
  EXPECT_EQ(keys_of(object), (std::set<std::string>{"status", "method", "n", "iterations", "residual", "relative_residual", "z", "w",
                                                    "time_ms", "message", "history"}));
  EXPECT_EQ(object.at("status"), "solved");
  EXPECT_EQ(object.at("method"), "lemke");
  EXPECT_EQ(object.at("n"), 2);
  EXPECT_EQ(object.at("iterations"), 2);
  EXPECT_EQ(object.at("residual").get<double>(), 1e-16);
  EXPECT_EQ(object.at("z").get<std::vector<double>>(), as_vector(result.z));
  EXPECT_EQ(object.at("w").get<std::vector<double>>(), as_vector(result.w));
  EXPECT_EQ(object.at("time_ms").get<double>(), 0.125);
  EXPECT_EQ(object.at("message"), "complementary basis found");
  EXPECT_EQ(object.at("history").get<std::vector<double>>(), result.history);
}

TEST(ResultJson, KeysComeInTheDocumentedOrder) {
  const auto object = nlohmann::ordered_json::parse(result_to_json(sample_result()));
  std::vector<std::string> keys;
  for (const auto& [key, value] : object.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"status", "method", "n", "iterations", "residual", "relative_residual", "z", "w", "time_ms",
                                            "message", "history"}));
}

TEST(ResultJson, SolutionsAndRayOnlyWhenSet) {
  Result result = sample_result();
  result.solutions = {Eigen::Vector2d(1, 0), Eigen::Vector2d(0, 1)};
  auto object = nlohmann::json::parse(result_to_json(result));
  ASSERT_TRUE(object.contains("solutions"));
  EXPECT_EQ(object.at("solutions").size(), 2u);
  EXPECT_EQ(object.at("solutions").at(1).get<std::vector<double>>(), (std::vector<double>{0, 1}));
  EXPECT_FALSE(object.contains("ray"));

  result.solutions.clear();
  result.status = Status::RayTermination;
  result.ray = Eigen::Vector2d(1, 2);
  object = nlohmann::json::parse(result_to_json(result));
  EXPECT_FALSE(object.contains("solutions"));
  EXPECT_EQ(object.at("status"), "ray-termination");
  EXPECT_EQ(object.at("ray").get<std::vector<double>>(), (std::vector<double>{1, 2}));
}

TEST(ResultJson, NegativeIndentPrintsOneLine) {
  const std::string compact_text = result_to_json(sample_result(), -1);
  EXPECT_THAT(compact_text, Not(HasSubstr("\n")));
  EXPECT_EQ(nlohmann::json::parse(compact_text), nlohmann::json::parse(result_to_json(sample_result(), 4)));
}

TEST(ResultJson, EmptyResultIsValidJson) {
  const auto object = nlohmann::json::parse(result_to_json(Result{}));
  EXPECT_EQ(object.at("n"), 0);
  EXPECT_TRUE(object.at("z").is_array());
  EXPECT_TRUE(object.at("history").is_array());
}

// --- reading files by extension ---------------------------------------------------------

TEST(ReadLcpFile, ReadsSiconosAndJsonByExtension) {
  const Lcp from_dat = read_lcp_file(kCorpus / "lcp_deudeu.dat");
  const auto path = temp_file("reads_by_extension.json");
  write_text(path, lcp_to_json(from_dat));
  expect_identical(read_lcp_file(path), from_dat);
  std::filesystem::remove(path);
}

TEST(ReadLcpFile, JsonErrorsNameThePath) {
  const auto path = temp_file("errors_name_path.json");
  write_text(path, R"({"M": [[1]], "Q": [1]})");
  EXPECT_THAT(read_error(path), HasSubstr(path.string() + ": unknown key \"Q\""));
  std::filesystem::remove(path);
}

TEST(ReadLcpFile, OtherExtensionsAreRejectedByName) {
  const std::string message = read_error("problem.txt");
  EXPECT_THAT(message, HasSubstr("'.txt'"));
  EXPECT_THAT(message, HasSubstr("'.dat'"));
  EXPECT_THAT(message, HasSubstr("'.json'"));
  EXPECT_THAT(read_error("problem"), HasSubstr("no extension"));
}

TEST(ReadLcpFile, MissingFilesAreReported) {
  for (const char* name : {"no_such_problem.dat", "no_such_problem.json"}) {
    const auto missing = kCorpus / name;
    EXPECT_THAT(read_error(missing), HasSubstr("cannot open '" + missing.string() + "'"));
  }
}

// --- box LCP, MLCP and QP files ----------------------------------------------------------

constexpr double kInf = std::numeric_limits<double>::infinity();

/// The message of the InvalidProblem that `parse` throws on `text`; a test failure if none.
template <class Parse>
std::string error_of(Parse parse, const std::string& text) {
  try {
    (void)parse(text, "p.json");
  } catch (const InvalidProblem& e) {
    return e.what();
  }
  ADD_FAILURE() << "no InvalidProblem for: " << text;
  return "";
}
std::string box_error(const std::string& text) { return error_of(parse_json_box_lcp, text); }
std::string mlcp_error(const std::string& text) { return error_of(parse_json_mlcp, text); }
std::string qp_error(const std::string& text) { return error_of(parse_json_qp, text); }
std::string problem_error(const std::string& text) { return error_of(parse_json_problem, text); }

void expect_same_bits(const Eigen::MatrixXd& actual, const Eigen::MatrixXd& expected, const char* name) {
  ASSERT_EQ(actual.rows(), expected.rows()) << name;
  ASSERT_EQ(actual.cols(), expected.cols()) << name;
  for (Eigen::Index i = 0; i < expected.rows(); ++i) {
    for (Eigen::Index j = 0; j < expected.cols(); ++j) {
      EXPECT_TRUE(same_bits(actual(i, j), expected(i, j)))
          << name << "(" << i << ", " << j << "): " << actual(i, j) << " vs " << expected(i, j);
    }
  }
}

// Random doubles of every magnitude (any finite bit pattern), reproducibly.
struct RandomFinite {
  std::mt19937_64 bits{7};
  double operator()() {
    for (;;) {
      const double value = std::bit_cast<double>(bits());
      if (std::isfinite(value)) return value;
    }
  }
  Eigen::MatrixXd matrix(Eigen::Index rows, Eigen::Index cols) {
    Eigen::MatrixXd m(rows, cols);
    for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = (*this)();
    return m;
  }
};

const char* const kBoxText = R"({"type": "box-lcp", "name": "contact", "comment": "free text",
  "M": [[2, 0, 0, 1], [0, 1, 0, 0], [0, 0, 1, 0], [1, 0, 0, 2]],
  "q": [-3, -2, 0.25, 0],
  "lo": [0, null, -1.5, null],
  "hi": [null, null, 1.5, 4],
  "friction": [{"index": 1, "normal": 0, "mu": 0.5}]})";

TEST(JsonBoxLcp, ParsesValuesNullBoundsAndFriction) {
  const BoxLcp p = parse_json_box_lcp(kBoxText);
  EXPECT_EQ(p.M, (Eigen::MatrixXd(Eigen::Matrix4d{{2, 0, 0, 1}, {0, 1, 0, 0}, {0, 0, 1, 0}, {1, 0, 0, 2}})));
  EXPECT_EQ(as_vector(p.q), (std::vector<double>{-3, -2, 0.25, 0}));
  EXPECT_EQ(as_vector(p.lower), (std::vector<double>{0, -kInf, -1.5, -kInf}));
  EXPECT_EQ(as_vector(p.upper), (std::vector<double>{kInf, kInf, 1.5, 4}));
  ASSERT_EQ(p.friction.size(), 1u);
  EXPECT_EQ(p.friction[0].index, 1);
  EXPECT_EQ(p.friction[0].normal, 0);
  EXPECT_EQ(p.friction[0].mu, 0.5);
  // "type" may be left out when the caller says what it reads, and "friction" is optional.
  const BoxLcp plain = parse_json_box_lcp(R"({"M": [[1]], "q": [-1], "lo": [null], "hi": [2]})");
  EXPECT_TRUE(plain.friction.empty());
  EXPECT_EQ(plain.lower[0], -kInf);
  EXPECT_EQ(plain.upper[0], 2);
  EXPECT_EQ(parse_json_box_lcp(R"({"M": [], "q": [], "lo": [], "hi": [], "friction": []})").size(), 0);
}

TEST(JsonBoxLcp, RoundTripIsBitwiseExact) {
  RandomFinite random;
  BoxLcp original;
  original.M = random.matrix(5, 5);
  original.q = random.matrix(5, 1);
  original.lower = Eigen::VectorXd(5);
  original.upper = Eigen::VectorXd(5);
  for (Eigen::Index i = 0; i < 5; ++i) {
    const double r = std::abs(random());
    original.lower[i] = -r;
    original.upper[i] = r;
  }
  original.lower[0] = -kInf;
  original.upper[1] = kInf;
  original.lower[2] = 0.1;
  original.upper[2] = 0.1;  // fixed
  original.lower[3] = -kInf;
  original.upper[3] = kInf;  // free
  original.friction = {{4, 2, 0.3}};
  const std::string text = box_lcp_to_json(original);
  const BoxLcp back = parse_json_box_lcp(text);
  expect_same_bits(back.M, original.M, "M");
  expect_same_bits(back.q, original.q, "q");
  expect_same_bits(back.lower, original.lower, "lo");
  expect_same_bits(back.upper, original.upper, "hi");
  ASSERT_EQ(back.friction.size(), 1u);
  EXPECT_EQ(back.friction[0].index, 4);
  EXPECT_EQ(back.friction[0].normal, 2);
  EXPECT_TRUE(same_bits(back.friction[0].mu, 0.3));
  const auto document = nlohmann::json::parse(text);
  EXPECT_EQ(document.at("type"), "box-lcp");
  EXPECT_TRUE(document.at("lo").at(0).is_null());
  EXPECT_TRUE(document.at("hi").at(1).is_null());
  // No friction: no key.
  original.friction.clear();
  EXPECT_FALSE(nlohmann::json::parse(box_lcp_to_json(original)).contains("friction"));
  EXPECT_EQ(std::get<BoxLcp>(parse_json_problem(box_lcp_to_json(original))).size(), 5);
}

TEST(JsonBoxLcp, BadInputNamesKeyIndexAndSizes) {
  const std::string M = R"("M": [[1, 0], [0, 1]], "q": [-1, -1])";
  EXPECT_THAT(box_error("{" + M + R"(, "hi": [1, 1]})"), HasSubstr("p.json: missing key \"lo\""));
  EXPECT_THAT(box_error("{" + M + R"(, "lo": [0, 0]})"), HasSubstr("missing key \"hi\""));
  EXPECT_THAT(box_error("{" + M + R"(, "lo": [0], "hi": [1, 1]})"),
              HasSubstr("p.json: lo: expected 2 entries (n = size of q), got 1"));
  EXPECT_THAT(box_error("{" + M + R"(, "lo": [0, 0], "hi": [1, 1, 1]})"), HasSubstr("hi: expected 2 entries"));
  EXPECT_THAT(box_error("{" + M + R"(, "lo": [0, "-inf"], "hi": [1, 1]})"),
              HasSubstr("lo[1] is not a number or null (got string \"-inf\"); null means -inf"));
  EXPECT_THAT(box_error("{" + M + R"(, "lo": [0, 0], "hi": [1, "Infinity"]})"), HasSubstr("hi[1] is not a number"));
  EXPECT_THAT(box_error("{" + M + R"(, "lo": [0, 2], "hi": [1, 1]})"), HasSubstr("p.json: lo[1] = 2 > hi[1] = 1"));
  EXPECT_THAT(box_error("{" + M + R"(, "lo": 0, "hi": [1, 1]})"), HasSubstr("\"lo\" must be an array"));
  EXPECT_THAT(box_error(R"({"M": [[1, 0], [0]], "q": [-1, -1], "lo": [0, 0], "hi": [1, 1]})"),
              HasSubstr("M row 1 has 1 entries, expected 2 like row 0"));
  EXPECT_THAT(box_error(R"({"M": [[1, 0], [0, 1]], "q": [-1, "NaN"], "lo": [0, 0], "hi": [1, 1]})"),
              HasSubstr("q[1] is not a number (got string \"NaN\")"));
  EXPECT_THAT(box_error(R"({"M": [[1, 0], [0, 1]], "q": [-1], "lo": [0], "hi": [1]})"),
              HasSubstr("q: expected size 2"));
  // Unknown keys, with hints for a misspelling, a synonym and a letter case.
  EXPECT_THAT(box_error("{" + M + R"(, "lower": [0, 0], "hi": [1, 1]})"),
              HasSubstr("unknown key \"lower\" (did you mean \"lo\"?); the keys of a box LCP are \"type\", \"M\""));
  EXPECT_THAT(box_error("{" + M + R"(, "lo": [0, 0], "hi": [1, 1], "frcition": []})"),
              HasSubstr("unknown key \"frcition\" (did you mean \"friction\"?)"));
  EXPECT_THAT(box_error("{" + M + R"(, "lo": [0, 0], "HI": [1, 1]})"), HasSubstr("(did you mean \"hi\"?)"));
  EXPECT_THAT(box_error("{" + M + R"(, "lo": [0, 0], "hi": [1, 1], "type": "lcp"})"),
              HasSubstr("\"type\" is \"lcp\"; only \"box-lcp\" is supported here"));
}

TEST(JsonBoxLcp, BadFrictionEntriesAreNamed) {
  const auto with = [](const std::string& friction) {
    return box_error(R"({"M": [[1, 0], [0, 1]], "q": [-1, -1], "lo": [0, null], "hi": [null, null], "friction": )" +
                     friction + "}");
  };
  EXPECT_THAT(with(R"({"index": 1})"), HasSubstr("\"friction\" must be an array"));
  EXPECT_THAT(with(R"([[1, 0, 0.5]])"),
              HasSubstr("p.json: friction[0] must be an object {\"index\": i, \"normal\": j, \"mu\": μ}, got array"));
  EXPECT_THAT(with(R"([{"index": 1, "normal": 0}])"), HasSubstr("p.json: friction[0]: missing key \"mu\""));
  EXPECT_THAT(with(R"([{"normal": 0, "mu": 1}])"), HasSubstr("friction[0]: missing key \"index\""));
  EXPECT_THAT(with(R"([{"index": 1, "mu": 1}])"), HasSubstr("friction[0]: missing key \"normal\""));
  EXPECT_THAT(with(R"([{"index": 1, "normal": 0, "mu": 1, "Mu": 2}])"),
              HasSubstr("friction[0]: unknown key \"Mu\" (did you mean \"mu\"?); the keys of a friction entry are "
                        "\"index\", \"normal\" and \"mu\""));
  EXPECT_THAT(with(R"([{"index": 1.5, "normal": 0, "mu": 1}])"),
              HasSubstr("friction[0].index must be an integer (0-based), got number 1.5"));
  EXPECT_THAT(with(R"([{"index": 1, "normal": "0", "mu": 1}])"), HasSubstr("friction[0].normal must be an integer"));
  EXPECT_THAT(with(R"([{"index": -1, "normal": 0, "mu": 1}])"), HasSubstr("friction[0].index = -1 is negative"));
  EXPECT_THAT(with(R"([{"index": 1, "normal": 0, "mu": "0.5"}])"), HasSubstr("friction[0].mu is not a number"));
  // What BoxLcp::validate refuses, with the file's name in front.
  EXPECT_THAT(with(R"([{"index": 2, "normal": 0, "mu": 1}])"),
              HasSubstr("p.json: friction[0].index = 2 is out of range [0, 2)"));
  EXPECT_THAT(with(R"([{"index": 1, "normal": 0, "mu": -1}])"), HasSubstr("friction[0].mu = -1"));
  EXPECT_THAT(with(R"([{"index": 1, "normal": 1, "mu": 1}])"), HasSubstr("friction[0]: index and normal are both 1"));
}

const char* const kMlcpText = R"({"type": "mlcp",
  "A": [[2]], "B": [[1, 0], [0, 1]], "C": [[1, -1]], "D": [[-1], [1]], "a": [-4], "b": [-1, 1]})";

TEST(JsonMlcp, ParsesBlocks) {
  const Mlcp p = parse_json_mlcp(kMlcpText);
  EXPECT_EQ(p.equalities(), 1);
  EXPECT_EQ(p.complementarities(), 2);
  EXPECT_EQ(p.A, Eigen::MatrixXd::Constant(1, 1, 2));
  EXPECT_EQ(p.B, Eigen::MatrixXd::Identity(2, 2));
  EXPECT_EQ(p.C, (Eigen::MatrixXd(Eigen::RowVector2d(1, -1))));
  EXPECT_EQ(p.D, (Eigen::MatrixXd(Eigen::Vector2d(-1, 1))));
  EXPECT_EQ(as_vector(p.a), (std::vector<double>{-4}));
  EXPECT_EQ(as_vector(p.b), (std::vector<double>{-1, 1}));
}

TEST(JsonMlcp, EmptyBlocksMayBeLeftOut) {
  // m = 0: a square linear system.
  Mlcp p = parse_json_mlcp(R"({"A": [[2]], "a": [-4]})");
  EXPECT_EQ(p.equalities(), 1);
  EXPECT_EQ(p.complementarities(), 0);
  EXPECT_EQ(p.C.rows(), 1);
  EXPECT_EQ(p.C.cols(), 0);
  EXPECT_EQ(p.D.rows(), 0);
  EXPECT_EQ(p.D.cols(), 1);
  // n = 0: an LCP; "C": [] and "D": [[], []] are both accepted for empty blocks.
  p = parse_json_mlcp(R"({"B": [[1, 0], [0, 1]], "b": [-1, 1], "C": [], "D": [[], []]})");
  EXPECT_EQ(p.equalities(), 0);
  EXPECT_EQ(p.complementarities(), 2);
  EXPECT_EQ(p.C.rows(), 0);
  EXPECT_EQ(p.C.cols(), 2);
  EXPECT_EQ(p.D.rows(), 2);
  EXPECT_EQ(p.D.cols(), 0);
  EXPECT_EQ(parse_json_mlcp(R"({"type": "mlcp"})").size(), 0);
}

TEST(JsonMlcp, RoundTripIsBitwiseExact) {
  RandomFinite random;
  for (const auto& [n, m] : {std::pair<Eigen::Index, Eigen::Index>{2, 3}, {0, 2}, {2, 0}, {0, 0}}) {
    SCOPED_TRACE("n = " + std::to_string(n) + ", m = " + std::to_string(m));
    const Mlcp original{random.matrix(n, n), random.matrix(m, m), random.matrix(n, m),
                        random.matrix(m, n), random.matrix(n, 1), random.matrix(m, 1)};
    const Mlcp back = parse_json_mlcp(mlcp_to_json(original));
    expect_same_bits(back.A, original.A, "A");
    expect_same_bits(back.B, original.B, "B");
    expect_same_bits(back.C, original.C, "C");
    expect_same_bits(back.D, original.D, "D");
    expect_same_bits(back.a, original.a, "a");
    expect_same_bits(back.b, original.b, "b");
  }
}

TEST(JsonMlcp, BadInputNamesTheBlockAndShape) {
  EXPECT_THAT(mlcp_error(R"({"A": [[2]], "B": [[1, 0], [0, 1]], "D": [[-1], [1]], "a": [-4], "b": [-1, 1]})"),
              HasSubstr("p.json: missing key \"C\" (the n×m block, 1x2 for n = 1, m = 2)"));
  EXPECT_THAT(mlcp_error(R"({"B": [[1, 0], [0, 1]], "C": [[1, -1]], "D": [[-1], [1]], "a": [-4], "b": [-1, 1]})"),
              HasSubstr("missing key \"A\" (the n×n block, 1x1"));
  EXPECT_THAT(
      mlcp_error(R"({"A": [[2]], "B": [[1, 0], [0, 1]], "C": [[1]], "D": [[-1], [1]], "a": [-4], "b": [-1, 1]})"),
      HasSubstr("p.json: C: expected 1x2"));
  EXPECT_THAT(mlcp_error(R"({"A": [[2]], "B": [[1, 0], [0, 1]], "C": [[1, -1]], "D": [[-1], [1]], "b": [-1, 1]})"),
              HasSubstr("p.json: missing key \"a\" (n = 1 from the rows of A)"));
  EXPECT_THAT(mlcp_error(R"({"A": [[2]], "a": [-4], "C": [[1, -1]]})"),
              HasSubstr("missing key \"b\" (m = 2 from the columns of C)"));
  EXPECT_THAT(
      mlcp_error(R"({"A": [[2]], "B": [[1, 0], [0]], "C": [[1, -1]], "D": [[-1], [1]], "a": [-4], "b": [-1, 1]})"),
      HasSubstr("B row 1 has 1 entries, expected 2 like row 0"));
  EXPECT_THAT(
      mlcp_error(R"({"A": [[2]], "B": [[1, 0], [0, 1]], "C": [[1, -1]], "D": [[-1], ["x"]], "a": [-4], "b": [-1, 1]})"),
      HasSubstr("D[1][0] is not a number (got string \"x\")"));
  EXPECT_THAT(mlcp_error(R"({"A": [[2]], "a": ["NaN"]})"), HasSubstr("a[0] is not a number (got string \"NaN\")"));
  EXPECT_THAT(mlcp_error(R"({"A": [[2]], "a": [-4], "c": [1]})"),
              HasSubstr("unknown key \"c\" (did you mean \"C\"?); the keys of an MLCP are"));
  EXPECT_THAT(mlcp_error(R"({"A": [[2]], "a": -4})"), HasSubstr("\"a\" must be an array"));
  EXPECT_THAT(mlcp_error(R"({"M": [[2]], "q": [1]})"), HasSubstr("unknown key \"M\""));
}

const char* const kQpText = R"({"type": "qp", "Q": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "c": [-2, -1, 1],
  "A": [[1, 1, 0], [1, -1, 0]], "b": [4, -3]})";

TEST(JsonQp, ParsesAndConstraintsAreOptional) {
  const Qp p = parse_json_qp(kQpText);
  EXPECT_EQ(p.Q, Eigen::MatrixXd::Identity(3, 3));
  EXPECT_EQ(as_vector(p.c), (std::vector<double>{-2, -1, 1}));
  EXPECT_EQ(p.A, (Eigen::MatrixXd(Eigen::Matrix<double, 2, 3>{{1, 1, 0}, {1, -1, 0}})));
  EXPECT_EQ(as_vector(p.b), (std::vector<double>{4, -3}));
  for (const char* text : {R"({"Q": [[2]], "c": [-1]})", R"({"Q": [[2]], "c": [-1], "A": [], "b": []})"}) {
    const Qp unconstrained = parse_json_qp(text);
    EXPECT_EQ(unconstrained.constraints(), 0);
    EXPECT_EQ(unconstrained.A.rows(), 0);
    EXPECT_EQ(unconstrained.A.cols(), 1);
  }
}

TEST(JsonQp, RoundTripIsBitwiseExact) {
  RandomFinite random;
  for (const Eigen::Index k : {2, 0}) {
    Eigen::MatrixXd Q = random.matrix(3, 3);
    Q = Q.triangularView<Eigen::Upper>();
    Q.triangularView<Eigen::StrictlyLower>() = Q.transpose();  // symmetric, bit for bit
    const Qp original{Q, random.matrix(3, 1), random.matrix(k, 3), random.matrix(k, 1)};
    const Qp back = parse_json_qp(qp_to_json(original));
    expect_same_bits(back.Q, original.Q, "Q");
    expect_same_bits(back.c, original.c, "c");
    expect_same_bits(back.A, original.A, "A");
    expect_same_bits(back.b, original.b, "b");
  }
}

TEST(JsonQp, BadInputNamesKeyAndSizes) {
  EXPECT_THAT(qp_error(R"({"c": [1]})"), HasSubstr("p.json: missing key \"Q\""));
  EXPECT_THAT(qp_error(R"({"Q": [[1]]})"), HasSubstr("missing key \"c\""));
  EXPECT_THAT(qp_error(R"({"Q": [[1]], "c": [1], "A": [[1]]})"),
              HasSubstr("missing key \"b\" (the right-hand side of A x >= b, 1 entries for the rows of A)"));
  EXPECT_THAT(qp_error(R"({"Q": [[1]], "c": [1], "b": [1]})"),
              HasSubstr("missing key \"A\" (the 1x1 constraint matrix"));
  EXPECT_THAT(qp_error(R"({"Q": [[1, 0], [0, 1]], "c": [1, 1], "A": [[1, 1, 1]], "b": [1]})"),
              HasSubstr("p.json: A: expected 1x2"));
  EXPECT_THAT(qp_error(R"({"Q": [[1, 0], [0, 1]], "c": [1, 1], "A": [[1, 1]], "b": [1, 2]})"),
              HasSubstr("A: expected 2x2"));
  EXPECT_THAT(qp_error(R"({"Q": [[1, 0], [0, 1]], "c": [1]})"), HasSubstr("Q: expected 1x1 (n = size of c), got 2x2"));
  EXPECT_THAT(qp_error(R"({"Q": [[1, 2], [0, 1]], "c": [1, 1]})"),
              HasSubstr("Q must be symmetric: Q(0, 1) = 2 but Q(1, 0) = 0"));
  EXPECT_THAT(qp_error(R"({"Q": [[1, 2], [0]], "c": [1, 1]})"), HasSubstr("Q row 1 has 1 entries, expected 2"));
  EXPECT_THAT(qp_error(R"({"Q": [[1]], "c": ["NaN"]})"), HasSubstr("c[0] is not a number (got string \"NaN\")"));
  EXPECT_THAT(qp_error(R"({"Q": [[1]], "c": [1], "q": [1]})"),
              HasSubstr("unknown key \"q\" (did you mean \"Q\"?); the keys of a QP are \"type\", \"Q\", \"c\", \"A\""));
  EXPECT_THAT(qp_error(R"({"Q": [[1]], "c": [1], "x0": [1]})"), HasSubstr("unknown key \"x0\"; the keys"));
}

TEST(JsonProblem, DispatchesOnType) {
  EXPECT_TRUE(std::holds_alternative<Lcp>(parse_json_problem(R"({"M": [[1]], "q": [1]})")));
  EXPECT_TRUE(std::holds_alternative<Lcp>(parse_json_problem(R"({"type": "lcp", "M": [[1]], "q": [1]})")));
  const Problem box = parse_json_problem(kBoxText);
  ASSERT_TRUE(std::holds_alternative<BoxLcp>(box));
  EXPECT_EQ(problem_type(box), "box-lcp");
  EXPECT_EQ(std::get<BoxLcp>(box).friction.size(), 1u);
  EXPECT_EQ(problem_type(parse_json_problem(kMlcpText)), "mlcp");
  EXPECT_EQ(std::get<Mlcp>(parse_json_problem(kMlcpText)).size(), 3);
  EXPECT_EQ(problem_type(parse_json_problem(kQpText)), "qp");
  // Every problem writes and reads back as itself.
  for (const char* text : {kBoxText, kMlcpText, kQpText}) {
    const Problem problem = parse_json_problem(text);
    EXPECT_EQ(parse_json_problem(problem_to_json(problem)).index(), problem.index());
  }
}

TEST(JsonProblem, BadTypeListsTheTypes) {
  EXPECT_THAT(problem_error(R"({"type": "box", "M": [[1]], "q": [1]})"),
              HasSubstr("p.json: unknown \"type\" \"box\"; the types are \"lcp\", \"box-lcp\", \"mlcp\", \"qp\" and "
                        "\"friction-contact\" "
                        "(absent means \"lcp\")"));
  EXPECT_THAT(problem_error(R"({"type": "boxlcp"})"),
              HasSubstr("unknown \"type\" \"boxlcp\" (did you mean \"box-lcp\"?)"));
  EXPECT_THAT(problem_error(R"({"type": "QP"})"), HasSubstr("(did you mean \"qp\"?)"));
  EXPECT_THAT(problem_error(R"({"type": 4})"), HasSubstr("\"type\" must be a string, got 4"));
  EXPECT_THAT(problem_error("[1]"), HasSubstr("expected a JSON object with a \"type\""));
  EXPECT_THAT(problem_error("{"), HasSubstr("malformed JSON"));
  // Each reader names the type it was asked for.
  EXPECT_THAT(qp_error(kMlcpText), HasSubstr("\"type\" is \"mlcp\"; only \"qp\" is supported here"));
  EXPECT_THAT(mlcp_error(kQpText), HasSubstr("only \"mlcp\" is supported here"));
  // The keys of the type in force are the ones checked: a QP key in an LCP.
  EXPECT_THAT(problem_error(R"({"M": [[1]], "q": [1], "c": [1]})"), HasSubstr("unknown key \"c\""));
}

TEST(ReadProblemFile, ExamplesAndSiconosFiles) {
  const Problem box = read_problem_file(kExamples / "box_lcp_friction.json");
  ASSERT_TRUE(std::holds_alternative<BoxLcp>(box));
  const Problem mlcp = read_problem_file(kExamples / "mlcp_small.json");
  ASSERT_TRUE(std::holds_alternative<Mlcp>(mlcp));
  const Problem qp = read_problem_file(kExamples / "qp_small.json");
  ASSERT_TRUE(std::holds_alternative<Qp>(qp));
  const Problem dat = read_problem_file(kCorpus / "lcp_deudeu.dat");
  ASSERT_TRUE(std::holds_alternative<Lcp>(dat));
  EXPECT_EQ(std::get<Lcp>(dat).size(), 2);
  // Every `.dat` of the corpus is told apart by its content: the LCP files as Lcp, the MLCP files
  // (whose headers start with two 0/1 flags) as Mlcp, with the sizes of their inventory.
  for (const auto& entry : std::filesystem::directory_iterator(kCorpus)) {
    EXPECT_TRUE(std::holds_alternative<Lcp>(read_problem_file(entry.path()))) << entry.path();
  }
  const std::filesystem::path mlcp_dir = PERP_SICONOS_MLCP_DIR;
  int mlcp_files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(mlcp_dir)) {
    if (entry.path().filename() == "Rectangular_mlcp.dat") continue;  // refused by both readers
    EXPECT_TRUE(std::holds_alternative<Mlcp>(read_problem_file(entry.path()))) << entry.path();
    ++mlcp_files;
  }
  EXPECT_EQ(mlcp_files, 15);
  const Problem deudeu = read_problem_file(mlcp_dir / "deudeu_mlcp.dat");  // header "1 1 1 1" fits both
  EXPECT_EQ(std::get<Mlcp>(deudeu).equalities(), 1);
  EXPECT_EQ(std::get<Mlcp>(deudeu).complementarities(), 1);
  try {
    (void)read_problem_file(mlcp_dir / "Rectangular_mlcp.dat");
    ADD_FAILURE() << "no InvalidProblem";
  } catch (const InvalidProblem& e) {
    EXPECT_THAT(e.what(), HasSubstr("not a Siconos LCP, MLCP or friction-contact file; read as an MLCP: "));
    EXPECT_THAT(e.what(), HasSubstr("M has 3 rows but n + m = 2"));
    EXPECT_THAT(e.what(), HasSubstr("; read as an LCP: "));
  }
  try {
    (void)read_problem_file("problem.txt");
    ADD_FAILURE() << "no InvalidProblem";
  } catch (const InvalidProblem& e) {
    EXPECT_THAT(e.what(), HasSubstr("'.txt'"));
  }
  const auto path = temp_file("bad_problem.json");
  write_text(path, R"({"type": "qp", "Q": [[1]], "c": [1], "mu": 2})");
  try {
    (void)read_problem_file(path);
    ADD_FAILURE() << "no InvalidProblem";
  } catch (const InvalidProblem& e) {
    EXPECT_THAT(e.what(), HasSubstr(path.string() + ": unknown key \"mu\""));
  }
  std::filesystem::remove(path);
}

// The solutions docs/file-formats.md gives for the example files, checked by the problems' own
// natural residuals (and, for the QP, by solving it).
TEST(ReadProblemFile, ExampleSolutionsAreThoseDocumented) {
  const BoxLcp box = read_json_box_lcp(kExamples / "box_lcp_friction.json");
  const Eigen::Vector4d z(2, 1, -0.25, -1);
  EXPECT_EQ(natural_residual(box, z), 0);
  EXPECT_EQ(as_vector(box.slack(z)), (std::vector<double>{0, -1, 0, 0}));

  const Mlcp mlcp = read_json_mlcp(kExamples / "mlcp_small.json");
  const Eigen::Vector3d uv(1, 2, 0);
  EXPECT_EQ(natural_residual(mlcp, uv), 0);
  EXPECT_EQ(as_vector(mlcp.slack(uv)), (std::vector<double>{0, 0, 2}));

  const Qp qp = read_json_qp(kExamples / "qp_small.json");
  const QpResult solved = solve(qp);
  ASSERT_TRUE(solved.solved()) << solved.lcp.message;
  EXPECT_NEAR(solved.x[0], 2.5, 1e-12);
  EXPECT_NEAR(solved.x[1], 1.5, 1e-12);
  EXPECT_NEAR(solved.x[2], 0, 1e-12);
  EXPECT_NEAR(solved.mu[0], 0.5, 1e-12);
  EXPECT_NEAR(solved.mu[1], 0, 1e-12);
  EXPECT_NEAR(solved.nu[2], 1, 1e-12);
  EXPECT_NEAR(solved.objective, -2.25, 1e-12);
}

TEST(ResultJson, BoxLcpResultHasTheLcpKeys) {
  const Result result = sample_result();
  EXPECT_EQ(nlohmann::json::parse(box_lcp_result_to_json(result)), nlohmann::json::parse(result_to_json(result)));
}

TEST(ResultJson, MlcpResultSplitsZAndRecomputesW) {
  const Mlcp problem = parse_json_mlcp(kMlcpText);
  Result result = sample_result();
  result.z = Eigen::Vector3d(1, 2, 0);
  result.w = problem.slack(result.z);
  const auto object = nlohmann::ordered_json::parse(mlcp_result_to_json(problem, result));
  std::vector<std::string> keys;
  for (const auto& [key, value] : object.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"status", "method", "n", "m", "iterations", "residual", "relative_residual", "equality_residual",
                                            "u", "v", "w", "time_ms", "message", "history"}));
  EXPECT_EQ(object.at("n"), 1);
  EXPECT_EQ(object.at("m"), 2);
  EXPECT_EQ(object.at("u").get<std::vector<double>>(), (std::vector<double>{1}));
  EXPECT_EQ(object.at("v").get<std::vector<double>>(), (std::vector<double>{2, 0}));
  EXPECT_EQ(object.at("w").get<std::vector<double>>(), (std::vector<double>{0, 2}));
  EXPECT_EQ(object.at("equality_residual").get<double>(), 0);
  // Off the solution: 2·1.5 + 2 − 0 − 4 = 1 in the equation; w recomputed from z.
  result.z = Eigen::Vector3d(1.5, 2, 0);
  const auto off = nlohmann::json::parse(mlcp_result_to_json(problem, result, -1));
  EXPECT_EQ(off.at("equality_residual").get<double>(), 1);
  EXPECT_EQ(off.at("w").get<std::vector<double>>(), (std::vector<double>{-0.5, 2.5}));
  result.z = Eigen::Vector2d(1, 2);
  try {
    (void)mlcp_result_to_json(problem, result);
    ADD_FAILURE() << "no InvalidProblem";
  } catch (const InvalidProblem& e) {
    EXPECT_THAT(e.what(), HasSubstr("z expected 3 entries (n + m = 1 + 2), got 2"));
  }
}

TEST(ResultJson, QpResultHasXMuNuAndObjective) {
  const QpResult result = solve(parse_json_qp(kQpText), Method::Lemke);
  ASSERT_TRUE(result.solved());
  const auto object = nlohmann::ordered_json::parse(qp_result_to_json(result));
  std::vector<std::string> keys;
  for (const auto& [key, value] : object.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"status", "method", "n", "k", "iterations", "residual", "relative_residual", "x", "mu", "nu",
                                            "objective", "time_ms", "message", "history"}));
  EXPECT_EQ(object.at("status"), "solved");
  EXPECT_EQ(object.at("method"), "lemke");
  EXPECT_EQ(object.at("n"), 3);
  EXPECT_EQ(object.at("k"), 2);
  EXPECT_EQ(object.at("x").get<std::vector<double>>(), as_vector(result.x));
  EXPECT_EQ(object.at("mu").get<std::vector<double>>(), as_vector(result.mu));
  EXPECT_EQ(object.at("nu").get<std::vector<double>>(), as_vector(result.nu));
  EXPECT_EQ(object.at("objective").get<double>(), result.objective);
  EXPECT_NEAR(object.at("objective").get<double>(), -2.25, 1e-12);
}


// Issue 15: the JSON reader refuses what the .dat readers refuse, and reads what they read.
TEST(JsonLcp, DuplicateKeysAreRefusedNamingTheKey) {
  // Before, the last "q" won silently.
  EXPECT_THAT(parse_error(R"({"M": [[1]], "q": [-1], "q": [-2]})"), HasSubstr("the key \"q\" appears twice"));
  EXPECT_THAT(parse_error(R"({"type": "lcp", "M": [[1]], "q": [-1], "type": "lcp"})"),
              HasSubstr("the key \"type\" appears twice"));
  // The same key in two different objects is fine (a scene's bodies each have a "name").
  EXPECT_NO_THROW((void)detail::parse_json(R"({"a": {"x": 1}, "b": {"x": 2}, "c": [{"x": 1}, {"x": 2}]})", "t.json"));
  EXPECT_THROW((void)detail::parse_json(R"({"c": [{"x": 1, "x": 2}]})", "t.json"), InvalidProblem);
}

TEST(JsonLcp, NumbersOutOfTheRangeOfADoubleAreRefusedAsInDat) {
  // 1e-400 was read as 0 in JSON and refused in .dat; subnormal 1e-310 is read by both.
  EXPECT_THAT(parse_error(R"({"M": [[1]], "q": [-1e-400]})"),
              HasSubstr("the number -1e-400 at byte 19 is out of the range of a double"));
  EXPECT_THAT(parse_error(R"({"M": [[1e400]], "q": [1]})"), HasSubstr("out of the range of a double"));
  const Lcp tiny = parse_json_lcp(R"({"M": [[1]], "q": [-1e-310]})", "t.json");
  EXPECT_EQ(tiny.q[0], -1e-310);
  // Digits inside strings are not numbers.
  EXPECT_NO_THROW((void)parse_json_lcp(R"({"name": "1e-400", "M": [[1]], "q": [1]})", "t.json"));
  std::istringstream dat("1\n0\n1\n1\n1 1\n1\n-1e-400\n");
  EXPECT_THROW((void)parse_siconos_lcp(dat, "t.dat"), InvalidProblem);
}

TEST(ReadMatrixFile, AnMlcpDatSaysItIsAnMlcpFile) {
  // classify reads M through read_matrix_file; an MLCP file used to fail with an LCP parse error.
  try {
    (void)read_matrix_file(kCorpus.parent_path() / "mlcp" / "deudeu_mlcp.dat");
    ADD_FAILURE() << "no InvalidProblem";
  } catch (const InvalidProblem& e) {
    EXPECT_THAT(e.what(), HasSubstr("is a Siconos mlcp file, not an LCP"));
  }
  EXPECT_EQ(read_matrix_file(kCorpus / "lcp_deudeu.dat").rows(), 2);
}

}  // namespace
}  // namespace perp::io_json_test
