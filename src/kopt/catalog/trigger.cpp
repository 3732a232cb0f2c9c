#include "kopt/catalog/trigger.hpp"

#include <cctype>
#include <cmath>
#include <fmt/format.h>

#include "kopt/core/error.hpp"

namespace kopt::catalog {

struct Operand {
  enum class Kind { name, number, word } kind = Kind::name;
  std::string text;  // the name or the word
  double number = 0;
};

struct ConditionNode {
  enum class Kind { all, any, negate, compare, fact } kind = Kind::fact;
  std::vector<ConditionNode> children;  // all, any: two or more; negate: one
  std::string op;                       // compare: < <= > >= == !=
  Operand lhs, rhs;                     // compare; fact: lhs only
};

namespace {

struct Token {
  enum class Kind { name, number, word, op, open, close, end } kind = Kind::end;
  std::string text;
  size_t position = 0;
};

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

std::vector<Token> tokenize(std::string_view text) {
  std::vector<Token> tokens;
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    const size_t start = i;
    if (std::isspace(static_cast<unsigned char>(c))) { ++i; continue; }
    if (c == '(' || c == ')') {
      tokens.push_back({c == '(' ? Token::Kind::open : Token::Kind::close, std::string(1, c), start});
      ++i;
    } else if (c == '"' || c == '\'') {
      const size_t close = text.find(c, i + 1);
      if (close == std::string_view::npos) throw input_error("unterminated quote at column {}", start + 1);
      tokens.push_back({Token::Kind::word, std::string(text.substr(i + 1, close - i - 1)), start});
      i = close + 1;
    } else if (std::string_view("<>=!").find(c) != std::string_view::npos) {
      std::string op(1, c);
      if (i + 1 < text.size() && text[i + 1] == '=') op += '=';
      if (op == "=" || op == "!") throw input_error("unknown operator '{}' at column {} (use == or not)", op, start + 1);
      tokens.push_back({Token::Kind::op, op, start});
      i += op.size();
    } else if (std::isdigit(static_cast<unsigned char>(c)) || c == '-' || (c == '.' && i + 1 < text.size())) {
      size_t used = 0;
      try {
        (void)std::stod(std::string(text.substr(i)), &used);
      } catch (const std::exception&) {
        throw input_error("bad number at column {}", start + 1);
      }
      tokens.push_back({Token::Kind::number, std::string(text.substr(i, used)), start});
      i += used;
    } else if (is_name_char(c)) {
      while (i < text.size() && is_name_char(text[i])) ++i;
      tokens.push_back({Token::Kind::name, std::string(text.substr(start, i - start)), start});
    } else {
      throw input_error("unexpected '{}' at column {}", c, start + 1);
    }
  }
  tokens.push_back({Token::Kind::end, "", text.size()});
  return tokens;
}

// Recursive descent: or → and ('or' and)*; and → unary ('and' unary)*; unary → 'not' unary |
// '(' or ')' | operand [op operand].
class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  ConditionNode parse() {
    ConditionNode node = parse_any();
    if (peek().kind != Token::Kind::end) fail("unexpected '" + peek().text + "'");
    return node;
  }

 private:
  const Token& peek() const { return tokens_[next_]; }
  Token take() { return tokens_[next_++]; }
  bool take_keyword(std::string_view word) {
    if (peek().kind != Token::Kind::name || peek().text != word) return false;
    ++next_;
    return true;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw input_error("{} at column {}", what, peek().position + 1);
  }

  ConditionNode parse_list(ConditionNode::Kind kind, std::string_view keyword, ConditionNode (Parser::*part)()) {
    ConditionNode first = (this->*part)();
    if (peek().kind != Token::Kind::name || peek().text != keyword) return first;
    ConditionNode node{.kind = kind};
    node.children.push_back(std::move(first));
    while (take_keyword(keyword)) node.children.push_back((this->*part)());
    return node;
  }
  ConditionNode parse_any() { return parse_list(ConditionNode::Kind::any, "or", &Parser::parse_all); }
  ConditionNode parse_all() { return parse_list(ConditionNode::Kind::all, "and", &Parser::parse_unary); }

  ConditionNode parse_unary() {
    if (take_keyword("not")) {
      ConditionNode node{.kind = ConditionNode::Kind::negate};
      node.children.push_back(parse_unary());
      return node;
    }
    if (peek().kind == Token::Kind::open) {
      take();
      ConditionNode inner = parse_any();
      if (peek().kind != Token::Kind::close) fail("missing ')'");
      take();
      return inner;
    }
    Operand lhs = parse_operand();
    if (peek().kind != Token::Kind::op) {
      if (lhs.kind != Operand::Kind::name) fail("a number or word needs a comparison");
      return ConditionNode{.kind = ConditionNode::Kind::fact, .lhs = std::move(lhs)};
    }
    std::string op = take().text;
    Operand rhs = parse_operand();
    const bool word = lhs.kind == Operand::Kind::word || rhs.kind == Operand::Kind::word;
    if (word && op != "==" && op != "!=") fail("a word can only be compared with == or !=");
    if (lhs.kind != Operand::Kind::name && rhs.kind != Operand::Kind::name) fail("a comparison needs a name");
    return ConditionNode{.kind = ConditionNode::Kind::compare, .op = op, .lhs = std::move(lhs), .rhs = std::move(rhs)};
  }

