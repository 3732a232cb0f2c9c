#include <gtest/gtest.h>

#include "kopt/core/files.hpp"
#include "kopt/core/process.hpp"
#include "kopt/measure/reference_timing.hpp"
#include "kopt/spec/problem_spec.hpp"
#include "kopt/verify/reference.hpp"
#include "verify_test_support.hpp"

namespace kopt::verify {
namespace {

using testing_support::has_numpy;

// The real runner on examples/reduction's ref.py: without torch and a GPU it says, per case,
// that it did not time the reference; with them, it gives the samples.
TEST(PythonReferenceTimings, EveryCaseSaysTimedOrWhyNot) {
  SystemProcessRunner runner;
  if (!has_numpy(runner)) GTEST_SKIP() << "needs python3 with numpy";
  spec::Problem problem = spec::load_problem(std::filesystem::path(KOPT_SOURCE_DIR) / "examples/reduction",
                                             std::nullopt, {{"N", std::int64_t{1000}}});
  TempDir cache("reference-timing-test");
  ReferenceContext context{runner, cache.path(), {}};
  measure::BenchSettings settings;
  settings.stopping.min_gpu_seconds = 0;
  settings.stopping.timeout_seconds = 2;
  auto timings = python_reference_timings(problem, 1, measure::reference_time_request(settings, 1 << 20, 0, 0), context);
  ASSERT_EQ(timings.size(), problem.cases.size());
  for (std::size_t c = 0; c < timings.size(); ++c) {
    measure::ReferenceTiming t = measure::reference_timing_from_json(timings[c], problem.cases[c].name);
    EXPECT_EQ(timings[c]["interleaved"], false);
    if (timings[c]["backend"] == "numpy") {
      EXPECT_FALSE(t.timed);
      EXPECT_EQ(t.reason, "not timed: numpy reference runs on the CPU");
    } else {
      EXPECT_TRUE(t.timed);
      EXPECT_GE(t.samples.gpu_seconds.size(), settings.stopping.min_samples);
    }
  }
}

}  // namespace
}  // namespace kopt::verify
