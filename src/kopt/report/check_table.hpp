#pragma once
// The human summary of `kopt check`: a header, one row per (case, seed), a verdict line.

#include <string>

#include "kopt/verify/check.hpp"

namespace kopt::report {

std::string format_check_report(const verify::CheckReport& report);
// The lines a check adds before its verdict: unconfined writes, one WARN per source-audit
// finding (FAIL under --strict), one WARN per warning of the check (verify/input_dependence.hpp).
std::string check_warning_lines(const verify::CheckReport& report);

// With --sanitize: one line per compute-sanitizer tool, then one per finding.
std::string sanitizer_lines(const verify::CheckReport& report);

}  // namespace kopt::report
