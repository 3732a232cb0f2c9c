#pragma once
// `kopt profile`: Nsight Compute on exactly the kernels one `solve` call launches. The kernel
// is checked first (a profile of a wrong kernel is no evidence), or stands on a check of the
// same library this process has just made (the loop's: passed_check.hpp), then profiled in a worker
// under ncu, the report kept, its raw page exported and read through the metric map, each
// launch reported, and the whole call combined by each concept's rule.
//
// Without ncu, or without permission to read counters, the profile is *degraded*: it says
// why, carries no metric values, and nothing downstream may treat it as evidence.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kopt/profile/launch_aggregate.hpp"
#include "kopt/profile/metric_map.hpp"
#include "kopt/profile/ncu_csv.hpp"
#include "kopt/profile/ncu_top.hpp"
#include "kopt/profile/nsight_compute.hpp"
#include "kopt/profile/passed_check.hpp"
#include "kopt/verify/check.hpp"

namespace kopt::profile {

inline constexpr std::string_view kProfileSchema = "kopt.profile/1";

struct ProfileOptions {
  verify::CheckOptions check;
  NcuSettings ncu;
  std::string case_name;            // empty: the first case
  int warmup_calls = 2;
  int top_k = kDefaultTopK;
  std::filesystem::path out_dir;    // profile.ncu-rep, raw.csv, profile.json, ncu_top.json
  // A passing check of this kernel made just before in this process (the loop's measurement of
  // the variant): profiled without a check of its own where reuse_refusal finds none. None:
  // checked here, as `kopt profile` and `kopt roofline` always are.
  std::optional<PassedCheck> checked;
};

struct ProfiledLaunch {
  KernelLaunch launch;
  LaunchConcepts concepts;
  NcuTop top;
  double share = 0;  // of the call's summed kernel time
};

// Where a profile's wall time went (profile.json "phase_seconds"): the check (0 when an
// offered one was reused), `ncu --version`, ncu running the worker (its start, the kernel's
// replay passes, the report's write), the raw page's export and kopt reading it.
struct ProfilePhases {
  double check = 0, ncu_version = 0, ncu_run = 0, export_csv = 0, parse = 0;
};

struct ProfileReport {
  verify::CheckReport check;
  bool check_reused = false;        // `check` is ProfileOptions::checked's, not one run here
  std::string check_reuse_refused;  // why an offered check was not reused; empty otherwise
  std::string case_name;
  std::string dtype;                // the case's first output dtype ("float32"): what it computes in
  bool degraded = false;
  std::string reason;               // why degraded, or why the profile failed
  std::optional<std::string> failure;  // the kernel failed under the profiler (exit 1)
  std::string ncu_path, ncu_version, arch, clock_control, section_set;
  std::filesystem::path report_file, csv_file;
  std::optional<MetricMap> map;
  std::vector<ProfiledLaunch> launches;  // in launch order
  std::optional<WholeCall> whole;
  double wall_seconds = 0;
  ProfilePhases phases;

  bool evidence() const { return check.passed() && !failure && !degraded && whole.has_value(); }
  // The kernel failed its check or under the profiler (exit 1), rather than the profiler
  // being unable to read counters (degraded, exit 3).
  bool kernel_failed() const { return !check.passed() || failure.has_value(); }
  // The longest launch: the one ncu_top.json ranks. nullptr without launches.
  const ProfiledLaunch* dominant() const;
};

// Throws Error for bad input (2) and a missing GPU or nvcc (3). A missing ncu or counter
// access is a degraded report, not an exception; the caller decides the exit code.
ProfileReport run_profile(const spec::Problem& problem, const ProfileOptions& options, verify::CheckContext& context);

// Reads the raw page of a report into launches, concepts and the whole call (exposed for
// tests on captured exports).
void read_raw_page(ProfileReport& report, const std::string& csv_text, int top_k);

nlohmann::json profile_report_to_json(const ProfileReport& report);
nlohmann::json ncu_top_document(const ProfileReport& report);

// Writes profile.json and ncu_top.json (when there is evidence) into `dir`, atomically.
void write_profile_files(const ProfileReport& report, const std::filesystem::path& dir);

}  // namespace kopt::profile
