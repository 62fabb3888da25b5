#include "perp/io/json.hpp"
#include "perp/io/siconos.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "perp/core/error.hpp"

namespace perp::io_siconos_test {
namespace {

using ::testing::HasSubstr;

const std::filesystem::path kCorpus = PERP_SICONOS_DATA_DIR;
const std::filesystem::path kMlcpCorpus = PERP_SICONOS_MLCP_DIR;

Lcp parse_text(const std::string& text) {
  std::istringstream in(text);
  return parse_siconos_lcp(in, "lcp.dat");
}

/// The message of the InvalidProblem that parsing `text` throws; a test failure if none.
std::string parse_error(const std::string& text) {
  try {
    (void)parse_text(text);
  } catch (const InvalidProblem& e) {
    return e.what();
  }
  ADD_FAILURE() << "no InvalidProblem for:\n" << text;
  return "";
}

bool same_bits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

/// Exact equality, down to the sign of zero.
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

/// Any finite double, drawn from its bit pattern so that every exponent (and denormals) occur.
double random_finite_double(std::mt19937_64& bits) {
  for (;;) {
    const double value = std::bit_cast<double>(bits());
    if (std::isfinite(value)) return value;
  }
}

Lcp random_problem(Eigen::Index n, std::uint64_t seed) {
  std::mt19937_64 bits(seed);
  Lcp problem{Eigen::MatrixXd(n, n), Eigen::VectorXd(n)};
  for (Eigen::Index j = 0; j < n; ++j) {
    for (Eigen::Index i = 0; i < n; ++i) problem.M(i, j) = random_finite_double(bits);
  }
  for (Eigen::Index i = 0; i < n; ++i) problem.q[i] = random_finite_double(bits);
  // Values a decimal printer is most likely to get wrong.
  problem.M(0, 0) = -0.0;
  problem.M(1, 0) = 0.1;
  problem.M(0, 1) = std::numeric_limits<double>::denorm_min();
  problem.q[0] = std::numeric_limits<double>::max();
  problem.q[1] = -std::numeric_limits<double>::min();
  return problem;
}

std::filesystem::path temp_file(const std::string& name) {
  return std::filesystem::path(::testing::TempDir()) / ("perp_siconos_test_" + name);
}

// --- the corpus -------------------------------------------------------------------------

TEST(SiconosLcp, DeudeuIsMurtysTwoByTwo) {
  const Lcp problem = read_siconos_lcp(kCorpus / "lcp_deudeu.dat");
  Eigen::MatrixXd expected_M(2, 2);
  expected_M << 2, 1, 1, 2;
  EXPECT_EQ(problem.M, expected_M);
  EXPECT_EQ(problem.q, Eigen::Vector2d(-5, -6));
  // Independent check: z = (4/3, 7/3) is its solution, with w = 0 (README).
  EXPECT_LT(problem.slack(Eigen::Vector2d(4.0 / 3, 7.0 / 3)).cwiseAbs().maxCoeff(), 1e-14);
}

TEST(SiconosLcp, CpsTwoIsReadColumnMajor) {
  // A line of the file is a column of M (FORMATS.md worked example 1), and this M is not
  // symmetric, so a row-major reading would give its transpose.
  const Lcp problem = read_siconos_lcp(kCorpus / "lcp_CPS_2.dat");
  Eigen::MatrixXd expected_M(3, 3);
  expected_M << 0, -1, 2,  //
      2, 0, -2,            //
      -1, 1, 0;
  EXPECT_EQ(problem.M, expected_M);
  EXPECT_EQ(problem.q, Eigen::Vector3d(-3, 6, -1));
  // z = (0, 1, 3) solves it only under this reading: w = (2, 0, 0).
  EXPECT_EQ(problem.slack(Eigen::Vector3d(0, 1, 3)), Eigen::Vector3d(2, 0, 0));
}

TEST(SiconosLcp, DeudeuBlockEqualsDense) {
  expect_identical(read_siconos_lcp(kCorpus / "lcp_deudeu_block.dat"), read_siconos_lcp(kCorpus / "lcp_deudeu.dat"));
}

TEST(SiconosLcp, OrtizBlockEqualsDense) {
  // Four 2x2 blocks, each column-major: the check FORMATS.md §1.1 uses for the orientation.
  expect_identical(read_siconos_lcp(kCorpus / "lcp_ortiz_block.dat"), read_siconos_lcp(kCorpus / "lcp_ortiz.dat"));
}

TEST(SiconosLcp, TrivialBlockEqualsDense) {
  // Nine 1x1 diagonal blocks.
  expect_identical(read_siconos_lcp(kCorpus / "lcp_trivial_block.dat"), read_siconos_lcp(kCorpus / "lcp_trivial.dat"));
}

TEST(SiconosLcp, EveryCorpusFileParsesWithItsInventorySize) {
  // n per file, from the README's inventory.
  const std::map<std::string, Eigen::Index> inventory{
      {"lcp_CPS_1.dat", 2},
      {"lcp_CPS_2.dat", 3},
      {"lcp_CPS_3.dat", 4},
      {"lcp_CPS_4.dat", 4},
      {"lcp_CPS_4bis.dat", 4},
      {"lcp_CPS_5.dat", 2},
      {"lcp_Pang_isolated_sol.dat", 3},
      {"lcp_Pang_isolated_sol_perturbed.dat", 3},
      {"lcp_deudeu.dat", 2},
      {"lcp_deudeu_block.dat", 2},
      {"lcp_enum_fails.dat", 9},
      {"lcp_exp_murty.dat", 6},
      {"lcp_exp_murty2.dat", 6},
      {"lcp_inf_sol_perturbed.dat", 3},
      {"lcp_mmc.dat", 26},
      {"lcp_ortiz.dat", 4},
      {"lcp_ortiz_block.dat", 4},
      {"lcp_tobenna.dat", 40},
      {"lcp_trivial.dat", 9},
      {"lcp_trivial_block.dat", 9},
  };
  int parsed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kCorpus)) {
    if (entry.path().extension() != ".dat") continue;
    const std::string name = entry.path().filename().string();
    SCOPED_TRACE(name);
    const auto expected = inventory.find(name);
    ASSERT_NE(expected, inventory.end()) << "not in the inventory";
    const Lcp problem = read_siconos_lcp(entry.path());
    EXPECT_EQ(problem.size(), expected->second);
    EXPECT_EQ(problem.M.rows(), expected->second);
    EXPECT_EQ(problem.M.cols(), expected->second);
    ++parsed;
  }
  EXPECT_EQ(parsed, static_cast<int>(inventory.size()));
}

