#include "kopt/discover/triton_launch.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <regex>
#include <set>

#include "kopt/core/files.hpp"
#include "kopt/spec/data_file.hpp"
#include "kopt/spec/python_facts.hpp"
#include "kopt/spec/source_text.hpp"

namespace kopt::discover {
namespace {
namespace triton_launch_detail {  // named: the unity build puts tune_space.cpp's helpers beside these

struct Ladders {
  long long factor = 4, min = 16, max = 65536;
  std::vector<long long> num_warps, num_stages;
};

std::vector<long long> integers(const toml::node* node) {
  std::vector<long long> values;
  if (const toml::array* array = node != nullptr ? node->as_array() : nullptr) {
    for (const toml::node& value : *array) values.push_back(value.value_or(0LL));
  }
  return values;
}

Ladders load_ladders() {
  const toml::table root = spec::load_data_file("data/triton_launch.toml");
  return {.factor = root["constexpr"]["factor"].value_or(4LL),
          .min = root["constexpr"]["min"].value_or(16LL),
          .max = root["constexpr"]["max"].value_or(65536LL),
          .num_warps = integers(root["options"]["num_warps"].node()),
          .num_stages = integers(root["options"]["num_stages"].node())};
}

const Ladders& ladders() {
  static const Ladders loaded = load_ladders();
  return loaded;
}

// Empty: nothing to search (a constexpr that is not a power of two says something about the
// problem, not a tile).
std::vector<long long> proposed(const TritonLaunchConstant& c) {
  const Ladders& l = ladders();
  std::vector<long long> values;
  if (c.name == "num_warps") {
    values = l.num_warps;
  } else if (c.name == "num_stages") {
    values = l.num_stages;
  } else if (c.value > 0 && (c.value & (c.value - 1)) == 0) {
    for (long long v = std::max(l.min, c.value / l.factor); v <= std::min(l.max, c.value * l.factor); v *= 2) {
      values.push_back(v);
    }
  }
  if (values.empty()) return values;
  values.push_back(c.value);
  std::ranges::sort(values);
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return values.size() > 1 ? values : std::vector<long long>{};
}

bool names_something_in(const std::string& source, const std::string& name) {
  return std::regex_search(source, std::regex("\\b" + name + "\\b"));
}

// A literal becomes KOPT_<KEYWORD>: a name of kopt's, so that a local of the same name in solve
// (BLOCK_SIZE = KOPT_BLOCK_SIZE) cannot shadow the module's.
std::string literal_parameter(const TritonLaunchConstant& c, const std::string& source,
                              const std::set<std::string>& taken) {
  std::string name = "KOPT_" + spec::upper_case(c.name);
  if (taken.contains(name) || names_something_in(source, name)) name += fmt::format("_L{}", c.line);
  return name;
}

using Literal = std::pair<const TritonLaunchConstant*, std::string>;  // and its parameter's name

// `lines` with each literal (and the same number in its launch's grid) replaced by its name, and
// the names defined at the end of the module, where solve finds them when it runs.
std::string rewritten(std::vector<std::string> lines, const std::vector<Literal>& literals) {
  std::vector<std::pair<std::array<int, 3>, std::string>> replacements;  // {line, col, end_col} -> name
  for (const auto& [c, name] : literals) {
    replacements.push_back({{c->line, *c->col, *c->end_col}, name});
    for (const std::array<int, 3>& at : c->also) replacements.push_back({at, name});
  }
  // Right to left within a line, so that each literal's offsets still hold when it is replaced.
  std::ranges::sort(replacements, std::greater<>{}, [](const auto& r) { return std::pair(r.first[0], r.first[1]); });
  replacements.erase(std::unique(replacements.begin(), replacements.end()), replacements.end());
  for (const auto& [at, name] : replacements) {
    if (at[0] < 1 || at[0] > static_cast<int>(lines.size())) continue;
    std::string& line = lines[static_cast<std::size_t>(at[0] - 1)];
    if (at[1] < 0 || at[2] < at[1] || static_cast<std::size_t>(at[2]) > line.size()) continue;
    line.replace(static_cast<std::size_t>(at[1]), static_cast<std::size_t>(at[2] - at[1]), name);
  }
  std::string source;
  for (const std::string& line : lines) source += line + "\n";
  source += "\n# kopt: launch constants made settable (-D NAME=VALUE; docs/triton.md, \"Launch constants\")\n";
  for (const auto& [c, name] : literals) {
    source += fmt::format("{} = {}  # {}'s {}, line {}\n", name, c->value, c->kernel, c->name, c->line);
  }
  return source;
}

}  // namespace triton_launch_detail
}  // namespace

std::vector<TritonLaunchConstant> triton_launch_constants(const nlohmann::ordered_json& facts) {
  std::vector<TritonLaunchConstant> constants;
  for (const auto& found : facts.at("constants")) {
    TritonLaunchConstant c{.kernel = found.at("kernel"), .name = found.at("name"), .value = found.at("value"),
                           .line = found.at("line")};
    if (found.contains("col")) {
      c.col = found.at("col").get<int>();
      c.end_col = found.at("end_col").get<int>();
    }
    if (!found.at("variable").is_null()) c.variable = found.at("variable").get<std::string>();
    for (const auto& at : found.value("also", nlohmann::ordered_json::array())) {
      c.also.push_back({at.at("line").get<int>(), at.at("col").get<int>(), at.at("end_col").get<int>()});
    }
    constants.push_back(std::move(c));
  }
  return constants;
}

TritonLaunchSpace triton_launch_space(const std::string& source, const std::vector<TritonLaunchConstant>& constants) {
  using namespace triton_launch_detail;
  TritonLaunchSpace space;
  std::set<std::string> taken;
  std::vector<std::string> lines = spec::split_lines(source);
  std::vector<Literal> literals;
  for (const TritonLaunchConstant& c : constants) {
    const std::vector<long long> values = proposed(c);
    if (values.empty()) continue;
    if (!c.variable && (!c.col || !c.end_col || c.line < 1 || c.line > static_cast<int>(lines.size()))) continue;
    const std::string name = c.variable ? *c.variable : literal_parameter(c, source, taken);
    if (!taken.insert(name).second) continue;
    std::vector<std::string> texts;
    for (long long v : values) texts.push_back(std::to_string(v));
    space.params.emplace_back(name, texts);
    space.defaults[name] = std::to_string(c.value);
    space.found.push_back(fmt::format("{}  {}'s {}={} (line {}{}): {}", name, c.kernel, c.name, c.value, c.line,
                                      c.variable ? ", a module-level variable" : "", fmt::join(texts, " ")));
    if (!c.variable) literals.emplace_back(&c, name);
  }
  if (!literals.empty()) space.rewritten_source = rewritten(std::move(lines), literals);
  return space;
}

TritonLaunchSpace triton_launch_space(const std::filesystem::path& kernel_py) {
  return triton_launch_space(read_file(kernel_py),
                             triton_launch_constants(spec::read_python_facts("launches", kernel_py)));
}

}  // namespace kopt::discover
