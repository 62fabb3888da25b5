#pragma once
/// \file
/// `solve` for the frictional contact problem (core/friction_contact.hpp).

#include <vector>

#include "perp/core/friction_contact.hpp"
#include "perp/core/result.hpp"
#include "perp/solvers/method.hpp"
#include "perp/solvers/options.hpp"

namespace perp {

/// Validates the problem and the options, then runs `method`. `Result::z` is the reaction r,
/// `Result::w` the local velocity u = W r + q recomputed from r, and `Result::residual` Siconos'
/// relative error of r (`FrictionContactResiduals::relative_error`): `Status::Solved` only when it
/// is <= `SolveOptions::tolerance`. The physical criteria are `friction_contact_residuals(problem, r)`.
[[nodiscard]] Result solve(const FrictionContact& problem, Method method = Method::Auto,
                           const SolveOptions& options = {});

/// The methods that accept a `FrictionContact`, in declaration order.
[[nodiscard]] std::vector<Method> friction_contact_methods();

}  // namespace perp
