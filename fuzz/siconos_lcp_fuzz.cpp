// libFuzzer target: any bytes as a Siconos LCP .dat. Must throw InvalidProblem or return a
// valid problem that writes and reads back unchanged; never crash, hang or allocate by a claim.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "perp/core/error.hpp"
#include "perp/io/siconos.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::istringstream in(text);
  perp::Lcp problem;
  try {
    problem = perp::parse_siconos_lcp(in, "fuzz.dat");
  } catch (const perp::InvalidProblem&) {
    return 0;
  }
  problem.validate();  // what the reader returns is valid: a throw here is a bug
  std::ostringstream out;
  perp::write_siconos_lcp(out, problem);
  std::istringstream back(out.str());
  const perp::Lcp again = perp::parse_siconos_lcp(back, "round-trip");
  if (again.M != problem.M || again.q != problem.q) std::abort();
  // The dispatching reader the CLI uses must accept what the LCP reader accepts.
  (void)perp::parse_siconos_problem(text, "fuzz.dat");
  return 0;
}