// --- the format -------------------------------------------------------------------------

TEST(SiconosLcp, TrailingTextIsIgnored) {
  const Lcp problem = parse_text("2 0 2 2 2\t2\n2 1\n1 2\n-5 -6\n\nRemark 4.1.14 abc nan 1 2 3\n# more\n");
  EXPECT_EQ(problem.q, Eigen::Vector2d(-5, -6));
}

TEST(SiconosLcp, AcceptsTheNumberFormsSiconosReads) {
  const Lcp problem = parse_text("+2 0 2 2 2 2  2.000000000000000000000000e+00 -0 .5 1. 1.0000000000000000208e-03 +7");
  EXPECT_EQ(problem.M(0, 0), 2.0);
  EXPECT_TRUE(same_bits(problem.M(1, 0), -0.0));
  EXPECT_EQ(problem.M(0, 1), 0.5);
  EXPECT_EQ(problem.M(1, 1), 1.0);
  EXPECT_EQ(problem.q, Eigen::Vector2d(1e-3, 7));
}

TEST(SiconosLcp, EmptyProblemIsValid) {
  const Lcp problem = parse_text("0 0 0 0 0 0");
  EXPECT_EQ(problem.size(), 0);
  EXPECT_EQ(problem.M.rows(), 0);
}

TEST(SiconosLcp, SparseBlocksGoWhereTheIndexSays) {
  // Block rows {0}, {1, 2}; block columns {0, 1}, {2}. Blocks: (0,0) 1x2, (1,0) 2x2, (1,1) 2x1,
  // each column-major; the block (0,1) is absent and reads as zero.
  const Lcp problem = parse_text(
      "3 1 3 3\n"
      "3 2 2\n"
      "1 3\n"
      "2 3\n"
      "3 3\n"
      "0 1 3\n"
      "0 0 1\n"
      "0  1 2\n"
      "1  3 4 5 6\n"
      "2  7 8\n"
      "1 2 3\n");
  Eigen::MatrixXd expected_M(3, 3);
  expected_M << 1, 2, 0,  //
      3, 5, 7,            //
      4, 6, 8;
  EXPECT_EQ(problem.M, expected_M);
  EXPECT_EQ(problem.q, Eigen::Vector3d(1, 2, 3));
}

