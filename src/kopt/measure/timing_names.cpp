// The names of the bench's timing settings, as options, specs and bench.json spell them.
#include <string>

#include "kopt/core/error.hpp"
#include "kopt/measure/bench_job.hpp"

namespace kopt::measure {

std::string_view timing_mode_name(TimingMode mode) {
  switch (mode) {
    case TimingMode::cold: return "cold";
    case TimingMode::warm: return "warm";
    case TimingMode::graph: return "graph";
  }
  return "cold";
}

TimingMode timing_mode_from_name(std::string_view name) {
  if (name == "cold") return TimingMode::cold;
  if (name == "warm") return TimingMode::warm;
  if (name == "graph") return TimingMode::graph;
  throw input_error("unknown timing mode \"{}\" (cold, warm or graph)", name);
}

std::string_view l2_flush_name(L2Flush flush) { return flush == L2Flush::read ? "read" : "write"; }

L2Flush l2_flush_from_name(std::string_view name) {
  if (name == "read") return L2Flush::read;
  if (name == "write") return L2Flush::write;
  throw input_error("unknown L2 flush \"{}\" (read or write)", name);
}

std::int64_t l2_flush_bytes(L2Flush flush, std::int64_t l2_bytes) {
  return flush == L2Flush::read ? 2 * l2_bytes : l2_bytes;
}

}  // namespace kopt::measure
