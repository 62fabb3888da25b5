#pragma once
/// \file
/// HDF5 files of appendable datasets (Debian's libhdf5, the C library): what `perp simulate
/// --format hdf5` writes as simulation.h5 (io/simulation.hpp), and a reader of every dataset of such
/// a file (the Python module's `perp.read_simulation`). The HDF5 headers stay inside the library.
///
/// A dataset is a series of rows: its first dimension grows as rows are added, the others are fixed
/// when it is declared (a row of a per-body state is bodies × 6 numbers). Rows are buffered and
/// written a chunk at a time; numbers as 64-bit floats or integers, text as variable-length UTF-8
/// strings. Groups in a name ("steps/status") are created as needed.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace perp {

/// One dataset read back: its shape and its values in row-major order, in the vector of its kind.
struct Hdf5Dataset {
  enum class Kind { Real, Integer, Text };
  Kind kind = Kind::Real;
  std::vector<std::size_t> shape;
  std::vector<double> reals;
  std::vector<std::int64_t> integers;
  std::vector<std::string> texts;
};

class Hdf5Writer {
 public:
  /// Handle of a declared dataset.
  using Id = std::size_t;

  /// Creates (truncates) the file; throws `InvalidProblem` naming it when that fails.
  explicit Hdf5Writer(const std::filesystem::path& path);
  Hdf5Writer(const Hdf5Writer&) = delete;
  Hdf5Writer& operator=(const Hdf5Writer&) = delete;
  ~Hdf5Writer();

  /// Declares an empty dataset `name` of rows of `row_shape` (empty: one value a row).
  Id real(const std::string& name, std::vector<std::size_t> row_shape = {});
  Id integer(const std::string& name);
  Id text(const std::string& name);

  /// Appends one row (of the declared row size: `count` must equal it) or one value.
  void add(Id id, const double* values, std::size_t count);
  void add(Id id, double value) { add(id, &value, 1); }
  void add(Id id, std::int64_t value);
  void add(Id id, const std::string& value);

  /// Writes a whole dataset of text at once (a list of names).
  void texts(const std::string& name, const std::vector<std::string>& values);
  /// An attribute of the file's root group: a number or a text.
  void attribute(const std::string& name, double value);
  void attribute(const std::string& name, const std::string& value);

  /// Writes what is buffered and closes the file; throws `InvalidProblem` when a write failed.
  /// The destructor closes without throwing.
  void close();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Every dataset of the HDF5 file at `path`, by its full name without the leading slash
/// ("steps/status"), and the root group's attributes, numbers and texts apart. Throws
/// `InvalidProblem` naming the file when it cannot be read or holds a type other than 64-bit
/// floats, integers of up to 64 bits and strings.
struct Hdf5Contents {
  std::map<std::string, Hdf5Dataset> datasets;
  std::map<std::string, double> numbers;
  std::map<std::string, std::string> texts;
};
[[nodiscard]] Hdf5Contents read_hdf5(const std::filesystem::path& path);

}  // namespace perp