// --- malformed input: every message names the source, the token and what was expected --

TEST(SiconosLcp, NonNumberNamesTokenAndEntry) {
  EXPECT_THAT(parse_error("2 0 2 2 2 2 2 1 abc 2 -5 -6"),
              HasSubstr("lcp.dat: token 9 ('abc'): expected a number for M(0, 1)"));
  EXPECT_THAT(parse_error("2 0 2 2 2 2 2 1 1 2 -5 1e"), HasSubstr("token 12 ('1e'): expected a number for q[1]"));
  EXPECT_THAT(parse_error("2 0 2 2 2 2 2 1 1 2,5 -5 -6"), HasSubstr("token 10 ('2,5')"));
}

TEST(SiconosLcp, TruncatedFileSaysEndOfInput) {
  EXPECT_THAT(parse_error("2 0 2 2 2 2 2 1 1 2 -5"),
              HasSubstr("lcp.dat: token 12 (end of input): expected a number for q[1]"));
  EXPECT_THAT(parse_error(""), HasSubstr("token 1 (end of input): expected a nonnegative integer for n"));
  EXPECT_THAT(parse_error("2 0 2 2 2"), HasSubstr("token 6 (end of input)"));
}

TEST(SiconosLcp, StorageTwoIsUnsupported) {
  EXPECT_THAT(parse_error("2 2 2 2 1\nCSparse Version 3.2.0\n"),
              HasSubstr("token 2 ('2'): unsupported storage type 2"));
  EXPECT_THAT(parse_error("2 5 2 2"), HasSubstr("unsupported storage type 5"));
  EXPECT_THAT(parse_error("2 dense 2 2"), HasSubstr("token 2 ('dense'): expected an integer for the storage type"));
}

TEST(SiconosLcp, SizesMustMatchN) {
  EXPECT_THAT(parse_error("2 0 3 3 3 3 1 2 3 4 5 6 7 8 9 1 2 3"), HasSubstr("token 3 ('3'): M has 3 rows but n is 2"));
  EXPECT_THAT(parse_error("2 0 2 3 2 3 1 2 3 4 5 6 1 2"), HasSubstr("M has 3 columns but n is 2"));
  EXPECT_THAT(parse_error("2 0 2 2 2 3 1 2 3 4 1 2"),
              HasSubstr("token 6 ('3'): the repeated column count 3 differs from the header's 2"));
  EXPECT_THAT(parse_error("-2 0 2 2"), HasSubstr("token 1 ('-2'): expected a nonnegative integer for n"));
  EXPECT_THAT(parse_error("2.0 0 2 2"), HasSubstr("token 1 ('2.0'): expected a nonnegative integer for n"));
  EXPECT_THAT(parse_error("99999999999 0 2 2"), HasSubstr("too large"));
}

TEST(SiconosLcp, NonFiniteValuesAreRejectedByName) {
  EXPECT_THAT(parse_error("2 0 2 2 2 2 2 1 nan 2 -5 -6"), HasSubstr("token 9 ('nan'): M(0, 1) is NaN"));
  EXPECT_THAT(parse_error("2 0 2 2 2 2 2 1 1 2 -inf -6"), HasSubstr("token 11 ('-inf'): q[0] is infinite"));
  EXPECT_THAT(parse_error("2 0 2 2 2 2 2 1 1 2 -5 1e999"), HasSubstr("q[1] is out of the range of a double"));
}

