#include "kopt/report/markdown_html.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>
#include <vector>

#include "kopt/report/roofline_svg.hpp"

namespace kopt::report {
namespace {

bool is_table_line(const std::string& line) { return line.starts_with("|"); }
bool is_list_item(const std::string& line) { return line.starts_with("- "); }
bool is_heading(const std::string& line) { return line.starts_with("#"); }

// "| a | b |" -> {"a", "b"}. A cell holds no "|" in kopt's tables.
std::vector<std::string> table_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::string trimmed = line.substr(1);
  if (trimmed.ends_with("|")) trimmed.pop_back();
  std::stringstream stream(trimmed);
  for (std::string cell; std::getline(stream, cell, '|');) {
    const auto first = cell.find_first_not_of(' '), last = cell.find_last_not_of(' ');
    cells.push_back(first == std::string::npos ? "" : cell.substr(first, last - first + 1));
  }
  return cells;
}

bool is_separator_row(const std::string& line) {
  for (const std::string& cell : table_cells(line)) {
    if (cell.find_first_not_of("-: ") != std::string::npos || cell.empty()) return false;
  }
  return true;
}

std::string table_html(const std::vector<std::string>& lines) {
  std::string html = "<table>\n";
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i == 1 && is_separator_row(lines[i])) continue;
    const bool header = i == 0 && lines.size() > 1 && is_separator_row(lines[1]);
    const char* cell_tag = header ? "th" : "td";
    html += "<tr>";
    for (const std::string& cell : table_cells(lines[i])) html += fmt::format("<{0}>{1}</{0}>", cell_tag, inline_markdown_to_html(cell));
    html += "</tr>\n";
  }
  return html + "</table>\n";
}

std::string list_html(const std::vector<std::string>& lines) {
  std::string html = "<ul>\n";
  for (const std::string& line : lines) html += "<li>" + inline_markdown_to_html(line.substr(2)) + "</li>\n";
  return html + "</ul>\n";
}

std::string heading_html(const std::string& line, int shift) {
  const auto hashes = std::min(line.find_first_not_of('#'), line.size());
  const auto level = std::min<std::size_t>(hashes + static_cast<std::size_t>(shift), 6);
  const auto text_start = line.find_first_not_of(' ', hashes);
  const std::string text = text_start == std::string::npos ? "" : line.substr(text_start);
  return fmt::format("<h{0}>{1}</h{0}>\n", level, inline_markdown_to_html(text));
}

// The span of `marker` closing the one opened at `open`, or npos.
std::size_t closing(const std::string& text, std::size_t open, const std::string& marker) {
  return text.find(marker, open + marker.size());
}

}  // namespace

std::string inline_markdown_to_html(const std::string& text) {
  std::string html;
  for (std::size_t i = 0; i < text.size();) {
    struct Span { const char* marker; const char* tag; };
    bool matched = false;
    for (const Span span : {Span{"`", "code"}, Span{"**", "strong"}, Span{"*", "em"}}) {
      const std::string marker = span.marker;
      if (text.compare(i, marker.size(), marker) != 0) continue;
      const std::size_t end = closing(text, i, marker);
      if (end == std::string::npos || end == i + marker.size()) continue;
      const std::string inner = text.substr(i + marker.size(), end - i - marker.size());
      // Code is literal; strong and emphasis may hold code or each other.
      const std::string content = marker == "`" ? escape_xml(inner) : inline_markdown_to_html(inner);
      html += fmt::format("<{0}>{1}</{0}>", span.tag, content);
      i = end + marker.size();
      matched = true;
      break;
    }
    if (matched) continue;
    html += escape_xml(std::string(1, text[i]));
    ++i;
  }
  return html;
}

std::string markdown_to_html(const std::string& markdown, int heading_shift) {
  std::vector<std::string> lines;
  std::stringstream stream(markdown);
  for (std::string line; std::getline(stream, line);) lines.push_back(line);
  std::string html;
  for (std::size_t i = 0; i < lines.size();) {
    const std::string& line = lines[i];
    if (line.empty()) { ++i; continue; }
    if (is_heading(line)) { html += heading_html(line, heading_shift); ++i; continue; }
    // A block: consecutive lines of one kind (table rows, list items, or paragraph text).
    auto same_kind = [&](const std::string& l) {
      if (is_table_line(line)) return is_table_line(l);
      if (is_list_item(line)) return is_list_item(l);
      return !l.empty() && !is_table_line(l) && !is_list_item(l) && !is_heading(l);
    };
    std::vector<std::string> block;
    while (i < lines.size() && same_kind(lines[i])) block.push_back(lines[i++]);
    if (is_table_line(line)) html += table_html(block);
    else if (is_list_item(line)) html += list_html(block);
    else {
      std::string paragraph;
      for (const std::string& l : block) paragraph += (paragraph.empty() ? "" : "\n") + inline_markdown_to_html(l);
      html += "<p>" + paragraph + "</p>\n";
    }
  }
  return html;
}

}  // namespace kopt::report
