// set(FILL, v, SELECTOR...) and cat(FILL:n, ...): fills a suite builds in steps, as kopt.toml
// writes them and as one case binds them (docs/check.md). set writes v over FILL's values at the
// selected elements (a suite's `grid[0] = 0`, `flags[i] = 1` in a random walk, `x[i:i + 10] = 0` in
// a loop); cat lays runs of per-element fills end to end (torch.cat of a model's weights).

#include <algorithm>
#include <cmath>
#include <iterator>

#include <fmt/ranges.h>

#include "kopt/core/error.hpp"
#include "kopt/spec/init_text.hpp"
#include "kopt/spec/problem_spec.hpp"
#include "kopt/spec/source_text.hpp"

namespace kopt::spec {
namespace {

constexpr std::string_view kSetForm = "set(FILL, v, SELECTOR...) with each SELECTOR an index, start:stop[:step[:width]] or walk(start, lo, hi)";
constexpr std::string_view kCatForm = "cat(FILL:n, FILL:n, ...) with each FILL normal, uniform, int, zeros, ones or full";

// The text inside "name(...)", or an error naming the expected form.
std::string_view call_body(const std::string& text, std::string_view prefix, std::string_view form) {
  if (!text.starts_with(prefix) || text.back() != ')') throw input_error("init \"{}\": expected {}", text, form);
  return std::string_view(text).substr(prefix.size(), text.size() - prefix.size() - 1);
}

std::optional<Expression> optional_expression(const std::string& part) {
  if (part.empty()) return std::nullopt;
  return Expression::parse(part);
}

bool is_drawn_per_element(InitKind kind) {
  return kind == InitKind::normal || kind == InitKind::uniform || kind == InitKind::integers ||
         kind == InitKind::zeros || kind == InitKind::ones || kind == InitKind::full;
}

std::int64_t integer_part(const std::optional<Expression>& part, const Dims& dims, std::int64_t otherwise) {
  return part ? part->evaluate_integer(dims) : otherwise;
}

}  // namespace

// set(FILL, v, SELECTOR...): FILL may be any fill, a set included (several writes nest, the
// innermost first, as a suite writes them in order).
InitFormula InitFormula::with_writes(const std::string& text) {
  const std::vector<std::string> parts = split_outside_brackets(call_body(text, "set(", kSetForm), ',');
  if (parts.size() < 3 || std::ranges::any_of(parts, &std::string::empty)) {
    throw input_error("init \"{}\": expected {}", text, kSetForm);
  }
  InitFormula formula = parse(parts[0]);
  WriteFormula write{.value = Expression::parse(parts[1]), .selectors = {}};
  for (auto part = parts.begin() + 2; part != parts.end(); ++part) {
    SelectorFormula selector;
    if (part->starts_with("walk(")) {
      selector.kind = ElementSelector::Kind::walk;
      for (const std::string& piece : split_outside_brackets(call_body(*part, "walk(", kSetForm), ',')) {
        if (piece.empty()) throw input_error("init \"{}\": walk(start, lo, hi) takes three numbers", text);
        selector.parts.push_back(Expression::parse(piece));
      }
      if (selector.parts.size() != 3) throw input_error("init \"{}\": walk(start, lo, hi) takes three numbers", text);
    } else if (part->find(':') != std::string::npos) {
      selector.kind = ElementSelector::Kind::slice;
      const std::vector<std::string> pieces = split_outside_brackets(*part, ':');
      if (pieces.size() > 4) throw input_error("init \"{}\": a slice is start:stop[:step[:width]]", text);
      for (const std::string& piece : pieces) selector.parts.push_back(optional_expression(piece));
    } else {
      selector.parts.push_back(Expression::parse(*part));
    }
    write.selectors.push_back(std::move(selector));
  }
  formula.writes_.push_back(std::move(write));
  formula.text_ = text;
  return formula;
}

// cat(FILL:n, ...): each FILL drawn per element (a list, a choice or an arrangement spans the
// whole buffer, not a run of it).
InitFormula InitFormula::concatenated(const std::string& text) {
  InitFormula formula;
  formula.text_ = text;
  formula.kind_ = InitKind::segments;
  for (const std::string& segment : split_outside_brackets(call_body(text, "cat(", kCatForm), ',')) {
    const std::vector<std::string> halves = split_outside_brackets(segment, ':');
    if (halves.size() != 2 || halves[0].empty() || halves[1].empty()) {
      throw input_error("init \"{}\": expected {}", text, kCatForm);
    }
    InitFormula fill = parse(halves[0]);
    if (!is_drawn_per_element(fill.kind_) || fill.arrangement_ != Arrangement::as_drawn || !fill.writes_.empty()) {
      throw input_error("init \"{}\": {} is no fill drawn per element; expected {}", text, halves[0], kCatForm);
    }
    formula.segment_fills_.push_back(std::move(fill));
    formula.segment_counts_.push_back(Expression::parse(halves[1]));
  }
  return formula;
}

std::vector<std::string> InitFormula::write_names() const {
  std::vector<std::string> names;
  const auto add = [&](const Expression& e) { std::ranges::move(e.names(), std::back_inserter(names)); };
  for (const WriteFormula& write : writes_) {
    add(write.value);
    for (const SelectorFormula& selector : write.selectors) {
      for (const std::optional<Expression>& part : selector.parts) {
        if (part) add(*part);
      }
    }
  }
  for (const InitFormula& fill : segment_fills_) std::ranges::move(fill.names(), std::back_inserter(names));
  for (const Expression& count : segment_counts_) add(count);
  return names;
}

// Each write's value and selectors at the case's dims; the runs of a cat. Whether an index lies
// inside the buffer is checked where the buffer's size is known (problem_binding.cpp).
void InitFormula::bind_writes(InitSpec& init, const Dims& dims) const {
  try {
    for (std::size_t i = 0; i < segment_fills_.size(); ++i) {
      const InitSpec drawn = segment_fills_[i].bind(dims);
      const std::int64_t count = segment_counts_[i].evaluate_integer(dims);
      if (count <= 0) throw failure(fmt::format("a run of cat(...) must hold elements (it holds {})", count));
      init.segments.push_back({.kind = drawn.kind, .a = drawn.a, .b = drawn.b, .count = count});
    }
    for (const WriteFormula& formula : writes_) {
      ElementWrite write{.value = to_double(formula.value.evaluate(dims)), .selectors = {}};
      if (!std::isfinite(write.value)) throw failure(fmt::format("the value written must be finite (it is {})", write.value));
      for (const SelectorFormula& part : formula.selectors) write.selectors.push_back(bind_selector(part, dims));
      init.writes.push_back(std::move(write));
    }
  } catch (const Error& error) {
    if (std::string_view(error.what()).starts_with("init \"")) throw;
    throw failure(error.what());
  }
}

ElementSelector InitFormula::bind_selector(const SelectorFormula& formula, const Dims& dims) const {
  ElementSelector selector{.kind = formula.kind};
  const auto& parts = formula.parts;
  if (formula.kind == ElementSelector::Kind::index) {
    selector.start = parts[0]->evaluate_integer(dims);
    return selector;
  }
  if (formula.kind == ElementSelector::Kind::walk) {
    selector.start = parts[0]->evaluate_integer(dims);
    selector.step = parts[1]->evaluate_integer(dims);
    selector.width = parts[2]->evaluate_integer(dims);
    if (*selector.start < 0 || selector.step < 1 || selector.width <= selector.step) {
      throw failure(fmt::format("walk(start, lo, hi) needs start >= 0 and 1 <= lo < hi (they are {}, {}, {})",
                                *selector.start, selector.step, selector.width));
    }
    return selector;
  }
  if (parts.size() > 0 && parts[0]) selector.start = parts[0]->evaluate_integer(dims);
  if (parts.size() > 1 && parts[1]) selector.stop = parts[1]->evaluate_integer(dims);
  selector.step = parts.size() > 2 ? integer_part(parts[2], dims, 1) : 1;
  selector.width = parts.size() > 3 ? integer_part(parts[3], dims, 1) : 1;
  if (selector.step < 1 || selector.width < 1 || selector.width > selector.step) {
    throw failure(fmt::format("a slice start:stop:step:width needs 1 <= width <= step (they are {} and {})",
                              selector.width, selector.step));
  }
  return selector;
}

std::string ElementSelector::text() const {
  if (kind == Kind::index) return fmt::format("{}", *start);
  if (kind == Kind::walk) return fmt::format("walk({},{},{})", *start, step, width);
  std::string text = fmt::format("{}:{}", start ? fmt::format("{}", *start) : "", stop ? fmt::format("{}", *stop) : "");
  if (step != 1 || width != 1) text += fmt::format(":{}", step);
  if (width != 1) text += fmt::format(":{}", width);
  return text;
}

// The spelling of a bound fill with its writes: each set(...) wraps the one before.
std::string written_text(std::string text, const std::vector<ElementWrite>& writes) {
  for (const ElementWrite& write : writes) {
    std::vector<std::string> selectors;
    for (const ElementSelector& selector : write.selectors) selectors.push_back(selector.text());
    text = fmt::format("set({},{},{})", text, write.value, fmt::join(selectors, ","));
  }
  return text;
}

std::string segments_text(const std::vector<FillSegment>& segments) {
  std::vector<std::string> runs;
  for (const FillSegment& segment : segments) {
    runs.push_back(fmt::format("{}:{}", InitSpec{.kind = segment.kind, .a = segment.a, .b = segment.b}.text(), segment.count));
  }
  return fmt::format("cat({})", fmt::join(runs, ","));
}

}  // namespace kopt::spec
