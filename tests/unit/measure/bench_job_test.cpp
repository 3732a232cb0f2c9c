#include "kopt/measure/bench_job.hpp"

#include <gtest/gtest.h>

namespace kopt::measure {
namespace {

// The worker's result crosses a process boundary as JSON: what the parent reads back must be
// what the worker measured, phases included.
TEST(BenchJobResult, SurvivesTheTripThroughJson) {
  BenchJobResult result;
  result.device = {{"name", "NVIDIA H200"}};
  result.mode = "cold";
  result.wall_seconds = 2.49;
  result.phases = {.setup = 0.61, .inputs = 0.42, .warmup = 0.01, .sampling = 1.2, .recheck = 0.25};
  VariantSamples samples{.label = "A", .case_name = "default", .gpu_seconds = {1e-4, 1.1e-4},
                         .host_seconds = {1.2e-4, 1.3e-4}, .sm_clock_mhz = {1980, 1975}, .throttled_discarded = 3,
                         .stop_reason = "median_precise", .first_call_seconds = 2e-4, .resolution_seconds = 32e-9};
  samples.witness_ids = {4, 6};
  result.samples.push_back(samples);
  result.event_tick_seconds = 32e-9;

  const BenchJobResult back = bench_result_from_json(bench_result_to_json(result));
  EXPECT_EQ(back.device, result.device);
  EXPECT_EQ(back.mode, "cold");
  EXPECT_DOUBLE_EQ(back.wall_seconds, 2.49);
  EXPECT_DOUBLE_EQ(back.phases.setup, 0.61);
  EXPECT_DOUBLE_EQ(back.phases.inputs, 0.42);
  EXPECT_DOUBLE_EQ(back.phases.warmup, 0.01);
  EXPECT_DOUBLE_EQ(back.phases.sampling, 1.2);
  EXPECT_DOUBLE_EQ(back.phases.recheck, 0.25);
  ASSERT_EQ(back.samples.size(), 1u);
  EXPECT_EQ(back.samples[0].gpu_seconds, samples.gpu_seconds);
  EXPECT_EQ(back.samples[0].host_seconds, samples.host_seconds);
  EXPECT_EQ(back.samples[0].sm_clock_mhz, samples.sm_clock_mhz);
  EXPECT_EQ(back.samples[0].throttled_discarded, 3u);
  EXPECT_EQ(back.samples[0].stop_reason, "median_precise");
  EXPECT_DOUBLE_EQ(back.samples[0].resolution_seconds, 32e-9);
  EXPECT_DOUBLE_EQ(back.event_tick_seconds, 32e-9);
  EXPECT_FALSE(back.samples[0].recheck.has_value());
  EXPECT_EQ(back.samples[0].witness_ids, (std::vector<std::uint32_t>{4, 6}));
}

// The job too: the reference's budget, that its outputs are not read back, and the seed of the
// rounds' order reach the worker.
TEST(BenchJob, SurvivesTheTripThroughJson) {
  BenchJob job{.variants = {{"a.cu", "/lib/a.so"},
                            {.label = "reference", .library = "/lib/ref.so", .budgeted = true, .read_back_outputs = false}},
               .sample_key = 7,
               .order_seed = 11,
               .witness_fd = 3};
  const BenchJob back = bench_job_from_json(bench_job_to_json(job));
  ASSERT_EQ(back.variants.size(), 2u);
  EXPECT_FALSE(back.variants[0].budgeted);
  EXPECT_TRUE(back.variants[1].budgeted);
  EXPECT_TRUE(back.variants[0].read_back_outputs);
  EXPECT_FALSE(back.variants[1].read_back_outputs);
  EXPECT_EQ(back.order_seed, 11u);
  EXPECT_EQ(back.sample_key, 7u);
  EXPECT_EQ(back.witness_fd, 3);
  EXPECT_EQ(bench_job_from_json(bench_job_to_json(BenchJob{})).witness_fd, -1);
  EXPECT_DOUBLE_EQ(back.settings.stopping.target_half_width, 0.0025);
  EXPECT_TRUE(back.retention_dir.empty());
}

// The seeds of kept outputs travel in the result (under the nonce), not in a file the kernel
// could rewrite.
TEST(BenchJobResult, CarriesTheKeptSeedsAndWhyNoneWereKept) {
  BenchJobResult result{.device = nlohmann::json::object(), .mode = "cold"};
  result.samples.push_back({.label = "A", .case_name = "default", .kept_seeds = {5, 9}});
  result.samples.push_back({.label = "B", .case_name = "default", .kept_note = "too large"});
  const BenchJobResult back = bench_result_from_json(bench_result_to_json(result));
  EXPECT_EQ(back.samples[0].kept_seeds, (std::vector<std::uint64_t>{5, 9}));
  EXPECT_EQ(back.samples[1].kept_note, "too large");
}

// What the census found travels in the result (under the nonce) to the parent, which judges it.
TEST(BenchJobResult, CarriesTheAgentsAndInterceptorsTheCensusFound) {
  BenchJobResult result{.device = nlohmann::json::object(), .mode = "cold"};
  result.samples.push_back({.label = "A", .case_name = "default"});
  result.samples[0].agents_left = {"thread 41 'a'"};
  result.samples[0].interceptors_installed = {"1 more seccomp filter(s)"};
  const BenchJobResult back = bench_result_from_json(bench_result_to_json(result));
  EXPECT_EQ(back.samples[0].agents_left, (std::vector<std::string>{"thread 41 'a'"}));
  EXPECT_EQ(back.samples[0].interceptors_installed, (std::vector<std::string>{"1 more seccomp filter(s)"}));
}

// Which variants keep timed outputs, and where: the worker must learn both.
TEST(BenchJob, CarriesWhichVariantsKeepOutputsAndWhere) {
  BenchJob job{.variants = {{"a.cu", "/lib/a.so"}, {"b.cu", "/lib/b.so", false, true}}, .retention_dir = "/w/kept"};
  const BenchJob back = bench_job_from_json(bench_job_to_json(job));
  EXPECT_FALSE(back.variants[0].retain_outputs);
  EXPECT_TRUE(back.variants[1].retain_outputs);
  EXPECT_EQ(back.retention_dir, "/w/kept");
}

// A Triton bench is Python-hosted (its own hold allowance; one variant unheld, all unheld); the
// worker must learn it,
// and a job that does not say so (a .cu bench, an older kopt's) keeps each variant's own.
TEST(BenchJob, CarriesWhetherItsSolvesArePythonHosted) {
  EXPECT_TRUE(bench_job_from_json(bench_job_to_json(BenchJob{.python_hosted = true})).python_hosted);
  nlohmann::json unsaid = bench_job_to_json(BenchJob{});
  EXPECT_FALSE(bench_job_from_json(unsaid).python_hosted);
  unsaid.erase("python_hosted");
  EXPECT_FALSE(bench_job_from_json(unsaid).python_hosted);
}

TEST(WorkerPhases, JsonNamesEachPhase) {
  const WorkerPhases phases{.setup = 1, .inputs = 2, .warmup = 3, .sampling = 4, .recheck = 5,
                            .sampling_inputs = 0.5, .sampling_timed = 1.5, .sampling_digests = 2,
                            .sampling_readback = 0.25};
  const nlohmann::json json = worker_phases_to_json(phases);
  EXPECT_EQ(json, (nlohmann::json{{"setup", 1.0}, {"inputs", 2.0}, {"warmup", 3.0}, {"sampling", 4.0}, {"recheck", 5.0},
                                  {"sampling_inputs", 0.5}, {"sampling_timed", 1.5}, {"sampling_digests", 2.0},
                                  {"sampling_readback", 0.25}}));
  EXPECT_DOUBLE_EQ(worker_phases_from_json(json).sampling_digests, 2.0);
  EXPECT_DOUBLE_EQ(worker_phases_from_json(json).sampling_readback, 0.25);
  // A result of an earlier worker has no split of its sampling: zero, not an error.
  EXPECT_DOUBLE_EQ(worker_phases_from_json({{"setup", 1.0}, {"inputs", 2.0}, {"warmup", 3.0}, {"sampling", 4.0},
                                            {"recheck", 5.0}}).sampling_timed, 0.0);
  EXPECT_THROW(worker_phases_from_json({{"setup", 1.0}}), nlohmann::json::exception);
}

}  // namespace
}  // namespace kopt::measure
