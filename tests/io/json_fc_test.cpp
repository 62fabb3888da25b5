#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>

#include "perp/core/error.hpp"
#include "perp/core/friction_contact.hpp"
#include "perp/io/json.hpp"
#include "perp/io/siconos.hpp"

namespace perp::io_json_fc_test {
namespace {

using ::testing::HasSubstr;

const std::filesystem::path kExamples = PERP_EXAMPLES_DIR;
const std::filesystem::path kFcCorpus = PERP_SICONOS_FC_DIR;

std::string fc_error(const std::string& text) {
  try {
    (void)parse_json_friction_contact(text, "fc.json");
  } catch (const InvalidProblem& e) {
    return e.what();
  }
  ADD_FAILURE() << "no InvalidProblem for: " << text;
  return "";
}

// W = [[4, -1], [2, 3]] (not symmetric: rows are rows), one contact.
constexpr const char* kDense = R"({"type": "friction-contact", "dimension": 2, "W": [[4, -1], [2, 3]],
                                   "q": [-1, 0.5], "mu": [0.3]})";

TEST(JsonFrictionContact, DenseRowsAndTripletsGiveTheSameProblem) {
  const FrictionContact dense = parse_json_friction_contact(kDense);
  Eigen::Matrix2d W;
  W << 4, -1, 2, 3;
  EXPECT_EQ(dense.dimension, 2);
  EXPECT_EQ(Eigen::MatrixXd(dense.W), W);
  EXPECT_EQ(dense.q, Eigen::Vector2d(-1, 0.5));
  EXPECT_EQ(dense.mu[0], 0.3);
  const FrictionContact sparse = parse_json_friction_contact(
      R"({"dimension": 2, "W": {"rows": 2, "cols": 2, "triplets": [[1, 1, 3], [0, 1, -1], [0, 0, 4], [1, 0, 2]]},
          "q": [-1, 0.5], "mu": [0.3], "name": "n", "comment": "c"})");
  EXPECT_EQ(Eigen::MatrixXd(sparse.W), W);
  EXPECT_EQ(sparse.W.nonZeros(), 4);
  // Absent triplets are zeros; a zero value is not stored.
  const FrictionContact diagonal = parse_json_friction_contact(
      R"({"dimension": 3, "W": {"rows": 3, "cols": 3, "triplets": [[0, 0, 1], [2, 2, 0]]}, "q": [-1, 0, 0], "mu": [0]})");
  EXPECT_EQ(diagonal.W.nonZeros(), 1);
  EXPECT_EQ(diagonal.W.coeff(0, 0), 1);
}

TEST(JsonFrictionContact, ParseJsonProblemDispatchesOnTheType) {
  const Problem problem = parse_json_problem(kDense);
  ASSERT_TRUE(std::holds_alternative<FrictionContact>(problem));
  EXPECT_EQ(problem_type(problem), "friction-contact");
  const Problem example = read_problem_file(kExamples / "friction_contact_2d.json");
  ASSERT_TRUE(std::holds_alternative<FrictionContact>(example));
  const FrictionContact& fc = std::get<FrictionContact>(example);
  EXPECT_EQ(Eigen::MatrixXd(fc.W), Eigen::Matrix2d::Identity());
  // The example's hand-derived solution (its "comment"): every residual is 0 there.
  const FrictionContactResiduals at_solution = friction_contact_residuals(fc, Eigen::Vector2d(1, -0.3));
  EXPECT_LT(at_solution.relative_error, 1e-15);  // 0.5 - 0.3 rounds
  EXPECT_EQ(at_solution.signorini, 0);
  EXPECT_EQ(at_solution.coulomb, 0);
  EXPECT_LT(at_solution.dissipation, 1e-16);
  // Sticking and taking off are not solutions.
  EXPECT_GT(friction_contact_residuals(fc, Eigen::Vector2d(1, -0.5)).coulomb, 0.1);
  EXPECT_EQ(friction_contact_residuals(fc, Eigen::Vector2d(0, 0)).signorini, 1);
}

