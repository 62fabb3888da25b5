#include "simulation_output.hpp"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "perp/contact/detection.hpp"
#include "perp/contact3d/detection.hpp"
#include "perp/core/error.hpp"
#include "perp/io/fclib.hpp"
#include "perp/solvers/friction_contact.hpp"

namespace perp::detail {

namespace {
constexpr std::size_t kCsvBlock = std::size_t{1} << 20;
}  // namespace

CsvFile::CsvFile(const std::filesystem::path& path) : path_(path), file_(std::fopen(path.c_str(), "wb")) {
  if (file_ == nullptr) throw InvalidProblem("cannot write '" + path.string() + "': " + std::strerror(errno));
  buffer_.reserve(kCsvBlock + 4096);
}

CsvFile::~CsvFile() {
  if (file_ != nullptr) std::fclose(file_);
}

void CsvFile::separate() {
  if (!first_) buffer_ += ',';
  first_ = false;
}

void CsvFile::spill() {
  if (buffer_.size() < kCsvBlock) return;
  if (std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) failed_ = true;
  buffer_.clear();
}

void append_csv_number(std::string& out, double value) {
  if (value == 0) value = 0;  // −0 as 0
  char text[32];
  const std::to_chars_result written = std::to_chars(text, text + sizeof text, value, std::chars_format::general, 12);
  out.append(text, written.ptr);
}

void CsvFile::number(double value) {
  separate();
  append_csv_number(buffer_, value);
}

void CsvFile::integer(std::int64_t value) {
  separate();
  char text[24];
  const std::to_chars_result written = std::to_chars(text, text + sizeof text, value);
  buffer_.append(text, written.ptr);
}

void CsvFile::text(const std::string& value) {
  separate();
  buffer_ += csv_field(value);
}

void CsvFile::raw(const std::string& line) { buffer_ += line; }

void CsvFile::end_row() {
  buffer_ += '\n';
  first_ = true;
  spill();
}

void CsvFile::close() {
  if (file_ == nullptr) return;
  if (!buffer_.empty() && std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) failed_ = true;
  buffer_.clear();
  if (std::fclose(file_) != 0) failed_ = true;
  file_ = nullptr;
  if (failed_) throw InvalidProblem("error while writing '" + path_.string() + "' (is the disk full?)");
}

SimulationSinks::SimulationSinks(StagedFiles& staged, const SimulationOutputOptions& options, int dimension,
                                 double timestep)
    : files(staged), csv(options.format != SimulationFormat::Hdf5) {
  if (options.every < 1) {
    throw InvalidProblem("every (--every) must be >= 1, got " + std::to_string(options.every));
  }
  if (options.format == SimulationFormat::Csv) return;
  hdf5 = std::make_unique<Hdf5Writer>(files.temporary(kSimulationHdf5File));
  hdf5->attribute("format", std::string("perp simulation"));
  hdf5->attribute("dimension", static_cast<double>(dimension));
  hdf5->attribute("timestep", timestep);
  hdf5->attribute("every", static_cast<double>(options.every));
}

void SimulationSinks::close() {
  if (hdf5) hdf5->close();
}

OutputTable::OutputTable(SimulationSinks& sinks, const std::string& name, std::vector<Column> columns,
                         const std::vector<std::string>& surfaces)
    : columns_(std::move(columns)), hdf5_(sinks.hdf5.get()), name_(name) {
  if (sinks.csv) {
    csv_ = std::make_unique<CsvFile>(sinks.files.temporary(name + ".csv"));
    std::string header;
    for (const Column& c : columns_) header += (header.empty() ? "" : ",") + c.name;
    csv_->raw(header + "\n");
  }
  if (hdf5_ != nullptr) {
    for (const Column& c : columns_) {
      const std::string path = name + "/" + c.name;
      switch (c.kind) {
        case Column::Kind::Real: ids_.push_back(hdf5_->real(path)); break;
        case Column::Kind::Integer:
        case Column::Kind::Surface: ids_.push_back(hdf5_->integer(path)); break;
        case Column::Kind::Text: ids_.push_back(hdf5_->text(path)); break;
      }
    }
    if (!surfaces.empty()) hdf5_->texts(name + "/surfaces", surfaces);
  }
}

const Column& OutputTable::next(Column::Kind kind) {
  if (column_ >= columns_.size() || columns_[column_].kind != kind) {
    throw std::logic_error("table " + name_ + ": column " + std::to_string(column_) + " filled out of order");
  }
  return columns_[column_++];
}

OutputTable& OutputTable::real(double value) {
  const std::size_t at = column_;
  next(Column::Kind::Real);
  if (csv_) csv_->number(value);
  if (hdf5_ != nullptr) hdf5_->add(ids_[at], value);
  return *this;
}

OutputTable& OutputTable::integer(std::int64_t value) {
  const std::size_t at = column_;
  next(Column::Kind::Integer);
  if (csv_) csv_->integer(value);
  if (hdf5_ != nullptr) hdf5_->add(ids_[at], value);
  return *this;
}

OutputTable& OutputTable::text(const std::string& value) {
  const std::size_t at = column_;
  next(Column::Kind::Text);
  if (csv_) csv_->text(value);
  if (hdf5_ != nullptr) hdf5_->add(ids_[at], value);
  return *this;
}

OutputTable& OutputTable::surface(std::int64_t index, const std::string& name) {
  const std::size_t at = column_;
  next(Column::Kind::Surface);
  if (csv_) csv_->text(name);
  if (hdf5_ != nullptr) hdf5_->add(ids_[at], index);
  return *this;
}

void OutputTable::end_row() {
  if (column_ != columns_.size()) {
    throw std::logic_error("table " + name_ + ": a row of " + std::to_string(column_) + " of " +
                           std::to_string(columns_.size()) + " columns");
  }
  column_ = 0;
  if (csv_) csv_->end_row();
}

void OutputTable::close() {
  if (csv_) csv_->close();
}

StateTable::StateTable(SimulationSinks& sinks, const std::vector<std::string>& bodies,
                       const std::vector<std::string>& fields)
    : hdf5_(sinks.hdf5.get()) {
  if (sinks.csv) {
    csv_ = std::make_unique<CsvFile>(sinks.files.temporary("trajectory.csv"));
    std::string header = "t";
    for (const std::string& body : bodies) {
      for (const std::string& field : fields) header += "," + csv_field(body + "." + field);
    }
    csv_->raw(header + "\n");
  }
  if (hdf5_ != nullptr) {
    time_ = hdf5_->real("trajectory/t");
    state_ = hdf5_->real("trajectory/state", {bodies.size(), fields.size()});
    hdf5_->texts("trajectory/bodies", bodies);
    hdf5_->texts("trajectory/fields", fields);
  }
}

void StateTable::add(double t, const std::vector<double>& values) {
  if (csv_) {
    csv_->number(t);
    for (const double value : values) csv_->number(value);
    csv_->end_row();
  }
  if (hdf5_ != nullptr) {
    hdf5_->add(time_, t);
    hdf5_->add(state_, values.data(), values.size());
  }
}

void StateTable::close() {
  if (csv_) csv_->close();
}

// Both layers number a contact's sides alike: the ground −1, plane p −2 − p.
static_assert(contact::kGround == -1 && contact3d::kGround == -1);
static_assert(contact::plane_of(-2) == 0 && contact3d::plane_of(-3) == 1);

Surfaces::Surfaces(const std::vector<std::string>& bodies, const std::vector<std::string>& planes)
    : names_(bodies), bodies_(bodies.size()) {
  names_.emplace_back("ground");
  names_.insert(names_.end(), planes.begin(), planes.end());
}

std::int64_t Surfaces::index(int side) const {
  if (side >= 0) return side;
  if (side == contact::kGround) return static_cast<std::int64_t>(bodies_);
  return static_cast<std::int64_t>(bodies_ + 1 + contact::plane_of(side));
}

StepDumps::StepDumps(const SimulationOutputOptions& options) : options_(options) {
  if (options.dump == nullptr) return;
  if (options.dump_every < 0) {
    throw InvalidProblem("dump_every (--dump-every) must be >= 0, got " + std::to_string(options.dump_every));
  }
  if (options.dump_limit < 1) {
    throw InvalidProblem("dump_limit (--dump-max) must be >= 1, got " + std::to_string(options.dump_limit));
  }
}

void StepDumps::offer(long k, double t_start, const StepOutcome& step) {
  if (options_.dump == nullptr || step.problem == nullptr) return;
  const bool failed = step.status != Status::Solved || !step.fallback->empty();
  const bool periodic = options_.dump_every > 0 && k % options_.dump_every == 0;
  if (!failed && !periodic) return;
  if (dumped < options_.dump_limit) {
    write_step_fclib(options_.dump->temporary(step_dump_name(k)), step, k, t_start);
    ++dumped;
  } else {
    if (first_left_out < 0) first_left_out = k;
    ++left_out;
  }
}

void write_step_fclib(const std::filesystem::path& path, const StepOutcome& step, long k, double t) {
  if (step.problem == nullptr) {
    throw InvalidProblem("step " + std::to_string(k) +
                         " kept no frictional contact problem (keep_problem off, no active contact, or a model "
                         "that solves an LCP or the convex law)");
  }
  const contact::StepProblem& kept = *step.problem;
  const Result& result = *step.result;
  // Solved Coulomb's law as posed: the impulses are a solution; otherwise the step's answer, a guess.
  const bool solution = step.status == Status::Solved && step.fallback->empty() && step.law == FrictionLaw::Coulomb;
  char title[96];
  std::snprintf(title, sizeof title, "perp simulate step %ld (t = %.9g s)", k, t);
  std::string description = "status " + to_string(step.status) + ", method " + to_string(result.method) +
                            ", relative error " + number_text(result.residual) + " (" + law_name(step.law) + " law)";
  if (!step.fallback->empty()) description += "; fallback: " + *step.fallback;
  description += kept.global ? "; the global form in the velocity change v - v_free of the moving bodies (q = 0)"
                             : "; the local form W = H M^-1 H^T";
  description += solution ? "; the solution stored is the step's impulses"
                          : "; the guess stored is the step's returned impulses (not a solution)";
  FclibSolution answer;
  answer.r = result.z;
  std::vector<FclibSolution> guesses;
  if (kept.global) {
    const GlobalFrictionContact problem = contact::global_problem(kept);
    answer.v = global_velocity(problem, answer.r);
    answer.u = problem.local_velocity(answer.v);
    if (!solution) guesses.push_back(std::move(answer));
    write_fclib(path, problem, solution ? &answer : nullptr, title, guesses, description);
  } else {
    const FrictionContact problem = kept.local.assembled();
    answer.u = problem.velocity(answer.r);
    if (!solution) guesses.push_back(std::move(answer));
    write_fclib(path, problem, solution ? &answer : nullptr, title, guesses, description);
  }
}

}  // namespace perp::detail
