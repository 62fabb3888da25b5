#include "history_plot.hpp"

#include <algorithm>
#include <cstdio>

#include "perp/core/status.hpp"
#include "plot.hpp"

namespace perp::cli {

void write_history_plot(const std::filesystem::path& path, const std::string& problem_file, const Result& result) {
  const PlotFormat format = plot_format_from_path(path);
  Series residual{to_string(result.method) + " residual", {}, {}, palette(0), 1.8};
  for (std::size_t k = 0; k < result.history.size(); ++k) {
    residual.x.push_back(static_cast<double>(k + 1));
    residual.y.push_back(result.history[k]);
  }
  Panel panel{.title = "convergence history", .x_label = "iteration", .y_label = "natural residual ||min(z, w)||", .log_y = true};
  char final_line[160];
  std::snprintf(final_line, sizeof final_line, "%s after %d iterations", to_string(result.status).c_str(),
                result.iterations);
  char residual_line[96];
  std::snprintf(residual_line, sizeof residual_line, "residual %.3g (relative %.3g)", result.residual,
                result.relative_residual);
  panel.notes = {final_line, residual_line};
  if (result.history.empty()) panel.notes.emplace_back("no iteration history (" + to_string(result.method) + ")");
  if (result.history.size() >= kHistoryLimit) panel.notes.emplace_back("history cut at 10000 entries");
  const bool zeros = std::any_of(result.history.begin(), result.history.end(), [](double r) { return r <= 0; });
  if (zeros) panel.notes.emplace_back("residual 0 not drawn (log scale)");
  panel.series.push_back(std::move(residual));
  Figure figure{.title = "perp solve " + std::filesystem::path(problem_file).filename().string(), .width = 900};
  figure.panels.push_back({std::move(panel), 480});
  write_figure(figure, path, format);
}

void write_history_plot(const std::filesystem::path& path, const std::string& problem_file, const QpResult& result) {
  write_history_plot(path, problem_file, result.lcp);
}

}  // namespace perp::cli
