#include "perp/io/hdf5.hpp"

#include <hdf5.h>

#include <algorithm>
#include <numeric>
#include <utility>

#include "perp/core/error.hpp"

namespace perp {
namespace {

/// HDF5's error stack printing off while it lives (the failures are reported as `InvalidProblem`).
class QuietErrors {
 public:
  QuietErrors() {
    H5Eget_auto2(H5E_DEFAULT, &function_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietErrors() { H5Eset_auto2(H5E_DEFAULT, function_, data_); }
  QuietErrors(const QuietErrors&) = delete;
  QuietErrors& operator=(const QuietErrors&) = delete;

 private:
  H5E_auto2_t function_ = nullptr;
  void* data_ = nullptr;
};

/// An HDF5 identifier closed by `close` (H5Dclose, H5Sclose, …) when it goes.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& other) noexcept : id_(std::exchange(other.id_, H5I_INVALID_HID)), close_(other.close_) {}
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  [[nodiscard]] hid_t get() const { return id_; }
  [[nodiscard]] bool valid() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

hid_t string_type() {
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, H5T_VARIABLE);
  H5Tset_cset(type, H5T_CSET_UTF8);
  return type;
}

// Rows a chunk holds: about 64 KiB of values, at least one row.
hsize_t chunk_rows(std::size_t row_size) {
  return std::max<hsize_t>(1, (64 * 1024 / 8) / std::max<std::size_t>(row_size, 1));
}

}  // namespace

struct Hdf5Writer::Impl {
  struct Series {
    std::string name;
    Hdf5Dataset::Kind kind;
    std::vector<hsize_t> row_shape;
    std::size_t row_size = 1;
    hsize_t rows_written = 0;
    hsize_t chunk = 1;
    hid_t dataset = H5I_INVALID_HID;
    std::vector<double> reals;
    std::vector<std::int64_t> integers;
    std::vector<std::string> texts;
    std::size_t pending = 0;  // rows buffered (a row may hold no value: a run of no bodies)
    [[nodiscard]] std::size_t buffered_rows() const { return pending; }
  };

  std::filesystem::path path;
  hid_t file = H5I_INVALID_HID;
  hid_t text_type = H5I_INVALID_HID;
  std::vector<Series> series;
  bool failed = false;

  [[noreturn]] void refuse(const std::string& why) const {
    throw InvalidProblem("HDF5 file '" + path.string() + "': " + why);
  }

  // The parents of `name` as groups, created when missing.
  void make_groups(const std::string& name) {
    for (std::size_t slash = name.find('/'); slash != std::string::npos; slash = name.find('/', slash + 1)) {
      const std::string group = name.substr(0, slash);
      if (H5Lexists(file, group.c_str(), H5P_DEFAULT) > 0) continue;
      const Handle created(H5Gcreate2(file, group.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
      if (!created.valid()) refuse("cannot create the group '" + group + "'");
    }
  }

  Id declare(const std::string& name, Hdf5Dataset::Kind kind, std::vector<std::size_t> row_shape) {
    const QuietErrors quiet;
    make_groups(name);
    Series s{.name = name, .kind = kind};
    for (const std::size_t d : row_shape) s.row_shape.push_back(d);
    s.row_size = std::accumulate(row_shape.begin(), row_shape.end(), std::size_t{1}, std::multiplies<>());
    s.chunk = chunk_rows(s.row_size);
    std::vector<hsize_t> dims{0};
    std::vector<hsize_t> max_dims{H5S_UNLIMITED};
    std::vector<hsize_t> chunk{s.chunk};
    for (const hsize_t d : s.row_shape) {
      dims.push_back(d);
      max_dims.push_back(d > 0 ? d : H5S_UNLIMITED);  // a chunk's extent is >= 1, within the maximum
      chunk.push_back(std::max<hsize_t>(d, 1));
    }
    const Handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), max_dims.data()), H5Sclose);
    const Handle properties(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    if (!space.valid() || !properties.valid() ||
        H5Pset_chunk(properties.get(), static_cast<int>(chunk.size()), chunk.data()) < 0) {
      refuse("cannot declare the dataset '" + name + "'");
    }
    const hid_t type = kind == Hdf5Dataset::Kind::Real      ? H5T_IEEE_F64LE
                       : kind == Hdf5Dataset::Kind::Integer ? H5T_STD_I64LE
                                                            : text_type;
    s.dataset = H5Dcreate2(file, name.c_str(), type, space.get(), H5P_DEFAULT, properties.get(), H5P_DEFAULT);
    if (s.dataset < 0) refuse("cannot create the dataset '" + name + "'");
    series.push_back(std::move(s));
    return series.size() - 1;
  }

