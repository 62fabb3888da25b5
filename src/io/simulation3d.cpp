#include "perp/io/simulation3d.hpp"

#include <algorithm>
#include <array>
#include <fstream>
#include <string>

#include "perp/core/error.hpp"

namespace perp {
namespace {

using contact3d::Body;
using contact3d::World;

std::ofstream open_csv3d(const std::filesystem::path& path) {
  std::ofstream out(path);
  if (!out) throw InvalidProblem("cannot write '" + path.string() + "'");
  return out;
}

std::string side_name(const World& world, int index) {
  if (index >= 0) return world.bodies[static_cast<std::size_t>(index)].name;
  if (index == contact3d::kGround) return "ground";
  const std::size_t p = contact3d::plane_of(index);
  const std::string& name = world.planes[p].name;
  return name.empty() ? "plane[" + std::to_string(p) + "]" : name;
}

void write_state(std::ofstream& out, double t, const World& world) {
  out << csv_number(t);
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
      out << "," << csv_number(value);
    }
  }
  out << "\n";
}

}  // namespace

Simulation3dRecord write_simulation3d(const contact3d::Scene& scene, StagedFiles& files,
                                      const std::function<void(long, long)>& progress) {
  scene.validate();
  World world = scene.world;
  std::ofstream trajectory = open_csv3d(files.temporary("trajectory.csv"));
  std::ofstream contacts = open_csv3d(files.temporary("contacts.csv"));
  std::ofstream energy_csv = open_csv3d(files.temporary("energy.csv"));
  std::ofstream steps_csv = open_csv3d(files.temporary("steps.csv"));
  trajectory << "t";
  for (const Body& body : world.bodies) {
    for (const char* column : {"x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz"}) {
      trajectory << "," << csv_field(body.name + "." + column);
    }
  }
  trajectory << "\n";
  contacts << "t,body_a,body_b,feature,x,y,z,nx,ny,nz,gap,normal_impulse,tangent1_impulse,tangent2_impulse\n";
  energy_csv << "t,kinetic,potential,total\n";
  steps_csv << "step,t,contacts,status,method,iterations,residual,signorini,coulomb,complementarity,dissipation,"
               "warm_started,solve_ms,step_ms\n";

  Simulation3dRecord record;
  const auto write_energy = [&](double t) {
    const contact::Energy e = contact3d::energy(world, scene.options.gravity);
    energy_csv << csv_number(t) << "," << csv_number(e.kinetic) << "," << csv_number(e.potential) << ","
               << csv_number(e.total()) << "\n";
    return e;
  };
  write_state(trajectory, 0, world);
  record.initial_energy = write_energy(0);
  record.last_energy = record.initial_energy.total();
  const long steps = scene.step_count();
  Frame3dSampler frames(record, steps, world, scene.options.gravity);
  const double h = scene.options.timestep;
  for (long k = 0; k < steps; ++k) {
    const double t_start = static_cast<double>(k) * h;
    const double t = static_cast<double>(k + 1) * h;
    const contact3d::StepReport report = contact3d::moreau_jean_step(world, scene.options);
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
      const auto at = 3 * static_cast<Eigen::Index>(i);
      contacts << csv_number(t_start) << "," << csv_field(side_name(world, c.body_a)) << ","
               << csv_field(side_name(world, c.body_b)) << "," << c.feature;
      for (const double value : {c.point.x(), c.point.y(), c.point.z(), c.normal.x(), c.normal.y(), c.normal.z(), c.gap,
                                 report.impulses[at], report.impulses[at + 1], report.impulses[at + 2]}) {
        contacts << "," << csv_number(value);
      }
      contacts << "\n";
    }
    const std::string method = report.ran_solve() ? to_string(report.result.method) : "";
    const FrictionContactResiduals& c = report.criteria;
    steps_csv << k << "," << csv_number(t) << "," << report.contacts.size() << "," << to_string(report.status) << ","
              << method << "," << report.result.iterations << "," << csv_number(report.result.residual) << ","
              << csv_number(c.signorini) << "," << csv_number(c.coulomb) << "," << csv_number(c.complementarity) << ","
              << csv_number(c.dissipation) << "," << report.warm_started << "," << csv_number(report.solve_ms) << ","
              << csv_number(report.step_ms) << "\n";
    write_state(trajectory, t, world);
    record.last_energy = write_energy(t).total();
    record.last_time = t;
    if (progress) progress(k + 1, steps);
  }
  for (std::ofstream* out : {&trajectory, &contacts, &energy_csv, &steps_csv}) {
    out->flush();
    if (!*out) throw InvalidProblem("writing the simulation's CSVs into '" + files.staging().string() + "' failed");
  }
  return record;
}

}  // namespace perp
