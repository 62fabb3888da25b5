#pragma once
// The CLI's plots, drawn with cairo (PNG or SVG): stacked panels with axes, ticks, labels with
// units, a legend that holds every series (or says how many it leaves out), anti-aliased lines,
// filled regions and marked points. Used by `simulate`, `painleve --diagram`, `solve --plot` and
// `cones --plot`. The library does not depend on cairo; only the CLI links it.
#include <array>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace perp::cli {

enum class PlotFormat { Png, Svg };

/// "png" or "svg" (case as given) -> the format; throws `InvalidProblem` otherwise.
[[nodiscard]] PlotFormat plot_format_from_name(const std::string& name);
/// The format a file name asks for by its extension (.png, .svg); throws `InvalidProblem` naming
/// the file for any other.
[[nodiscard]] PlotFormat plot_format_from_path(const std::filesystem::path& path);
[[nodiscard]] const char* extension(PlotFormat format);

struct Rgb {
  double r = 0;
  double g = 0;
  double b = 0;
};

/// A distinct colour for curve i (20 colours, then repeating).
[[nodiscard]] Rgb palette(std::size_t i);

/// A curve; NaN (or a non-positive y on a log axis) breaks it.
struct Series {
  std::string label;
  std::vector<double> x;
  std::vector<double> y;
  Rgb color;
  double width = 1.5;
  bool dashed = false;
};

/// A filled polygon (in data coordinates), outlined in its colour.
struct Region {
  std::string label;
  std::vector<std::array<double, 2>> points;
  Rgb color;
  double alpha = 0.35;
};

/// A marked point with a label written next to it.
struct Marker {
  std::string label;
  double x = 0;
  double y = 0;
  Rgb color;
  bool filled = true;
};

struct Panel {
  std::string title;
  std::string x_label;
  std::string y_label;
  bool log_y = false;
  /// Fixed axis ranges; unset = the data's, padded by 5 %.
  std::optional<std::array<double, 2>> x_range;
  std::optional<std::array<double, 2>> y_range;
  /// One data unit is as long on both axes (cones in q-space).
  bool equal_aspect = false;
  std::vector<Series> series;
  std::vector<Region> regions;
  std::vector<Marker> markers;
  /// A colour for every point of the plot area, painted first (regime maps), with its legend.
  std::function<Rgb(double, double)> fill;
  std::vector<std::pair<std::string, Rgb>> fill_legend;
  /// Lines of text written under the legend.
  std::vector<std::string> notes;
};

struct Figure {
  std::string title;
  int width = 1000;
  /// Each panel with its height in pixels, stacked top to bottom.
  std::vector<std::pair<Panel, int>> panels;
  /// Then rows of panels side by side (each row's panels share its width equally), with the
  /// row's height in pixels: snapshots of a configuration.
  std::vector<std::pair<std::vector<Panel>, int>> rows;
};

/// "#1f77b4": the colour as the SVG's description names it.
[[nodiscard]] std::string hex(const Rgb& color);

/// Draws `figure` into `path` (PNG or SVG). An SVG carries a <title> and a <desc> listing each
/// panel's title, axis labels, and each labelled series (with its colour, its number of points and
/// the range of its finite y values: "series: iterations (#1f77b4, 250 points, y from 0 to 12)"),
/// region (with its colour), marked point (with its coordinates: "point: asked (theta 0.9, mu
/// 1.5)") and note. Cairo writes its text as glyph outlines, so this is where a reader, a screen
/// reader or a test finds the words and the values. Throws `InvalidProblem` naming the file when
/// it cannot be written.
void write_figure(const Figure& figure, const std::filesystem::path& path, PlotFormat format);

/// "1e-08", "0.25", "1500": a tick label for `value` on an axis whose ticks are `step` apart.
[[nodiscard]] std::string tick_label(double value, double step);
/// Tick positions covering [lo, hi]: multiples of 1, 2 or 5 × 10^k, about `target` of them.
[[nodiscard]] std::vector<double> nice_ticks(double lo, double hi, int target = 6);

}  // namespace perp::cli
