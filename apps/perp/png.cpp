#include "png.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <stdexcept>

namespace perp::cli {
namespace {

/// 3×5 glyphs, row by row, '#' = ink.
const std::map<char, const char*>& glyphs() {
  static const std::map<char, const char*> table{
      {'0', "####.##.##.####"}, {'1', ".#.##..#..#.###"}, {'2', "###..#####..###"}, {'3', "###..####..####"},
      {'4', "#.##.####..#..#"}, {'5', "####..###..####"}, {'6', "####..####.####"}, {'7', "###..#..#..#..#"},
      {'8', "####.#####.####"}, {'9', "####.####..####"}, {'.', ".............#."}, {'-', "......###......"},
      {'+', "....#.###.#...."}, {'(', ".#.#..#..#...#."}, {')', ".#...#..#..#.#."}, {',', "..........#.#.."},
      {'=', "...###...###..."}, {':', "....#.....#...."}, {'/', "..#..#.#.#..#.."}, {'_', "............###"},
      {'a', ".#.#.#####.##.#"}, {'b', "##.#.###.#.###."}, {'c', "####..#..#..###"}, {'d', "##.#.##.##.###."},
      {'e', "####..##.#..###"}, {'f', "####..##.#..#.."}, {'g', "####..#.##.####"}, {'h', "#.##.#####.##.#"},
      {'i', "###.#..#..#.###"}, {'j', "..#..#..##.####"}, {'k', "#.##.###.#.##.#"}, {'l', "#..#..#..#..###"},
      {'m', "#.########.##.#"}, {'n', "##.#.##.##.##.#"}, {'o', ".#.#.##.##.#.#."}, {'p', "####.#####..#.."},
      {'q', ".#.#.##.###..##"}, {'r', "##.#.###.#.##.#"}, {'s', ".###...#...###."}, {'t', "###.#..#..#..#."},
      {'u', "#.##.##.##.####"}, {'v', "#.##.##.##.#.#."}, {'w', "#.##.########.#"}, {'x', "#.##.#.#.#.##.#"},
      {'y', "#.##.#.#..#..#."}, {'z', "###..#.#.#..###"},
  };
  return table;
}

std::uint32_t crc32(const std::uint8_t* data, std::size_t size, std::uint32_t crc = 0) {
  static const auto table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t n = 0; n < 256; ++n) {
      std::uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = (c & 1) != 0 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  crc = ~crc;
  for (std::size_t i = 0; i < size; ++i) crc = table[(crc ^ data[i]) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

void put_u32(std::vector<std::uint8_t>& out, std::uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<std::uint8_t>(value >> shift));
}

void chunk(std::vector<std::uint8_t>& out, const char* type, const std::vector<std::uint8_t>& data) {
  put_u32(out, static_cast<std::uint32_t>(data.size()));
  const std::size_t start = out.size();
  out.insert(out.end(), type, type + 4);
  out.insert(out.end(), data.begin(), data.end());
  put_u32(out, crc32(out.data() + start, out.size() - start));
}

/// A zlib stream of stored (uncompressed) deflate blocks: valid for every PNG reader.
std::vector<std::uint8_t> zlib_stored(const std::vector<std::uint8_t>& raw) {
  std::vector<std::uint8_t> out{0x78, 0x01};
  constexpr std::size_t kBlock = 65535;
  std::size_t offset = 0;
  do {
    const std::size_t size = std::min(kBlock, raw.size() - offset);
    const bool last = offset + size == raw.size();
    out.push_back(last ? 1 : 0);
    const auto len = static_cast<std::uint16_t>(size);
    const auto nlen = static_cast<std::uint16_t>(~len);
    out.push_back(static_cast<std::uint8_t>(len & 0xFF));
    out.push_back(static_cast<std::uint8_t>(len >> 8));
    out.push_back(static_cast<std::uint8_t>(nlen & 0xFF));
    out.push_back(static_cast<std::uint8_t>(nlen >> 8));
    out.insert(out.end(), raw.begin() + static_cast<std::ptrdiff_t>(offset),
               raw.begin() + static_cast<std::ptrdiff_t>(offset + size));
    offset += size;
  } while (offset < raw.size());
  std::uint32_t a = 1;
  std::uint32_t b = 0;
  for (std::uint8_t byte : raw) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  put_u32(out, (b << 16) | a);
  return out;
}

std::string format_number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4g", value);
  return buffer;
}

}  // namespace

Canvas::Canvas(int width, int height, Color background)
    : width_(width), height_(height), rgb_(static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 3) {
  for (std::size_t i = 0; i < rgb_.size(); i += 3) std::copy(background.begin(), background.end(), rgb_.begin() + i);
}

void Canvas::set(int x, int y, Color color) {
  if (x < 0 || y < 0 || x >= width_ || y >= height_) return;
  const std::size_t at = (static_cast<std::size_t>(y) * static_cast<std::size_t>(width_) + x) * 3;
  std::copy(color.begin(), color.end(), rgb_.begin() + static_cast<std::ptrdiff_t>(at));
}

void Canvas::fill_rect(int x0, int y0, int x1, int y1, Color color) {
  for (int y = std::min(y0, y1); y <= std::max(y0, y1); ++y) {
    for (int x = std::min(x0, x1); x <= std::max(x0, x1); ++x) set(x, y, color);
  }
}

void Canvas::line(double x0, double y0, double x1, double y1, Color color, int thickness) {
  if (!std::isfinite(x0) || !std::isfinite(y0) || !std::isfinite(x1) || !std::isfinite(y1)) return;
  const double length = std::max(std::abs(x1 - x0), std::abs(y1 - y0));
  const int steps = std::max(1, static_cast<int>(std::ceil(std::min(length, 1e5))));
  for (int i = 0; i <= steps; ++i) {
    const double s = static_cast<double>(i) / steps;
    const int x = static_cast<int>(std::lround(x0 + s * (x1 - x0)));
    const int y = static_cast<int>(std::lround(y0 + s * (y1 - y0)));
    fill_rect(x - thickness / 2, y - thickness / 2, x + (thickness - 1) / 2, y + (thickness - 1) / 2, color);
  }
}

void Canvas::text(int x, int y, const std::string& text, Color color, int scale) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto found = glyphs().find(text[i]);
    if (found == glyphs().end()) continue;
    const std::string_view glyph = found->second;
    const int left = x + static_cast<int>(i) * 4 * scale;
    for (int row = 0; row < 5; ++row) {
      for (int col = 0; col < 3; ++col) {
        const std::size_t at = static_cast<std::size_t>(row * 3 + col);
        if (at < glyph.size() && glyph[at] == '#') {
          fill_rect(left + col * scale, y + row * scale, left + (col + 1) * scale - 1, y + (row + 1) * scale - 1,
                    color);
        }
      }
    }
  }
}

