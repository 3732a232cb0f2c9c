// InitFormula and InitSpec (declared in problem_spec.hpp): how a buffer is filled, as
// kopt.toml writes it and as one case binds it.

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iterator>
#include <limits>
#include <utility>

#include <fmt/ranges.h>

#include "kopt/core/error.hpp"
#include "kopt/spec/init_text.hpp"
#include "kopt/spec/problem_spec.hpp"
#include "kopt/spec/source_text.hpp"

namespace kopt::spec {
namespace {

constexpr std::string_view kSpellings =
    "normal, normal(mean,std), uniform(lo,hi), int(lo,hi), int[lo,hi), zeros, ones or full(value), "
    "or values(v0,v1,...), choice(a,b) or choice(a,b,p), sorted(FILL), tril(FILL, n), triu(FILL, n), softmax(FILL, n) "
    "or plus_eye(FILL, n, v), halves(FILL, n), set(FILL, v, SELECTOR...), cat(FILL:n, ...), "
    "mx_data(FILL, element, block, source), mx_scale(FILL, element, block, source) "
    "or mx_scale_blocked(FILL, element, block, source, rows, columns)";

// Integer bounds travel as doubles (InitSpec, the generator's arguments): beyond 2^53 a
// bound would silently round to a neighbour.
constexpr double kExactIntegerLimit = 9007199254740992.0;  // 2^53

struct CallParts {
  std::string kind;
  char open = 0;  // '(' or '['; 0 for a bare word
  char close = 0;
  std::vector<std::string> arguments;
};

// Splits at the commas outside parentheses, so an argument may call min(a,b).
std::optional<std::vector<std::string>> split_arguments(std::string_view text) {
  std::vector<std::string> parts;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    const char c = i < text.size() ? text[i] : ',';
    depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    if (depth < 0) return std::nullopt;
    if (c != ',' || depth > 0) continue;
    std::string part = collapse_whitespace(text.substr(start, i - start));
    if (part.empty()) return std::nullopt;
    parts.push_back(std::move(part));
    start = i + 1;
  }
  if (depth != 0) return std::nullopt;
  return parts;
}

// "uniform(-1, 1)" -> {"uniform", '(', ')', {"-1", "1"}}; "zeros" -> {"zeros"}; nullopt when malformed.
std::optional<CallParts> split_call(const std::string& text) {
  const std::size_t open = text.find_first_of("([");
  if (open == std::string::npos) return CallParts{.kind = text};
  if (text.size() < open + 2 || (text.back() != ')' && text.back() != ']')) return std::nullopt;
  std::optional<std::vector<std::string>> arguments =
      split_arguments(std::string_view(text).substr(open + 1, text.size() - open - 2));
  if (!arguments) return std::nullopt;
  return CallParts{.kind = collapse_whitespace(text.substr(0, open)),
                   .open = text[open],
                   .close = text.back(),
                   .arguments = std::move(*arguments)};
}

// Which brackets a kind may be written with: every kind takes (...); int also [lo,hi]
// (inclusive, as int(lo,hi)) and [lo,hi) (half-open, as torch.randint and most suites).
bool brackets_allowed(const CallParts& parts) {
  if (parts.open == 0) return true;  // a bare word: zeros, ones, normal
  if (parts.open == '(') return parts.close == ')';
  return parts.kind == "int" && parts.open == '[';
}

bool takes_argument_count(const std::string& kind, std::size_t count) {
  if (kind == "normal") return count == 0 || count == 2;
  if (kind == "uniform" || kind == "int") return count == 2;
  if (kind == "full") return count == 1;
  if (kind == "values") return count >= 1;
  if (kind == "choice") return count == 2 || count == 3;
  return (kind == "zeros" || kind == "ones") && count == 0;
}

// values(...)'s non-finite spellings, as fmt and Python's repr write them (inf, -inf, nan); an
// expression never evaluates to one (1e308*10 is refused), so these words are the only way in.
std::optional<double> non_finite_literal(std::string_view text) {
  if (text == "inf" || text == "+inf") return std::numeric_limits<double>::infinity();
  if (text == "-inf") return -std::numeric_limits<double>::infinity();
  if (text == "nan") return std::numeric_limits<double>::quiet_NaN();
  return std::nullopt;
}

InitKind kind_named(const std::string& kind) {
  if (kind == "normal") return InitKind::normal;
  if (kind == "uniform") return InitKind::uniform;
  if (kind == "int") return InitKind::integers;
  if (kind == "full") return InitKind::full;
  if (kind == "values") return InitKind::values;
  if (kind == "choice") return InitKind::choice;
  return kind == "zeros" ? InitKind::zeros : InitKind::ones;
}

// The arrangements' spellings: a wrapper around a fill, with what follows the fill (tril, triu
// and softmax: the row length n; plus_eye: n and the value v added to the diagonal).
struct ArrangementSpelling {
  std::string_view prefix;
  Arrangement arrangement;
  std::size_t after_fill;  // how many arguments follow the fill
  std::string_view form;
};
constexpr ArrangementSpelling kArrangements[] = {
    {"sorted(", Arrangement::sorted, 0, "sorted(FILL)"},
    {"tril(", Arrangement::lower_triangle, 1, "tril(FILL, n)"},
    {"triu(", Arrangement::upper_triangle, 1, "triu(FILL, n)"},
    {"softmax(", Arrangement::softmax, 1, "softmax(FILL, n)"},
    {"plus_eye(", Arrangement::plus_eye, 2, "plus_eye(FILL, n, v)"},
    {"halves(", Arrangement::halves, 1, "halves(FILL, n)"}};

}  // namespace

