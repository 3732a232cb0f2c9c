#pragma once
// The Markdown kopt writes (summary.md, compare.md) as HTML, for the report pages: not a
// general Markdown engine, only the subset kopt's own writers use — "#"/"##" headings,
// pipe tables with a "| --- |" separator row, "- " lists, paragraphs, **strong**,
// *emphasis* and `code`. Everything else is text, escaped: since kopt controls that
// Markdown, a construct outside the subset shows as its characters, never as markup.

#include <string>

namespace kopt::report {

// `heading_shift` demotes every heading (1: "#" becomes <h2>), for Markdown set inside a page
// that has its own <h1>.
std::string markdown_to_html(const std::string& markdown, int heading_shift = 0);

// One line's inline markup (**strong**, *emphasis*, `code`) as HTML, the text escaped.
std::string inline_markdown_to_html(const std::string& text);

}  // namespace kopt::report
