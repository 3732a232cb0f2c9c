#include "kopt/spec/problem_work.hpp"

#include <algorithm>
#include <cstdint>

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

const BoundCase& smallest_case(const std::vector<BoundCase>& cases) {
  auto bytes = [](const BoundCase& c) {
    std::int64_t total = 0;
    for (const BoundArg& a : c.args) total += a.buffer ? a.buffer->bytes() : 0;
    return total;
  };
  return *std::ranges::min_element(cases, [&](const BoundCase& a, const BoundCase& b) { return bytes(a) < bytes(b); });
}

std::optional<CaseWork> case_work(const ProblemSpec& spec, const BoundCase& bound_case) {
  if (!spec.work.flops || !spec.work.bytes) return std::nullopt;
  return CaseWork{.flops = work_value(spec.work.flops, bound_case), .bytes = work_value(spec.work.bytes, bound_case)};
}

}  // namespace kopt::spec
