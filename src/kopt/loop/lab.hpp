#pragma once
// The loop's window on the GPU: the three things it asks of a machine — measure variants
// interleaved, profile one into evidence, read one's machine code for method signatures.
// GpuLab does them for real; SimulatedLab answers from a recorded model, so the loop's state
// machine, idempotence and resume are tested without a GPU (docs/loop.md).

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kopt/core/process_time.hpp"
#include "kopt/loop/variant.hpp"

namespace kopt::loop {

// A variant against the first of its measurement, from interleaved samples.
struct VersusFirst {
  std::string verdict;   // faster | slower | same | ambiguous (of this variant, against the first)
  double ratio = 1;      // time(this) / time(first)
  double low = 1, high = 1;  // 95 % bootstrap interval of the ratio
};

struct VariantOutcome {
  std::string label;
  bool passed = false;
  std::string failure;        // one line when it failed: compile error, wrong result, fault, hang
  double median = 0;          // seconds per solve call, on the loop's case
  double median_low = 0, median_high = 0;
  double relative_stdev = 0;
  std::size_t samples = 0;
  std::optional<VersusFirst> versus_first;  // every passing variant but the first
  // "first_look": the staged screen looked at it and went no further (a failure at the first
  // look, or not promising); empty: fully checked and timed. Never a finalist unless empty.
  std::string stage;
  std::optional<double> first_look_median;  // seconds, where its first look timed it
};

// The GPU a measurement ran on, from a device's properties (run/device_info.hpp's JSON):
// {"uuid", "name", "sm_clock_khz", "clocks": "as_found"} — kopt times at the clocks it finds
// and never locks them, so the policy is recorded with the boost clock the device reports.
nlohmann::json gpu_identity(const nlohmann::json& device);

struct Measurement {
  std::vector<VariantOutcome> outcomes;   // in the order asked
  nlohmann::json gpu;                     // gpu_identity of the device it ran on; null when none was reached
  std::optional<double> reference_median; // a timed reference, when asked for and there is one
  nlohmann::json detail;                  // the bench report (bench.json's format, every sample); a simulated one has no device
};

// The profile's verdict on one variant: its files are in the folder given.
struct Evidence {
  bool ok = false;            // profile.json, ncu_top.json and roofline.json were written
  std::string reason;         // why not, or why degraded
  nlohmann::json roofline;    // roofline.json's content
};

// One claimed method's signature in the machine code.
struct MethodSass {
  std::string method;
  std::string status;   // found | missing | not_verifiable | switched_off
  std::string detail;
};

struct MeasureRequest {
  std::vector<Variant> variants;  // the first is the point of comparison
  bool time_reference = false;
  // Each timed variant's time cross-checked by Nsight Compute (docs/integrity.md, "Outside
  // witnesses"): asked for the finals (the best so far and every finalist), whose times the
  // loop's verdicts stand on; a variant ncu disagrees with fails.
  bool witness_ncu = false;
  // The screen's measurements (first look and full screen) may be spread over several GPUs or
  // cluster tasks, each measuring the first variant again beside its share (spread_lab.hpp);
  // every other measurement (the baseline, the finals, the ablation, the audit) runs on one.
  bool spread = false;
  // Every case of the problem timed in this one measurement (the final audit), not only the
  // lab's timed case. Each variant's check runs every case anyway, so one measurement checks
  // each variant once where a measurement per case checked it once per case (a Triton
  // variant's check costs ~10 s). The outcomes stay the timed case's; a variant that fails or
  // is flagged on any case fails. Asked only of a lab whose measures_every_case() is true.
  bool every_case = false;
};

class Lab {
 public:
  virtual ~Lab() = default;
  virtual nlohmann::json environment() = 0;   // env.json: device, driver, nvcc, ncu
  // Checks every variant (a failing one is an outcome, not an error), then times the passing
  // ones interleaved. Throws Error when the first variant fails: nothing can be compared.
  virtual Measurement measure(const MeasureRequest& request) = 0;
  // A cheap look to rank variants (the staged screen): the timed case only, one fixed seed,
  // few samples (data/screen.toml). No verdict rests on it: a branch reaches the finals only
  // through measure(). Throws Error when the first variant fails.
  virtual Measurement first_look(const MeasureRequest& request) = 0;
  virtual Evidence profile(const Variant& variant, const std::filesystem::path& dir) = 0;
  virtual std::vector<MethodSass> sass(const Variant& variant, const std::vector<std::string>& methods) = 0;
  // The time its processes have taken so far (compiles, GPU workers, tools); none when simulated.
  virtual ProcessTimes process_times() const { return {}; }
  // Whether measure() honours MeasureRequest::every_case (its detail then holds every case's
  // variants); a lab that does not is asked one case at a time.
  virtual bool measures_every_case() const { return false; }
};

void to_json(nlohmann::json& out, const VersusFirst& versus);
void from_json(const nlohmann::json& in, VersusFirst& versus);
void to_json(nlohmann::json& out, const VariantOutcome& outcome);
void from_json(const nlohmann::json& in, VariantOutcome& outcome);
void to_json(nlohmann::json& out, const MethodSass& sass);
void from_json(const nlohmann::json& in, MethodSass& sass);

}  // namespace kopt::loop
