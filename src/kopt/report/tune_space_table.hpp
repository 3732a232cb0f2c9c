#pragma once
// What `kopt tune-space` prints: each candidate constant of an unannotated kernel with its
// proposed values, what the source already declares, the launch limits found in it, the
// compile-options axis and whether the space is worth a search.

#include <string>
#include <vector>

#include "kopt/discover/launch_limits.hpp"
#include "kopt/discover/triton_launch.hpp"
#include "kopt/discover/tune_space.hpp"

namespace kopt::report {

std::string format_tune_space(const std::string& kernel_name, const discover::TuneSpace& space,
                              const std::vector<discover::LaunchRestriction>& restrictions);

// A Triton kernel without @triton.autotune lists: the constants kernel.py passes where it
// launches its kernels (discover/triton_launch.hpp), which the tuner searches in copies of
// kernel.py. "" when it passes none.
std::string format_triton_launch_space(const std::string& kernel_name, const discover::TritonLaunchSpace& space);

}  // namespace kopt::report
