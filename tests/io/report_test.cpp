#include "perp/io/report.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "perp/core/error.hpp"
#include "perp/io/json.hpp"

namespace perp::io_report_test {
namespace {

using testing::HasSubstr;

std::string json_for(const Eigen::MatrixXd& M, const ClassifyOptions& options = {}) {
  const MatrixReport report = classify(M, options);
  return report_to_json(report, recommend(report, report.n));
}

TEST(ReportJson, HasEveryClassWithHoldsMethodWitness) {
  const nlohmann::json j = nlohmann::json::parse(json_for(Eigen::Matrix2d{{1, -3}, {0, 1}}));
  EXPECT_EQ(j["n"], 2);
  ASSERT_TRUE(j["classes"].is_object());
  EXPECT_EQ(j["classes"].size(), kMatrixClassCount);
  for (const MatrixClass c : all_matrix_classes()) {
    const auto& entry = j["classes"][to_string(c)];
    ASSERT_TRUE(entry.contains("holds")) << to_string(c);
    EXPECT_TRUE(entry["holds"].is_boolean() || entry["holds"].is_null());
    EXPECT_TRUE(entry["method"].is_string());
    EXPECT_TRUE(entry.contains("witness"));
    EXPECT_TRUE(entry["reason"].is_string());
  }
  EXPECT_EQ(j["classes"]["p-matrix"]["holds"], true);
  EXPECT_TRUE(j["classes"]["p-matrix"]["witness"].is_null());
  const auto& psd = j["classes"]["positive-semidefinite"];
  EXPECT_EQ(psd["holds"], false);
  EXPECT_EQ(psd["method"], "exact");
  ASSERT_EQ(psd["witness"]["x"].size(), 2U);
  EXPECT_LT(psd["witness"]["value"].get<double>(), 0);
  const auto& z = j["classes"]["z-matrix"];
  EXPECT_EQ(z["holds"], true);
  const auto& symmetric = j["classes"]["symmetric"]["witness"];
  EXPECT_EQ(symmetric["row"], 0);
  EXPECT_EQ(symmetric["col"], 1);
  EXPECT_EQ(symmetric["value"], -3.0);
  EXPECT_EQ(symmetric["transposed"], 0.0);
  EXPECT_TRUE(j["implications"].is_array());
  EXPECT_FALSE(j["implications"].empty());
  EXPECT_EQ(j["recommendation"]["method"], "lemke");
  EXPECT_TRUE(j["recommendation"]["reason"].is_string());
  EXPECT_EQ(j["recommendation"]["order"][1], "murty");
}

TEST(ReportJson, MinorAndUndecidedAnswers) {
  const nlohmann::json j = nlohmann::json::parse(json_for(Eigen::Matrix2d{{1, 2}, {2, 1}}));
  const auto& p = j["classes"]["p-matrix"];
  EXPECT_EQ(p["holds"], false);
  EXPECT_EQ(p["witness"]["indices"], nlohmann::json::array({0, 1}));
  EXPECT_NEAR(p["witness"]["minor"].get<double>(), -3, 1e-12);
  ClassifyOptions limited;
  limited.max_copositive_size = 1;
  Eigen::MatrixXd horn_like{{1, -1, 1}, {-1, 1, -1}, {1, -1, 1}};  // PSD: decided anyway
  EXPECT_EQ(nlohmann::json::parse(json_for(horn_like, limited))["classes"]["copositive"]["holds"], true);
  // The Horn matrix is copositive, which only the exact test (n <= limit) shows.
  Eigen::MatrixXd horn{{1, -1, 1, 1, -1}, {-1, 1, -1, 1, 1}, {1, -1, 1, -1, 1}, {1, 1, -1, 1, -1}, {-1, 1, 1, -1, 1}};
  const nlohmann::json undecided = nlohmann::json::parse(json_for(horn, limited));
  EXPECT_TRUE(undecided["classes"]["copositive"]["holds"].is_null());
  EXPECT_EQ(undecided["classes"]["copositive"]["method"], "undecided");
}

TEST(ReportText, TableNamesEveryClassAndTheRecommendation) {
  const MatrixReport report = classify(Eigen::Matrix2d{{0, 1}, {1, 0}});
  const std::string text = report_to_text(report, recommend(report, 2));
  for (const MatrixClass c : all_matrix_classes()) EXPECT_THAT(text, HasSubstr(to_string(c)));
  EXPECT_THAT(text, HasSubstr("recommendation: lemke"));
  EXPECT_THAT(text, HasSubstr("(M + M^T) x = [0, 2]"));
  EXPECT_THAT(text, HasSubstr("minor {0, 1} = -1"));
}

TEST(MatrixFile, JsonWithOnlyMAndWithQ) {
  const Eigen::MatrixXd M = parse_json_matrix(R"({"M": [[1, 2], [3, 4]], "name": "x"})");
  EXPECT_EQ(M, (Eigen::Matrix2d{{1, 2}, {3, 4}}));
  EXPECT_EQ(parse_json_matrix(R"({"M": [[1]], "q": [-1]})"), Eigen::MatrixXd::Constant(1, 1, 1.0));
  // Errors read as for LCP files.
  EXPECT_THROW((void)parse_json_matrix(R"({"M": [[1, 2]]})"), InvalidProblem);
  EXPECT_THROW((void)parse_json_matrix(R"({"M": [[1]], "Q": [1]})"), InvalidProblem);
  EXPECT_THROW((void)parse_json_matrix(R"({"M": [[1]], "q": [1, 2]})"), InvalidProblem);
  EXPECT_THROW((void)parse_json_matrix(R"({"M": [[1)"), InvalidProblem);
  EXPECT_THROW((void)parse_json_matrix(R"([1])"), InvalidProblem);
  EXPECT_THROW((void)parse_json_matrix(R"({"q": [1]})"), InvalidProblem);
  try {
    (void)parse_json_matrix(R"({"M": [[1, 2], [3, "a"]]})", "m.json");
    ADD_FAILURE() << "no exception";
  } catch (const InvalidProblem& e) {
    EXPECT_THAT(e.what(), HasSubstr("m.json: M[1][1] is not a number"));
  }
}

TEST(MatrixFile, ReadsDatAndJsonByExtension) {
  const std::filesystem::path corpus = PERP_SICONOS_DATA_DIR;
  EXPECT_EQ(read_matrix_file(corpus / "lcp_deudeu.dat").rows(), 2);
  const auto path = std::filesystem::temp_directory_path() / "perp_report_test_only_m.JSON";
  std::ofstream(path) << R"({"M": [[2, 0], [0, 2]]})";
  EXPECT_EQ(read_matrix_file(path), (Eigen::Matrix2d{{2, 0}, {0, 2}}));
  std::filesystem::remove(path);
  EXPECT_THROW((void)read_matrix_file(corpus / "nope.txt"), InvalidProblem);
}

}  // namespace
}  // namespace perp::io_report_test
