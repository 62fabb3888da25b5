// The atomic output folder of `simulate` and `perp simulate --out` (StagedFiles, declared in
// perp/io/simulation.hpp): results are written into a sibling temporary folder and swapped in by
// one rename, so that a failure or a signal leaves the earlier results whole.
#include <fcntl.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <string>
#include <utility>

#include "perp/core/error.hpp"
#include "perp/io/simulation.hpp"

namespace perp {

namespace {

// `dir` absolute and without a trailing separator or dot, so that its name and parent are defined.
std::filesystem::path folder_path(const std::filesystem::path& dir) {
  std::error_code error;
  std::filesystem::path path = std::filesystem::absolute(dir, error);
  if (error) throw InvalidProblem("cannot resolve '" + dir.string() + "': " + error.message());
  path = path.lexically_normal();
  if (!path.has_filename() && path.has_parent_path() && path != path.root_path()) path = path.parent_path();
  if (path == path.root_path() || path.filename().empty()) {
    throw InvalidProblem("'" + dir.string() + "' cannot hold results: give a folder below it");
  }
  return path;
}

// Exchanges the two folders atomically (Linux renameat2); false where the system or the file
// system has no exchange (errno ENOSYS, EINVAL), so that the caller swaps by two renames.
bool exchange(const std::filesystem::path& a, const std::filesystem::path& b, std::error_code& error) {
#if defined(__linux__) && defined(SYS_renameat2)
  constexpr unsigned kRenameExchange = 2;  // RENAME_EXCHANGE of <linux/fs.h>
  if (::syscall(SYS_renameat2, AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), kRenameExchange) == 0) return true;
  if (errno != ENOSYS && errno != EINVAL) error = std::error_code(errno, std::generic_category());
#else
  (void)a;
  (void)b;
  (void)error;
#endif
  return false;
}

// Blocks the termination signals for its lifetime: the two renames of a swap are not cut apart.
class SignalsHeld {
 public:
  SignalsHeld() {
    sigset_t held;
    sigemptyset(&held);
    for (const int signal : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaddset(&held, signal);
    blocked_ = ::pthread_sigmask(SIG_BLOCK, &held, &previous_) == 0;
  }
  SignalsHeld(const SignalsHeld&) = delete;
  SignalsHeld& operator=(const SignalsHeld&) = delete;
  ~SignalsHeld() {
    if (blocked_) ::pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
  }

 private:
  sigset_t previous_{};
  bool blocked_ = false;
};

}  // namespace

StagedFiles::StagedFiles(std::filesystem::path dir, std::vector<std::string> replaceable)
    : StagedFiles(std::move(dir), [names = std::move(replaceable)](const std::string& name) {
        return std::find(names.begin(), names.end(), name) != names.end();
      }) {}

StagedFiles::StagedFiles(std::filesystem::path dir, std::function<bool(const std::string&)> replaceable)
    : dir_(folder_path(dir)), replaceable_(std::move(replaceable)) {
  staging_ = dir_.parent_path() / ("." + dir_.filename().string() + ".partial-" + std::to_string(getpid()));
  check_replaceable();
  std::error_code error;
  std::filesystem::create_directories(dir_.parent_path(), error);
  if (error) throw InvalidProblem("cannot create '" + dir_.parent_path().string() + "': " + error.message());
  std::filesystem::remove_all(staging_, error);  // this process's own, from an earlier StagedFiles
  if (!std::filesystem::create_directory(staging_, error) || error) {
    throw InvalidProblem("cannot create the temporary folder '" + staging_.string() +
                         "': " + (error ? error.message() : "it exists"));
  }
}

void StagedFiles::check_replaceable() const {
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::symlink_status(dir_, error);
  if (status.type() == std::filesystem::file_type::not_found) return;
  if (error) throw InvalidProblem("cannot read '" + dir_.string() + "': " + error.message());
  if (status.type() == std::filesystem::file_type::symlink) {
    throw InvalidProblem("'" + dir_.string() +
                         "' is a symbolic link: the results replace the folder by a rename, which would replace the "
                         "link; give the folder it names");
  }
  if (status.type() != std::filesystem::file_type::directory) {
    throw InvalidProblem("'" + dir_.string() + "' exists and is not a folder: give a new folder for the results");
  }
  if (std::filesystem::equivalent(dir_, std::filesystem::current_path(), error)) {
    throw InvalidProblem("'" + dir_.string() +
                         "' is the current folder, which the results replace as a whole: give a folder below it");
  }
  std::filesystem::directory_iterator entries(dir_, error);
  if (error) throw InvalidProblem("cannot read '" + dir_.string() + "': " + error.message());
  for (const std::filesystem::directory_entry& entry : entries) {
    const std::string name = entry.path().filename().string();
    // An earlier run's file, or what an earlier version left of one when stopped
    // (".trajectory.csv.partial-PID": its temporaries were written inside the folder).
    const std::size_t partial = name.rfind(".partial-");
    const std::string result_name =
        name.size() > 1 && name[0] == '.' && partial != std::string::npos ? name.substr(1, partial - 1) : name;
    const bool known = replaceable_(result_name);
    if (!known || !entry.is_regular_file(error) || entry.is_symlink(error)) {
      throw InvalidProblem("'" + dir_.string() + "' holds '" + name +
                           "', which is not an earlier run's result file; the results replace the folder as a "
                           "whole, so give a new or empty folder (or remove it)");
    }
  }
}

StagedFiles::~StagedFiles() {
  std::error_code ignored;
  std::filesystem::remove_all(staging_, ignored);  // the run's files, or after commit the earlier results
}

std::filesystem::path StagedFiles::temporary(const std::string& name) {
  if (std::find(names_.begin(), names_.end(), name) == names_.end()) names_.push_back(name);
  return staging_ / name;
}

void StagedFiles::commit() {
  check_replaceable();  // again: something may have been put there during the run
  const SignalsHeld held;
  std::error_code error;
  if (!std::filesystem::exists(dir_, error)) {
    std::filesystem::rename(staging_, dir_, error);
    if (error) throw InvalidProblem("cannot move the results into '" + dir_.string() + "': " + error.message());
  } else if (!exchange(staging_, dir_, error)) {
    if (error) throw InvalidProblem("cannot swap the results into '" + dir_.string() + "': " + error.message());
    // No atomic exchange here: the earlier results aside, the new ones in, the earlier ones back
    // when that fails.
    const std::filesystem::path earlier =
        dir_.parent_path() / ("." + dir_.filename().string() + ".earlier-" + std::to_string(getpid()));
    std::filesystem::rename(dir_, earlier, error);
    if (error) throw InvalidProblem("cannot move the earlier results in '" + dir_.string() + "' aside: " + error.message());
    std::filesystem::rename(staging_, dir_, error);
    if (error) {
      std::error_code ignored;
      std::filesystem::rename(earlier, dir_, ignored);
      throw InvalidProblem("cannot move the results into '" + dir_.string() + "': " + error.message());
    }
    std::filesystem::rename(earlier, staging_, error);  // removed by the destructor
    if (error) std::filesystem::remove_all(earlier, error);
  }
  std::filesystem::remove_all(staging_, error);  // the earlier results, swapped out
}

}  // namespace perp
