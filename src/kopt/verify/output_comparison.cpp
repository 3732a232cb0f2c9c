#include "kopt/verify/output_comparison.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

#include "kopt/core/parallel_for.hpp"

namespace kopt::verify {

bool within_tolerance(double out, double ref, const spec::Tolerance& tolerance) {
  if (std::isnan(out) || std::isnan(ref)) return std::isnan(out) && std::isnan(ref);
  if (std::isinf(out) || std::isinf(ref)) return out == ref;
  return std::fabs(out - ref) <= tolerance.atol + tolerance.rtol * std::fabs(ref);
}

namespace {

// |a - b| without overflow: the unsigned difference of the larger and the smaller is exact
// modulo 2^64, and the true distance of two 64-bit integers lies in [0, 2^64).
template <typename T>
std::uint64_t integer_distance(T a, T b) {
  return a > b ? static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b)
               : static_cast<std::uint64_t>(b) - static_cast<std::uint64_t>(a);
}

// 64-bit integers above 2^53 do not survive the trip through double (2^53 + 1 reads as
// 2^53), so they are compared, and their error measured, on their exact distance.
template <typename T>
std::pair<bool, double> compare_integer_element(const std::byte* out, const std::byte* ref, std::int64_t index,
                                                const spec::Tolerance& tolerance) {
  const T o = run::load_element<T>(out, index);
  const T r = run::load_element<T>(ref, index);
  const std::uint64_t distance = integer_distance(o, r);
  const long double allowed = static_cast<long double>(tolerance.atol) +
                              static_cast<long double>(tolerance.rtol) * std::fabs(static_cast<long double>(r));
  return {distance == 0 || static_cast<long double>(distance) <= allowed, static_cast<double>(distance)};
}

// Whether element `index` of `out` is within tolerance of `ref`'s, and their distance
// (meaningful only when both are finite).
std::pair<bool, double> compare_element(const std::byte* out, const std::byte* ref, run::ElementType type,
                                        std::int64_t index, const spec::Tolerance& tolerance) {
  if (type == run::ElementType::int64) return compare_integer_element<std::int64_t>(out, ref, index, tolerance);
  if (type == run::ElementType::uint64) return compare_integer_element<std::uint64_t>(out, ref, index, tolerance);
  const double o = run::element_as_double(out, type, index);
  const double r = run::element_as_double(ref, type, index);
  return {within_tolerance(o, r, tolerance), std::fabs(o - r)};
}

// Elements per piece of the comparison. Fixed, not derived from the core count, so that the
// sums come out the same, bit for bit, on every machine.
constexpr std::int64_t kComparisonChunk = std::int64_t{1} << 20;

struct ChunkError {
  std::int64_t bad_count = 0;
  std::int64_t first_bad_index = -1;
  double first_bad_value = 0, first_bad_expected = 0;
  double max_abs_error = 0, max_rel_error = 0;
  double abs_sum = 0, diff_squares = 0, ref_squares = 0;
  bool output_constant = true;  // every element the bytes of the output's first
  bool reference_finite = true;
  double reference_low = INFINITY, reference_high = -INFINITY;
  double accepted_low = -INFINITY, accepted_high = INFINITY;
};

// Whether two elements hold the same bytes; the widths of the contract's types without a call.
bool same_element(const std::byte* a, const std::byte* b, std::size_t element_bytes) {
  switch (element_bytes) {
    case 1: return *a == *b;
    case 2: return run::load_element<std::uint16_t>(a, 0) == run::load_element<std::uint16_t>(b, 0);
    case 4: return run::load_element<std::uint32_t>(a, 0) == run::load_element<std::uint32_t>(b, 0);
    case 8: return run::load_element<std::uint64_t>(a, 0) == run::load_element<std::uint64_t>(b, 0);
    default: return std::memcmp(a, b, element_bytes) == 0;
  }
}

// The reference's range and the constants its tolerance accepts, one element at a time.
void add_to_spread(ChunkError& chunk, double r, const spec::Tolerance& tolerance) {
  if (!std::isfinite(r)) {
    chunk.reference_finite = false;
    return;
  }
  const double allowed = tolerance.atol + tolerance.rtol * std::fabs(r);
  chunk.reference_low = std::min(chunk.reference_low, r);
  chunk.reference_high = std::max(chunk.reference_high, r);
  chunk.accepted_low = std::max(chunk.accepted_low, r - allowed);
  chunk.accepted_high = std::min(chunk.accepted_high, r + allowed);
}

ChunkError compare_chunk(const std::byte* out, const std::byte* ref, run::ElementType type, std::size_t element_bytes,
                         std::int64_t begin, std::int64_t end, const spec::Tolerance& tolerance) {
  ChunkError chunk;
  for (std::int64_t i = begin; i < end; ++i) {
    const double o = run::element_as_double(out, type, i);
    const double r = run::element_as_double(ref, type, i);
    add_to_spread(chunk, r, tolerance);
    if (chunk.output_constant && !same_element(out + i * static_cast<std::int64_t>(element_bytes), out, element_bytes)) {
      chunk.output_constant = false;
    }
    const auto [within, diff] = compare_element(out, ref, type, i, tolerance);
    if (!within && chunk.bad_count++ == 0) {
      chunk.first_bad_index = i;
      chunk.first_bad_value = o;
      chunk.first_bad_expected = r;
    }
    if (!std::isfinite(o) || !std::isfinite(r)) continue;
    chunk.max_abs_error = std::max(chunk.max_abs_error, diff);
    chunk.abs_sum += diff;
    if (r != 0) chunk.max_rel_error = std::max(chunk.max_rel_error, diff / std::fabs(r));
    chunk.diff_squares += diff * diff;
    chunk.ref_squares += r * r;
  }
  return chunk;
}

}  // namespace

