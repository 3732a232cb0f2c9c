#pragma once
// Reading the numbers a chart carries back out of kopt's SVG and HTML: every drawn mark keeps
// its value in an attribute (data-value), so tests compare charts with summaries exactly.

#include <regex>
#include <string>
#include <vector>

namespace kopt::report::testing_support {

// The `attribute` of every element of class `cls`, in document order.
inline std::vector<double> attribute_values(const std::string& svg, const std::string& cls,
                                            const std::string& attribute) {
  std::vector<double> values;
  const std::regex mark("class=\"" + cls + "\"[^>]*" + attribute + "=\"([^\"]+)\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), mark); it != std::sregex_iterator(); ++it) {
    values.push_back(std::stod((*it)[1]));
  }
  return values;
}

// The values of a bar chart's bars.
inline std::vector<double> bar_values(const std::string& svg) { return attribute_values(svg, "bar", "data-value"); }

// The <section id="id"> of a page, up to its end; empty when there is none.
inline std::string section(const std::string& html, const std::string& id) {
  const auto start = html.find("<section id=\"" + id + "\"");
  if (start == std::string::npos) return "";
  return html.substr(start, html.find("</section>", start) - start);
}

}  // namespace kopt::report::testing_support
