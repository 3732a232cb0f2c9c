#pragma once
// The order of the variants within each round of interleaved sampling. A fixed order A B A B
// gives each variant a fixed neighbour: B always runs right after A's call (its clocks, power
// state and caches as A left them) and A after B's flush-and-wait, and on kernels of a few
// microseconds that position shifted A/A medians by a timer tick (issue 17). A fresh random
// permutation per round gives every variant every position equally often. The seed is drawn
// by kopt, recorded in bench.json ("order_seed"), and mixed with the case's index.

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace kopt::measure {

class RoundOrder {
 public:
  RoundOrder(std::uint64_t seed, std::size_t case_index, std::size_t variants);
  // The variants' indices in the order of the next round.
  const std::vector<std::size_t>& next();

 private:
  std::mt19937_64 rng_;
  std::vector<std::size_t> order_;
};

}  // namespace kopt::measure