// The elements are compared in fixed chunks side by side (an output of 2^25 floats takes a
// third of a second on one core), then the chunks are merged in index order.
OutputError compare_to_reference(std::string name, std::span<const std::byte> out, std::span<const std::byte> ref,
                                 run::ElementType type, std::size_t element_bytes, const spec::Tolerance& tolerance) {
  OutputError error{.name = std::move(name), .tolerance = tolerance};
  error.elements = static_cast<std::int64_t>(std::min(out.size(), ref.size()) / element_bytes);
  const std::int64_t chunk_count = (error.elements + kComparisonChunk - 1) / kComparisonChunk;
  std::vector<ChunkError> chunks(static_cast<std::size_t>(chunk_count));
  parallel_for(chunks.size(), [&](std::size_t c) {
    const std::int64_t begin = static_cast<std::int64_t>(c) * kComparisonChunk;
    chunks[c] = compare_chunk(out.data(), ref.data(), type, element_bytes, begin,
                              std::min(error.elements, begin + kComparisonChunk), tolerance);
  });
  double abs_sum = 0, diff_squares = 0, ref_squares = 0;
  error.spread_known = error.elements > 0;
  error.output_constant = error.elements > 1;
  double reference_low = INFINITY, reference_high = -INFINITY;
  error.accepted_low = -INFINITY;
  error.accepted_high = INFINITY;
  for (const ChunkError& chunk : chunks) {
    error.output_constant = error.output_constant && chunk.output_constant;
    error.reference_finite = error.reference_finite && chunk.reference_finite;
    reference_low = std::min(reference_low, chunk.reference_low);
    reference_high = std::max(reference_high, chunk.reference_high);
    error.accepted_low = std::max(error.accepted_low, chunk.accepted_low);
    error.accepted_high = std::min(error.accepted_high, chunk.accepted_high);
    if (chunk.bad_count > 0 && error.bad_count == 0) {
      error.first_bad_index = chunk.first_bad_index;
      error.first_bad_value = chunk.first_bad_value;
      error.first_bad_expected = chunk.first_bad_expected;
    }
    error.bad_count += chunk.bad_count;
    error.max_abs_error = std::max(error.max_abs_error, chunk.max_abs_error);
    error.max_rel_error = std::max(error.max_rel_error, chunk.max_rel_error);
    abs_sum += chunk.abs_sum;
    diff_squares += chunk.diff_squares;
    ref_squares += chunk.ref_squares;
  }
  if (error.elements > 0) error.mean_abs_error = abs_sum / static_cast<double>(error.elements);
  error.rel_l2_error = ref_squares > 0 ? std::sqrt(diff_squares / ref_squares) : std::sqrt(diff_squares);
  if (reference_low <= reference_high) {
    error.reference_low = reference_low;
    error.reference_high = reference_high;
  }
  return error;
}

