#pragma once
// Private to the contact layer: a Moreau–Jean step's frictional contact problem in the global form
// (core/global_friction_contact.hpp) and the chain that solves packed steps there.
#include <Eigen/Dense>
#include <string>

#include "perp/contact/moreau_jean.hpp"
#include "perp/core/global_friction_contact.hpp"
#include "perp/solvers/friction_contact.hpp"

namespace perp::contact::detail {

/// The step's problem in the global form over the moving degrees of freedom, in the velocity
/// change Δv = v − v_free: M = the moving dofs' masses (diagonal), H = Jᵀ on them, q = 0, b = the
/// local free velocity (`factored.q`: J v_free and the restitution and drift biases), the law given.
/// The columns of fixed bodies (M⁻¹ = 0) are left out.
[[nodiscard]] GlobalFrictionContact global_form(const FactoredFrictionContact& factored, FrictionLaw law);

/// What the packed-step chain did.
struct PackedOutcome {
  Result result;                    ///< z = r, w = u, residual: the law's relative error
  FrictionContactResiduals criteria;  ///< of the law the impulses solve (see `law`)
  FrictionLaw law = FrictionLaw::Coulomb;  ///< Convex where Coulomb's law was not met and it fell back
  std::string fallback;             ///< empty, or how the step fell back
};

/// The chain of a packed Coulomb step (auto, more contacts than the dense pivoting takes): nsgs on
/// the factors from the warm start (a fifth of `friction_contact.automatic.nsgs_sweeps`); where that does
/// not solve, the convex law by the interior point on the factors (its v is unique on redundant
/// contacts), then nsgs from the convex law's impulses (in a packed heap most contacts stick,
/// where the two laws agree), then in the plane on steps of at most 650 contacts Lemke on the
/// exact Stewart–Trinkle LCP (its path capped, global_step.cpp); where Coulomb's law is still not
/// met, the convex law's impulses when it solved (`law` Convex, `fallback` says so), else the best
/// Coulomb point.
[[nodiscard]] PackedOutcome solve_packed_coulomb(const FactoredFrictionContact& factored, const SolveOptions& options);

/// The convex law (Anitescu–Potra) in the global form, by `solve(GlobalFrictionContact)` (auto: the
/// interior point on the factors), from `options.initial_guess` (r) where it is set.
[[nodiscard]] PackedOutcome solve_convex(const FactoredFrictionContact& factored, const SolveOptions& options);

}  // namespace perp::contact::detail
