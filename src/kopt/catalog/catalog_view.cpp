#include "kopt/catalog/catalog_view.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <nlohmann/json.hpp>

#include "kopt/core/error.hpp"

namespace kopt::catalog {
namespace {

// Ids that share the first four letters of the asked name ("coal" for memory.coalesce).
std::vector<std::string> near_ids(const MethodCatalog& catalog, std::string_view id) {
  const std::string_view name = id.substr(id.find('.') == std::string_view::npos ? 0 : id.find('.') + 1);
  const std::string key(name.substr(0, 4));
  std::vector<std::string> near;
  for (const Method& m : catalog.methods) {
    if (key.size() == 4 && m.id.find(key) != std::string::npos) near.push_back(m.id);
  }
  return near;
}

const Method& method_or_throw(const MethodCatalog& catalog, std::string_view id) {
  if (const Method* method = catalog.find(id)) return *method;
  const std::vector<std::string> near = near_ids(catalog, id);
  throw input_error("unknown method \"{}\" (data/methods.toml){}; `kopt catalog list` lists them", id,
                    near.empty() ? std::string() : fmt::format("; did you mean {}", fmt::join(near, ", ")));
}

std::string gain_text(const Method& method) { return fmt::format("{}-{}x", method.gain_low, method.gain_high); }

std::string arch_check_text(const ArchSignature& check) {
  auto texts = [](const std::vector<OpcodePattern>& patterns) {
    std::vector<std::string> out;
    for (const OpcodePattern& p : patterns) out.push_back(p.text);
    return fmt::format("{}", fmt::join(out, ", "));
  };
  std::string text;
  if (!check.any.empty()) text += " any of " + texts(check.any);
  if (!check.all.empty()) text += " all of " + texts(check.all);
  if (check.ratio) {
    text += fmt::format(" {} at least {:g} per {}", texts(check.ratio->of), check.ratio->at_least, texts(check.ratio->to));
  }
  if (check.constant_bank) text += fmt::format(" an operand in constant bank {}", *check.constant_bank);
  if (check.loop) {
    text += " a loop body with";
    if (!check.loop->all.empty()) text += " all of " + texts(check.loop->all);
    if (check.loop->at_least > 0) text += fmt::format(" at least {} of {}", check.loop->at_least, texts(check.loop->of));
  }
  for (const auto& [name, at_least] : check.structure) text += fmt::format(" {} at least {}", name, at_least);
  if (!check.none.empty()) text += " none of " + texts(check.none);
  return text;
}

// The signature's description and its per-architecture checks, or why there is none.
std::string signature_text(const Method& method, const SignatureTable& signatures) {
  const SassSignature* signature = signatures.find(method.signature);
  if (signature == nullptr) return "none (not verifiable in SASS): " + method.no_trace;
  std::string text = fmt::format("{}: {}", signature->id, signature->description);
  if (!method.not_distinguishable_from.empty()) {
    text += fmt::format("\n    not distinguishable from {} (the same trace)", method.not_distinguishable_from);
  }
  for (const auto& [arch, check] : signature->by_arch) text += fmt::format("\n    sm_{}:{}", arch, arch_check_text(check));
  return text;
}

// Methods per sass_check_of value, every value present (0 when none).
std::map<std::string, int> sass_check_counts(const MethodCatalog& catalog) {
  std::map<std::string, int> counts = {{"verifiable", 0}, {"not_distinguishable", 0}, {"not_verifiable", 0}};
  for (const Method& m : catalog.methods) ++counts[std::string(sass_check_of(m))];
  return counts;
}

std::vector<std::string> skip_texts(const Method& method) {
  std::vector<std::string> texts;
  for (const Condition& skip : method.skip) texts.push_back(skip.text());
  return texts;
}

}  // namespace

std::string format_catalog_list(const MethodCatalog& catalog) {
  std::string text = fmt::format("{} methods (data/methods.toml), by axis and priority; kopt catalog show ID\n",
                                 catalog.methods.size());
  std::string_view axis;
  for (const Method& method : catalog.methods) {
    if (roofline::to_string(method.axis) != axis) {
      axis = roofline::to_string(method.axis);
      text += fmt::format("\n{}\n", axis);
    }
    text += fmt::format("  {:4} {:42} {:>11}  sm_{}+  {}{}\n", method.priority, method.id, gain_text(method),
                        method.min_arch, method.signature,
                        method.not_distinguishable_from.empty() ? "" : " (not distinguishable)");
  }
  const std::map<std::string, int> checks = sass_check_counts(catalog);
  text += fmt::format("\nSASS checks: {} verifiable, {} not distinguishable, {} not verifiable\n",
                      checks.at("verifiable"), checks.at("not_distinguishable"), checks.at("not_verifiable"));
  return text;
}

nlohmann::json catalog_list_json(const MethodCatalog& catalog) {
  nlohmann::json methods = nlohmann::json::array();
  for (const Method& m : catalog.methods) {
    methods.push_back({{"id", m.id}, {"axis", roofline::to_string(m.axis)}, {"priority", m.priority},
                       {"min_arch", m.min_arch}, {"gain", {m.gain_low, m.gain_high}}, {"signature", m.signature},
                       {"sass_check", std::string(sass_check_of(m))}, {"trigger", m.trigger.text()}});
  }
  return {{"schema", "kopt.catalog/1"}, {"methods", methods}, {"sass_checks", sass_check_counts(catalog)}};
}

std::string format_method(const MethodCatalog& catalog, const SignatureTable& signatures, std::string_view id) {
  const Method& m = method_or_throw(catalog, id);
  std::string text = fmt::format("{}  ({} axis, priority {}, sm_{}+{})\n", m.id, roofline::to_string(m.axis),
                                 m.priority, m.min_arch,
                                 m.features.empty() ? "" : fmt::format(", needs {}", fmt::join(m.features, ", ")));
  text += fmt::format("  trigger    {}\n", m.trigger.text());
  for (const std::string& skip : skip_texts(m)) text += fmt::format("  skip when  {}\n", skip);
  if (!m.conflicts.empty()) text += fmt::format("  conflicts  {}\n", fmt::join(m.conflicts, ", "));
  text += fmt::format("  gain       {} where it applies\n", gain_text(m));
  text += fmt::format("  change     {}\n             {}\n", m.change.at(0), m.change.at(1));
  text += fmt::format("  risks      {}\n", m.risks);
  text += fmt::format("  example    {}\n", m.example);
  text += fmt::format("  switch     #define {} 1 // kopt:method {}\n", m.macro, m.id);
  text += fmt::format("  signature  {}\n", signature_text(m, signatures));
  return text;
}

nlohmann::json method_json(const MethodCatalog& catalog, const SignatureTable& signatures, std::string_view id) {
  const Method& m = method_or_throw(catalog, id);
  return {{"schema", "kopt.catalog/1"},
          {"method",
           {{"id", m.id}, {"axis", roofline::to_string(m.axis)}, {"priority", m.priority}, {"min_arch", m.min_arch},
            {"features", m.features}, {"trigger", m.trigger.text()}, {"skip", skip_texts(m)},
            {"conflicts", m.conflicts}, {"gain", {m.gain_low, m.gain_high}}, {"change", m.change},
            {"risks", m.risks}, {"example", m.example}, {"macro", m.macro}, {"signature", m.signature},
            {"sass_check", std::string(sass_check_of(m))}, {"not_distinguishable_from", m.not_distinguishable_from},
            {"no_trace", m.no_trace},
            {"signature_description", signatures.find(m.signature) ? signatures.find(m.signature)->description : ""}}}};
}

}  // namespace kopt::catalog
