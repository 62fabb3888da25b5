#pragma once
// Private to io/simulation*.cpp (not installed): the tables `perp simulate` writes, each into its
// CSV and/or into a group of simulation.h5 (io/hdf5.hpp), row by row. Both the planar and the 3D
// runs write through these, so that the two formats hold the same values in the same order.

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "perp/contact/moreau_jean.hpp"
#include "perp/core/result.hpp"
#include "perp/io/hdf5.hpp"
#include "perp/io/simulation.hpp"

namespace perp::detail {

/// Appends `value` as `csv_number` writes it: 12 significant digits (printf's %.12g, by
/// std::to_chars), −0 as 0.
void append_csv_number(std::string& out, double value);

/// A CSV being written: fields appended to a buffer written out in blocks of about 1 MiB; numbers
/// as `csv_number` writes them (12 significant digits, −0 as 0), by std::to_chars.
class CsvFile {
 public:
  explicit CsvFile(const std::filesystem::path& path);
  CsvFile(const CsvFile&) = delete;
  CsvFile& operator=(const CsvFile&) = delete;
  ~CsvFile();

  void number(double value);
  void integer(std::int64_t value);
  /// `csv_field(text)`.
  void text(const std::string& value);
  /// A header line, as given (with its line break).
  void raw(const std::string& line);
  void end_row();
  /// Writes what is buffered and closes; throws `InvalidProblem` naming the file when a write failed.
  void close();

 private:
  void separate();
  void spill();
  std::filesystem::path path_;
  std::FILE* file_ = nullptr;
  std::string buffer_;
  bool first_ = true;
  bool failed_ = false;
};

/// The files of one run: the CSVs (when `csv`) and simulation.h5 (when `hdf5`), staged in `files`.
struct SimulationSinks {
  SimulationSinks(StagedFiles& files, const SimulationOutputOptions& options, int dimension, double timestep);
  StagedFiles& files;
  bool csv;
  std::unique_ptr<Hdf5Writer> hdf5;
  /// Writes the buffers out and closes the HDF5 file (the tables close their CSVs).
  void close();
};

/// A column of a table: a number, an integer, a text, or a body's name (text in the CSV, its index
/// in the table's `surfaces` list in simulation.h5).
struct Column {
  enum class Kind { Real, Integer, Text, Surface };
  std::string name;
  Kind kind = Kind::Real;
};

/// The names a contact's sides take in the contacts table: the bodies, "ground", then the planes
/// (simulation.h5 stores a side as its index in `names()`). A side is a body's index, −1 the ground
/// or −2 − p plane p, as in contact::Contact and contact3d::Contact.
class Surfaces {
 public:
  Surfaces(const std::vector<std::string>& bodies, const std::vector<std::string>& planes);
  [[nodiscard]] std::int64_t index(int side) const;
  [[nodiscard]] const std::string& name(int side) const { return names_[static_cast<std::size_t>(index(side))]; }
  [[nodiscard]] const std::vector<std::string>& names() const { return names_; }

 private:
  std::vector<std::string> names_;
  std::size_t bodies_ = 0;
};

/// One table: `NAME.csv` and/or the group `NAME` of simulation.h5 (a dataset a column). Fill a row
/// by calling real/integer/text/surface in the columns' order, then `end_row`.
class OutputTable {
 public:
  OutputTable(SimulationSinks& sinks, const std::string& name, std::vector<Column> columns,
              const std::vector<std::string>& surfaces = {});
  OutputTable& real(double value);
  OutputTable& integer(std::int64_t value);
  OutputTable& text(const std::string& value);
  OutputTable& surface(std::int64_t index, const std::string& name);
  void end_row();
  void close();

 private:
  const Column& next(Column::Kind kind);
  std::vector<Column> columns_;
  std::vector<Hdf5Writer::Id> ids_;
  Hdf5Writer* hdf5_ = nullptr;
  std::unique_ptr<CsvFile> csv_;
  std::size_t column_ = 0;
  std::string name_;
};

/// trajectory.csv (t, then BODY.FIELD for each body and field) and the group `trajectory` of
/// simulation.h5 (t; state of rows bodies × fields; the names of the bodies and of the fields).
class StateTable {
 public:
  StateTable(SimulationSinks& sinks, const std::vector<std::string>& bodies, const std::vector<std::string>& fields);
  /// One row: `values` holds fields.size() numbers per body, body after body.
  void add(double t, const std::vector<double>& values);
  void close();

 private:
  Hdf5Writer* hdf5_ = nullptr;
  Hdf5Writer::Id time_ = 0;
  Hdf5Writer::Id state_ = 0;
  std::unique_ptr<CsvFile> csv_;
};

/// Whether step `step` (its state at its end; 0 the initial state) is recorded: every `every`-th,
/// and the last of `steps`.
[[nodiscard]] inline bool recorded_step(long step, long every, long steps) {
  return step % every == 0 || step == steps;
}

/// What `perp simulate --dump` writes of a step (2D and 3D alike): its kept problem (null: none)
/// and how its solve ended.
struct StepOutcome {
  const contact::StepProblem* problem = nullptr;
  Status status = Status::Solved;
  const std::string* fallback = nullptr;  ///< not null
  FrictionLaw law = FrictionLaw::Coulomb;
  const Result* result = nullptr;  ///< not null
};

/// The outcome of a planar or a 3D step's report (both have these fields).
template <class Report>
StepOutcome outcome_of(const Report& report) {
  return {.problem = report.problem ? &*report.problem : nullptr,
          .status = report.status,
          .fallback = &report.fallback,
          .law = report.law,
          .result = &report.result};
}

/// `SimulationOutputOptions::dump`: writes a step's problem (fclib, `step_dump_name(k)`) where the
/// step did not solve Coulomb's law as posed (not solved, or a fallback) or k is a multiple of
/// `dump_every`, up to `dump_limit` files; counts the steps past it. The constructor checks
/// `dump_every` and `dump_limit` (when `dump` is set).
class StepDumps {
 public:
  explicit StepDumps(const SimulationOutputOptions& options);
  void offer(long k, double t_start, const StepOutcome& step);
  long dumped = 0;
  long left_out = 0;
  long first_left_out = -1;

 private:
  const SimulationOutputOptions& options_;
};

/// Writes a step's problem as an fclib file: the global form where the step solved it so
/// (`problem.global`), else the local one (W formed); the solution where the step solved Coulomb's
/// law as posed, else the step's impulses as a guess, said so in the description.
void write_step_fclib(const std::filesystem::path& path, const StepOutcome& step, long k, double t);

}  // namespace perp::detail
