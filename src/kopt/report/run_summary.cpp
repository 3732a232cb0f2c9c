#include "kopt/report/run_summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <limits>

#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"
#include "kopt/report/iteration_text.hpp"
#include "kopt/spec/problem_spec.hpp"
#include "kopt/spec/problem_work.hpp"

namespace kopt::report {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

json file_or_null(const fs::path& file) { return path_exists(file) ? loop::read_json(file) : json(nullptr); }

std::string defines_text(const json& defines) {
  std::string text;
  for (const auto& [name, value] : defines.items()) text += (text.empty() ? "" : " ") + name + "=" + value.get<std::string>();
  return text.empty() ? "(defaults)" : text;
}

std::string gaps_text(const json& evidence) {
  if (evidence.is_null() || !evidence.contains("gaps")) return "–";
  const json& g = evidence["gaps"];
  return fmt::format("{:.0f} / {:.0f} / {:.0f} %", 100 * g.value("compute", 0.0), 100 * g.value("memory", 0.0),
                     100 * g.value("latency", 0.0));
}

std::string device_name(const json& env) {
  if (!env.is_object() || !env.contains("device") || !env["device"].is_object()) return "";
  return env["device"].value("name", "");
}

// 13000 -> "13.0": CUDA's encoding of a driver or runtime version (1000 × major + 10 × minor).
json cuda_version_text(const json& encoded) {
  if (!encoded.is_number_integer()) return nullptr;
  const int v = encoded.get<int>();
  return fmt::format("{}.{}", v / 1000, (v % 1000) / 10);
}

// Where and with what the run was measured, for the report's header: env.json's device and
// CUDA versions, and the kopt that measured the baseline (its kopt.bench report). Null
// fields where the run did not record them.
json run_environment(const loop::RunFolder& run, const json& env) {
  const json device = env.is_object() && env.contains("device") ? env["device"] : json::object();
  const json bench = file_or_null(run.baseline() / "baseline_bench.json");
  return {{"device", device_name(env).empty() ? json(nullptr) : json(device_name(env))},
          {"arch", device.value("arch", json())},
          {"sm_count", device.value("sm_count", json())},
          {"cuda_driver", cuda_version_text(device.value("driver_api_version", json()))},
          {"cuda_runtime", cuda_version_text(device.value("runtime_version", json()))},
          {"nvcc", env.is_object() ? env.value("nvcc", json()) : json()},
          {"kopt_version", bench.is_object() ? bench.value("kopt_version", json()) : json()}};
}

// {"name", "uuid"} of a GPU record (state.json's gpus, a measurement's gpu); null when unnamed.
json gpu_named(const json& gpu) {
  if (!gpu.is_object() || (gpu.value("uuid", "").empty() && gpu.value("name", "").empty())) return nullptr;
  return {{"name", gpu.value("name", "")}, {"uuid", gpu.value("uuid", "")}};
}

// The GPU iteration `i` measured on: the last of the run's GPUs it had moved to by then
// (state.json's gpus, each from its since_iteration); env.json's device for an older run.
json gpu_of_iteration(const loop::RunState& state, const json& env, int i) {
  json found;
  for (const json& g : state.gpus) {
    if (g.value("since_iteration", 0) <= i) found = gpu_named(g);
  }
  if (found.is_null() && env.is_object()) found = gpu_named(env.value("device", json()));
  return found;
}

// The champion's own median, from its branch's outcome: the source the frontier's medians
// come from, so that the roofline places every variant by the same measurement.
json champion_median(const json& iteration) {
  for (const json& b : iteration.at("branches")) {
    if (iteration.value("champion", json()) == b.at("name") && b.at("outcome").value("passed", false)) {
      return b.at("outcome").value("median_s", json());
    }
  }
  return nullptr;
}

// The 95 % interval of the median `median_s`, from the measurement that gave it: the
// baseline's, a champion's, an ablation's (a best with a harmful method switched off) or a
// re-measurement on another GPU. Null when none of them holds that median.
json ci_of_median(const loop::RunFolder& run, const loop::RunState& state, double median_s) {
  std::vector<fs::path> files = {run.baseline() / "bench.json"};
  for (const loop::IterationState& it : state.iterations) {
    files.push_back(run.champion(it.index) / "bench.json");
    files.push_back(run.iteration(it.index) / "ablation.json");
    for (const json& gpu : state.gpus) {
      files.push_back(run.iteration(it.index) / ("rebaseline_" + gpu.value("uuid", "") + ".json"));
    }
  }
  for (const fs::path& file : files) {
    if (const std::optional<json> o = outcome_with_median(file, median_s)) return o->value("median_ci_s", json());
  }
  return nullptr;
}

// FLOP and bytes per call of the timed case, from the spec's [work] formulas: where the
// branches stand on the roofline. Null when the spec is gone or has no formulas.
json spec_work(const loop::RunState& state) {
  try {
    if (!state.dims.empty()) return nullptr;  // the run's --dim values are not re-applied here
    const spec::Problem problem = spec::load_problem(state.kernel, state.spec, {});
    const spec::BoundCase* chosen = state.settings.timed_case.empty() ? &problem.cases.front()
                                                                      : problem.find_case(state.settings.timed_case);
    if (chosen == nullptr || !problem.spec.work.flops || !problem.spec.work.bytes) return nullptr;
    return {{"flops", spec::work_value(problem.spec.work.flops, *chosen)},
            {"bytes", spec::work_value(problem.spec.work.bytes, *chosen)}};
  } catch (const std::exception&) {
    return nullptr;
  }
}

// The final audit's verdicts (audit.json without its samples), when finalize wrote one for
// the run's present best; null otherwise.
json audit_summary(const loop::RunFolder& run, const loop::RunState& state) {
  const json audit = file_or_null(run.root() / "audit.json");
  if (audit.is_null() || audit.value("champion", json()) != json(state.best)) return nullptr;
  json out = {{"verdict", audit.at("verdict")}, {"timed_case", audit.at("timed_case")}, {"cases", json::array()},
              {"gpu", gpu_named(audit.value("gpu", json()))}};
  for (const json& c : audit.at("cases")) {
    json row = c;
    row.erase("measurement");
    if (c.at("case") == audit.at("timed_case")) out["timed"] = row;
    out["cases"].push_back(row);
  }
  return out;
}

// One closed iteration's rows of the summary's lists: its row, its methods (the ledger: what
// its branches claimed, nothing else), its losing branches (frontier), what was rejected, and
// the switches its champion had on without a claim (reported, never a method's result).
void add_iteration(const loop::RunFolder& run, const loop::IterationState& it, const json& gpu, json& summary) {
  const json doc = file_or_null(run.iteration(it.index) / "iteration.json");
  if (doc.is_null()) return;
  int passed = 0;
  for (const json& b : doc.at("branches")) {
    const json& o = b.at("outcome");
    if (o.contains("first_look_s") && !o.at("passed").get<bool>()) continue;  // correct, only not promising
    if (!o.at("passed").get<bool>()) {
      summary["rejected"].push_back({{"iteration", it.index}, {"what", b.at("name")}, {"why", o.at("failure")}});
      continue;
    }
    ++passed;
    if (doc.value("champion", json()) != b.at("name")) {
      summary["frontier"].push_back({{"iteration", it.index}, {"branch", b.at("name")}, {"defines", b.at("defines")},
                                     {"label", b.value("label", "")}, {"median_s", o.at("median_s")},
                                     {"versus_best", o.value("versus_first", json())}, {"gpu", gpu}});
    }
  }
  for (const json& m : doc.value("methods", json::array())) {
    json row = m;
    row["iteration"] = it.index;
    row["gpu"] = gpu;
    if (doc.contains("best_after")) {  // a harmful method was switched off in the next best
      const json& off = doc["best_after"].at("switched_off");
      row["switched_off"] = std::find(off.begin(), off.end(), m.at("id")) != off.end();
    }
    summary["ledger"].push_back(row);
    if (m.value("class", "") == "implementation_failed" || m.value("class", "") == "tried") {
      summary["rejected"].push_back({{"iteration", it.index}, {"what", m.at("id")},
                                     {"why", m.value("class", "") == "tried" ? m.value("reason", "") : "its SASS signature is absent"}});
    }
  }
  for (const json& u : doc.value("unclaimed", json::array())) {
    json row = u;
    row["iteration"] = it.index;
    summary["unclaimed"].push_back(row);
  }
  summary["iterations"].push_back({{"index", it.index}, {"verdict", doc.at("verdict")}, {"champion", doc.at("champion")},
                                   {"evidence_in", doc.at("evidence_in")}, {"methods_claimed", doc.at("methods_claimed")},
                                   {"branches", doc.at("branches").size()}, {"branches_passed", passed},
                                   {"best_before_s", doc.at("best_before").at("median_s")},
                                   {"best_after_s", it.best_median_s},
                                   {"champion_median_s", champion_median(doc)},
                                   {"speedup_vs_best", doc.value("speedup_vs_best", json())},
                                   {"speedup_vs_best_ci", doc.value("speedup_vs_best_ci", json())},
                                   {"champion_roofline", file_or_null(run.champion(it.index) / "profile" / "roofline.json")},
                                   {"elapsed_s", doc.value("elapsed_s", 0.0)},
                                   {"time", doc.value("time", json())}, {"gpu", gpu}});
}

}  // namespace

