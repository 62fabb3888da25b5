#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "perp/core/error.hpp"
#include "perp/core/friction_contact.hpp"
#include "perp/io/json.hpp"
#include "perp/io/siconos.hpp"

namespace perp::io_siconos_fc_test {
namespace {

using ::testing::HasSubstr;

const std::filesystem::path kFcCorpus = PERP_SICONOS_FC_DIR;

FrictionContact parse_text(const std::string& text) {
  std::istringstream in(text);
  return parse_siconos_friction_contact(in, "fc.dat");
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

/// Equal dimension, sizes, and W (entry by entry, as dense), q and mu to the bit.
void expect_identical(const FrictionContact& actual, const FrictionContact& expected) {
  ASSERT_EQ(actual.dimension, expected.dimension);
  ASSERT_EQ(actual.W.rows(), expected.W.rows());
  ASSERT_EQ(actual.W.cols(), expected.W.cols());
  ASSERT_EQ(actual.q.size(), expected.q.size());
  ASSERT_EQ(actual.mu.size(), expected.mu.size());
  EXPECT_EQ(actual.W.nonZeros(), expected.W.nonZeros());
  const Eigen::SparseMatrix<double> difference = actual.W - expected.W;
  for (Eigen::Index j = 0; j < difference.outerSize(); ++j) {
    for (Eigen::SparseMatrix<double>::InnerIterator it(difference, j); it; ++it) {
      EXPECT_EQ(it.value(), 0) << "W(" << it.row() << ", " << it.col() << ")";
    }
  }
  for (Eigen::Index i = 0; i < expected.q.size(); ++i) EXPECT_TRUE(same_bits(actual.q[i], expected.q[i])) << "q" << i;
  for (Eigen::Index i = 0; i < expected.mu.size(); ++i)
    EXPECT_TRUE(same_bits(actual.mu[i], expected.mu[i])) << "mu" << i;
}

std::string written(const FrictionContact& problem, SiconosStorage storage = SiconosStorage::Automatic) {
  std::ostringstream out;
  write_siconos_friction_contact(out, problem, storage);
  return out.str();
}

/// The relative error of r = 0, computed here without perp's projection: u = q, and contact i
/// contributes ‖P_K(−q̂_i)‖² with q̂_i = q_i + μ‖q_T,i‖ e_N; divided by ‖q‖ (max(‖q‖, ‖0‖, ‖q‖)).
double error_at_zero(const FrictionContact& problem) {
  const int d = problem.dimension;
  double squared = 0;
  for (Eigen::Index i = 0; i < problem.contacts(); ++i) {
    const Eigen::VectorXd qi = problem.q.segment(i * d, d);
    const double mu = problem.mu[i];
    Eigen::VectorXd x = -qi;
    x[0] -= mu * qi.tail(d - 1).norm();
    const double normal = x[0];
    const double tangential = x.tail(d - 1).norm();
    if (mu * tangential <= -normal) continue;  // projects to 0
    if (tangential <= mu * normal) {
      squared += x.squaredNorm();
      continue;
    }
    // Onto the boundary ray: x_N' = (x_N + μ‖x_T‖)/(1 + μ²), ‖x_T'‖ = μ x_N'.
    const double projected_normal = (normal + mu * tangential) / (1 + mu * mu);
    squared += projected_normal * projected_normal * (1 + mu * mu);
  }
  return std::sqrt(squared) / problem.q.norm();
}

// Each file's figures, taken from an independent reader written to FC_FORMAT.md (a Python
// script, not perp): d, nc, the nonzero entries of W, μ (the same for every contact), Σ|W_ij|,
// Σ|q_i| and the relative error of r = 0.
struct CorpusFile {
  const char* file;
  int dimension;
  Eigen::Index contacts;
  Eigen::Index nonzeros;
  double mu;
  double sum_abs_W;
  double sum_abs_q;
  double error_at_zero;
};

const CorpusFile kCorpusFiles[] = {
    {"fc2d/FC2D_SliderCrankLagrangian00000.dat", 2, 2, 16, 0.01, 8353.439985687157, 19.172911035934632,
     0.13887839110034178},
    {"fc2d/FrictionContactProblem00031.dat", 2, 11, 60, 0.9, 23.22246892, 0.4933802758374965, 0.0011823197968345743},
    {"fc2d/FrictionContactProblem00071.dat", 2, 89, 1140, 0.9, 317.9093320404, 180.61752656211956, 0.4286460263180841},
    {"fc2d/FrictionContactProblem00374.dat", 2, 28, 76, 0.9, 33.18643255518695, 809.3249999911745, 0.674199862463242},
    {"fc2d/FrictionContactProblem00394.dat", 2, 6, 24, 0.9, 10.822796418787203, 1.0217616141193486e-14,
     0.1412962444713025},
    {"fc2d/FrictionContactProblem00727.dat", 2, 367, 6306, 0.9, 1628.2302566162, 570.7089110461972, 0.5393008982617123},
    {"fc2d/fc2d_granularflowonwall_00667_00000.dat", 2, 667, 3822, 0.5, 3394520.1271777474, 1.096128396382845e-16,
     0.45805192495165553},
    {"fc2d/fc2d_granularflowonwall_07002_00801.dat", 2, 7002, 125788, 0.5, 75761356.14044334, 105.2154372509927,
     0.13965024841997412},
    {"fc3d/BoxesStack1-i100000-32.hdf5.dat", 3, 52, 5328, 0.7, 515188.2175772793, 127.98127056005532,
     0.999999950260734},
    {"fc3d/Capsules-i100-1090.dat", 3, 276, 11214, 0.7, 8235.013357619218, 41.984401026381214, 0.007441086408077655},
    {"fc3d/Capsules-i100-889.dat", 3, 276, 11736, 0.7, 8550.330739011957, 19.174985835888055, 0.010504282963478271},
    {"fc3d/Capsules-i101-404.dat", 3, 225, 9099, 0.7, 6657.276152104384, 50.57818333163569, 0.0061340020041068324},
    {"fc3d/Capsules-i103-990.dat", 3, 275, 11601, 0.7, 8523.022687436456, 24.55083050593609, 0.012869998156267798},
    {"fc3d/Confeti-ex03-Fc3D-SBM.dat", 3, 54, 1281, 0.4, 0.056365305930200005, 313.8624198849324, 0.569482099468481},
    {"fc3d/Confeti-ex13-4contact-Fc3D-SBM.dat", 3, 4, 144, 0.04, 0.004308906804, 24.442109965032206,
     0.0021848402209683837},
    {"fc3d/Confeti-ex13-Fc3D-SBM.dat", 3, 107, 17949, 0.04, 0.218290105561689, 13147.210949848815, 0.07273480636678076},
    {"fc3d/FC3D_Example1.dat", 3, 3, 9, 0.1, 9.0, 15.0, 0.30001500112509377},
    {"fc3d/FC3D_Example1_SBM.dat", 3, 3, 9, 0.1, 9.0, 15.0, 0.30001500112509377},
    {"fc3d/FrictionContact3D_1c.dat", 3, 1, 9, 0.1, 53.0, 6.0, 0.26593487520457093},
    {"fc3d/FrictionContact3D_RR_1c.dat", 3, 1, 9, 0.6, 0.1243024842, 0.5457000000000001, 0.3841621405456263},
    {"fc3d/NESpheres_10_1.dat", 3, 9, 121, 0.8, 29.410872651712154, 8.291732341291148, 0.06671596828310897},
    {"fc3d/OneObject-i100000-316.hdf5.dat", 3, 25, 1863, 0.3, 3483.1720909976425, 3.9402343206387447,
     0.0023575351257261764},
    {"fc3d/OneObject-i100000-499.hdf5.dat", 3, 24, 1476, 0.3, 3226.096522577246, 2.7624082279988795,
     0.0038521713136821386},
    {"fc3d/OneObject-i1028-138.hdf5.dat", 3, 23, 1377, 0.3, 1559.3876315578875, 2.358411321158495,
     0.0055476610174169955},
    {"fc3d/RockPile_tob1.dat", 3, 463, 32697, 1.0, 41312.934390780894, 3097.8591378348196, 0.20192206000430563},
    {"fc3d/Rover1039.dat", 3, 4, 144, 0.7, 0.6153467847346733, 1.3317415852329413, 0.3651008077961234},
    {"fc3d/Rover1040.dat", 3, 5, 225, 0.7, 0.7844987614273994, 2.6977999876332364, 0.25974942097535986},
    {"fc3d/Rover1041.dat", 3, 5, 225, 0.7, 0.7844375417401781, 2.9285234874779755, 0.15497619307803326},
    {"fc3d/Rover11035.dat", 3, 1, 9, 0.7, 0.12314107426187372, 0.31774997243907493, 0.22488655008407915},
    {"fc3d/Rover11211.dat", 3, 1, 9, 0.7, 0.1300386781704313, 141.7828056500981, 0.55682046935182},
    {"fc3d/Rover3865.dat", 3, 5, 225, 0.7, 0.7551398611269117, 6.0759490114702475, 0.056710493550853155},
    {"fc3d/Rover4144.dat", 3, 4, 144, 0.7, 0.5694744267863756, 4.068948362003254, 0.12469301781623619},
    {"fc3d/Rover4396.dat", 3, 2, 36, 0.7, 0.2771016239841774, 15.417012446572128, 0.22769088045756028},
    {"fc3d/Rover4493.dat", 3, 4, 144, 0.7, 0.6067852057473837, 16.52373121541508, 0.16134154461653963},
    {"fc3d/Rover4516.dat", 3, 4, 144, 0.7, 0.6140870040695475, 7.327032536061584, 0.043018867098617075},
    {"fc3d/Rover4609.dat", 3, 5, 225, 0.7, 0.7841136523281462, 7.749122202545251, 0.057915359495693756},
    {"fc3d/Rover4613.dat", 3, 5, 225, 0.7, 0.7839826552840496, 7.49752765823018, 0.07437634563747765},
    {"fc3d/Rover4622.dat", 3, 4, 144, 0.7, 0.6102322440384299, 5.7307436529129046, 0.05249046805935954},
};

TEST(SiconosFrictionContact, EveryCorpusFileReadsWithItsInventoryFigures) {
  int files = 0;
  for (const CorpusFile& expected : kCorpusFiles) {
    SCOPED_TRACE(expected.file);
    const FrictionContact problem = read_siconos_friction_contact(kFcCorpus / expected.file);
    ++files;
    EXPECT_EQ(problem.dimension, expected.dimension);
    EXPECT_EQ(problem.contacts(), expected.contacts);
    EXPECT_EQ(problem.size(), expected.dimension * expected.contacts);
    EXPECT_EQ(problem.W.rows(), problem.size());
    EXPECT_EQ(problem.W.cols(), problem.size());
    EXPECT_EQ(problem.W.nonZeros(), expected.nonzeros);
    for (Eigen::Index i = 0; i < problem.contacts(); ++i) ASSERT_EQ(problem.mu[i], expected.mu) << "mu" << i;
    double sum_abs_W = 0;
    for (Eigen::Index j = 0; j < problem.W.outerSize(); ++j) {
      for (Eigen::SparseMatrix<double>::InnerIterator it(problem.W, j); it; ++it) sum_abs_W += std::abs(it.value());
    }
    EXPECT_NEAR(sum_abs_W, expected.sum_abs_W, 1e-12 * expected.sum_abs_W);
    EXPECT_NEAR(problem.q.cwiseAbs().sum(), expected.sum_abs_q, 1e-12 * expected.sum_abs_q);

    // r = 0: perp's residuals against the formula recomputed here and the independent reader's figure.
    const FrictionContactResiduals residuals =
        friction_contact_residuals(problem, Eigen::VectorXd::Zero(problem.size()));
    const double independent = error_at_zero(problem);
    EXPECT_NEAR(residuals.relative_error, independent, 1e-13 * std::max(1.0, independent));
    EXPECT_NEAR(residuals.relative_error, expected.error_at_zero, 1e-12 * std::max(1e-3, expected.error_at_zero));
    EXPECT_NEAR(residuals.absolute_error, independent * problem.q.norm(), 1e-12 * problem.q.norm());
    // With r = 0: no friction force, so Coulomb, complementarity and dissipation hold exactly;
    // Signorini is the largest approach velocity −q_N (every file has some q_N < 0).
    double approach = 0;
    for (Eigen::Index i = 0; i < problem.contacts(); ++i)
      approach = std::max(approach, -problem.q[i * problem.dimension]);
    EXPECT_GT(approach, 0);
    EXPECT_EQ(residuals.signorini, approach);
    EXPECT_EQ(residuals.coulomb, 0);
    EXPECT_EQ(residuals.complementarity, 0);
    EXPECT_EQ(residuals.dissipation, 0);
  }
  EXPECT_EQ(files, 38);
  int on_disk = 0;
  for (const char* dir : {"fc2d", "fc3d"}) {
    for (const auto& entry : std::filesystem::directory_iterator(kFcCorpus / dir))
      on_disk += entry.path().extension() == ".dat";
  }
  EXPECT_EQ(on_disk, 38) << "a corpus file is missing from the inventory above";
}

TEST(SiconosFrictionContact, DenseIsColumnMajorOnRover11035) {
  // FC_FORMAT.md §1: each text line is a column; W is not symmetric, so orientation shows.
  const FrictionContact problem = read_siconos_friction_contact(kFcCorpus / "fc3d/Rover11035.dat");
  ASSERT_EQ(problem.size(), 3);
  const Eigen::MatrixXd W(problem.W);
  EXPECT_EQ(W(0, 0), 1.358309568142355636122254e-02);
  EXPECT_EQ(W(1, 0), -1.426574206813656375825161e-04);
  EXPECT_EQ(W(0, 1), -1.438285701497408206397943e-04);
  EXPECT_EQ(W(2, 0), 7.917137724989218054358342e-04);
  EXPECT_NE(W(0, 1), W(1, 0));
  EXPECT_EQ(problem.q[0], -5.417704922170969810656757e-02);
  EXPECT_EQ(problem.mu[0], 0.7);
}

TEST(SiconosFrictionContact, HandWrittenOneContactFileWithBlankLines) {
  // FrictionContact3D_1c.dat: blank lines between groups, the repeated sizes on two lines.
  const FrictionContact problem = read_siconos_friction_contact(kFcCorpus / "fc3d/FrictionContact3D_1c.dat");
  Eigen::MatrixXd W(3, 3);
  W << 15, -1, -2, -1, 14, 1, -2, 1, 16;
  EXPECT_EQ(Eigen::MatrixXd(problem.W), W);
  EXPECT_EQ(problem.q, Eigen::Vector3d(-1, 2, 3));
  EXPECT_EQ(problem.mu[0], 0.1);
}

TEST(SiconosFrictionContact, SparseBlockEqualsDenseForExample1) {
  // FC3D_Example1_SBM.dat holds FC3D_Example1.dat's problem in storage 1 (W written with %e).
  const FrictionContact dense = read_siconos_friction_contact(kFcCorpus / "fc3d/FC3D_Example1.dat");
  const FrictionContact blocks = read_siconos_friction_contact(kFcCorpus / "fc3d/FC3D_Example1_SBM.dat");
  EXPECT_TRUE(Eigen::MatrixXd(dense.W).isApprox(Eigen::MatrixXd(blocks.W), 1e-7));
  EXPECT_EQ(dense.q, blocks.q);
  EXPECT_EQ(dense.mu, blocks.mu);
}

TEST(SiconosFrictionContact, SparseBlocksGoWhereTheIndexSays) {
  // d = 2, nc = 2: block row 0 stores block column 1, block row 1 stores columns 0 and 1.
  const std::string text =
      "2 2 1 4 4\n"
      "3 2 2  2 4  2 4  3 3  0 1 3  1 0 1\n"
      "0  1 2 3 4\n"     // block (0, 1): column-major [[1, 3], [2, 4]]
      "1  5 6 7 8\n"     // block (1, 0)
      "2  9 10 11 12\n"  // block (1, 1)
      "-1 0 -2 0  0.5 0.25\n";
  const FrictionContact problem = parse_text(text);
  Eigen::MatrixXd W(4, 4);
  W << 0, 0, 1, 3,  //
      0, 0, 2, 4,   //
      5, 7, 9, 11,  //
      6, 8, 10, 12;
  EXPECT_EQ(Eigen::MatrixXd(problem.W), W);
  EXPECT_EQ(problem.W.nonZeros(), 12);
  EXPECT_EQ(problem.mu, Eigen::Vector2d(0.5, 0.25));
}

TEST(SiconosFrictionContact, CsparseCscOnTheGranularFlow) {
  const FrictionContact problem =
      read_siconos_friction_contact(kFcCorpus / "fc2d/fc2d_granularflowonwall_00667_00000.dat");
  ASSERT_EQ(problem.size(), 1334);
  // The first columns of the dump (FC_FORMAT.md §1).
  EXPECT_EQ(problem.W.coeff(0, 0), 856.713);
  EXPECT_EQ(problem.W.coeff(649, 0), -454.43);
  EXPECT_EQ(problem.W.coeff(1, 1), 2559.98);
  EXPECT_EQ(problem.W.coeff(648, 1), 454.43);
  EXPECT_EQ(problem.W.coeff(649, 1), 903.676);
  EXPECT_EQ(problem.W.coeff(1, 0), 0);
  EXPECT_EQ(problem.W.col(0).nonZeros(), 2);
  EXPECT_EQ(problem.W.col(1).nonZeros(), 3);
}

// A 2×2 (one contact, d = 2) W = [[4, -1], [2, 3]] as each of the three dumps.
const char* const kCsparseHeader = "2 1 2 2 2 ";
const char* const kTail = "-1 0.5\n0.3\n1\n";

TEST(SiconosFrictionContact, CsparseTripletAndCsrDumps) {
  Eigen::MatrixXd W(2, 2);
  W << 4, -1, 2, 3;
  const std::string triplet = std::string(kCsparseHeader) +
                              "1\nCSparse Version 3.1.9, May 4, 2016.  Copyright (c) Timothy A. Davis, 2006-2016\n"
                              "triplet: 2-by-2, nzmax: 4 nnz: 4\n"
                              "    1 1 : 3\n    0 0 : 4\n\n    1 0 : 2\n    0 1 : -1\n" +
                              kTail;
  const std::string csc = std::string(kCsparseHeader) +
                          "2\nCSparse Version 3.1.9\n2-by-2, nzmax: 4 nnz: 4, 1-norm: 6\n"
                          "    col 0 : locations 0 to 1\n      0 : 4\n      1 : 2\n"
                          "    col 1 : locations 2 to 3\n      0 : -1\n      1 : 3\n" +
                          kTail;
  const std::string csr = std::string(kCsparseHeader) +
                          "3\nCSparse Version 3.1.9\ncsr: 2-by-2, nzmax: 4 nnz: 4, 1-norm: 6\n"
                          "    row 0 : locations 0 to 1\n      0 : 4\n      1 : -1\n"
                          "    row 1 : locations 2 to 3\n      0 : 2\n      1 : 3\n" +
                          kTail;
  for (const std::string& text : {triplet, csc, csr}) {
    SCOPED_TRACE(text);
    const FrictionContact problem = parse_text(text);
    EXPECT_EQ(Eigen::MatrixXd(problem.W), W);
    EXPECT_EQ(problem.q, Eigen::Vector2d(-1, 0.5));
    EXPECT_EQ(problem.mu[0], 0.3);
  }
  // Empty columns are "locations P to P-1"; the token count carries on after the dump.
  const std::string sparse = std::string(kCsparseHeader) +
                             "2\nCSparse\n2-by-2, nzmax: 1 nnz: 1, 1-norm: 4\n"
                             "    col 0 : locations 0 to -1\n    col 1 : locations 0 to 0\n      1 : 4\n"
                             "-1 zero 0.3\n";
  // Tokens: 6 header tokens, banner 1, size line 7, col lines 7 + 7, entry 3, then q[0] = 32.
  EXPECT_THAT(parse_error(sparse), HasSubstr("fc.dat: token 33 ('zero'): expected a number for q[1]"));
}

TEST(SiconosFrictionContact, CsparseDumpErrorsNameTheToken) {
  const std::string head = std::string(kCsparseHeader) + "2\nCSparse\n";
  EXPECT_THAT(parse_error(std::string(kCsparseHeader) + "4\n"), HasSubstr("unsupported CSparse origin 4"));
  EXPECT_THAT(parse_error(std::string(kCsparseHeader) + "2\n2-by-2, nzmax: 1 nnz: 1\n"),
              HasSubstr("token 7 ('2-by-2,'): expected 'CSparse' (the banner line of cs_print)"));
  EXPECT_THAT(parse_error(head + "3-by-3, nzmax: 1 nnz: 1\n"),
              HasSubstr("token 8 ('3-by-3,'): expected the size '2-by-2,'"));
  EXPECT_THAT(parse_error(head + "2-by-2, nzmax: 1 nnz: 1\n    col 1 : locations 0 to 0\n"),
              HasSubstr("token 14 ('1'): the column number = 1 must lie in [0, 0]"));
  EXPECT_THAT(parse_error(head + "2-by-2, nzmax: 1 nnz: 1\n    col 0 : locations 0 to 0\n      2 : 1\n"),
              HasSubstr("token 20 ('2'): the index of location 0 = 2 must lie in [0, 1]"));
  EXPECT_THAT(parse_error(head + "2-by-2, nzmax: 1 nnz: 1\n    col 0 : locations 0 to 0\n      1 : nan\n"),
              HasSubstr("token 22 ('nan'): W(1, 0) is NaN"));
  EXPECT_THAT(parse_error(head +
                          "2-by-2, nzmax: 2 nnz: 2\n    col 0 : locations 0 to 0\n      1 : 1\n"
                          "    col 1 : locations 1 to 0\n" +
                          kTail),
              HasSubstr("the dump holds 1 entries but its size line says nnz = 2"));
  EXPECT_THAT(parse_error(head + "2-by-2, nzmax: 1 nnz: 1\n    col 0 : locations 0 to 0\n"),
              HasSubstr("token 20 (end of input): expected location 0 ('index : value')"));
  // A triplet dump claiming 2^31 - 1 entries in a few bytes fails at the end, having stored one.
  EXPECT_THAT(parse_error("2 1073741823 2 2147483646 2147483646 1\nCSparse\n"
                          "triplet: 2147483646-by-2147483646, nzmax: 2147483647 nnz: 2147483647\n    0 0 : 1\n"),
              HasSubstr("(end of input): expected triplet entry 1"));
}

TEST(SiconosFrictionContact, IgnoresTheTailAndReadsBlankLines) {
  const FrictionContact problem = parse_text("\n2\n\n1\n0\n2\n2\n2 2\n\n1 0\n0 1\n\n-1 0.5\n0.3\n1\nfree text 7\n");
  EXPECT_EQ(Eigen::MatrixXd(problem.W), Eigen::Matrix2d::Identity());
  EXPECT_EQ(problem.W.nonZeros(), 2);  // exact zeros of a dense file are not stored
}

TEST(SiconosFrictionContact, MalformedInputNamesTheTokenAndWhatWasExpected) {
  EXPECT_THAT(parse_error("4 1 0 4 4 4 4"), HasSubstr("fc.dat: token 1 ('4'): the dimension d must be 2 or 3, got 4"));
  EXPECT_THAT(parse_error("two 1"), HasSubstr("token 1 ('two'): expected an integer for the dimension d (2 or 3)"));
  EXPECT_THAT(parse_error("2 -1"), HasSubstr("token 2 ('-1'): expected a nonnegative integer for nc"));
  EXPECT_THAT(parse_error("2 1 7 2 2"), HasSubstr("token 3 ('7'): unsupported storage type 7"));
  EXPECT_THAT(parse_error("3 2 0 3 3"), HasSubstr("token 4 ('3'): W has 3 rows but n = d·nc = 6 (d = 3, nc = 2)"));
  EXPECT_THAT(parse_error("2 1 0 2 3"), HasSubstr("token 5 ('3'): W has 3 columns but n = d·nc = 2"));
  EXPECT_THAT(parse_error("2 1 0 2 2 2 3"), HasSubstr("token 7 ('3'): the repeated column count 3 differs"));
  EXPECT_THAT(parse_error("2 1 0 2 2 2 2 1 abc 0 1 -1 0 0.3"),
              HasSubstr("token 9 ('abc'): expected a number for W(1, 0)"));
  EXPECT_THAT(parse_error("2 1 0 2 2 2 2 1 0 0 1 -1 NaN 0.3"), HasSubstr("token 13 ('NaN'): q[1] is NaN"));
  EXPECT_THAT(parse_error("2 1 0 2 2 2 2 1 0 0 1 -1 0 inf"), HasSubstr("token 14 ('inf'): mu[0] is infinite"));
  EXPECT_THAT(parse_error("2 1 0 2 2 2 2 1 0 0 1 -1 0 -0.5"),
              HasSubstr("fc.dat: mu[0] is -0.5; a friction coefficient must be >= 0"));
  EXPECT_THAT(parse_error("2 1 0 2 2 2 2 1 0 0 1 -1 0"),
              HasSubstr("token 14 (end of input): expected a number for mu[0]"));
  // Sparse block: the index is checked as it arrives.
  EXPECT_THAT(parse_error("2 2 1 4 4  2 2 2  2 4  2 4  3 2  0 2 2  0 0"),
              HasSubstr("index2_data[1]: block row 0 stores block column 0 twice"));
  EXPECT_THAT(parse_error("2 1 1 2 2  1 1 1  2  2  2 1  0 1  0  1 1 2 3 4"),
              HasSubstr("expected block number 0, got 1"));
  EXPECT_THAT(parse_error("2 1 1 2 2  1 1 1  3"), HasSubstr("blocksize0[0] = 3"));
  EXPECT_THAT(parse_error("2 1 1 2 2  2 1 1"), HasSubstr("nbblocks = 2 exceeds the 1 x 1 blocks of the grid"));
}

TEST(SiconosFrictionContact, TruncatedCorpusFileSaysEndOfInput) {
  std::ifstream in(kFcCorpus / "fc3d/Capsules-i101-404.dat");
  std::stringstream whole;
  whole << in.rdbuf();
  const std::string text = whole.str();
  for (const double fraction : {0.001, 0.3, 0.999}) {
    const std::string cut = text.substr(0, static_cast<std::size_t>(static_cast<double>(text.size()) * fraction));
    EXPECT_THAT(parse_error(cut.substr(0, cut.find_last_of(" \t\n"))), HasSubstr("(end of input): expected"));
  }
}

TEST(SiconosFrictionContact, HugeClaimsFailWithAMessageInsteadOfAllocating) {
  // n = 2^31 - 2 claimed in a few dozen bytes: every reader stores only what arrives.
  EXPECT_THAT(parse_error("3 715827882 0 2147483646 2147483646 2147483646 2147483646 1.0"),
              HasSubstr("token 9 (end of input): expected a number for W(1, 0)"));
  // 2^31 - 1 blocks on a 46341 × 46341 grid: the cumulative sizes run out first.
  EXPECT_THAT(parse_error("3 715827882 1 2147483646 2147483646 2147483647 46341 46341 3"),
              HasSubstr("token 10 (end of input): expected a nonnegative integer for blocksize0[1]"));
  // One 1×1 block of an n×n W: q is read before W's n + 1 column pointers are allocated.
  EXPECT_THAT(parse_error("3 715827882 1 2147483646 2147483646 1 2 2 1 2147483646 1 2147483646 2 1 0 1 0 0 5.0"),
              HasSubstr("token 20 (end of input): expected a number for q[0]"));
  EXPECT_THAT(parse_error("3 715827883 0"), HasSubstr("d·nc = 3 x 715827883 is too large"));
}

TEST(SiconosFrictionContact, WritesTheDenseLayoutColumnByColumn) {
  Eigen::Matrix2d W;
  W << 4, -1, 2, 3;
  const FrictionContact problem =
      friction_contact_from_dense(2, W, Eigen::Vector2d(-1, 0.5), Eigen::VectorXd::Constant(1, 0.3));
  EXPECT_EQ(written(problem), "2\n1\n0\n2\n2\n2\t2\n4 2\n-1 3\n-1 0.5\n0.3\n");
}

TEST(SiconosFrictionContact, WritesSparseBlocksInBlockRowOrder) {
  // The SparseBlocksGoWhereTheIndexSays problem, written back: the same index and payload.
  const FrictionContact problem = parse_text(
      "2 2 1 4 4  3 2 2  2 4  2 4  3 3  0 1 3  1 0 1  0 1 2 3 4  1 5 6 7 8  2 9 10 11 12  -1 0 -2 0 0.5 0.25");
  EXPECT_EQ(written(problem, SiconosStorage::SparseBlock),
            "2\n2\n1\n4\n4\n3\n2\n2\n2 4\n2 4\n3\n3\n0 1 3\n1 0 1\n0\n1 2 3 4\n1\n5 6 7 8\n2\n9 10 11 12\n"
            "-1 0 -2 0\n0.5 0.25\n");
  // 3 of the 4 blocks are stored, so Automatic writes it dense.
  EXPECT_EQ(written(problem).substr(0, 6), "2\n2\n0\n");
}

TEST(SiconosFrictionContact, WriteReadRoundTripIsBitwiseExact) {
  for (const char* file : {"fc3d/Rover4396.dat", "fc3d/Capsules-i101-404.dat", "fc2d/FrictionContactProblem00031.dat",
                           "fc2d/fc2d_granularflowonwall_00667_00000.dat", "fc3d/FrictionContact3D_RR_1c.dat"}) {
    SCOPED_TRACE(file);
    const FrictionContact original = read_siconos_friction_contact(kFcCorpus / file);
    for (const SiconosStorage storage :
         {SiconosStorage::Automatic, SiconosStorage::Dense, SiconosStorage::SparseBlock}) {
      expect_identical(parse_text(written(original, storage)), original);
    }
  }
  // Random doubles over the whole exponent range, a random block pattern, both dimensions.
  std::mt19937_64 random(11);
  std::uniform_int_distribution<std::uint64_t> bits;
  for (const int d : {2, 3}) {
    const Eigen::Index nc = 7;
    Eigen::MatrixXd W = Eigen::MatrixXd::Zero(d * nc, d * nc);
    for (Eigen::Index bi = 0; bi < nc; ++bi) {
      for (Eigen::Index bj = 0; bj < nc; ++bj) {
        if (bi != bj && random() % 3 != 0) continue;
        for (int a = 0; a < d; ++a) {
          for (int b = 0; b < d; ++b) {
            double value = 0;
            do value = std::bit_cast<double>(bits(random));
            while (!std::isnormal(value));
            W(bi * d + a, bj * d + b) = value;
          }
        }
      }
    }
    Eigen::VectorXd q(d * nc);
    for (Eigen::Index i = 0; i < q.size(); ++i) q[i] = std::ldexp(static_cast<double>(random() % 2001) - 1000.0, -7);
    const Eigen::VectorXd mu = Eigen::VectorXd::LinSpaced(nc, 0.0, 1.5);
    const FrictionContact original = friction_contact_from_dense(d, W, q, mu);
    for (const SiconosStorage storage :
         {SiconosStorage::Automatic, SiconosStorage::Dense, SiconosStorage::SparseBlock}) {
      expect_identical(parse_text(written(original, storage)), original);
    }
  }
}

TEST(SiconosFrictionContact, RoundTripThroughAFileAndRefusals) {
  const FrictionContact original = read_siconos_friction_contact(kFcCorpus / "fc3d/Rover1039.dat");
  const auto path = std::filesystem::temp_directory_path() / "perp_fc_round_trip.dat";
  write_siconos_friction_contact(path, original);
  expect_identical(read_siconos_friction_contact(path), original);
  std::filesystem::remove(path);

  FrictionContact invalid = original;
  invalid.mu[1] = -1;
  std::ostringstream out;
  EXPECT_THROW(write_siconos_friction_contact(out, invalid), InvalidProblem);
  EXPECT_TRUE(out.str().empty());
  EXPECT_THROW(write_siconos_friction_contact(std::filesystem::path("/nonexistent-dir/fc.dat"), original),
               InvalidProblem);
  try {
    (void)read_siconos_friction_contact(kFcCorpus / "no-such-file.dat");
    ADD_FAILURE() << "no InvalidProblem";
  } catch (const InvalidProblem& e) {
    EXPECT_THAT(e.what(), HasSubstr("no such file"));
  }
}

TEST(SiconosFrictionContact, ZeroWIsWrittenDense) {
  FrictionContact problem;
  problem.dimension = 3;
  problem.W.resize(6, 6);
  problem.q = Eigen::VectorXd::LinSpaced(6, -1, 1);
  problem.mu = Eigen::Vector2d(0.1, 0.2);
  const std::string text = written(problem, SiconosStorage::SparseBlock);
  EXPECT_EQ(text.substr(0, 6), "3\n2\n0\n");
  expect_identical(parse_text(text), problem);
}

TEST(SiconosFrictionContact, CorruptedFilesOnlyEverThrowInvalidProblem) {
  // Random token edits of one file per storage: a wrong count, a huge claim, a non-number, a
  // missing or repeated token. Each must read or throw InvalidProblem (no other exception, no
  // crash, no runaway allocation: every claim is bounded by the tokens that follow).
  std::vector<std::string> texts;
  for (const char* file :
       {"fc3d/FrictionContact3D_1c.dat", "fc3d/FC3D_Example1_SBM.dat", "fc2d/FrictionContactProblem00031.dat"}) {
    std::ifstream in(kFcCorpus / file);
    std::stringstream whole;
    whole << in.rdbuf();
    texts.push_back(whole.str());
  }
  texts.push_back(std::string(kCsparseHeader) +
                  "2\nCSparse\n2-by-2, nzmax: 4 nnz: 4, 1-norm: 6\n col 0 : locations 0 to 1\n 0 : 4\n 1 : 2\n"
                  " col 1 : locations 2 to 3\n 0 : -1\n 1 : 3\n" +
                  kTail);
  const char* replacements[] = {"0",     "1",   "2",   "3", "-1",  "7",  "2147483647", "4294967296", "nan", "inf",
                                "1e400", "abc", "1.5", ":", "col", "to", "CSparse",    "2-by-2,",    ""};
  std::mt19937 random(2026);
  int read = 0;
  int refused = 0;
  for (const std::string& text : texts) {
    std::vector<std::string> words;  // the text split at spaces, keeping the line breaks
    std::string word;
    for (const char c : text) {
      if (c == ' ' || c == '\n' || c == '\t') {
        if (!word.empty()) words.push_back(word);
        word.clear();
        words.push_back(std::string(1, c));
      } else {
        word += c;
      }
    }
    if (!word.empty()) words.push_back(word);
    for (int trial = 0; trial < 400; ++trial) {
      std::vector<std::string> edited = words;
      for (int edit = 0; edit < 1 + trial % 3; ++edit) {
        const std::size_t at = random() % edited.size();
        const unsigned kind = random() % 4;
        if (kind == 0) edited[at] = replacements[random() % std::size(replacements)];
        if (kind == 1) edited.erase(edited.begin() + static_cast<std::ptrdiff_t>(at));
        if (kind == 2) edited.insert(edited.begin() + static_cast<std::ptrdiff_t>(at), edited[at]);
        if (kind == 3) edited.resize(at + 1);
        if (edited.empty()) edited.push_back("2");
      }
      std::string mutated;
      for (const std::string& w : edited) mutated += w;
      try {
        std::istringstream in(mutated);
        (void)parse_siconos_friction_contact(in, "fuzz.dat");
        ++read;
      } catch (const InvalidProblem& e) {
        EXPECT_THAT(e.what(), HasSubstr("fuzz.dat: "));
        ++refused;
      }
      try {
        (void)parse_siconos_problem(mutated, "fuzz.dat");
      } catch (const InvalidProblem&) {
      }
    }
  }
  EXPECT_EQ(read + refused, 1600);
  EXPECT_GT(refused, 800);
}

TEST(SiconosProblem, RecognisesFrictionContactFiles) {
  for (const CorpusFile& expected : kCorpusFiles) {
    SCOPED_TRACE(expected.file);
    const Problem problem = read_siconos_problem(kFcCorpus / expected.file);
    ASSERT_TRUE(std::holds_alternative<FrictionContact>(problem));
    EXPECT_EQ(problem_type(problem), "friction-contact");
    EXPECT_EQ(std::get<FrictionContact>(problem).contacts(), expected.contacts);
  }
  EXPECT_TRUE(std::holds_alternative<FrictionContact>(read_problem_file(kFcCorpus / "fc3d/Rover11035.dat")));
  // An LCP still reads as one, and a header that fits a friction file ("2 1 0 2 2") but is
  // broken keeps every reader's message, the friction-contact one first.
  EXPECT_TRUE(std::holds_alternative<Lcp>(parse_siconos_problem("2 0 2 2 2 2 1 0 0 1 -1 -1")));
  try {
    (void)parse_siconos_problem("2 1 0 2 2 2 2 1 0 0 1 -1 0 -0.25", "bad.dat");
    ADD_FAILURE() << "no InvalidProblem";
  } catch (const InvalidProblem& e) {
    const std::string message = e.what();
    EXPECT_THAT(message, HasSubstr("bad.dat: not a Siconos LCP, MLCP or friction-contact file; read as a "
                                   "friction-contact problem: bad.dat: mu[0] is -0.25"));
    EXPECT_THAT(message, HasSubstr("; read as an LCP: "));
    EXPECT_THAT(message, HasSubstr("; read as an MLCP: "));
    EXPECT_LT(message.find("friction-contact problem:"), message.find("read as an LCP"));
  }
}

}  // namespace
}  // namespace perp::io_siconos_fc_test