  Series& at(Id id) {
    if (id >= series.size()) refuse("no dataset number " + std::to_string(id));
    return series[id];
  }

  void maybe_flush(Series& s) {
    ++s.pending;
    if (s.pending >= s.chunk) flush(s);
  }

  void flush(Series& s) {
    const std::size_t rows = s.buffered_rows();
    if (rows == 0) return;
    const QuietErrors quiet;
    std::vector<hsize_t> dims{s.rows_written + rows};
    std::vector<hsize_t> start{s.rows_written};
    std::vector<hsize_t> count{rows};
    for (const hsize_t d : s.row_shape) {
      dims.push_back(d);
      start.push_back(0);
      count.push_back(d);
    }
    if (H5Dset_extent(s.dataset, dims.data()) < 0) refuse("cannot extend the dataset '" + s.name + "'");
    const Handle file_space(H5Dget_space(s.dataset), H5Sclose);
    const Handle memory_space(H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr), H5Sclose);
    if (!file_space.valid() || !memory_space.valid() ||
        H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr) < 0) {
      refuse("cannot select rows of the dataset '" + s.name + "'");
    }
    herr_t status = -1;
    switch (s.kind) {
      case Hdf5Dataset::Kind::Real:
        // Rows of no value (no bodies): the extent alone.
        status = s.reals.empty() ? 0
                                 : H5Dwrite(s.dataset, H5T_NATIVE_DOUBLE, memory_space.get(), file_space.get(),
                                            H5P_DEFAULT, s.reals.data());
        s.reals.clear();
        break;
      case Hdf5Dataset::Kind::Integer:
        status = H5Dwrite(s.dataset, H5T_NATIVE_INT64, memory_space.get(), file_space.get(), H5P_DEFAULT,
                          s.integers.data());
        s.integers.clear();
        break;
      case Hdf5Dataset::Kind::Text: {
        std::vector<const char*> pointers;
        pointers.reserve(s.texts.size());
        for (const std::string& text : s.texts) pointers.push_back(text.c_str());
        status = H5Dwrite(s.dataset, text_type, memory_space.get(), file_space.get(), H5P_DEFAULT, pointers.data());
        s.texts.clear();
        break;
      }
    }
    if (status < 0) refuse("cannot write rows of the dataset '" + s.name + "' (is the disk full?)");
    s.rows_written += rows;
    s.pending = 0;
  }

  // Closes everything; returns false when a step failed.
  bool close_all() noexcept {
    bool ok = true;
    for (Series& s : series) {
      if (s.dataset >= 0 && H5Dclose(s.dataset) < 0) ok = false;
      s.dataset = H5I_INVALID_HID;
    }
    if (text_type >= 0) H5Tclose(text_type);
    text_type = H5I_INVALID_HID;
    if (file >= 0 && H5Fclose(file) < 0) ok = false;
    file = H5I_INVALID_HID;
    return ok;
  }
};

Hdf5Writer::Hdf5Writer(const std::filesystem::path& path) : impl_(std::make_unique<Impl>()) {
  const QuietErrors quiet;
  impl_->path = path;
  impl_->file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (impl_->file < 0) impl_->refuse("cannot create it");
  impl_->text_type = string_type();
}

Hdf5Writer::~Hdf5Writer() {
  const QuietErrors quiet;
  impl_->close_all();
}

