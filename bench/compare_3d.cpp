// Side-by-side runs of perp's 3D Moreau–Jean step (contact3d/moreau_jean.hpp), Bullet 3.24 in double
// precision (Debian's bullet-float64) and ODE 0.16 (Debian libode-dev, when found at configure time:
// bench/CMakeLists.txt) on the same 3D scene files, in one process, one thread each (issue 36).
//
// Scenes: examples/scenes/tower3d.json (10 boxes stacked), pyramid3d.json (10 layers, 385 boxes),
// spheres1000_3d.json (1 000 spheres poured into a 2.2 m box of four wall planes), or any 3D scene
// file of spheres, boxes, capsules and cylinders, fixed bodies, the ground and planes. Every engine
// gets the scene's h, gravity, masses, inertias (the diagonal of the body-frame tensor), initial
// poses and velocities and friction; restitution is 0 in the scenes above and is set per side.
//
// Engines:
//   perp           the scene's step options (auto, exact Coulomb cone, solve tolerance 1e-10).
//   bullet         btDiscreteDynamicsWorld at its defaults (btSequentialImpulseConstraintSolver, 10
//                  iterations, split impulse, default collision margins), stepSimulation(h, 1, h):
//                  one internal step of h per call. --bullet-iterations N sets its solver's
//                  iterations (m_numIterations) instead of 10, for a work–precision sweep.
//   bullet-mlcp    the same world with btMLCPSolver on btDantzigSolver (m_minimumSolverBatchSize 1,
//                  as Bullet's own MLCP demo sets it). Its Dantzig solve is dense in the contact
//                  rows: run only on scenes of at most --direct-max-bodies bodies (default 20).
//   ode-quick      dWorldQuickStep at 20 iterations (--ode-iterations N), world ERP and CFM at ODE's defaults, contacts
//                  with dContactApprox1 (friction pyramid with bounds μ times the normal force),
//                  up to 8 contacts a pair, a hash space.
//   ode-exact      dWorldStep (ODE's Dantzig LCP, dense): like bullet-mlcp, only up to
//                  --direct-max-bodies bodies. ODE's messages ("LCP internal error") are counted.
// Friction: Bullet multiplies its two sides' coefficients, so each side gets √μ (a pair then has
// √(μ_a μ_b), perp's rule); ODE takes one μ a contact, set to √(μ_a μ_b). No engine sleeps.
//
// Per scene and engine: wall-clock ms a step (mean, p50, p95, max: the step call alone), the
// penetration (measured for every engine by perp's detection (contact3d/detection.hpp) on the
// engine's state after each step: the deepest overlap over the run and the mean over steps of
// each step's deepest), the drift of the top body (the highest non-fixed body at the start: how
// far its centre moved), whether the stack stands (every non-fixed body within 10 % of its
// smallest extent of where it started; n/a for scenes with spheres, which are pours), the final
// kinetic energy, and for perp the steps whose solve met a relative error of 1e-6 under the scene's
// own law, the steps that fell back to the convex law's impulses (Coulomb's not met) and the steps
// not solved to the step's tolerance.
//
// Usage: compare_3d [--scene tower|pyramid|spheres]... [--scene-file PATH]... [--seconds S]
//                   [--max-seconds-perp S] [--max-seconds-other S] [--direct-max-bodies N]
//                   [--engine NAME]... [--bullet-iterations N] [--ode-iterations N] [--verbose]
//   --seconds S: simulated time of every run (default: each scene's duration); --max-seconds-perp S
//   stops perp's run after S seconds of stepping (the row says how many steps ran; its figures are
//   over those steps), --max-seconds-other S the same for Bullet and ODE; --engine NAME runs only
//   the named engines (perp, bullet, bullet-mlcp, ode-quick, ode-exact; default all).
//
// Bullet and ODE are comparison targets only: nothing in perp links to them.

#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "perp/perp.hpp"

// Bullet (its headers are SYSTEM through the imported target, bench/CMakeLists.txt).
#include <btBulletDynamicsCommon.h>
#include <BulletDynamics/MLCPSolvers/btDantzigSolver.h>
#include <BulletDynamics/MLCPSolvers/btMLCPSolver.h>

#ifdef PERP_HAVE_ODE
#include <ode/ode.h>
#endif

namespace {

using perp::contact3d::Body;
using perp::contact3d::Scene;
using perp::contact3d::ShapeKind;
using perp::contact3d::World;

#ifndef BT_USE_DOUBLE_PRECISION
#error "compare_3d compares against Bullet in double precision (pkg-config bullet-float64)"
#endif

double elapsed_ms(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const auto at = static_cast<std::size_t>(std::ceil(p * static_cast<double>(v.size()))) - 1;
  return v[std::min(at, v.size() - 1)];
}

/// perp's criteria of another engine's answers (Bullet's and ODE's rows): per step, the contact
/// points' impulses r, velocities after the step u and free velocities q in perp's frame (n, t1, t2)
/// of each normal, and μ; Coulomb's relative error scaled by ‖q‖, and the worst approach and cone
/// violations over the run.
class Judgement {
 public:
  /// One contact point's impulse, velocity after and free velocity (world frame), normal n (unit).
  void add(const Eigen::Vector3d& n, const Eigen::Vector3d& impulse, const Eigen::Vector3d& after,
           const Eigen::Vector3d& free, double mu) {
    Eigen::Vector3d t1, t2;
    perp::contact3d::tangent_frame(n, t1, t2);
    for (const auto& [w, out] : {std::pair{&impulse, &r_}, std::pair{&after, &u_}, std::pair{&free, &q_}}) {
      out->insert(out->end(), {w->dot(n), w->dot(t1), w->dot(t2)});
    }
    mu_.push_back(mu);
  }
  /// The step's points judged (none: nothing recorded), and cleared for the next step.
  void end_step() {
    if (!mu_.empty()) {
      const auto vec = [](const std::vector<double>& x) {
        return Eigen::Map<const Eigen::VectorXd>(x.data(), static_cast<Eigen::Index>(x.size()));
      };
      const perp::FrictionContactResiduals c =
          perp::cone_residuals(3, vec(mu_), vec(r_), vec(u_), perp::FrictionLaw::Coulomb, vec(q_).norm());
      errors_.push_back(c.relative_error);
      signorini_ = std::max(signorini_, c.signorini);
      coulomb_ = std::max(coulomb_, c.coulomb);
    }
    r_.clear();
    u_.clear();
    q_.clear();
    mu_.clear();
  }
  [[nodiscard]] std::string note() const {
    if (errors_.empty()) return "";
    char text[200];
    std::snprintf(text, sizeof text,
                  "perp's criteria of its impulses (%zu steps with contacts): relative error p50 %.2g, max %.2g; "
                  "approach max %.2g m/s; outside the cone max %.2g N s",
                  errors_.size(), percentile(errors_, 0.5), percentile(errors_, 1.0), signorini_, coulomb_);
    return text;
  }

