#pragma once
// The human summaries of `kopt profile` and `kopt roofline`: which kernels one solve call
// launched and how long each took, the readings furthest from good per axis, and where the
// call stands on the roofline.

#include <string>

#include "kopt/profile/profiler.hpp"
#include "kopt/roofline/roofline_analysis.hpp"

namespace kopt::report {

std::string format_profile_report(const profile::ProfileReport& report);

std::string format_roofline(const roofline::RooflineAnalysis& analysis);

// "12.3 ms", "850 µs", "4.1 ns".
std::string format_seconds(double seconds);

}  // namespace kopt::report
