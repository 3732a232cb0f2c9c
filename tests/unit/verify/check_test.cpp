// verify::run_check, the gate of every command, on a fake machine: nvcc and the worker are
// played by one ProcessRunner, so the order of its steps, what it hands the worker and how it
// records a failure are tested without a GPU.
#include "kopt/verify/check.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <mutex>
#include <string>
#include <vector>

#include "kopt/core/clock.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/run/device_info.hpp"
#include "kopt/spec/problem_spec.hpp"

namespace kopt::verify {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using ::testing::HasSubstr;

// nvcc and `kopt worker` as they answer: nvcc writes its -o file (and fails on a source that
// says "syntax error"); the worker answers a probe with an H200 and a check with one passing
// run per case and seed. Every process is recorded as "nvcc", "probe" or "check".
class FakeGpuMachine final : public ProcessRunner {
 public:
  std::vector<std::string> steps;
  std::vector<json> check_jobs;
  int check_exit_status = 0;  // not 0: the check's worker dies without a result

  ProcessResult run(const ProcessSpec& spec) override {
    const auto worker = std::ranges::find(spec.argv, "worker");
    if (worker == spec.argv.end()) return nvcc(spec.argv);
    const std::string job_file = *(worker + 1), result_file = *(worker + 2);
    const json job = json::parse(read_file(job_file));
    steps.push_back(job.at("kind"));
    if (job.at("kind") == "probe") {
      const run::DeviceInfo device{.name = "NVIDIA H200", .uuid = "GPU-fake", .cc_major = 9, .sm_count = 132};
      write_file_atomic(result_file, json{{"kind", "probe"}, {"device", device}, {"device_count", 1},
                                          {"sandbox", {{"works", false}, {"description", "none here"}}},
                                          {"nonce", job.at("nonce")}}.dump());
      return {.started = true, .exit_status = 0};
    }
    check_jobs.push_back(job);
    if (check_exit_status != 0) return {.started = true, .exit_status = check_exit_status, .err = "Segmentation fault\n"};
    json runs = json::array();
    const std::size_t cases = job.at("cases").size();
    for (std::size_t c = 0; c < cases; ++c) {
      for (std::uint64_t seed : job.at("seeds").get<std::vector<std::uint64_t>>()) {
        RunRecord record{.case_name = job.at("cases")[c].at("name"), .case_index = static_cast<int>(c), .seed = seed};
        record.output_digest = seed * 10 + c;
        runs.push_back(run_record_to_json(record));
      }
    }
    write_file_atomic(result_file, json{{"kind", "check"}, {"device", {{"uuid", "GPU-fake"}}}, {"runs", runs},
                                        {"fatal", nullptr}, {"nonce", job.at("nonce")}}.dump());
    return {.started = true, .exit_status = 0};
  }

 private:
  ProcessResult nvcc(const std::vector<std::string>& argv) {
    ProcessResult result{.started = true, .exit_status = 0};
    if (argv.size() == 2 && argv[1] == "--version") {
      result.out = "Cuda compilation tools, release 13.0, V13.0.88\n";
      return result;
    }
    steps.push_back("nvcc");
    for (const std::string& arg : argv) {
      if (arg.ends_with(".cu") && fs::exists(arg) && read_file(arg).find("syntax error") != std::string::npos) {
        result.exit_status = 2;
        result.err = arg + "(1): error: expected a \";\"\n";
        return result;
      }
    }
    const auto out = std::ranges::find(argv, "-o");
    if (out != argv.end()) write_file_atomic(*(out + 1), "ELF");
    return result;
  }
};

// The fake machine, with the .py reference's runner (`--serve`) played by a real process that
// never reads its "stop": Python still importing torch. Only a kill ends it before its time
// limit (four of the worker's: minutes).
class MachineWithImportingPython final : public ProcessRunner {
 public:
  explicit MachineWithImportingPython(FakeGpuMachine& machine) : machine_(machine) {}

  ProcessResult run(const ProcessSpec& spec) override {
    if (std::ranges::find(spec.argv, "--serve") == spec.argv.end()) return machine_.run(spec);
    ProcessSpec importing = spec;
    importing.argv = {"sleep", "60"};
    ++servers_started;
    ProcessResult result = system_.run(importing);
    std::lock_guard lock(mutex_);
    server_results_.push_back(result);
    return result;
  }
  std::vector<ProcessResult> server_results() {
    std::lock_guard lock(mutex_);
    return server_results_;
  }

