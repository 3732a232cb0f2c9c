#include "kopt/loop/close_steps.hpp"

#include <algorithm>

namespace kopt::loop {
namespace fs = std::filesystem;
using json = nlohmann::json;

// The finalists: the fastest passing branches of the screen that beat the best's median.
std::vector<std::size_t> pick_finalists(const std::vector<VariantOutcome>& screen, int count) {
  std::vector<std::size_t> order;
  for (std::size_t k = 1; k < screen.size(); ++k) {
    // Only a branch checked in full and timed to full precision: never one seen only at a first look.
    if (screen[k].passed && screen[k].stage.empty() && screen[k].median < screen[0].median) order.push_back(k);
  }
  std::ranges::stable_sort(order, [&](std::size_t a, std::size_t b) { return screen[a].median < screen[b].median; });
  if (order.size() > static_cast<std::size_t>(count)) order.resize(static_cast<std::size_t>(count));
  return order;
}

// The champion: of the finalists the re-measurement calls faster than the best, the one whose
// speedup is surest (the smallest upper bound of its time ratio). None when none is faster.
std::optional<std::size_t> pick_champion(const std::vector<VariantOutcome>& finals) {
  std::optional<std::size_t> champion;
  for (std::size_t k = 1; k < finals.size(); ++k) {
    const VariantOutcome& o = finals[k];
    if (!o.passed || !o.versus_first || o.versus_first->verdict != "faster") continue;
    if (!champion || o.versus_first->high < finals[*champion].versus_first->high) champion = k;
  }
  return champion;
}

json measure_finals(Lab& lab, const RunFolder& run, int i, const Variant& best, const std::vector<Branch>& branches,
                    const std::vector<std::size_t>& finalists, const Clock& clock) {
  const StepCost cost(lab, clock);
  std::vector<Variant> variants = {best};
  for (std::size_t k : finalists) variants.push_back(branches[k - 1].variant);
  if (variants.size() == 1) return json{{"variants", json::array()}, {"outcomes", json::array()}};
  std::vector<Variant> absolute;
  for (const Variant& v : variants) absolute.push_back(run.resolved(v));
  const Measurement m = lab.measure({.variants = absolute, .witness_ncu = true});
  if (!m.detail.is_null()) write_json(run.iteration(i) / "finals_bench.json", m.detail);
  json document = measurement_json(variants, m);
  document["cost"] = cost.finish(finalists.size());
  return document;
}

}  // namespace kopt::loop
