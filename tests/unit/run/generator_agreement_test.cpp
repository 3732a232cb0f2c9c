// The host's input generator against the device's rules (runtime/kopt_shim.cu): both draw
// each element from the shared header (runtime/kopt_input_generator.h), and the check, the
// reference and the timing loop generate on the GPU while a .py reference and the check's
// messages use the host's values, so the two must write the same bits. A GPU cannot run here;
// this holds the host to what the device's fill kernels do with the header's value: double to
// float rounded to nearest (then the type's own conversion), integers rounded to nearest even
// and clamped to the bounds the device uses, which are doubles that fit in the type.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "../../../runtime/kopt_input_generator.h"
#include "kopt/run/host_data.hpp"
#include "kopt/spec/dtype.hpp"

namespace kopt::run {
namespace {

template <typename T>
std::vector<std::byte> bytes_of(T value) {
  std::vector<std::byte> bytes(sizeof(T));
  std::memcpy(bytes.data(), &value, sizeof(T));
  return bytes;
}

template <typename T>
std::vector<std::byte> device_integer(double v, double lo, double hi) {
  return bytes_of(static_cast<T>(std::fmin(std::fmax(std::rint(v), lo), hi)));
}

// kopt_shim_fill's conversion of one value, as runtime/kopt_shim.cu writes it.
std::vector<std::byte> device_element(ElementType type, double v) {
  const float f = static_cast<float>(v);  // __double2float_rn
  switch (type) {
    case ElementType::float64: return bytes_of(v);
    case ElementType::float32: return bytes_of(f);
    case ElementType::float16: return bytes_of(__float2half_rn(f));
    case ElementType::bfloat16: return bytes_of(__float2bfloat16_rn(f));
    case ElementType::float8_e4m3: return bytes_of(__nv_fp8_e4m3(f));
    case ElementType::float8_e5m2: return bytes_of(__nv_fp8_e5m2(f));
    case ElementType::int8: return device_integer<std::int8_t>(v, -128.0, 127.0);
    case ElementType::uint8: return device_integer<std::uint8_t>(v, 0.0, 255.0);
    case ElementType::int16: return device_integer<std::int16_t>(v, -32768.0, 32767.0);
    case ElementType::uint16: return device_integer<std::uint16_t>(v, 0.0, 65535.0);
    case ElementType::int32: return device_integer<std::int32_t>(v, -2147483648.0, 2147483647.0);
    case ElementType::uint32: return device_integer<std::uint32_t>(v, 0.0, 4294967295.0);
    case ElementType::int64: return device_integer<long long>(v, -9223372036854775808.0, 9223372036854774784.0);
    case ElementType::uint64: return device_integer<unsigned long long>(v, 0.0, 18446744073709549568.0);
  }
  return {};
}

struct Draw {
  spec::InitSpec init;
  const char* what;
};

// Ranges inside every type, and ranges far outside the integer types (so that their clamps
// are exercised at both ends), for every element type kopt generates.
TEST(GeneratorAgreement, TheHostWritesTheBitsTheDevicesRulesGive) {
  const std::vector<Draw> draws{
      {{.kind = spec::InitKind::normal, .a = 0, .b = 1}, "normal(0, 1)"},
      {{.kind = spec::InitKind::normal, .a = 3, .b = 100}, "normal(3, 100)"},
      {{.kind = spec::InitKind::uniform, .a = -1, .b = 1}, "uniform(-1, 1)"},
      {{.kind = spec::InitKind::uniform, .a = -1e20, .b = 1e20}, "uniform(-1e20, 1e20)"},
      {{.kind = spec::InitKind::integers, .a = -300, .b = 70000}, "int(-300, 70000)"},
      {{.kind = spec::InitKind::ones}, "ones"},
      {{.kind = spec::InitKind::full, .a = -2.5, .b = -2.5}, "full(-2.5)"},
      {{.kind = spec::InitKind::full, .a = 1e9, .b = 1e9}, "full(1e9)"},  // beyond the small integer types: clamped
  };
  const std::uint64_t seed = 0x5EED;
  constexpr std::int64_t kElements = 4096;
  for (const char* name : {"float64", "float32", "float16", "bfloat16", "float8_e4m3", "float8_e5m2", "int8", "uint8",
                           "int16", "uint16", "int32", "uint32", "int64", "uint64"}) {
    const spec::DType& dtype = *spec::dtype_named(name);
    const ElementType type = element_type(dtype);
    for (const Draw& draw : draws) {
      std::vector<std::byte> host(static_cast<std::size_t>(kElements) * dtype.bytes);
      fill_buffer(host, dtype, draw.init, seed, "A");
      const std::uint64_t key = buffer_stream_key(seed, "A");
      int differing = 0;
      for (std::int64_t i = 0; i < kElements && differing == 0; ++i) {
        const double v = kopt_generator::element_value(kopt_generator::element_bits(key, static_cast<std::uint64_t>(i)),
                                                       static_cast<int>(draw.init.kind), draw.init.a, draw.init.b);
        const std::vector<std::byte> device = device_element(type, v);
        if (std::memcmp(device.data(), host.data() + i * static_cast<std::int64_t>(dtype.bytes), dtype.bytes) != 0) {
          ++differing;
          ADD_FAILURE() << name << " " << draw.what << ": element " << i << " (value " << v
                        << ") differs between the host and the device's rules";
        }
      }
    }
  }
}

}  // namespace
}  // namespace kopt::run