  std::atomic<int> servers_started = 0;

 private:
  FakeGpuMachine& machine_;
  SystemProcessRunner system_;
  std::mutex mutex_;
  std::vector<ProcessResult> server_results_;
};

class RunCheck : public ::testing::Test {
 protected:
  spec::Problem problem(const std::string& source, const std::string& build = "") {
    write_file_atomic(dir.path() / "k" / "kernel.cu", source);
    write_file_atomic(dir.path() / "k" / "kopt.toml",
                      "kernel = \"kernel.cu\"\n" + build + "[dims]\nn = 1024\n[[cases]]\nn = 7\n[buffers.x]\nshape = \"n\"\n");
    return spec::load_problem(dir.path() / "k", std::nullopt, {});
  }
  CheckReport check(const spec::Problem& p, CheckOptions options = {.seed_count = 2, .first_seed = 5}) {
    CheckContext context{machine, dir.path() / "cache", {.executable = "/usr/bin/kopt"}};
    return run_check(p, options, context);
  }
  // The problem with a .py reference beside it.
  spec::Problem with_python_reference(const std::string& source, const std::string& build = "") {
    write_file_atomic(dir.path() / "k" / "ref.py", "def reference(x, y, n):\n    y[:] = x\n");
    return problem(source, "reference = \"ref.py\"\n" + build);
  }
  // The check on `python`'s machine, and how long it took, in seconds.
  std::pair<CheckReport, double> timed_check(const spec::Problem& p, MachineWithImportingPython& python) {
    CheckContext context{python, dir.path() / "cache", {.executable = "/usr/bin/kopt"}};
    const Stopwatch clock;
    CheckReport report = run_check(p, {.seed_count = 2, .first_seed = 5}, context);
    return {std::move(report), clock.seconds()};
  }

