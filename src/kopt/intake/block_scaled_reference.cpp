#include "kopt/intake/block_scaled_reference.hpp"

#include <fmt/format.h>

#include "kopt/spec/block_scaled.hpp"

namespace kopt::intake {
namespace {

constexpr const char* kFallback = R"PY(

# Block-scaled (MX) data: the suite's reference needs torchao (a GEMM also torch's scaled_mm on a
# GPU of compute capability 10 or later). Where that cannot run, kopt_mx_formats.py (beside this
# file) computes the same thing: torchao's to_mx / to_dtype semantics in torch (or numpy), giving
# the bytes kopt's host fills write (tests/python/test_mx_formats.py).
OPERATION = "{operation}"
ELEMENT = {element}
BLOCK = {block}
BLOCKED_SCALES = {blocked}
QUANTIZED_PARTS = {parts}
_SUITE_REFERENCE = reference
_SAID = []


def _suite_runs():
    try:
        import torch
        import torchao.prototype.mx_formats.mx_tensor  # noqa: F401
    except Exception:
        return False
    if OPERATION != "gemm":
        return True
    import torch.nn.functional as F
    return hasattr(F, "scaled_mm") and torch.cuda.is_available() and torch.cuda.get_device_capability() >= (10, 0)


def _say(which):
    if not _SAID:
        _SAID.append(which)
        print("kopt reference: %s" % which, file=sys.stderr)


def reference(**kwargs):
    if _suite_runs():
        _say("the suite's reference_solution (torchao)")
        return _SUITE_REFERENCE(**kwargs)
    _say("kopt_mx_formats.py (torchao's semantics without torchao)")
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import kopt_mx_formats as mx
    args = [kwargs[name] for name in INPUTS]
    if OPERATION == "dequantize":
        return mx.dequantize(args[0], args[1], ELEMENT, BLOCK)
    if OPERATION == "quantize":
        scales, data = mx.quantize(args[0], ELEMENT, BLOCK)
        return tuple(data if part == "data" else scales for part in QUANTIZED_PARTS)
    return mx.scaled_matmul(*args, ELEMENT, BLOCK, BLOCKED_SCALES)
)PY";

std::string python_element(const spec::BlockElementFormat& e) {
  return fmt::format(
      "{{\"name\": \"{}\", \"exponent_bits\": {}, \"mantissa_bits\": {}, \"max\": {}, \"per_byte\": {}, "
      "\"nan_code\": {}}}",
      e.name, e.exponent_bits, e.mantissa_bits, e.max, e.per_byte, e.nan_code);
}

}  // namespace

std::string block_scaled_reference_tail(const nlohmann::ordered_json& block_scaled) {
  std::string parts = "[";
  for (const auto& part : block_scaled.value("parts", nlohmann::ordered_json::array())) {
    parts += fmt::format("{}\"{}\"", parts.size() > 1 ? ", " : "", part.get<std::string>());
  }
  parts += "]";
  const spec::BlockElementFormat& element = spec::block_element_format(block_scaled.at("element").get<std::string>());
  return fmt::format(fmt::runtime(kFallback), fmt::arg("operation", block_scaled.at("operation").get<std::string>()),
                     fmt::arg("element", python_element(element)),
                     fmt::arg("block", block_scaled.at("block").get<int>()),
                     fmt::arg("blocked", block_scaled.value("blocked_scales", false) ? "True" : "False"),
                     fmt::arg("parts", parts));
}

}  // namespace kopt::intake
