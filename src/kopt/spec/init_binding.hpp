#pragma once
// How a buffer's init binds to its kernel parameter (spec/problem_binding.cpp): the fill's kind
// against the dtype, its bounds and values evaluated per case and checked against the dtype, and
// what it writes checked against the buffer's size (values, set's indices, cat's runs, the
// block-scaled layouts). Each problem is one input_error naming the buffer and the case.

#include <cstdint>
#include <string>
#include <string_view>

#include "kopt/spec/problem_spec.hpp"

namespace kopt::spec {

// Whether an integer dtype holds `value`.
bool fits_integer(const DType& dtype, std::int64_t value);

// `where`: "[buffers.x]", or "[[cases]] init.x of case \"c\":" for a case's own fill.
void check_init_kind(const KernelParam& param, const InitFormula& init, std::string_view where);

// The formula bound to one case's dims; `where` as above, without the case.
InitSpec bind_init(const KernelParam& param, const InitFormula& formula, const Dims& dims,
                   const std::string& case_name, std::string_view where);

// What the bound init writes fits the buffer of `elements` elements (`bytes` bytes) in the case.
void check_init_fits_buffer(const KernelParam& param, const InitSpec& init, std::int64_t elements, std::int64_t bytes,
                            const std::string& case_name);

}  // namespace kopt::spec