  TempDir dir{"run-check"};
  FakeGpuMachine machine;
};

constexpr const char* kKernel = "extern \"C\" void solve(const float* x, float* y, int n) {}\n";

TEST_F(RunCheck, TheDeviceIsProbedBeforeTheKernelIsCompiledForItsArchThenEveryCaseAndSeedRunsInOneWorker) {
  const CheckReport report = check(problem(kKernel));
  ASSERT_TRUE(report.passed()) << report.cause();
  EXPECT_EQ(report.arch, "sm_90");  // the probed H200's, not an assumed one
  EXPECT_EQ(report.device.value("uuid", ""), "GPU-fake");
  EXPECT_EQ(report.reference, "none");
  ASSERT_EQ(machine.check_jobs.size(), 1u);
  EXPECT_EQ(machine.check_jobs[0].at("seeds"), json({5, 6}));
  EXPECT_EQ(machine.check_jobs[0].at("cases").size(), 2u);
  ASSERT_TRUE(report.build.has_value());
  EXPECT_EQ(machine.check_jobs[0].at("library"), report.build->library.string());
  EXPECT_EQ(report.runs.size(), 4u);  // 2 cases x 2 seeds
  const auto probe = std::ranges::find(machine.steps, "probe");
  const auto compile = std::ranges::find(machine.steps, "nvcc");
  ASSERT_NE(probe, machine.steps.end());
  ASSERT_NE(compile, machine.steps.end());
  EXPECT_LT(probe, compile);
  EXPECT_EQ(machine.steps.back(), "check");
}

TEST_F(RunCheck, WithItsArchKnownACompileErrorComesFirstAndNoWorkerStarts) {
  const CheckReport report = check(problem("syntax error\n" + std::string(kKernel), "[build]\narch = \"sm_90\"\n"));
  EXPECT_FALSE(report.passed());
  ASSERT_TRUE(report.failure.has_value());
  EXPECT_EQ(report.failure->kind, "compile_error");
  EXPECT_THAT(machine.steps, ::testing::Each(std::string("nvcc")));
}

// A .py reference's runner starts before the compile, so that Python's imports overlap it;
// a compile error then ends the check at once: the runner, never asked, is killed, not
// waited for.
TEST_F(RunCheck, ACompileErrorEndsItWithoutWaitingForTheReferencesPython) {
  if (!find_program("python3")) GTEST_SKIP() << "needs python3";
  MachineWithImportingPython python(machine);
  const auto [report, seconds] =
      timed_check(with_python_reference("syntax error\n" + std::string(kKernel), "[build]\narch = \"sm_90\"\n"), python);
  ASSERT_TRUE(report.failure.has_value());
  EXPECT_EQ(report.failure->kind, "compile_error");
  EXPECT_EQ(python.servers_started, 1);  // before the compile that failed
  EXPECT_LT(seconds, 1.0);
  const std::vector<ProcessResult> servers = python.server_results();
  ASSERT_EQ(servers.size(), 1u);
  EXPECT_EQ(servers[0].signal, SIGKILL);
  EXPECT_FALSE(servers[0].timed_out);
}

// A kernel whose worker dies ends the check as quickly: the reference was never asked.
TEST_F(RunCheck, AKernelThatFailsEndsItWithoutWaitingForTheReferencesPython) {
  machine.check_exit_status = 139;
  if (!find_program("python3")) GTEST_SKIP() << "needs python3";
  MachineWithImportingPython python(machine);
  const auto [report, seconds] = timed_check(with_python_reference(kKernel), python);
  ASSERT_TRUE(report.failure.has_value());
  EXPECT_EQ(report.failure->kind, "crash");
  EXPECT_EQ(python.servers_started, 1);
  EXPECT_LT(seconds, 1.0);
  const std::vector<ProcessResult> servers = python.server_results();
  ASSERT_EQ(servers.size(), 1u);
  EXPECT_EQ(servers[0].signal, SIGKILL);
}

TEST_F(RunCheck, AWorkerThatDiesIsARecordedFailureNotAnException) {
  machine.check_exit_status = 139;
  CheckReport report;
  ASSERT_NO_THROW(report = check(problem(kKernel)));
  EXPECT_FALSE(report.passed());
  ASSERT_TRUE(report.failure.has_value());
  EXPECT_FALSE(report.failure->message.empty());
  EXPECT_TRUE(report.runs.empty());
}

TEST_F(RunCheck, UnderStrictASourceFindingStopsItBeforeAnythingRuns) {
  const std::string side_stream =
      "#include <cuda_runtime.h>\nextern \"C\" void solve(const float* x, float* y, int n) {\n"
      "  cudaStream_t s; cudaStreamCreate(&s);\n}\n";
  const CheckReport report = check(problem(side_stream), {.seed_count = 2, .first_seed = 5, .strict = true});
  EXPECT_FALSE(report.passed());
  EXPECT_FALSE(report.source_findings.empty());
  EXPECT_TRUE(machine.steps.empty());
}

// One run per case and seed, or the check is no pass: a worker result that leaves a pair out
// (or adds one it was not asked for) would pass only what it chose to show.
TEST(CoverageGap, EveryCaseAndSeedHasExactlyOneRun) {
  CheckReport report{.seeds = {11, 12}, .cases = {spec::BoundCase{.name = "default"}, spec::BoundCase{.name = "N=3"}}};
  for (int c = 0; c < 2; ++c) {
    for (std::uint64_t seed : {11u, 12u}) report.runs.push_back({.case_name = "x", .case_index = c, .seed = seed});
  }
  EXPECT_EQ(coverage_gap(report), "");
  CheckReport short_of_one = report;
  short_of_one.runs.pop_back();
  EXPECT_EQ(coverage_gap(short_of_one), "0 runs of case N=3 and seed 12");
  CheckReport doubled = report;
  doubled.runs.back() = doubled.runs.front();
  EXPECT_EQ(coverage_gap(doubled), "2 runs of case default and seed 11");
  CheckReport foreign = report;
  foreign.runs.back().seed = 99;
  EXPECT_THAT(coverage_gap(foreign), ::testing::HasSubstr("seed 99, which the check did not ask for"));
}

// A worker whose last line is the Triton host's own refusal names its cause in the message;
// a traceback, or a kernel's noise before a later line, adds nothing.
TEST(HostRefusal, IsTheLastLineOfStderrWhenItIsKopts) {
  EXPECT_EQ(host_refusal_of("some output\nkopt: kernel.py has no module-level variable BLOKC for -D BLOKC=256\n"),
            ": kernel.py has no module-level variable BLOKC for -D BLOKC=256");
  EXPECT_EQ(host_refusal_of("kopt: kernel.py's solve raised:\nTraceback ...\nValueError: planted\n"), "");
  EXPECT_EQ(host_refusal_of(""), "");
}

}  // namespace
}  // namespace kopt::verify
