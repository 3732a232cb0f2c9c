#include "kopt/catalog/method_evidence.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"

namespace kopt::catalog {
namespace {

const Method& known_method(const MethodCatalog& catalog, const std::string& id) {
  const Method* method = catalog.find(id);
  if (method == nullptr) throw input_error("unknown method \"{}\" (data/methods.toml)", id);
  return *method;
}

bool switched_on(const std::string& macro, bool by_default, const std::map<std::string, std::string>& defines) {
  auto it = defines.find(macro);
  if (it == defines.end()) return by_default;
  return it->second != "0";
}

MethodEvidence evidence_for(const MethodCatalog& catalog, const SignatureTable& signatures, const std::string& id,
                            bool on, std::string source, const std::vector<sass::SassFunctionProfile>& functions,
                            int arch) {
  const Method& method = known_method(catalog, id);
  MethodEvidence evidence{.method = id, .macro = method.macro, .switched_on = on, .source = std::move(source)};
  if (on) {
    evidence.match = method.not_distinguishable_from.empty()
                         ? match_signature(signatures, method.signature, functions, arch)
                         : match_shared_trace(signatures, method.signature, method.not_distinguishable_from, functions, arch);
    if (!method.no_trace.empty()) evidence.match.reason += ": " + method.no_trace;
  } else {
    evidence.match = {.signature = method.signature, .reason = method.macro + " is 0 in this build"};
  }
  return evidence;
}

}  // namespace

std::vector<MethodEvidence> check_methods(const MethodCatalog& catalog, const SignatureTable& signatures,
                                          const std::vector<spec::MethodSwitch>& declared,
                                          const std::vector<std::string>& asked,
                                          const std::map<std::string, std::string>& defines,
                                          const std::vector<sass::SassFunctionProfile>& functions, int arch) {
  std::vector<MethodEvidence> out;
  for (const spec::MethodSwitch& m : declared) {
    out.push_back(evidence_for(catalog, signatures, m.method_id, switched_on(m.macro, m.enabled_by_default, defines),
                               "declared", functions, arch));
  }
  for (const std::string& id : asked) {
    const bool already = std::any_of(out.begin(), out.end(), [&](const MethodEvidence& e) { return e.method == id; });
    if (!already) out.push_back(evidence_for(catalog, signatures, id, true, "asked", functions, arch));
  }
  return out;
}

std::vector<MethodEvidence> check_kernel_methods(const std::filesystem::path& kernel,
                                                 const std::vector<std::string>& asked,
                                                 const std::vector<std::pair<std::string, std::string>>& defines,
                                                 const std::vector<sass::SassFunctionProfile>& functions, int arch) {
  const spec::SourceAnnotations annotations = spec::parse_source_annotations(read_file(kernel), kernel.string());
  const std::map<std::string, std::string> define_map(defines.begin(), defines.end());
  return check_methods(load_method_catalog(), load_sass_signatures(), annotations.methods, asked, define_map, functions,
                       arch);
}

void to_json(nlohmann::json& out, const MethodEvidence& e) {
  out = {{"method", e.method}, {"macro", e.macro},     {"switched_on", e.switched_on},
         {"source", e.source}, {"match", e.match}};
}

}  // namespace kopt::catalog