std::optional<json> outcome_with_median(const fs::path& file, double median_s) {
  const json doc = file_or_null(file);
  if (doc.is_null()) return std::nullopt;
  const json outcomes = doc.contains("outcomes") ? doc["outcomes"] : json::array({doc});
  for (const json& o : outcomes) {
    if (o.value("median_s", -1.0) == median_s) return o;
  }
  return std::nullopt;
}

std::string format_us(double seconds) { return fmt::format("{:.2f} µs", seconds * 1e6); }

// "not_verifiable" -> "not verifiable": the ledger is read by people.
std::string sass_status_text(std::string status) {
  std::replace(status.begin(), status.end(), '_', ' ');
  return status;
}

json run_summary(const loop::RunFolder& run) {
  const loop::RunState state = run.load();
  const json env = file_or_null(run.root() / "env.json");
  json summary = {{"schema", "kopt.summary/1"},
                  {"run", run.root().string()},
                  {"kernel", state.kernel.string()},
                  {"device", device_name(env)},
                  {"simulated", env.is_object() && env.value("simulated", false)},
                  {"environment", run_environment(run, env)},
                  {"created", state.created},
                  {"finished", state.finished},
                  {"stop_reason", state.stop_reason},
                  {"baseline_median_s", state.baseline_median_s},
                  {"best_median_s", state.best_median_s},
                  {"best", state.best},
                  {"best_iteration", state.best_iteration},
                  {"speedup_vs_baseline", state.baseline_median_s / state.best_median_s}};
  if (state.reference_median_s) {
    summary["reference_median_s"] = *state.reference_median_s;
    summary["speedup_vs_reference"] = *state.reference_median_s / state.best_median_s;
  }
  summary["baseline_median_ci_s"] = ci_of_median(run, state, state.baseline_median_s);
  summary["best_median_ci_s"] = ci_of_median(run, state, state.best_median_s);
  summary["gpus"] = state.gpus;
  // The GPU the baseline's and the best's medians are of: the run's last (a move re-measures both).
  summary["medians_gpu"] = gpu_of_iteration(state, env, std::numeric_limits<int>::max());
  summary["work"] = spec_work(state);
  summary["audit"] = audit_summary(run, state);
  const json baseline_roofline = file_or_null(run.baseline() / "profile" / "roofline.json");
  summary["baseline_roofline"] = baseline_roofline;
  for (const char* list : {"iterations", "ledger", "frontier", "rejected", "unclaimed"}) summary[list] = json::array();
  for (const loop::IterationState& it : state.iterations) add_iteration(run, it, gpu_of_iteration(state, env, it.index), summary);
  std::sort(summary["frontier"].begin(), summary["frontier"].end(),
            [](const json& a, const json& b) { return a.at("median_s").get<double>() < b.at("median_s").get<double>(); });
  return summary;
}

