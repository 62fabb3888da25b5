// libFuzzer target: any bytes as a Siconos FrictionContactProblem .dat (storage 0, 1 or 2). Must
// throw InvalidProblem or return a valid problem that writes and reads back unchanged, whose
// residuals at r = 0 are finite.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "perp/core/error.hpp"
#include "perp/core/friction_contact.hpp"
#include "perp/io/siconos.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  perp::FrictionContact problem;
  try {
    problem = perp::parse_siconos_friction_contact(in, "fuzz.dat");
  } catch (const perp::InvalidProblem&) {
    return 0;
  }
  problem.validate();
  std::ostringstream out;
  perp::write_siconos_friction_contact(out, problem);
  std::istringstream back(out.str());
  const perp::FrictionContact again = perp::parse_siconos_friction_contact(back, "round-trip");
  // W compared entry by entry (a norm of entries near 1e300 would overflow).
  Eigen::SparseMatrix<double> difference = again.W - problem.W;
  difference.prune(0.0);
  if (again.dimension != problem.dimension || again.q != problem.q || again.mu != problem.mu ||
      difference.nonZeros() != 0 || again.W.nonZeros() != problem.W.nonZeros()) {
    std::abort();
  }
  const perp::FrictionContactResiduals at_zero =
      perp::friction_contact_residuals(problem, Eigen::VectorXd::Zero(problem.size()));
  if (std::isnan(at_zero.relative_error)) std::abort();
  return 0;
}
