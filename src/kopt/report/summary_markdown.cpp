// summary.md: the summary document (run_summary) as Markdown for people: the headline, the
// medians, the iterations, the method ledger, the frontier and what was rejected.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include "kopt/core/units.hpp"
#include "kopt/report/iteration_text.hpp"
#include "kopt/report/run_summary.hpp"

namespace kopt::report {
namespace fs = std::filesystem;
using json = nlohmann::json;

std::string format_us(double seconds) { return fmt::format("{:.2f} µs", seconds * 1e6); }

namespace {

// "not_verifiable" -> "not verifiable": the ledger is read by people.
std::string sass_status_text(std::string status) {
  std::replace(status.begin(), status.end(), '_', ' ');
  return status;
}

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
  bool recorded = false;
  for (const json& it : iterations) {
    if (!it.contains("time") || !it.at("time").is_object() || !it.at("time").contains("stages")) continue;
    recorded = true;
    if (!stages_ran_processes(it.at("time").at("stages"))) continue;  // a simulated close: nothing but zeros to show
    lines += fmt::format("- iteration {}: {}\n", it.at("index").get<int>(), format_stage_costs(it.at("time").at("stages")));
  }
  if (recorded && lines.empty()) {
    return "\nWhat each iteration's stages cost: no compile and no GPU worker ran in any of them (a simulated run); "
           "each iteration.json keeps its stages' wall times.\n";
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

// Where the best stands in absolute terms, beside a speedup over a baseline that may be slow
// by design: its share of the ceilings the roofline draws (the spec's work over its median)
// and its speed against the reference's (a vendor library, often).
std::string standing_text(const json& s) {
  std::vector<std::string> parts;
  const json work = s.value("work", json()), roof = s.value("baseline_roofline", json());
  if (work.is_object() && roof.is_object() && roof.contains("peaks")) {
    const double best = s.at("best_median_s").get<double>();
    const json& peaks = roof.at("peaks");
    const double flops = work.at("flops").get<double>() / best, bytes = work.at("bytes").get<double>() / best;
    parts.push_back(fmt::format("{:.0f} % of the {} ceiling ({} of {})", 100 * flops / peaks.at("flop_per_second").get<double>(),
                                roof.value("compute_ceiling", "compute"), format_rate(flops, "FLOP/s"),
                                format_rate(peaks.at("flop_per_second").get<double>(), "FLOP/s")));
    parts.push_back(fmt::format("{:.0f} % of DRAM bandwidth", 100 * bytes / peaks.at("bytes_per_second").get<double>()));
  }
  if (s.contains("speedup_vs_reference")) {
    parts.push_back(fmt::format("{:.2f}× the reference's speed", s.at("speedup_vs_reference").get<double>()));
  }
  if (parts.empty()) return "";
  return fmt::format("**The best stands at {}.**\n\n", fmt::join(parts, "; "));
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
  md += standing_text(s);
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

  md += "\n## Frontier\n\nBranches that passed but did not win, fastest first (their speed against the best of their "
        "iteration, as a speedup like the iterations': below 1× slower).\n\n";
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
                      v.is_null() ? "–" : fmt::format("{} ({:.3f}×)", v.at("verdict").get<std::string>(), 1 / v.at("ratio").get<double>()),
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

}  // namespace kopt::report
