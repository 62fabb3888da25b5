// `perp simulate` on a 3D scene ("dimension": 3; issue 36, first slice): the scene is read by
// io/scene3d, run and written by io/simulation3d; this file parses nothing and prints the summary.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "perp/core/error.hpp"
#include "perp/io/scene3d.hpp"
#include "perp/io/simulation3d.hpp"
#include "perp/io/viewer3d.hpp"
#include "simulate.hpp"

namespace perp::cli {

int run_simulate3d(const SimulateArguments& args) {
  contact3d::Scene scene = read_scene3d_file(args.scene);
  if (args.method || args.solver) {
    scene.options.method = from_string<Method>(args.method ? *args.method : *args.solver);  // run_simulate warned
    scene.options.validate();  // names a method that does not solve the frictional contact problem
  }
  apply_solve_flags(args, scene.options.solve);
  check_dump_arguments(args);
  SimulationOutputOptions output = output_options(args);
  output.dump_every = args.dump_every;
  output.dump_limit = args.dump_max;
  const StopHandlers handlers;
  const auto start = std::chrono::steady_clock::now();
  Simulation3dRecord record;
  std::vector<std::string> written_names;
  // The viewer needs three.js (Debian's libjs-three): without it the run's CSVs are still written,
  // and the note says why there is no view.html.
  std::string viewer_note;
  try {
    StagedFiles files(args.out);
    // --dump's folder is replaced as a whole too, at the end of the run (as in 2D).
    std::optional<StagedFiles> dump;
    if (!args.dump.empty()) dump.emplace(args.dump, is_step_dump_name);
    output.dump = dump ? &*dump : nullptr;
    const std::function<void(long, long)> progress = output.progress;
    output.progress = [&progress](long done, long total) {
      if (progress) progress(done, total);
      stop_if_signalled();
    };
    record = write_simulation3d(scene, files, output);
    try {
      const std::string three_js = read_three_js();
      write_viewer3d_html(files.temporary("view.html"), scene, record,
                          std::filesystem::path(args.scene).filename().string(), three_js);
    } catch (const InvalidProblem& e) {
      viewer_note = e.what();
    }
    stop_if_signalled();
    files.commit();
    if (dump) dump->commit();
    written_names = files.names();
  } catch (const Stopped& stopped) {
    return stopped_exit(stopped, args);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::printf("%s: %ld step%s of %g s, %zu bod%s (3D), up to %zu active contact%s\n", args.scene.c_str(), record.steps,
              record.steps == 1 ? "" : "s", scene.options.timestep, scene.world.bodies.size(),
              scene.world.bodies.size() == 1 ? "y" : "ies", record.most_contacts, record.most_contacts == 1 ? "" : "s");
  std::printf("energy: %.6g J at t = 0, %.6g J at t = %g s; deepest overlap %.3g m\n", record.initial_energy.total(),
              record.last_energy, record.last_time, record.max_penetration);
  const double steps = static_cast<double>(record.steps > 0 ? record.steps : 1);
  std::printf("time: %.3g ms stepping (mean %.3g ms a step), of which %.3g ms in the frictional contact solver\n",
              record.step_ms, record.step_ms / steps, record.solve_ms);
  std::printf("output: %.3g s writing beside %.3g s stepping\n", std::max(0.0, seconds - record.step_ms / 1000),
              record.step_ms / 1000);
  if (args.plot != "png" && args.plot != "none") std::printf("note: no plot for 3D scenes yet; --plot ignored\n");
  if (!viewer_note.empty()) std::fprintf(stderr, "note: no view.html: %s\n", viewer_note.c_str());
  print_fallbacks(record.fallbacks);
  if (record.unsolved > 0) {
    std::printf("warning: %ld step%s ended unsolved (first: step %ld, %s)\n", record.unsolved,
                record.unsolved == 1 ? "" : "s", record.first_failure_step, to_string(record.first_failure).c_str());
  }
  std::string written;
  for (const std::string& name : written_names) written += (written.empty() ? "" : ", ") + name;
  std::printf("wrote %s/{%s}\n", folder_text(args.out).c_str(), written.c_str());
  print_dumps(args, record.dumped, record.dumps_left_out, record.first_left_out);
  return record.unsolved == 0 ? 0 : 1;
}

}  // namespace perp::cli
