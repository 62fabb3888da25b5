#pragma once
// Private to the contact layer (not installed): the problems of a Moreau–Jean step and the layout of
// their unknowns — the frictional contact problem of the Coulomb model, the dense LCP of each
// friction model, the convex ones on their factors — each with the conversions between its unknowns
// and the contacts' impulses, so that a model's layout is written and read in one place.
#include <Eigen/Dense>
#include <functional>

#include "perp/contact/moreau_jean.hpp"
#include "perp/contact/signorini.hpp"
#include "perp/core/lcp.hpp"
#include "perp/solvers/factored_lcp.hpp"
#include "perp/solvers/friction_contact.hpp"

namespace perp::contact::detail {

/// The Coulomb model's frictional contact problem (d = 2) on its factors, H = the contacts'
/// Jacobian and M⁻¹, its unknowns interleaved per contact: r = (Λ_N,k, Λ_T,k)_k, and q likewise
/// (J_N v_free + e J_N v, J_T v_free).
[[nodiscard]] FactoredFrictionContact coulomb_formulation(const std::vector<Contact>& contacts,
                                                          const Eigen::VectorXd& inverse_mass,
                                                          const Eigen::VectorXd& normal_bias,
                                                          const Eigen::VectorXd& tangent_bias,
                                                          const Eigen::VectorXd& friction);

/// (a_k, b_k)_k: the layout of `coulomb_formulation`'s unknowns (from impulses: its warm start) and of
/// its q (from the biases).
[[nodiscard]] Eigen::VectorXd coulomb_interleave(const Eigen::VectorXd& normal, const Eigen::VectorXd& tangent);

/// The impulses of `coulomb_formulation`'s unknowns r (sized 2 × the impulses').
void read_coulomb(const Eigen::VectorXd& r, Eigen::VectorXd& normal, Eigen::VectorXd& tangent);

/// An LCP formulation of the step: its problem and how its unknowns read back as impulses.
struct LcpFormulation {
  Lcp lcp;
  /// z ↦ (Λ_N, Λ_T), the impulses of the contacts.
  std::function<void(const Eigen::VectorXd& z, Eigen::VectorXd& normal, Eigen::VectorXd& tangent)> read_back;
};

/// The impulses of the convex formulations' unknowns: frictionless z = Λ_N (Λ_T left as it is), or
/// Anitescu–Potra z = [β⁺, β⁻] with Λ_N = β⁺ + β⁻, Λ_T = μ (β⁺ − β⁻); told apart by z's size.
void read_convex(const Eigen::VectorXd& z, const Eigen::VectorXd& friction, Eigen::VectorXd& normal,
                 Eigen::VectorXd& tangent);

/// The inverse of `read_convex`: the unknowns of the convex formulations that give these impulses
/// (Λ_N alone when every μ is 0, else β± = (Λ_N ± Λ_T/μ)/2, Λ_N/2 each where μ = 0), clamped at 0.
[[nodiscard]] Eigen::VectorXd convex_start(const Eigen::VectorXd& normal, const Eigen::VectorXd& tangent,
                                           const Eigen::VectorXd& friction);

/// The LCP of `model` (frictionless when every μ is 0), with its layout of unknowns:
///   frictionless     z = Λ_N
///   Stewart–Trinkle  z = [Λ_N, β⁺, β⁻, γ], Λ_T = β⁺ − β⁻
///   Anitescu–Potra   z = [β⁺, β⁻], Λ_N = β⁺ + β⁻, Λ_T = μ (β⁺ − β⁻)
[[nodiscard]] LcpFormulation lcp_formulation(const ContactSpace& space, const Eigen::VectorXd& normal_bias,
                                             const Eigen::VectorXd& tangent_bias, const Eigen::VectorXd& friction,
                                             FrictionModel model);

/// The convex formulations (frictionless, Anitescu–Potra) as an LCP given by its factors,
/// A M⁻¹ Aᵀ z + c, with the layout of unknowns of `lcp_formulation`: A = J_N, or the rows
/// (n ± μ_k t)ᵀ J stacked as [plus; minus].
[[nodiscard]] FactoredLcp factored_formulation(const ContactSpace& space, const Eigen::VectorXd& normal_bias,
                                               const Eigen::VectorXd& tangent_bias, const Eigen::VectorXd& friction);

}  // namespace perp::contact::detail
