// kopt workload WORKLOAD: a workload experiment (docs/workloads.md): the workload frozen, the
// original measured, each candidate gated and compared in paired rounds of fresh processes,
// a champion by the primary metric under the constraints, a final audit; resumable.
#include <fmt/format.h>

#include <iostream>

#include "command.hpp"
#include "common_options.hpp"
#include "kopt/workload/workload_documents.hpp"
#include "kopt/workload/workload_session.hpp"

namespace kopt::cli {
namespace {

struct WorkloadConfig {
  std::string workload;
  std::string session;
  bool fresh = false;
  std::optional<double> budget_minutes;
  bool json = false;
};

int run_workload_command(const WorkloadConfig& config) {
  const workload::WorkloadSpec spec = workload::read_workload_spec(config.workload);
  CommonOptions common;
  common.json = config.json;
  Context context = context_of(common);
  workload::SessionHooks hooks{
      .environment = {context.runner, [&] { return workload::probe_interference(context.runner); }},
      .probe = [&](const workload::WorkloadSpec& s) { return workload::probe_environment(s, context.runner); },
      .log = [&](std::string_view line) {
        if (!config.json) std::cerr << "kopt: " << line << "\n";
      }};
  workload::SessionOptions options{
      .folder = config.session.empty() ? workload::default_session_folder(spec) : std::filesystem::path(config.session),
      .fresh = config.fresh,
      .budget_minutes = config.budget_minutes};
  const nlohmann::json doc = workload::run_workload_session(spec, options, hooks);
  std::cout << (config.json ? doc.dump(2) + "\n" : workload::format_workload_brief(doc));
  if (doc.at("status") == "original_failed") {
    std::cerr << "kopt: " << doc.value("failure", "the original failed") << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

Command workload_command() {
  return {"workload",
          "A workload experiment: the original and each candidate in paired runs of fresh processes, gated for accuracy, "
          "audited (resumable)",
          [](CLI::App& app) {
            auto config = std::make_shared<WorkloadConfig>();
            app.add_option("WORKLOAD", config->workload, "A workload.toml, or a folder holding one (docs/workloads.md)")
                ->required();
            app.add_option("--session", config->session,
                           "The session folder: journal, outputs, workload.json, summary.md, handoff.md "
                           "(default: WORKLOAD's folder/workload_session)")
                ->check(output_folder());
            app.add_flag("--fresh", config->fresh, "Set an existing session aside (renamed, kept) and start a new one");
            app.add_option("--budget", config->budget_minutes,
                           "Minutes of workload runs, overriding [measure] budget_minutes (default: none)")
                ->check(positive_number());
            app.add_flag("--json", config->json, "Print workload.json (kopt.workload/1) instead of the brief");
            return [config] { return run_workload_command(*config); };
          }};
}

}  // namespace kopt::cli
