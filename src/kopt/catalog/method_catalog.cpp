#include "kopt/catalog/method_catalog.hpp"

#include <regex>
#include <tuple>

#include "kopt/core/embedded_files.hpp"
#include "kopt/spec/data_entry.hpp"

namespace kopt::catalog {
namespace {

constexpr std::string_view kFile = "data/methods.toml";

// Facts the planner adds to the profile's concepts (planner.cpp fills them).
const std::vector<std::string> kPlannerFacts = {
    "gap.compute", "gap.memory", "gap.latency", "bound", "high_throughput", "near_peak",
    "arithmetic_intensity", "ridge_point", "compute_utilization", "memory_utilization",
    "spec.fp32_exact", "spec.dtype", "arch"};

std::optional<roofline::Axis> axis_named(std::string_view name) {
  for (roofline::Axis axis : roofline::kAxes) {
    if (roofline::to_string(axis) == name) return axis;
  }
  return std::nullopt;
}

Condition condition(const spec::DataEntry& entry, std::string_view key, const std::string& text,
                    const std::set<std::string>& known_names) {
  Condition parsed;
  try {
    parsed = Condition::parse(text);
  } catch (const Error& e) {
    throw entry.failure(fmt::format("{} \"{}\": {}", key, text, e.what()));
  }
  for (const std::string& name : parsed.names()) {
    if (!known_names.contains(name)) throw entry.failure(fmt::format("{} names unknown concept \"{}\"", key, name));
  }
  return parsed;
}

Feature feature_of(const spec::DataEntry& entry) {
  entry.reject_unknown_keys({"min_arch", "max_arch"});
  Feature feature{.name = entry.name(), .min_arch = static_cast<int>(entry.integer("min_arch"))};
  if (auto max = entry.optional_integer("max_arch")) feature.max_arch = static_cast<int>(*max);
  return feature;
}

// The catalog's guidance beyond the change: expected gain, risks, a worked example.
void read_guidance(const spec::DataEntry& entry, Method& method) {
  const std::vector<double> gain = entry.numbers("gain");
  if (gain.size() != 2 || !(gain[0] >= 1) || !(gain[1] >= gain[0])) {
    throw entry.failure("gain must be [low, high] speed-ups with 1 <= low <= high");
  }
  method.gain_low = gain[0];
  method.gain_high = gain[1];
  method.risks = entry.string("risks");
  method.example = entry.string("example");
}

Method method_of(const spec::DataEntry& entry, const std::map<std::string, Feature>& features,
                 const SignatureTable& signatures, const std::set<std::string>& known_names) {
  entry.reject_unknown_keys({"axis", "priority", "min_arch", "features", "trigger", "skip", "conflicts",
                             "signature", "not_distinguishable_from", "no_trace", "macro", "change", "gain", "risks", "example"});
  Method method{.id = entry.name()};
  const std::string axis = entry.string("axis");
  if (!axis_named(axis)) throw entry.failure(fmt::format("unknown axis \"{}\" (compute, memory, latency)", axis));
  if (!method.id.starts_with(axis + ".") || method.id.size() == axis.size() + 1) {
    throw entry.failure(fmt::format("the id must be {}.<name> for axis {}", axis, axis));
  }
  method.axis = *axis_named(axis);
  method.priority = static_cast<int>(entry.integer("priority"));
  method.min_arch = static_cast<int>(entry.integer("min_arch"));
  method.features = entry.strings("features");
  for (const std::string& feature : method.features) {
    if (!features.contains(feature)) throw entry.failure(fmt::format("unknown feature \"{}\"", feature));
  }
  method.trigger = condition(entry, "trigger", entry.string("trigger"), known_names);
  for (const std::string& text : entry.strings("skip")) method.skip.push_back(condition(entry, "skip", text, known_names));
  method.conflicts = entry.strings("conflicts");
  method.signature = entry.string("signature");
  if (method.signature != kNotVerifiable && signatures.find(method.signature) == nullptr) {
    throw entry.failure(fmt::format("unknown SASS signature \"{}\" (data/sass_signatures.toml, or \"none\")",
                                    method.signature));
  }
  method.not_distinguishable_from = entry.optional_string("not_distinguishable_from").value_or("");
  if (!method.not_distinguishable_from.empty() && method.signature == kNotVerifiable) {
    throw entry.failure("not_distinguishable_from needs the shared signature, not \"none\"");
  }
  method.no_trace = entry.optional_string("no_trace").value_or("");
  if (method.signature != kNotVerifiable && !method.no_trace.empty()) {
    throw entry.failure("no_trace (why SASS shows nothing) goes only with signature \"none\"");
  }
  method.macro = entry.string("macro");
  if (!std::regex_match(method.macro, std::regex("KOPT_USE_[A-Z0-9_]+"))) {
    throw entry.failure(fmt::format("macro \"{}\" must be KOPT_USE_[A-Z0-9_]+", method.macro));
  }
  method.change = entry.strings("change");
  if (method.change.size() != 2) throw entry.failure("change must be two lines");
  read_guidance(entry, method);
  return method;
}

// Every architecture's check of a signature, as one text: equal texts cannot tell apart.
std::string signature_content(const SassSignature& signature) {
  std::string text;
  for (const auto& [arch, check] : signature.by_arch) text += fmt::format("sm_{}: {}; ", arch, check.canonical());
  return text;
}

// No two methods with the same SASS check, unless the second says it cannot be told apart
// from the first (not_distinguishable_from): a shared signature would "find" both wherever one is.
void check_distinct_signatures(const MethodCatalog& catalog, const SignatureTable& signatures,
                               std::string_view file_name, const toml::table& methods) {
  std::map<std::string, std::string> owner;  // signature content -> the method that owns it
  for (const Method& method : catalog.methods) {
    const SassSignature* signature = signatures.find(method.signature);
    if (signature == nullptr || !method.not_distinguishable_from.empty()) continue;
    auto [it, inserted] = owner.emplace(signature_content(*signature), method.id);
    if (!inserted) {
      throw spec::DataEntry(file_name, "methods." + method.id, *methods.get(method.id))
          .failure(fmt::format("its SASS signature \"{}\" checks what {}'s does; give it a signature of its own "
                               "or say not_distinguishable_from = \"{}\"", method.signature, it->second, it->second));
    }
  }
  for (const Method& method : catalog.methods) {
    if (method.not_distinguishable_from.empty()) continue;
    const Method* other = catalog.find(method.not_distinguishable_from);
    if (other == nullptr || other->signature != method.signature || !other->not_distinguishable_from.empty()) {
      throw spec::DataEntry(file_name, "methods." + method.id, *methods.get(method.id))
          .failure(fmt::format("not_distinguishable_from \"{}\" must name a method whose own signature is \"{}\"",
                               method.not_distinguishable_from, method.signature));
    }
  }
}

// Across entries: one priority per axis, conflicts that name known methods.
void check_catalog(const MethodCatalog& catalog, std::string_view file_name, const toml::table& methods) {
  std::map<std::pair<roofline::Axis, int>, std::string> by_priority;
  for (const Method& method : catalog.methods) {
    spec::DataEntry entry(file_name, "methods." + method.id, *methods.get(method.id));
    auto [it, inserted] = by_priority.emplace(std::pair(method.axis, method.priority), method.id);
    if (!inserted) throw entry.failure(fmt::format("priority {} is also {}'s", method.priority, it->second));
    for (const std::string& other : method.conflicts) {
      if (catalog.find(other) == nullptr) throw entry.failure(fmt::format("conflicts with unknown method \"{}\"", other));
      if (other == method.id) throw entry.failure("conflicts with itself");
    }
  }
}

}  // namespace

std::string_view sass_check_of(const Method& method) {
  if (method.signature == kNotVerifiable) return "not_verifiable";
  return method.not_distinguishable_from.empty() ? "verifiable" : "not_distinguishable";
}

const Method* MethodCatalog::find(std::string_view id) const {
  for (const Method& method : methods) {
    if (method.id == id) return &method;
  }
  return nullptr;
}

std::optional<std::string> MethodCatalog::arch_obstacle(const Method& method, int arch) const {
  if (arch < method.min_arch) return fmt::format("needs sm_{} or later", method.min_arch);
  for (const std::string& name : method.features) {
    const Feature& feature = features.at(name);
    if (arch < feature.min_arch || (feature.max_arch && arch > *feature.max_arch)) {
      return feature.max_arch && *feature.max_arch == feature.min_arch
                 ? fmt::format("needs {} (sm_{} only)", name, feature.min_arch)
                 : fmt::format("needs {} (sm_{}+)", name, feature.min_arch);
    }
  }
  return std::nullopt;
}

bool MethodCatalog::conflict(const Method& a, const Method& b) const {
  return std::ranges::find(a.conflicts, b.id) != a.conflicts.end() ||
         std::ranges::find(b.conflicts, a.id) != b.conflicts.end();
}

std::set<std::string> known_condition_names() {
  std::set<std::string> names(kPlannerFacts.begin(), kPlannerFacts.end());
  // Every concept of every ncu version and architecture in the metric map.
  const toml::table metrics = spec::parse_data_file(data_file("data/metrics.toml"), "data/metrics.toml");
  if (const toml::table* versions = metrics["ncu"].as_table()) {
    for (const auto& [version, archs] : *versions) {
      if (!archs.is_table()) continue;
      for (const auto& [arch, concepts] : *archs.as_table()) {
        if (!concepts.is_table()) continue;
        for (const auto& [name, spec] : *concepts.as_table()) names.insert(std::string(name.str()));
      }
    }
  }
  return names;
}

MethodCatalog parse_method_catalog(std::string_view toml_text, std::string_view file_name,
                                   const SignatureTable& signatures, const std::set<std::string>& known_names) {
  const toml::table root = spec::parse_data_file(toml_text, file_name);
  spec::DataEntry whole(file_name, "(top level)", root);
  whole.reject_unknown_keys({"schema_version", "features", "methods"});
  MethodCatalog catalog;
  if (const toml::table* features = root["features"].as_table()) {
    for (const auto& [key, node] : *features) {
      catalog.features[std::string(key.str())] = feature_of(spec::DataEntry(file_name, "features." + std::string(key.str()), node));
    }
  }
  const toml::table* methods = root["methods"].as_table();
  if (methods == nullptr) throw input_error("{}: no [methods] table", file_name);
  for (const auto& [key, node] : *methods) {
    spec::DataEntry entry(file_name, std::string(key.str()), node);
    catalog.methods.push_back(method_of(entry, catalog.features, signatures, known_names));
  }
  std::ranges::sort(catalog.methods, {}, [](const Method& m) { return std::tuple(m.axis, m.priority, m.id); });
  check_catalog(catalog, file_name, *methods);
  check_distinct_signatures(catalog, signatures, file_name, *methods);
  return catalog;
}

MethodCatalog load_method_catalog() {
  return parse_method_catalog(data_file(kFile), kFile, load_sass_signatures(), known_condition_names());
}

void require_known_methods(const std::vector<std::string>& ids) {
  if (ids.empty()) return;
  const MethodCatalog methods = load_method_catalog();
  for (const std::string& id : ids) {
    if (methods.find(id) == nullptr) throw input_error("unknown method \"{}\" (data/methods.toml)", id);
  }
}

}  // namespace kopt::catalog