TEST(JsonFrictionContact, ErrorsNameTheKeyPath) {
  EXPECT_THAT(fc_error(R"({"W": [[1]], "q": [1], "mu": [0]})"), HasSubstr("fc.json: missing key \"dimension\""));
  EXPECT_THAT(fc_error(R"({"dimension": 4, "W": [], "q": [], "mu": []})"),
              HasSubstr("fc.json: \"dimension\" must be 2 or 3, got number 4"));
  EXPECT_THAT(fc_error(R"({"dimension": 2.0, "W": [], "q": [], "mu": []})"), HasSubstr("\"dimension\" must be 2 or 3"));
  EXPECT_THAT(fc_error(R"({"dimension": 2, "q": [1, 1], "mu": [0]})"), HasSubstr("missing key \"W\""));
  EXPECT_THAT(fc_error(R"({"dimension": 2, "W": 3, "q": [1, 1], "mu": [0]})"),
              HasSubstr("\"W\" must be an array of rows or {\"rows\": n"));
  EXPECT_THAT(fc_error(R"({"dimension": 2, "W": [[1, 0], [0]], "q": [1, 1], "mu": [0]})"),
              HasSubstr("W row 1 has 1 entries, expected 2"));
  EXPECT_THAT(fc_error(R"({"dimension": 2, "W": [[1, 0], [0, 1]], "q": [1, 1], "Mu": [0]})"),
              HasSubstr("unknown key \"Mu\" (did you mean \"mu\"?)"));
  EXPECT_THAT(fc_error(R"({"dimension": 2, "W": [[1, 0], [0, 1]], "q": [1, 1], "mu": [-0.5]})"),
              HasSubstr("fc.json: mu[0] is -0.5; a friction coefficient must be >= 0"));
  EXPECT_THAT(fc_error(R"({"dimension": 2, "W": [[1, 0], [0, 1]], "q": [1, "x"], "mu": [0]})"),
              HasSubstr("q[1] is not a number"));
  EXPECT_THAT(fc_error(R"({"dimension": 3, "W": [[1, 0], [0, 1]], "q": [1, 1], "mu": [0]})"),
              HasSubstr("q: expected size 3"));
  const std::string head = R"({"dimension": 2, "q": [1, 1], "mu": [0], "W": )";
  EXPECT_THAT(fc_error(head + R"({"rows": 1000000000, "cols": 2, "triplets": []}})"),
              HasSubstr("W.rows = 1000000000 but q has 2 entries"));
  EXPECT_THAT(fc_error(head + R"({"rows": 2, "triplets": []}})"), HasSubstr("W: missing key \"cols\""));
  EXPECT_THAT(fc_error(head + R"({"rows": 2, "cols": 2}})"), HasSubstr("W: missing key \"triplets\""));
  EXPECT_THAT(fc_error(head + R"({"rows": 2, "cols": 2, "triplet": []}})"),
              HasSubstr("W: unknown key \"triplet\" (did you mean \"triplets\"?)"));
  EXPECT_THAT(fc_error(head + R"({"rows": 2, "cols": 2, "triplets": [[0, 0, 1], [0, 2, 1]]}})"),
              HasSubstr("W.triplets[1][1] = 2 is out of range (W is 2x2"));
  EXPECT_THAT(fc_error(head + R"({"rows": 2, "cols": 2, "triplets": [[0, 0.5, 1]]}})"),
              HasSubstr("W.triplets[0][1] must be an integer, got number 0.5"));
  EXPECT_THAT(fc_error(head + R"({"rows": 2, "cols": 2, "triplets": [[0, -1, 1]]}})"),
              HasSubstr("W.triplets[0][1] = -1 is negative"));
  EXPECT_THAT(fc_error(head + R"({"rows": 2, "cols": 2, "triplets": [[0, 1]]}})"),
              HasSubstr("W.triplets[0] must be an array [i, j, value]"));
  EXPECT_THAT(fc_error(head + R"({"rows": 2, "cols": 2, "triplets": [[0, 1, null]]}})"),
              HasSubstr("W.triplets[0][2] is not a number"));
  EXPECT_THAT(fc_error(head + R"({"rows": 2, "cols": 2, "triplets": [[1, 0, 1], [0, 0, 2], [1, 0, 3]]}})"),
              HasSubstr("W.triplets[2] gives W(1, 0) again (already W.triplets[0])"));
  EXPECT_THAT(fc_error(R"({"type": "lcp", "dimension": 2})"), HasSubstr("only \"friction-contact\" is supported here"));
}