 private:
  std::vector<double> r_, u_, q_, mu_, errors_;
  double signorini_ = 0;
  double coulomb_ = 0;
};

double side_friction(const Scene& scene, const std::optional<double>& own) {
  return own.value_or(scene.options.friction);
}
double side_restitution(const Scene& scene, const std::optional<double>& own) {
  return own.value_or(scene.options.restitution);
}

/// An engine under test: one step, and its state written into the bodies of a perp world of the
/// same scene (positions, orientations, velocities), for the measurements.
class Engine {
 public:
  virtual ~Engine() = default;
  virtual void step() = 0;
  virtual void read(World& out) const = 0;
  /// perp only: whether the last step was solved, whether it met 1e-6 under the scene's own law,
  /// and whether it fell back to another law (a Coulomb step that took the convex law's impulses:
  /// counted as a fallback, not as meeting 1e-6).
  virtual bool solved() const { return true; }
  virtual bool met_1e6() const { return true; }
  virtual bool fell_back() const { return false; }
  /// ODE only: messages (LCP internal errors) so far.
  virtual long messages() const { return 0; }
  /// perp only (--verbose): the last step's contacts, warm starts, sweeps, solve time and method.
  virtual std::string detail() const { return ""; }
  /// After a step, outside its timing: where the engine's impulses can be read (Bullet), perp's
  /// criteria of them; and the summary of those criteria over the run ("" where not read).
  virtual void judge() {}
  virtual std::string criteria() const { return ""; }
};

// ------------------------------------------------------------------------------------------ perp
class PerpEngine final : public Engine {
 public:
  explicit PerpEngine(const Scene& scene) : world_(scene.world), options_(scene.options) {}
  void step() override { report_ = perp::contact3d::moreau_jean_step(world_, options_); }
  void read(World& out) const override {
    for (std::size_t i = 0; i < out.bodies.size(); ++i) {
      out.bodies[i].position = world_.bodies[i].position;
      out.bodies[i].orientation = world_.bodies[i].orientation;
      out.bodies[i].velocity = world_.bodies[i].velocity;
      out.bodies[i].angular_velocity = world_.bodies[i].angular_velocity;
    }
  }
  bool solved() const override { return report_.status == perp::Status::Solved; }
  bool met_1e6() const override {
    return !report_.ran_solve() || (!fell_back() && report_.criteria.relative_error <= 1e-6);
  }
  /// A step of the exact cone's (or the polyhedral) model that took the convex law's impulses.
  bool fell_back() const override {
    return report_.law == perp::FrictionLaw::Convex && !report_.fallback.empty() &&
           options_.friction_model != perp::contact::FrictionModel::AnitescuPotra;
  }
  std::string detail() const override {
    char line[256];
    std::snprintf(line, sizeof line, ", %zu contacts (%zu warm), %d iterations, solve %.3f ms, error %.2g, %s",
                  report_.contacts.size(), report_.warm_started, report_.result.iterations, report_.solve_ms,
                  report_.criteria.relative_error, perp::to_string(report_.result.method).c_str());
    return line;
  }

