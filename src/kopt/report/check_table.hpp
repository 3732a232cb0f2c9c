#pragma once
// The human summary of `kopt check`: a header, one row per (case, seed), a verdict line.

#include <string>

#include "kopt/verify/check.hpp"

namespace kopt::report {

std::string format_check_report(const verify::CheckReport& report);
// One WARN line per source-audit finding (FAIL under --strict).
std::string source_audit_lines(const verify::CheckReport& report);

// With --sanitize: one line per compute-sanitizer tool, then one per finding.
std::string sanitizer_lines(const verify::CheckReport& report);

}  // namespace kopt::report
