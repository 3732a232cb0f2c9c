// kopt plan [DIR]: the methods the evidence calls for, by the catalog's priority scan under
// the roofline's axis budget; with --validate, checks a methods.json against the same rules.
// The work is catalog/plan_step, as in the loop.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <iostream>

#include "command.hpp"
#include "common_options.hpp"
#include "kopt/catalog/plan_step.hpp"
#include "kopt/core/error.hpp"
#include "kopt/report/plan_table.hpp"

namespace kopt::cli {
namespace {

struct PlanConfig {
  catalog::PlanRequest request;
  std::string history, validate;
  bool json = false;
};

int run_plan_command(PlanConfig& config) {
  if (!config.history.empty()) config.request.files.history = config.history;
  const catalog::MethodCatalog methods = catalog::load_method_catalog();
  if (!config.validate.empty()) {
    const catalog::MethodsCheck check =
        catalog::check_methods_file(config.validate, methods, catalog::plan_request_inputs(config.request));
    if (config.json) std::cout << catalog::methods_check_json(check, config.validate).dump(2) << "\n";
    else if (check.ok()) std::cout << fmt::format("{}: {} method(s), no violation\n", config.validate, check.ids.size());
    else std::cerr << report::format_violations(check.violations);
    return static_cast<int>(check.ok() ? ExitCode::ok : ExitCode::bad_input);
  }
  const catalog::WrittenPlan written = catalog::write_plan(methods, config.request);
  if (config.json) std::cout << nlohmann::json(written.plan).dump(2) << "\n";
  else std::cout << report::format_plan(written.plan) << fmt::format("\n  wrote {}\n", written.file.string());
  return static_cast<int>(ExitCode::ok);
}

}  // namespace

Command plan_command() {
  return {"plan", "The methods the evidence calls for, by priority under the axis budget", [](CLI::App& app) {
            auto config = std::make_shared<PlanConfig>();
            catalog::PlanRequest& r = config->request;
            app.add_option("DIR", r.dir, "A folder with profile.json, roofline.json and optionally history.json");
            app.add_option("--profile", r.files.profile, "profile.json (kopt.profile/1)");
            app.add_option("--roofline", r.files.roofline, "roofline.json (kopt.roofline/1)");
            app.add_option("--history", config->history, "history.json: methods already tried");
            app.add_option("--arch", r.overrides.arch, "Target architecture, e.g. sm_90 (default: the profile's)");
            app.add_option("--dtype", r.overrides.dtype, "The problem's element type: fp32, fp16, bf16, fp8, int8, ... (default: the profile's, else fp32)");
            app.add_flag_callback("--fp32-exact", [config] { config->request.overrides.fp32_exact = true; },
                                  "Exact FP32 results are required (default when --dtype is fp32)");
            app.add_flag_callback("--no-fp32-exact", [config] { config->request.overrides.fp32_exact = false; },
                                  "TF32 and fast math are acceptable");
            app.add_option("--out", r.out, "Where to write plan.json (default: DIR/plan.json)")->check(output_file());
            app.add_option("--validate", config->validate, "Check this methods.json against the rules instead; exit 2 on violations");
            app.add_flag("--json", config->json, "Print one JSON document");
            return [config] { return run_plan_command(*config); };
          }};
}

}  // namespace kopt::cli
