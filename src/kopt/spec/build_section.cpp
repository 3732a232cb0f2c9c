#include "kopt/spec/build_section.hpp"

#include <fmt/format.h>

#include <set>

#include "kopt/build/cutlass_headers.hpp"
#include "kopt/core/error.hpp"
#include "kopt/spec/source_text.hpp"
#include "kopt/spec/tool_arguments.hpp"

namespace kopt::spec {
namespace fs = std::filesystem;

BuildSpec BuildSectionReader::read_build(const toml::table& table) {
  reject_unknown_keys(table, "[build]", {"flags", "arch", "cutlass"});
  BuildSpec build;
  if (table.contains("flags")) {
    build.flags = strings_at(*table.get("flags"), "[build] flags");
    try {
      check_compiler_flags(build.flags, "[build] flags");
    } catch (const Error& refused) {
      throw failure(*table.get("flags"), refused.what());
    }
  }
  if (table.contains("cutlass")) read_cutlass(table, build);
  if (table.contains("arch")) {
    build.arch = string_at(table, "arch");
    if (build.arch != "native" && !is_sm_arch(build.arch)) {
      throw failure(
          *table.get("arch"),
          fmt::format("[build] arch \"{}\": expected \"native\" or sm_XX (e.g. sm_90a)", build.arch));
    }
  }
  return build;
}

// [build] cutlass: a CUTLASS checkout or nvidia-cutlass package folder, relative to the spec;
// its include folders become -I flags, ahead of CUTLASS_PATH and the Python package.
void BuildSectionReader::read_cutlass(const toml::table& table, BuildSpec& build) {
  const fs::path root = (directory_ / string_at(table, "cutlass")).lexically_normal();
  std::vector<fs::path> dirs = build::cutlass_include_dirs(root);
  if (dirs.empty()) {
    throw failure(*table.get("cutlass"),
                  fmt::format("[build] cutlass \"{}\" holds no cutlass/cutlass.h (looked in include/, "
                              "source/include/ and the folder itself)",
                              root.string()));
  }
  for (const fs::path& dir : dirs) build.flags.push_back("-I" + dir.string());
  try {
    check_compiler_flags(build.flags, "[build] cutlass");
  } catch (const Error& refused) {
    throw failure(*table.get("cutlass"), refused.what());
  }
}

TuneSpec BuildSectionReader::read_tune(const toml::table& table, const std::vector<ProblemCase>& cases) {
  TuneSpec tune;
  for (const TomlEntry& entry : in_spec_order(table)) {
    if (entry.key == "restrict") continue;
    if (!is_identifier(entry.key)) {
      throw failure(entry.line, fmt::format("[tune] {} is not a macro name", entry.key));
    }
    std::vector<std::string> values = values_at(*entry.node, fmt::format("[tune] {}", entry.key));
    for (const std::string& value : values) {
      try {
        check_define(entry.key, value, "[tune]");
      } catch (const Error& refused) {
        throw failure(entry.line, refused.what());
      }
    }
    tune.params.emplace_back(entry.key, std::move(values));
  }
  if (!table.contains("restrict")) return tune;
  std::set<std::string, std::less<>> known;
  for (const auto& [param, values] : tune.params) known.insert(param);
  for (const ProblemCase& problem_case : cases) {
    for (const auto& [dim, value] : problem_case.dims) known.insert(dim);
  }
  const toml::array* restrictions = table.get("restrict")->as_array();
  if (restrictions == nullptr) {
    throw failure(*table.get("restrict"), "[tune] restrict must be an array of strings");
  }
  for (const toml::node& node : *restrictions) {
    Expression restriction = expression_at(node, "[tune] restrict");
    for (const std::string& name : restriction.names()) {
      if (!known.contains(name)) {
        throw failure(node,
                      fmt::format("[tune] restrict \"{}\": \"{}\" is neither a tune parameter nor a dim",
                                  restriction.text(), name));
      }
    }
    tune.restrictions.push_back(std::move(restriction));
  }
  return tune;
}

}  // namespace kopt::spec
