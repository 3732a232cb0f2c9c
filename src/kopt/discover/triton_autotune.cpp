#include "kopt/discover/triton_autotune.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include "kopt/spec/python_facts.hpp"

namespace kopt::discover {
namespace {

// A config as its author wrote it: the kernel's arguments, then Triton's options.
std::string config_text(const nlohmann::ordered_json& config) {
  std::vector<std::string> parts;
  for (const auto& [name, value] : config.at("kwargs").items()) parts.push_back(fmt::format("{}={}", name, value.dump()));
  for (const auto& [name, value] : config.items()) {
    if (name != "kwargs") parts.push_back(fmt::format("{}={}", name, value.dump()));
  }
  return parts.empty() ? "(no arguments)" : fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace

std::vector<std::string> AutotunedKernel::values() const {
  std::vector<std::string> values{"all"};
  for (std::size_t i = 0; i < configs.size(); ++i) values.push_back(std::to_string(i));
  return values;
}

std::vector<AutotunedKernel> triton_autotuned_kernels(const std::filesystem::path& kernel_py) {
  const nlohmann::ordered_json facts = spec::read_python_facts("autotune", kernel_py);
  std::vector<AutotunedKernel> kernels;
  for (const auto& found : facts.at("kernels")) {
    AutotunedKernel kernel{.kernel = found.at("kernel").get<std::string>(), .line = found.at("line").get<int>()};
    for (const auto& config : found.at("configs")) kernel.configs.push_back(config_text(config));
    if (!kernel.configs.empty()) kernels.push_back(std::move(kernel));
  }
  return kernels;
}

std::string autotune_tune_table(const std::vector<AutotunedKernel>& kernels) {
  std::string table;
  for (const AutotunedKernel& kernel : kernels) {
    std::vector<std::string> quoted;
    for (const std::string& value : kernel.values()) quoted.push_back(fmt::format("\"{}\"", value));
    table += fmt::format("{} = [{}]  # {}'s @triton.autotune configs (line {}); \"all\": Triton's own choice\n",
                         kernel.parameter(), fmt::join(quoted, ", "), kernel.kernel, kernel.line);
  }
  return table;
}

std::string format_autotune_space(std::string_view file, const std::vector<AutotunedKernel>& kernels) {
  if (kernels.empty()) {
    return fmt::format("{}: no @triton.autotune config list to search; a Triton kernel's other parameters are "
                       "kernel.py's module-level variables, declared in [tune] of its spec, and the constants it "
                       "passes where it launches a kernel (docs/triton.md)\n",
                       file);
  }
  std::string out = fmt::format("{}: {} autotuned Triton kernel(s), one parameter each (-D NAME=VALUE)\n", file,
                                kernels.size());
  for (const AutotunedKernel& kernel : kernels) {
    out += fmt::format("  {}  (line {})\n", kernel.parameter(), kernel.line);
    out += fmt::format("    {:<5} Triton's autotuner picks among the {} configs, as written\n", "all",
                       kernel.configs.size());
    for (std::size_t i = 0; i < kernel.configs.size(); ++i) out += fmt::format("    {:<5} {}\n", i, kernel.configs[i]);
  }
  return out;
}

}  // namespace kopt::discover
