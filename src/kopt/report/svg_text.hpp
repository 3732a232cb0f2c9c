#pragma once
// Where the text of kopt's SVG charts lies, estimated without a font engine, so that labels
// can be placed without overlapping (LabelPlacer) and a test can hold every chart to it
// (svg_text_boxes).
//
// The estimate: a character is 0.6 × the font size wide (the average advance of a sans-serif
// face is 0.5-0.55 em; 0.6 errs on the wide side, so boxes that do not overlap here do not
// overlap on screen), and a line spans 0.8 × the size above its baseline and 0.25 × below.
// Characters are Unicode code points, entities count as one.

#include <cstddef>
#include <string>
#include <vector>

namespace kopt::report {

struct TextBox {
  double left = 0, top = 0, right = 0, bottom = 0;  // pixels, y down

  bool overlaps(const TextBox& other) const;
  bool inside(const TextBox& area) const;
};

enum class TextAnchor { start, middle, end };

inline constexpr double kCharacterWidthEm = 0.6;

// The box of `characters` characters at font size `size` drawn at (x, baseline).
TextBox text_box(double x, double baseline, double size, std::size_t characters, TextAnchor anchor);

// Code points of UTF-8 text, an XML entity ("&amp;") counting as one.
std::size_t display_length(const std::string& utf8);

// One <text> element of an SVG and its estimated box; a rotated one ("rotate(a cx cy)") gets
// the axis-aligned box around its rotated box.
struct SvgText {
  std::string text;  // as written in the SVG (entities kept)
  TextBox box;
};

// Every <text> of `svg`, in document order: font sizes are inherited from the enclosing <svg>
// and <g> elements (16 px when none says).
std::vector<SvgText> svg_text_boxes(const std::string& svg);

// Places labels one after another where they overlap nothing placed before: each label takes
// the first of its candidate boxes that lies inside the area and is free.
class LabelPlacer {
 public:
  explicit LabelPlacer(TextBox area) : area_(area) {}

  // Something already drawn that labels must not cover (a fixed label, a marker).
  void reserve(const TextBox& box) { taken_.push_back(box); }
  bool is_free(const TextBox& box) const;
  // The index of the first free candidate (which is then reserved), or -1 when none is.
  int place(const std::vector<TextBox>& candidates);

 private:
  TextBox area_;
  std::vector<TextBox> taken_;
};

}  // namespace kopt::report
