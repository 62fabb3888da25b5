// fclib's HDF5 files through Debian's libfclib (include/perp/io/fclib.hpp).
#include "perp/io/fclib.hpp"

#include <hdf5.h>

// fclib.h declares C functions without extern "C" guards.
extern "C" {
#include <fclib.h>
}

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "perp/core/error.hpp"

namespace perp {
namespace {

using ColSparse = Eigen::SparseMatrix<double>;

/// HDF5's error stack printing off while it lives (fclib's readers try groups that may be absent),
/// restored after.
class QuietHdf5 {
 public:
  QuietHdf5() {
    H5Eget_auto2(H5E_DEFAULT, &function_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietHdf5() { H5Eset_auto2(H5E_DEFAULT, function_, data_); }
  QuietHdf5(const QuietHdf5&) = delete;
  QuietHdf5& operator=(const QuietHdf5&) = delete;

 private:
  H5E_auto2_t function_ = nullptr;
  void* data_ = nullptr;
};

[[noreturn]] void refuse(const std::filesystem::path& path, const std::string& why) {
  throw InvalidProblem("fclib file '" + path.string() + "': " + why);
}

/// The top-level groups of the file that fclib uses.
struct Groups {
  bool local = false;
  bool global = false;
  bool local_rolling = false;
  bool global_rolling = false;
  bool solution = false;
  bool guesses = false;
};

Groups groups_of(const std::filesystem::path& path) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) refuse(path, "HDF5 cannot open it");
  const auto has = [file](const char* name) { return H5Lexists(file, name, H5P_DEFAULT) > 0; };
  Groups g;
  g.local = has("/fclib_local");
  g.global = has("/fclib_global");
  g.local_rolling = has("/fclib_local_rolling");
  g.global_rolling = has("/fclib_global_rolling");
  g.solution = has("/solution");
  g.guesses = has("/guesses");
  H5Fclose(file);
  return g;
}

/// An fclib matrix as a sparse matrix, every index checked against its shape (a corrupt file must
/// not be read out of bounds).
ColSparse matrix_of(const fclib_matrix* a, const char* name, const std::filesystem::path& path) {
  if (a == nullptr) refuse(path, std::string(name) + " is missing");
  if (a->m < 0 || a->n < 0) {
    refuse(path, std::string(name) + " has a negative size " + std::to_string(a->m) + "x" + std::to_string(a->n));
  }
  std::vector<Eigen::Triplet<double>> entries;
  const auto index_error = [&](const char* what, long k, long value, long bound) {
    refuse(path, std::string(name) + ": " + what + "[" + std::to_string(k) + "] = " + std::to_string(value) +
                     " is out of range [0, " + std::to_string(bound) + ")");
  };
  if (a->nz >= 0) {  // triplets, CSparse's convention (as the files of fclib's collection are written):
                     // p the column indices, i the row indices
    for (int k = 0; k < a->nz; ++k) {
      if (a->i[k] < 0 || a->i[k] >= a->m) index_error("row index i", k, a->i[k], a->m);
      if (a->p[k] < 0 || a->p[k] >= a->n) index_error("column index p", k, a->p[k], a->n);
      entries.emplace_back(a->i[k], a->p[k], a->x[k]);
    }
  } else if (a->nz == -1 || a->nz == -2) {  // compressed columns (p: n + 1) or rows (p: m + 1)
    const bool columns = a->nz == -1;
    const int outer = columns ? a->n : a->m;
    const int inner = columns ? a->m : a->n;
    if (a->p[0] != 0) index_error("p", 0, a->p[0], 1);
    for (int j = 0; j < outer; ++j) {
      if (a->p[j + 1] < a->p[j] || a->p[j + 1] > a->nzmax) {
        refuse(path, std::string(name) + ": p[" + std::to_string(j + 1) + "] = " + std::to_string(a->p[j + 1]) +
                         " is not between p[" + std::to_string(j) + "] = " + std::to_string(a->p[j]) +
                         " and nzmax = " + std::to_string(a->nzmax));
      }
      for (int k = a->p[j]; k < a->p[j + 1]; ++k) {
        if (a->i[k] < 0 || a->i[k] >= inner) index_error("i", k, a->i[k], inner);
        if (columns) {
          entries.emplace_back(a->i[k], j, a->x[k]);
        } else {
          entries.emplace_back(j, a->i[k], a->x[k]);
        }
      }
    }
  } else {
    refuse(path, std::string(name) + ": nz = " + std::to_string(a->nz) +
                     " (expected -1: compressed columns, -2: compressed rows, or >= 0 triplets)");
  }
  ColSparse out(a->m, a->n);
  out.setFromTriplets(entries.begin(), entries.end());  // duplicates summed
  return out;
}

/// M as a full symmetric matrix: files of fclib's collection (LMGC90's) store only one triangle of a
/// symmetric M; a matrix with entries on one side of the diagonal only is completed by its mirror.
ColSparse symmetric_of(const ColSparse& M) {
  bool upper = false;
  bool lower = false;
  for (Eigen::Index j = 0; j < M.outerSize(); ++j) {
    for (ColSparse::InnerIterator it(M, j); it; ++it) {
      if (it.value() == 0) continue;
      upper = upper || it.row() < it.col();
      lower = lower || it.row() > it.col();
    }
  }
  if (upper == lower) return M;  // diagonal, or both triangles stored
  const ColSparse transposed = M.transpose();
  ColSparse full = M + transposed;
  full.diagonal() = M.diagonal();
  return full;
}

Eigen::VectorXd vector_of(const double* x, Eigen::Index size) {
  if (x == nullptr) return {};
  return Eigen::Map<const Eigen::VectorXd>(x, size);
}

void read_info(const fclib_info* info, FclibFile& out) {
  if (info == nullptr) return;
  if (info->title != nullptr) out.title = info->title;
  if (info->description != nullptr) out.description = info->description;
  if (info->math_info != nullptr) out.math_info = info->math_info;
}

FclibSolution solution_of(const fclib_solution& s, Eigen::Index dofs, Eigen::Index n) {
  return {vector_of(s.v, dofs), vector_of(s.u, n), vector_of(s.r, n)};
}

void read_solutions(const std::filesystem::path& path, const Groups& groups, Eigen::Index dofs, Eigen::Index n,
                    FclibFile& out) {
  if (groups.solution) {
    if (fclib_solution* s = fclib_read_solution(path.c_str())) {
      out.solution = solution_of(*s, dofs, n);
      fclib_delete_solutions(s, 1);
    }
  }
  if (groups.guesses) {
    int count = 0;
    if (fclib_solution* g = fclib_read_guesses(path.c_str(), &count)) {
      for (int k = 0; k < count; ++k) out.guesses.push_back(solution_of(g[k], dofs, n));
      fclib_delete_solutions(g, count);
    }
  }
}

/// fclib's matrix of a sparse matrix, compressed columns; the arrays live in `storage`.
struct MatrixStorage {
  std::vector<int> p, i;
  std::vector<double> x;
  fclib_matrix matrix{};
};

void fill(MatrixStorage& s, const ColSparse& A) {
  ColSparse a = A;
  a.makeCompressed();
  s.p.assign(a.outerIndexPtr(), a.outerIndexPtr() + a.outerSize() + 1);
  s.i.assign(a.innerIndexPtr(), a.innerIndexPtr() + a.nonZeros());
  s.x.assign(a.valuePtr(), a.valuePtr() + a.nonZeros());
  if (s.i.empty()) {  // fclib writes nzmax entries: keep the arrays non-null
    s.i.push_back(0);
    s.x.push_back(0.0);
  }
  s.matrix.nzmax = static_cast<int>(a.nonZeros());
  s.matrix.m = static_cast<int>(a.rows());
  s.matrix.n = static_cast<int>(a.cols());
  s.matrix.p = s.p.data();
  s.matrix.i = s.i.data();
  s.matrix.x = s.x.data();
  s.matrix.nz = -1;
  s.matrix.info = nullptr;
}

/// fclib's info (a title, a description, empty math info); the strings live here.
struct InfoStorage {
  InfoStorage(std::string title_text, std::string description_text)
      : title(std::move(title_text)), description(std::move(description_text)) {
    info.title = title.data();
    info.description = description.data();
    info.math_info = empty.data();
  }
  InfoStorage(const InfoStorage&) = delete;
  InfoStorage& operator=(const InfoStorage&) = delete;
  std::string title;
  std::string description;
  std::string empty;
  fclib_info info{};
};

void write_solution(const std::filesystem::path& path, const FclibSolution& solution) {
  // fclib_solution holds non-const pointers; it only reads them while writing.
  FclibSolution copy = solution;
  fclib_solution s{};
  s.v = copy.v.size() > 0 ? copy.v.data() : nullptr;
  s.u = copy.u.size() > 0 ? copy.u.data() : nullptr;
  s.r = copy.r.size() > 0 ? copy.r.data() : nullptr;
  s.l = nullptr;
  if (fclib_write_solution(&s, path.c_str()) == 0) refuse(path, "libfclib could not write the solution");
}

void write_guesses(const std::filesystem::path& path, const std::vector<FclibSolution>& guesses) {
  if (guesses.empty()) return;
  // fclib_solution holds non-const pointers; it only reads them while writing.
  std::vector<FclibSolution> copies = guesses;
  std::vector<fclib_solution> s(copies.size());
  for (std::size_t k = 0; k < copies.size(); ++k) {
    s[k].v = copies[k].v.size() > 0 ? copies[k].v.data() : nullptr;
    s[k].u = copies[k].u.size() > 0 ? copies[k].u.data() : nullptr;
    s[k].r = copies[k].r.size() > 0 ? copies[k].r.data() : nullptr;
    s[k].l = nullptr;
  }
  if (fclib_write_guesses(static_cast<int>(s.size()), s.data(), path.c_str()) == 0) {
    refuse(path, "libfclib could not write the guesses");
  }
}

/// A solution or guess must fit the problem: v (dofs entries; dofs < 0: a local problem, no v), u and
/// r (n entries), each finite; an empty vector is one fclib does not store.
void require_sizes(const std::filesystem::path& path, const FclibSolution& s, const char* what, Eigen::Index dofs,
                   Eigen::Index n) {
  const auto check = [&](const Eigen::VectorXd& x, const char* name, Eigen::Index expected) {
    if (x.size() != 0 && x.size() != expected) {
      refuse(path, std::string(what) + "." + name + ": expected " + std::to_string(expected) + " entries, got " +
                       std::to_string(x.size()));
    }
    if (!x.allFinite()) refuse(path, std::string(what) + "." + name + " has a NaN or infinite entry");
  };
  if (dofs < 0 && s.v.size() != 0) {
    refuse(path, std::string(what) + ".v: a local problem stores no global velocities, got " +
                     std::to_string(s.v.size()) + " entries");
  }
  if (dofs >= 0) check(s.v, "v", dofs);
  check(s.u, "u", n);
  check(s.r, "r", n);
}

void require_sizes(const std::filesystem::path& path, const FclibSolution* solution,
                   const std::vector<FclibSolution>& guesses, Eigen::Index dofs, Eigen::Index n) {
  if (solution != nullptr) require_sizes(path, *solution, "solution", dofs, n);
  for (std::size_t k = 0; k < guesses.size(); ++k) {
    require_sizes(path, guesses[k], ("guesses[" + std::to_string(k) + "]").c_str(), dofs, n);
  }
}

void remove_existing(const std::filesystem::path& path) {
  std::error_code error;
  std::filesystem::remove(path, error);
  if (error) refuse(path, "cannot replace it: " + error.message());
}

}  // namespace

bool is_hdf5_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  char signature[8] = {};
  if (!in.read(signature, 8)) return false;
  return std::memcmp(signature, "\x89HDF\r\n\x1a\n", 8) == 0;
}