namespace {
bool all_bytes(const std::byte* element, std::size_t bytes, unsigned char value) {
  for (std::size_t b = 0; b < bytes; ++b) {
    if (static_cast<unsigned char>(element[b]) != value) return false;
  }
  return true;
}
}  // namespace

RerunComparison compare_reruns(std::span<const std::byte> first, std::span<const std::byte> second,
                               unsigned char first_poison, unsigned char second_poison, run::ElementType type,
                               std::size_t element_bytes, const spec::Tolerance& tolerance) {
  RerunComparison result;
  const auto elements = static_cast<std::int64_t>(std::min(first.size(), second.size()) / element_bytes);
  // Equal runs (most kernels) are one memcmp, not one call per element: an element that was
  // never written holds a different poison in each run, so equal bytes mean none was.
  if (std::memcmp(first.data(), second.data(), static_cast<std::size_t>(elements) * element_bytes) == 0) return result;
  for (std::int64_t i = 0; i < elements; ++i) {
    const std::byte* a = first.data() + i * static_cast<std::int64_t>(element_bytes);
    const std::byte* b = second.data() + i * static_cast<std::int64_t>(element_bytes);
    if (std::memcmp(a, b, element_bytes) == 0) continue;
    if (all_bytes(a, element_bytes, first_poison) && all_bytes(b, element_bytes, second_poison)) {
      if (result.unwritten_count++ == 0) result.first_unwritten_index = i;
      continue;
    }
    ++result.differing_count;
    const double x = run::element_as_double(first.data(), type, i);
    const double y = run::element_as_double(second.data(), type, i);
    if (!compare_element(first.data(), second.data(), type, i, tolerance).first) {
      if (result.beyond_tolerance_count++ == 0) {
        result.first_beyond_tolerance_index = i;
        result.first_beyond_values[0] = x;
        result.first_beyond_values[1] = y;
      }
    }
  }
  return result;
}

std::int64_t first_changed_element(std::span<const std::byte> before, std::span<const std::byte> after,
                                   std::size_t element_bytes) {
  const std::size_t size = std::min(before.size(), after.size());
  if (std::memcmp(before.data(), after.data(), size) == 0) return -1;
  for (std::size_t i = 0; i < size; ++i) {
    if (before[i] != after[i]) return static_cast<std::int64_t>(i / element_bytes);
  }
  return -1;
}

namespace {
// JSON has no NaN or infinity; such values are written as strings.
nlohmann::json number(double value) {
  if (std::isfinite(value)) return value;
  return std::isnan(value) ? "nan" : (value > 0 ? "inf" : "-inf");
}
double number_from(const nlohmann::json& in) {
  if (in.is_number()) return in.get<double>();
  const std::string text = in.get<std::string>();
  if (text == "inf") return INFINITY;
  if (text == "-inf") return -INFINITY;
  return NAN;
}
}  // namespace

void to_json(nlohmann::json& out, const OutputError& e) {
  out = {{"name", e.name},
         {"elements", e.elements},
         {"atol", e.tolerance.atol},
         {"rtol", e.tolerance.rtol},
         {"max_abs_error", number(e.max_abs_error)},
         {"mean_abs_error", number(e.mean_abs_error)},
         {"max_rel_error", number(e.max_rel_error)},
         {"rel_l2_error", number(e.rel_l2_error)},
         {"bad_count", e.bad_count},
         {"first_bad_index", e.first_bad_index},
         {"first_bad_value", number(e.first_bad_value)},
         {"first_bad_expected", number(e.first_bad_expected)},
         {"passed", e.passed()}};
}

void from_json(const nlohmann::json& in, OutputError& e) {
  e.name = in.at("name");
  e.elements = in.at("elements");
  e.tolerance = {.atol = in.at("atol"), .rtol = in.at("rtol")};
  e.max_abs_error = number_from(in.at("max_abs_error"));
  e.mean_abs_error = number_from(in.at("mean_abs_error"));
  e.max_rel_error = number_from(in.at("max_rel_error"));
  e.rel_l2_error = number_from(in.at("rel_l2_error"));
  e.bad_count = in.at("bad_count");
  e.first_bad_index = in.at("first_bad_index");
  e.first_bad_value = number_from(in.at("first_bad_value"));
  e.first_bad_expected = number_from(in.at("first_bad_expected"));
}

}  // namespace kopt::verify
