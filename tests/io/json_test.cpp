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
#include <string>
#include <vector>

#include "perp/core/error.hpp"
#include "perp/io/siconos.hpp"

namespace perp {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::filesystem::path kCorpus = PERP_SICONOS_DATA_DIR;

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
  result.method = "lemke";
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
  EXPECT_EQ(keys_of(object), (std::set<std::string>{"status", "method", "n", "iterations", "residual", "z", "w",
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
  EXPECT_EQ(keys, (std::vector<std::string>{"status", "method", "n", "iterations", "residual", "z", "w", "time_ms",
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

}  // namespace
}  // namespace perp
