#include "kopt/measure/stopping_criterion.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "kopt/measure/statistics.hpp"

namespace kopt::measure {
namespace {

// Feeds 1 ms samples with `relative_noise` normal noise, checking after each one with the
// wall clock at `wall_per_sample` seconds a sample, until check() stops (or `limit` samples).
struct Outcome {
  StopReason reason = StopReason::still_running;
  std::size_t count = 0;
  double gpu_seconds = 0;
  double wall_seconds = 0;
};
Outcome run_until_stop(StoppingCriterion& criterion, double relative_noise, double wall_per_sample,
                   std::uint64_t seed = 1, std::size_t limit = 1000000) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(1.0, relative_noise);
  Outcome run;
  while (run.reason == StopReason::still_running && run.count < limit) {
    const double sample = 1e-3 * noise(rng);
    criterion.add_sample(sample);
    ++run.count;
    run.gpu_seconds += sample;
    run.wall_seconds += wall_per_sample;
    run.reason = criterion.check(run.wall_seconds);
  }
  return run;
}

TEST(Stopping, RelativeStdevIsWelfordExact) {
  StoppingCriterion criterion({});
  EXPECT_EQ(criterion.relative_stdev(), 0.0);
  const std::vector<double> x = {2, 4, 4, 4, 5, 5, 7, 9};
  for (double v : x) criterion.add_sample(v);
  EXPECT_EQ(criterion.count(), 8u);
  EXPECT_DOUBLE_EQ(criterion.relative_stdev(), std::sqrt(32.0 / 7.0) / 5.0);
}

TEST(Stopping, RelativeStdevKeepsPrecisionOnALargeOffset) {
  StoppingCriterion criterion({});
  std::vector<double> x;
  for (int i = 0; i < 1000; ++i) x.push_back(1e6 + (i % 2 == 0 ? 1e-3 : -1e-3));
  for (double v : x) criterion.add_sample(v);
  EXPECT_NEAR(criterion.relative_stdev(), sample_stdev(x) / mean(x), 1e-15);
}

TEST(Stopping, QuietSamplesConvergeOnceMinimumCountIsMet) {
  StoppingCriterion criterion({.min_samples = 10, .min_gpu_seconds = 0});
  const Outcome run = run_until_stop(criterion, 1e-4, 1e-3);
  EXPECT_EQ(run.reason, StopReason::converged);
  EXPECT_EQ(run.count, 10u);
}

TEST(Stopping, QuietSamplesConvergeOnceMinimumGpuTimeIsMet) {
  StoppingCriterion criterion({.min_samples = 10, .min_gpu_seconds = 0.05});
  const Outcome run = run_until_stop(criterion, 1e-4, 1e-3);
  EXPECT_EQ(run.reason, StopReason::converged);
  EXPECT_GE(run.gpu_seconds, 0.05);
  EXPECT_LT(run.gpu_seconds - 1e-3 * 1.01, 0.05);  // not one sample later than needed
  EXPECT_GE(run.count, 49u);
}

TEST(Stopping, NoisySamplesSettleAboveTheTargetBeforeTheTimeout) {
  StoppingSettings settings{.target_relative_stdev = 0.005, .min_samples = 10, .min_gpu_seconds = 0.05,
                            .timeout_seconds = 15};
  StoppingCriterion criterion(settings);
  const Outcome run = run_until_stop(criterion, 0.05, 1.5e-3);
  EXPECT_EQ(run.reason, StopReason::noise_stable_above_target);
  EXPECT_GE(run.gpu_seconds, 0.05);
  EXPECT_GE(run.count, 50u + 2 * settings.min_samples);
  EXPECT_LT(run.wall_seconds, 2.0);
  EXPECT_NEAR(criterion.relative_stdev(), 0.05, 0.01);
}

TEST(Stopping, NoiseIsNotCalledStableBeforeTheMinimums) {
  StoppingCriterion criterion({.min_samples = 10, .min_gpu_seconds = 0.5, .timeout_seconds = 15});
  const Outcome run = run_until_stop(criterion, 0.05, 1e-3, 3, 450);
  EXPECT_EQ(run.reason, StopReason::still_running);
}

TEST(Stopping, TimeoutIsHonoured) {
  StoppingCriterion criterion({.min_samples = 10, .min_gpu_seconds = 100, .timeout_seconds = 2});
  const Outcome run = run_until_stop(criterion, 0.05, 0.01);
  EXPECT_EQ(run.reason, StopReason::timeout);
  EXPECT_NEAR(run.wall_seconds, 2.0, 0.0101);
}

TEST(Stopping, ConvergenceWinsOverTimeout) {
  StoppingCriterion criterion({.min_samples = 10, .min_gpu_seconds = 0, .timeout_seconds = 0});
  for (int i = 0; i < 9; ++i) criterion.add_sample(1e-3);
  EXPECT_EQ(criterion.check(1.0), StopReason::timeout);
  criterion.add_sample(1e-3);
  EXPECT_EQ(criterion.check(1.0), StopReason::converged);
}

TEST(Stopping, ASpreadExactlyAtTheTargetHasConverged) {
  const std::vector<double> samples = {1.0e-3, 1.2e-3, 0.9e-3, 1.1e-3};
  StoppingCriterion probe({.min_samples = 2, .min_gpu_seconds = 0});
  for (double s : samples) probe.add_sample(s);
  StoppingCriterion criterion({.target_relative_stdev = probe.relative_stdev(), .min_samples = 4, .min_gpu_seconds = 0});
  for (double s : samples) criterion.add_sample(s);
  EXPECT_EQ(criterion.check(0), StopReason::converged);
}

TEST(Stopping, ASpreadThatKeepsGrowingIsNotCalledStable) {
  // Each sample strays 3 % further than the one before: the relative stdev keeps rising, by
  // well over the 5 % band across any ten checks, so it never settles; it only times out.
  StoppingCriterion criterion({.target_relative_stdev = 1e-9, .min_samples = 10, .min_gpu_seconds = 0,
                               .timeout_seconds = 1});
  double stray = 0.01;
  StopReason reason = StopReason::still_running;
  std::size_t count = 0;
  for (; count < 200 && reason == StopReason::still_running; ++count) {
    criterion.add_sample(1e-3 * (1 + (count % 2 == 0 ? stray : -stray)));
    stray *= 1.03;
    reason = criterion.check(static_cast<double>(count) * 1e-3);
  }
  EXPECT_EQ(reason, StopReason::still_running) << "stopped after " << count << " samples: " << stop_reason_name(reason);
}

TEST(Stopping, MaxSamplesIsHonoured) {
  StoppingCriterion criterion({.min_samples = 10, .min_gpu_seconds = 100, .max_samples = 25});
  const Outcome run = run_until_stop(criterion, 0.05, 1e-3);
  EXPECT_EQ(run.reason, StopReason::max_samples);
  EXPECT_EQ(run.count, 25u);
}

TEST(Stopping, ReasonNames) {
  EXPECT_EQ(stop_reason_name(StopReason::still_running), "still_running");
  EXPECT_EQ(stop_reason_name(StopReason::converged), "converged");
  EXPECT_EQ(stop_reason_name(StopReason::noise_stable_above_target), "noise_stable_above_target");
  EXPECT_EQ(stop_reason_name(StopReason::timeout), "timeout");
  EXPECT_EQ(stop_reason_name(StopReason::max_samples), "max_samples");
}

}  // namespace
}  // namespace kopt::measure