TEST(SiconosLcp, SparseBlockIndexIsChecked) {
  // lcp_deudeu_block.dat with one field changed at a time.
  const std::string tail = " 0 2 1 1 2 -5 -6";
  EXPECT_EQ(parse_text("2 1 2 2 1 1 1 2 2 2 1 0 1 0" + tail).q, Eigen::Vector2d(-5, -6));
  EXPECT_THAT(parse_error("2 1 2 2 1 1 1 2 2 2 1 0 1 1" + tail),
              HasSubstr("token 14 ('1'): index2_data[0] = 1 is not a block column"));
  EXPECT_THAT(parse_error("2 1 2 2 1 1 1 3 2 2 1 0 1 0" + tail),
              HasSubstr("token 8 ('3'): blocksize0[0] = 3: the cumulative sizes must end at the row count 2"));
  EXPECT_THAT(parse_error("2 1 2 2 2 2 1 1 1 2 3 2 0 1 2 0 0"),
              HasSubstr("blocksize0[1] = 1 must exceed the previous cumulative size 1"));
  EXPECT_THAT(parse_error("2 1 2 2 1 1 1 2 2 2 1 0 1 0 1 2 1 1 2 -5 -6"),
              HasSubstr("token 15 ('1'): expected block number 0, got 1"));
  EXPECT_THAT(parse_error("2 1 2 2 2 1 1 2 2 2 2 0 2 0 0"), HasSubstr("block row 0 stores block column 0 twice"));
  EXPECT_THAT(parse_error("2 1 2 2 1 1 1 2 2 2 2 0 1 0" + tail), HasSubstr("filled2 = 2 must equal nbblocks = 1"));
  EXPECT_THAT(parse_error("2 1 2 2 0"), HasSubstr("needs at least one block"));
  EXPECT_THAT(parse_error("2 1 2 2 1 1 1 2 2 2 1 0 1 0 0 2 1 x 2 -5 -6"),
              HasSubstr("token 18 ('x'): expected a number for M(0, 1) (block 0, entry (0, 1))"));
}

TEST(SiconosLcp, MissingFileIsReported) {
  const auto missing = kCorpus / "no_such_problem.dat";
  try {
    (void)read_siconos_lcp(missing);
    ADD_FAILURE() << "no InvalidProblem";
  } catch (const InvalidProblem& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot open '" + missing.string() + "'"));
  }
}

TEST(SiconosLcp, ErrorsInFilesNameThePath) {
  const auto path = temp_file("errors_name_path.dat");
  {
    std::ofstream out(path);
    out << "2 0 2 2 2 2 2 1 1 2 -5";
  }
  try {
    (void)read_siconos_lcp(path);
    ADD_FAILURE() << "no InvalidProblem";
  } catch (const InvalidProblem& e) {
    EXPECT_THAT(e.what(), HasSubstr(path.string() + ": token 12 (end of input)"));
  }
  std::filesystem::remove(path);
}

// --- writing ------------------------------------------------------------------------------

TEST(SiconosLcp, WritesSiconosDenseLayout) {
  std::ostringstream out;
  write_siconos_lcp(out, read_siconos_lcp(kCorpus / "lcp_CPS_2.dat"));
  // One column of M per line, as Siconos writes it.
  EXPECT_EQ(out.str(), "3\n0\n3\n3\n3\t3\n0 2 -1\n-1 0 1\n2 -2 0\n-3 6 -1\n");
}

TEST(SiconosLcp, WriteReadRoundTripIsBitwiseExact) {
  const Lcp original = random_problem(7, 20240611);
  std::stringstream text;
  write_siconos_lcp(text, original);
  expect_identical(parse_siconos_lcp(text), original);
}

TEST(SiconosLcp, WriteReadRoundTripThroughAFile) {
  const Lcp original = random_problem(5, 7);
  const auto path = temp_file("round_trip.dat");
  write_siconos_lcp(path, original);
  expect_identical(read_siconos_lcp(path), original);
  std::filesystem::remove(path);
}

TEST(SiconosLcp, WritingToAnUnwritablePathThrows) {
  const auto path = temp_file("no_such_dir") / "problem.dat";
  try {
    write_siconos_lcp(path, read_siconos_lcp(kCorpus / "lcp_deudeu.dat"));
    ADD_FAILURE() << "no InvalidProblem";
  } catch (const InvalidProblem& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot open '" + path.string() + "' for writing"));
  }
}

TEST(SiconosLcp, WritingAnInvalidProblemThrows) {
  Lcp problem{Eigen::MatrixXd::Identity(2, 2), Eigen::Vector2d(1, std::nan(""))};
  std::ostringstream out;
  EXPECT_THROW(write_siconos_lcp(out, problem), InvalidProblem);
}

// --- MLCP ---------------------------------------------------------------------------------

Mlcp parse_mlcp_text(const std::string& text) {
  std::istringstream in(text);
  return parse_siconos_mlcp(in, "mlcp.dat");
}

