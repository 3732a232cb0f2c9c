#include "kopt/workload/workload_spec.hpp"

#include <unistd.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/workload/run_metrics.hpp"

namespace kopt::workload {
namespace {

const char* kMinimal = R"(
command = ["python3", "run.py"]
[metric]
name = "step_ms"
json_key = "step_ms"
[[candidates]]
name = "fast"
env = { USE_FAST = "1" }
)";

std::string refusal(std::string_view text) {
  try {
    parse_workload_spec(text, "w/workload.toml");
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ExitCode::bad_input);
    return error.what();
  }
  return "accepted";
}

TEST(WorkloadSpec, ReadsTheMinimalSpecWithItsDefaults) {
  const WorkloadSpec spec = parse_workload_spec(kMinimal, "w/workload.toml");
  EXPECT_EQ(spec.name, "w");
  EXPECT_EQ(spec.folder, "w");
  EXPECT_EQ(spec.command, (std::vector<std::string>{"python3", "run.py"}));
  EXPECT_EQ(spec.primary.direction, Direction::lower);
  EXPECT_DOUBLE_EQ(spec.min_effect, 0.02);
  ASSERT_EQ(spec.candidates.size(), 1u);
  EXPECT_EQ(spec.candidates[0].env, (std::vector<std::pair<std::string, std::string>>{{"USE_FAST", "1"}}));
  EXPECT_EQ(spec.original.name, "original");
  EXPECT_EQ(spec.measure.min_rounds, 6);
  EXPECT_FALSE(spec.accuracy.has_value());
}

TEST(WorkloadSpec, ReadsEveryTable) {
  const WorkloadSpec spec = parse_workload_spec(std::string(kMinimal) + R"(
[tail]
json_key = "latencies_ms"
percentiles = [50, 99.9]
[[constraints]]
name = "p99.9"
max_worse = 0.05
[[metrics]]
name = "tokens"
pattern = 'tokens/s: ([0-9.]+)'
direction = "higher"
[accuracy]
output = "logits.bin"
dtype = "float32"
atol = 1e-3
[measure]
min_rounds = 8
max_rounds = 12
)",
                                                "w/workload.toml");
  EXPECT_EQ(spec.tail->percentiles, (std::vector<double>{50, 99.9}));
  EXPECT_EQ(spec.constraints[0].metric.name, "p99.9");
  EXPECT_DOUBLE_EQ(spec.constraints[0].max_worse, 0.05);
  EXPECT_EQ(spec.secondaries[0].direction, Direction::higher);
  EXPECT_EQ(spec.accuracy->dtype, "float32");
  EXPECT_EQ(spec.measure.min_rounds, 8);
  EXPECT_EQ(spec.measure.audit_rounds, 10);
}

TEST(WorkloadSpec, RefusesWhatCannotBeMeasuredInOneLine) {
  EXPECT_NE(refusal("command = [\"x\"]\n[[candidates]]\nname = \"a\"\n").find("missing [metric]"), std::string::npos);
  EXPECT_NE(refusal(std::string(kMinimal) + "colour = 1\n").find("unknown key \"colour\""), std::string::npos);
  EXPECT_NE(refusal(R"(command = ["x"]
[metric]
name = "t"
json_key = "t"
)").find("no [[candidates]]"), std::string::npos);
  EXPECT_NE(refusal(R"(command = ["x"]
[metric]
name = "t"
pattern = "no group"
[[candidates]]
name = "a"
)").find("capture group"), std::string::npos);
  EXPECT_NE(refusal(R"(command = ["x"]
[metric]
name = "t"
json_key = "t"
[[candidates]]
name = "original"
)").find("two arms are called \"original\""), std::string::npos);
  EXPECT_NE(refusal(std::string(kMinimal) + "[accuracy]\noutput = \"out.bin\"\n").find("say its dtype"), std::string::npos);
  EXPECT_NE(refusal(std::string(kMinimal) + "[[constraints]]\nname = \"p99\"\nmax_worse = 0.1\n").find("names no metric"),
            std::string::npos);
  EXPECT_NE(refusal(std::string(kMinimal) + "[measure]\nmin_rounds = 2\n").find("min_rounds must be in [5"), std::string::npos);
  EXPECT_NE(refusal(std::string(kMinimal) + "[[candidates]]\nname = \"b\"\nenv = { \"A B\" = \"1\" }\n")
                .find("not a variable name"),
            std::string::npos);
}

// An arm's environment selects its code; a difference in the GPU it gets, a debugging mode or a
// library injected before the workload's code would be measured as the candidate's gain.
TEST(WorkloadSpec, ArmsMayNotDifferInWhatChoosesTheGpuOrHowItRuns) {
  const std::string on_gpu1 = std::string(kMinimal) + "[[candidates]]\nname = \"elsewhere\"\nenv = { CUDA_VISIBLE_DEVICES = \"1\" }\n";
  const std::string said = refusal(on_gpu1);
  EXPECT_NE(said.find("w/workload.toml:9: candidate \"elsewhere\" sets CUDA_VISIBLE_DEVICES=1 where the original "
                      "leaves CUDA_VISIBLE_DEVICES unset: it chooses the GPU a run gets"),
            std::string::npos)
      << said;

  const std::string slowed = std::string(kMinimal) + "[original]\nenv = { CUDA_LAUNCH_BLOCKING = \"1\" }\n";
  EXPECT_NE(refusal(slowed).find("candidate \"fast\" leaves CUDA_LAUNCH_BLOCKING unset where the original sets "
                                 "CUDA_LAUNCH_BLOCKING=1"),
            std::string::npos)
      << refusal(slowed);
  EXPECT_NE(refusal(std::string(kMinimal) + "[[candidates]]\nname = \"tf32\"\nenv = { NVIDIA_TF32_OVERRIDE = \"1\" }\n")
                .find("precision the workload's own code chose"),
            std::string::npos);
  EXPECT_NE(refusal(std::string(kMinimal) + "[[candidates]]\nname = \"patched\"\nenv = { LD_PRELOAD = \"t.so\" }\n")
                .find("patch its timers"),
            std::string::npos);
  EXPECT_NE(refusal(std::string(kMinimal) + "[[candidates]]\nname = \"own\"\nenv = { KOPT_WORKLOAD_OUTPUT = \"x\" }\n")
                .find("candidate \"own\" sets KOPT_WORKLOAD_OUTPUT: kopt sets the KOPT_WORKLOAD_* variables itself"),
            std::string::npos);
  EXPECT_NE(refusal(std::string(kMinimal) + "[original]\nenv = { KOPT_WORKLOAD_ARM = \"x\" }\n")
                .find("the original \"original\" sets KOPT_WORKLOAD_ARM"),
            std::string::npos);

  // Set alike in every arm, the same variables are the workload's own setting.
  const WorkloadSpec alike = parse_workload_spec(R"(
command = ["python3", "run.py"]
[metric]
name = "step_ms"
json_key = "step_ms"
[original]
env = { CUDA_VISIBLE_DEVICES = "0", CUDA_LAUNCH_BLOCKING = "1" }
[[candidates]]
name = "fast"
env = { USE_FAST = "1", CUDA_VISIBLE_DEVICES = "0", CUDA_LAUNCH_BLOCKING = "1" }
)",
                                                 "w/workload.toml");
  EXPECT_EQ(alike.candidates.size(), 1u);
}

