#pragma once
// The steps of `kopt close`, one file each (close_screen, close_finals, close_champion,
// close_conclude), and what they share; run_loop.cpp runs them in order. Internal to loop/:
// exposed so that each step is unit-tested on its own (tests/unit/loop/close_steps_test.cpp).

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kopt/catalog/planner.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"
#include "kopt/loop/lab.hpp"
#include "kopt/loop/run_loop.hpp"
#include "kopt/loop/run_documents.hpp"
#include "kopt/loop/run_state.hpp"
#include "kopt/spec/kernel_signature.hpp"

namespace kopt::loop {

void step_done(const LoopContext& hooks, std::string_view step);
void say(const LoopContext& hooks, const std::string& line);
std::string iter_name(int i);

// The catalog methods a kernel declares switches for and that are on under `defines`.
std::vector<spec::MethodSwitch> switches_on(const std::filesystem::path& kernel, const Defines& defines);

// The JSON file of a step: read it when an earlier run wrote it, else produce and write it.
template <typename Produce>
nlohmann::json once(const std::filesystem::path& file, const LoopContext& hooks, std::string_view step, Produce produce) {
  if (path_exists(file)) return read_json(file);
  nlohmann::json document = produce();
  write_json(file, document);
  step_done(hooks, step);
  return document;
}

// The same for a versioned run document (run_documents.hpp): stamped with `schema` when
// written, and checked against it when an earlier run wrote it.
template <typename Produce>
nlohmann::json once(const std::filesystem::path& file, std::string_view schema, const LoopContext& hooks,
                    std::string_view step, Produce produce) {
  if (path_exists(file)) {
    nlohmann::json document = read_json(file);
    require_schema(document, schema, file);
    return document;
  }
  nlohmann::json document = with_schema(schema, produce());
  write_json(file, document);
  step_done(hooks, step);
  return document;
}

nlohmann::json measurement_json(const std::vector<Variant>& variants, const Measurement& m);
std::vector<VariantOutcome> outcomes_of(const nlohmann::json& document);

// What a step cost (iteration.json's time.stages): from construction to finish(), its wall
// time and the time during which a compile or a GPU worker ran, over `candidates` variants.
class StepCost {
 public:
  StepCost(const Lab& lab, const Clock& clock) : lab_(lab), wall_(clock), before_(lab.process_times()) {}
  nlohmann::json finish(std::size_t candidates) const;

