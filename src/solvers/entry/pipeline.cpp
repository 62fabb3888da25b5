#include "pipeline.hpp"

#include <string>

#include "detail.hpp"
#include "perp/core/error.hpp"

namespace perp::detail {

void check_method(Method method, ProblemKind kind, const SolveOptions& options) {
  const MethodInfo& info = method_info(method);
  if (!info.accepts_kind(kind)) {
    const std::string uses = "; use " + method_names_for(kind);
    if (kind == ProblemKind::Nonlinear) {
      throw InvalidProblem("method '" + std::string(info.name) + "' needs an Lcp (the matrix M), not an Ncp or Mcp" +
                           uses);
    }
    throw InvalidProblem("method '" + std::string(info.name) + "' does not accept " + std::string(article_name(kind)) +
                         uses);
  }
  if (options.all_solutions && kind != ProblemKind::Lcp) {
    throw InvalidProblem("all_solutions is supported only by enum on an Lcp; the methods of " +
                         std::string(article_name(kind)) + " stop at the first solution");
  }
  if (method == Method::Pgs && options.relaxation && *options.relaxation != 1.0) {
    throw InvalidProblem("relaxation " + number_text(*options.relaxation) +
                         " given for pgs, which is psor with relaxation 1; use method psor");
  }
}

void settle(Result& result, double tolerance) {
  if (result.status == Status::NotRun) result.status = Status::NoSolutionFound;  // a method that set none
  const bool meets = result.relative_residual <= tolerance;
  if (!meets) mark_stopped(result);
  if (result.solved() == meets) return;
  if (meets) {
    result.message += "; the point reached solves to the tolerance nevertheless (was " + to_string(result.status) + ")";
    result.status = Status::Solved;
    return;
  }
  result.status = Status::NumericalFailure;
  result.message += "; but the point recomputed from z misses the tolerance" + misses_tolerance(result, tolerance);
  mark_stopped(result);
}

}  // namespace perp::detail
