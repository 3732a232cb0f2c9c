// InitSpec (declared in problem_spec.hpp): how an input buffer is filled.

#include <charconv>
#include <cmath>

#include "kopt/core/error.hpp"
#include "kopt/spec/problem_spec.hpp"
#include "kopt/spec/source_text.hpp"

namespace kopt::spec {
namespace {

constexpr std::string_view kSpellings = "normal, normal(mean,std), uniform(lo,hi), int(lo,hi), zeros or ones";

std::optional<double> parse_double(std::string_view text) {
  double value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

// "uniform(-1, 1)" -> {"uniform", "-1", "1"}; "zeros" -> {"zeros"}; nullopt when malformed.
std::optional<std::vector<std::string>> split_call(const std::string& text) {
  std::size_t open = text.find('(');
  if (open == std::string::npos) return std::vector<std::string>{text};
  if (!text.ends_with(')')) return std::nullopt;
  std::vector<std::string> parts = {collapse_whitespace(text.substr(0, open))};
  std::string arguments = text.substr(open + 1, text.size() - open - 2);
  for (std::size_t start = 0;;) {
    std::size_t comma = std::min(arguments.find(',', start), arguments.size());
    std::string part = collapse_whitespace(arguments.substr(start, comma - start));
    if (part.empty()) return std::nullopt;
    parts.push_back(std::move(part));
    if (comma == arguments.size()) break;
    start = comma + 1;
  }
  return parts;
}

}  // namespace

InitSpec InitSpec::parse(std::string_view text) {
  const std::string written = collapse_whitespace(text);
  auto failure = [&](std::string_view why) { return input_error("init \"{}\": {}", written, why); };
  std::optional<std::vector<std::string>> parts = split_call(written);
  if (!parts) throw failure(fmt::format("expected {}", kSpellings));
  const std::string& kind = parts->front();
  std::vector<double> arguments;
  for (std::size_t i = 1; i < parts->size(); ++i) {
    std::optional<double> value = parse_double((*parts)[i]);
    if (!value) throw failure(fmt::format("\"{}\" is not a number", (*parts)[i]));
    arguments.push_back(*value);
  }
  if ((kind == "normal" || kind == "zeros" || kind == "ones") && arguments.empty()) {
    if (kind == "zeros") return {InitKind::zeros, 0, 0};
    if (kind == "ones") return {InitKind::ones, 1, 1};
    return {InitKind::normal, 0, 1};
  }
  if (arguments.size() != 2) throw failure(fmt::format("expected {}", kSpellings));
  const double a = arguments[0], b = arguments[1];
  if (kind == "normal") {
    if (!(b > 0)) throw failure("the standard deviation must be > 0");
    return {InitKind::normal, a, b};
  }
  if (kind == "uniform") {
    if (!(a < b)) throw failure("needs lo < hi");
    return {InitKind::uniform, a, b};
  }
  if (kind == "int") {
    if (a != std::trunc(a) || b != std::trunc(b)) throw failure("int(lo,hi) takes whole numbers");
    if (!(a <= b)) throw failure("needs lo <= hi");
    return {InitKind::integers, a, b};
  }
  throw failure(fmt::format("expected {}", kSpellings));
}

std::string InitSpec::text() const {
  switch (kind) {
    case InitKind::normal:
      return a == 0 && b == 1 ? "normal" : fmt::format("normal({},{})", a, b);
    case InitKind::uniform:
      return fmt::format("uniform({},{})", a, b);
    case InitKind::integers:
      return fmt::format("int({},{})", a, b);
    case InitKind::zeros:
      return "zeros";
    case InitKind::ones:
      return "ones";
  }
  return "normal";
}

}  // namespace kopt::spec
