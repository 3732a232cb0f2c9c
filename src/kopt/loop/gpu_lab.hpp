#pragma once
// The Lab on a real GPU: kopt check, bench, profile, roofline and sass, as library calls.

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kopt/core/context.hpp"
#include "kopt/core/process.hpp"
#include "kopt/core/process_time.hpp"
#include "kopt/loop/checked_variants.hpp"
#include "kopt/loop/compile_queue.hpp"
#include "kopt/loop/lab.hpp"
#include "kopt/measure/bench.hpp"
#include "kopt/profile/nsight_compute.hpp"
#include "kopt/spec/expression.hpp"
#include "kopt/verify/kept_reference_server.hpp"

namespace kopt::loop {

struct GpuLabSettings {
  std::optional<std::filesystem::path> spec;  // the problem's kopt.toml; none: beside the kernel
  spec::Dims dims;                            // --dim overrides
  std::string timed_case;                     // the case timed and profiled; correctness on all
  std::vector<std::filesystem::path> include_dirs;  // -I for kernel copies (the original's folder)
  measure::BenchOptions bench;                // check options, timing and comparison settings
  profile::NcuSettings ncu;
  std::filesystem::path cache_dir;
  run::WorkerSettings worker;
  int parallel_compiles = 0;                  // 0: one per core
};

class GpuLab final : public Lab {
 public:
  // Works through `context`'s toolchain and clock; every process it starts is timed.
  GpuLab(Context& context, GpuLabSettings settings);
  nlohmann::json environment() override;
  Measurement measure(const MeasureRequest& request) override;
  Measurement first_look(const MeasureRequest& request) override;
  Evidence profile(const Variant& variant, const std::filesystem::path& dir) override;
  std::vector<MethodSass> sass(const Variant& variant, const std::vector<std::string>& methods) override;
  ProcessTimes process_times() const override { return ledger_.times(); }
  bool measures_every_case() const override { return true; }

 private:
  spec::Problem load(const Variant& variant, bool timed_case_only) const;
  std::string timed_case_name(const spec::Problem& problem) const;
  std::unique_ptr<CompileQueue> compile_ahead(const std::vector<Variant>& variants, const std::string& arch);
  Measurement checked_and_timed(const MeasureRequest& request, measure::BenchOptions options, bool timed_case_only);

  ProcessTimeLedger ledger_;   // every process the lab starts is entered here
  TimedProcessRunner runner_;
  GpuLabSettings settings_;
  Context context_;        // the caller's toolchain and clock over runner_
  std::string arch_;       // known after the first check
  nlohmann::json device_;
  CheckedVariants checked_;  // the checks its measurements passed, for the profile step
  // One Python runner for a .py reference, kept across the lab's measurements and profiles
  // (verify/kept_reference_server.hpp); its requests enter ledger_ as device time.
  verify::KeptReferenceServer python_server_;
};

}  // namespace kopt::loop
