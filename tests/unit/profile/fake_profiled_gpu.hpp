#pragma once
// A machine that checks and profiles without a GPU, for run_profile and the loop's profile step:
// nvcc writes its -o file; `kopt worker` answers a probe with an H200 (writes not confinable),
// a check with one passing run per case and seed, a profile job by writing ncu's --export
// report; ncu answers --version as 2025.3.1 and --import with the real vector_add export. Each
// worker's job kind and each nvcc compile is recorded in `steps`, in order.

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kopt/core/files.hpp"
#include "kopt/core/process.hpp"
#include "kopt/run/device_info.hpp"
#include "kopt/spec/problem_spec.hpp"
#include "kopt/verify/check_job.hpp"

namespace kopt::profile::testing_support {

class FakeProfiledGpu final : public ProcessRunner {
 public:
  explicit FakeProfiledGpu(std::filesystem::path ncu) : ncu_(std::move(ncu)) {}

  std::vector<std::string> steps;            // "nvcc", "probe", "check", "profile"
  std::vector<nlohmann::json> profile_jobs;  // each profile job as the worker read it

  ProcessResult run(const ProcessSpec& spec) override {
    if (!spec.argv.empty() && spec.argv.front() == ncu_.string() && spec.argv.size() > 1 && spec.argv[1] != "--nvtx") {
      return ncu(spec.argv);
    }
    const auto worker = std::ranges::find(spec.argv, "worker");
    if (worker == spec.argv.end()) return nvcc(spec.argv);
    const std::string job_file = *(worker + 1), result_file = *(worker + 2);
    const nlohmann::json job = nlohmann::json::parse(read_file(job_file));
    steps.push_back(job.at("kind"));
    nlohmann::json result = job.at("kind") == "probe" ? probe() : job.at("kind") == "check" ? check(job) : profile(job, spec);
    result["nonce"] = job.at("nonce");
    write_file_atomic(result_file, result.dump());
    return {.started = true, .exit_status = 0};
  }

 private:
  static nlohmann::json probe() {
    const run::DeviceInfo device{.name = "NVIDIA H200", .uuid = "GPU-fake", .cc_major = 9, .sm_count = 132};
    return {{"kind", "probe"}, {"device", device}, {"device_count", 1},
            {"sandbox", {{"works", false}, {"description", "none here"}}}};
  }

  static nlohmann::json check(const nlohmann::json& job) {
    nlohmann::json runs = nlohmann::json::array();
    for (std::size_t c = 0; c < job.at("cases").size(); ++c) {
      for (std::uint64_t seed : job.at("seeds").get<std::vector<std::uint64_t>>()) {
        verify::RunRecord record{.case_name = job.at("cases")[c].at("name"), .case_index = static_cast<int>(c), .seed = seed};
        record.output_digest = seed * 10 + c;
        runs.push_back(verify::run_record_to_json(record));
      }
    }
    return {{"kind", "check"}, {"device", {{"uuid", "GPU-fake"}}}, {"runs", runs}, {"fatal", nullptr}};
  }

  // ncu wrote its report where --export named it.
  nlohmann::json profile(const nlohmann::json& job, const ProcessSpec& spec) {
    profile_jobs.push_back(job);
    const auto exported = std::ranges::find(spec.argv, "--export");
    if (exported != spec.argv.end()) write_file_atomic(*(exported + 1), "NCU-REP");
    return {{"kind", "profile"}, {"ok", true}};
  }

  ProcessResult ncu(const std::vector<std::string>& argv) const {
    ProcessResult result{.started = true, .exit_status = 0};
    if (argv[1] == "--version") {
      result.out = "NVIDIA (R) Nsight Compute Command Line Profiler\nVersion 2025.3.1.0 (build 36398880) (public-release)\n";
    } else {
      result.out = read_file(std::string(KOPT_FIXTURES_DIR) + "/ncu/ncu2025.3.1_h200_sm90_raw_vector_add.csv");
    }
    return result;
  }

  ProcessResult nvcc(const std::vector<std::string>& argv) {
    ProcessResult result{.started = true, .exit_status = 0};
    if (argv.size() == 2 && argv[1] == "--version") {
      result.out = "Cuda compilation tools, release 13.0, V13.0.88\n";
      return result;
    }
    steps.push_back("nvcc");
    const auto out = std::ranges::find(argv, "-o");
    if (out != argv.end()) write_file_atomic(*(out + 1), "ELF");
    return result;
  }

  std::filesystem::path ncu_;
};

// $KOPT_NCU pointed at an executable file for as long as it lives (run_profile looks for ncu
// before it profiles), and set back after.
class FakeNcuOnPath {
 public:
  explicit FakeNcuOnPath(const std::filesystem::path& file) : file_(file) {
    if (const char* was = std::getenv("KOPT_NCU")) was_ = was;
    write_file_atomic(file_, "#!/bin/sh\nexit 1\n");
    std::filesystem::permissions(file_, std::filesystem::perms::owner_all);
    ::setenv("KOPT_NCU", file_.c_str(), 1);
  }
  ~FakeNcuOnPath() {
    if (was_) ::setenv("KOPT_NCU", was_->c_str(), 1);
    else ::unsetenv("KOPT_NCU");
  }
  FakeNcuOnPath(const FakeNcuOnPath&) = delete;
  FakeNcuOnPath& operator=(const FakeNcuOnPath&) = delete;
  const std::filesystem::path& path() const { return file_; }

 private:
  std::filesystem::path file_;
  std::optional<std::string> was_;
};

// A one-kernel problem in `dir`: two cases (the spec's dims and n = 7), one input buffer.
inline spec::Problem fake_problem(const std::filesystem::path& dir, const std::string& kernel_file = "kernel.cu") {
  write_file_atomic(dir / kernel_file, "extern \"C\" void solve(const float* x, float* y, int n) {}\n");
  write_file_atomic(dir / "kopt.toml", "kernel = \"" + kernel_file +
                                           "\"\n[dims]\nn = 1024\n[[cases]]\nn = 7\n[buffers.x]\nshape = \"n\"\n");
  return spec::load_problem(dir, std::nullopt, {});
}

}  // namespace kopt::profile::testing_support
