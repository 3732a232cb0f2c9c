#include "kopt/report/iteration_text.hpp"

#include <fmt/format.h>

namespace kopt::report {

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
  return text;
}

}  // namespace kopt::report