// A folder a candidate adds to PYTHONPATH may hold no start-up hook: Python would run it before
// the workload's code, where it could patch the timers the metric comes from.
TEST(WorkloadSpec, ACandidatesPythonPathMayBringNoStartupHook) {
  const std::filesystem::path folder =
      std::filesystem::path(testing::TempDir()) / ("kopt_workload_hooks_" + std::to_string(::getpid()));
  std::filesystem::create_directories(folder / "patch");
  std::filesystem::create_directories(folder / "plain");
  write_file_atomic(folder / "patch" / "sitecustomize.py", "import torch\n");
  write_file_atomic(folder / "plain" / "fast_op.py", "def op(): pass\n");
  const auto spec_with = [&](const std::string& arms) {
    return std::string("command = [\"python3\", \"run.py\"]\n[metric]\nname = \"t\"\njson_key = \"t\"\n") + arms;
  };
  const auto said = [&](const std::string& text) {
    try {
      parse_workload_spec(text, folder / "workload.toml");
    } catch (const Error& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(said(spec_with("[[candidates]]\nname = \"fast\"\nenv = { PYTHONPATH = \"plain:patch\" }\n"))
                .find("candidate \"fast\" puts patch on PYTHONPATH, which holds sitecustomize.py"),
            std::string::npos);
  EXPECT_EQ(said(spec_with("[[candidates]]\nname = \"fast\"\nenv = { PYTHONPATH = \"plain\" }\n")), "accepted");
  // On the original's path too, the hook runs in every arm alike.
  EXPECT_EQ(said(spec_with("[original]\nenv = { PYTHONPATH = \"patch\" }\n[[candidates]]\nname = \"fast\"\n"
                           "env = { PYTHONPATH = \"patch:plain\" }\n")),
            "accepted");
  std::filesystem::remove_all(folder);
}

TEST(RunMetrics, TheLastJsonLineHoldingTheKeyWins) {
  const WorkloadSpec spec = parse_workload_spec(kMinimal, "w/workload.toml");
  const RunMetrics metrics = read_run_metrics("{\"step_ms\": 1}\nnoise {\n{\"step_ms\": 2.5}\n{\"other\": 3}\n", spec);
  EXPECT_TRUE(metrics.missing.empty());
  EXPECT_DOUBLE_EQ(metrics.values.at("step_ms"), 2.5);
}

TEST(RunMetrics, AMetricTheOutputLacksIsNamedNeverZero) {
  const WorkloadSpec spec = parse_workload_spec(kMinimal, "w/workload.toml");
  EXPECT_EQ(read_run_metrics("step_ms: 3\n{\"step_ms\": \"fast\"}\n", spec).missing, (std::vector<std::string>{"step_ms"}));
  EXPECT_EQ(read_run_metrics("{\"step_ms\": NaN}\n", spec).missing, (std::vector<std::string>{"step_ms"}));
}

TEST(RunMetrics, PatternsAndTailPercentiles) {
  const WorkloadSpec spec = parse_workload_spec(R"(
command = ["x"]
[metric]
name = "step"
pattern = 'step: ([0-9.]+) ms'
[tail]
json_key = "lat"
percentiles = [50]
[[candidates]]
name = "a"
)",
                                                "w/workload.toml");
  const RunMetrics metrics = read_run_metrics("step: 1 ms\nstep: 4.5 ms\n{\"lat\": [1, 2, 3, 4, 100]}\n", spec);
  EXPECT_DOUBLE_EQ(metrics.values.at("step"), 4.5);
  EXPECT_DOUBLE_EQ(metrics.values.at("p50"), 3);
}

}  // namespace
}  // namespace kopt::workload
