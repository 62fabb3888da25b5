#include "perp/io/simulation3d.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "perp/core/error.hpp"
#include "simulation_output.hpp"

namespace perp {
namespace {

using contact3d::Body;
using contact3d::World;

std::string side_name(const World& world, int index) {
  if (index >= 0) return world.bodies[static_cast<std::size_t>(index)].name;
  if (index == contact3d::kGround) return "ground";
  const std::size_t p = contact3d::plane_of(index);
  const std::string& name = world.planes[p].name;
  return name.empty() ? "plane[" + std::to_string(p) + "]" : name;
}

}  // namespace

void write_step_fclib(const std::filesystem::path& path, const contact3d::StepReport& report, long step, double t) {
  detail::write_step_fclib(path,
                           detail::outcome_of(report),
                           step, t);
}

Simulation3dRecord write_simulation3d(const contact3d::Scene& scene, StagedFiles& files,
                                      const std::function<void(long, long)>& progress) {
  SimulationOutputOptions options;
  options.contacts = true;
  options.progress = progress;
  return write_simulation3d(scene, files, options);
}

Simulation3dRecord write_simulation3d(const contact3d::Scene& scene, StagedFiles& files,
                                      const SimulationOutputOptions& options) {
  scene.validate();
  // --dump: the steps keep their frictional contact problem (a copy of the scene's options); only the
  // Coulomb model poses one.
  detail::StepDumps dumps(options);
  contact3d::StepOptions step_options = scene.options;
  if (options.dump != nullptr) {
    if (scene.options.friction_model != contact::FrictionModel::Coulomb) {
      throw InvalidProblem(std::string("--dump writes the steps' frictional contact problem, which only the Coulomb "
                                       "model poses; this scene's friction_model is ") +
                           to_string(scene.options.friction_model) + ": use friction_model coulomb");
    }
    step_options.keep_problem = true;
  }
  World world = scene.world;
  using detail::Column;
  using Kind = detail::Column::Kind;
  detail::SimulationSinks sinks(files, options, 3, scene.options.timestep);
  std::vector<std::string> names;
  names.reserve(world.bodies.size());
  for (const Body& body : world.bodies) names.push_back(body.name);
  detail::StateTable trajectory(sinks, names,
                                {"x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz"});
  detail::OutputTable energy_table(sinks, "energy", {{"t"}, {"kinetic"}, {"potential"}, {"total"}});
  detail::OutputTable steps_table(
      sinks, "steps",
      {{"step", Kind::Integer}, {"t"}, {"contacts", Kind::Integer}, {"status", Kind::Text}, {"method", Kind::Text},
       {"iterations", Kind::Integer}, {"residual"}, {"signorini"}, {"coulomb"}, {"complementarity"},
       {"dissipation"}, {"warm_started", Kind::Integer}, {"solve_ms"}, {"step_ms"}, {"fallback", Kind::Text}});
  // The names a contact's sides may take: the bodies, "ground", the planes.
  std::vector<std::string> plane_names;
  for (std::size_t p = 0; p < world.planes.size(); ++p) {
    plane_names.push_back(side_name(world, -2 - static_cast<int>(p)));
  }
  const detail::Surfaces surfaces(names, plane_names);
  std::optional<detail::OutputTable> contacts_table;
  if (options.contacts) {
    contacts_table.emplace(sinks, "contacts",
                           std::vector<Column>{{"t"},
                                               {"body_a", Kind::Surface},
                                               {"body_b", Kind::Surface},
                                               {"feature", Kind::Integer},
                                               {"x"},
                                               {"y"},
                                               {"z"},
                                               {"nx"},
                                               {"ny"},
                                               {"nz"},
                                               {"gap"},
                                               {"normal_impulse"},
                                               {"tangent1_impulse"},
                                               {"tangent2_impulse"}},
                           surfaces.names());
  }

  std::vector<double> state;
  const auto write_state = [&](double t) {
    state.clear();
    for (const Body& body : world.bodies) {
      const std::array<double, 13> values = {
          body.position.x(),        body.position.y(),    body.position.z(),         body.orientation.w(),
          body.orientation.x(),     body.orientation.y(), body.orientation.z(),      body.velocity.x(),
          body.velocity.y(),        body.velocity.z(),    body.angular_velocity.x(), body.angular_velocity.y(),
          body.angular_velocity.z()};
      for (const double value : values) {
        if (!std::isfinite(value)) {
          throw InvalidProblem("body \"" + body.name + "\": the state is no longer finite at t = " + csv_number(t));
        }
        state.push_back(value);
      }
    }
    trajectory.add(t, state);
  };
  Simulation3dRecord record;
  record.every = options.every;
  const auto write_energy = [&](double t) {
    const contact::Energy e = contact3d::energy(world, scene.options.gravity);
    energy_table.real(t).real(e.kinetic).real(e.potential).real(e.total()).end_row();
    return e;
  };
  write_state(0);
  record.initial_energy = write_energy(0);
  record.last_energy = record.initial_energy.total();
  const long steps = scene.step_count();
  Frame3dSampler frames(record, steps, world, scene.options.gravity);
  const double h = scene.options.timestep;
  for (long k = 0; k < steps; ++k) {
    const double t_start = static_cast<double>(k) * h;
    const double t = static_cast<double>(k + 1) * h;
    const contact3d::StepReport report = contact3d::moreau_jean_step(world, step_options);
    ++record.steps;
    record.step_ms += report.step_ms;
    record.solve_ms += report.solve_ms;
    record.most_contacts = std::max(record.most_contacts, report.contacts.size());
    frames.add(k + 1, t, world, report);
    if (report.status != Status::Solved) {
      if (record.unsolved == 0) {
        record.first_failure_step = k;
        record.first_failure = report.status;
      }
      ++record.unsolved;
    }
    for (std::size_t i = 0; i < report.contacts.size(); ++i) {
      const contact3d::Contact& c = report.contacts[i];
      record.max_penetration = std::max(record.max_penetration, -c.gap);
      if (!contacts_table) continue;
      const auto at = 3 * static_cast<Eigen::Index>(i);
      contacts_table->real(t_start)
          .surface(surfaces.index(c.body_a), surfaces.name(c.body_a))
          .surface(surfaces.index(c.body_b), surfaces.name(c.body_b))
          .integer(c.feature);
      for (const double value : {c.point.x(), c.point.y(), c.point.z(), c.normal.x(), c.normal.y(), c.normal.z(), c.gap,
                                 report.impulses[at], report.impulses[at + 1], report.impulses[at + 2]}) {
        contacts_table->real(value);
      }
      contacts_table->end_row();
    }
    dumps.offer(k, t_start,
                detail::outcome_of(report));
    const std::string method = report.ran_solve() ? to_string(report.result.method) : "";
    const FrictionContactResiduals& c = report.criteria;
    steps_table.integer(k)
        .real(t)
        .integer(static_cast<std::int64_t>(report.contacts.size()))
        .text(to_string(report.status))
        .text(method)
        .integer(report.result.iterations)
        .real(report.result.residual)
        .real(c.signorini)
        .real(c.coulomb)
        .real(c.complementarity)
        .real(c.dissipation)
        .integer(static_cast<std::int64_t>(report.warm_started))
        .real(report.solve_ms)
        .real(report.step_ms)
        .text(report.fallback)
        .end_row();
    record.fallbacks += report.fallback.empty() ? 0 : 1;
    if (detail::recorded_step(k + 1, options.every, steps)) {
      write_state(t);
      record.last_energy = write_energy(t).total();
    } else {
      record.last_energy = contact3d::energy(world, scene.options.gravity).total();
    }
    record.last_time = t;
    if (options.progress) options.progress(k + 1, steps);
  }
  record.dumped = dumps.dumped;
  record.dumps_left_out = dumps.left_out;
  record.first_left_out = dumps.first_left_out;
  trajectory.close();
  energy_table.close();
  steps_table.close();
  if (contacts_table) contacts_table->close();
  sinks.close();
  return record;
}

}  // namespace perp
