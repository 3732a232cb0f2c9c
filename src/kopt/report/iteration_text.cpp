#include "kopt/report/iteration_text.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kopt::report {
namespace {

// ", 3.8 at once": how many compiles ran side by side while any ran (absent from older files).
std::string compiles_at_once(const nlohmann::json& cost) {
  const double compile = cost.at("compile_s").get<double>();
  if (compile <= 0 || !cost.contains("compile_processes_s")) return "";
  return fmt::format(", {:.1f} at once", cost.at("compile_processes_s").get<double>() / compile);
}

}  // namespace

bool stages_ran_processes(const nlohmann::json& stages) {
  for (const auto& [name, cost] : stages.items()) {
    if (cost.value("compile_s", 0.0) > 0 || cost.value("device_s", 0.0) > 0) return true;
  }
  return false;
}

std::string format_stage_costs(const nlohmann::json& stages) {
  std::string line;
  for (const std::string name : {"first_look", "full_check", "finals", "ablation"}) {  // in the order they ran
    if (!stages.contains(name)) continue;
    const nlohmann::json& cost = stages.at(name);
    if (cost.at("candidates").get<std::size_t>() == 0) continue;  // a champion with no method to ablate
    std::string label = name;
    std::ranges::replace(label, '_', ' ');
    const double compile = cost.at("compile_s").get<double>();
    const double device = cost.at("device_s").get<double>();
    line += fmt::format("{}{} {} in {:.1f} s (compile {:.1f} s{}, GPU {:.1f} s)", line.empty() ? "" : "; ", label,
                        cost.at("candidates").get<std::size_t>(), cost.at("wall_s").get<double>(), compile,
                        compiles_at_once(cost), device);
    if (name == "first_look" && device > 0) {
      line += fmt::format(", {:.0f} per GPU-minute", cost.at("candidates").get<double>() * 60 / device);
    }
  }
  return line.empty() ? "no stage recorded" : line;
}

std::string format_iteration_verdict(const nlohmann::json& v) {
  std::string text = fmt::format("iteration {}: {}", v.at("index").get<int>(), v.at("verdict").get<std::string>());
  if (v.contains("speedup_vs_best")) {
    text += fmt::format(" — champion {} is {:.3f}× the best [{:.3f}, {:.3f}]", v.at("champion").get<std::string>(),
                        v.at("speedup_vs_best").get<double>(), v.at("speedup_vs_best_ci").at(0).get<double>(),
                        v.at("speedup_vs_best_ci").at(1).get<double>());
  }
  text += "\n";
  for (const auto& m : v.value("methods", nlohmann::json::array())) {
    text += fmt::format("  {:<40} {}", m.at("id").get<std::string>(), m.value("class", ""));
    if (m.contains("time_ratio_without")) {
      text += fmt::format("  (without it: {:.3f}× the time)", m.at("time_ratio_without").get<double>());
    }
    text += "\n";
  }
  if (v.contains("time") && v.at("time").is_object() && v.at("time").contains("stages") &&
      stages_ran_processes(v.at("time").at("stages"))) {
    text += "  cost: " + format_stage_costs(v.at("time").at("stages")) + "\n";
  }
  return text;
}

}  // namespace kopt::report
