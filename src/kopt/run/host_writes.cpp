#include "kopt/run/host_writes.hpp"

#include <algorithm>
#include <cstring>

#include "kopt_input_generator.h"

namespace kopt::run {
namespace {

// A walk's steps come from a stream of their own, apart from the fill's elements (a walk over a
// random fill must not reuse the draws of the elements it lands on).
constexpr std::uint64_t kWalkStream = 0x57a1c0ffee5e1ec7ull;

// Python's slice bounds: a negative end counts from the end, and both are clamped to the buffer.
std::int64_t slice_bound(const std::optional<std::int64_t>& bound, std::int64_t otherwise, std::int64_t elements) {
  if (!bound) return otherwise;
  const std::int64_t at = *bound < 0 ? *bound + elements : *bound;
  return std::clamp<std::int64_t>(at, 0, elements);
}

std::vector<std::int64_t> walk_positions(const spec::ElementSelector& walk, std::int64_t elements, std::uint64_t key) {
  std::vector<std::int64_t> positions;
  std::uint64_t draw = 0;
  for (std::int64_t at = *walk.start; at < elements; ++draw) {
    positions.push_back(at);
    const double step = kopt_generator::element_value(kopt_generator::element_bits(key, draw), kopt_generator::integers,
                                                      static_cast<double>(walk.step), static_cast<double>(walk.width - 1));
    at += static_cast<std::int64_t>(step);
  }
  return positions;
}

}  // namespace

void fill_segments(std::span<std::byte> data, ElementType type, const std::vector<spec::FillSegment>& segments,
                   std::uint64_t key) {
  std::int64_t index = 0;  // the element's place in the whole buffer: the runs draw independently
  for (const spec::FillSegment& segment : segments) {
    for (std::int64_t end = index + segment.count; index < end; ++index) {
      const std::uint64_t bits = kopt_generator::element_bits(key, static_cast<std::uint64_t>(index));
      store_element(data.data(), type, index,
                    kopt_generator::element_value(bits, static_cast<int>(segment.kind), segment.a, segment.b));
    }
  }
}

void copy_halves(std::span<std::byte> data, std::size_t element_bytes, std::int64_t width) {
  const std::size_t row_bytes = static_cast<std::size_t>(width) * element_bytes, half = row_bytes / 2;
  for (std::size_t row = 0; row + row_bytes <= data.size(); row += row_bytes) {
    std::memcpy(data.data() + row + half, data.data() + row, half);
  }
}

std::vector<std::int64_t> selected_elements(const spec::ElementSelector& selector, std::int64_t elements,
                                            std::uint64_t key) {
  using Kind = spec::ElementSelector::Kind;
  if (selector.kind == Kind::walk) return walk_positions(selector, elements, key);
  if (selector.kind == Kind::index) {
    const std::int64_t at = *selector.start < 0 ? *selector.start + elements : *selector.start;
    return at >= 0 && at < elements ? std::vector<std::int64_t>{at} : std::vector<std::int64_t>{};
  }
  std::vector<std::int64_t> indices;
  const std::int64_t begin = slice_bound(selector.start, 0, elements), end = slice_bound(selector.stop, elements, elements);
  for (std::int64_t run = begin; run < end; run += selector.step) {
    for (std::int64_t i = run; i < std::min(end, run + selector.width); ++i) indices.push_back(i);
  }
  return indices;
}

void apply_writes(std::span<std::byte> data, ElementType type, std::int64_t elements,
                  const std::vector<spec::ElementWrite>& writes, std::uint64_t key) {
  std::uint64_t place = 0;
  for (const spec::ElementWrite& write : writes) {
    for (const spec::ElementSelector& selector : write.selectors) {
      const std::uint64_t stream = kopt_generator::mix64(key ^ kWalkStream ^ kopt_generator::mix64(place++));
      for (std::int64_t i : selected_elements(selector, elements, stream)) store_element(data.data(), type, i, write.value);
    }
  }
}

}  // namespace kopt::run
