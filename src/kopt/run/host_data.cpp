#include "kopt/run/host_data.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>
#include <utility>

#include "kopt/core/hash.hpp"
#include "kopt/core/parallel_for.hpp"

namespace kopt::run {
namespace {

using spec::DType;
using spec::DTypeKind;

template <typename T>
T load(const std::byte* data, std::int64_t index) {
  T value;
  std::memcpy(&value, data + index * static_cast<std::int64_t>(sizeof(T)), sizeof(T));
  return value;
}

template <typename T>
void save(std::byte* data, std::int64_t index, T value) {
  std::memcpy(data + index * static_cast<std::int64_t>(sizeof(T)), &value, sizeof(T));
}

template <typename T>
T clamp_to(double value) {
  double lo = static_cast<double>(std::numeric_limits<T>::min());
  double hi = static_cast<double>(std::numeric_limits<T>::max());
  return static_cast<T>(std::clamp(std::nearbyint(value), lo, hi));
}

// Elements are generated in chunks, each from its own engine seeded by (seed, buffer,
// chunk): the values do not depend on how many threads generate them.
constexpr std::int64_t kChunkElements = 1 << 20;
// More threads than this add little: filling is bound by memory bandwidth long before.
constexpr unsigned kFillThreads = 16;

std::uint64_t chunk_seed(std::uint64_t seed, std::string_view buffer_name, std::int64_t chunk) {
  std::string key = content_hash(std::string(buffer_name) + "/" + std::to_string(seed) + "/" +
                                 std::to_string(chunk));
  return std::stoull(key.substr(0, 16), nullptr, 16);
}

void fill_chunk(std::byte* data, ElementType type, const spec::InitSpec& init, std::int64_t begin,
                std::int64_t end, std::uint64_t engine_seed) {
  std::mt19937_64 engine(engine_seed);
  std::normal_distribution<double> normal(init.a, init.b);
  std::uniform_real_distribution<double> uniform(init.a, init.b);
  std::uniform_int_distribution<std::int64_t> integers(static_cast<std::int64_t>(std::ceil(init.a)),
                                                       static_cast<std::int64_t>(std::floor(init.b)));
  for (std::int64_t i = begin; i < end; ++i) {
    double value = 0;
    switch (init.kind) {
      case spec::InitKind::normal: value = normal(engine); break;
      case spec::InitKind::uniform: value = uniform(engine); break;
      case spec::InitKind::integers: value = static_cast<double>(integers(engine)); break;
      case spec::InitKind::zeros: value = 0; break;
      case spec::InitKind::ones: value = 1; break;
    }
    store_element(data, type, i, value);
  }
}

}  // namespace

ElementType element_type(const DType& dtype) {
  static const std::pair<std::string_view, ElementType> kNames[] = {
      {"float64", ElementType::float64}, {"float32", ElementType::float32},
      {"float16", ElementType::float16}, {"bfloat16", ElementType::bfloat16},
      {"float8_e4m3", ElementType::float8_e4m3}, {"float8_e5m2", ElementType::float8_e5m2},
      {"int8", ElementType::int8}, {"uint8", ElementType::uint8},
      {"int16", ElementType::int16}, {"uint16", ElementType::uint16},
      {"int32", ElementType::int32}, {"uint32", ElementType::uint32},
      {"int64", ElementType::int64}, {"uint64", ElementType::uint64}};
  for (const auto& [name, type] : kNames) {
    if (dtype.name == name) return type;
  }
  throw std::logic_error("dtype " + dtype.name + " has no host conversion");
}

double element_as_double(const std::byte* data, ElementType type, std::int64_t index) {
  switch (type) {
    case ElementType::float64: return load<double>(data, index);
    case ElementType::float32: return load<float>(data, index);
    case ElementType::float16: return __half2float(load<__half>(data, index));
    case ElementType::bfloat16: return __bfloat162float(load<__nv_bfloat16>(data, index));
    case ElementType::float8_e4m3: return static_cast<float>(load<__nv_fp8_e4m3>(data, index));
    case ElementType::float8_e5m2: return static_cast<float>(load<__nv_fp8_e5m2>(data, index));
    case ElementType::int8: return load<std::int8_t>(data, index);
    case ElementType::uint8: return load<std::uint8_t>(data, index);
    case ElementType::int16: return load<std::int16_t>(data, index);
    case ElementType::uint16: return load<std::uint16_t>(data, index);
    case ElementType::int32: return load<std::int32_t>(data, index);
    case ElementType::uint32: return load<std::uint32_t>(data, index);
    case ElementType::int64: return static_cast<double>(load<std::int64_t>(data, index));
    case ElementType::uint64: return static_cast<double>(load<std::uint64_t>(data, index));
  }
  return std::nan("");
}

void store_element(std::byte* data, ElementType type, std::int64_t index, double value) {
  switch (type) {
    case ElementType::float64: return save(data, index, value);
    case ElementType::float32: return save(data, index, static_cast<float>(value));
    case ElementType::float16: return save(data, index, __float2half_rn(static_cast<float>(value)));
    case ElementType::bfloat16: return save(data, index, __float2bfloat16_rn(static_cast<float>(value)));
    case ElementType::float8_e4m3: return save(data, index, __nv_fp8_e4m3(static_cast<float>(value)));
    case ElementType::float8_e5m2: return save(data, index, __nv_fp8_e5m2(static_cast<float>(value)));
    case ElementType::int8: return save(data, index, clamp_to<std::int8_t>(value));
    case ElementType::uint8: return save(data, index, clamp_to<std::uint8_t>(value));
    case ElementType::int16: return save(data, index, clamp_to<std::int16_t>(value));
    case ElementType::uint16: return save(data, index, clamp_to<std::uint16_t>(value));
    case ElementType::int32: return save(data, index, clamp_to<std::int32_t>(value));
    case ElementType::uint32: return save(data, index, clamp_to<std::uint32_t>(value));
    case ElementType::int64: return save(data, index, clamp_to<std::int64_t>(value));
    case ElementType::uint64: return save(data, index, clamp_to<std::uint64_t>(value));
  }
}

void fill_buffer(std::span<std::byte> data, const DType& dtype, const spec::InitSpec& init,
                 std::uint64_t seed, std::string_view buffer_name) {
  const ElementType type = element_type(dtype);
  const std::int64_t elements = static_cast<std::int64_t>(data.size() / dtype.bytes);
  const std::int64_t chunks = (elements + kChunkElements - 1) / kChunkElements;
  parallel_for(
      static_cast<std::size_t>(chunks),
      [&](std::size_t chunk) {
        const std::int64_t begin = static_cast<std::int64_t>(chunk) * kChunkElements;
        const std::int64_t end = std::min(elements, begin + kChunkElements);
        fill_chunk(data.data(), type, init, begin, end, chunk_seed(seed, buffer_name, static_cast<std::int64_t>(chunk)));
      },
      kFillThreads);
}

}  // namespace kopt::run