FclibFile read_fclib(const std::filesystem::path& path) {
  if (!std::filesystem::is_regular_file(path)) refuse(path, "no such file");
  if (!is_hdf5_file(path)) refuse(path, "not an HDF5 file (no HDF5 signature)");
  const QuietHdf5 quiet;
  const Groups groups = groups_of(path);
  if (groups.global_rolling || groups.local_rolling) {
    refuse(path, std::string("it holds a frictional contact problem with rolling friction (fclib_") +
                     (groups.global_rolling ? "global" : "local") +
                     "_rolling), which perp does not read: perp poses sliding friction only");
  }
  FclibFile out;
  if (groups.global) {
    std::unique_ptr<fclib_global, void (*)(fclib_global*)> p(fclib_read_global(path.c_str()), fclib_delete_global);
    if (!p) refuse(path, "libfclib could not read its global problem");
    if (p->G != nullptr && p->G->n > 0) {
      refuse(path, "its global problem has equality constraints (G, " + std::to_string(p->G->m) + "x" +
                       std::to_string(p->G->n) + "), which perp's GlobalFrictionContact does not pose");
    }
    if (p->spacedim != 2 && p->spacedim != 3) refuse(path, "spacedim is " + std::to_string(p->spacedim) + ", not 2 or 3");
    GlobalFrictionContact g;
    g.dimension = p->spacedim;
    g.M = symmetric_of(matrix_of(p->M, "M", path));
    g.H = matrix_of(p->H, "H", path);
    if (g.H.cols() % g.dimension != 0) {
      refuse(path, "H has " + std::to_string(g.H.cols()) + " columns, not a multiple of spacedim " +
                       std::to_string(g.dimension));
    }
    const Eigen::Index n = g.H.cols();
    g.q = vector_of(p->f, g.M.rows());
    g.b = vector_of(p->w, n);
    g.mu = vector_of(p->mu, n / g.dimension);
    if (g.q.size() != g.M.rows() || g.b.size() != n || g.mu.size() != n / g.dimension) {
      refuse(path, "f, w or mu is missing");
    }
    read_info(p->info, out);
    read_solutions(path, groups, g.M.rows(), n, out);
    out.problem = std::move(g);
  } else if (groups.local) {
    std::unique_ptr<fclib_local, void (*)(fclib_local*)> p(fclib_read_local(path.c_str()), fclib_delete_local);
    if (!p) refuse(path, "libfclib could not read its local problem");
    if ((p->V != nullptr && p->V->n > 0) || (p->R != nullptr && p->R->n > 0)) {
      refuse(path, "its local problem has equality constraints (V, R), which perp's FrictionContact does not pose");
    }
    if (p->spacedim != 2 && p->spacedim != 3) refuse(path, "spacedim is " + std::to_string(p->spacedim) + ", not 2 or 3");
    FrictionContact f;
    f.dimension = p->spacedim;
    f.W = matrix_of(p->W, "W", path);
    if (f.W.rows() != f.W.cols() || f.W.rows() % f.dimension != 0) {
      refuse(path, "W is " + std::to_string(f.W.rows()) + "x" + std::to_string(f.W.cols()) +
                       ", not square with a multiple of spacedim rows");
    }
    const Eigen::Index n = f.W.rows();
    f.q = vector_of(p->q, n);
    f.mu = vector_of(p->mu, n / f.dimension);
    if (f.q.size() != n || f.mu.size() != n / f.dimension) refuse(path, "q or mu is missing");
    read_info(p->info, out);
    read_solutions(path, groups, 0, n, out);
    out.problem = std::move(f);
  } else {
    refuse(path, "it holds neither fclib_local nor fclib_global");
  }
  try {
    std::visit([](const auto& problem) { problem.validate(); }, out.problem);
  } catch (const InvalidProblem& e) {
    refuse(path, e.what());
  }
  return out;
}

