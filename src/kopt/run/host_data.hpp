#pragma once
// Host-side element data: reading any dtype's element as a double, and filling input
// buffers with reproducible random values. The generator is deterministic in (seed, buffer
// name, element index) and independent of thread count, so the kernel's worker and the
// reference runner see the same inputs without passing gigabytes between processes.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "kopt/spec/dtype.hpp"
#include "kopt/spec/problem_spec.hpp"

namespace kopt::run {

// Bumped whenever the values the generator produces change: reference outputs are cached
// under this version.
inline constexpr int kInputGeneratorVersion = 1;

// The element types the host can convert, resolved once per buffer so that per-element
// loops switch on an enum rather than compare names.
enum class ElementType {
  float64, float32, float16, bfloat16, float8_e4m3, float8_e5m2,
  int8, uint8, int16, uint16, int32, uint32, int64, uint64,
};

ElementType element_type(const spec::DType& dtype);

double element_as_double(const std::byte* data, ElementType type, std::int64_t index);

// Writes `value` converted (round to nearest, integers clamped) at `index`.
void store_element(std::byte* data, ElementType type, std::int64_t index, double value);

// Fills `data` (elements of dtype) per `init`, deterministically from (seed, buffer_name).
void fill_buffer(std::span<std::byte> data, const spec::DType& dtype, const spec::InitSpec& init,
                 std::uint64_t seed, std::string_view buffer_name);

}  // namespace kopt::run