 private:
  World world_;
  perp::contact3d::StepOptions options_;
  perp::contact3d::StepReport report_;
};

// ---------------------------------------------------------------------------------------- Bullet
class BulletEngine final : public Engine {
 public:
  BulletEngine(const Scene& scene, bool mlcp, int iterations, bool sleeping) : h_(scene.options.timestep) {
    dispatcher_ = std::make_unique<btCollisionDispatcher>(&configuration_);
    if (mlcp) {
      dantzig_ = std::make_unique<btDantzigSolver>();
      solver_ = std::make_unique<btMLCPSolver>(dantzig_.get());
    } else {
      solver_ = std::make_unique<btSequentialImpulseConstraintSolver>();
    }
    world_ = std::make_unique<btDiscreteDynamicsWorld>(dispatcher_.get(), &broadphase_, solver_.get(), &configuration_);
    if (mlcp) world_->getSolverInfo().m_minimumSolverBatchSize = 1;
    world_->getSolverInfo().m_numIterations = iterations;
    const Eigen::Vector3d& g = scene.options.gravity;
    world_->setGravity(btVector3(g.x(), g.y(), g.z()));
    const World& w = scene.world;
    if (w.ground) add_plane(Eigen::Vector3d::UnitZ(), w.ground->height, side_friction(scene, {}), side_restitution(scene, {}));
    for (const perp::contact3d::Plane& plane : w.planes) {
      const Eigen::Vector3d n = plane.unit_normal();
      add_plane(n, n.dot(plane.point), side_friction(scene, plane.friction), side_restitution(scene, plane.restitution));
    }
    for (const Body& body : w.bodies) {
      btCollisionShape* shape = make_shape(body);
      const double mass = body.fixed ? 0.0 : body.mass;
      const Eigen::Matrix3d I = body.body_inertia();
      const btVector3 inertia = body.fixed ? btVector3(0, 0, 0) : btVector3(I(0, 0), I(1, 1), I(2, 2));
      btRigidBody::btRigidBodyConstructionInfo info(mass, nullptr, shape, inertia);
      const Eigen::Quaterniond& q = body.orientation;
      info.m_startWorldTransform =
          btTransform(btQuaternion(q.x(), q.y(), q.z(), q.w()),
                      btVector3(body.position.x(), body.position.y(), body.position.z()));
      info.m_friction = std::sqrt(side_friction(scene, body.friction));
      info.m_restitution = side_restitution(scene, body.restitution);
      auto rigid = std::make_unique<btRigidBody>(info);
      if (body.fixed) {
        rigid->setCollisionFlags(rigid->getCollisionFlags() | btCollisionObject::CF_STATIC_OBJECT);
      } else {
        rigid->setLinearVelocity(btVector3(body.velocity.x(), body.velocity.y(), body.velocity.z()));
        rigid->setAngularVelocity(
            btVector3(body.angular_velocity.x(), body.angular_velocity.y(), body.angular_velocity.z()));
      }
      if (!sleeping) rigid->setActivationState(DISABLE_DEACTIVATION);
      rigid->setUserIndex(static_cast<int>(bodies_.size()));
      world_->addRigidBody(rigid.get());
      bodies_.push_back(std::move(rigid));
    }
  }
  ~BulletEngine() override {
    for (auto& body : bodies_) world_->removeRigidBody(body.get());
    for (auto& plane : planes_) world_->removeRigidBody(plane.get());
  }
  BulletEngine(const BulletEngine&) = delete;
  BulletEngine& operator=(const BulletEngine&) = delete;

  void step() override {
    if (before_.empty()) remember_velocities();  // the first step's (later: judge keeps them)
    world_->stepSimulation(h_, 1, h_);
  }
  /// perp's criteria of Bullet's answer at each contact point it solved with (distance <= 0: the
  /// points in contact; its speculative points ahead of contact are left out): r = the normal
  /// impulse along m_normalWorldOnB and the friction impulses along its lateral directions (impulses
  /// on body 0), u = the relative velocity of body 0's point after the step, both in perp's frame
  /// (n, t1, t2) of that normal, μ = Bullet's combined friction; Coulomb's law's relative error with
  /// the scale ‖q‖, q the points' relative velocities from the velocities before the step plus h g.
  void judge() override {
    const btVector3 g = world_->getGravity();
    const auto velocity_at = [&](const btCollisionObject* object, const btVector3& point, bool before) {
      const btRigidBody* body = btRigidBody::upcast(object);
      const int index = body != nullptr ? body->getUserIndex() : -1;
      if (body == nullptr || index < 0 || body->getInvMass() == 0) return btVector3(0, 0, 0);
      const btVector3 arm = point - body->getCenterOfMassPosition();
      if (!before) return body->getLinearVelocity() + body->getAngularVelocity().cross(arm);
      const auto k = static_cast<std::size_t>(index);
      return before_[k].first + h_ * g + before_[k].second.cross(arm);
    };
    const auto eigen = [](const btVector3& v) { return Eigen::Vector3d(v.x(), v.y(), v.z()); };
    for (int m = 0; m < dispatcher_->getNumManifolds(); ++m) {
      const btPersistentManifold* manifold = dispatcher_->getManifoldByIndexInternal(m);
      for (int j = 0; j < manifold->getNumContacts(); ++j) {
        const btManifoldPoint& point = manifold->getContactPoint(j);
        if (point.getDistance() > 0) continue;
        const btVector3 p = point.getPositionWorldOnA();
        const btVector3 impulse = point.m_appliedImpulse * point.m_normalWorldOnB +
                                  point.m_appliedImpulseLateral1 * point.m_lateralFrictionDir1 +
                                  point.m_appliedImpulseLateral2 * point.m_lateralFrictionDir2;
        const btVector3 after = velocity_at(manifold->getBody0(), p, false) - velocity_at(manifold->getBody1(), p, false);
        const btVector3 free = velocity_at(manifold->getBody0(), p, true) - velocity_at(manifold->getBody1(), p, true);
        judgement_.add(eigen(point.m_normalWorldOnB).normalized(), eigen(impulse), eigen(after), eigen(free),
                       point.m_combinedFriction);
      }
    }
    remember_velocities();
    judgement_.end_step();
  }
  std::string criteria() const override { return judgement_.note(); }
  void read(World& out) const override {
    for (std::size_t i = 0; i < out.bodies.size(); ++i) {
      const btRigidBody& b = *bodies_[i];
      const btTransform& t = b.getCenterOfMassTransform();
      const btQuaternion q = t.getRotation();
      Body& o = out.bodies[i];
      o.position = {t.getOrigin().x(), t.getOrigin().y(), t.getOrigin().z()};
      o.orientation = Eigen::Quaterniond(q.w(), q.x(), q.y(), q.z()).normalized();
      o.velocity = {b.getLinearVelocity().x(), b.getLinearVelocity().y(), b.getLinearVelocity().z()};
      o.angular_velocity = {b.getAngularVelocity().x(), b.getAngularVelocity().y(), b.getAngularVelocity().z()};
    }
  }