Hdf5Writer::Id Hdf5Writer::real(const std::string& name, std::vector<std::size_t> row_shape) {
  return impl_->declare(name, Hdf5Dataset::Kind::Real, std::move(row_shape));
}
Hdf5Writer::Id Hdf5Writer::integer(const std::string& name) {
  return impl_->declare(name, Hdf5Dataset::Kind::Integer, {});
}
Hdf5Writer::Id Hdf5Writer::text(const std::string& name) { return impl_->declare(name, Hdf5Dataset::Kind::Text, {}); }

void Hdf5Writer::add(Id id, const double* values, std::size_t count) {
  Impl::Series& s = impl_->at(id);
  if (s.kind != Hdf5Dataset::Kind::Real || count != s.row_size) {
    impl_->refuse("a row of " + std::to_string(count) + " numbers for the dataset '" + s.name + "', whose rows hold " +
                  std::to_string(s.row_size));
  }
  s.reals.insert(s.reals.end(), values, values + count);
  impl_->maybe_flush(s);
}

void Hdf5Writer::add(Id id, std::int64_t value) {
  Impl::Series& s = impl_->at(id);
  if (s.kind != Hdf5Dataset::Kind::Integer) impl_->refuse("an integer for the dataset '" + s.name + "'");
  s.integers.push_back(value);
  impl_->maybe_flush(s);
}

void Hdf5Writer::add(Id id, const std::string& value) {
  Impl::Series& s = impl_->at(id);
  if (s.kind != Hdf5Dataset::Kind::Text) impl_->refuse("a text for the dataset '" + s.name + "'");
  s.texts.push_back(value);
  impl_->maybe_flush(s);
}

void Hdf5Writer::texts(const std::string& name, const std::vector<std::string>& values) {
  const Id id = text(name);
  for (const std::string& value : values) add(id, value);
  impl_->flush(impl_->at(id));
}

