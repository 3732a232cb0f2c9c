#pragma once
// What `kopt tune-space` prints: each candidate constant of an unannotated kernel with its
// proposed values, what the source already declares, the launch limits found in it, the
// compile-options axis and whether the space is worth a search.

#include <string>
#include <vector>

#include "kopt/discover/launch_limits.hpp"
#include "kopt/discover/tune_space.hpp"

namespace kopt::report {

std::string format_tune_space(const std::string& kernel_name, const discover::TuneSpace& space,
                              const std::vector<discover::LaunchRestriction>& restrictions);

}  // namespace kopt::report