 private:
  btCollisionShape* make_shape(const Body& body) {
    const perp::contact3d::Shape& s = body.shape;
    std::unique_ptr<btCollisionShape> shape;
    switch (s.kind) {
      case ShapeKind::Sphere:
        shape = std::make_unique<btSphereShape>(s.radius);
        break;
      case ShapeKind::Box:
        shape = std::make_unique<btBoxShape>(btVector3(s.size.x() / 2, s.size.y() / 2, s.size.z() / 2));
        break;
      case ShapeKind::Capsule:
        shape = std::make_unique<btCapsuleShapeZ>(s.radius, s.length);
        break;
      case ShapeKind::Cylinder:
        shape = std::make_unique<btCylinderShapeZ>(btVector3(s.radius, s.radius, s.length / 2));
        break;
    }
    shapes_.push_back(std::move(shape));
    return shapes_.back().get();
  }
  void add_plane(const Eigen::Vector3d& n, double offset, double friction, double restitution) {
    shapes_.push_back(std::make_unique<btStaticPlaneShape>(btVector3(n.x(), n.y(), n.z()), offset));
    btRigidBody::btRigidBodyConstructionInfo info(0.0, nullptr, shapes_.back().get());
    info.m_friction = std::sqrt(friction);
    info.m_restitution = restitution;
    planes_.push_back(std::make_unique<btRigidBody>(info));
    world_->addRigidBody(planes_.back().get());
  }

  void remember_velocities() {
    before_.clear();
    for (const auto& body : bodies_) before_.emplace_back(body->getLinearVelocity(), body->getAngularVelocity());
  }

  double h_;
  std::vector<std::pair<btVector3, btVector3>> before_;  // each body's (v, ω) before the step
  Judgement judgement_;
  btDefaultCollisionConfiguration configuration_;
  btDbvtBroadphase broadphase_;
  std::unique_ptr<btCollisionDispatcher> dispatcher_;
  std::unique_ptr<btDantzigSolver> dantzig_;
  std::unique_ptr<btConstraintSolver> solver_;
  std::unique_ptr<btDiscreteDynamicsWorld> world_;
  std::vector<std::unique_ptr<btCollisionShape>> shapes_;
  std::vector<std::unique_ptr<btRigidBody>> bodies_;
  std::vector<std::unique_ptr<btRigidBody>> planes_;
};

// ------------------------------------------------------------------------------------------- ODE
#ifdef PERP_HAVE_ODE
long g_ode_messages = 0;
std::string g_ode_first_message;
void count_ode_message(int number, const char* format, va_list arguments) {
  if (g_ode_messages++ == 0) {
    char text[256];
    std::vsnprintf(text, sizeof text, format, arguments);
    g_ode_first_message = "ODE message " + std::to_string(number) + ": " + text;
  }
}

class OdeEngine final : public Engine {
 public:
  OdeEngine(const Scene& scene, bool exact, int iterations, bool sleeping) : h_(scene.options.timestep), exact_(exact) {
    world_ = dWorldCreate();
    space_ = dHashSpaceCreate(nullptr);
    contacts_ = dJointGroupCreate(0);
    const Eigen::Vector3d& g = scene.options.gravity;
    dWorldSetGravity(world_, g.x(), g.y(), g.z());
    dWorldSetQuickStepNumIterations(world_, iterations);
    dWorldSetAutoDisableFlag(world_, sleeping ? 1 : 0);
    const World& w = scene.world;
    sides_.reserve(w.bodies.size() + w.planes.size() + 1);
    if (w.ground) {
      sides_.push_back(side_friction(scene, {}));
      dGeomSetData(dCreatePlane(space_, 0, 0, 1, w.ground->height), &sides_.back());
    }
    for (const perp::contact3d::Plane& plane : w.planes) {
      const Eigen::Vector3d n = plane.unit_normal();
      sides_.push_back(side_friction(scene, plane.friction));
      dGeomSetData(dCreatePlane(space_, n.x(), n.y(), n.z(), n.dot(plane.point)), &sides_.back());
    }
    for (const Body& body : w.bodies) {
      const perp::contact3d::Shape& s = body.shape;
      dGeomID geom = nullptr;
      switch (s.kind) {
        case ShapeKind::Sphere:
          geom = dCreateSphere(space_, s.radius);
          break;
        case ShapeKind::Box:
          geom = dCreateBox(space_, s.size.x(), s.size.y(), s.size.z());
          break;
        case ShapeKind::Capsule:
          geom = dCreateCapsule(space_, s.radius, s.length);
          break;
        case ShapeKind::Cylinder:
          geom = dCreateCylinder(space_, s.radius, s.length);
          break;
      }
      sides_.push_back(side_friction(scene, body.friction));
      dGeomSetData(geom, &sides_.back());
      const Eigen::Quaterniond& q = body.orientation;
      const dQuaternion quaternion = {q.w(), q.x(), q.y(), q.z()};
      if (body.fixed) {
        dGeomSetPosition(geom, body.position.x(), body.position.y(), body.position.z());
        dGeomSetQuaternion(geom, quaternion);
        bodies_.push_back(nullptr);
        continue;
      }
      dBodyID b = dBodyCreate(world_);
      dMass mass;
      const Eigen::Matrix3d I = body.body_inertia();
      dMassSetParameters(&mass, body.mass, 0, 0, 0, I(0, 0), I(1, 1), I(2, 2), I(0, 1), I(0, 2), I(1, 2));
      dBodySetMass(b, &mass);
      dBodySetPosition(b, body.position.x(), body.position.y(), body.position.z());
      dBodySetQuaternion(b, quaternion);
      dBodySetLinearVel(b, body.velocity.x(), body.velocity.y(), body.velocity.z());
      dBodySetAngularVel(b, body.angular_velocity.x(), body.angular_velocity.y(), body.angular_velocity.z());
      dGeomSetBody(geom, b);
      dBodySetData(b, reinterpret_cast<void*>(static_cast<std::intptr_t>(bodies_.size())));  // its index, for judge
      bodies_.push_back(b);
    }
  }
  ~OdeEngine() override {
    dJointGroupDestroy(contacts_);
    dSpaceDestroy(space_);
    dWorldDestroy(world_);
  }
  OdeEngine(const OdeEngine&) = delete;
  OdeEngine& operator=(const OdeEngine&) = delete;

