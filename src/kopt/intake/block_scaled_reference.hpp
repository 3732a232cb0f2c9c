#pragma once
// The reference of an imported block-scaled (MX) problem (mxfp4/mxfp8 dequantize, quantize,
// gemm): Tensara's reference_solution needs torchao (and a GEMM torch's scaled_mm on a GPU of
// compute capability 10 or later); where it cannot run, python/kopt_mx_formats.py computes the
// same thing in torch (or numpy), and the reference says which one ran.

#include <string>

#include <nlohmann/json.hpp>

namespace kopt::intake {

// What is appended to the Tensara ref.py: the fallback, with the element format's row of
// data/block_scaled_formats.toml written in. `block_scaled` is the reader's facts
// (operation, element, block, blocked_scales, parts). Pure, for tests.
std::string block_scaled_reference_tail(const nlohmann::ordered_json& block_scaled);

}  // namespace kopt::intake