  Operand parse_operand() {
    const Token& token = peek();
    switch (token.kind) {
      case Token::Kind::name:
        if (token.text == "and" || token.text == "or" || token.text == "not") fail("expected a name or a number");
        return Operand{.kind = Operand::Kind::name, .text = take().text};
      case Token::Kind::number: {
        Token t = take();
        return Operand{.kind = Operand::Kind::number, .text = t.text, .number = std::stod(t.text)};
      }
      case Token::Kind::word: return Operand{.kind = Operand::Kind::word, .text = take().text};
      default: fail(token.kind == Token::Kind::end ? "unexpected end" : "unexpected '" + token.text + "'");
    }
  }

  std::vector<Token> tokens_;
  size_t next_ = 0;
};

void collect_names(const ConditionNode& node, std::set<std::string>& names) {
  for (const Operand* operand : {&node.lhs, &node.rhs}) {
    if (operand->kind == Operand::Kind::name && !operand->text.empty()) names.insert(operand->text);
  }
  for (const ConditionNode& child : node.children) collect_names(child, names);
}

// The operand's value, or nullopt (recorded as missing) when the facts lack it.
std::optional<FactValue> value_of(const Operand& operand, const Facts& facts, Evaluation& evaluation) {
  switch (operand.kind) {
    case Operand::Kind::number: return operand.number;
    case Operand::Kind::word: return operand.text;
    case Operand::Kind::name: break;
  }
  const FactValue* value = facts.find(operand.text);
  if (value == nullptr) {
    evaluation.missing.insert(operand.text);
    return std::nullopt;
  }
  evaluation.used[operand.text] = *value;
  return *value;
}

Truth of(bool value) { return value ? Truth::yes : Truth::no; }

Truth compare(const FactValue& a, const std::string& op, const FactValue& b) {
  if (a.index() != b.index()) return Truth::unknown;  // a word against a number: no evidence either way
  if (op == "==") return of(a == b);
  if (op == "!=") return of(a != b);
  if (!std::holds_alternative<double>(a)) return Truth::unknown;
  const double x = std::get<double>(a), y = std::get<double>(b);
  if (op == "<") return of(x < y);
  if (op == "<=") return of(x <= y);
  if (op == ">") return of(x > y);
  return of(x >= y);
}

Truth evaluate_node(const ConditionNode& node, const Facts& facts, Evaluation& evaluation) {
  switch (node.kind) {
    case ConditionNode::Kind::fact: {
      std::optional<FactValue> value = value_of(node.lhs, facts, evaluation);
      if (!value || !std::holds_alternative<bool>(*value)) return Truth::unknown;
      return of(std::get<bool>(*value));
    }
    case ConditionNode::Kind::compare: {
      std::optional<FactValue> a = value_of(node.lhs, facts, evaluation);
      std::optional<FactValue> b = value_of(node.rhs, facts, evaluation);
      return a && b ? compare(*a, node.op, *b) : Truth::unknown;
    }
    case ConditionNode::Kind::negate: {
      const Truth inner = evaluate_node(node.children.front(), facts, evaluation);
      return inner == Truth::unknown ? inner : of(inner == Truth::no);
    }
    case ConditionNode::Kind::all:
    case ConditionNode::Kind::any: break;
  }
  // Kleene logic: `and` is false when any part is false, `or` true when any part is true;
  // otherwise an unknown part makes the whole unknown. Every part is evaluated, so the
  // report lists all the values and all the missing names.
  const Truth decisive = node.kind == ConditionNode::Kind::all ? Truth::no : Truth::yes;
  bool decided = false, unknown = false;
  for (const ConditionNode& child : node.children) {
    const Truth truth = evaluate_node(child, facts, evaluation);
    decided = decided || truth == decisive;
    unknown = unknown || truth == Truth::unknown;
  }
  if (decided) return decisive;
  if (unknown) return Truth::unknown;
  return decisive == Truth::no ? Truth::yes : Truth::no;
}

}  // namespace

const FactValue* Facts::find(const std::string& name) const {
  auto it = values.find(name);
  return it == values.end() || !it->second ? nullptr : &*it->second;
}

Condition Condition::parse(std::string_view text) {
  Condition condition;
  condition.text_ = std::string(text);
  condition.root_ = std::make_shared<const ConditionNode>(Parser(tokenize(text)).parse());
  return condition;
}

std::set<std::string> Condition::names() const {
  std::set<std::string> names;
  collect_names(*root_, names);
  return names;
}

Evaluation Condition::evaluate(const Facts& facts) const {
  Evaluation evaluation;
  evaluation.truth = evaluate_node(*root_, facts, evaluation);
  return evaluation;
}

std::string_view to_string(Truth truth) {
  switch (truth) {
    case Truth::no: return "false";
    case Truth::yes: return "true";
    case Truth::unknown: return "unknown";
  }
  return "?";
}

std::string format_fact(const FactValue& value) {
  if (const double* number = std::get_if<double>(&value)) return fmt::format("{:.4g}", *number);
  if (const bool* flag = std::get_if<bool>(&value)) return *flag ? "true" : "false";
  return std::get<std::string>(value);
}

}  // namespace kopt::catalog
