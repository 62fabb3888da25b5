#include "perp/io/hdf5.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "perp/core/error.hpp"

namespace perp::io_hdf5_test {
namespace {

using ::testing::HasSubstr;

std::filesystem::path scratch_file(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("perp_hdf5_test_" + name + "_" + std::to_string(::getpid()) + ".h5");
}

// More rows than a chunk holds (64 KiB of values: 8192 single numbers, 4096 rows of 2), so that
// the buffered rows are written in several extensions; every value and shape comes back.
TEST(Hdf5, AppendedRowsReadBackWithTheirShapes) {
  const std::filesystem::path path = scratch_file("rows");
  constexpr std::size_t kRows = 10'000;
  {
    Hdf5Writer out(path);
    const Hdf5Writer::Id t = out.real("table/t");
    const Hdf5Writer::Id pair = out.real("table/pair", {1, 2});
    const Hdf5Writer::Id k = out.integer("table/k");
    const Hdf5Writer::Id name = out.text("table/name");
    out.texts("names", {"a", "b,c", ""});
    // Rows of no value (the state of a run without bodies): the row count alone.
    const Hdf5Writer::Id none = out.real("none", {0, 6});
    for (int i = 0; i < 3; ++i) out.add(none, nullptr, 0);
    out.attribute("timestep", 0.25);
    out.attribute("format", std::string("test"));
    for (std::size_t i = 0; i < kRows; ++i) {
      out.add(t, 0.5 * static_cast<double>(i));
      const double row[2] = {static_cast<double>(i), -static_cast<double>(i) / 3};
      out.add(pair, row, 2);
      out.add(k, static_cast<std::int64_t>(i) - 7);
      out.add(name, i % 2 == 0 ? std::string("even") : std::string("odd"));
    }
    out.close();
  }
  const Hdf5Contents read = read_hdf5(path);
  ASSERT_EQ(read.datasets.size(), 6u);
  EXPECT_EQ(read.datasets.at("none").shape, (std::vector<std::size_t>{3, 0, 6}));
  const Hdf5Dataset& t = read.datasets.at("table/t");
  ASSERT_EQ(t.shape, (std::vector<std::size_t>{kRows}));
  EXPECT_EQ(t.reals[9999], 4999.5);
  const Hdf5Dataset& pair = read.datasets.at("table/pair");
  ASSERT_EQ(pair.shape, (std::vector<std::size_t>{kRows, 1, 2}));
  EXPECT_EQ(pair.reals[2 * 4097], 4097.0);
  EXPECT_EQ(pair.reals[2 * 4097 + 1], -4097.0 / 3);
  const Hdf5Dataset& k = read.datasets.at("table/k");
  EXPECT_EQ(k.kind, Hdf5Dataset::Kind::Integer);
  EXPECT_EQ(k.integers[0], -7);
  EXPECT_EQ(k.integers[8200], 8193);
  const Hdf5Dataset& name = read.datasets.at("table/name");
  EXPECT_EQ(name.kind, Hdf5Dataset::Kind::Text);
  EXPECT_EQ(name.texts[8191], "odd");
  EXPECT_EQ(read.datasets.at("names").texts, (std::vector<std::string>{"a", "b,c", ""}));
  EXPECT_EQ(read.numbers.at("timestep"), 0.25);
  EXPECT_EQ(read.texts.at("format"), "test");
  std::filesystem::remove(path);
}

TEST(Hdf5, ARowOfTheWrongSizeAndAFileThatIsNotHdf5AreRefused) {
  const std::filesystem::path path = scratch_file("bad");
  {
    Hdf5Writer out(path);
    const Hdf5Writer::Id row = out.real("row", {3});
    const double values[2] = {1, 2};
    try {
      out.add(row, values, 2);
      ADD_FAILURE() << "a row of 2 for 3 was taken";
    } catch (const InvalidProblem& e) {
      EXPECT_THAT(e.what(), HasSubstr("a row of 2 numbers for the dataset 'row', whose rows hold 3"));
    }
  }
  std::ofstream(path) << "t,x\n0,1\n";
  try {
    (void)read_hdf5(path);
    ADD_FAILURE() << "a CSV was read as HDF5";
  } catch (const InvalidProblem& e) {
    EXPECT_THAT(e.what(), HasSubstr(path.string()));
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace perp::io_hdf5_test
