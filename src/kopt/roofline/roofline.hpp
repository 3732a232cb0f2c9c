#pragma once
// The roofline and the gaps that drive the plan: where one kernel stands against this
// device's ceilings, which resource binds it (named the way Nsight Compute's speed-of-light
// rule names it), and how many of the next iteration's three methods go to each axis.
// Pure arithmetic on SI values (FLOP/s, bytes/s; ratios with 1.0 = 100 %).

#include <array>
#include <optional>
#include <string_view>

namespace kopt::roofline {

struct RooflineInputs {
  double achieved_flop_per_second = 0;
  double achieved_bytes_per_second = 0;
  double peak_flop_per_second = 0;   // the ceiling of the kernel's data type (measured or datasheet)
  double peak_bytes_per_second = 0;  // DRAM
  double sm_throughput = 0;          // ncu's SM throughput, ratio; 0 where no profile exists
  double memory_throughput = 0;      // ncu's memory throughput (busiest of DRAM/L2/L1/shared)
  double largest_stall_share = 0;    // the largest warp stall reason's share, ratio
  double waves_per_sm = 0;
};

enum class Axis { compute, memory, latency };
inline constexpr std::array kAxes = {Axis::compute, Axis::memory, Axis::latency};

// compute/memory: that side is the larger; high_throughput says whether it reached 80 %.
// both: the two sides are equal. latency: both under 60 %. small_grid: both under 60 % with
// less than one wave of blocks, so the GPU was never full.
enum class Bound { compute, memory, compute_and_memory, latency, small_grid };

struct Gaps {
  double compute = 0;  // 1 − utilization of the nearest compute ceiling, in [0, 1]
  double memory = 0;   // 1 − utilization of the nearest memory ceiling, in [0, 1]
  double latency = 0;  // the largest stall share, in [0, 1]

  double of(Axis axis) const;
};

struct RooflinePoint {
  std::optional<double> arithmetic_intensity;  // FLOP/byte; nullopt when no bytes moved
  double ridge_point = 0;                      // FLOP/byte where the two roofs meet
  double compute_utilization = 0;              // max(FLOP/s ÷ peak, SM throughput), in [0, 1]
  double memory_utilization = 0;               // max(bytes/s ÷ peak, memory throughput), in [0, 1]
  // The readings each utilization is the larger of, so that a figure can say which it is: the
  // FLOP rate's share of the compute ceiling and Nsight Compute's SM throughput (its busiest
  // pipe) are different things (a convolution at 67 % of the FP32 FLOP ceiling was at 77 % SM
  // throughput). Each in [0, 1]; the throughputs are 0 where no profile exists.
  double flop_ratio = 0, sm_throughput = 0;         // compute
  double dram_bytes_ratio = 0, memory_throughput = 0;  // memory
  Gaps gaps;
  Bound bound = Bound::latency;
  bool high_throughput = false;  // the binding side is at ≥ 80 % of its ceiling
  bool near_peak = false;        // every gap under 0.15: little left to win
};

// Methods per axis for the next iteration, in kAxes order.
struct AxisBudget {
  std::array<int, 3> methods{};
  int of(Axis axis) const { return methods[static_cast<size_t>(axis)]; }
  int total() const { return methods[0] + methods[1] + methods[2]; }
};

inline constexpr double kHighThroughput = 0.80;  // Nsight Compute's SOL "high throughput"
inline constexpr double kLowThroughput = 0.60;   // below this on both sides: latency bound
inline constexpr double kNearPeakGap = 0.15;
inline constexpr double kMinBudgetGap = 0.10;
inline constexpr int kBudgetMethods = 3;
inline constexpr int kMaxMethodsPerAxis = 2;

// Throws Error(bad_input) when a peak is not positive.
RooflinePoint place_on_roofline(const RooflineInputs& inputs);

// The classification alone, from the two utilizations (ratios) and the waves per SM.
Bound classify_bound(double compute_utilization, double memory_utilization, double waves_per_sm);

AxisBudget split_axis_budget(const Gaps& gaps);

// achieved ÷ peak when the achieved rate is above the ceiling by more than rounding
// (kAboveCeilingMargin), else nullopt. Utilizations are clamped to 1, so this is the only
// place where a kernel beating a ceiling shows: a measured ceiling that a kernel beats
// understates that kernel's mix of work.
std::optional<double> above_ceiling(double achieved, double peak);
inline constexpr double kAboveCeilingMargin = 0.005;

std::string_view to_string(Axis axis);
std::string_view to_string(Bound bound);

}  // namespace kopt::roofline
