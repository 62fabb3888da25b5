// libFuzzer target: any bytes as a JSON problem (lcp, box-lcp, mlcp, qp). Must throw
// InvalidProblem or return a problem whose JSON reads back to the same JSON.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "perp/core/error.hpp"
#include "perp/io/json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  perp::Problem problem;
  try {
    problem = perp::parse_json_problem(text, "fuzz.json");
  } catch (const perp::InvalidProblem&) {
    return 0;
  }
  const std::string written = perp::problem_to_json(problem);
  if (perp::problem_to_json(perp::parse_json_problem(written, "round-trip")) != written) std::abort();
  // The matrix reader of `perp classify` on the same bytes: a result or InvalidProblem.
  try {
    (void)perp::parse_json_matrix(text, "fuzz.json");
  } catch (const perp::InvalidProblem&) {
  }
  return 0;
}
