#include "kopt/spec/problem_work.hpp"

namespace kopt::spec {

const DType& first_output_dtype(const BoundCase& bound_case) {
  for (const BoundArg& arg : bound_case.args) {
    if (arg.buffer && arg.buffer->is_output) return *arg.buffer->dtype;
  }
  return *dtype_named("float32");
}

double work_value(const std::optional<Expression>& formula, const BoundCase& bound_case) {
  return formula ? to_double(formula->evaluate(bound_case.dims)) : 0;
}

}  // namespace kopt::spec
