#pragma once
// The human summary of `kopt sass`: per kernel function its resources and instruction mix,
// and with a second kernel the opcode differences.

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "kopt/build/ptxas_report.hpp"
#include "kopt/catalog/method_evidence.hpp"
#include "kopt/sass/kernel_sass.hpp"
#include "kopt/sass/sass_profile.hpp"

namespace kopt::report {

std::string format_sass_profile(const sass::SassProfile& profile, const build::PtxasReport& resources);

// Opcodes whose counts differ between a's and b's function (both named in the header).
std::string format_sass_diff(const sass::SassFunctionProfile& a, const sass::SassFunctionProfile& b);

// One line per method: found (with the instructions), MISSING, switched off, or not verifiable.
std::string format_method_evidence(const std::vector<catalog::MethodEvidence>& methods);

// One kernel as `kopt sass` was given it (`name`: the target as typed) and its machine code.
struct NamedSass {
  std::string name;
  const sass::KernelSass& sass;
};

// `kopt sass`'s output, as sass.json (kind "sass") and as text: the kernel's profile and
// resources and its methods' signatures; with `vs`, the other kernel and the opcode
// differences of each pair of functions the two share.
struct SassReport {
  nlohmann::json document;
  std::string text;
};
SassReport sass_report(const NamedSass& kernel, const std::vector<catalog::MethodEvidence>& methods,
                       const std::optional<NamedSass>& vs);

}  // namespace kopt::report