namespace {

// One line on kopt's own time per branch (iteration.json's "time"), when the run recorded it.
std::string loop_overhead_text(const json& iterations) {
  std::string per_iteration;
  for (const json& it : iterations) {
    if (!it.contains("time") || it.at("time").is_null()) continue;
    const json& t = it.at("time");
    per_iteration += fmt::format("{}iteration {}: {:.3f} s ({:.1f} s of {:.1f} s, compiles {:.1f} s, GPU workers {:.1f} s)",
                                 per_iteration.empty() ? "" : "; ", it.at("index").get<int>(),
                                 t.at("kopt_s_per_branch").get<double>(), t.at("kopt_s").get<double>(),
                                 t.at("wall_s").get<double>(), t.at("compile_s").get<double>(),
                                 t.at("device_s").get<double>());
  }
  if (per_iteration.empty()) return "";
  return "\nkopt's own time per branch (the close's wall time when no compile and no GPU worker ran): " +
         per_iteration + ".\n";
}

// Each iteration's stages (iteration.json's time.stages), a line each, when the run recorded them.
std::string stage_costs_text(const json& iterations) {
  std::string lines;
  for (const json& it : iterations) {
    if (!it.contains("time") || !it.at("time").is_object() || !it.at("time").contains("stages")) continue;
    lines += fmt::format("- iteration {}: {}\n", it.at("index").get<int>(), format_stage_costs(it.at("time").at("stages")));
  }
  if (lines.empty()) return "";
  return "\nWhat each iteration's stages cost (candidates, wall time, compiles and how many ran at once, GPU "
         "workers):\n\n" + lines;
}

// Which GPU the medians are of, and each GPU the run moved to (its baseline measured again there).
std::string gpus_text(const json& gpus) {
  if (gpus.size() < 2) return "";
  std::string text = "\nMeasured on more than one GPU; each move re-measured the baseline and the best there, so every "
                     "speedup divides times of one GPU:";
  for (const json& g : gpus) {
    text += fmt::format(" {} {} from iteration {} (baseline {});", g.value("name", ""), g.value("uuid", ""),
                        g.value("since_iteration", 0), format_us(g.value("baseline_median_s", 0.0)));
  }
  text.back() = '.';
  return text + "\n";
}

// "NVIDIA H100 80GB HBM3 GPU-1a2b…": a GPU as the summary names it; "–" when unknown.
std::string gpu_label(const json& gpu) {
  if (!gpu.is_object()) return "–";
  const std::string name = gpu.value("name", ""), uuid = gpu.value("uuid", "");
  return name.empty() ? uuid : uuid.empty() ? name : name + " " + uuid;
}

std::string uuid_of(const json& gpu) { return gpu.is_object() ? gpu.value("uuid", "") : ""; }

// Whether the summary's figures come from more than one GPU: the run moved, or the final audit
// was measured on another GPU than the medians. Then each table names the GPU of each row.
bool several_gpus(const json& s) {
  if (s.value("gpus", json::array()).size() > 1) return true;
  const json audit = s.value("audit", json());
  const std::string audited = audit.is_object() ? uuid_of(audit.value("gpu", json())) : "";
  const std::string medians = uuid_of(s.value("medians_gpu", json()));
  return !audited.empty() && !medians.empty() && audited != medians;
}

// A table's last column when the summary spans GPUs: " GPU |" in the header, the row's GPU.
std::string gpu_column(const json& s, const json& row) {
  return several_gpus(s) ? fmt::format(" {} |", gpu_label(row.value("gpu", json()))) : "";
}

// The method ledger: each claimed method of each iteration with its class; then the switches
// a champion had on without a claim, which are no method's result and so not in it.
std::string ledger_text(const json& s) {
  std::string md;
  md += "\n## Method ledger\n\nEach method a champion's branch claimed (and the plan's rules accepted), removed again (ablation): the time without it over the time "
        "with it, interleaved, with its 95 % interval. *effective*: removing it is significantly slower and its SASS "
        "signature is present; *ineffective*: no measurable effect; *harmful*: removing it is significantly faster, so "
        "it was switched off in the best that followed (*off* below); *implementation_failed*: its signature is "
        "absent; *tried*: no champion (or not the champion's), nothing attributed.\n\n";
  if (s.at("ledger").empty()) md += "No method was claimed or ablated.\n";
  else md += fmt::format("| iter | method | class | time without / with (95 % CI) | SASS | ablated by |{}\n"
                         "| --- | --- | --- | --- | --- | --- |{}\n", several_gpus(s) ? " GPU |" : "",
                         several_gpus(s) ? " --- |" : "");
  for (const json& m : s.at("ledger")) {
    std::string ratio = "–";
    if (m.contains("time_ratio_without")) {
      ratio = fmt::format("{:.3f} [{:.3f}, {:.3f}]", m.at("time_ratio_without").get<double>(),
                          m.at("time_ratio_without_ci").at(0).get<double>(), m.at("time_ratio_without_ci").at(1).get<double>());
    }
    md += fmt::format("| {} | {} | {}{} | {} | {} | {} |{}\n", m.at("iteration").get<int>(), m.at("id").get<std::string>(),
                      m.value("class", "–"), m.value("switched_off", false) ? " (off)" : "", ratio, sass_status_text(m.value("sass", "–")),
                      m.contains("ablation") && m["ablation"].is_string() ? m["ablation"].get<std::string>() : "–",
                      gpu_column(s, m));
  }

  const json unclaimed = s.value("unclaimed", json::array());
  if (unclaimed.empty()) return md;
  md += "\nSwitches a champion declares and has on but its branch did not claim: not ablated, not classed, not in the "
        "ledger or the history (a declared switch is no way around the plan's budget and skip rules; claim it to "
        "have it measured).\n\n";
  for (const json& u : unclaimed) {
    std::string why = u.value("reason", "");
    for (const json& v : u.value("refused_by", json::array())) why += (why.empty() ? "" : "; ") + v.get<std::string>();
    md += fmt::format("- iter {}: {} (`{}`): {}{}\n", u.at("iteration").get<int>(), u.at("id").get<std::string>(),
                      u.value("macro", ""), u.at("status").get<std::string>(), why.empty() ? "" : " — " + why);
  }
  return md;
}

// Which GPU the audit measured on, and a warning when it is not the GPU of the medians beside it
// (an audit kept from before the run moved: finalize measures it again on the run's GPU).
std::string audit_gpu_text(const json& s) {
  const json gpu = s.at("audit").value("gpu", json());
  if (!gpu.is_object()) return "";
  std::string text = fmt::format(" Audited on {}.", gpu_label(gpu));
  const json medians = s.value("medians_gpu", json());
  if (!uuid_of(gpu).empty() && !uuid_of(medians).empty() && uuid_of(gpu) != uuid_of(medians)) {
    text += fmt::format(" **Not the GPU of the medians below ({})**: the audit's ratio and theirs were measured on "
                        "different GPUs.", gpu_label(medians));
  }
  return text;
}

// The iterations table: one row per closed iteration (a GPU column when the run spans GPUs).
std::string iterations_text(const json& s) {
  std::string md = fmt::format(
      "## Iterations\n\n| iter | bound going in | gaps compute / memory / latency | methods | branches passed | champion "
      "| speedup vs best (95 % CI) | verdict | time |{}\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |{}\n",
      several_gpus(s) ? " GPU |" : "", several_gpus(s) ? " --- |" : "");
  for (const json& it : s.at("iterations")) {
    std::string methods;
    for (const json& id : it.at("methods_claimed")) methods += (methods.empty() ? "" : ", ") + id.get<std::string>();
    const json& ev = it.at("evidence_in");
    std::string speedup = "–";
    if (!it.at("speedup_vs_best").is_null()) {
      speedup = fmt::format("{:.3f}× [{:.3f}, {:.3f}]", it.at("speedup_vs_best").get<double>(),
                            it.at("speedup_vs_best_ci").at(0).get<double>(), it.at("speedup_vs_best_ci").at(1).get<double>());
    }
    md += fmt::format("| {} | {} | {} | {} | {} / {} | {} | {} | {} | {:.1f} s |{}\n", it.at("index").get<int>(),
                      ev.is_null() ? "–" : ev.value("bound", "–"), gaps_text(ev), methods.empty() ? "–" : methods,
                      it.at("branches_passed").get<int>(), it.at("branches").get<std::size_t>(),
                      it.at("champion").is_null() ? "–" : it.at("champion").get<std::string>(), speedup,
                      it.at("verdict").get<std::string>(), it.at("elapsed_s").get<double>(), gpu_column(s, it));
  }
  return md;
}

}  // namespace

