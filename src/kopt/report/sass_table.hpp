#pragma once
// The human summary of `kopt sass`: per kernel function its resources and instruction mix,
// and with a second kernel the opcode differences.

#include <optional>
#include <string>

#include "kopt/build/ptxas_report.hpp"
#include "kopt/catalog/method_evidence.hpp"
#include "kopt/sass/sass_profile.hpp"

namespace kopt::report {

std::string format_sass_profile(const sass::SassProfile& profile, const build::PtxasReport& resources);

// Opcodes whose counts differ between a's and b's function (both named in the header).
std::string format_sass_diff(const sass::SassFunctionProfile& a, const sass::SassFunctionProfile& b);

// One line per method: found (with the instructions), MISSING, switched off, or not verifiable.
std::string format_method_evidence(const std::vector<catalog::MethodEvidence>& methods);

}  // namespace kopt::report
