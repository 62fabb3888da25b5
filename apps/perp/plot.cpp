#include "plot.hpp"

#include <cairo-svg.h>
#include <cairo.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>

#include "perp/core/error.hpp"

namespace perp::cli {

PlotFormat plot_format_from_name(const std::string& name) {
  if (name == "png") return PlotFormat::Png;
  if (name == "svg") return PlotFormat::Svg;
  throw InvalidProblem("unknown plot format '" + name + "': use png, svg or none");
}

PlotFormat plot_format_from_path(const std::filesystem::path& path) {
  const std::string ext = path.extension().string();
  if (ext == ".png") return PlotFormat::Png;
  if (ext == ".svg") return PlotFormat::Svg;
  throw InvalidProblem("plot file '" + path.string() + "': the extension must be .png or .svg");
}

const char* extension(PlotFormat format) { return format == PlotFormat::Png ? "png" : "svg"; }

std::string hex(const Rgb& color) {
  const auto byte = [](double v) { return static_cast<int>(std::lround(std::clamp(v, 0.0, 1.0) * 255)); };
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "#%02x%02x%02x", byte(color.r), byte(color.g), byte(color.b));
  return buffer;
}

Rgb palette(std::size_t i) {
  // Colour-blind-friendly first ten (the "tab10" hues), then ten darker/lighter variants.
  static constexpr std::array<std::array<int, 3>, 20> kColors = {{{31, 119, 180},  {255, 127, 14},  {44, 160, 44},
                                                                  {214, 39, 40},   {148, 103, 189}, {140, 86, 75},
                                                                  {227, 119, 194}, {127, 127, 127}, {188, 189, 34},
                                                                  {23, 190, 207},  {17, 66, 110},   {176, 82, 0},
                                                                  {22, 94, 22},    {133, 19, 20},   {86, 55, 117},
                                                                  {84, 48, 40},    {166, 60, 130},  {60, 60, 60},
                                                                  {112, 113, 10},  {10, 110, 122}}};
  const auto& c = kColors[i % kColors.size()];
  return {c[0] / 255.0, c[1] / 255.0, c[2] / 255.0};
}

std::vector<double> nice_ticks(double lo, double hi, int target) {
  std::vector<double> ticks;
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi)) return ticks;
  const double raw = (hi - lo) / std::max(target, 1);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (const double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * magnitude;
    if (step >= raw) break;
  }
  const double first = std::ceil(lo / step - 1e-9) * step;
  for (double t = first; t <= hi + step * 1e-9; t += step) ticks.push_back(std::abs(t) < step * 1e-9 ? 0.0 : t);
  return ticks;
}

std::string tick_label(double value, double step) {
  if (value == 0) return "0";
  char buffer[32];
  const double a = std::abs(value);
  if ((a >= 1e5 || (a > 0 && a < 1e-4) || step < 1e-4) && value != 0) {
    std::snprintf(buffer, sizeof buffer, "%.3g", value);
  } else {
    const int decimals = std::clamp(static_cast<int>(-std::floor(std::log10(step) + 1e-9)), 0, 6);
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  }
  return buffer;
}

