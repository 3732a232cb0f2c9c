// kopt plan [DIR]: the methods the evidence calls for, by the catalog's priority scan under
// the roofline's axis budget; with --validate, checks a methods.json against the same rules.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <iostream>

#include "command.hpp"
#include "common_options.hpp"
#include "kopt/catalog/plan_step.hpp"
#include "kopt/catalog/planner.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/report/plan_table.hpp"

namespace kopt::cli {
namespace {
namespace fs = std::filesystem;

struct PlanConfig {
  std::string dir;
  std::string profile, roofline, history;
  std::string arch;
  std::string dtype;  // empty: the profile's, else fp32
  std::optional<bool> fp32_exact;
  std::string out;
  std::string validate;
  bool json = false;
};

catalog::PlanInputs read_inputs(const PlanConfig& config) {
  return catalog::read_plan_inputs(
      catalog::plan_evidence_files(config.dir, {.profile = config.profile, .roofline = config.roofline,
                                                .history = config.history.empty() ? std::nullopt
                                                                                  : std::optional<fs::path>(config.history)}),
      {.arch = config.arch, .dtype = config.dtype, .fp32_exact = config.fp32_exact});
}

int run_validate(const PlanConfig& config, const catalog::MethodCatalog& methods, const catalog::PlanInputs& inputs) {
  const catalog::MethodsCheck check = catalog::check_methods_file(config.validate, methods, inputs);
  if (config.json) {
    std::cout << catalog::methods_check_json(check, config.validate).dump(2) << "\n";
  } else if (check.ok()) {
    std::cout << fmt::format("{}: {} method(s), no violation\n", config.validate, check.ids.size());
  } else {
    std::cerr << report::format_violations(check.violations);
  }
  return static_cast<int>(check.ok() ? ExitCode::ok : ExitCode::bad_input);
}

int run_plan_command(const PlanConfig& config) {
  const catalog::MethodCatalog methods = catalog::load_method_catalog();
  const catalog::PlanInputs inputs = read_inputs(config);
  if (!config.validate.empty()) return run_validate(config, methods, inputs);
  const catalog::Plan plan = catalog::plan_methods(methods, inputs);
  const nlohmann::json document = plan;
  const fs::path out = !config.out.empty() ? fs::path(config.out)
                       : !config.dir.empty() ? fs::path(config.dir) / "plan.json"
                                             : fs::path("plan.json");
  write_file_atomic(out, document.dump(2) + "\n");
  if (config.json) std::cout << document.dump(2) << "\n";
  else std::cout << report::format_plan(plan) << fmt::format("\n  wrote {}\n", out.string());
  return static_cast<int>(ExitCode::ok);
}

}  // namespace

Command plan_command() {
  return {"plan", "The methods the evidence calls for, by priority under the axis budget", [](CLI::App& app) {
            auto config = std::make_shared<PlanConfig>();
            app.add_option("DIR", config->dir, "A folder with profile.json, roofline.json and optionally history.json");
            app.add_option("--profile", config->profile, "profile.json (kopt.profile/1)");
            app.add_option("--roofline", config->roofline, "roofline.json (kopt.roofline/1)");
            app.add_option("--history", config->history, "history.json: methods already tried");
            app.add_option("--arch", config->arch, "Target architecture, e.g. sm_90 (default: the profile's)");
            app.add_option("--dtype", config->dtype, "The problem's element type: fp32, fp16, bf16, fp8, int8, ... (default: the profile's, else fp32)");
            app.add_flag_callback("--fp32-exact", [config] { config->fp32_exact = true; },
                                  "Exact FP32 results are required (default when --dtype is fp32)");
            app.add_flag_callback("--no-fp32-exact", [config] { config->fp32_exact = false; },
                                  "TF32 and fast math are acceptable");
            app.add_option("--out", config->out, "Where to write plan.json (default: DIR/plan.json)")
                ->check(output_file());
            app.add_option("--validate", config->validate, "Check this methods.json against the rules instead; exit 2 on violations");
            app.add_flag("--json", config->json, "Print one JSON document");
            return [config] { return run_plan_command(*config); };
          }};
}

}  // namespace kopt::cli
