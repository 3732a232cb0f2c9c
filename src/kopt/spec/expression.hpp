#pragma once
// Arithmetic over problem dims, as written in kopt.toml: buffer shapes ("M*K"), work
// formulas ("2*M*N*K"), tune restrictions ("BM*BN <= 16384").
//
// A small hand-written evaluator rather than a library (muParser et al.): sizes must be
// exact 64-bit integers with overflow reported, not doubles, and Debian ships those
// libraries only as shared objects, which the GPU machine lacks.
//
// Grammar: integer and decimal literals, names, + - * / % (integer division truncates;
// with a decimal operand the arithmetic is floating), unary -, parentheses, comparisons
// == != < <= > >=, && || !, and the functions min(a,b), max(a,b), cdiv(a,b) (ceiling
// division), floor(x) and ceil(x) (round a decimal to an integer; an integer stays as it
// is, so floor(7/2) is 3 because 7/2 already truncated). Comparisons and logic give 1 or 0.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace kopt::spec {

using Number = std::variant<std::int64_t, double>;
using Dims = std::map<std::string, Number, std::less<>>;

double to_double(const Number& value);
std::string to_string(const Number& value);  // "4096", "0.5"

struct ExpressionNode;

class Expression {
 public:
  // Throws input_error with the text and the position of the problem.
  static Expression parse(std::string_view text);

  const std::string& text() const { return text_; }
  // The names it reads, sorted and unique.
  std::vector<std::string> names() const;

  // Throws input_error naming an unknown dim (and the known ones) or an overflow.
  Number evaluate(const Dims& dims) const;
  // As evaluate, but the result must be an integer (a size).
  std::int64_t evaluate_integer(const Dims& dims) const;

 private:
  std::string text_;
  std::shared_ptr<const ExpressionNode> root_;
};

}  // namespace kopt::spec
