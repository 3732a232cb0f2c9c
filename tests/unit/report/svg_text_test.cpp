#include "kopt/report/svg_text.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kopt::report {
namespace {

TEST(SvgText, CountsCodePointsAndEntitiesAsOneCharacterEach) {
  EXPECT_EQ(display_length("abc"), 3u);
  EXPECT_EQ(display_length("17.0×"), 5u);
  EXPECT_EQ(display_length("54 µs"), 5u);
  EXPECT_EQ(display_length("a &lt;b&gt; &amp; c"), 9u);
}

TEST(SvgText, ABoxIsPlacedByItsAnchor) {
  const TextBox start = text_box(100, 50, 10, 10, TextAnchor::start);
  EXPECT_DOUBLE_EQ(start.left, 100);
  EXPECT_DOUBLE_EQ(start.right, 160);  // 10 characters × 0.6 × 10 px
  EXPECT_DOUBLE_EQ(start.top, 42);
  EXPECT_DOUBLE_EQ(start.bottom, 52.5);
  EXPECT_DOUBLE_EQ(text_box(100, 50, 10, 10, TextAnchor::middle).left, 70);
  EXPECT_DOUBLE_EQ(text_box(100, 50, 10, 10, TextAnchor::end).right, 100);
}

TEST(SvgText, ReadsEveryTextWithItsInheritedFontSizeAndRotation) {
  const std::string svg =
      "<svg xmlns=\"http://www.w3.org/2000/svg\" font-size=\"12\">\n"
      "<text x=\"10\" y=\"20\">ab</text>\n"
      "<g class=\"ticks\" font-size=\"20\"><text x=\"0\" y=\"100\" text-anchor=\"end\">abcd</text></g>\n"
      "<text x=\"50\" y=\"50\" font-size=\"10\" text-anchor=\"middle\" transform=\"rotate(-90 50 50)\">abcdefghij</text>\n"
      "</svg>\n";
  const std::vector<SvgText> texts = svg_text_boxes(svg);
  ASSERT_EQ(texts.size(), 3u);
  EXPECT_EQ(texts[0].text, "ab");
  EXPECT_DOUBLE_EQ(texts[0].box.right - texts[0].box.left, 2 * 0.6 * 12);
  EXPECT_DOUBLE_EQ(texts[1].box.left, -4 * 0.6 * 20);
  // Turned upright: 60 px tall, 10.5 px wide.
  EXPECT_NEAR(texts[2].box.bottom - texts[2].box.top, 60, 1e-9);
  EXPECT_NEAR(texts[2].box.right - texts[2].box.left, 10.5, 1e-9);
}

TEST(SvgText, OverlapNeedsSharedArea) {
  const TextBox a{0, 0, 10, 10};
  EXPECT_TRUE(a.overlaps({5, 5, 15, 15}));
  EXPECT_FALSE(a.overlaps({10, 0, 20, 10}));  // touching edges do not overlap
  EXPECT_FALSE(a.overlaps({0, 11, 10, 20}));
}

TEST(LabelPlacer, TakesTheFirstFreeCandidateInsideTheArea) {
  LabelPlacer placer({0, 0, 100, 100});
  placer.reserve({0, 0, 50, 20});
  EXPECT_EQ(placer.place({{10, 10, 30, 30}, {120, 0, 130, 10}, {60, 0, 90, 20}}), 2);
  // The chosen box is taken now: the same place is refused next time.
  EXPECT_EQ(placer.place({{60, 0, 90, 20}}), -1);
}

}  // namespace
}  // namespace kopt::report
