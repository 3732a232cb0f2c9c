#include "kopt/profile/nsight_compute.hpp"

#include <fmt/format.h>

#include <regex>

#include "kopt/core/context.hpp"
#include "kopt/core/error.hpp"
#include "kopt/profile/profile_job.hpp"

namespace kopt::profile {
namespace fs = std::filesystem;

fs::path find_ncu() { return SystemToolchain().path(Tool::ncu); }

std::string ncu_version(ProcessRunner& runner, const fs::path& ncu) {
  ProcessResult result = runner.run({.argv = {ncu.string(), "--version"}, .time_limit = std::chrono::seconds(60)});
  if (!result.ok()) throw environment_error("{} --version {}: {}", ncu.string(), result.outcome(), result.output_tail(3));
  static const std::regex version(R"(Version (\d+)\.(\d+)\.(\d+))");
  std::smatch match;
  if (!std::regex_search(result.out, match, version)) {
    throw environment_error("cannot read the version in the output of {} --version: {}", ncu.string(),
                            result.output_tail(2));
  }
  return fmt::format("{}.{}.{}", match[1].str(), match[2].str(), match[3].str());
}

std::vector<std::string> ncu_command_prefix(const fs::path& ncu, const NcuSettings& settings, const fs::path& report) {
  std::vector<std::string> words = {ncu.string(),
                                    "--nvtx",
                                    "--nvtx-include",
                                    std::string(kProfileRange) + "/",
                                    "--import-source",
                                    settings.import_source ? "yes" : "no",
                                    "--clock-control",
                                    settings.clock_control,
                                    // By default caches are flushed before each replay pass, as kopt's
                                    // cold timing does.
                                    "--cache-control",
                                    settings.cache_control,
                                    "--target-processes",
                                    "all",
                                    "--export",
                                    report.string(),
                                    "--force-overwrite"};
  if (!settings.section_set.empty()) words.insert(words.end(), {"--set", settings.section_set});
  if (!settings.metrics.empty()) {
    std::string joined;
    for (const std::string& m : settings.metrics) joined += (joined.empty() ? "" : ",") + m;
    words.insert(words.end(), {"--metrics", joined});
  }
  return words;
}

std::string export_raw_csv(ProcessRunner& runner, const fs::path& ncu, const fs::path& report) {
  ProcessResult result = runner.run({.argv = {ncu.string(), "--import", report.string(), "--csv", "--page", "raw",
                                              "--print-units", "base"},
                                     .time_limit = std::chrono::seconds(300)});
  if (!result.ok()) {
    throw environment_error("ncu --import {} --csv --page raw {}: {}", report.string(), result.outcome(),
                            result.output_tail(3));
  }
  return result.out;
}

std::string ncu_failure_cause(const std::string& output) {
  if (output.find("ERR_NVGPUCTRPERM") != std::string::npos) {
    return "ncu may not read the GPU's performance counters (ERR_NVGPUCTRPERM): run as root, or load the nvidia "
           "module with NVreg_RestrictProfilingToAdminUsers=0 (see "
           "https://developer.nvidia.com/ERR_NVGPUCTRPERM); in a container, add --cap-add=SYS_ADMIN";
  }
  if (output.find("No kernels were profiled") != std::string::npos) {
    return "ncu profiled no kernel: solve launched no kernel inside kopt's NVTX range";
  }
  if (output.find("not supported") != std::string::npos && output.find("==ERROR==") != std::string::npos) {
    return "ncu does not support this GPU or driver: update Nsight Compute";
  }
  return "";
}

}  // namespace kopt::profile