std::string audit_headline(const json& s) {
  const json audit = s.value("audit", json());
  if (audit.is_null()) {
    return fmt::format("**{:.2f}× faster than the baseline** (not audited: a ratio of medians measured apart; "
                       "`kopt finalize` times the two interleaved)", s.at("speedup_vs_baseline").get<double>());
  }
  if (!audit.contains("timed")) return fmt::format("**Final audit: {}** (the best is the baseline).", audit.at("verdict").get<std::string>());
  const json& t = audit.at("timed");
  if (!t.contains("speedup")) return fmt::format("**Final audit: {}**.", t.at("verdict").get<std::string>());
  std::size_t faster = 0, same = 0;
  for (const json& c : audit.at("cases")) {
    faster += c.at("verdict") == "faster" ? 1 : 0;
    same += c.at("verdict") == "same" ? 1 : 0;
  }
  const std::string same_part = same > 0 ? fmt::format(", the same on {}", same) : "";
  return fmt::format("**Final audit: {:.3f}× the baseline's speed [{:.3f}, {:.3f}], {}** on case {} (the champion and "
                     "the original baseline timed interleaved: the median of {} per-round time ratios, 95 % bootstrap "
                     "interval); faster on {} of {} cases{}, verdict over all: {}.{}",
                     t.at("speedup").get<double>(), t.at("speedup_ci").at(0).get<double>(),
                     t.at("speedup_ci").at(1).get<double>(), t.at("verdict").get<std::string>(),
                     t.at("case").get<std::string>(), t.at("rounds").get<std::size_t>(), faster,
                     audit.at("cases").size(), same_part, audit.at("verdict").get<std::string>(), audit_gpu_text(s));
}

