#include "kopt/measure/call_batch.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "kopt/measure/bench.hpp"
#include "kopt/measure/stopping_criterion.hpp"
#include "kopt/measure/timed_call_audit.hpp"
#include "kopt/run/device_buffer.hpp"
#include "kopt/spec/dtype.hpp"

namespace kopt::measure {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// n makes a sample of at least 50 µs: a 2 µs kernel 25 calls, a 7 µs kernel 8 (56 µs).
TEST(CallsPerBatch, MakeASampleOfFiftyMicroseconds) {
  EXPECT_EQ(calls_per_batch(2e-6, 64), 25);
  EXPECT_EQ(calls_per_batch(7e-6, 64), 8);
  EXPECT_EQ(calls_per_batch(50e-6, 64), 1);
  EXPECT_EQ(calls_per_batch(49e-6, 64), 2);
  EXPECT_EQ(calls_per_batch(229e-6, 64), 1);
}

TEST(CallsPerBatch, AreCappedAndAtLeastOne) {
  EXPECT_EQ(calls_per_batch(0.1e-6, 64), 64);
  EXPECT_EQ(calls_per_batch(0.1e-6, 1), 1) << "--max-calls-per-sample 1: one call per sample, as before batches";
  EXPECT_EQ(calls_per_batch(0, 64), 64) << "a call under one tick reads 0: the shortest kernel there is";
  EXPECT_EQ(calls_per_batch(1e-6, 0), 1);
}

TEST(ArgumentSetsWithin, TakeAtMostAQuarterOfTheFreeMemory) {
  constexpr std::int64_t MiB = 1 << 20;
  EXPECT_EQ(argument_sets_within(25, MiB, 1000 * MiB), 25);
  // 8 MiB free: 2 MiB for sets beyond the first.
  EXPECT_EQ(argument_sets_within(25, MiB, 8 * MiB), 3);
  EXPECT_EQ(argument_sets_within(25, MiB, 0), 1) << "the case's own set is always there";
  EXPECT_EQ(argument_sets_within(1, 100 * MiB, 0), 1);
  EXPECT_EQ(argument_sets_within(64, 0, 0), 64) << "a case without buffers costs nothing per set";
}

TEST(ArgumentSetBytes, CountEveryBufferWithItsGuards) {
  spec::BoundCase c{.name = "default"};
  c.args.push_back({.buffer = spec::BoundBuffer{.name = "x", .dtype = spec::dtype_named("float32"), .elements = 1000}});
  c.args.push_back({.scalar = spec::BoundScalar{}});
  c.args.push_back({.buffer = spec::BoundBuffer{.name = "y", .dtype = spec::dtype_named("float64"), .elements = 10}});
  const std::int64_t guards = 2 * static_cast<std::int64_t>(run::GuardedDeviceBuffer::kGuardBytes);
  EXPECT_EQ(argument_set_bytes(c), 4000 + guards + 80 + guards);
}

TEST(L2Policy, SaysWhereTheFlushFalls) {
  EXPECT_EQ(l2_policy(TimingMode::cold, 1), kL2FlushedPerCall);
  EXPECT_EQ(l2_policy(TimingMode::cold, 25), kL2FlushedPerBatch);
  EXPECT_EQ(l2_policy(TimingMode::warm, 25), kL2NotFlushed);
  EXPECT_EQ(l2_policy(TimingMode::graph, 200), kL2NotFlushed);
}

TEST(BatchNote, StatesTheCallsAndTheColdPolicy) {
  const std::string cold = batch_note(TimingMode::cold, 25, 25);
  EXPECT_THAT(cold, HasSubstr("batch of 25 calls per sample, each on fresh inputs of its own"));
  EXPECT_THAT(cold, HasSubstr("L2 flushed before each batch"));
  EXPECT_THAT(cold, Not(HasSubstr("wanted")));
  EXPECT_THAT(batch_note(TimingMode::warm, 8, 8), Not(HasSubstr("flushed")));
  EXPECT_THAT(batch_note(TimingMode::cold, 3, 25), HasSubstr("25 wanted, the device's free memory allowed 3"));
}

TimedBatch batch_of(int calls, double gpu, double host, double clock = 1980) {
  TimedBatch batch{.gpu_seconds = gpu, .host_seconds = host, .sm_clock_mhz = clock, .calls = calls};
  for (int i = 0; i < calls; ++i) {
    batch.seeds.push_back(100 + static_cast<std::uint64_t>(i));
    batch.digests.push_back(1000 + static_cast<std::uint64_t>(i));
  }
  return batch;
}

// The sample is per call; every call keeps its own seed and digest, in order.
TEST(RecordBatch, KeepsPerCallTimesAndEveryCallsSeedAndDigest) {
  VariantSamples samples;
  const std::optional<double> per_call = record_batch(samples, batch_of(4, 40e-6, 48e-6), 1782);
  ASSERT_TRUE(per_call.has_value());
  EXPECT_DOUBLE_EQ(*per_call, 10e-6);
  EXPECT_EQ(samples.gpu_seconds, std::vector<double>{10e-6});
  EXPECT_EQ(samples.host_seconds, std::vector<double>{12e-6});
  EXPECT_EQ(samples.sm_clock_mhz, std::vector<double>{1980});
  EXPECT_EQ(samples.sample_seeds, (std::vector<std::uint64_t>{100, 101, 102, 103}));
  EXPECT_EQ(samples.sample_digests, (std::vector<std::uint64_t>{1000, 1001, 1002, 1003}));
  EXPECT_TRUE(samples.digests);

  record_batch(samples, batch_of(4, 44e-6, 50e-6), 1782);
  EXPECT_EQ(samples.gpu_seconds.size(), 2u);
  EXPECT_EQ(samples.sample_seeds.size(), 8u) << "calls_per_sample entries per sample";
}

TEST(RecordBatch, DropsAThrottledBatchWithAllItsCalls) {
  VariantSamples samples;
  EXPECT_FALSE(record_batch(samples, batch_of(4, 40e-6, 48e-6, 1500), 1782).has_value());
  EXPECT_EQ(samples.throttled_discarded, 1u);
  EXPECT_TRUE(samples.gpu_seconds.empty());
  EXPECT_TRUE(samples.sample_seeds.empty());
  EXPECT_TRUE(samples.sample_digests.empty());
}

// A graph replay: 10 calls on one input set, so one seed; the time is still per call.
TEST(RecordBatch, AGraphReplayHasOneSeedForAllItsCalls) {
  VariantSamples samples;
  TimedBatch replay{.gpu_seconds = 200e-6, .host_seconds = 220e-6, .calls = 10, .seeds = {7}, .digests = {70}};
  EXPECT_DOUBLE_EQ(*record_batch(samples, replay, 1782), 20e-6);
  EXPECT_EQ(samples.sample_seeds, std::vector<std::uint64_t>{7});
  EXPECT_TRUE(samples.sm_clock_mhz.empty()) << "no probe, no clock";
}

TEST(RecordBatch, ACallWithoutADigestMarksTheVariantUndigested) {
  VariantSamples samples;
  TimedBatch batch = batch_of(3, 30e-6, 33e-6);
  batch.digests[1] = std::nullopt;
  record_batch(samples, batch, 0);
  EXPECT_FALSE(samples.digests);
  EXPECT_EQ(samples.sample_digests[1], 0u);
}

// The audit picks timed calls by position in sample_seeds: with batches that is any call of
// any batch, and its digest is that very call's.
TEST(RecordBatch, TheAuditPicksSingleCallsOfBatches) {
  VariantSamples samples{.final_seed = 900, .final_digest = 9000};
  for (int b = 0; b < 3; ++b) {
    TimedBatch batch{.gpu_seconds = 50e-6, .calls = 5};
    for (int i = 0; i < 5; ++i) {
      batch.seeds.push_back(static_cast<std::uint64_t>(10 * b + i + 1));
      batch.digests.push_back(static_cast<std::uint64_t>(100 * (10 * b + i + 1)));
    }
    record_batch(samples, batch, 0);
  }
  std::mt19937_64 random(3);
  const std::vector<AuditedCall> audited = choose_audited_calls(samples, 4, random);
  ASSERT_EQ(audited.size(), 1u + 4u);
  for (const AuditedCall& call : audited) {
    if (call.position < 0) continue;
    EXPECT_LT(call.position, 15);
    EXPECT_EQ(call.digest, 100 * call.seed);
  }
}

// min_gpu_seconds counts the GPU time of every call: 50 samples of 25 calls of 10 µs are 12.5 ms.
TEST(StoppingCriterion, CountsEveryCallOfABatchTowardTheMinimumTime) {
  StoppingSettings settings{.target_half_width = 0.5, .min_samples = 10, .min_gpu_seconds = 0.01};
  StoppingCriterion one_call(settings), batched(settings);
  for (int i = 0; i < 50; ++i) {
    one_call.add_sample(10e-6);
    batched.add_sample(10e-6, 25);
  }
  EXPECT_NEAR(batched.total_seconds(), 0.0125, 1e-12);
  EXPECT_EQ(batched.check(0), StopReason::median_precise);
  EXPECT_EQ(one_call.check(0), StopReason::still_running);
}

// The host's costs come once per sample: a batch's per-call gap is held against floor ÷ n
// (data/witness.toml [escape], a 50 µs floor).
TEST(AssessVariant, TheEscapeFloorIsPerSample) {
  auto with_gap = [](int calls, double gap_per_call) {
    VariantReport v{.label = "k", .case_name = "default"};
    v.samples.calls_per_sample = calls;
    for (int i = 0; i < 20; ++i) {
      v.samples.gpu_seconds.push_back(2e-6);
      v.samples.host_seconds.push_back(2e-6 + gap_per_call);
    }
    assess_variant(v, std::nullopt, spec::precision_named("fp32"), TimingMode::cold);
    return v.escapes_events;
  };
  EXPECT_FALSE(with_gap(1, 40e-6)) << "one call: 40 µs of launch and synchronize is the host's own";
  EXPECT_TRUE(with_gap(1, 60e-6)) << "one 2 µs call, 60 µs unseen by its events";
  EXPECT_FALSE(with_gap(25, 1.6e-6)) << "a batch of 25: 40 µs for the batch";
  EXPECT_TRUE(with_gap(25, 8e-6)) << "200 µs a batch: work escaped the events";
}

// A timer forged to 0.4x of a 143 µs call (a 2^25-float vector add on an H100) leaves 86 µs
// per sample to the host clock: under the floor of 100 µs the escape rule had before
// 2026-12-05, over today's.
TEST(AssessVariant, AForgedEventTimerOfA143MicrosecondCallEscapesNoMore) {
  VariantReport v{.label = "k", .case_name = "default"};
  for (int i = 0; i < 20; ++i) {
    v.samples.gpu_seconds.push_back(0.4 * 143e-6);
    v.samples.host_seconds.push_back(143e-6 + 19e-6);
  }
  assess_variant(v, std::nullopt, spec::precision_named("fp32"), TimingMode::cold);
  EXPECT_TRUE(v.escapes_events);
}

TEST(BenchJobResult, KeepsTheBatchAndItsL2PolicyThroughJson) {
  BenchJobResult result{.device = {{"name", "NVIDIA H200"}}, .mode = "cold"};
  VariantSamples samples{.label = "A", .case_name = "default", .gpu_seconds = {2e-6, 2.1e-6},
                         .host_seconds = {2.2e-6, 2.3e-6}, .stop_reason = "median_precise", .calls_per_sample = 3,
                         .resolution_seconds = 32e-9 / 3, .timing_note = batch_note(TimingMode::cold, 3, 3),
                         .l2 = std::string(kL2FlushedPerBatch), .sample_seeds = {1, 2, 3, 4, 5, 6},
                         .sample_digests = {10, 20, 30, 40, 50, 60}, .final_seed = 7, .final_digest = 70,
                         .final_witness_id = 9, .digests = true, .witness_ids = {4, 6}};
  result.samples.push_back(samples);
  const BenchJobResult back = bench_result_from_json(bench_result_to_json(result));
  ASSERT_EQ(back.samples.size(), 1u);
  EXPECT_EQ(back.samples[0].calls_per_sample, 3);
  EXPECT_EQ(back.samples[0].l2, kL2FlushedPerBatch);
  EXPECT_EQ(back.samples[0].timing_note, samples.timing_note);
  EXPECT_EQ(back.samples[0].sample_seeds, samples.sample_seeds);
  EXPECT_EQ(back.samples[0].sample_digests, samples.sample_digests);
  EXPECT_EQ(back.samples[0].witness_ids, samples.witness_ids);  // what the parent holds against what it heard
  EXPECT_EQ(back.samples[0].final_witness_id, 9u);
  EXPECT_EQ(back.samples[0].final_digest, 70u);
  EXPECT_DOUBLE_EQ(back.samples[0].resolution_seconds, 32e-9 / 3);
}

TEST(BenchJob, CarriesTheMostCallsPerSample) {
  BenchJob job{.variants = {{"a.cu", "/lib/a.so"}}};
  job.settings.max_calls_per_sample = 5;
  EXPECT_EQ(bench_job_from_json(bench_job_to_json(job)).settings.max_calls_per_sample, 5);
  nlohmann::json older = bench_job_to_json(BenchJob{});
  older["settings"].erase("max_calls_per_sample");
  EXPECT_EQ(bench_job_from_json(older).settings.max_calls_per_sample, kDefaultMaxCallsPerSample)
      << "a job of a kopt before batches gets the default";
}

// Each call of a batch ends at an event of its own: honest calls take alike times; a call that
// did the others' work takes far longer than those left with nothing to do.
TEST(CallSpread, IsTheLongestCallOverTheShortest) {
  EXPECT_DOUBLE_EQ(*call_spread({2.0e-6, 2.1e-6, 2.2e-6}, 32e-9, 8), 1.1);
  EXPECT_NEAR(*call_spread({50e-6, 0.1e-6, 0.1e-6, 0.1e-6}, 32e-9, 8), 500, 1e-9)
      << "judged though its median call is under 8 ticks: the mean is what the tick is held against";
}

TEST(CallSpread, IsNotToldWhereTheTickAloneWouldPartTheCalls) {
  EXPECT_FALSE(call_spread({2e-6}, 32e-9, 8).has_value()) << "one call";
  EXPECT_FALSE(call_spread({0.2e-6, 0.2e-6, 0.3e-6}, 32e-9, 8).has_value()) << "mean 0.23 µs: under 8 ticks of 32 ns";
  EXPECT_FALSE(call_spread({2e-6, 2e-6}, 0, 8).has_value()) << "no tick known";
  EXPECT_DOUBLE_EQ(*call_spread({0, 2e-6, 2e-6}, 32e-9, 8), 2e-6 / 32e-9) << "a call under one tick counts as one";
}

TEST(RecordBatch, AProbeGivesTheSpreadOfItsCallsAndIsNotKept) {
  VariantSamples samples{.calls_per_sample = 3, .resolution_seconds = 32e-9 / 3};
  TimedBatch batch{.gpu_seconds = 6.3e-6, .host_seconds = 7e-6, .calls = 3, .seeds = {1, 2, 3},
                   .digests = {10, 20, 30}, .probe = true, .call_seconds = {2e-6, 2.1e-6, 2.2e-6}};
  EXPECT_FALSE(record_batch(samples, batch, 0).has_value()) << "its events between calls slowed them";
  EXPECT_THAT(samples.batch_call_spread, ::testing::ElementsAre(::testing::DoubleNear(1.1, 1e-12)));
  EXPECT_TRUE(samples.gpu_seconds.empty());
  EXPECT_TRUE(samples.sample_seeds.empty());

  batch.probe = false;
  batch.call_seconds.clear();
  ASSERT_TRUE(record_batch(samples, batch, 0).has_value());
  EXPECT_EQ(samples.batch_call_spread.size(), 1u);
  batch.discarded = true;
  EXPECT_FALSE(record_batch(samples, batch, 0).has_value());
  EXPECT_EQ(samples.gpu_seconds.size(), 1u);
  EXPECT_EQ(samples.sample_seeds.size(), 3u) << "a discarded sample's calls are not in the record";
  EXPECT_EQ(samples.throttled_discarded, 0u);
}


}  // namespace
}  // namespace kopt::measure
