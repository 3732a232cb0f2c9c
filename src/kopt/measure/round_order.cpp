#include "kopt/measure/round_order.hpp"

#include <algorithm>
#include <numeric>

namespace kopt::measure {

namespace {

// SplitMix64's finaliser: nearby (seed, case) pairs give unrelated generator states.
std::uint64_t mix(std::uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

RoundOrder::RoundOrder(std::uint64_t seed, std::size_t case_index, std::size_t variants)
    : rng_(mix(seed ^ mix(case_index + 1))), order_(variants) {
  std::iota(order_.begin(), order_.end(), std::size_t{0});
}

const std::vector<std::size_t>& RoundOrder::next() {
  std::shuffle(order_.begin(), order_.end(), rng_);
  return order_;
}

}  // namespace kopt::measure
