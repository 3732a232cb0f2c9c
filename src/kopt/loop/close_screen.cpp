#include <fmt/format.h>

#include <algorithm>

#include "kopt/core/file_queries.hpp"
#include "kopt/core/hash.hpp"
#include "kopt/loop/close_steps.hpp"
#include "kopt/loop/screen_settings.hpp"
#include "kopt/measure/call_batch.hpp"

namespace kopt::loop {
namespace fs = std::filesystem;
using json = nlohmann::json;

// What decides a branch's screen result: its source, defines and case, the device and driver
// the run measures on, the run's settings and spec (tolerances and flags live there), and
// kopt's timing method. `gpu_uuid` is the GPU's (empty: env.json's device, the run's first).
VariantKey screen_key(const RunFolder& run, const RunState& state, const Variant& variant, const std::string& gpu_uuid) {
  const json env = path_exists(run.root() / "env.json") ? read_json(run.root() / "env.json") : json::object();
  const json device = env.value("device", json::object());
  ContentHasher settings;
  settings.add(std::to_string(state.settings.seeds)).add(std::to_string(state.settings.min_effect));
  settings.add(std::string(measure::kTimingMethod));  // a result timed another way is not comparable
  if (state.spec && path_exists(*state.spec)) settings.add(read_file(*state.spec));
  for (const std::string& dim : state.dims) settings.add(dim);
  return {.source_hash = content_hash(read_file(run.absolute(variant.kernel))),
          .defines = variant.define_list(),
          .case_name = state.settings.timed_case,
          .device_uuid = !gpu_uuid.empty() ? gpu_uuid : device.value("uuid", device.value("name", "")),
          .driver_version = device.value("driver_api_version", 0),
          .kind = "screen",
          .settings_hash = settings.hex()};
}

std::vector<std::size_t> promising(const std::vector<VariantOutcome>& looked, std::size_t limit, double within) {
  std::vector<std::size_t> order;
  for (std::size_t k = 1; k < looked.size(); ++k) {
    if (looked[k].passed && looked[k].median <= looked[0].median * (1 + within)) order.push_back(k);
  }
  std::ranges::stable_sort(order, {}, [&](std::size_t k) { return looked[k].median; });
  if (order.size() > limit) order.resize(limit);
  return order;
}

namespace {

std::vector<Variant> resolved(const RunFolder& run, const std::vector<Variant>& variants) {
  std::vector<Variant> absolute;
  for (const Variant& v : variants) absolute.push_back(run.resolved(v));
  return absolute;
}

// first_look.json: the best and the branches `fresh`, at a first look's cost.
json first_look(Lab& lab, const RunFolder& run, int i, const Variant& best, const std::vector<Branch>& branches,
                const std::vector<std::size_t>& fresh, const LoopContext& context) {
  const StepCost cost(lab, *context.clock);
  std::vector<Variant> variants = {best};
  for (std::size_t k : fresh) variants.push_back(branches[k].variant);
  const Measurement m = lab.first_look({.variants = resolved(run, variants), .spread = true});
  if (!m.detail.is_null()) write_json(run.iteration(i) / "first_look_bench.json", m.detail);
  json document = measurement_json(variants, m);
  document["cost"] = cost.finish(fresh.size());
  return document;
}

// A branch the first look did not promote: its first-look failure, or why it went no further.
VariantOutcome stopped_at_first_look(const VariantOutcome& looked, const VariantOutcome& best, double within) {
  VariantOutcome o{.label = looked.label, .passed = false, .stage = "first_look"};
  if (!looked.passed) {
    o.failure = "at the first look: " + looked.failure;
    return o;
  }
  o.first_look_median = looked.median;
  o.failure = fmt::format("not promising at the first look: x{:.3f} the best's median (promoted: within x{:.2f}, "
                          "the fastest first)", looked.median / best.median, 1 + within);
  return o;
}

// What the first look decided: the branches promoted (indexes, in order), each branch's
// first-look median where it passed, the best's outcome; `decided` gets the others' outcomes.
struct FirstLook {
  std::vector<std::size_t> promoted;
  std::vector<std::optional<double>> median;
  std::optional<VariantOutcome> best;
};

FirstLook look_first(Lab& lab, const RunFolder& run, int i, const Variant& best, const std::vector<Branch>& branches,
                     const std::vector<std::size_t>& fresh, std::size_t limit, const LoopContext& context,
                     std::vector<std::optional<VariantOutcome>>& decided) {
  const double within = screen_settings().promote_within;
  say(context, fmt::format("{}: a first look at {} branch(es)", iter_name(i), fresh.size()));
  const json document = once(run.iteration(i) / "first_look.json", kMeasurementSchema, context, "first_look",
                             [&] { return first_look(lab, run, i, best, branches, fresh, context); });
  const std::vector<VariantOutcome> looked = outcomes_of(document);
  FirstLook look{.median = std::vector<std::optional<double>>(branches.size()), .best = looked.at(0)};
  for (std::size_t p : promising(looked, limit, within)) look.promoted.push_back(fresh[p - 1]);
  std::ranges::sort(look.promoted);
  for (std::size_t f = 0; f < fresh.size(); ++f) {
    const std::size_t k = fresh[f];
    if (looked[f + 1].passed) look.median[k] = looked[f + 1].median;
    if (std::ranges::find(look.promoted, k) == look.promoted.end()) {
      decided[k] = stopped_at_first_look(looked[f + 1], looked[0], within);
    }
  }
  say(context, fmt::format("{}: {} of {} promising: checked in full and timed", iter_name(i), look.promoted.size(),
                           fresh.size()));
  return look;
}

}  // namespace

// The screen: a first look at every branch not in the result cache, when there are more than
// can be promoted; then the promising ones against the best, checked in full and timed
// interleaved. A branch whose identical variant was screened before, on this device and with
// these settings (the result cache), is not measured again: its earlier outcome is used, and
// listed under "cached".
json screen_branches(Lab& lab, const RunFolder& run, int i, const RunState& state, const Variant& best,
                     const std::vector<Branch>& branches, const LoopContext& context) {
  // Looked up on the GPU the run measures on now; stored under the GPU the screen ran on, so
  // that a run resumed on another GPU never files that GPU's outcomes under the first's.
  const std::string now_on = state.gpus.empty() ? "" : state.gpus.back().value("uuid", "");
  std::vector<std::optional<VariantOutcome>> decided(branches.size());
  std::vector<std::size_t> fresh;
  for (std::size_t k = 0; k < branches.size(); ++k) {
    if (context.cache != nullptr) {
      if (auto hit = context.cache->find(screen_key(run, state, branches[k].variant, now_on))) {
        decided[k] = hit->get<VariantOutcome>();
        decided[k]->label = branches[k].variant.label;
      }
    }
    if (!decided[k]) fresh.push_back(k);
  }
  std::vector<std::size_t> full = fresh;
  FirstLook look;
  const std::size_t limit = static_cast<std::size_t>(state.settings.finalists * screen_settings().promote_finalists_factor);
  if (fresh.size() > limit) {
    look = look_first(lab, run, i, best, branches, fresh, limit, context, decided);
    full = look.promoted;
  }

  const StepCost cost(lab, *context.clock);
  std::vector<Variant> measured = {best};
  for (std::size_t k : full) measured.push_back(branches[k].variant);
  // Nothing promising: the best's first look is all this screen has to say about it.
  const Measurement m = full.empty() && look.best ? Measurement{.outcomes = {*look.best}}
                                                    : lab.measure({.variants = resolved(run, measured), .spread = true});
  if (!m.detail.is_null()) write_json(run.iteration(i) / "screen_bench.json", m.detail);

  std::vector<Variant> variants = {best};
  Measurement combined{.outcomes = {m.outcomes.at(0)}, .gpu = m.gpu};
  json from_cache = json::array();
  for (std::size_t k = 0; k < branches.size(); ++k) {
    variants.push_back(branches[k].variant);
    const auto slot = std::ranges::find(full, k);
    if (slot == full.end()) {
      combined.outcomes.push_back(*decided[k]);
      if (std::ranges::find(fresh, k) == fresh.end()) from_cache.push_back(branches[k].name);
    } else {
      combined.outcomes.push_back(m.outcomes.at(static_cast<std::size_t>(slot - full.begin()) + 1));
      if (!look.median.empty()) combined.outcomes.back().first_look_median = look.median[k];
      if (context.cache != nullptr) {
        const std::string ran_on = m.gpu.is_object() ? m.gpu.value("uuid", "") : "";
        context.cache->store(screen_key(run, state, branches[k].variant, ran_on), combined.outcomes.back());
      }
    }
    write_json(run.branches(i) / branches[k].name / "bench.json", combined.outcomes.back());
  }
  json document = measurement_json(variants, combined);
  document["cached"] = from_cache;
  document["cost"] = cost.finish(full.size());
  return document;
}

}  // namespace kopt::loop
