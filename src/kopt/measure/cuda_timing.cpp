#include "kopt/measure/cuda_timing.hpp"

#include <algorithm>
#include <vector>

namespace kopt::measure {

// CUDA's documented resolution of cudaEventElapsedTime ("around 0.5 microseconds"): the tick
// assumed when it cannot be measured.
constexpr double kDocumentedEventTickSeconds = 0.5e-6;
// The tick is measured on kernels whose lengths step by about 9 ns (17 SM cycles at ~2 GHz).
constexpr int kTickReadings = 64;
constexpr long long kTickProbeCycles = 2000, kTickProbeStepCycles = 17;

// The event timer's tick: event pairs around the clock probe spinning a little longer each
// time. Every reading is a whole number of ticks, so the smallest positive difference between
// two readings is one tick (for a timer finer than the 9 ns step, the step: an overestimate,
// which only widens intervals). H200: 32 ns. Without two different readings (no probe in the
// library), the documented resolution.
double measure_event_tick(const run::KernelLibrary& library) {
  ClockProbe probe;
  Event start, stop;
  std::vector<double> readings;
  for (int i = 0; i < kTickReadings; ++i) {
    run::check_cuda(cudaEventRecord(start.get(), nullptr), "cudaEventRecord");
    if (!probe.launch(library, kTickProbeCycles + i * kTickProbeStepCycles)) return kDocumentedEventTickSeconds;
    run::check_cuda(cudaEventRecord(stop.get(), nullptr), "cudaEventRecord");
    run::check_cuda(cudaEventSynchronize(stop.get()), "cudaEventSynchronize");
    float milliseconds = 0;
    run::check_cuda(cudaEventElapsedTime(&milliseconds, start.get(), stop.get()), "cudaEventElapsedTime");
    readings.push_back(milliseconds * 1e-3);
  }
  std::sort(readings.begin(), readings.end());
  double tick = kDocumentedEventTickSeconds;
  for (std::size_t i = 1; i < readings.size(); ++i) {
    const double step = readings[i] - readings[i - 1];
    if (step > 0) tick = std::min(tick, step);
  }
  return tick;
}

}  // namespace kopt::measure
