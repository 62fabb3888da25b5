#pragma once
// A minimal raster canvas and PNG writer (8-bit RGB, stored deflate blocks), so that plots need
// no library: lines, filled rectangles and a 3×5 digit font for axis labels.
#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace perp::cli {

using Color = std::array<std::uint8_t, 3>;

class Canvas {
 public:
  Canvas(int width, int height, Color background = {255, 255, 255});
  [[nodiscard]] int width() const { return width_; }
  [[nodiscard]] int height() const { return height_; }
  void set(int x, int y, Color color);
  void fill_rect(int x0, int y0, int x1, int y1, Color color);
  /// Bresenham line, `thickness` pixels wide.
  void line(double x0, double y0, double x1, double y1, Color color, int thickness = 1);
  /// Digits, '.', '-', '+', 'e', '(', ')', ',', ' ' and lower-case letters a–z in a 3×5 font
  /// scaled by `scale`; other characters are drawn as blanks.
  void text(int x, int y, const std::string& text, Color color, int scale = 2);
  /// Width in pixels of `text` at `scale`.
  [[nodiscard]] static int text_width(const std::string& text, int scale = 2) {
    return static_cast<int>(text.size()) * 4 * scale;
  }
  /// Writes the canvas as a PNG file; throws std::runtime_error when the file cannot be written.
  void write_png(const std::filesystem::path& path) const;

 private:
  int width_;
  int height_;
  std::vector<std::uint8_t> rgb_;
};

/// One curve of a plot panel.
struct Series {
  std::string label;
  std::vector<double> x;
  std::vector<double> y;
  Color color;
};

/// Draws a panel with axes, min/max labels of both axes, the title and the series' labels (in
/// their colours), in the rectangle [x0, x1] × [y0, y1] of the canvas.
void draw_panel(Canvas& canvas, int x0, int y0, int x1, int y1, const std::string& title,
                const std::vector<Series>& series);

/// A distinct colour for curve i.
Color palette(std::size_t i);

}  // namespace perp::cli
