#include "kopt/workload/workload_documents.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace kopt::workload {
namespace {

using nlohmann::json;

std::string interval(const json& v) {
  return fmt::format("{:.4f} [{:.4f}, {:.4f}]", v.at("median_ratio").get<double>(), v.at("low").get<double>(),
                     v.at("high").get<double>());
}

std::string gain_text(const json& v) {
  const double r = v.at("median_ratio"), low = v.at("low"), high = v.at("high");
  return fmt::format("{:.3f}x [{:.3f}, {:.3f}]", 1 / r, high > 0 ? 1 / high : 0.0, low > 0 ? 1 / low : 0.0);
}

std::string metric(const json& doc) { return doc.at("primary").at("metric"); }

// Text in a Markdown table's cell: a reason quoting a command's output may hold a pipe.
std::string cell(std::string text) {
  std::ranges::replace(text, '|', '/');
  return text;
}

std::string candidate_row(const json& c) {
  const std::string status = c.value("status", "not_run");
  if (!c.contains("primary")) {
    return fmt::format("| {} | {} | {} | — | — | {} |\n", cell(c.at("name")), status, c.value("gate", "none"),
                       cell(c.value("reason", c.value("not_champion_because", ""))));
  }
  std::string constraints;
  for (const json& k : c.at("constraints")) {
    constraints += fmt::format("{}{} {} ({})", constraints.empty() ? "" : "; ", k.at("metric").get<std::string>(),
                               k.at("status").get<std::string>(), interval(k.at("ratio")));
  }
  return fmt::format("| {} | {} | {} | {} → **{}** | {} | {} |\n", c.at("name").get<std::string>(), status,
                     c.value("gate", "none"), gain_text(c.at("primary")), c.at("primary").at("verdict").get<std::string>(),
                     constraints.empty() ? "—" : constraints, cell(c.value("not_champion_because", "champion")));
}

std::string resolution_section(const json& doc) {
  if (!doc.contains("resolution")) return "";
  const json& r = doc.at("resolution");
  return fmt::format(
      "## The original alone (the resolution)\n\n{} runs: median {} {:g}, relative spread {:.2f} % (stdev) / {:.2f} % "
      "(MAD); the median's {:.0f} % interval is ±{:.2f} %: {} the minimum effect of {:.1f} %.\n\n",
      r.at("runs").get<int>(), metric(doc), r.at("median").get<double>(), 100 * r.at("relative_stdev").get<double>(),
      100 * r.at("relative_mad").get<double>(), 100 * doc.at("level").get<double>(), 100 * r.at("half_width").get<double>(),
      r.at("resolves_min_effect").get<bool>() ? "it resolves" : "**too coarse to resolve**",
      100 * doc.at("primary").at("min_effect").get<double>());
}

std::string candidates_section(const json& doc) {
  std::string out = fmt::format("## Candidates\n\nEach gain is the median over paired rounds of original / candidate on {} "
                                "(the candidate's own terms: above 1 is better), with its {:.0f} % interval.\n\n"
                                "| candidate | status | gate | gain → verdict | constraints | champion? |\n"
                                "| --- | --- | --- | --- | --- | --- |\n",
                                metric(doc), 100 * doc.at("level").get<double>());
  for (const json& c : doc.value("candidates", json::array())) out += candidate_row(c);
  return out + "\n";
}

std::string audit_section(const json& doc) {
  if (!doc.contains("audit")) return "";
  const json& a = doc.at("audit");
  if (!a.contains("primary")) {
    return fmt::format("## Final audit\n\n{}: {}\n\n", a.value("status", "?"), a.value("reason", ""));
  }
  return fmt::format("## Final audit\n\n{} against the original, {} fresh paired rounds (a fixed number, no early stop): "
                     "{} → **{}**, {}.\n\n",
                     a.at("champion").get<std::string>(), a.at("rounds").get<int>(), gain_text(a.at("primary")),
                     a.at("primary").at("verdict").get<std::string>(), a.at("status").get<std::string>());
}

std::string record_section(const json& doc) {
  const json& d = doc.at("drift");
  const json& i = doc.at("interference");
  const json& g = doc.at("original_gate");
  std::string out = fmt::format(
      "## Drift and interference\n\nThe original's own trend over {} runs: {:+.2f} % from first to last (Theil–Sen), "
      "Kendall's τ {:.2f}, p = {:.3f}{}.\n\n"
      "{} runs in all ({:.0f} s of workload time); {} with another process on the GPU, {} where the GPU could not be asked, "
      "{} with the host's load above its CPUs (highest load {:.2f}).\n\n",
      d.at("runs").get<int>(), 100 * d.at("session_change").get<double>(), d.at("kendall_tau").get<double>(),
      d.at("p_value").get<double>(),
      d.at("significant").get<bool>() ? ": **a significant drift**; the paired order cancels a linear drift, but "
                                        "re-run on a quieter machine before trusting a small gain"
                                      : "",
      i.at("runs").get<int>(), doc.at("run_seconds").get<double>(), i.at("runs_with_other_gpu_processes").get<int>(),
      i.at("runs_gpu_unknown").get<int>(), i.at("runs_host_overloaded").get<int>(), i.at("max_load_average").get<double>());
  if (g.at("failed").get<int>() > 0) {
    out += fmt::format("**The original failed its own accuracy gate** in {} of {} runs ({}): the gate is tighter than the "
                       "workload's own run-to-run variation, so a candidate's rejection may say nothing.\n\n",
                       g.at("failed").get<int>(), g.at("failed").get<int>() + g.at("passed").get<int>(),
                       g.at("first_failure").get<std::string>());
  }
  return out;
}

std::string prediction_section(const json& doc) {
  if (!doc.contains("prediction")) return "";
  const json& p = doc.at("prediction").at("predicted");
  std::string out = fmt::format(
      "## Predicted against measured\n\nThe trace gives the replaced kernels ({}) {:.1f} % of the traced time ({} calls, "
      "{:.3g} of {:.3g} s); at the kernel's own speedup of {:.3f}x, Amdahl predicts a cost ratio of {:.4f} ({:.3f}x).\n\n",
      fmt::join(p.at("matched_kernels").get<std::vector<std::string>>(), ", "), 100 * p.at("replaced_share").get<double>(),
      p.at("replaced_calls").get<int>(), p.at("replaced_seconds").get<double>(), p.at("traced_seconds").get<double>(),
      p.at("kernel_speedup").get<double>(), p.at("predicted_ratio").get<double>(), p.at("predicted_gain").get<double>());
  if (doc.at("prediction").contains("reconciliation")) {
    const json& r = doc.at("prediction").at("reconciliation");
    out += fmt::format("**{}**: {}.\n\n", r.at("agreement").get<std::string>(), r.at("explanation").get<std::string>());
  }
  return out;
}

}  // namespace

