#include "kopt/report/svg_text.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <regex>

namespace kopt::report {
namespace {

constexpr double kAscentEm = 0.8, kDescentEm = 0.25;
constexpr double kDefaultFontSize = 16;  // the browsers' default, when no element sets one

double attribute_or(const std::string& attributes, const std::string& name, double fallback) {
  const std::regex pattern("(?:^|\\s)" + name + "=\"(-?[0-9.]+)\"");
  std::smatch found;
  return std::regex_search(attributes, found, pattern) ? std::stod(found[1]) : fallback;
}

std::string string_attribute(const std::string& attributes, const std::string& name) {
  const std::regex pattern("(?:^|\\s)" + name + "=\"([^\"]*)\"");
  std::smatch found;
  return std::regex_search(attributes, found, pattern) ? found[1].str() : "";
}

TextAnchor anchor_of(const std::string& attributes) {
  const std::string anchor = string_attribute(attributes, "text-anchor");
  return anchor == "middle" ? TextAnchor::middle : anchor == "end" ? TextAnchor::end : TextAnchor::start;
}

// The axis-aligned box around `box` rotated by `degrees` about (cx, cy), as SVG's rotate().
TextBox rotated(const TextBox& box, double degrees, double cx, double cy) {
  const double a = degrees * M_PI / 180, c = std::cos(a), s = std::sin(a);
  TextBox out{1e300, 1e300, -1e300, -1e300};
  for (double x : {box.left, box.right}) {
    for (double y : {box.top, box.bottom}) {
      const double rx = cx + c * (x - cx) - s * (y - cy), ry = cy + s * (x - cx) + c * (y - cy);
      out = {std::min(out.left, rx), std::min(out.top, ry), std::max(out.right, rx), std::max(out.bottom, ry)};
    }
  }
  return out;
}

TextBox box_of_text_element(const std::string& attributes, const std::string& content, double inherited_size) {
  const double size = attribute_or(attributes, "font-size", inherited_size);
  const double x = attribute_or(attributes, "x", 0), y = attribute_or(attributes, "y", 0);
  const TextBox box = text_box(x, y, size, display_length(content), anchor_of(attributes));
  std::smatch rotation;
  const std::string transform = string_attribute(attributes, "transform");
  static const std::regex rotate_pattern(R"(rotate\((-?[0-9.]+)\s+(-?[0-9.]+)\s+(-?[0-9.]+)\))");
  if (!std::regex_search(transform, rotation, rotate_pattern)) return box;
  return rotated(box, std::stod(rotation[1]), std::stod(rotation[2]), std::stod(rotation[3]));
}

}  // namespace

bool TextBox::overlaps(const TextBox& o) const {
  return left < o.right && o.left < right && top < o.bottom && o.top < bottom;
}

bool TextBox::inside(const TextBox& area) const {
  return left >= area.left && right <= area.right && top >= area.top && bottom <= area.bottom;
}

TextBox text_box(double x, double baseline, double size, std::size_t characters, TextAnchor anchor) {
  const double width = kCharacterWidthEm * size * static_cast<double>(characters);
  const double left = anchor == TextAnchor::start ? x : anchor == TextAnchor::middle ? x - width / 2 : x - width;
  return {left, baseline - kAscentEm * size, left + width, baseline + kDescentEm * size};
}

std::size_t display_length(const std::string& utf8) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < utf8.size(); ++i) {
    const auto byte = static_cast<unsigned char>(utf8[i]);
    if ((byte & 0xC0) == 0x80) continue;  // a continuation byte of the same code point
    if (byte == '&') {
      const auto end = utf8.find(';', i);
      if (end != std::string::npos && end - i <= 8) i = end;
    }
    ++count;
  }
  return count;
}

std::vector<SvgText> svg_text_boxes(const std::string& svg) {
  std::vector<SvgText> texts;
  std::vector<double> sizes{kDefaultFontSize};  // the font size of each open <svg>/<g>
  static const std::regex tag(R"(<(/?)(svg|g|text)\b([^>]*?)(/?)>)");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), tag); it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[2], attributes = (*it)[3];
    const bool closing = (*it)[1] == "/", self_closing = (*it)[4] == "/";
    if (name == "text") {
      if (closing || self_closing) continue;
      const auto start = static_cast<std::size_t>(it->position() + it->length());
      const std::string content = svg.substr(start, svg.find("</text>", start) - start);
      texts.push_back({content, box_of_text_element(attributes, content, sizes.back())});
    } else if (closing) {
      if (sizes.size() > 1) sizes.pop_back();
    } else if (!self_closing) {
      sizes.push_back(attribute_or(attributes, "font-size", sizes.back()));
    }
  }
  return texts;
}

bool LabelPlacer::is_free(const TextBox& box) const {
  if (!box.inside(area_)) return false;
  return std::none_of(taken_.begin(), taken_.end(), [&](const TextBox& t) { return t.overlaps(box); });
}

int LabelPlacer::place(const std::vector<TextBox>& candidates) {
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (!is_free(candidates[i])) continue;
    reserve(candidates[i]);
    return static_cast<int>(i);
  }
  return -1;
}

}  // namespace kopt::report
