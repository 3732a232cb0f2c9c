#pragma once
// The work one case does, from the spec: the dtype its arithmetic is in and the [work]
// formulas evaluated for its dims. Used by the timing (floor, achieved rates) and the roofline.

#include <optional>

#include "kopt/spec/dtype.hpp"
#include "kopt/spec/expression.hpp"
#include "kopt/spec/problem_spec.hpp"

namespace kopt::spec {

// The dtype of the case's first output buffer: what the kernel computes in. float32 when the
// case has no output buffer.
const DType& first_output_dtype(const BoundCase& bound_case);

// The formula evaluated over the case's dims; 0 when the spec has none.
double work_value(const std::optional<Expression>& formula, const BoundCase& bound_case);

// The case whose buffers take the fewest bytes (the first of equals): where a costly tool or a
// quick look at the spec runs.
const BoundCase& smallest_case(const std::vector<BoundCase>& cases);

// The work of one solve call on a case: FLOP and bytes.
struct CaseWork {
  double flops = 0;
  double bytes = 0;
};

// Both [work] formulas evaluated for the case; none when the spec lacks either.
std::optional<CaseWork> case_work(const ProblemSpec& spec, const BoundCase& bound_case);

}  // namespace kopt::spec