  void step() override {
    if (before_.empty()) remember_velocities();
    records_.clear();
    dSpaceCollide(space_, this, &OdeEngine::near);
    if (exact_) {
      dWorldStep(world_, h_);
    } else {
      dWorldQuickStep(world_, h_);
    }
    dJointGroupEmpty(contacts_);
  }
  void read(World& out) const override {
    for (std::size_t i = 0; i < out.bodies.size(); ++i) {
      const dBodyID b = bodies_[i];
      if (b == nullptr) continue;
      const dReal* p = dBodyGetPosition(b);
      const dReal* q = dBodyGetQuaternion(b);
      const dReal* v = dBodyGetLinearVel(b);
      const dReal* w = dBodyGetAngularVel(b);
      Body& o = out.bodies[i];
      o.position = {p[0], p[1], p[2]};
      o.orientation = Eigen::Quaterniond(q[0], q[1], q[2], q[3]).normalized();
      o.velocity = {v[0], v[1], v[2]};
      o.angular_velocity = {w[0], w[1], w[2]};
    }
  }
  long messages() const override { return g_ode_messages; }

  /// perp's criteria of ODE's answer at each contact joint of the step (as Bullet's, above): r = the
  /// joint's force on its first body (`dJointFeedback`) times h, u = that body's point velocity
  /// relative to the other's after the step, in perp's frame of the contact normal turned to point
  /// from the other side to that body, μ = the contact's.
  void judge() override {
    const dReal* g = nullptr;
    dVector3 gravity;
    dWorldGetGravity(world_, gravity);
    g = gravity;
    for (const Record& c : records_) {
      // ODE attaches a joint with a null first body reversed: its feedback's f1 is then the force on
      // the second body, and the normal (out of the second geom into the first) is turned for it.
      const dBodyID a = c.b1 != nullptr ? c.b1 : c.b2;
      const dBodyID b = c.b1 != nullptr ? c.b2 : nullptr;
      const double sign = c.b1 != nullptr ? 1.0 : -1.0;
      const Eigen::Vector3d n = sign * Eigen::Vector3d(c.geom.normal[0], c.geom.normal[1], c.geom.normal[2]).normalized();
      const Eigen::Vector3d impulse = h_ * Eigen::Vector3d(c.feedback.f1[0], c.feedback.f1[1], c.feedback.f1[2]);
      const auto point_velocity = [&](dBodyID body, bool before) -> Eigen::Vector3d {
        if (body == nullptr) return Eigen::Vector3d::Zero();
        const dReal* x = dBodyGetPosition(body);
        const Eigen::Vector3d arm(c.geom.pos[0] - x[0], c.geom.pos[1] - x[1], c.geom.pos[2] - x[2]);
        if (!before) {
          dVector3 v;
          dBodyGetPointVel(body, c.geom.pos[0], c.geom.pos[1], c.geom.pos[2], v);
          return {v[0], v[1], v[2]};
        }
        const auto& [v, w] = before_[index_of(body)];
        return v + h_ * Eigen::Vector3d(g[0], g[1], g[2]) + w.cross(arm);
      };
      judgement_.add(n, impulse, point_velocity(a, false) - point_velocity(b, false),
                     point_velocity(a, true) - point_velocity(b, true), c.mu);
    }
    remember_velocities();
    judgement_.end_step();
  }
  std::string criteria() const override { return judgement_.note(); }

 private:
  struct Record {
    dJointFeedback feedback{};
    dContactGeom geom{};
    dBodyID b1 = nullptr;
    dBodyID b2 = nullptr;
    double mu = 0;
  };
  static std::size_t index_of(dBodyID body) {
    return static_cast<std::size_t>(reinterpret_cast<std::intptr_t>(dBodyGetData(body)));
  }
  void remember_velocities() {
    before_.clear();
    for (const dBodyID body : bodies_) {
      if (body == nullptr) {
        before_.emplace_back(Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero());
        continue;
      }
      const dReal* v = dBodyGetLinearVel(body);
      const dReal* w = dBodyGetAngularVel(body);
      before_.emplace_back(Eigen::Vector3d(v[0], v[1], v[2]), Eigen::Vector3d(w[0], w[1], w[2]));
    }
  }
  std::deque<Record> records_;  // this step's contact joints (stable addresses for their feedback)
  std::vector<std::pair<Eigen::Vector3d, Eigen::Vector3d>> before_;
  Judgement judgement_;