void Canvas::write_png(const std::filesystem::path& path) const {
  std::vector<std::uint8_t> raw;
  raw.reserve(static_cast<std::size_t>(height_) * (static_cast<std::size_t>(width_) * 3 + 1));
  for (int y = 0; y < height_; ++y) {
    raw.push_back(0);  // filter type None
    const auto row = rgb_.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(y) * width_ * 3);
    raw.insert(raw.end(), row, row + static_cast<std::ptrdiff_t>(width_) * 3);
  }
  std::vector<std::uint8_t> file{0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  std::vector<std::uint8_t> header;
  put_u32(header, static_cast<std::uint32_t>(width_));
  put_u32(header, static_cast<std::uint32_t>(height_));
  header.insert(header.end(), {8, 2, 0, 0, 0});  // 8-bit RGB, deflate, no filter, no interlace
  chunk(file, "IHDR", header);
  chunk(file, "IDAT", zlib_stored(raw));
  chunk(file, "IEND", {});
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(file.data()), static_cast<std::streamsize>(file.size()));
  if (!out) throw std::runtime_error("cannot write '" + path.string() + "'");
}

Color palette(std::size_t i) {
  static const std::array<Color, 8> colors{{{31, 119, 180},
                                            {255, 127, 14},
                                            {44, 160, 44},
                                            {214, 39, 40},
                                            {148, 103, 189},
                                            {140, 86, 75},
                                            {227, 119, 194},
                                            {23, 190, 207}}};
  return colors[i % colors.size()];
}

void draw_panel(Canvas& canvas, int x0, int y0, int x1, int y1, const std::string& title,
                const std::vector<Series>& series) {
  const Color black{0, 0, 0};
  const Color grey{200, 200, 200};
  double xmin = std::numeric_limits<double>::infinity();
  double xmax = -xmin;
  double ymin = xmin;
  double ymax = -xmin;
  for (const Series& s : series) {
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) continue;
      xmin = std::min(xmin, s.x[i]);
      xmax = std::max(xmax, s.x[i]);
      ymin = std::min(ymin, s.y[i]);
      ymax = std::max(ymax, s.y[i]);
    }
  }
  if (!std::isfinite(xmin)) xmin = 0, xmax = 1, ymin = 0, ymax = 1;
  if (xmax - xmin <= 0) xmax = xmin + 1;
  if (ymax - ymin <= 1e-12 * std::max(1.0, std::abs(ymax))) {
    ymin -= 0.5 * std::max(1.0, std::abs(ymin));
    ymax += 0.5 * std::max(1.0, std::abs(ymax));
  }
  const int left = x0 + 80;
  const int right = x1 - 10;
  const int top = y0 + 28;
  const int bottom = y1 - 24;
  canvas.text(left, y0 + 6, title, black, 3);
  for (int k = 1; k < 4; ++k) {
    const int y = top + (bottom - top) * k / 4;
    canvas.line(left, y, right, y, grey);
  }
  canvas.line(left, top, left, bottom, black);
  canvas.line(left, bottom, right, bottom, black);
  canvas.text(x0 + 4, top, format_number(ymax), black);
  canvas.text(x0 + 4, bottom - 10, format_number(ymin), black);
  canvas.text(left, bottom + 6, format_number(xmin), black);
  const std::string xmax_text = format_number(xmax);
  canvas.text(right - Canvas::text_width(xmax_text), bottom + 6, xmax_text, black);
  auto px = [&](double x) { return left + (x - xmin) / (xmax - xmin) * (right - left); };
  auto py = [&](double y) { return bottom - (y - ymin) / (ymax - ymin) * (bottom - top); };
  int legend_x = left + Canvas::text_width(title, 3) + 24;
  for (const Series& s : series) {
    for (std::size_t i = 1; i < s.x.size() && i < s.y.size(); ++i) {
      canvas.line(px(s.x[i - 1]), py(s.y[i - 1]), px(s.x[i]), py(s.y[i]), s.color, 2);
    }
    canvas.fill_rect(legend_x, y0 + 9, legend_x + 12, y0 + 15, s.color);
    canvas.text(legend_x + 16, y0 + 8, s.label, s.color);
    legend_x += 16 + Canvas::text_width(s.label) + 16;
  }
}

}  // namespace perp::cli
