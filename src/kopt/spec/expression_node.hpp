#pragma once
// The parsed form of an Expression, shared by its parser (expression.cpp) and its
// evaluator (expression_evaluate.cpp). Private to spec/.

#include <memory>
#include <string>
#include <vector>

#include "kopt/spec/expression.hpp"

namespace kopt::spec {

struct ExpressionNode {
  enum class Kind { literal, name, unary, binary, call };
  Kind kind = Kind::literal;
  Number value;        // literal
  std::string symbol;  // name, operator or function
  std::vector<std::shared_ptr<const ExpressionNode>> operands;
};

}  // namespace kopt::spec