std::string parse_mlcp_error(const std::string& text) {
  try {
    (void)parse_mlcp_text(text);
  } catch (const InvalidProblem& e) {
    return e.what();
  }
  ADD_FAILURE() << "no InvalidProblem for:\n" << text;
  return "";
}

void expect_identical(const Eigen::MatrixXd& actual, const Eigen::MatrixXd& expected, const char* name) {
  ASSERT_EQ(actual.rows(), expected.rows()) << name;
  ASSERT_EQ(actual.cols(), expected.cols()) << name;
  for (Eigen::Index i = 0; i < expected.rows(); ++i) {
    for (Eigen::Index j = 0; j < expected.cols(); ++j) {
      EXPECT_TRUE(same_bits(actual(i, j), expected(i, j)))
          << name << "(" << i << ", " << j << "): " << actual(i, j) << " vs " << expected(i, j);
    }
  }
}

void expect_identical(const Mlcp& actual, const Mlcp& expected) {
  expect_identical(actual.A, expected.A, "A");
  expect_identical(actual.B, expected.B, "B");
  expect_identical(actual.C, expected.C, "C");
  expect_identical(actual.D, expected.D, "D");
  expect_identical(actual.a, expected.a, "a");
  expect_identical(actual.b, expected.b, "b");
}

std::vector<std::string> tokens_of(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::vector<std::string> tokens;
  std::string token;
  while (in >> token) tokens.push_back(token);
  return tokens;
}

std::string join_tokens(const std::vector<std::string>& tokens, std::size_t first, std::size_t last) {
  std::string text;
  for (std::size_t k = first; k < last && k < tokens.size(); ++k) text += tokens[k] + " ";
  return text;
}

// The 15 MLCP files and their sizes (data/siconos/README.md).
const std::map<std::string, std::pair<Eigen::Index, Eigen::Index>> kMlcpSizes{
    {"Buck2_mlcp.dat", {20, 12}},
    {"BuckConverter_mlcp.dat", {20, 12}},
    {"BuckFirstStep_mlcp.dat", {20, 12}},
    {"PDSym_mlcp.dat", {3, 4}},
    {"PD_mlcp.dat", {3, 4}},
    {"RCD_mlcp.dat", {2, 1}},
    {"RLCD_mlcp.dat", {6, 2}},
    {"deudeu_mlcp.dat", {1, 1}},
    {"diodeBridge20_mlcp.dat", {11, 20}},
    {"diodeBridge40_mlcp.dat", {21, 40}},
    {"diodeBridge_mlcp.dat", {3, 4}},
    {"m2n1_mlcp.dat", {1, 2}},
    {"m3n2_mlcp.dat", {2, 3}},
    {"relay2_mlcp.dat", {4, 2}},
    {"relay3_mlcp.dat", {4, 2}},
};

TEST(SiconosMlcp, RcdIsTheWorkedExample) {
  // FORMATS.md §3.2: M (rows) = [[0.1, −0.1, −1], [−1.505, 0.5, 0], [0, −1, 0]], q = (0, 0.495, 0).
  const Mlcp problem = read_siconos_mlcp(kMlcpCorpus / "RCD_mlcp.dat");
  ASSERT_EQ(problem.equalities(), 2);
  ASSERT_EQ(problem.complementarities(), 1);
  const Eigen::Matrix3d expected{{0.1, -0.1, -1}, {-1.505, 0.5, 0}, {0, -1, 0}};
  EXPECT_TRUE(problem.matrix().isApprox(expected, 1e-15)) << problem.matrix();
  EXPECT_TRUE(problem.offset().isApprox(Eigen::Vector3d(0, 0.495, 0), 1e-15)) << problem.offset().transpose();
}

TEST(SiconosMlcp, EveryCorpusFileReadsWithItsInventorySizes) {
  for (const auto& [file, sizes] : kMlcpSizes) {
    SCOPED_TRACE(file);
    const Mlcp problem = read_siconos_mlcp(kMlcpCorpus / file);
    EXPECT_EQ(problem.equalities(), sizes.first);
    EXPECT_EQ(problem.complementarities(), sizes.second);
    EXPECT_NO_THROW(problem.validate());
  }
}