void write_fclib(const std::filesystem::path& path, const FrictionContact& problem, const FclibSolution* solution,
                 const std::string& title, const std::vector<FclibSolution>& guesses, const std::string& description) {
  problem.validate();
  // A local problem has no global velocities: v must be absent.
  require_sizes(path, solution, guesses, -1, problem.size());
  remove_existing(path);
  MatrixStorage W;
  fill(W, problem.W);
  Eigen::VectorXd q = problem.q;
  Eigen::VectorXd mu = problem.mu;
  InfoStorage info(title, description);
  fclib_local local{};
  local.W = &W.matrix;
  local.V = nullptr;
  local.R = nullptr;
  local.mu = mu.data();
  local.q = q.data();
  local.s = nullptr;
  local.spacedim = problem.dimension;
  local.info = &info.info;
  const QuietHdf5 quiet;
  if (fclib_write_local(&local, path.c_str()) == 0) refuse(path, "libfclib could not write the local problem");
  if (solution != nullptr) write_solution(path, *solution);
  write_guesses(path, guesses);
}

void write_fclib(const std::filesystem::path& path, const GlobalFrictionContact& problem, const FclibSolution* solution,
                 const std::string& title, const std::vector<FclibSolution>& guesses, const std::string& description) {
  problem.validate();
  require_sizes(path, solution, guesses, problem.dofs(), problem.size());
  remove_existing(path);
  MatrixStorage M;
  MatrixStorage H;
  fill(M, problem.M);
  fill(H, problem.H);
  Eigen::VectorXd f = problem.q;
  Eigen::VectorXd w = problem.b;
  Eigen::VectorXd mu = problem.mu;
  InfoStorage info(title, description);
  fclib_global global{};
  global.M = &M.matrix;
  global.H = &H.matrix;
  global.G = nullptr;
  global.mu = mu.data();
  global.f = f.data();
  global.b = nullptr;
  global.w = w.data();
  global.spacedim = problem.dimension;
  global.info = &info.info;
  const QuietHdf5 quiet;
  if (fclib_write_global(&global, path.c_str()) == 0) refuse(path, "libfclib could not write the global problem");
  if (solution != nullptr) write_solution(path, *solution);
  write_guesses(path, guesses);
}

}  // namespace perp