  static constexpr int kMaxContacts = 8;
  static void near(void* data, dGeomID o1, dGeomID o2) {
    auto* self = static_cast<OdeEngine*>(data);
    const dBodyID b1 = dGeomGetBody(o1);
    const dBodyID b2 = dGeomGetBody(o2);
    if (b1 == nullptr && b2 == nullptr) return;
    dContact contact[kMaxContacts] = {};
    const int n = dCollide(o1, o2, kMaxContacts, &contact[0].geom, sizeof(dContact));
    const double mu = std::sqrt(*static_cast<double*>(dGeomGetData(o1)) * *static_cast<double*>(dGeomGetData(o2)));
    for (int k = 0; k < n; ++k) {
      contact[k].surface.mode = dContactApprox1;
      contact[k].surface.mu = mu;
      const dJointID joint = dJointCreateContact(self->world_, self->contacts_, &contact[k]);
      dJointAttach(joint, b1, b2);
      Record& record = self->records_.emplace_back();
      record.geom = contact[k].geom;
      record.b1 = b1;
      record.b2 = b2;
      record.mu = mu;
      dJointSetFeedback(joint, &record.feedback);
    }
  }

  double h_;
  bool exact_;
  dWorldID world_;
  dSpaceID space_;
  dJointGroupID contacts_;
  std::vector<double> sides_;
  std::vector<dBodyID> bodies_;
};
#endif

// --------------------------------------------------------------------------------- measurements
struct Row {
  std::string engine;
  std::string note;
  long steps = 0;
  long steps_asked = 0;
  std::vector<double> ms;
  double max_penetration = 0;
  double mean_penetration = 0;
  double top_drift = 0;
  int stands = -1;  // -1: n/a
  double kinetic = 0;
  long met_1e6 = -1;
  long fell_back = -1;
  long unsolved = -1;
  long messages = -1;
};

double smallest_extent(const Body& body) {
  switch (body.shape.kind) {
    case ShapeKind::Box:
      return body.shape.size.minCoeff();
    case ShapeKind::Sphere:
      return 2 * body.shape.radius;
    case ShapeKind::Capsule:
    case ShapeKind::Cylinder:
      return std::min(2 * body.shape.radius, body.shape.length + (body.shape.kind == ShapeKind::Capsule ? 2 * body.shape.radius : 0.0));
  }
  return 0;
}

double deepest_overlap(const World& world) {
  double deepest = 0;
  for (const perp::contact3d::Contact& c : perp::contact3d::detect_contacts(world, 0.0)) deepest = std::max(deepest, -c.gap);
  return deepest;
}

Row measure(const std::string& name, Engine& engine, const Scene& scene, long steps, double max_seconds, bool pile,
            bool is_perp, bool is_ode, bool verbose) {
  Row row;
  row.engine = name;
  row.steps_asked = steps;
  World state = scene.world;
  int top = -1;
  for (std::size_t i = 0; i < state.bodies.size(); ++i) {
    if (state.bodies[i].fixed) continue;
    if (top < 0 || state.bodies[i].position.z() > state.bodies[static_cast<std::size_t>(top)].position.z()) {
      top = static_cast<int>(i);
    }
  }
  double sum_penetration = 0;
  long met = 0;
  long fell_back = 0;
  long unsolved = 0;
  double stepping_ms = 0;
  for (long k = 0; k < steps; ++k) {
    const auto start = std::chrono::steady_clock::now();
    engine.step();
    const double ms = elapsed_ms(start);
    row.ms.push_back(ms);
    stepping_ms += ms;
    engine.judge();
    if (engine.met_1e6()) ++met;
    if (engine.fell_back()) ++fell_back;
    if (!engine.solved()) ++unsolved;
    engine.read(state);
    const double deepest = deepest_overlap(state);
    row.max_penetration = std::max(row.max_penetration, deepest);
    sum_penetration += deepest;
    ++row.steps;
    if (verbose) {
      std::fprintf(stderr, "%s step %ld: %.3f ms, overlap %.3g m%s\n", name.c_str(), k, ms, deepest,
                   engine.detail().c_str());
    }
    if (max_seconds > 0 && stepping_ms > 1e3 * max_seconds) break;
  }
  row.mean_penetration = row.steps > 0 ? sum_penetration / static_cast<double>(row.steps) : 0;
  if (top >= 0) {
    const auto t = static_cast<std::size_t>(top);
    row.top_drift = (state.bodies[t].position - scene.world.bodies[t].position).norm();
  }
  if (!pile) {
    row.stands = 1;
    for (std::size_t i = 0; i < state.bodies.size(); ++i) {
      const Body& b = scene.world.bodies[i];
      if (b.fixed) continue;
      if ((state.bodies[i].position - b.position).norm() > 0.1 * smallest_extent(b)) row.stands = 0;
    }
  }
  for (const Body& b : state.bodies) {
    if (!b.fixed) row.kinetic += perp::contact3d::kinetic_energy(b);
  }
  if (is_perp) {
    row.met_1e6 = met;
    row.fell_back = fell_back;
    row.unsolved = unsolved;
  }
  row.note = engine.criteria();
  if (is_ode) {
    row.messages = engine.messages();
#ifdef PERP_HAVE_ODE
    if (row.messages > 0) row.note = g_ode_first_message + (row.note.empty() ? "" : "; " + row.note);
#endif
  }
  return row;
}

void print_table(const std::string& title, const Scene& scene, const std::vector<Row>& rows) {
  std::printf("\n%s: %zu bodies, h = %.6g s, mu = %.3g\n", title.c_str(), scene.world.bodies.size(),
              scene.options.timestep, scene.options.friction);
  std::printf("| engine | steps | ms/step mean | p50 | p95 | max | pen. max (mm) | pen. mean (mm) | top drift (m) | stands | final KE (J) | perp: met 1e-6 / fell back / unsolved | note |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const Row& r : rows) {
    double mean = 0;
    for (const double m : r.ms) mean += m;
    mean = r.ms.empty() ? 0 : mean / static_cast<double>(r.ms.size());
    std::string steps = std::to_string(r.steps);
    if (r.steps < r.steps_asked) steps += " of " + std::to_string(r.steps_asked);
    std::string perp_cell = "—";
    if (r.met_1e6 >= 0) {
      perp_cell = std::to_string(r.met_1e6) + " / " + std::to_string(r.fell_back) + " / " + std::to_string(r.unsolved);
    }
    std::string note = r.note;
    if (r.messages > 0) note = std::to_string(r.messages) + " ODE messages, the first: " + note;
    std::printf("| %s | %s | %.3f | %.3f | %.3f | %.3f | %.3g | %.3g | %.3g | %s | %.3g | %s | %s |\n", r.engine.c_str(),
                steps.c_str(), mean, percentile(r.ms, 0.5), percentile(r.ms, 0.95), percentile(r.ms, 1.0),
                1e3 * r.max_penetration, 1e3 * r.mean_penetration, r.top_drift,
                r.stands < 0 ? "n/a" : (r.stands ? "yes" : "no"), r.kinetic, perp_cell.c_str(), note.c_str());
  }
  std::fflush(stdout);
}

bool wants(const std::vector<std::string>& engines, const std::string& name) {
  return engines.empty() || std::find(engines.begin(), engines.end(), name) != engines.end();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> files;
  std::vector<std::string> engines;
  double seconds = 0;
  double max_seconds_perp = 0;
  double max_seconds_other = 0;
  long direct_max_bodies = 20;
  bool verbose = false;
  std::optional<perp::Method> perp_method;
  double perp_tolerance = 0;
  std::optional<perp::contact::FrictionModel> perp_friction_model;
  bool sleeping = false;
  long perp_auto_sweeps = 0;
  double perp_relaxation = 0;
  long bullet_iterations = 10;  // btContactSolverInfo's default
  long ode_iterations = 20;     // ODE's default for dWorldQuickStep
  const std::string dir = PERP_EXAMPLE_SCENES_DIR;
  auto usage = [] {
    std::fprintf(stderr,
                 "usage: compare_3d [--scene tower|pyramid|spheres]... [--scene-file PATH]... [--seconds S] "
                 "[--max-seconds-perp S] [--max-seconds-other S] [--direct-max-bodies N] [--engine NAME]... [--perp-method NAME] [--perp-tolerance T] "
                 "[--perp-friction-model NAME] [--sleeping] [--perp-auto-sweeps N] [--perp-relaxation W] [--bullet-iterations N] [--ode-iterations N] [--verbose]\n"
                 "  --perp-method, --perp-tolerance, --perp-friction-model: perp's method, tolerance and friction model\n"
                 "    (coulomb, anitescu-potra or stewart-trinkle) instead of the scene's\n"
                 "  --sleeping: every engine with its sleeping: perp's islands (the scene's sleep_speed and sleep_time),\n"
                 "    Bullet's deactivation and ODE's auto-disable at their defaults (default: none sleeps)\n"
                 "  --perp-auto-sweeps: auto's nsgs sweeps before its next method (friction_contact.automatic.nsgs_sweeps)\n"
                 "  --perp-relaxation: nsgs' over-relaxation (friction_contact.nsgs.relaxation, in (0, 2))\n"
                 "  --bullet-iterations, --ode-iterations: the other engines' solver iterations (default 10, 20)\n");
    return 2;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--scene" && has_value) {
      const std::string name = argv[++i];
      if (name == "tower") {
        files.push_back(dir + "/tower3d.json");
      } else if (name == "pyramid") {
        files.push_back(dir + "/pyramid3d.json");
      } else if (name == "spheres") {
        files.push_back(dir + "/spheres1000_3d.json");
      } else {
        std::fprintf(stderr, "compare_3d: --scene takes tower, pyramid or spheres, got '%s'\n", name.c_str());
        return 2;
      }
    } else if (arg == "--scene-file" && has_value) {
      files.emplace_back(argv[++i]);
    } else if (arg == "--seconds" && has_value) {
      seconds = std::strtod(argv[++i], nullptr);
    } else if (arg == "--max-seconds-perp" && has_value) {
      max_seconds_perp = std::strtod(argv[++i], nullptr);
    } else if (arg == "--max-seconds-other" && has_value) {
      max_seconds_other = std::strtod(argv[++i], nullptr);
    } else if (arg == "--direct-max-bodies" && has_value) {
      direct_max_bodies = std::atol(argv[++i]);
    } else if (arg == "--engine" && has_value) {
      const std::string name = argv[++i];
      if (name != "perp" && name != "bullet" && name != "bullet-mlcp" && name != "ode-quick" && name != "ode-exact") {
        std::fprintf(stderr, "compare_3d: --engine takes perp, bullet, bullet-mlcp, ode-quick or ode-exact, got '%s'\n",
                     name.c_str());
        return 2;
      }
      engines.push_back(name);
    } else if (arg == "--perp-method" && has_value) {
      try {
        perp_method = perp::from_string<perp::Method>(argv[++i]);
      } catch (const std::exception& error) {
        std::fprintf(stderr, "compare_3d: --perp-method: %s\n", error.what());
        return 2;
      }
    } else if (arg == "--perp-friction-model" && has_value) {
      try {
        perp_friction_model = perp::from_string<perp::contact::FrictionModel>(argv[++i]);
      } catch (const std::exception& error) {
        std::fprintf(stderr, "compare_3d: --perp-friction-model: %s\n", error.what());
        return 2;
      }
    } else if (arg == "--sleeping") {
      sleeping = true;
    } else if (arg == "--perp-tolerance" && has_value) {
      perp_tolerance = std::strtod(argv[++i], nullptr);
      if (!(perp_tolerance > 0 && perp_tolerance < 1)) {
        std::fprintf(stderr, "compare_3d: --perp-tolerance takes a value in (0, 1), got '%s'\n", argv[i]);
        return 2;
      }
    } else if (arg == "--perp-auto-sweeps" && has_value) {
      perp_auto_sweeps = std::atol(argv[++i]);
      if (perp_auto_sweeps < 1 || perp_auto_sweeps > 1000000) {
        std::fprintf(stderr, "compare_3d: --perp-auto-sweeps takes an integer in [1, 1000000], got '%s'\n", argv[i]);
        return 2;
      }
    } else if (arg == "--perp-relaxation" && has_value) {
      perp_relaxation = std::strtod(argv[++i], nullptr);
      if (!(perp_relaxation > 0 && perp_relaxation < 2)) {
        std::fprintf(stderr, "compare_3d: --perp-relaxation takes a value in (0, 2), got '%s'\n", argv[i]);
        return 2;
      }
    } else if ((arg == "--bullet-iterations" || arg == "--ode-iterations") && has_value) {
      const long iterations = std::atol(argv[++i]);
      if (iterations < 1 || iterations > 100000) {
        std::fprintf(stderr, "compare_3d: %s takes an integer in [1, 100000], got '%s'\n", arg.c_str(), argv[i]);
        return 2;
      }
      (arg == "--bullet-iterations" ? bullet_iterations : ode_iterations) = iterations;
    } else if (arg == "--verbose") {
      verbose = true;
    } else {
      return usage();
    }
  }
  if (!(seconds >= 0) || !std::isfinite(seconds) || !(max_seconds_perp >= 0) || !(max_seconds_other >= 0)) {
    std::fprintf(stderr, "compare_3d: --seconds and --max-seconds-* take finite values >= 0\n");
    return 2;
  }
  if (files.empty()) files = {dir + "/tower3d.json", dir + "/pyramid3d.json", dir + "/spheres1000_3d.json"};

