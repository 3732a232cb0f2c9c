// Expression::evaluate: exact int64 arithmetic with every overflow reported.

#include <cmath>
#include <compare>
#include <cstdint>

#include "kopt/core/error.hpp"
#include "kopt/spec/expression.hpp"
#include "kopt/spec/expression_node.hpp"

namespace kopt::spec {
namespace {

// Integers stay exact int64 with every overflow reported: a size that wrapped would
// allocate the wrong buffer silently. A decimal operand makes the operation floating.
class Evaluator {
 public:
  Evaluator(std::string_view text, const Dims& dims) : text_(text), dims_(dims) {}

  Number evaluate(const ExpressionNode& node) const {
    switch (node.kind) {
      case ExpressionNode::Kind::literal:
        return node.value;
      case ExpressionNode::Kind::name:
        return lookup(node.symbol);
      case ExpressionNode::Kind::unary:
        return unary(node.symbol, evaluate(*node.operands[0]));
      case ExpressionNode::Kind::binary:
        return binary(node);
      case ExpressionNode::Kind::call:
        return node.operands.size() == 1 ? round_to_integer(node.symbol, evaluate(*node.operands[0]))
                                         : call(node.symbol, evaluate(*node.operands[0]), evaluate(*node.operands[1]));
    }
    return std::int64_t{0};
  }

 private:
  Number lookup(const std::string& name) const {
    if (auto found = dims_.find(name); found != dims_.end()) return found->second;
    std::string known;
    for (const auto& [dim, value] : dims_) known += (known.empty() ? "" : ", ") + dim;
    throw failure(fmt::format("unknown dim \"{}\" ({})", name,
                              known.empty() ? "no dims are defined" : "known: " + known));
  }

  Number unary(const std::string& op, const Number& operand) const {
    if (op == "!") return std::int64_t{!truthy(operand)};
    if (const auto* integer = std::get_if<std::int64_t>(&operand)) {
      if (*integer == INT64_MIN) throw failure(fmt::format("integer overflow in -({})", *integer));
      return -*integer;
    }
    return -std::get<double>(operand);
  }

  Number binary(const ExpressionNode& node) const {
    const std::string& op = node.symbol;
    Number left = evaluate(*node.operands[0]);
    // && and || do not evaluate their right side when the left decides, like C.
    if (op == "&&" && !truthy(left)) return std::int64_t{0};
    if (op == "||" && truthy(left)) return std::int64_t{1};
    Number right = evaluate(*node.operands[1]);
    if (op == "&&" || op == "||") return std::int64_t{truthy(right)};
    if (op == "==" || op == "!=" || op == "<" || op == "<=" || op == ">" || op == ">=") {
      return std::int64_t{compare(op, left, right)};
    }
    const auto* a = std::get_if<std::int64_t>(&left);
    const auto* b = std::get_if<std::int64_t>(&right);
    if (a != nullptr && b != nullptr) return integer_arithmetic(op, *a, *b);
    return floating_arithmetic(op, to_double(left), to_double(right));
  }

  Number call(const std::string& function, const Number& left, const Number& right) const {
    if (function == "min") return to_double(right) < to_double(left) ? right : left;
    if (function == "max") return to_double(right) > to_double(left) ? right : left;
    // cdiv: ceiling division, the usual grid-size helper.
    const auto* a = std::get_if<std::int64_t>(&left);
    const auto* b = std::get_if<std::int64_t>(&right);
    if (a == nullptr || b == nullptr) {
      return std::ceil(to_double(floating_arithmetic("/", to_double(left), to_double(right))));
    }
    std::int64_t quotient = std::get<std::int64_t>(integer_arithmetic("/", *a, *b));
    bool inexact = *a % *b != 0;
    return quotient + ((inexact && (*a < 0) == (*b < 0)) ? 1 : 0);
  }

  // floor and ceil give an integer, so that exact int64 arithmetic (with its overflow
  // checks) follows them: floor(N*0.75)*K is a size. An integer operand is already whole.
  Number round_to_integer(const std::string& function, const Number& operand) const {
    if (std::holds_alternative<std::int64_t>(operand)) return operand;
    const double value = std::get<double>(operand);
    const double rounded = function == "floor" ? std::floor(value) : std::ceil(value);
    constexpr double kInt64Limit = 9223372036854775808.0;  // 2^63
    if (!(rounded >= -kInt64Limit && rounded < kInt64Limit)) {
      throw failure(fmt::format("{}({}) does not fit in 64 bits", function, to_string(operand)));
    }
    return static_cast<std::int64_t>(rounded);
  }

  Number integer_arithmetic(const std::string& op, std::int64_t a, std::int64_t b) const {
    std::int64_t result = 0;
    bool overflow = false;
    if (op == "+") overflow = __builtin_add_overflow(a, b, &result);
    if (op == "-") overflow = __builtin_sub_overflow(a, b, &result);
    if (op == "*") overflow = __builtin_mul_overflow(a, b, &result);
    if (op == "/" || op == "%") {
      if (b == 0) throw failure(fmt::format("division by zero in {} {} {}", a, op, b));
      overflow = a == INT64_MIN && b == -1;
      if (!overflow) result = op == "/" ? a / b : a % b;
    }
    if (overflow) throw failure(fmt::format("integer overflow in {} {} {}", a, op, b));
    return result;
  }

  Number floating_arithmetic(const std::string& op, double a, double b) const {
    if ((op == "/" || op == "%") && b == 0) {
      throw failure(fmt::format("division by zero in {} {} {}", to_string(a), op, to_string(b)));
    }
    double result = op == "+"   ? a + b
                    : op == "-" ? a - b
                    : op == "*" ? a * b
                    : op == "/" ? a / b
                                : std::fmod(a, b);
    if (!std::isfinite(result)) {
      throw failure(fmt::format("{} {} {} is not finite", to_string(a), op, to_string(b)));
    }
    return result;
  }

  static bool compare(const std::string& op, const Number& left, const Number& right) {
    // Two integers compare exactly; int64 values beyond 2^53 would not survive a double.
    auto order = std::holds_alternative<std::int64_t>(left) && std::holds_alternative<std::int64_t>(right)
                     ? std::get<std::int64_t>(left) <=> std::get<std::int64_t>(right)
                     : std::weak_order(to_double(left), to_double(right));
    if (op == "==") return order == 0;
    if (op == "!=") return order != 0;
    if (op == "<") return order < 0;
    if (op == "<=") return order <= 0;
    if (op == ">") return order > 0;
    return order >= 0;
  }

  static bool truthy(const Number& value) { return to_double(value) != 0; }

  Error failure(std::string_view what) const { return input_error("expression \"{}\": {}", text_, what); }

  std::string_view text_;
  const Dims& dims_;
};

}  // namespace

Number Expression::evaluate(const Dims& dims) const { return Evaluator(text_, dims).evaluate(*root_); }

std::int64_t Expression::evaluate_integer(const Dims& dims) const {
  Number value = evaluate(dims);
  if (const auto* integer = std::get_if<std::int64_t>(&value)) return *integer;
  // A floating result is accepted only when it is a whole number a double holds exactly
  // ("1e6" is a fine size; "N*0.5" with odd N is not).
  double floating = std::get<double>(value);
  constexpr double kExactLimit = 9007199254740992.0;  // 2^53
  if (floating == std::trunc(floating) && std::abs(floating) <= kExactLimit) {
    return static_cast<std::int64_t>(floating);
  }
  throw input_error("expression \"{}\" gives {}, not an integer", text_, to_string(value));
}

}  // namespace kopt::spec
