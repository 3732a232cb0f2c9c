#pragma once
// The human summary of `kopt plan`: per axis the budget, the methods chosen with the values
// that triggered them, and why each higher-priority method was passed over.

#include <string>
#include <vector>

#include "kopt/catalog/methods_validator.hpp"
#include "kopt/catalog/planner.hpp"

namespace kopt::report {

std::string format_plan(const catalog::Plan& plan);
std::string format_violations(const std::vector<catalog::Violation>& violations);

}  // namespace kopt::report
