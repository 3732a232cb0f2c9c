// Expression::parse: recursive descent over the grammar in expression.hpp.

#include "kopt/spec/expression.hpp"

#include <array>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <map>
#include <optional>
#include <set>

#include "kopt/core/error.hpp"
#include "kopt/spec/expression_node.hpp"

namespace kopt::spec {
namespace {

using NodePtr = std::shared_ptr<const ExpressionNode>;

NodePtr make_node(ExpressionNode::Kind kind, std::string symbol, std::vector<NodePtr> operands = {}) {
  auto node = std::make_shared<ExpressionNode>();
  node->kind = kind;
  node->symbol = std::move(symbol);
  node->operands = std::move(operands);
  return node;
}

bool is_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Binary operators from the loosest to the tightest binding; longer spellings first so
// that "<=" is not read as "<".
const std::array<std::vector<std::string_view>, 6> kPrecedence = {{
    {"||"},
    {"&&"},
    {"==", "!="},
    {"<=", ">=", "<", ">"},
    {"+", "-"},
    {"*", "/", "%"},
}};

// Each function and how many arguments it takes.
const std::map<std::string, std::size_t, std::less<>> kFunctionArity = {
    {"cdiv", 2}, {"ceil", 1}, {"floor", 1}, {"max", 2}, {"min", 2}};
constexpr std::string_view kKnownFunctions = "cdiv, ceil, floor, max, min";

// Recursive descent over kPrecedence, then unary operators, then primaries.
class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  NodePtr parse_all() {
    NodePtr root = parse_binary(0);
    skip_spaces();
    if (pos_ < text_.size()) throw failure(fmt::format("unexpected \"{}\"", text_[pos_]));
    return root;
  }

 private:
  NodePtr parse_binary(std::size_t level) {
    if (level == kPrecedence.size()) return parse_unary();
    NodePtr left = parse_binary(level + 1);
    while (std::optional<std::string_view> op = match_operator(kPrecedence[level])) {
      NodePtr right = parse_binary(level + 1);
      left = make_node(ExpressionNode::Kind::binary, std::string(*op), {left, right});
    }
    return left;
  }

  NodePtr parse_unary() {
    skip_spaces();
    if (peek() == '+') {  // unary plus changes nothing
      ++pos_;
      return parse_unary();
    }
    if (peek() == '-' || (peek() == '!' && peek(1) != '=')) {
      std::string op(1, text_[pos_++]);
      return make_node(ExpressionNode::Kind::unary, op, {parse_unary()});
    }
    return parse_primary();
  }

  NodePtr parse_primary() {
    skip_spaces();
    if (peek() == '(') {
      ++pos_;
      NodePtr inner = parse_binary(0);
      expect(')');
      return inner;
    }
    if (is_digit(peek()) || (peek() == '.' && is_digit(peek(1)))) return parse_number();
    if (is_name_start(peek())) return parse_name_or_call();
    if (pos_ == text_.size()) throw failure("expected a number, a name or \"(\" but the text ends");
    throw failure(fmt::format("expected a number, a name or \"(\" but found \"{}\"", text_[pos_]));
  }

  NodePtr parse_number() {
    std::size_t start = pos_;
    bool decimal = false;
    while (is_digit(peek()) || peek() == '.') decimal |= text_[pos_++] == '.';
    if (peek() == 'e' || peek() == 'E') {
      decimal = true;
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      while (is_digit(peek())) ++pos_;
    }
    std::string_view literal = text_.substr(start, pos_ - start);
    auto node = std::make_shared<ExpressionNode>();
    if (decimal) {
      double value = 0;
      auto [end, error] = std::from_chars(literal.data(), literal.data() + literal.size(), value);
      if (error != std::errc() || end != literal.data() + literal.size()) {
        throw failure_at(start, fmt::format("bad number \"{}\"", literal));
      }
      node->value = value;
    } else {
      std::int64_t value = 0;
      auto [end, error] = std::from_chars(literal.data(), literal.data() + literal.size(), value);
      if (error != std::errc() || end != literal.data() + literal.size()) {
        throw failure_at(start, fmt::format("integer {} does not fit in 64 bits", literal));
      }
      node->value = value;
    }
    return node;
  }

  NodePtr parse_name_or_call() {
    std::size_t start = pos_;
    while (is_name_char(peek())) ++pos_;
    std::string name(text_.substr(start, pos_ - start));
    skip_spaces();
    if (peek() != '(') return make_node(ExpressionNode::Kind::name, name);
    auto function = kFunctionArity.find(name);
    if (function == kFunctionArity.end()) {
      throw failure_at(start, fmt::format("unknown function \"{}\" (known: {})", name, kKnownFunctions));
    }
    ++pos_;
    std::vector<NodePtr> arguments = {parse_binary(0)};
    for (skip_spaces(); peek() == ','; skip_spaces()) {
      ++pos_;
      arguments.push_back(parse_binary(0));
    }
    expect(')');
    if (arguments.size() != function->second) {
      throw failure_at(start, fmt::format("{}() takes {} argument{}, not {}", name, function->second,
                                          function->second == 1 ? "" : "s", arguments.size()));
    }
    return make_node(ExpressionNode::Kind::call, name, std::move(arguments));
  }

  std::optional<std::string_view> match_operator(const std::vector<std::string_view>& ops) {
    skip_spaces();
    for (std::string_view op : ops) {
      if (text_.substr(pos_, op.size()) == op) {
        pos_ += op.size();
        return op;
      }
    }
    return std::nullopt;
  }

  void expect(char c) {
    skip_spaces();
    if (peek() != c) {
      throw failure(pos_ == text_.size() ? fmt::format("expected \"{}\" but the text ends", c)
                                         : fmt::format("expected \"{}\" but found \"{}\"", c, text_[pos_]));
    }
    ++pos_;
  }

  void skip_spaces() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  char peek(std::size_t ahead = 0) const { return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0'; }

  Error failure(std::string_view what) const { return failure_at(pos_, what); }
  Error failure_at(std::size_t pos, std::string_view what) const {
    return input_error("cannot parse expression \"{}\": {} at column {}", text_, what, pos + 1);
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

void collect_names(const ExpressionNode& node, std::set<std::string>& names) {
  if (node.kind == ExpressionNode::Kind::name) names.insert(node.symbol);
  for (const NodePtr& operand : node.operands) collect_names(*operand, names);
}

}  // namespace

double to_double(const Number& value) {
  if (const auto* integer = std::get_if<std::int64_t>(&value)) return static_cast<double>(*integer);
  return std::get<double>(value);
}

std::string to_string(const Number& value) {
  if (const auto* integer = std::get_if<std::int64_t>(&value)) return std::to_string(*integer);
  // Shortest round-trip form, marked as floating so "1.0" never reads back as an integer.
  std::string text = fmt::format("{}", std::get<double>(value));
  if (text.find_first_of(".en") == std::string::npos) text += ".0";
  return text;
}

Expression Expression::parse(std::string_view text) {
  Expression expression;
  expression.text_ = std::string(text);
  expression.root_ = Parser(expression.text_).parse_all();
  return expression;
}

std::vector<std::string> Expression::names() const {
  std::set<std::string> names;
  collect_names(*root_, names);
  return {names.begin(), names.end()};
}

}  // namespace kopt::spec
