#include "kopt/loop/close_steps.hpp"

#include "kopt/core/hash.hpp"
#include "kopt/measure/call_batch.hpp"

namespace kopt::loop {
namespace fs = std::filesystem;
using json = nlohmann::json;

// What decides a branch's screen result: its source, defines and case, the device and driver
// the run measures on, the run's settings and spec (tolerances and flags live there), and
// kopt's timing method. `gpu_uuid` is the GPU's (empty: env.json's device, the run's first).
VariantKey screen_key(const RunFolder& run, const RunState& state, const Variant& variant, const std::string& gpu_uuid) {
  const json env = fs::exists(run.root() / "env.json") ? read_json(run.root() / "env.json") : json::object();
  const json device = env.value("device", json::object());
  ContentHasher settings;
  settings.add(std::to_string(state.settings.seeds)).add(std::to_string(state.settings.min_effect));
  settings.add(std::string(measure::kTimingMethod));  // a result timed another way is not comparable
  if (state.spec && fs::exists(*state.spec)) settings.add(read_file(*state.spec));
  for (const std::string& dim : state.dims) settings.add(dim);
  return {.source_hash = content_hash(read_file(run.absolute(variant.kernel))),
          .defines = variant.define_list(),
          .case_name = state.settings.timed_case,
          .device_uuid = !gpu_uuid.empty() ? gpu_uuid : device.value("uuid", device.value("name", "")),
          .driver_version = device.value("driver_api_version", 0),
          .kind = "screen",
          .settings_hash = settings.hex()};
}

// The screen: every branch against the best, interleaved. A branch whose identical variant
// was screened before, on this device and with these settings (the result cache), is not
// measured again: its earlier outcome is used, and listed under "cached".
json screen_branches(Lab& lab, const RunFolder& run, int i, const RunState& state, const Variant& best,
                     const std::vector<Branch>& branches, const LoopContext& context) {
  // Looked up on the GPU the run measures on now; stored under the GPU the screen ran on, so
  // that a run resumed on another GPU never files that GPU's outcomes under the first's.
  const std::string now_on = state.gpus.empty() ? "" : state.gpus.back().value("uuid", "");
  std::vector<std::optional<VariantOutcome>> cached(branches.size());
  if (context.cache != nullptr) {
    for (std::size_t k = 0; k < branches.size(); ++k) {
      if (auto hit = context.cache->find(screen_key(run, state, branches[k].variant, now_on))) {
        cached[k] = hit->get<VariantOutcome>();
        cached[k]->label = branches[k].variant.label;
      }
    }
  }
  std::vector<Variant> measured = {best};
  for (std::size_t k = 0; k < branches.size(); ++k) {
    if (!cached[k]) measured.push_back(branches[k].variant);
  }
  std::vector<Variant> absolute;
  for (const Variant& v : measured) absolute.push_back(run.resolved(v));
  const Measurement m = lab.measure({.variants = absolute});
  if (!m.detail.is_null()) write_json(run.iteration(i) / "screen_bench.json", m.detail);

  std::vector<Variant> variants = {best};
  Measurement combined{.outcomes = {m.outcomes.at(0)}, .gpu = m.gpu};
  json from_cache = json::array();
  std::size_t next = 1;
  for (std::size_t k = 0; k < branches.size(); ++k) {
    variants.push_back(branches[k].variant);
    if (cached[k]) {
      combined.outcomes.push_back(*cached[k]);
      from_cache.push_back(branches[k].name);
    } else {
      combined.outcomes.push_back(m.outcomes.at(next++));
      if (context.cache != nullptr) {
        const std::string ran_on = m.gpu.is_object() ? m.gpu.value("uuid", "") : "";
        context.cache->store(screen_key(run, state, branches[k].variant, ran_on), combined.outcomes.back());
      }
    }
    write_json(run.branches(i) / branches[k].name / "bench.json", combined.outcomes.back());
  }
  json document = measurement_json(variants, combined);
  document["cached"] = from_cache;
  return document;
}

}  // namespace kopt::loop