// Splits at `separator` outside every bracket, ( and [ alike (int[0, 2) opens with one and closes
// with the other); each part's whitespace collapsed, empty parts kept (an open slice end).
std::vector<std::string> split_outside_brackets(std::string_view text, char separator) {
  std::vector<std::string> parts;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    const char c = i < text.size() ? text[i] : separator;
    depth += (c == '(' || c == '[') ? 1 : (c == ')' || c == ']') ? -1 : 0;
    if (c != separator || depth != 0) continue;
    parts.push_back(collapse_whitespace(text.substr(start, i - start)));
    start = i + 1;
  }
  return parts;
}

// sorted(F): F's values over the whole buffer in ascending order (a suite's torch.sort of random
// data: merge inputs); tril(F, n) / triu(F, n): F with each n x n matrix's upper / lower
// triangle zeroed (torch.tril of random data); softmax(F, n): each run of n elements its
// softmax; plus_eye(F, n, v): v added to each n x n matrix's diagonal. Only a random fill (or a
// choice) is worth arranging.
InitFormula InitFormula::arranged(const std::string& text, std::string_view prefix, Arrangement arrangement) {
  const ArrangementSpelling& spelling =
      *std::ranges::find_if(kArrangements, [&](const ArrangementSpelling& s) { return s.arrangement == arrangement; });
  const std::vector<std::string> parts =
      split_outside_brackets(std::string_view(text).substr(prefix.size(), text.size() - prefix.size() - 1), ',');
  if (text.back() != ')' || parts.size() != spelling.after_fill + 1 ||
      std::ranges::any_of(parts, [](const std::string& part) { return part.empty(); })) {
    throw input_error("init \"{}\": expected {}", text, spelling.form);
  }
  InitFormula inner = InitFormula::parse(parts[0]);
  if (inner.kind_ != InitKind::normal && inner.kind_ != InitKind::uniform && inner.kind_ != InitKind::integers &&
      inner.kind_ != InitKind::choice) {
    throw input_error("init \"{}\": {}...) takes a random fill (normal, uniform, int or choice)", text, prefix);
  }
  if (inner.arrangement_ != Arrangement::as_drawn || !inner.writes_.empty()) {
    throw input_error("init \"{}\": {}...) takes a fill as drawn, not an arranged one", text, prefix);
  }
  if (parts.size() > 1) inner.width_ = Expression::parse(parts[1]);
  if (parts.size() > 2) inner.diagonal_ = Expression::parse(parts[2]);
  inner.text_ = text;
  inner.arrangement_ = arrangement;
  return inner;
}