  Eigen::setNbThreads(1);
  std::printf("compare_3d: perp's 3D step, Bullet %d (double precision, btDiscreteDynamicsWorld)", btGetVersion());
#ifdef PERP_HAVE_ODE
  dInitODE2(0);
  dSetMessageHandler(&count_ode_message);
  std::printf(", ODE %s", PERP_ODE_VERSION);
#else
  std::printf(", no ODE (libode-dev not found when bench/ was configured)");
#endif
  std::printf("; one thread each, %s; Bullet's solver at %ld iterations, ODE's quickstep at %ld\n",
              sleeping ? "each engine's sleeping on (--sleeping)" : "no sleeping",
              bullet_iterations, ode_iterations);

  for (const std::string& file : files) {
    Scene scene;
    try {
      scene = perp::read_scene3d_file(file);
    } catch (const std::exception& error) {
      std::fprintf(stderr, "compare_3d: %s\n", error.what());
      return 1;
    }
    if (perp_method) scene.options.method = *perp_method;
    if (perp_tolerance > 0) scene.options.solve.tolerance = perp_tolerance;
    if (perp_friction_model) scene.options.friction_model = *perp_friction_model;
    if (sleeping) scene.options.sleeping = true;
    if (perp_relaxation > 0) scene.options.solve.friction_contact.nsgs.relaxation = perp_relaxation;
    if (perp_auto_sweeps > 0) {
      scene.options.solve.friction_contact.automatic.nsgs_sweeps = static_cast<int>(perp_auto_sweeps);
    }
    const double duration = seconds > 0 ? seconds : scene.duration;
    const long steps = std::lround(std::ceil(duration / scene.options.timestep - 1e-9));
    bool pile = false;
    for (const Body& b : scene.world.bodies) pile = pile || b.shape.kind == ShapeKind::Sphere;
    const bool direct = static_cast<long>(scene.world.bodies.size()) <= direct_max_bodies;
    std::vector<Row> rows;
    auto add = [&](const std::string& name, auto make, double cap, bool is_perp, bool is_ode) {
      if (!wants(engines, name)) return;
      std::unique_ptr<Engine> engine = make();
      std::fprintf(stderr, "compare_3d: %s, %s ...\n", file.c_str(), name.c_str());
      rows.push_back(measure(name, *engine, scene, steps, cap, pile, is_perp, is_ode, verbose));
    };
    add("perp", [&] { return std::make_unique<PerpEngine>(scene); }, max_seconds_perp, true, false);
    add("bullet", [&] { return std::make_unique<BulletEngine>(scene, false, static_cast<int>(bullet_iterations), sleeping); }, max_seconds_other, false, false);
    if (direct) {
      add("bullet-mlcp", [&] { return std::make_unique<BulletEngine>(scene, true, static_cast<int>(bullet_iterations), sleeping); }, max_seconds_other, false, false);
    }
#ifdef PERP_HAVE_ODE
    g_ode_messages = 0;
    add("ode-quick", [&] { return std::make_unique<OdeEngine>(scene, false, static_cast<int>(ode_iterations), sleeping); }, max_seconds_other, false, true);
    if (direct) {
      g_ode_messages = 0;
      add("ode-exact", [&] { return std::make_unique<OdeEngine>(scene, true, static_cast<int>(ode_iterations), sleeping); }, max_seconds_other, false, true);
    }
#endif
    std::string title = file.substr(file.find_last_of('/') + 1) + ", " + std::to_string(duration) + " s";
    if (!direct) title += " (bullet-mlcp and ode-exact skipped: more than --direct-max-bodies bodies)";
    print_table(title, scene, rows);
  }
#ifdef PERP_HAVE_ODE
  dCloseODE();
#endif
  return 0;
}
