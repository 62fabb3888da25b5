// libFuzzer target: any bytes as a Siconos MLCP .dat (both sections). Must throw InvalidProblem
// or return a valid problem that writes and reads back unchanged.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "perp/core/error.hpp"
#include "perp/io/siconos.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  perp::Mlcp problem;
  try {
    problem = perp::parse_siconos_mlcp(in, "fuzz.dat");
  } catch (const perp::InvalidProblem&) {
    return 0;
  }
  problem.validate();
  std::ostringstream out;
  perp::write_siconos_mlcp(out, problem);
  std::istringstream back(out.str());
  const perp::Mlcp again = perp::parse_siconos_mlcp(back, "round-trip");
  if (again.A != problem.A || again.B != problem.B || again.C != problem.C || again.D != problem.D ||
      again.a != problem.a || again.b != problem.b) {
    std::abort();
  }
  return 0;
}