InitFormula InitFormula::parse(std::string_view text) {
  InitFormula formula;
  formula.text_ = collapse_whitespace(text);
  if (formula.text_.starts_with("set(") || formula.text_.starts_with("cat(")) {
    formula = formula.text_.starts_with("set(") ? with_writes(formula.text_) : concatenated(formula.text_);
    if (formula.names().empty()) formula.bind({});  // literal writes checked now, as bounds are
    return formula;
  }
  if (std::optional<InitFormula> quantized = block_scaled(formula.text_)) return *quantized;
  for (const ArrangementSpelling& spelling : kArrangements) {
    if (formula.text_.starts_with(spelling.prefix)) return arranged(formula.text_, spelling.prefix, spelling.arrangement);
  }
  std::optional<CallParts> parts = split_call(formula.text_);
  if (!parts || !brackets_allowed(*parts) || !takes_argument_count(parts->kind, parts->arguments.size())) {
    throw formula.failure(fmt::format("expected {}", kSpellings));
  }
  formula.kind_ = kind_named(parts->kind);
  formula.half_open_ = parts->open == '[' && parts->close == ')';
  for (const std::string& argument : parts->arguments) {
    std::optional<double> special = formula.kind_ == InitKind::values ? non_finite_literal(argument) : std::nullopt;
    if (special) formula.non_finite_[formula.arguments_.size()] = *special;
    try {
      formula.arguments_.push_back(Expression::parse(special ? "0" : argument));
    } catch (const Error& error) {
      throw formula.failure(error.what());
    }
  }
  // Literal bounds are checked now, so a spec error names its line; bounds that read dims
  // are checked per case, when bound.
  if (formula.names().empty()) formula.bind({});
  return formula;
}

std::vector<std::string> InitFormula::names() const {
  std::vector<std::string> names;
  for (const Expression& argument : arguments_) {
    for (std::string& name : argument.names()) names.push_back(std::move(name));
  }
  if (width_) std::ranges::move(width_->names(), std::back_inserter(names));
  if (diagonal_) std::ranges::move(diagonal_->names(), std::back_inserter(names));
  std::ranges::move(write_names(), std::back_inserter(names));
  if (block_scaled_) {
    std::ranges::move(block_scaled_->block.names(), std::back_inserter(names));
    if (block_scaled_->rows) std::ranges::move(block_scaled_->rows->names(), std::back_inserter(names));
    if (block_scaled_->columns) std::ranges::move(block_scaled_->columns->names(), std::back_inserter(names));
  }
  return names;
}

InitSpec InitFormula::bind(const Dims& dims) const {
  InitSpec init = bind_drawn(dims);
  init.arrangement = arrangement_;
  if (block_scaled_) init.block_scaled = bind_block_scaled(dims);
  if (width_) {
    try {
      init.width = width_->evaluate_integer(dims);
    } catch (const Error& error) {
      throw failure(error.what());
    }
    if (init.width <= 0) throw failure(fmt::format("the row length must be > 0 (it is {})", init.width));
  }
  if (diagonal_) {
    try {
      init.diagonal = to_double(diagonal_->evaluate(dims));
    } catch (const Error& error) {
      throw failure(error.what());
    }
    if (!std::isfinite(init.diagonal)) throw failure(fmt::format("the diagonal's value must be finite (it is {})", init.diagonal));
  }
  if (arrangement_ == Arrangement::halves && init.width % 2 != 0) {
    throw failure(fmt::format("halves(FILL, n) needs an even n (it is {})", init.width));
  }
  bind_writes(init, dims);
  return init;
}

InitSpec InitFormula::bind_drawn(const Dims& dims) const {
  if (kind_ == InitKind::segments) return {InitKind::segments, 0, 0};  // the runs: bind_writes
  if (arguments_.empty()) {
    if (kind_ == InitKind::zeros) return {InitKind::zeros, 0, 0};
    if (kind_ == InitKind::ones) return {InitKind::ones, 1, 1};
    return {InitKind::normal, 0, 1};
  }
  if (kind_ == InitKind::integers) return bind_integers(dims);
  if (kind_ == InitKind::values) return bind_values(dims);
  if (kind_ == InitKind::choice) return bind_choice(dims);
  if (kind_ == InitKind::full) {
    const double value = argument(0, dims);
    if (!std::isfinite(value)) throw failure(fmt::format("the value must be finite (it is {})", value));
    return {InitKind::full, value, value};
  }
  const double a = argument(0, dims), b = argument(1, dims);
  if (kind_ == InitKind::normal) {
    if (!(b > 0)) throw failure(fmt::format("the standard deviation must be > 0 (it is {})", b));
    return {InitKind::normal, a, b};
  }
  if (!(a < b)) throw failure(fmt::format("needs lo < hi (they are {} and {})", a, b));
  return {InitKind::uniform, a, b};
}

