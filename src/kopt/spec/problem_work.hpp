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

}  // namespace kopt::spec
