#include "kopt/report/handoff.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <utility>

#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"
#include "kopt/loop/experiment_record.hpp"
#include "kopt/loop/run_loop.hpp"
#include "kopt/report/run_summary.hpp"

namespace kopt::report {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

std::string defines_text(const json& defines) {
  std::string text;
  for (const auto& [name, value] : defines.items()) text += (text.empty() ? "" : " ") + name + "=" + value.get<std::string>();
  return text.empty() ? "(defaults)" : text;
}

// The branch's record as the handoff quotes it; null without a valid one.
json record_json(const loop::RunFolder& run, int iteration, const std::string& branch) {
  const auto record = loop::experiment_record_if_any(run.branches(iteration) / branch);
  if (!record) return nullptr;
  return {{"hypothesis", record->hypothesis}, {"expected_gain_percent", {record->expected_gain_low, record->expected_gain_high}},
          {"cost", record->cost}};
}

// Percent faster than the best it was screened against: (1 / time ratio - 1) × 100.
json measured_gain_percent(const json& outcome) {
  const json versus = outcome.value("versus_first", json());
  if (versus.is_null()) return nullptr;
  return (1 / versus.at("ratio").get<double>() - 1) * 100;
}

// Why a branch that passed did not win, in the screen's words against the best of its iteration.
std::string lost_because(const json& versus) {
  if (versus.is_null()) return "not compared with the best";
  const std::string verdict = versus.at("verdict").get<std::string>();
  const std::string against = verdict == "faster"   ? "faster than the best at the screen, yet not the champion"
                              : verdict == "slower" ? "slower than the best"
                              : verdict == "same"   ? "the same speed as the best"
                                                    : "not distinguishable from the best";
  return fmt::format("{} ({:.3f}× its time)", against, versus.at("ratio").get<double>());
}

// The kernel iteration `i` started from: the last champion before it (with its harmful methods
// switched off, where the ablation did), else the baseline's.
fs::path best_kernel_before(const loop::RunFolder& run, const loop::RunState& state, int i) {
  for (int j = i - 1; j >= 1; --j) {
    const fs::path file = run.iteration(j) / "iteration.json";
    if (!path_exists(file)) continue;
    const json doc = loop::read_json(file);
    if (doc.contains("best_after")) return run.absolute(doc["best_after"].at("variant").at("kernel").get<std::string>());
    if (doc.value("champion", json()).is_string()) return run.absolute(run.champion(j) / loop::kernel_file_like(state.kernel));
  }
  return run.absolute(state.baseline.kernel);
}

// Lines of `after` not in `before` and of `before` not in `after` (as multisets of lines): how
// much a rewritten kernel changed, without a diff tool.
std::pair<int, int> lines_changed(const std::string& before, const std::string& after) {
  std::map<std::string, int> count;
  auto lines = [](const std::string& text, const std::function<void(const std::string&)>& each) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) each(line);
  };
  lines(before, [&](const std::string& l) { ++count[l]; });
  int added = 0, removed = 0;
  lines(after, [&](const std::string& l) { count[l] > 0 ? --count[l] : ++added; });
  for (const auto& [line, left] : count) removed += left;
  return {added, removed};
}

// What a branch is, for people: a rewritten kernel by its label (content hash, methods) and how
// many lines it changed against the kernel its iteration started from; a -D branch by its
// defines. Never "(defaults)" for a rewritten kernel.
std::string branch_what(const loop::RunFolder& run, const loop::RunState& state, int iteration, const json& branch) {
  const fs::path own = run.branches(iteration) / branch.at("name").get<std::string>() / loop::kernel_file_like(state.kernel);
  if (!path_exists(own)) return defines_text(branch.at("defines"));
  const fs::path before = best_kernel_before(run, state, iteration);
  std::string what = branch.value("label", std::string(loop::kernel_file_like(state.kernel) + " (rewritten)"));
  if (path_exists(before)) {
    const auto [added, removed] = lines_changed(read_file(before), read_file(own));
    what += fmt::format(", rewritten: {} line(s) added, {} removed against the best it started from", added, removed);
  }
  return what;
}

// One branch of a closed iteration: what it tested, what was expected and what was measured.
json branch_entry(const loop::RunFolder& run, const loop::RunState& state, int iteration, const json& branch,
                  const json& champion) {
  const json& outcome = branch.at("outcome");
  json entry = {{"iteration", iteration}, {"branch", branch.at("name")}, {"defines", branch.at("defines")},
                {"what", branch_what(run, state, iteration, branch)},
                {"record", record_json(run, iteration, branch.at("name"))},
                {"won", champion == branch.at("name")}, {"passed", outcome.at("passed")}};
  if (!outcome.at("passed").get<bool>()) {
    entry["why"] = "failed: " + outcome.value("failure", std::string("(no cause recorded)"));
    return entry;
  }
  entry["measured_gain_percent"] = measured_gain_percent(outcome);
  const json versus = outcome.value("versus_first", json());
  entry["verdict_vs_best"] = versus.is_null() ? json("–") : versus.at("verdict");
  if (!entry["won"].get<bool>()) entry["why"] = lost_because(versus);
  return entry;
}

