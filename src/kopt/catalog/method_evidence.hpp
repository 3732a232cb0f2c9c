#pragma once
// Whether the methods a kernel claims are really in its machine code: for each method, its
// catalog entry's SASS signature matched against the parsed opcodes of the kernel's own
// functions. A method switched off in this build (its KOPT_USE_ macro is 0) is reported as
// such, not as missing; a method whose signature is "none" is not verifiable, never "found".

#include <filesystem>
#include <map>
#include <utility>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "kopt/catalog/method_catalog.hpp"
#include "kopt/catalog/sass_signature.hpp"
#include "kopt/spec/kernel_signature.hpp"

namespace kopt::catalog {

struct MethodEvidence {
  std::string method;        // catalog id
  std::string macro;         // KOPT_USE_...
  bool switched_on = true;   // in this build
  std::string source;        // "declared" (kopt:method in the source) or "asked" (--method)
  SignatureMatch match;      // not_verifiable with a reason when switched off
};

// The methods the source declares plus `asked`, each checked in `functions`. `defines` are the
// build's -D overrides (a KOPT_USE_ macro set to 0 switches its method off). Throws
// Error(bad_input) for a method id the catalog does not know.
std::vector<MethodEvidence> check_methods(const MethodCatalog& catalog, const SignatureTable& signatures,
                                          const std::vector<spec::MethodSwitch>& declared,
                                          const std::vector<std::string>& asked,
                                          const std::map<std::string, std::string>& defines,
                                          const std::vector<sass::SassFunctionProfile>& functions, int arch);

// As above for the kernel source at `kernel` (its kopt:method declarations), with the data
// files' catalog and signatures and the build's -D overrides as given to the compiler.
std::vector<MethodEvidence> check_kernel_methods(const std::filesystem::path& kernel,
                                                 const std::vector<std::string>& asked,
                                                 const std::vector<std::pair<std::string, std::string>>& defines,
                                                 const std::vector<sass::SassFunctionProfile>& functions, int arch);

void to_json(nlohmann::json& out, const MethodEvidence& evidence);

}  // namespace kopt::catalog