namespace {

using SurfacePtr = std::unique_ptr<cairo_surface_t, decltype(&cairo_surface_destroy)>;
using ContextPtr = std::unique_ptr<cairo_t, decltype(&cairo_destroy)>;

constexpr double kFont = 12;
constexpr double kLegendRow = 15;
constexpr double kMinLegendColumn = 110;
constexpr double kMaxLegendColumn = 300;
constexpr int kMaxLegendColumns = 3;

void set_color(cairo_t* cr, const Rgb& c, double alpha = 1) { cairo_set_source_rgba(cr, c.r, c.g, c.b, alpha); }

constexpr Rgb kGrid{0.9, 0.9, 0.9};
constexpr Rgb kBlack{0, 0, 0};

/// A stroked straight line in the current line width.
void segment(cairo_t* cr, const Rgb& color, double x0, double y0, double x1, double y1) {
  set_color(cr, color);
  cairo_move_to(cr, x0, y0);
  cairo_line_to(cr, x1, y1);
  cairo_stroke(cr);
}

double text_width(cairo_t* cr, const std::string& text) {
  cairo_text_extents_t extents;
  cairo_text_extents(cr, text.c_str(), &extents);
  return extents.x_advance;
}

void show_text(cairo_t* cr, double x, double y, const std::string& text) {
  cairo_move_to(cr, x, y);
  cairo_show_text(cr, text.c_str());
}

/// A label cut to `width` pixels with "…" (legend entries must not run into the next column).
std::string fit(cairo_t* cr, std::string text, double width) {
  if (text_width(cr, text) <= width) return text;
  while (!text.empty() && text_width(cr, text + "...") > width) text.pop_back();
  return text + "...";
}

struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  void add(double v) {
    if (!std::isfinite(v)) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  [[nodiscard]] bool empty() const { return !(hi >= lo); }
};

/// The data range padded by 5 %; a flat range is widened so that it has ticks.
std::array<double, 2> padded(Range r, bool log) {
  if (r.empty()) return log ? std::array<double, 2>{1e-1, 1e1} : std::array<double, 2>{0, 1};
  if (log) {
    const double lo = std::floor(std::log10(r.lo));
    double hi = std::ceil(std::log10(r.hi));
    if (hi <= lo) hi = lo + 1;
    return {lo, hi};  // exponents
  }
  if (r.hi == r.lo) {
    const double d = r.lo == 0 ? 1 : 0.1 * std::abs(r.lo);
    return {r.lo - d, r.hi + d};
  }
  const double pad = 0.05 * (r.hi - r.lo);
  return {r.lo - pad, r.hi + pad};
}

struct LegendEntry {
  std::string label;
  Rgb color;
  enum Kind { Line, Patch, Dot } kind;
  bool dashed = false;
};

void draw_panel(cairo_t* cr, const Panel& panel, double x0, double y0, double width, double height) {
  // Legend entries first: their count sets the legend's width.
  std::vector<LegendEntry> entries;
  for (const Series& s : panel.series) {
    if (!s.label.empty()) entries.push_back({s.label, s.color, LegendEntry::Line, s.dashed});
  }
  for (const Region& r : panel.regions) {
    if (!r.label.empty()) entries.push_back({r.label, r.color, LegendEntry::Patch});
  }
  for (const auto& [label, color] : panel.fill_legend) entries.push_back({label, color, LegendEntry::Patch});
  for (const Marker& m : panel.markers) {
    if (!m.label.empty()) entries.push_back({m.label, m.color, LegendEntry::Dot});
  }
  const double top = y0 + 24;
  const double bottom = y0 + height - 40;
  const auto rows = static_cast<std::size_t>(
      std::max(1.0, std::floor((bottom - top - kLegendRow * static_cast<double>(panel.notes.size())) / kLegendRow)));
  std::size_t columns = std::min<std::size_t>((entries.size() + rows - 1) / rows, kMaxLegendColumns);
  if (entries.empty() && panel.notes.empty()) columns = 0;
  if (columns == 0 && !panel.notes.empty()) columns = 1;
  // Columns as wide as the longest label (within limits); notes need one column that wide.
  cairo_set_font_size(cr, kFont);
  double widest = 0;
  for (const LegendEntry& e : entries) widest = std::max(widest, text_width(cr, e.label) + 30);
  for (const std::string& note : panel.notes) widest = std::max(widest, text_width(cr, note) + 8);
  const double column_width = std::clamp(widest, kMinLegendColumn, columns > 1 ? 160.0 : kMaxLegendColumn);
  const double legend_width = static_cast<double>(columns) * column_width;
  const double left = x0 + 72;
  double right = x0 + width - 16 - legend_width;
  double plot_top = top;
  double plot_bottom = bottom;

  // Ranges.
  Range xr;
  Range yr;
  for (const Series& s : panel.series) {
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.y[i]) || (panel.log_y && s.y[i] <= 0)) continue;
      xr.add(s.x[i]);
      yr.add(s.y[i]);
    }
  }
  for (const Region& r : panel.regions) {
    for (const auto& p : r.points) {
      xr.add(p[0]);
      yr.add(p[1]);
    }
  }
  for (const Marker& m : panel.markers) {
    xr.add(m.x);
    yr.add(m.y);
  }
  const std::array<double, 2> xs = panel.x_range ? *panel.x_range : padded(xr, false);
  std::array<double, 2> ys = panel.y_range ? *panel.y_range : padded(yr, panel.log_y);
  if (panel.log_y && panel.y_range) ys = {std::log10((*panel.y_range)[0]), std::log10((*panel.y_range)[1])};
  if (panel.equal_aspect) {
    // Shrink the longer side of the plot area so that a unit is as long on both axes.
    const double sx = (right - left) / (xs[1] - xs[0]);
    const double sy = (plot_bottom - plot_top) / (ys[1] - ys[0]);
    if (sx > sy) {
      const double w = sy * (xs[1] - xs[0]);
      right = left + w;
    } else {
      const double h = sx * (ys[1] - ys[0]);
      const double middle = (plot_top + plot_bottom) / 2;
      plot_top = middle - h / 2;
      plot_bottom = middle + h / 2;
    }
  }
  const auto px = [&](double x) { return left + (x - xs[0]) / (xs[1] - xs[0]) * (right - left); };
  const auto py = [&](double y) {
    const double v = panel.log_y ? std::log10(y) : y;
    return plot_bottom - (v - ys[0]) / (ys[1] - ys[0]) * (plot_bottom - plot_top);
  };

  cairo_set_font_size(cr, kFont);
  // Title.
  cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
  set_color(cr, {0, 0, 0});
  show_text(cr, left, y0 + 16, panel.title);
  cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);

  // The fill (a raster of the plot area, one cell per 2 pixels), clipped to the plot area.
  cairo_save(cr);
  cairo_rectangle(cr, left, plot_top, right - left, plot_bottom - plot_top);
  cairo_clip(cr);
  if (panel.fill) {
    const int cells_x = std::max(1, static_cast<int>((right - left) / 2));
    const int cells_y = std::max(1, static_cast<int>((plot_bottom - plot_top) / 2));
    SurfacePtr image(cairo_image_surface_create(CAIRO_FORMAT_RGB24, cells_x, cells_y), cairo_surface_destroy);
    cairo_surface_flush(image.get());
    unsigned char* data = cairo_image_surface_get_data(image.get());
    const int stride = cairo_image_surface_get_stride(image.get());
    for (int j = 0; j < cells_y; ++j) {
      const double v = ys[1] - (j + 0.5) / cells_y * (ys[1] - ys[0]);
      for (int i = 0; i < cells_x; ++i) {
        const double u = xs[0] + (i + 0.5) / cells_x * (xs[1] - xs[0]);
        const Rgb c = panel.fill(u, panel.log_y ? std::pow(10.0, v) : v);
        auto* pixel = reinterpret_cast<std::uint32_t*>(data + j * stride) + i;
        *pixel = (static_cast<std::uint32_t>(c.r * 255) << 16) | (static_cast<std::uint32_t>(c.g * 255) << 8) |
                 static_cast<std::uint32_t>(c.b * 255);
      }
    }
    cairo_surface_mark_dirty(image.get());
    cairo_save(cr);
    cairo_translate(cr, left, plot_top);
    cairo_scale(cr, (right - left) / cells_x, (plot_bottom - plot_top) / cells_y);
    cairo_set_source_surface(cr, image.get(), 0, 0);
    cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
    cairo_paint(cr);
    cairo_restore(cr);
  }
  cairo_restore(cr);

  // Grid and ticks.
  const std::vector<double> xticks = nice_ticks(xs[0], xs[1], static_cast<int>((right - left) / 90));
  std::vector<double> yticks;
  if (panel.log_y) {
    const int decades = static_cast<int>(ys[1] - ys[0]);
    const int every = std::max(1, decades / 6);
    for (double e = std::ceil(ys[0]); e <= ys[1] + 1e-9; e += every) yticks.push_back(std::pow(10.0, e));
  } else {
    yticks = nice_ticks(ys[0], ys[1], std::max(2, static_cast<int>((plot_bottom - plot_top) / 40)));
  }
  cairo_set_line_width(cr, 1);
  set_color(cr, kBlack);
  const double xstep = xticks.size() > 1 ? xticks[1] - xticks[0] : 1;
  const double ystep = yticks.size() > 1 ? yticks[1] - yticks[0] : 1;
  for (const double t : xticks) {
    const double x = std::round(px(t)) + 0.5;
    segment(cr, kGrid, x, plot_top, x, plot_bottom);
    segment(cr, kBlack, x, plot_bottom, x, plot_bottom + 4);
    const std::string label = tick_label(t, xstep);
    show_text(cr, x - text_width(cr, label) / 2, plot_bottom + 16, label);
  }
  for (const double t : yticks) {
    const double y = std::round(py(t)) + 0.5;
    segment(cr, kGrid, left, y, right, y);
    segment(cr, kBlack, left - 4, y, left, y);
    char exponent[32];
    std::snprintf(exponent, sizeof exponent, "1e%d", static_cast<int>(std::lround(std::log10(t))));
    const std::string label = panel.log_y ? std::string(exponent) : tick_label(t, ystep);
    show_text(cr, left - 7 - text_width(cr, label), y + 4, label);
  }
  // Axis labels: x under the ticks, y rotated along the left edge.
  show_text(cr, (left + right) / 2 - text_width(cr, panel.x_label) / 2, plot_bottom + 32, panel.x_label);
  cairo_save(cr);
  cairo_move_to(cr, x0 + 14, (plot_top + plot_bottom) / 2 + text_width(cr, panel.y_label) / 2);
  cairo_rotate(cr, -M_PI / 2);
  cairo_show_text(cr, panel.y_label.c_str());
  cairo_restore(cr);

  // Data, clipped to the plot area.
  cairo_save(cr);
  cairo_rectangle(cr, left, plot_top, right - left, plot_bottom - plot_top);
  cairo_clip(cr);
  for (const Region& r : panel.regions) {
    if (r.points.empty()) continue;
    cairo_move_to(cr, px(r.points[0][0]), py(r.points[0][1]));
    for (std::size_t i = 1; i < r.points.size(); ++i) cairo_line_to(cr, px(r.points[i][0]), py(r.points[i][1]));
    cairo_close_path(cr);
    set_color(cr, r.color, r.alpha);
    cairo_fill_preserve(cr);
    set_color(cr, r.color);
    cairo_set_line_width(cr, 1.2);
    cairo_stroke(cr);
  }
  cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
  for (const Series& s : panel.series) {
    // Points in pixels, one run between breaks at a time: within one pixel column only the
    // first, lowest, highest and last points can show, and a point within a third of a pixel of
    // the chord between its kept neighbours changes nothing (Ramer-Douglas-Peucker), so both
    // are left out: 15 curves of 4000 points make an SVG of a normal size, the picture the same.
    std::vector<std::array<double, 2>> run;
    const auto draw_run = [&]() {
      std::vector<std::array<double, 2>> thinned;
      for (std::size_t i = 0; i < run.size();) {
        const double c = std::floor(run[i][0]);
        std::size_t end = i;
        std::size_t low = i;
        std::size_t high = i;
        while (end < run.size() && std::floor(run[end][0]) == c) {
          if (run[end][1] > run[low][1]) low = end;
          if (run[end][1] < run[high][1]) high = end;
          ++end;
        }
        std::array<std::size_t, 4> keep = {i, low, high, end - 1};
        std::sort(keep.begin(), keep.end());
        for (std::size_t k = 0; k < keep.size(); ++k) {
          if (k == 0 || keep[k] != keep[k - 1]) thinned.push_back(run[keep[k]]);
        }
        i = end;
      }
      std::vector<char> kept(thinned.size(), 0);
      std::vector<std::pair<std::size_t, std::size_t>> stack;
      if (!thinned.empty()) {
        kept.front() = kept.back() = 1;
        stack.emplace_back(0, thinned.size() - 1);
      }
      while (!stack.empty()) {
        const auto [a, b] = stack.back();
        stack.pop_back();
        const double dx = thinned[b][0] - thinned[a][0];
        const double dy = thinned[b][1] - thinned[a][1];
        const double length = std::hypot(dx, dy);
        double worst = 0;
        std::size_t at = a;
        for (std::size_t k = a + 1; k < b; ++k) {
          const double ex = thinned[k][0] - thinned[a][0];
          const double ey = thinned[k][1] - thinned[a][1];
          const double d = length > 0 ? std::abs(ex * dy - ey * dx) / length : std::hypot(ex, ey);
          if (d > worst) {
            worst = d;
            at = k;
          }
        }
        if (worst > 1.0 / 3.0) {
          kept[at] = 1;
          stack.emplace_back(a, at);
          stack.emplace_back(at, b);
        }
      }
      bool first = true;
      for (std::size_t k = 0; k < thinned.size(); ++k) {
        if (!kept[k]) continue;
        if (first) {
          cairo_move_to(cr, thinned[k][0], thinned[k][1]);
          first = false;
        } else {
          cairo_line_to(cr, thinned[k][0], thinned[k][1]);
        }
      }
      run.clear();
    };
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i]) || (panel.log_y && s.y[i] <= 0)) {
        draw_run();
        continue;
      }
      run.push_back({px(s.x[i]), py(s.y[i])});
    }
    draw_run();
    set_color(cr, s.color);
    cairo_set_line_width(cr, s.width);
    const double dash[] = {6, 4};
    cairo_set_dash(cr, dash, s.dashed ? 2 : 0, 0);
    cairo_stroke(cr);
    cairo_set_dash(cr, dash, 0, 0);
  }
  cairo_restore(cr);
  for (const Marker& m : panel.markers) {
    cairo_arc(cr, px(m.x), py(m.y), 4.5, 0, 2 * M_PI);
    set_color(cr, m.color);
    if (m.filled) {
      cairo_fill(cr);
    } else {
      cairo_set_line_width(cr, 2);
      cairo_stroke(cr);
    }
  }
  // Frame.
  set_color(cr, {0, 0, 0});
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, std::round(left) + 0.5, std::round(plot_top) + 0.5, std::round(right - left),
                  std::round(plot_bottom - plot_top));
  cairo_stroke(cr);

  // Legend: every entry that fits in kMaxLegendColumns columns; the rest counted.
  const double lx = right + 16;
  const std::size_t room = rows * columns;
  const std::size_t shown = entries.size() > room ? room - 1 : entries.size();
  for (std::size_t k = 0; k < shown; ++k) {
    const double ex = lx + static_cast<double>(k / rows) * column_width;
    const double ey = top + 10 + static_cast<double>(k % rows) * kLegendRow;
    const LegendEntry& e = entries[k];
    set_color(cr, e.color);
    if (e.kind == LegendEntry::Line) {
      cairo_set_line_width(cr, 2);
      const double dash[] = {4, 3};
      cairo_set_dash(cr, dash, e.dashed ? 2 : 0, 0);
      cairo_move_to(cr, ex, ey - 4);
      cairo_line_to(cr, ex + 18, ey - 4);
      cairo_stroke(cr);
      cairo_set_dash(cr, dash, 0, 0);
    } else if (e.kind == LegendEntry::Patch) {
      cairo_rectangle(cr, ex, ey - 10, 18, 10);
      cairo_fill(cr);
    } else {
      cairo_arc(cr, ex + 9, ey - 4, 4, 0, 2 * M_PI);
      cairo_fill(cr);
    }
    set_color(cr, {0, 0, 0});
    show_text(cr, ex + 23, ey, fit(cr, e.label, column_width - 28));
  }
  double note_y = top + 10 + static_cast<double>(std::min(rows, std::max(shown, std::size_t{0}))) * kLegendRow;
  if (shown < entries.size()) {
    char more[64];
    std::snprintf(more, sizeof more, "+%zu more", entries.size() - shown);
    set_color(cr, {0.3, 0.3, 0.3});
    show_text(cr, lx + static_cast<double>(shown / rows) * column_width,
              top + 10 + static_cast<double>(shown % rows) * kLegendRow, fit(cr, more, column_width - 4));
    note_y = top + 10 + static_cast<double>(rows) * kLegendRow;
  }
  set_color(cr, {0, 0, 0});
  for (const std::string& note : panel.notes) {
    show_text(cr, lx, note_y, note);
    note_y += kLegendRow;
  }
}