TEST(SiconosMlcp, EachSectionAloneGivesTheSameProblem) {
  // The (M, q) section is column-major, the ABCD section row-major: reading each on its own (the
  // other flag set to 0) must give the same blocks, bit for bit. With isStorageType2 = 0 the ABCD
  // section becomes trailing data, which is ignored.
  for (const auto& [file, sizes] : kMlcpSizes) {
    SCOPED_TRACE(file);
    const std::vector<std::string> tokens = tokens_of(kMlcpCorpus / file);
    const Mlcp both = read_siconos_mlcp(kMlcpCorpus / file);
    const auto [n, m] = sizes;
    const auto size = static_cast<std::size_t>(n + m);
    // Header (4), blocksRows "0 n n+m" (3), blocksIsComp "0 1" (2), "0 size size size size" (5),
    // M (size²), q (size).
    const std::size_t section_end = 4 + 3 + 2 + 5 + size * size + size;
    const std::string header = std::to_string(n) + " " + std::to_string(m) + " ";
    const Mlcp only_m = parse_mlcp_text("1 0 " + header + join_tokens(tokens, 4, tokens.size()));
    const Mlcp only_blocks = parse_mlcp_text("0 1 " + header + join_tokens(tokens, section_end, tokens.size()));
    expect_identical(only_m, both);
    expect_identical(only_blocks, both);
  }
}

TEST(SiconosMlcp, RectangularIsRefusedNamingTheSizes) {
  try {
    (void)read_siconos_mlcp(kMlcpCorpus / "Rectangular_mlcp.dat");
    ADD_FAILURE() << "no InvalidProblem";
  } catch (const InvalidProblem& e) {
    EXPECT_THAT(e.what(), HasSubstr("token 11 ('3'): M has 3 rows but n + m = 2 (n = 1, m = 1)"));
  }
}

// A small valid file: n = 1, m = 1, A = 2, C = 1, D = 1, B = 1, a = −4, b = −3.
const std::string kSmall = "1 1 1 1  0 1 2  0 1  0 2 2 2 2  2 1 1 1  -4 -3  2 1 1 1 -4 -3";

TEST(SiconosMlcp, SmallFileAndTrailingNumbersAreIgnored) {
  const Mlcp problem = parse_mlcp_text(kSmall + " 0.5 0.25 7 text");
  EXPECT_EQ(problem.matrix(), Eigen::Matrix2d({{2, 1}, {1, 1}}));
  EXPECT_EQ(problem.offset(), Eigen::Vector2d(-4, -3));
}

TEST(SiconosMlcp, MalformedInputNamesTheTokenAndWhatWasExpected) {
  EXPECT_THAT(parse_mlcp_error("2 1 1 1"), HasSubstr("token 1 ('2'): expected 0 or 1 for isStorageType1"));
  EXPECT_THAT(parse_mlcp_error("0 0 1 1"), HasSubstr("both isStorageType1 and isStorageType2 are 0"));
  EXPECT_THAT(parse_mlcp_error("1 1 x 1"), HasSubstr("token 3 ('x'): expected a nonnegative integer for n"));
  EXPECT_THAT(parse_mlcp_error("1 1 1 1  1 2"), HasSubstr("token 5 ('1'): blocksRows[0] = 1: the first block starts"));
  EXPECT_THAT(parse_mlcp_error("1 1 1 1  0 1 3"), HasSubstr("blocksRows[2] = 3 passes n + m = 2"));
  EXPECT_THAT(parse_mlcp_error("1 1 1 1  0 1 2  1 0"),
              HasSubstr("blocksIsComp[0] = 1 marks rows 0..0 as complementarity rows"));
  EXPECT_THAT(parse_mlcp_error("1 1 1 1  0 1 2  0 1  2 2 2"), HasSubstr("unsupported storage type 2"));
  EXPECT_THAT(parse_mlcp_error("1 1 1 1  0 1 2  0 1  0 2 2 2 2  2 1 abc 1"),
              HasSubstr("token 17 ('abc'): expected a number for M(0, 1)"));
  EXPECT_THAT(parse_mlcp_error("0 1 1 1  2 nan"), HasSubstr("B(0, 0) is NaN"));
  EXPECT_THAT(parse_mlcp_error("0 1 1 1  2 1 1 1 -4"),
              HasSubstr("token 10 (end of input): expected a number for b[0]"));
}

