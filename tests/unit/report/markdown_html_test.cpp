#include "kopt/report/markdown_html.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kopt::report {
namespace {

using ::testing::HasSubstr;

TEST(MarkdownHtml, ATableBecomesAnHtmlTableWithItsHeaderRow) {
  const std::string html = markdown_to_html("| iter | verdict |\n| --- | --- |\n| 1 | improved |\n| 2 | `b<3>` |\n");
  EXPECT_EQ(html,
            "<table>\n<tr><th>iter</th><th>verdict</th></tr>\n<tr><td>1</td><td>improved</td></tr>\n"
            "<tr><td>2</td><td><code>b&lt;3&gt;</code></td></tr>\n</table>\n");
}

TEST(MarkdownHtml, HeadingsParagraphsAndListsKeepTheirOrder) {
  const std::string html = markdown_to_html("# Title\n\nLine one\nline *two*.\n\n## Rejected\n\n- iter 1: b3: fails\n- iter 2: x\n");
  EXPECT_EQ(html,
            "<h1>Title</h1>\n<p>Line one\nline <em>two</em>.</p>\n<h2>Rejected</h2>\n"
            "<ul>\n<li>iter 1: b3: fails</li>\n<li>iter 2: x</li>\n</ul>\n");
}

TEST(MarkdownHtml, HeadingsAreDemotedInsideAPage) {
  EXPECT_EQ(markdown_to_html("## Frontier\n", 1), "<h3>Frontier</h3>\n");
}

TEST(MarkdownHtml, InlineMarkupNestsAndTextIsEscaped) {
  EXPECT_EQ(inline_markdown_to_html("**17.02× faster** than `a & b`"),
            "<strong>17.02× faster</strong> than <code>a &amp; b</code>");
  EXPECT_EQ(inline_markdown_to_html("**best `k.cu`**"), "<strong>best <code>k.cu</code></strong>");
  // An unclosed marker is text.
  EXPECT_EQ(inline_markdown_to_html("2 * 3 < 7"), "2 * 3 &lt; 7");
}

}  // namespace
}  // namespace kopt::report