 private:
  const Lab& lab_;
  Stopwatch wall_;
  ProcessTimes before_;
};

struct Branch {
  std::string name;
  Variant variant;  // kernel relative to the run
  bool own_kernel = false;
  std::vector<std::string> methods;             // what it claims: its own methods.json, else the iteration's
  bool own_methods = false;                     // from bK/methods.json
  std::map<std::string, std::string> retries;   // a method tried before → what changed
  std::string label;                            // for people: its content hash or defines, and its methods
};

// ---- close_gpu.cpp ----

// One entry of state.json's "gpus": the GPU, since which iteration, and the baseline there.
nlohmann::json gpu_record(const nlohmann::json& gpu, int since_iteration, double baseline_median_s);
// A measurement of iteration `i` ran on `measured_on`. When that is not the run's GPU (a run
// resumed on another machine), the baseline and the best are measured again there,
// interleaved (iterN/rebaseline_<uuid>.json, once), and `state` takes their medians and the
// new GPU before any speedup is stated: a speedup never divides times of two GPUs.
void follow_gpu(Lab& lab, const RunFolder& run, int i, RunState& state, const nlohmann::json& measured_on,
                const LoopContext& hooks);

// ---- close_branches.cpp ----

// "kernel.cu 1a2b3c4d [memory.coalescing]", "BM=128 BN=64": what a branch is, for kopt.log,
// iteration.json and the summary's frontier (a rewritten kernel has no defines to tell it by).
std::string branch_label(const Branch& branch, const std::filesystem::path& kernel);
// The branches a driver wrote, in natural order, each with its methods (its own
// bK/methods.json, else the iteration's methods.json), every file checked against the
// catalog's rules for `inputs`: input_error naming each violation, or a missing file.
std::vector<Branch> read_branches(const RunFolder& run, int i, const RunState& state,
                                  const std::optional<catalog::PlanInputs>& inputs);
// Every method some branch claims, in the order first claimed.
std::vector<std::string> claimed_methods(const std::vector<Branch>& branches);
// {"method id": "what changed"} over every branch that claims a method again.
nlohmann::json retries_of(const std::vector<Branch>& branches);

// ---- close_screen.cpp ----

// The branches the first look promotes to the full check, as indexes into its outcomes (1 =
// its first branch): those that passed within `within` of the best's median, fastest first,
// at most `limit`.
std::vector<std::size_t> promising(const std::vector<VariantOutcome>& looked, std::size_t limit, double within);

// The staged screen: a first look at every branch not in the result cache (when there are more
// than can be promoted), then the full check and interleaved timing against the best of the
// promising ones; cached outcomes reused.
nlohmann::json screen_branches(Lab& lab, const RunFolder& run, int i, const RunState& state, const Variant& best,
                               const std::vector<Branch>& branches, const LoopContext& context);

// ---- close_finals.cpp ----

// Indexes into the screen's outcomes (1 = the first branch) of the fastest passing branches
// that beat the best's median, fastest first, at most `count`.
std::vector<std::size_t> pick_finalists(const std::vector<VariantOutcome>& screen, int count);
// The finalists re-measured interleaved with the best (finals.json's document).
nlohmann::json measure_finals(Lab& lab, const RunFolder& run, int i, const Variant& best,
                              const std::vector<Branch>& branches, const std::vector<std::size_t>& finalists,
                              const Clock& clock);
// Index into the finals' outcomes of the champion, if any finalist is faster than the best.
std::optional<std::size_t> pick_champion(const std::vector<VariantOutcome>& finals);

// ---- close_champion.cpp ----

// implementation_failed | not_ablated | effective | ineffective
std::string classify(const std::string& sass_status, const std::optional<VariantOutcome>& ablated);
nlohmann::json ablate(Lab& lab, const RunFolder& run, int i, const Variant& champion,
                      const std::vector<std::string>& methods, const nlohmann::json& sass, const Clock& clock);

// The switches the champion declares and has on that its branch did not claim, each with its
// status: kept (effective before), refused (the violations claiming it would have met) or
// unclaimed. Neither ablated nor classed: they are not the iteration's methods.
nlohmann::json unclaimed_switches(const std::vector<spec::MethodSwitch>& on, const Branch& branch,
                                  const std::optional<catalog::PlanInputs>& inputs);

struct ChampionSteps {
  std::optional<std::string> name;  // the branch that won; none: no champion
  nlohmann::json ablation;          // ablation.json's document, or null
};
// The champion's copy, profile, SASS check and ablation, each once. The methods checked and
// ablated are the champion's own claims, which the validator accepted (`inputs`: the
// iteration's evidence); its other switches that are on go to ablation.json's "unclaimed".
ChampionSteps champion_steps(Lab& lab, const RunFolder& run, int i, const std::vector<Branch>& branches,
                             const std::vector<std::size_t>& finalists, const nlohmann::json& finals,
                             const std::optional<catalog::PlanInputs>& inputs, const LoopContext& hooks);

// ---- close_conclude.cpp ----

// The best the next iteration starts from when the ablation found harmful methods (taking
// them out made the champion significantly faster): the champion with each harmful method's
// switch at 0, or, for a lone harmful method the driver ablated with its own kernel, that
// kernel. Its median is the ablation's measurement of it when one method was switched off,
// else the champion's (several were never measured together). Null when none was harmful
// or none can be switched off.
nlohmann::json switch_off_harmful(const RunFolder& run, const nlohmann::json& ablation, double champion_median);

nlohmann::json evidence_summary(const std::filesystem::path& dir);
nlohmann::json time_spent(double wall, const ProcessTimes& processes, std::size_t branches);
// The stages' costs (first look, full check, finals, ablation), from their documents' "cost".
nlohmann::json stage_costs(const RunFolder& run, int i, const nlohmann::json& screen, const nlohmann::json& finals,
                           const nlohmann::json& ablation);
nlohmann::json conclude(const RunFolder& run, int i, const RunState& state, const std::vector<Branch>& branches,
                        const std::vector<std::string>& methods, const nlohmann::json& screen,
                        const nlohmann::json& finals, const std::optional<std::string>& champion_name,
                        const nlohmann::json& ablation, const nlohmann::json& time);

}  // namespace kopt::loop