// A measured gain outside the range its record expected: the hypothesis or its implementation
// was wrong, and the handoff asks which.
std::optional<std::string> expectation_question(const json& entry) {
  if (entry.at("record").is_null() || !entry.contains("measured_gain_percent") || entry["measured_gain_percent"].is_null()) {
    return std::nullopt;
  }
  const double gain = entry["measured_gain_percent"].get<double>();
  const json& range = entry["record"]["expected_gain_percent"];
  if (gain >= range[0].get<double>() && gain <= range[1].get<double>()) return std::nullopt;
  const std::string question = gain > range[1].get<double>()
                                   ? "more than the hypothesis (\"{}\") accounts for: what else did the change do?"
                                   : "was the hypothesis (\"{}\") wrong, or its implementation?";
  return fmt::format("iter {} {}: expected {:.0f} to {:.0f} % faster, measured {:+.1f} %: {}", entry["iteration"].get<int>(),
                     entry["branch"].get<std::string>(), range[0].get<double>(), range[1].get<double>(), gain,
                     fmt::format(fmt::runtime(question), entry["record"]["hypothesis"].get<std::string>()));
}

void add_methods(const json& summary, json& worked, json& did_not, json& questions) {
  for (const json& m : summary.at("ledger")) {
    const std::string cls = m.value("class", "");
    json row = {{"iteration", m.at("iteration")}, {"method", m.at("id")}, {"class", cls}};
    if (m.contains("time_ratio_without")) row["time_ratio_without"] = m["time_ratio_without"];
    if (cls == "effective") worked.push_back(row);
    else if (cls == "not_ablated") questions.push_back(fmt::format("iter {}: {} was not ablated: what does it contribute?",
                                                                   m.at("iteration").get<int>(), m.at("id").get<std::string>()));
    else did_not.push_back(row);
  }
  for (const json& u : summary.value("unclaimed", json::array())) {
    if (u.value("status", "") == "kept") continue;  // measured in the iteration that kept it
    questions.push_back(fmt::format("iter {}: the champion's switch {} is on without a claim of {} ({}): not measured; "
                                    "claim it where the validator accepts it", u.at("iteration").get<int>(),
                                    u.value("macro", ""), u.at("id").get<std::string>(), u.at("status").get<std::string>()));
  }
}

}  // namespace

json run_handoff(const loop::RunFolder& run) {
  const loop::RunState state = run.load();
  const json summary = run_summary(run);
  json worked = json::array(), did_not = json::array(), questions = json::array();
  for (const loop::IterationState& it : state.iterations) {
    const fs::path file = run.iteration(it.index) / "iteration.json";
    if (!path_exists(file)) continue;
    const json doc = loop::read_json(file);
    for (const json& b : doc.at("branches")) {
      const json entry = branch_entry(run, state, it.index, b, doc.value("champion", json()));
      (entry["won"].get<bool>() ? worked : did_not).push_back(entry);
      if (auto q = expectation_question(entry)) questions.push_back(*q);
      if (entry.value("verdict_vs_best", "") == "ambiguous") {
        questions.push_back(fmt::format("iter {} {}: ambiguous against the best: worth measuring again?", it.index,
                                        b.at("name").get<std::string>()));
      }
      if (entry.at("record").is_null()) {
        questions.push_back(fmt::format("iter {} {}: no experiment record: what did it test?", it.index,
                                        b.at("name").get<std::string>()));
      }
    }
  }
  add_methods(summary, worked, did_not, questions);
  if (summary.at("audit").is_null() && state.best_iteration > 0) {
    questions.push_back("the speedup is not audited yet: kopt finalize times the champion against the baseline");
  }
  const json next = loop::next_step(run, state);
  const json plan = path_exists(run.iteration(state.current) / "plan.json")
                        ? loop::read_json(run.iteration(state.current) / "plan.json") : json();
  json planned = json::array();
  if (!state.finished && plan.is_object()) {
    const json axes = plan.value("axes", json::object());  // kept: items() refers to it
    for (const auto& [axis, entry] : axes.items()) {
      for (const json& m : entry.value("chosen", json::array())) planned.push_back(m.at("id"));
    }
  }
  return {{"run", run.root().string()}, {"kernel", state.kernel.string()},
          {"created", state.created}, {"finished", state.finished}, {"stop_reason", state.stop_reason},
          {"iteration", state.current}, {"iterations", state.settings.iterations},
          {"headline", audit_headline(summary)}, {"best", state.best}, {"best_iteration", state.best_iteration},
          {"best_median_s", state.best_median_s}, {"baseline_median_s", state.baseline_median_s},
          {"worked", worked}, {"did_not", did_not}, {"open_questions", questions}, {"next", next},
          {"planned_methods", planned}};
}