InitSpec InitFormula::bind_integers(const Dims& dims) const {
  const double lo = argument(0, dims), hi = argument(1, dims);
  if (lo != std::trunc(lo) || hi != std::trunc(hi)) {
    throw failure(fmt::format("int(lo,hi) takes whole numbers (they are {} and {})", lo, hi));
  }
  if (std::abs(lo) > kExactIntegerLimit || std::abs(hi) > kExactIntegerLimit) {
    throw failure(fmt::format("int bounds must lie within +-2^53 (they are {} and {})", lo, hi));
  }
  if (half_open_) {
    if (!(lo < hi)) throw failure(fmt::format("int[lo,hi) needs lo < hi (they are {} and {})", lo, hi));
    return {InitKind::integers, lo, hi - 1};  // the generator draws from [lo, hi] inclusive
  }
  if (!(lo <= hi)) throw failure(fmt::format("needs lo <= hi (they are {} and {})", lo, hi));
  return {InitKind::integers, lo, hi};
}

// A value is finite unless written inf, -inf or nan: an expression that is not (1e308*10) is
// refused where it is evaluated. An integer buffer refuses the non-finite ones when bound.
InitSpec InitFormula::bind_values(const Dims& dims) const {
  InitSpec init{.kind = InitKind::values, .a = 0, .b = 0, .values = {}};
  for (std::size_t i = 0; i < arguments_.size(); ++i) {
    const auto special = non_finite_.find(i);
    init.values.push_back(special != non_finite_.end() ? special->second : argument(i, dims));
  }
  return init;
}

// choice(a, b, p): two finite values, and b's probability strictly between 0 and 1 (either end
// is full(a) or full(b), which say so).
InitSpec InitFormula::bind_choice(const Dims& dims) const {
  InitSpec init{.kind = InitKind::choice, .a = argument(0, dims), .b = argument(1, dims)};
  if (arguments_.size() == 3) init.probability = argument(2, dims);
  if (!std::isfinite(init.a) || !std::isfinite(init.b)) {
    throw failure(fmt::format("the values must be finite (they are {} and {})", init.a, init.b));
  }
  if (!(init.probability > 0 && init.probability < 1)) {
    throw failure(fmt::format("the probability must lie strictly between 0 and 1 (it is {})", init.probability));
  }
  return init;
}

double InitFormula::argument(std::size_t index, const Dims& dims) const {
  Number value;
  try {
    value = arguments_[index].evaluate(dims);
  } catch (const Error& error) {
    throw failure(error.what());
  }
  return to_double(value);
}

Error InitFormula::failure(std::string_view why) const { return input_error("init \"{}\": {}", text_, why); }

InitSpec InitSpec::parse(std::string_view text) { return InitFormula::parse(text).bind({}); }

std::string InitSpec::text() const {
  if (!writes.empty()) {
    InitSpec unwritten = *this;
    unwritten.writes.clear();
    return written_text(unwritten.text(), writes);
  }
  if (kind == InitKind::segments) return segments_text(segments);
  if (block_scaled) {
    InitSpec drawn = *this;
    drawn.block_scaled.reset();
    return block_scaled_init_text(drawn.text(), *block_scaled);
  }
  if (arrangement != Arrangement::as_drawn) {
    InitSpec drawn = *this;
    drawn.arrangement = Arrangement::as_drawn;
    switch (arrangement) {
      case Arrangement::sorted: return fmt::format("sorted({})", drawn.text());
      case Arrangement::softmax: return fmt::format("softmax({},{})", drawn.text(), width);
      case Arrangement::plus_eye: return fmt::format("plus_eye({},{},{})", drawn.text(), width, diagonal);
      case Arrangement::halves: return fmt::format("halves({},{})", drawn.text(), width);
      default:
        return fmt::format("{}({},{})", arrangement == Arrangement::lower_triangle ? "tril" : "triu", drawn.text(), width);
    }
  }
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
    case InitKind::full:
      return fmt::format("full({})", a);
    case InitKind::values:
      return fmt::format("values({})", fmt::join(values, ","));
    case InitKind::choice:
      return probability == 0.5 ? fmt::format("choice({},{})", a, b) : fmt::format("choice({},{},{})", a, b, probability);
    case InitKind::segments:
      return segments_text(segments);
  }
  return "normal";
}

}  // namespace kopt::spec
