#pragma once
/// \file
/// fclib's HDF5 files (the frictional contact problems of Siconos' and fclib's collections), through
/// Debian's libfclib: the local problem (`fclib_local`: W, q, μ) as a `FrictionContact`, the global one
/// (`fclib_global`: M, H, f, w, μ) as a `GlobalFrictionContact` (fclib's f is its q, fclib's w its b),
/// with the stored solution and guesses. A global M stored as one triangle (as LMGC90 writes it) is
/// completed by its mirror. Refused with the file and the reason: a problem with
/// equality constraints (fclib's G, or the local V and R), the rolling-friction problems
/// (`fclib_global_rolling`, `fclib_local_rolling`), a spatial dimension other than 2 or 3, sizes or
/// indices that do not fit, a file that is not HDF5.

#include <Eigen/Dense>
#include <filesystem>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "perp/core/friction_contact.hpp"
#include "perp/core/global_friction_contact.hpp"

namespace perp {

/// A solution or guess as fclib stores it; a vector fclib did not store is empty.
struct FclibSolution {
  Eigen::VectorXd v;  ///< global velocities (global problems)
  Eigen::VectorXd u;  ///< local velocities
  Eigen::VectorXd r;  ///< reactions
};

/// An fclib file's problem and what it stores beside it.
struct FclibFile {
  std::variant<FrictionContact, GlobalFrictionContact> problem;
  std::string title;        ///< fclib_info's title, description and mathematical info ("" where absent)
  std::string description;
  std::string math_info;
  std::optional<FclibSolution> solution;
  std::vector<FclibSolution> guesses;

  [[nodiscard]] bool global() const { return std::holds_alternative<GlobalFrictionContact>(problem); }
};

/// Whether the file starts with HDF5's signature (an fclib file is an HDF5 file).
[[nodiscard]] bool is_hdf5_file(const std::filesystem::path& path);

/// Reads a local or global problem (whichever the file holds), its solution and guesses. Throws
/// `InvalidProblem` naming the file and the reason.
[[nodiscard]] FclibFile read_fclib(const std::filesystem::path& path);

/// Writes the problem (and a solution and guesses, where given) as a new fclib file, replacing `path`,
/// with `title` and `description` as fclib_info's. The problem is validated first. Throws
/// `InvalidProblem` when it is invalid or the file cannot be written.
void write_fclib(const std::filesystem::path& path, const FrictionContact& problem,
                 const FclibSolution* solution = nullptr, const std::string& title = "",
                 const std::vector<FclibSolution>& guesses = {}, const std::string& description = "");
void write_fclib(const std::filesystem::path& path, const GlobalFrictionContact& problem,
                 const FclibSolution* solution = nullptr, const std::string& title = "",
                 const std::vector<FclibSolution>& guesses = {}, const std::string& description = "");

}  // namespace perp
