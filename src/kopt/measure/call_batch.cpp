#include "kopt/measure/call_batch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "kopt/measure/witness_file.hpp"
#include "kopt/run/device_buffer.hpp"

namespace kopt::measure {

static_assert(BenchSettings{}.max_calls_per_sample == kDefaultMaxCallsPerSample);

int calls_per_batch(double one_call_seconds, int max_calls) {
  const int most = std::max(1, max_calls);
  if (!(one_call_seconds > 0)) return most;
  // 50e-6 / 2e-6 is 25.000000000000004 in doubles: a whole quotient is not rounded up past itself.
  const double wanted = std::ceil(kBatchSampleSeconds / one_call_seconds * (1 - 1e-12));
  return wanted >= most ? most : std::max(1, static_cast<int>(wanted));
}

std::int64_t argument_set_bytes(const spec::BoundCase& bound_case) {
  std::int64_t bytes = 0;
  for (const spec::BoundArg& arg : bound_case.args) {
    if (arg.buffer) bytes += arg.buffer->bytes() + 2 * static_cast<std::int64_t>(run::GuardedDeviceBuffer::kGuardBytes);
  }
  return bytes;
}

int argument_sets_within(int wanted, std::int64_t bytes_per_set, std::int64_t free_bytes) {
  if (wanted <= 1 || bytes_per_set <= 0) return std::max(1, wanted);
  const double budget = kBatchMemoryShare * static_cast<double>(std::max<std::int64_t>(free_bytes, 0));
  // The first set is already allocated: the budget pays for the others.
  const double more = std::floor(budget / static_cast<double>(bytes_per_set));
  return static_cast<int>(std::min<double>(wanted, 1 + more));
}

std::string_view l2_policy(TimingMode mode, int calls_per_sample) {
  if (mode != TimingMode::cold) return kL2NotFlushed;
  return calls_per_sample > 1 ? kL2FlushedPerBatch : kL2FlushedPerCall;
}

std::string batch_note(TimingMode mode, int calls, int wanted) {
  std::string note = fmt::format("batch of {} calls per sample, each on fresh inputs of its own", calls);
  if (mode == TimingMode::cold) {
    note += "; L2 flushed before each batch (every call's inputs cold, earlier calls' outputs may be in the L2)";
  }
  if (wanted > calls) note += fmt::format("; {} wanted, the device's free memory allowed {} argument sets", wanted, calls);
  return note;
}

const BatchRule& batch_rule() {
  static const BatchRule rule = [] {
    const toml::table batch = witness_section("batch");
    return BatchRule{.call_spread_limit = positive_witness_number(batch, "batch", "call_spread_limit"),
                     .spread_min_ticks = positive_witness_number(batch, "batch", "spread_min_ticks"),
                     .probe_one_in = positive_witness_count(batch, "batch", "probe_one_in")};
  }();
  return rule;
}

std::optional<double> call_spread(const std::vector<double>& call_seconds, double tick_seconds, double min_ticks) {
  if (call_seconds.size() < 2 || !(tick_seconds > 0)) return std::nullopt;
  // The mean, not the median: in a batch whose first call did every call's work, the median
  // call is one that did nothing.
  double total = 0;
  for (double seconds : call_seconds) total += seconds;
  if (total / static_cast<double>(call_seconds.size()) < min_ticks * tick_seconds) return std::nullopt;
  const auto [shortest, longest] = std::ranges::minmax(call_seconds);
  return longest / std::max(shortest, tick_seconds);
}

std::optional<double> record_batch(VariantSamples& samples, const TimedBatch& batch, double min_clock_mhz,
                                   double spread_min_ticks) {
  if (batch.probe) {
    // resolution_seconds is the tick shared by the sample's calls (tick / calls_per_sample).
    const double tick = samples.resolution_seconds * std::max(1, samples.calls_per_sample);
    if (auto spread = call_spread(batch.call_seconds, tick, spread_min_ticks)) samples.batch_call_spread.push_back(*spread);
    return std::nullopt;
  }
  if (batch.discarded) return std::nullopt;
  if (batch.sm_clock_mhz > 0 && batch.sm_clock_mhz < min_clock_mhz) {
    ++samples.throttled_discarded;
    return std::nullopt;
  }
  const double calls = std::max(1, batch.calls);
  const double per_call = batch.gpu_seconds / calls;
  samples.gpu_seconds.push_back(per_call);
  samples.host_seconds.push_back(batch.host_seconds / calls);
  if (batch.sm_clock_mhz > 0) samples.sm_clock_mhz.push_back(batch.sm_clock_mhz);
  if (batch.witness_id != 0) samples.witness_ids.push_back(batch.witness_id);
  bool digested = !batch.digests.empty();
  for (std::size_t i = 0; i < batch.seeds.size(); ++i) {
    digested = digested && i < batch.digests.size() && batch.digests[i].has_value();
  }
  samples.sample_seeds.insert(samples.sample_seeds.end(), batch.seeds.begin(), batch.seeds.end());
  const std::vector<std::uint64_t> digests = recorded_digests(batch);
  samples.sample_digests.insert(samples.sample_digests.end(), digests.begin(), digests.end());
  samples.digests = digested;
  return per_call;
}

std::vector<std::uint64_t> recorded_digests(const TimedBatch& batch) {
  std::vector<std::uint64_t> digests;
  for (std::size_t i = 0; i < batch.seeds.size(); ++i) {
    digests.push_back(i < batch.digests.size() && batch.digests[i] ? *batch.digests[i] : 0);
  }
  return digests;
}

}  // namespace kopt::measure