void Hdf5Writer::attribute(const std::string& name, double value) {
  const QuietErrors quiet;
  const Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  const Handle attribute(H5Acreate2(impl_->file, name.c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                         H5Aclose);
  if (!attribute.valid() || H5Awrite(attribute.get(), H5T_NATIVE_DOUBLE, &value) < 0) {
    impl_->refuse("cannot write the attribute '" + name + "'");
  }
}

void Hdf5Writer::attribute(const std::string& name, const std::string& value) {
  const QuietErrors quiet;
  const Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  const Handle attribute(
      H5Acreate2(impl_->file, name.c_str(), impl_->text_type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  const char* text = value.c_str();
  if (!attribute.valid() || H5Awrite(attribute.get(), impl_->text_type, static_cast<const void*>(&text)) < 0) {
    impl_->refuse("cannot write the attribute '" + name + "'");
  }
}

void Hdf5Writer::close() {
  for (Impl::Series& s : impl_->series) impl_->flush(s);
  const QuietErrors quiet;
  if (!impl_->close_all()) impl_->refuse("closing it failed (is the disk full?)");
}

namespace {

struct Visit {
  const std::filesystem::path* path;
  Hdf5Contents* contents;
  std::string error;
};

void read_dataset(hid_t file, const std::string& name, Visit& visit) {
  const Handle dataset(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose);
  const Handle type(H5Dget_type(dataset.get()), H5Tclose);
  const Handle space(H5Dget_space(dataset.get()), H5Sclose);
  if (!dataset.valid() || !type.valid() || !space.valid()) {
    visit.error = "cannot open the dataset '" + name + "'";
    return;
  }
  const int rank = H5Sget_simple_extent_ndims(space.get());
  std::vector<hsize_t> dims(static_cast<std::size_t>(std::max(rank, 0)));
  if (rank < 0 || H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr) < 0) {
    visit.error = "cannot read the shape of '" + name + "'";
    return;
  }
  Hdf5Dataset out;
  std::size_t size = 1;
  for (const hsize_t d : dims) {
    out.shape.push_back(static_cast<std::size_t>(d));
    size *= static_cast<std::size_t>(d);
  }
  const H5T_class_t type_class = H5Tget_class(type.get());
  herr_t status = 0;
  if (type_class == H5T_FLOAT && H5Tget_size(type.get()) <= 8) {
    out.kind = Hdf5Dataset::Kind::Real;
    out.reals.resize(size);
    if (size > 0) status = H5Dread(dataset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.reals.data());
  } else if (type_class == H5T_INTEGER && H5Tget_size(type.get()) <= 8) {
    out.kind = Hdf5Dataset::Kind::Integer;
    out.integers.resize(size);
    if (size > 0) {
      status = H5Dread(dataset.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.integers.data());
    }
  } else if (type_class == H5T_STRING && H5Tis_variable_str(type.get()) > 0) {
    out.kind = Hdf5Dataset::Kind::Text;
    std::vector<char*> pointers(size, nullptr);
    const Handle memory_type(string_type(), H5Tclose);
    if (size > 0) {
      status = H5Dread(dataset.get(), memory_type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, pointers.data());
    }
    if (status >= 0) {
      out.texts.reserve(size);
      for (char* p : pointers) out.texts.emplace_back(p != nullptr ? p : "");
      if (size > 0) H5Dvlen_reclaim(memory_type.get(), space.get(), H5P_DEFAULT, pointers.data());
    }
  } else {
    visit.error = "the dataset '" + name + "' holds a type other than 64-bit numbers and variable-length strings";
    return;
  }
  if (status < 0) {
    visit.error = "cannot read the dataset '" + name + "'";
    return;
  }
  visit.contents->datasets.emplace(name, std::move(out));
}

// Every link below the root: the datasets are read (the groups only hold them).
herr_t visit_link(hid_t file, const char* name, const H5L_info_t*, void* data) {
  auto& visit = *static_cast<Visit*>(data);
  const Handle object(H5Oopen(file, name, H5P_DEFAULT), H5Oclose);
  if (object.valid() && H5Iget_type(object.get()) == H5I_DATASET) read_dataset(file, name, visit);
  return visit.error.empty() ? 0 : -1;
}

herr_t visit_attribute(hid_t location, const char* name, const H5A_info_t*, void* data) {
  auto& visit = *static_cast<Visit*>(data);
  const Handle attribute(H5Aopen(location, name, H5P_DEFAULT), H5Aclose);
  const Handle type(H5Aget_type(attribute.get()), H5Tclose);
  if (!attribute.valid() || !type.valid()) {
    visit.error = "cannot open the attribute '" + std::string(name) + "'";
    return -1;
  }
  const H5T_class_t type_class = H5Tget_class(type.get());
  if (type_class == H5T_FLOAT || type_class == H5T_INTEGER) {
    double value = 0;
    if (H5Aread(attribute.get(), H5T_NATIVE_DOUBLE, &value) >= 0) visit.contents->numbers[name] = value;
  } else if (type_class == H5T_STRING && H5Tis_variable_str(type.get()) > 0) {
    const Handle memory_type(string_type(), H5Tclose);
    char* text = nullptr;
    if (H5Aread(attribute.get(), memory_type.get(), static_cast<void*>(&text)) >= 0 && text != nullptr) {
      visit.contents->texts[name] = text;
      H5free_memory(text);
    }
  }
  return 0;
}

}  // namespace

Hdf5Contents read_hdf5(const std::filesystem::path& path) {
  const QuietErrors quiet;
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    throw InvalidProblem("HDF5 file '" + path.string() + "': no such file");
  }
  const Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!file.valid()) throw InvalidProblem("HDF5 file '" + path.string() + "': cannot open it (not an HDF5 file?)");
  Hdf5Contents contents;
  Visit visit{.path = &path, .contents = &contents, .error = {}};
  if (H5Lvisit(file.get(), H5_INDEX_NAME, H5_ITER_INC, visit_link, &visit) < 0 ||
      !visit.error.empty()) {
    throw InvalidProblem("HDF5 file '" + path.string() + "': " + (visit.error.empty() ? "cannot list it" : visit.error));
  }
  hsize_t index = 0;
  if (H5Aiterate2(file.get(), H5_INDEX_NAME, H5_ITER_INC, &index, visit_attribute, &visit) < 0 ||
      !visit.error.empty()) {
    throw InvalidProblem("HDF5 file '" + path.string() + "': " + visit.error);
  }
  return contents;
}

}  // namespace perp
