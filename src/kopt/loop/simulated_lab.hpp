#pragma once
// A Lab that answers from a model instead of a GPU: the loop's tests, and a dry run of an
// agent's driver script, run the real state machine on it (`--simulate MODEL.json`).
//
// The model (kopt.lab_model/1) gives a variant's time as base_seconds times a factor per
// define ("BM=128": 0.5), per kernel file name, and per text its source contains
// ("content_factors": {"float4": 0.5}: how a rewritten kernel.cu branch is rehearsed); samples are drawn around that time with
// a fixed seed per variant, so every answer is reproducible, and verdicts come from the same
// statistics as a real measurement. "fails" makes a define fail its check ("content_fails" a
// text of the source); the evidence
// folder holds the profile.json, ncu_top.json and roofline.json every profile returns;
// "sass_missing" names the methods whose signature is absent. Each measurement also gives the
// bench report a GPU lab gives (screen_bench.json, finals_bench.json), of the drawn samples.
// Given the spec's work per call (hold_to_roofline), no variant is drawn faster than the
// evidence's ceilings allow, and each profile places the variant by its own modelled time.

#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "kopt/loop/lab.hpp"
#include "kopt/spec/problem_work.hpp"

namespace kopt::loop {

// kopt's rehearsal model (skill/rehearsal/: model.json and its evidence folder, built into the
// binary) written into `dir`, so that a driver names a model wherever kopt is installed
// (`kopt skill rehearsal`, `kopt skill install`); returns the model's path.
std::filesystem::path write_rehearsal_model(const std::filesystem::path& dir);

class SimulatedLab final : public Lab {
 public:
  // Throws input_error naming the file when the model is malformed.
  explicit SimulatedLab(const std::filesystem::path& model_file);

  nlohmann::json environment() override { return environment_; }
  Measurement measure(const MeasureRequest& request) override;
  Measurement first_look(const MeasureRequest& request) override;
  Evidence profile(const Variant& variant, const std::filesystem::path& dir) override;
  std::vector<MethodSass> sass(const Variant& variant, const std::vector<std::string>& methods) override;

  // From now on every drawn time stays at or above the time the evidence's roofline allows for
  // `work`, and profile() writes each variant's own roofline.json (the work over its modelled
  // time, marked simulated) instead of the evidence's. Throws input_error naming the evidence's
  // roofline.json when it has no ceilings.
  void hold_to_roofline(spec::CaseWork work);

  // Called before every answer with the number of calls so far: a test throws from it to
  // kill the loop at a chosen point.
  std::function<void(int)> before_call;
  int calls() const { return calls_; }
  int variants_measured() const { return variants_measured_; }  // over every measure call
  int variants_first_looked() const { return first_looked_; }   // over every first_look call

 private:
  void count_call();
  Measurement drawn(const MeasureRequest& request, std::size_t samples_each);
  double model_seconds(const Variant& variant) const;
  double roofline_seconds() const;  // the least time the ceilings allow; 0 without the work
  nlohmann::json variant_roofline(const Variant& variant) const;
  std::optional<std::string> model_failure(const Variant& variant) const;

  nlohmann::json environment_;
  double base_seconds_ = 1e-3;
  double relative_noise_ = 0.002;
  std::size_t samples_ = 40;
  std::map<std::string, double> factors_;          // "NAME=VALUE" or a kernel file name
  std::map<std::string, std::string> fails_;       // "NAME=VALUE" → the failure
  std::map<std::string, double> content_factors_;  // a text the kernel's source contains → its factor
  std::map<std::string, std::string> content_fails_;  // a text the kernel's source contains → the failure
  std::optional<double> reference_seconds_;
  std::filesystem::path evidence_dir_;
  std::set<std::string> sass_missing_;
  std::optional<spec::CaseWork> work_;
  nlohmann::json evidence_roofline_;  // read by hold_to_roofline
  int calls_ = 0;
  int variants_measured_ = 0;
  int first_looked_ = 0;
};

}  // namespace kopt::loop