std::string claim_of(const json& doc) {
  const std::string status = doc.value("status", "");
  if (status == "original_failed") return "no claim: " + doc.value("failure", "the original failed");
  if (doc.at("champion").is_null()) {
    return status == "budget_spent" ? "no claim: the budget ran out before a candidate was shown better"
                                    : "no claim: no candidate was shown better under the constraints; the original stays";
  }
  if (!doc.contains("audit") || !doc.at("audit").contains("primary")) {
    return fmt::format("no claim yet: {} was better in its comparison, but the final audit did not run", doc.at("champion").get<std::string>());
  }
  const json& a = doc.at("audit");
  if (a.at("status") != "confirmed") {
    return fmt::format("no claim: the final audit did not confirm {} ({})", a.at("champion").get<std::string>(), a.value("reason", ""));
  }
  return fmt::format("{} makes {} {} better (audited, {} paired rounds, each run a fresh process)",
                     a.at("champion").get<std::string>(), metric(doc), gain_text(a.at("primary")), a.at("rounds").get<int>());
}

std::string format_workload_summary(const json& doc) {
  std::string out = fmt::format("# Workload {}: {}\n\n", doc.at("workload").get<std::string>(), doc.at("claim").get<std::string>());
  const json& env = doc.at("freeze").at("environment");
  std::string gpus;
  for (const json& gpu : env.value("gpus", json::array())) {
    gpus += fmt::format("{}{} ({}, driver {})", gpus.empty() ? "" : "; ", gpu.at("name").get<std::string>(),
                        gpu.at("uuid").get<std::string>(), gpu.at("driver").get<std::string>());
  }
  out += fmt::format("Measured on {}; clocks {}. Primary metric: {} ({} is better), minimum effect {:.1f} %. Session status: {}.\n\n",
                     gpus.empty() ? "a machine whose GPU could not be asked" : gpus, env.value("clocks_policy", "?"), metric(doc),
                     doc.at("primary").at("direction").get<std::string>(), 100 * doc.at("primary").at("min_effect").get<double>(),
                     doc.at("status").get<std::string>());
  return out + resolution_section(doc) + candidates_section(doc) + audit_section(doc) + prediction_section(doc) +
         record_section(doc);
}

std::string format_workload_handoff(const json& doc) {
  std::string out = fmt::format("# Handoff: workload {}\n\n**State**: {}. **Claim**: {}.\n\n",
                                doc.at("workload").get<std::string>(), doc.at("status").get<std::string>(),
                                doc.at("claim").get<std::string>());
  out += "## What was tried\n\n";
  for (const json& c : doc.value("candidates", json::array())) {
    out += fmt::format("- **{}** ({}): {}\n", c.at("name").get<std::string>(), c.value("status", "not_run"),
                       c.contains("primary") ? fmt::format("{} → {}; {}", gain_text(c.at("primary")),
                                                           c.at("primary").at("verdict").get<std::string>(),
                                                           c.value("not_champion_because", "champion"))
                                             : c.value("reason", "not measured"));
  }
  out += "\n## Open questions\n\n";
  if (doc.at("drift").at("significant").get<bool>()) out += "- The original drifted during the session: re-run it on a quieter machine.\n";
  if (doc.contains("prediction") && doc.at("prediction").contains("reconciliation") &&
      doc.at("prediction").at("reconciliation").at("agreement") != "agree") {
    out += "- The prediction missed: " + doc.at("prediction").at("reconciliation").at("explanation").get<std::string>() + ".\n";
  }
  out += fmt::format("\n## Resume\n\n`kopt workload {} --session {}` runs what is left (the journal keeps every finished run); "
                     "`--fresh` starts a new session.\n",
                     doc.at("freeze").value("spec_file", "workload.toml"), doc.at("session").get<std::string>());
  return out;
}

std::string format_workload_brief(const json& doc) {
  std::string out = fmt::format("workload {}: {}\n", doc.at("workload").get<std::string>(), doc.at("claim").get<std::string>());
  for (const json& c : doc.value("candidates", json::array())) {
    out += fmt::format("  {:<20} {}\n", c.at("name").get<std::string>(),
                       c.contains("primary") ? fmt::format("{} {} ({} rounds)", gain_text(c.at("primary")),
                                                           c.at("primary").at("verdict").get<std::string>(),
                                                           c.at("rounds").get<int>())
                                             : c.value("status", "not_run") + ": " + c.value("reason", ""));
  }
  return out + fmt::format("  summary: {}/summary.md\n", doc.at("session").get<std::string>());
}

}  // namespace kopt::workload
