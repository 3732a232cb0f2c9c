#pragma once
// The host-written fills a suite builds in steps (docs/check.md): cat(FILL:n, ...)'s runs,
// halves(FILL, n)'s copied halves, and set(FILL, v, SELECTOR...)'s writes over a fill.

#include <cstdint>
#include <span>
#include <vector>

#include "kopt/run/host_data.hpp"

namespace kopt::run {

// cat(...): each run drawn by its own fill, every element from (key, its index in the buffer).
void fill_segments(std::span<std::byte> data, ElementType type, const std::vector<spec::FillSegment>& segments,
                   std::uint64_t key);

// halves(F, n): the second half of each run of n elements (n even) a copy of its first.
void copy_halves(std::span<std::byte> data, std::size_t element_bytes, std::int64_t width);

// The indices a selector names in a buffer of `elements`, in order; a walk draws its steps from
// (key, the selector's place), so a seed gives one walk and another seed another.
std::vector<std::int64_t> selected_elements(const spec::ElementSelector& selector, std::int64_t elements,
                                            std::uint64_t key);

// set(...): each write's value at its selected elements, innermost first.
void apply_writes(std::span<std::byte> data, ElementType type, std::int64_t elements,
                  const std::vector<spec::ElementWrite>& writes, std::uint64_t key);

}  // namespace kopt::run
