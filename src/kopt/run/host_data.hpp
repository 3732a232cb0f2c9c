#pragma once
// Host-side element data: reading any dtype's element as a double, and filling input
// buffers with reproducible random values. The generator is deterministic in (seed, buffer
// name, element index) and independent of thread count, so the kernel's worker and the
// reference runner see the same inputs without passing gigabytes between processes. It is
// counter based (runtime/kopt_input_generator.h), so the GPU regenerates the very same
// values before every timed sample (KernelArguments::generate_inputs_on_device).

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include "kopt/spec/dtype.hpp"
#include "kopt/spec/problem_spec.hpp"

namespace kopt::run {

// Bumped whenever the values the generator produces change: reference outputs are cached
// under this version.
inline constexpr int kInputGeneratorVersion = 2;

// The element types the host can convert, resolved once per buffer so that per-element
// loops switch on an enum rather than compare names.
enum class ElementType {
  float64, float32, float16, bfloat16, float8_e4m3, float8_e5m2,
  int8, uint8, int16, uint16, int32, uint32, int64, uint64,
};

ElementType element_type(const spec::DType& dtype);

double element_as_double(const std::byte* data, ElementType type, std::int64_t index);

// Element `index` of an array of T, read without alignment or aliasing assumptions.
template <typename T>
T load_element(const std::byte* data, std::int64_t index) {
  T value;
  std::memcpy(&value, data + index * static_cast<std::int64_t>(sizeof(T)), sizeof(T));
  return value;
}

// Writes `value` converted (round to nearest, integers clamped) at `index`.
void store_element(std::byte* data, ElementType type, std::int64_t index, double value);

// The generator's stream key for one buffer: what (seed, buffer name) hands the host and the
// device generator alike.
std::uint64_t buffer_stream_key(std::uint64_t seed, std::string_view buffer_name);

// The digest of an output's bytes that the device computes after a timed sample
// (runtime/kopt_input_generator.h): equal bytes, equal digests.
std::uint64_t output_digest(std::span<const std::byte> data);
// Folds one more digest into `combined` (order matters: outputs are folded in argument order).
std::uint64_t mix_digest(std::uint64_t combined, std::uint64_t digest);

// Fills `data` (elements of dtype) per `init`, deterministically from (seed, buffer_name).
void fill_buffer(std::span<std::byte> data, const spec::DType& dtype, const spec::InitSpec& init,
                 std::uint64_t seed, std::string_view buffer_name);

}  // namespace kopt::run
