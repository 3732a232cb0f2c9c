#include "kopt/loop/simulated_lab.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "kopt/core/embedded_files.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"
#include "kopt/core/hash.hpp"
#include "kopt/measure/bench.hpp"
#include "kopt/measure/statistics.hpp"
#include "kopt/measure/verdict.hpp"
#include "kopt/loop/screen_settings.hpp"
#include "kopt/roofline/roofline_json.hpp"

namespace kopt::loop {
namespace fs = std::filesystem;
using nlohmann::json;

fs::path write_rehearsal_model(const fs::path& dir) {
  constexpr std::string_view kPrefix = "skill/rehearsal/";
  for (const EmbeddedFile& file : embedded_files()) {
    if (!file.name.starts_with(kPrefix)) continue;
    // data_file: a live source tree's copy under $KOPT_DATA_DIR, else the embedded one.
    write_file_atomic(dir / file.name.substr(kPrefix.size()), data_file(file.name));
  }
  return dir / "model.json";
}

SimulatedLab::SimulatedLab(const fs::path& model_file) {
  try {
    const json model = json::parse(read_file(model_file));
    if (model.value("schema", "") != "kopt.lab_model/1") {
      throw input_error("{}: not a lab model (schema kopt.lab_model/1)", model_file.string());
    }
    environment_ = model.value("environment", json{{"device", {{"name", "simulated GPU"}}}});
    // Whatever the model says of itself: a reader must never take its figures for measured ones.
    if (environment_.is_object()) environment_["simulated"] = true;
    // So that `kopt status` can print the next step with the same lab (--simulate MODEL).
    if (environment_.is_object()) environment_["lab_model"] = fs::absolute(model_file).lexically_normal().string();
    base_seconds_ = model.at("base_seconds").get<double>();
    relative_noise_ = model.value("relative_noise", relative_noise_);
    samples_ = model.value("samples", samples_);
    factors_ = model.value("factors", factors_);
    fails_ = model.value("fails", fails_);
    content_factors_ = model.value("content_factors", content_factors_);
    content_fails_ = model.value("content_fails", content_fails_);
    if (model.contains("reference_seconds")) reference_seconds_ = model["reference_seconds"].get<double>();
    evidence_dir_ = model_file.parent_path() / model.at("evidence").get<std::string>();
    for (const json& id : model.value("sass_missing", json::array())) sass_missing_.insert(id.get<std::string>());
  } catch (const json::exception& e) {
    throw input_error("{}: malformed lab model: {}", model_file.string(), e.what());
  }
}

void SimulatedLab::count_call() {
  if (before_call) before_call(calls_);
  ++calls_;
}

namespace {

// The modelled time joined to the roofline's by a 4-norm: a time well above the roof's stays
// as it is, one that the factors multiply past it (tiles times micro-tiles) approaches it from
// above. The model keeps its order of variants and never draws one the ceilings forbid.
double join_roofline(double modelled, double roof) {
  if (roof <= 0) return modelled;
  return std::pow(std::pow(modelled, 4) + std::pow(roof, 4), 0.25);
}

}  // namespace

void SimulatedLab::hold_to_roofline(spec::CaseWork work) {
  const fs::path file = evidence_dir_ / "roofline.json";
  evidence_roofline_ = json::parse(read_file(file));
  const roofline::RooflineDocument evidence = roofline::read_roofline_json(evidence_roofline_);
  if (evidence.inputs.peak_flop_per_second <= 0 || evidence.inputs.peak_bytes_per_second <= 0) {
    throw input_error("{}: the lab model's roofline has no ceilings to hold the simulation to", file.string());
  }
  work_ = work;
}

double SimulatedLab::roofline_seconds() const {
  if (!work_) return 0;
  const json& peaks = evidence_roofline_.at("peaks");
  return std::max(work_->flops / peaks.at("flop_per_second").get<double>(),
                  work_->bytes / peaks.at("bytes_per_second").get<double>());
}

double SimulatedLab::model_seconds(const Variant& variant) const {
  double seconds = base_seconds_;
  if (auto f = factors_.find(variant.kernel.filename().string()); f != factors_.end()) seconds *= f->second;
  if (!content_factors_.empty()) {
    // Keyed on what the source says, not its name: every branch of a driver is a kernel.cu.
    const std::string source = read_file(variant.kernel);
    for (const auto& [text, factor] : content_factors_) {
      if (source.find(text) != std::string::npos) seconds *= factor;
    }
  }
  for (const auto& [name, value] : variant.defines) {
    if (auto f = factors_.find(name + "=" + value); f != factors_.end()) seconds *= f->second;
  }
  return join_roofline(seconds, roofline_seconds());
}

std::optional<std::string> SimulatedLab::model_failure(const Variant& variant) const {
  for (const auto& [name, value] : variant.defines) {
    if (auto f = fails_.find(name + "=" + value); f != fails_.end()) return f->second;
  }
  if (!content_fails_.empty()) {
    const std::string source = read_file(variant.kernel);
    for (const auto& [text, failure] : content_fails_) {
      if (source.find(text) != std::string::npos) return failure;
    }
  }
  return std::nullopt;
}

namespace {

// The same variant always draws the same samples: the seed is its source (name and
// content: a champion's copy draws as its branch did) and defines. No sample is faster than
// `least` (the roofline's time; 0 without one): noise cannot carry a draw through a ceiling.
std::vector<double> draw_samples(const Variant& variant, double seconds, double noise, std::size_t count,
                                 double least) {
  ContentHasher hasher;
  hasher.add(variant.kernel.filename().string());
  if (path_exists(variant.kernel)) hasher.add(read_file(variant.kernel));
  for (const auto& [name, value] : variant.defines) hasher.add(name).add(value);
  std::mt19937_64 rng(std::stoull(hasher.hex().substr(0, 15), nullptr, 16));
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> samples(count);
  for (double& s : samples) s = std::max(least, seconds * (1 + noise * normal(rng)));
  return samples;
}

constexpr const char* kSimulatedCase = "simulated";

measure::VariantReport simulated_variant_report(const std::string& label, const std::vector<double>& samples,
                                                const measure::Summary& summary) {
  return {.label = label,
          .case_name = kSimulatedCase,
          .samples = {.label = label, .case_name = kSimulatedCase, .gpu_seconds = samples, .host_seconds = samples,
                      .stop_reason = "max_samples"},
          .summary = summary};
}

}  // namespace

Measurement SimulatedLab::measure(const MeasureRequest& request) {
  count_call();
  variants_measured_ += static_cast<int>(request.variants.size());
  return drawn(request, samples_);
}

// As the GPU's first look: fewer samples of the same model (the first look's minimum).
Measurement SimulatedLab::first_look(const MeasureRequest& request) {
  count_call();
  first_looked_ += static_cast<int>(request.variants.size());
  return drawn(request, std::min(samples_, std::max<std::size_t>(2, static_cast<std::size_t>(screen_settings().first_look_min_samples))));
}

Measurement SimulatedLab::drawn(const MeasureRequest& request, std::size_t samples_each) {
  Measurement result{.gpu = gpu_identity(environment_.value("device", json()))};
  // The bench report a GPU lab keeps beside screen.json and finals.json, made of the drawn
  // samples, so that a dry run sees the same files (kopt.bench; no device, no checks).
  measure::BenchReport bench{.mode = "cold"};
  std::vector<double> first;
  for (std::size_t i = 0; i < request.variants.size(); ++i) {
    const Variant& variant = request.variants[i];
    if (auto failure = model_failure(variant)) {
      if (i == 0) throw Error(ExitCode::kernel_failed, variant.label + " fails: " + *failure);
      result.outcomes.push_back({.label = variant.label, .passed = false, .failure = *failure});
      continue;
    }
    const std::vector<double> samples = draw_samples(variant, model_seconds(variant), relative_noise_, samples_each,
                                                      roofline_seconds());
    const measure::Summary summary = measure::summarize(samples);
    VariantOutcome outcome{.label = variant.label, .passed = true, .median = summary.median,
                           .median_low = summary.median_ci.low, .median_high = summary.median_ci.high,
                           .relative_stdev = summary.relative_stdev, .samples = summary.count};
    if (i == 0) {
      first = samples;
    } else {
      const measure::Comparison c = measure::compare_samples(first, samples);
      outcome.versus_first = VersusFirst{std::string(measure::verdict_name(c.verdict)), c.ratio.ratio,
                                         c.ratio.ci.low, c.ratio.ci.high};
      bench.verdicts.push_back({kSimulatedCase, request.variants[0].label, variant.label, c});
    }
    bench.variants.push_back(simulated_variant_report(variant.label, samples, summary));
    result.outcomes.push_back(std::move(outcome));
  }
  if (request.time_reference) result.reference_median = reference_seconds_;
  result.detail = measure::bench_report_to_json(bench);
  result.detail["simulated"] = true;  // so that no reader takes these samples for measured ones
  return result;
}

// Where the variant's modelled time puts it: the spec's work over that time against the
// evidence's ceilings, degraded as an analytic roofline is (no counters: no latency reading).
json SimulatedLab::variant_roofline(const Variant& variant) const {
  roofline::RooflineDocument evidence = roofline::read_roofline_json(evidence_roofline_);
  const double seconds = model_seconds(variant);
  const roofline::RooflineInputs inputs{.achieved_flop_per_second = work_->flops / seconds,
                                        .achieved_bytes_per_second = work_->bytes / seconds,
                                        .peak_flop_per_second = evidence.inputs.peak_flop_per_second,
                                        .peak_bytes_per_second = evidence.inputs.peak_bytes_per_second,
                                        .waves_per_sm = 1};
  const roofline::RooflinePoint point = roofline::place_on_roofline(inputs);
  evidence.sources.achieved = roofline::AchievedSource::work_formulas;
  json out = roofline::roofline_json(inputs, point, roofline::split_axis_budget(point.gaps), true,
                                     "simulated: the lab model's time for this variant over the spec's [work]; "
                                     "no counters, so no latency reading",
                                     evidence.sources);
  for (const char* key : {"compute_ceiling", "precision"}) {
    if (evidence_roofline_.contains(key)) out[key] = evidence_roofline_[key];
  }
  return out;
}

Evidence SimulatedLab::profile(const Variant& variant, const fs::path& dir) {
  count_call();
  for (const char* name : {"profile.json", "ncu_top.json", "roofline.json"}) {
    write_file_atomic(dir / name, read_file(evidence_dir_ / name));
  }
  if (!work_) return {.ok = true, .roofline = json::parse(read_file(evidence_dir_ / "roofline.json"))};
  const json roofline = variant_roofline(variant);
  write_file_atomic(dir / "roofline.json", roofline.dump(2));
  return {.ok = true, .roofline = roofline};
}

std::vector<MethodSass> SimulatedLab::sass(const Variant& variant, const std::vector<std::string>& methods) {
  count_call();
  (void)variant;
  std::vector<MethodSass> out;
  for (const std::string& id : methods) {
    out.push_back({id, sass_missing_.contains(id) ? "missing" : "found", "simulated"});
  }
  return out;
}

}  // namespace kopt::loop
