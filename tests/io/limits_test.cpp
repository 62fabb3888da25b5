// Issue 15: readers bound what they allocate by the bytes the input holds, and refuse JSON
// nested deeper than detail::kMaxJsonDepth before any recursive walk could overflow the stack.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "perp/core/error.hpp"
#include "perp/io/json.hpp"
#include "perp/io/scene.hpp"
#include "perp/io/siconos.hpp"

namespace perp::io_limits_test {
namespace {

using ::testing::HasSubstr;

std::string nested(int depth) {
  return std::string(static_cast<std::size_t>(depth), '[') + std::string(static_cast<std::size_t>(depth), ']');
}

// The message of the InvalidProblem `f` throws; fails the test when it throws nothing.
template <class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const InvalidProblem& error) {
    return error.what();
  }
  ADD_FAILURE() << "no InvalidProblem thrown";
  return "";
}

TEST(JsonDepth, DeepProblemsAndScenesAreRefusedNamingTheLimit) {
  const std::string deep = nested(87000);
  EXPECT_THAT(message_of([&] { (void)parse_json_problem("{\"M\": " + deep + ", \"q\": [1]}", "p.json"); }),
              HasSubstr("p.json: JSON nested deeper than 64 levels"));
  EXPECT_THAT(message_of([&] { (void)parse_json_problem(deep, "p.json"); }), HasSubstr("deeper than 64 levels"));
  EXPECT_THAT(message_of([&] { (void)parse_scene_json("{\"bodies\": " + deep + "}", "s.json"); }),
              HasSubstr("s.json: JSON nested deeper than 64 levels"));
  // An unclosed deep document is refused the same way (not a stack overflow while reporting).
  EXPECT_THAT(message_of([&] { (void)parse_json_problem(std::string(100000, '['), "p.json"); }),
              HasSubstr("deeper than 64 levels"));
}

TEST(JsonDepth, SixtyFourLevelsAreStillParsed) {
  // 64 levels (depths 0..63) parse; the document is then refused for what it holds, not its depth.
  const std::string at_limit = message_of([&] { (void)parse_json_problem(nested(64), "p.json"); });
  EXPECT_THAT(at_limit, ::testing::Not(HasSubstr("nested deeper")));
  EXPECT_THAT(message_of([&] { (void)parse_json_problem(nested(65), "p.json"); }), HasSubstr("nested deeper"));
  // Problems need 3 levels, and parse as before.
  const Problem p = parse_json_problem(R"({"M": [[2, 1], [1, 2]], "q": [-1, -1]})");
  EXPECT_EQ(std::get<Lcp>(p).size(), 2);
}

Lcp lcp_from(const std::string& text) {
  std::istringstream in(text);
  return parse_siconos_lcp(in, "x.dat");
}

TEST(SiconosClaims, DenseSizeIsCappedByTheBytesPresent) {
  // n = 2000 claims 4 000 000 entries in a 27-byte file: refused before anything is sized.
  EXPECT_THAT(message_of([] { (void)lcp_from("2000\n0\n2000\n2000\n2000 2000\n"); }),
              HasSubstr("M's 2000x2000 entries need 4000000 more numbers, but the input holds only"));
  // A small shortfall (nothing is sized ahead below 65536 values) names the missing token.
  EXPECT_THAT(message_of([] { (void)lcp_from("1\n0\n1\n1\n1 1\n2\n"); }),
              HasSubstr("token 8 (end of input): expected a number for q[0]"));
  // Exactly enough bytes still parse: "1 1\n2\n-1" holds M = [2], q = [−1].
  const Lcp ok = lcp_from("1\n0\n1\n1\n1 1\n2\n-1");
  EXPECT_EQ(ok.M(0, 0), 2);
  EXPECT_EQ(ok.q[0], -1);
}

TEST(SiconosClaims, SparseBlockCountsAreCappedBeforeAllocating) {
  // 2^31 − 1 stored blocks in a 49-byte file used to allocate 16 GiB of index arrays.
  const std::string many_blocks = "2\n1\n2\n2\n2147483647 1 1\n2\n2\n2 2\n0 1\n0\n1 0 0 1\n1 1\n";
  EXPECT_THAT(message_of([&] { (void)lcp_from(many_blocks); }),
              HasSubstr("the 2147483647 stored blocks (nbblocks) need"));
  // Block-row and block-column counts likewise.
  EXPECT_THAT(message_of([] { (void)lcp_from("4\n1\n4\n4\n1 2000000000 1\n"); }), HasSubstr("the block sizes"));
  // A sparse file may claim a large n with one small block, but not a dense M over 2^28 entries.
  std::string big = "20000\n1\n20000\n20000\n1 1 1\n20000\n20000\n2 1\n0 1\n0\n1.0\n";
  for (int i = 0; i < 20000; ++i) big += "1 ";
  EXPECT_THAT(message_of([&] { (void)lcp_from(big); }),
              HasSubstr("M is 20000x20000, too large to hold as a dense matrix"));
  // Under that cap, at most 4096 dense entries per byte of file: n = 2000 (4e6 entries) from 54
  // bytes is refused, the same M from a file of 1000+ bytes (a long remark after q) is read.
  // One 1×1 block at (0, 0) of a 2000×2000 M (block rows and columns of sizes 1 and 1999).
  const std::string one_block = "2000\n1\n2000\n2000\n1 2 2\n1 2000\n1 2000\n2 1\n0 1\n0\n0\n1.0\n";
  EXPECT_THAT(message_of([&] { (void)lcp_from(one_block + "1"); }),
              HasSubstr("M is 2000x2000 but the file holds only 54 bytes"));
  std::string q;
  for (int i = 0; i < 2000; ++i) q += "1 ";
  const Lcp read = lcp_from(one_block + q);
  EXPECT_EQ(read.M(0, 0), 1.0);
  EXPECT_EQ(read.M.cwiseAbs().sum(), 1.0);
}

TEST(SiconosClaims, MlcpBlocksAreCappedByTheBytesPresent) {
  std::istringstream in("0 1 3000 3000\n");  // only the ABCD section, A alone 3000×3000
  EXPECT_THAT(message_of([&] { (void)parse_siconos_mlcp(in, "m.dat"); }),
              HasSubstr("A's 3000x3000 entries need 9000000 more numbers"));
}

TEST(SiconosClaims, MlcpWithoutEqualitiesRoundTrips) {
  // Found by fuzz_siconos_mlcp: n = 0 makes C 0×2 and D 2×0, whose rows have no storage; writing
  // them offset a null pointer (UBSan, `make asan-test`).
  std::istringstream in("0 1 0 2\n3 0 1 1\n3 3\n");
  const Mlcp p = parse_siconos_mlcp(in, "m.dat");
  ASSERT_EQ(p.D.rows(), 2);
  ASSERT_EQ(p.D.cols(), 0);
  std::ostringstream out;
  write_siconos_mlcp(out, p);
  std::istringstream back(out.str());
  const Mlcp again = parse_siconos_mlcp(back, "again.dat");
  EXPECT_EQ(again.B, p.B);
  EXPECT_EQ(again.b, p.b);
}

}  // namespace
}  // namespace perp::io_limits_test