std::string xml_escaped(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

/// Inserts <title> and <desc> after the opening <svg …> tag of the file cairo wrote.
void add_svg_description(const std::filesystem::path& path, const Figure& figure) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string svg = buffer.str();
  const std::size_t open = svg.find("<svg");
  const std::size_t end = open == std::string::npos ? open : svg.find('>', open);
  if (end == std::string::npos) throw InvalidProblem("plot file '" + path.string() + "': cairo wrote no <svg> element");
  std::string desc;
  const auto describe = [&desc](const Panel& panel) {
    desc += "panel: " + panel.title + "\nx axis: " + panel.x_label + "\ny axis: " + panel.y_label + "\n";
    char text[160];
    for (const Series& s : panel.series) {
      if (s.label.empty()) continue;
      Range y;
      for (const double v : s.y) y.add(v);
      if (y.empty()) {
        std::snprintf(text, sizeof text, " (%s, %zu points, none finite)", hex(s.color).c_str(), s.y.size());
      } else {
        std::snprintf(text, sizeof text, " (%s, %zu point%s, y from %.12g to %.12g)", hex(s.color).c_str(),
                      s.y.size(), s.y.size() == 1 ? "" : "s", y.lo, y.hi);
      }
      desc += "series: " + s.label + text + "\n";
    }
    for (const Region& r : panel.regions) {
      if (!r.label.empty()) desc += "region: " + r.label + " (" + hex(r.color) + ")\n";
    }
    for (const auto& [label, color] : panel.fill_legend) desc += "region: " + label + " (" + hex(color) + ")\n";
    for (const Marker& m : panel.markers) {
      std::snprintf(text, sizeof text, " at (%.12g, %.12g)", m.x, m.y);
      desc += "point: " + m.label + text + "\n";
    }
    for (const std::string& note : panel.notes) desc += "note: " + note + "\n";
  };
  for (const auto& [panel, height] : figure.panels) describe(panel);
  for (const auto& [row, height] : figure.rows) {
    for (const Panel& panel : row) describe(panel);
  }
  svg.insert(end + 1, "\n<title>" + xml_escaped(figure.title) + "</title>\n<desc>" + xml_escaped(desc) + "</desc>");
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << svg;
  if (!out) throw InvalidProblem("cannot write '" + path.string() + "'");
}

}  // namespace