TEST(SiconosMlcp, TruncatedCorpusFileSaysEndOfInput) {
  const std::vector<std::string> tokens = tokens_of(kMlcpCorpus / "diodeBridge_mlcp.dat");
  for (const std::size_t cut : {std::size_t{3}, std::size_t{20}, std::size_t{80}, std::size_t{120}}) {
    SCOPED_TRACE(cut);
    EXPECT_THAT(parse_mlcp_error(join_tokens(tokens, 0, cut)),
                HasSubstr("token " + std::to_string(cut + 1) + " (end of input)"));
  }
}

TEST(SiconosMlcp, SectionsThatDisagreeAreRefused) {
  // The ABCD section says C = 5 where M says 1.
  const std::string text = "1 1 1 1  0 1 2  0 1  0 2 2 2 2  2 1 1 1  -4 -3  2 1 5 1 -4 -3";
  EXPECT_THAT(parse_mlcp_error(text), HasSubstr("sections disagree: M(0, 1) = 1 but C(0, 0) = 5"));
  const std::string b_differs = "1 1 1 1  0 1 2  0 1  0 2 2 2 2  2 1 1 1  -4 -3  2 1 1 1 -4 -2";
  EXPECT_THAT(parse_mlcp_error(b_differs), HasSubstr("q[1] = -3 but b[0] = -2"));
}

TEST(SiconosMlcp, SparseBlockMIsRead) {
  // The same problem as kSmall with M in one 2×2 stored block (column-major inside the block).
  const std::string text = "1 0 1 1  0 1 2  0 1  1 2 2  1 1 1 2 2 2 1 0 1 0 0  2 1 1 1  -4 -3";
  EXPECT_EQ(parse_mlcp_text(text).matrix(), Eigen::Matrix2d({{2, 1}, {1, 1}}));
}

TEST(SiconosMlcp, WriteReadRoundTripIsBitwiseExact) {
  for (const auto& [file, sizes] : kMlcpSizes) {
    SCOPED_TRACE(file);
    const Mlcp original = read_siconos_mlcp(kMlcpCorpus / file);
    std::stringstream text;
    write_siconos_mlcp(text, original);
    expect_identical(parse_siconos_mlcp(text), original);
  }
  // Awkward doubles, and the empty blocks of n = 0 and m = 0.
  const Lcp random = random_problem(5, 99);
  for (const Eigen::Index n : {Eigen::Index{0}, Eigen::Index{2}, Eigen::Index{5}}) {
    SCOPED_TRACE(n);
    const Mlcp original = mlcp_from_blocks(random.M, random.q, n);
    const auto path = temp_file("mlcp_round_trip.dat");
    write_siconos_mlcp(path, original);
    expect_identical(read_siconos_mlcp(path), original);
    std::filesystem::remove(path);
  }
}

TEST(SiconosMlcp, WritingAnInvalidProblemThrows) {
  Mlcp problem = parse_mlcp_text(kSmall);
  problem.C = Eigen::MatrixXd::Zero(2, 2);
  std::ostringstream out;
  EXPECT_THROW(write_siconos_mlcp(out, problem), InvalidProblem);
  EXPECT_TRUE(out.str().empty());
}

TEST(SiconosMlcp, MissingFileIsReported) {
  EXPECT_THAT([] { (void)read_siconos_mlcp(kMlcpCorpus / "no_such_mlcp.dat"); },
              ::testing::ThrowsMessage<InvalidProblem>(HasSubstr("no such file")));
}


TEST(SiconosLcp, AUtf8ByteOrderMarkIsSkippedAsInJson) {
  // Issue 15: the JSON reader skipped a BOM, the .dat reader failed on "\xEF\xBB\xBF1".
  const Lcp with = parse_text("\xEF\xBB\xBF" "1\n0\n1\n1\n1 1\n2\n-4\n");
  ASSERT_EQ(with.size(), 1);
  EXPECT_EQ(with.M(0, 0), 2);
  EXPECT_EQ(with.q[0], -4);
  EXPECT_THAT(parse_error("\xEF\xBB" "1\n0\n1\n1\n1 1\n2\n-4\n"), HasSubstr("token 1"));  // a broken mark is not skipped
  const Lcp json = parse_json_lcp("\xEF\xBB\xBF" R"({"M": [[2]], "q": [-4]})", "bom.json");
  EXPECT_EQ(json.M(0, 0), 2);
}

}  // namespace
}  // namespace perp::io_siconos_test
