#include "kopt/run/host_data.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

#include "kopt/core/parallel_for.hpp"
#include "kopt/run/block_scaled_fill.hpp"
#include "kopt/run/host_writes.hpp"
#include "kopt_input_generator.h"

namespace kopt::run {
namespace {

using spec::DType;
using spec::DTypeKind;

template <typename T>
void save(std::byte* data, std::int64_t index, T value) {
  std::memcpy(data + index * static_cast<std::int64_t>(sizeof(T)), &value, sizeof(T));
}

// Rounded to nearest even and clamped to the largest doubles that fit in T: for 64-bit
// integers the type's maximum rounds up to 2^63 or 2^64, which does not fit (converting it is
// undefined, and x86 wrote INT64_MIN), so the bound is the double just below, as the device's
// generator has it (runtime/kopt_shim.cu; tests/unit/run/generator_agreement_test.cpp).
template <typename T>
T clamp_to(double value) {
  const double lo = static_cast<double>(std::numeric_limits<T>::min());
  double hi = static_cast<double>(std::numeric_limits<T>::max());
  if (static_cast<long double>(hi) > static_cast<long double>(std::numeric_limits<T>::max())) hi = std::nextafter(hi, 0.0);
  return static_cast<T>(std::clamp(std::nearbyint(value), lo, hi));
}

// More threads than this add little: filling and digesting are bound by memory bandwidth long before.
constexpr unsigned kHostThreads = 16;
constexpr std::int64_t kChunkElements = 1 << 20;
constexpr std::size_t kDigestChunkWords = std::size_t{1} << 20;

// The digest's terms of words [begin, end) of `data` (the last word zero-padded).
std::uint64_t digest_words(std::span<const std::byte> data, std::size_t begin, std::size_t end) {
  std::uint64_t sum = 0;
  for (std::size_t w = begin; w < end; ++w) {
    std::uint64_t word = 0;
    std::memcpy(&word, data.data() + w * 8, std::min<std::size_t>(8, data.size() - w * 8));
    sum += kopt_generator::digest_term(word, w);
  }
  return sum;
}

static_assert(static_cast<int>(ElementType::uint64) == kopt_generator::u64 &&
              static_cast<int>(ElementType::float16) == kopt_generator::f16);
static_assert(static_cast<int>(spec::InitKind::ones) == kopt_generator::ones &&
              static_cast<int>(spec::InitKind::full) == kopt_generator::full &&
              static_cast<int>(spec::InitKind::values) == kopt_generator::values &&
              static_cast<int>(spec::InitKind::integers) == kopt_generator::integers);

// Calls f(convert) with the conversion of a double to `type`, one lambda per type: a loop
// over elements inside f is compiled once per type, with no switch per element (filling the
// inputs of a .py reference is the loop's largest host-side cost: docs/results.md).
template <typename F>
void with_conversion(ElementType type, F&& f) {
  switch (type) {
    case ElementType::float64: return f([](double v) { return v; });
    case ElementType::float32: return f([](double v) { return static_cast<float>(v); });
    case ElementType::float16: return f([](double v) { return __float2half_rn(static_cast<float>(v)); });
    case ElementType::bfloat16: return f([](double v) { return __float2bfloat16_rn(static_cast<float>(v)); });
    case ElementType::float8_e4m3: return f([](double v) { return __nv_fp8_e4m3(static_cast<float>(v)); });
    case ElementType::float8_e5m2: return f([](double v) { return __nv_fp8_e5m2(static_cast<float>(v)); });
    case ElementType::int8: return f([](double v) { return clamp_to<std::int8_t>(v); });
    case ElementType::uint8: return f([](double v) { return clamp_to<std::uint8_t>(v); });
    case ElementType::int16: return f([](double v) { return clamp_to<std::int16_t>(v); });
    case ElementType::uint16: return f([](double v) { return clamp_to<std::uint16_t>(v); });
    case ElementType::int32: return f([](double v) { return clamp_to<std::int32_t>(v); });
    case ElementType::uint32: return f([](double v) { return clamp_to<std::uint32_t>(v); });
    case ElementType::int64: return f([](double v) { return clamp_to<std::int64_t>(v); });
    case ElementType::uint64: return f([](double v) { return clamp_to<std::uint64_t>(v); });
  }
}

void fill_chunk(std::byte* data, ElementType type, const spec::InitSpec& init, std::int64_t begin,
                std::int64_t end, std::uint64_t key) {
  const int kind = static_cast<int>(init.kind);
  with_conversion(type, [&](auto convert) {
    if (init.kind == spec::InitKind::values) {  // the list as written; its length was checked at binding
      for (std::int64_t i = begin; i < end; ++i) save(data, i, convert(init.values[static_cast<std::size_t>(i)]));
      return;
    }
    if (init.kind == spec::InitKind::choice) {  // b with probability p: a uniform [0, 1) draw below p
      for (std::int64_t i = begin; i < end; ++i) {
        const std::uint64_t bits = kopt_generator::element_bits(key, static_cast<std::uint64_t>(i));
        const double u = kopt_generator::element_value(bits, kopt_generator::uniform, 0.0, 1.0);
        save(data, i, convert(u < init.probability ? init.b : init.a));
      }
      return;
    }
    for (std::int64_t i = begin; i < end; ++i) {
      const std::uint64_t bits = kopt_generator::element_bits(key, static_cast<std::uint64_t>(i));
      save(data, i, convert(kopt_generator::element_value(bits, kind, init.a, init.b)));
    }
  });
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
    case ElementType::float64: return load_element<double>(data, index);
    case ElementType::float32: return load_element<float>(data, index);
    case ElementType::float16: return __half2float(load_element<__half>(data, index));
    case ElementType::bfloat16: return __bfloat162float(load_element<__nv_bfloat16>(data, index));
    case ElementType::float8_e4m3: return static_cast<float>(load_element<__nv_fp8_e4m3>(data, index));
    case ElementType::float8_e5m2: return static_cast<float>(load_element<__nv_fp8_e5m2>(data, index));
    case ElementType::int8: return load_element<std::int8_t>(data, index);
    case ElementType::uint8: return load_element<std::uint8_t>(data, index);
    case ElementType::int16: return load_element<std::int16_t>(data, index);
    case ElementType::uint16: return load_element<std::uint16_t>(data, index);
    case ElementType::int32: return load_element<std::int32_t>(data, index);
    case ElementType::uint32: return load_element<std::uint32_t>(data, index);
    case ElementType::int64: return static_cast<double>(load_element<std::int64_t>(data, index));
    case ElementType::uint64: return static_cast<double>(load_element<std::uint64_t>(data, index));
  }
  return std::nan("");
}

void store_element(std::byte* data, ElementType type, std::int64_t index, double value) {
  with_conversion(type, [&](auto convert) { save(data, index, convert(value)); });
}

std::uint64_t buffer_stream_key(std::uint64_t seed, std::string_view buffer_name) {
  std::uint64_t name_hash = 0xCBF29CE484222325ull;  // FNV-1a
  for (char c : buffer_name) name_hash = (name_hash ^ static_cast<unsigned char>(c)) * 0x100000001B3ull;
  return kopt_generator::mix64(kopt_generator::mix64(seed) ^ name_hash);
}

std::uint64_t output_digest(std::span<const std::byte> data) {
  // A sum of one term per word (mod 2^64): chunks summed side by side give the same digest, and
  // a large output read back while a bench samples is digested on every core.
  const std::size_t words = (data.size() + 7) / 8;
  const std::size_t chunks = (words + kDigestChunkWords - 1) / kDigestChunkWords;
  if (chunks <= 1) return digest_words(data, 0, words);
  std::vector<std::uint64_t> partial(chunks);
  parallel_for(
      chunks,
      [&](std::size_t chunk) {
        const std::size_t begin = chunk * kDigestChunkWords;
        partial[chunk] = digest_words(data, begin, std::min(words, begin + kDigestChunkWords));
      },
      kHostThreads);
  std::uint64_t digest = 0;
  for (std::uint64_t sum : partial) digest += sum;
  return digest;
}

std::uint64_t mix_digest(std::uint64_t combined, std::uint64_t digest) {
  return kopt_generator::mix64(combined ^ digest);
}

// sorted(...): the buffer's values in ascending order. Each value came from this type, so the
// round trip through double is exact.
static void sort_elements(std::span<std::byte> data, ElementType type, std::int64_t elements) {
  std::vector<double> values(static_cast<std::size_t>(elements));
  for (std::size_t i = 0; i < values.size(); ++i) {
    values[i] = element_as_double(data.data(), type, static_cast<std::int64_t>(i));
  }
  std::sort(values.begin(), values.end());
  with_conversion(type, [&](auto convert) {
    for (std::size_t i = 0; i < values.size(); ++i) save(data.data(), static_cast<std::int64_t>(i), convert(values[i]));
  });
}

// tril(F, n) / triu(F, n): in each row-major n x n matrix, the elements above (tril) or below
// (triu) the diagonal are zero, as torch.tril and torch.triu leave them.
static void zero_triangle(std::span<std::byte> data, ElementType type, std::int64_t elements, std::int64_t width,
                          bool keep_lower) {
  with_conversion(type, [&](auto convert) {
    const auto zero = convert(0.0);
    for (std::int64_t i = 0; i < elements; ++i) {
      const std::int64_t column = i % width, row = (i / width) % width;
      if (keep_lower ? column > row : column < row) save(data.data(), i, zero);
    }
  });
}

// softmax(F, n): each run of n elements (the last one may be shorter) replaced by exp(x - max) /
// sum(exp(x - max)) over the run, computed in double and rounded once to the type.
static void softmax_rows(std::span<std::byte> data, ElementType type, std::int64_t elements, std::int64_t width) {
  std::vector<double> row;
  with_conversion(type, [&](auto convert) {
    for (std::int64_t begin = 0; begin < elements; begin += width) {
      const std::int64_t end = std::min(elements, begin + width);
      row.resize(static_cast<std::size_t>(end - begin));
      for (std::int64_t i = begin; i < end; ++i) row[static_cast<std::size_t>(i - begin)] = element_as_double(data.data(), type, i);
      const double top = *std::ranges::max_element(row);
      double sum = 0;
      for (double& x : row) sum += (x = std::exp(x - top));
      for (std::int64_t i = begin; i < end; ++i) save(data.data(), i, convert(row[static_cast<std::size_t>(i - begin)] / sum));
    }
  });
}

// plus_eye(F, n, v): v added to the diagonal of each row-major n x n matrix (x + torch.eye(n) * v).
static void add_to_diagonal(std::span<std::byte> data, ElementType type, std::int64_t elements, std::int64_t width,
                            double value) {
  with_conversion(type, [&](auto convert) {
    for (std::int64_t i = 0; i < elements; ++i) {
      if (i % width == (i / width) % width) save(data.data(), i, convert(element_as_double(data.data(), type, i) + value));
    }
  });
}

void fill_buffer(std::span<std::byte> data, const DType& dtype, const spec::InitSpec& init,
                 std::uint64_t seed, std::string_view buffer_name) {
  if (init.block_scaled) return fill_block_scaled(data, init, seed);  // keyed by its source's name, not the buffer's
  const ElementType type = element_type(dtype);
  const std::int64_t elements = static_cast<std::int64_t>(data.size() / dtype.bytes);
  const std::int64_t chunks = (elements + kChunkElements - 1) / kChunkElements;
  const std::uint64_t key = buffer_stream_key(seed, buffer_name);
  if (init.kind == spec::InitKind::segments) {
    fill_segments(data, type, init.segments, key);
    apply_writes(data, type, elements, init.writes, key);
    return;
  }
  parallel_for(
      static_cast<std::size_t>(chunks),
      [&](std::size_t chunk) {
        const std::int64_t begin = static_cast<std::int64_t>(chunk) * kChunkElements;
        const std::int64_t end = std::min(elements, begin + kChunkElements);
        fill_chunk(data.data(), type, init, begin, end, key);
      },
      kHostThreads);
  using spec::Arrangement;
  if (init.arrangement == Arrangement::sorted) sort_elements(data, type, elements);
  if (init.arrangement == Arrangement::lower_triangle || init.arrangement == Arrangement::upper_triangle) {
    zero_triangle(data, type, elements, init.width, init.arrangement == Arrangement::lower_triangle);
  }
  if (init.arrangement == Arrangement::softmax) softmax_rows(data, type, elements, init.width);
  if (init.arrangement == Arrangement::plus_eye) add_to_diagonal(data, type, elements, init.width, init.diagonal);
  if (init.arrangement == Arrangement::halves) copy_halves(data, dtype.bytes, init.width);
  apply_writes(data, type, elements, init.writes, key);
}

}  // namespace kopt::run