namespace {

std::string branch_line(const json& e) {
  std::string line = fmt::format("- iter {} {} ({})", e["iteration"].get<int>(), e["branch"].get<std::string>(),
                                 e.contains("what") ? e["what"].get<std::string>() : defines_text(e["defines"]));
  if (!e["record"].is_null()) {
    line += fmt::format(": \"{}\" — expected {:.0f} to {:.0f} %, cost: {}", e["record"]["hypothesis"].get<std::string>(),
                        e["record"]["expected_gain_percent"][0].get<double>(),
                        e["record"]["expected_gain_percent"][1].get<double>(), e["record"]["cost"].get<std::string>());
  }
  if (e.contains("measured_gain_percent") && !e["measured_gain_percent"].is_null()) {
    line += fmt::format("; measured {:+.1f} %", e["measured_gain_percent"].get<double>());
  }
  if (e.contains("why")) line += "; " + e["why"].get<std::string>();
  return line + "\n";
}

std::string method_line(const json& m) {
  std::string line = fmt::format("- iter {} method {}: {}", m["iteration"].get<int>(), m["method"].get<std::string>(),
                                 m["class"].get<std::string>());
  if (m.contains("time_ratio_without")) {
    line += fmt::format(" (without it: {:.3f}× the time)", m["time_ratio_without"].get<double>());
  }
  if (m["class"] == "implementation_failed") line += ": its SASS signature is absent from the champion";
  if (m["class"] == "ineffective") line += ": taking it out changed nothing measurable";
  return line + "\n";
}

std::string entries_text(const json& entries) {
  if (entries.empty()) return "Nothing yet.\n";
  std::string text;
  for (const json& e : entries) text += e.contains("branch") ? branch_line(e) : method_line(e);
  return text;
}

}  // namespace

std::string format_handoff(const json& h) {
  std::string md = fmt::format("# Handoff: {}\n\nRead this first when you take this run over; `kopt handoff {}` "
                               "writes it again from the run's files.\n\n## State\n\n",
                               fs::path(h["kernel"].get<std::string>()).filename().string(), h["run"].get<std::string>());
  md += fmt::format("- Run `{}`, kernel `{}`, started {}.\n", h["run"].get<std::string>(), h["kernel"].get<std::string>(),
                    h["created"].get<std::string>());
  md += h["finished"].get<bool>()
            ? fmt::format("- Finished ({}) after iteration {}.\n", h["stop_reason"].get<std::string>(), h["iteration"].get<int>())
            : fmt::format("- Iteration {} of at most {} is open ({}).\n", h["iteration"].get<int>(),
                          h["iterations"].get<int>(), h["next"].value("phase", "open"));
  md += "\n## Champion\n\n" + h["headline"].get<std::string>() + "\n\n";
  md += fmt::format("Best: `{}` with {} (iteration {}; {} per call, the baseline {}).\n", h["best"]["kernel"].get<std::string>(),
                    h["best"]["defines"].empty() ? "no -D values" : defines_text(h["best"]["defines"]),
                    h["best_iteration"].get<int>(), format_us(h["best_median_s"]),
                    format_us(h["baseline_median_s"]));
  md += "\n## What worked\n\n" + entries_text(h["worked"]);
  md += "\n## What did not, and why\n\n" + entries_text(h["did_not"]);
  md += "\n## Open questions\n\n";
  if (h["open_questions"].empty()) md += "None recorded.\n";
  for (const json& q : h["open_questions"]) md += "- " + q.get<std::string>() + "\n";
  // With --json, as the skill runs every command (the reader may be an agent following it).
  md += "\n## Next step\n\n" + fmt::format("Run `{} --json`", h["next"]["command"].get<std::string>());
  if (!h["next"].value("write", json::array()).empty()) {
    md += " after writing";
    for (const json& f : h["next"]["write"]) md += " `" + f.get<std::string>() + "`";
  }
  md += ".\n";
  if (!h["planned_methods"].empty()) {
    std::string ids;
    for (const json& id : h["planned_methods"]) ids += (ids.empty() ? "" : ", ") + id.get<std::string>();
    md += fmt::format("The plan for iteration {} calls for: {}.\n", h["iteration"].get<int>(), ids);
  }
  return md;
}

json write_handoff(const loop::RunFolder& run) {
  json handoff = run_handoff(run);
  write_file_atomic(run.root() / "handoff.md", format_handoff(handoff));
  return handoff;
}

}  // namespace kopt::report