TEST(JsonFrictionContact, WriteReadRoundTripIsExact) {
  const FrictionContact small = parse_json_friction_contact(kDense);
  const std::string text = friction_contact_to_json(small);
  EXPECT_THAT(text, HasSubstr("\"W\": [\n    [4.0,-1.0],\n    [2.0,3.0]\n  ]"));
  const FrictionContact back = parse_json_friction_contact(text);
  EXPECT_EQ(Eigen::MatrixXd(back.W), Eigen::MatrixXd(small.W));
  EXPECT_EQ(back.q, small.q);
  EXPECT_EQ(back.mu, small.mu);
  // n > 16 goes out as triplets; a corpus file with values of every magnitude comes back to the bit.
  const FrictionContact large = read_siconos_friction_contact(kFcCorpus / "fc3d/NESpheres_10_1.dat");
  const std::string large_text = problem_to_json(large);
  EXPECT_THAT(large_text, HasSubstr("\"W\": {\"rows\": 27, \"cols\": 27, \"triplets\": [\n    [0,0,"));
  const FrictionContact large_back = parse_json_friction_contact(large_text);
  EXPECT_EQ((large_back.W - large.W).norm(), 0);
  EXPECT_EQ(large_back.W.nonZeros(), large.W.nonZeros());
  EXPECT_EQ(large_back.q, large.q);
  EXPECT_EQ(large_back.mu, large.mu);
  FrictionContact invalid = small;
  invalid.mu[0] = -1;
  EXPECT_THROW((void)friction_contact_to_json(invalid), InvalidProblem);
}

TEST(JsonFrictionContact, ResultRecomputesUAndEveryCriterionFromR) {
  const FrictionContact problem = read_json_friction_contact(kExamples / "friction_contact_2d.json");
  Result result;
  result.status = Status::Solved;
  result.method = Method::Nsgs;
  result.iterations = 3;
  result.z = Eigen::Vector2d(1, -0.3);
  result.w = Eigen::Vector2d(7, 7);  // not what the writer prints: u is recomputed
  result.residual = 0.5;             // likewise
  result.history = {0.1, 1e-3, 0};
  result.message = "by hand";
  const auto object = nlohmann::json::parse(friction_contact_result_to_json(problem, result));
  for (const char* key :
       {"status", "method", "dimension", "contacts", "iterations", "residual", "absolute_error", "signorini", "coulomb",
        "complementarity", "dissipation", "r", "u", "time_ms", "message", "history"}) {
    EXPECT_TRUE(object.contains(key)) << key;
  }
  EXPECT_EQ(object["status"], "solved");
  EXPECT_EQ(object["method"], "nsgs");
  EXPECT_EQ(object["dimension"], 2);
  EXPECT_EQ(object["contacts"], 1);
  EXPECT_EQ(object["r"], nlohmann::json::parse("[1.0, -0.3]"));
  EXPECT_NEAR(object["u"][0].get<double>(), 0, 1e-16);
  EXPECT_NEAR(object["u"][1].get<double>(), 0.2, 1e-16);
  EXPECT_LT(object["residual"].get<double>(), 1e-15);
  EXPECT_EQ(object["history"].size(), 3);

  // A point off the solution: the criteria are the ones of that point, by hand. r = (0.5, 0.4):
  // u = (-0.5, 0.9); Signorini 0.5, Coulomb 0.4 - 0.15 = 0.25, complementarity 0.25,
  // dissipation |0.36 + 0.15 · 0.9| = 0.495.
  result.z = Eigen::Vector2d(0.5, 0.4);
  const auto off = nlohmann::json::parse(friction_contact_result_to_json(problem, result, -1));
  EXPECT_NEAR(off["signorini"].get<double>(), 0.5, 1e-15);
  EXPECT_NEAR(off["coulomb"].get<double>(), 0.25, 1e-15);
  EXPECT_NEAR(off["complementarity"].get<double>(), 0.25, 1e-15);
  EXPECT_NEAR(off["dissipation"].get<double>(), 0.495, 1e-15);
  const FrictionContactResiduals expected = friction_contact_residuals(problem, result.z);
  EXPECT_EQ(off["residual"].get<double>(), expected.relative_error);
  EXPECT_EQ(off["absolute_error"].get<double>(), expected.absolute_error);

  result.z = Eigen::Vector3d(1, 2, 3);
  EXPECT_THROW((void)friction_contact_result_to_json(problem, result), InvalidProblem);
}

}  // namespace
}  // namespace perp::io_json_fc_test
