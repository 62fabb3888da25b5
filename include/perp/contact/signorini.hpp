#pragma once
/// \file
/// Signorini's condition at its three levels ([chapter] §1.5), each as a function that returns the
/// perp problem it builds, and the frictional velocity-level problems of a time step.
///
///   position      0 <= g_N(q) ⊥ λ_N >= 0   decides which contacts are active (by the gap)
///   velocity      0 <= ġ_N⁺ + e ġ_N⁻ ⊥ Λ_N >= 0   the LCP of each Moreau–Jean step (impulses)
///   acceleration  0 <= g̈_N ⊥ λ_N >= 0      forces of contacts at rest (g = ġ = 0), LCP(b, W)

#include <Eigen/Dense>
#include <Eigen/SparseCore>
#include <vector>

#include "perp/contact/body.hpp"
#include "perp/contact/detection.hpp"
#include "perp/core/lcp.hpp"

namespace perp::contact {

/// The contact-space operators of a set of contacts: J_N, J_T and the diagonal of M⁻¹.
struct ContactSpace {
  Eigen::SparseMatrix<double> normal;   ///< J_N, contacts × dofs
  Eigen::SparseMatrix<double> tangent;  ///< J_T, contacts × dofs
  Eigen::VectorXd inverse_mass;         ///< diag(M⁻¹), dofs

  [[nodiscard]] Eigen::Index contact_count() const { return normal.rows(); }
};

[[nodiscard]] ContactSpace contact_space(const World& world, const std::vector<Contact>& contacts);

// ---- position level -------------------------------------------------------------------------

/// Indices of the contacts whose gap is <= threshold: the active set of position-level
/// Signorini (a closed contact may carry force, an open one may not).
[[nodiscard]] std::vector<int> active_by_gap(const std::vector<Contact>& contacts, double threshold = 0);

/// Linearised position-level Signorini: 0 <= λ ⊥ g + W λ >= 0 with W = J_N M⁻¹ J_Nᵀ. Its
/// solution is the smallest mass-weighted displacement Δq = M⁻¹ J_Nᵀ λ whose first-order gaps
/// g + J_N Δq are all >= 0 (a projection of q onto the admissible set, to first order); λ = 0
/// exactly when no gap is negative.
[[nodiscard]] Lcp position_level_lcp(const World& world, const std::vector<Contact>& contacts);

// ---- velocity level -------------------------------------------------------------------------

/// Frictionless Moreau–Jean step: 0 <= Λ ⊥ W Λ + J_N v_free + e J_N v_before >= 0, where
/// v_free = v_before + h M⁻¹ f is the velocity without contact impulses and e ∈ [0, 1] Newton's
/// restitution coefficient. Λ are normal impulses; v_after = v_free + M⁻¹ J_Nᵀ Λ.
[[nodiscard]] Lcp velocity_level_lcp(const ContactSpace& space, const Eigen::VectorXd& v_free,
                                     const Eigen::VectorXd& v_before, double restitution);

/// Stewart–Trinkle (1996) velocity-level LCP with exact 2-D Coulomb friction. The friction cone
/// of a planar contact has the two edges ±t, so with β⁺, β⁻ >= 0 the tangent impulse
/// Λ_T = β⁺ − β⁻ and the friction-slack γ (≈ the sliding speed) the conditions
///   0 <= Λ_N ⊥ u_N + e u_N⁻                 >= 0
///   0 <= β⁺  ⊥ u_T + γ                      >= 0
///   0 <= β⁻  ⊥ −u_T + γ                     >= 0
///   0 <= γ   ⊥ μ Λ_N − β⁺ − β⁻              >= 0
/// are Coulomb's law: sticking (|Λ_T| <= μ Λ_N, u_T = 0) or sliding (Λ_T = −μ Λ_N sign(u_T)).
/// u = J v_free + W Λ. Layout of z (m = contacts): [Λ_N (m), β⁺ (m), β⁻ (m), γ (m)].
/// The matrix is not a P-matrix (the μ/−1 coupling rows make it only copositive): Lemke's
/// method solves it, the projected methods are not guaranteed to.
/// `normal_bias` = J_N v_free + e J_N v_before, `tangent_bias` = J_T v_free.
[[nodiscard]] Lcp stewart_trinkle_lcp(const ContactSpace& space, const Eigen::VectorXd& normal_bias,
                                      const Eigen::VectorXd& tangent_bias, double friction);
/// The same with a coefficient per contact (size contact_count(), each >= 0).
[[nodiscard]] Lcp stewart_trinkle_lcp(const ContactSpace& space, const Eigen::VectorXd& normal_bias,
                                      const Eigen::VectorXd& tangent_bias, const Eigen::VectorXd& friction);

/// Anitescu–Potra convex relaxation (Anitescu 2006): impulses along the cone edges n ± μ t with
/// 0 <= β± ⊥ (n ± μ t)·u >= 0. Its matrix G W Gᵀ is positive semidefinite, so the problem is
/// convex and always solvable, also by pgs. Layout of z: [β⁺ (m), β⁻ (m)];
/// Λ_N = β⁺ + β⁻, Λ_T = μ (β⁺ − β⁻).
/// Side effect: a sliding contact ends the step with normal velocity u_N = μ |u_T| > 0 instead
/// of 0 — the bodies drift apart while they slide ("hovering"), by h μ |u_T| per step. Sticking
/// contacts and frictionless ones are unaffected.
[[nodiscard]] Lcp anitescu_potra_lcp(const ContactSpace& space, const Eigen::VectorXd& normal_bias,
                                     const Eigen::VectorXd& tangent_bias, double friction);
/// The same with a coefficient per contact (size contact_count(), each >= 0).
[[nodiscard]] Lcp anitescu_potra_lcp(const ContactSpace& space, const Eigen::VectorXd& normal_bias,
                                     const Eigen::VectorXd& tangent_bias, const Eigen::VectorXd& friction);

// ---- acceleration level ---------------------------------------------------------------------

/// The problem of [chapter] §1.2, LCP(b, W): W = J_N M⁻¹ J_Nᵀ, b = J_N M⁻¹ f + J̇_N v, with f the
/// weight of every body (m · gravity). λ are contact forces, w the gap accelerations g̈_N.
/// J̇_N v holds the centripetal terms −ω² r·n of contact points fixed on a body (box corners,
/// rod ends; zero for a disk, whose contact point is not body-fixed); for body–body contacts
/// the rotation of the normal is neglected, which is exact when nothing rotates.
[[nodiscard]] Lcp acceleration_level_lcp(const World& world, const std::vector<Contact>& contacts,
                                         const Eigen::Vector2d& gravity);

/// Acceleration level while sliding with a known direction (Painlevé's setting): the friction
/// force is λ_T = −μ s λ_N with s_k = sign of the sliding velocity along the tangent, so
/// g̈_N = J_N M⁻¹ (J_N − μ S J_T)ᵀ λ_N + b. The matrix is not symmetric and, for large μ, not a
/// P-matrix ([chapter] §1.7). `sliding` holds s_k ∈ {−1, +1}, one per contact.
[[nodiscard]] Lcp sliding_acceleration_level_lcp(const World& world, const std::vector<Contact>& contacts,
                                                 const Eigen::Vector2d& gravity, double friction,
                                                 const Eigen::VectorXd& sliding);

}  // namespace perp::contact
