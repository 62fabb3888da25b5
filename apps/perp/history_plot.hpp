#pragma once
// `perp solve --plot FILE`: a solve's convergence history drawn with the CLI's plotting code.
#include <filesystem>
#include <string>

#include "perp/core/qp.hpp"
#include "perp/core/result.hpp"
#include "plot.hpp"

namespace perp::cli {

/// The natural residual after each iteration (log scale) of `result`, with the tolerance it was
/// judged by, into `path` (.png or .svg). A result without history (enum, a trivial problem)
/// gives a plot that says so.
void write_history_plot(const std::filesystem::path& path, const std::string& problem_file, const Result& result);
/// A QP's history is that of its KKT LCP.
void write_history_plot(const std::filesystem::path& path, const std::string& problem_file, const QpResult& result);

}  // namespace perp::cli