void write_figure(const Figure& figure, const std::filesystem::path& path, PlotFormat format) {
  int height = figure.title.empty() ? 0 : 30;
  for (const auto& [panel, h] : figure.panels) height += h;
  for (const auto& [row, h] : figure.rows) height += h;
  SurfacePtr surface(format == PlotFormat::Png
                         ? cairo_image_surface_create(CAIRO_FORMAT_RGB24, figure.width, height)
                         : cairo_svg_surface_create(path.c_str(), figure.width, height),
                     cairo_surface_destroy);
  if (cairo_surface_status(surface.get()) != CAIRO_STATUS_SUCCESS) {
    throw InvalidProblem("cannot write '" + path.string() + "': " +
                         cairo_status_to_string(cairo_surface_status(surface.get())));
  }
  {
    ContextPtr cr(cairo_create(surface.get()), cairo_destroy);
    cairo_set_source_rgb(cr.get(), 1, 1, 1);
    cairo_paint(cr.get());
    double y = 0;
    if (!figure.title.empty()) {
      cairo_select_font_face(cr.get(), "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
      cairo_set_font_size(cr.get(), 16);
      cairo_set_source_rgb(cr.get(), 0, 0, 0);
      show_text(cr.get(), 16, 22, figure.title);
      y = 30;
    }
    for (const auto& [panel, h] : figure.panels) {
      draw_panel(cr.get(), panel, 0, y, figure.width, h);
      y += h;
    }
    for (const auto& [row, h] : figure.rows) {
      const double each = row.empty() ? 0 : static_cast<double>(figure.width) / static_cast<double>(row.size());
      for (std::size_t k = 0; k < row.size(); ++k) draw_panel(cr.get(), row[k], static_cast<double>(k) * each, y, each, h);
      y += h;
    }
    if (cairo_status(cr.get()) != CAIRO_STATUS_SUCCESS) {
      throw InvalidProblem("drawing '" + path.string() + "': " + cairo_status_to_string(cairo_status(cr.get())));
    }
  }
  if (format == PlotFormat::Png) {
    const cairo_status_t status = cairo_surface_write_to_png(surface.get(), path.c_str());
    if (status != CAIRO_STATUS_SUCCESS) {
      throw InvalidProblem("cannot write '" + path.string() + "': " + cairo_status_to_string(status));
    }
  } else {
    cairo_surface_finish(surface.get());
    if (cairo_surface_status(surface.get()) != CAIRO_STATUS_SUCCESS) {
      throw InvalidProblem("cannot write '" + path.string() + "': " +
                           cairo_status_to_string(cairo_surface_status(surface.get())));
    }
    surface.reset();
    add_svg_description(path, figure);
  }
}

}  // namespace perp::cli