std::string format_run_summary(const json& s) {
  std::string md = fmt::format("# kopt run: {}\n\n", fs::path(s.at("kernel").get<std::string>()).filename().string());
  md += fmt::format("Kernel `{}` on {}; run started {}; {}.\n\n", s.at("kernel").get<std::string>(),
                    s.at("device").get<std::string>().empty() ? "an unnamed device" : s.at("device").get<std::string>(),
                    s.at("created").get<std::string>(),
                    s.at("finished").get<bool>() ? "finished (" + s.at("stop_reason").get<std::string>() + ")" : "in progress");
  // A dry run's figures look like measured ones; the reader is told before the first of them.
  if (s.value("simulated", false)) {
    md += "**Simulated:** every time, profile and verdict below came from a lab model (`--simulate`), not from a "
          "GPU. The same loop, statistics and files as a real run; none of its numbers is a measurement.\n\n";
  }
  md += audit_headline(s) + "\n\n";
  md += fmt::format("Medians of separate measurements (the baseline's at init, the best's where it won) on {}: {} → {} "
                    "({:.2f}×, per `solve` call)", gpu_label(s.value("medians_gpu", json())),
                    format_us(s.at("baseline_median_s")), format_us(s.at("best_median_s")),
                    s.at("speedup_vs_baseline").get<double>());
  if (s.contains("speedup_vs_reference")) {
    md += fmt::format("; **{:.2f}× the reference** ({})", s.at("speedup_vs_reference").get<double>(),
                      format_us(s.at("reference_median_s")));
  }
  const json& best = s.at("best");
  md += fmt::format(".\nBest: `{}` with {} (iteration {}).\n\n", best.at("kernel").get<std::string>(),
                    defines_text(best.at("defines")), s.at("best_iteration").get<int>());
  md += gpus_text(s.value("gpus", json::array()));
  if (!several_gpus(s) && s.value("medians_gpu", json()).is_object()) {
    md += fmt::format("Every measurement below was made on {}.\n\n", gpu_label(s.at("medians_gpu")));
  }
  md += iterations_text(s);

  md += loop_overhead_text(s.at("iterations"));
  md += stage_costs_text(s.at("iterations"));

  md += ledger_text(s);

  md += "\n## Frontier\n\nBranches that passed but did not win, fastest first (their time against the best of their "
        "iteration).\n\n";
  if (s.at("frontier").empty()) md += "None.\n";
  else md += fmt::format("| iter | branch | what (content hash, defines, methods) | median | vs best |{}\n"
                         "| --- | --- | --- | --- | --- |{}\n", several_gpus(s) ? " GPU |" : "", several_gpus(s) ? " --- |" : "");
  std::size_t shown = 0;
  for (const json& f : s.at("frontier")) {
    if (++shown > 15) break;
    const json& v = f.at("versus_best");
    md += fmt::format("| {} | {} | {} | {} | {} |{}\n", f.at("iteration").get<int>(), f.at("branch").get<std::string>(),
                      f.value("label", "").empty() ? defines_text(f.at("defines")) : f.at("label").get<std::string>(),
                      format_us(f.at("median_s")),
                      v.is_null() ? "–" : fmt::format("{} ({:.3f}×)", v.at("verdict").get<std::string>(), v.at("ratio").get<double>()),
                      gpu_column(s, f));
  }
  md += "\n## Rejected\n\n";
  if (s.at("rejected").empty()) md += "Nothing.\n";
  for (const json& r : s.at("rejected")) {
    md += fmt::format("- iter {}: {}: {}\n", r.at("iteration").get<int>(), r.at("what").get<std::string>(),
                      r.at("why").get<std::string>());
  }
  return md;
}

json write_run_summary(const loop::RunFolder& run) {
  json summary = run_summary(run);
  write_file_atomic(run.root() / "summary.md", format_run_summary(summary));
  loop::write_json(run.root() / "summary.json", summary);
  return summary;
}

}  // namespace kopt::report
