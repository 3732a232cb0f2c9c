#include "kopt/loop/close_steps.hpp"


namespace kopt::loop {
namespace fs = std::filesystem;
using json = nlohmann::json;

void step_done(const LoopContext& hooks, std::string_view step) {
  if (hooks.after_step) hooks.after_step(step);
}

void say(const LoopContext& hooks, const std::string& line) {
  if (hooks.progress) hooks.progress(line);
}

std::string iter_name(int i) { return "iter" + std::to_string(i); }

// The catalog methods a kernel declares switches for and that are on under `defines`.
std::vector<spec::MethodSwitch> switches_on(const fs::path& kernel, const Defines& defines) {
  std::vector<spec::MethodSwitch> on;
  for (const spec::MethodSwitch& s : spec::parse_source_annotations(read_file(kernel), kernel.string()).methods) {
    const auto set = defines.find(s.macro);
    if (set != defines.end() ? set->second != "0" : s.enabled_by_default) on.push_back(s);
  }
  return on;
}

json StepCost::finish(std::size_t candidates) const {
  const ProcessTimes spent = lab_.process_times() - before_;
  const double wall = wall_.seconds();
  return {{"wall_s", wall},
          {"compile_s", spent.compile_s},
          {"compile_processes_s", spent.compile_processes_s},
          {"device_s", spent.device_s},
          {"candidates", candidates}};
}

json measurement_json(const std::vector<Variant>& variants, const Measurement& m) {
  json document = {{"variants", variants}, {"outcomes", m.outcomes}, {"gpu", m.gpu}};
  if (m.reference_median) document["reference_median_s"] = *m.reference_median;
  return document;
}

std::vector<VariantOutcome> outcomes_of(const json& document) {
  return document.at("outcomes").get<std::vector<VariantOutcome>>();
}

}  // namespace kopt::loop
