#pragma once
// The human summary of `kopt bench` and `kopt compare`.

#include <string>

#include "kopt/measure/bench.hpp"

namespace kopt::report {

std::string format_bench_report(const measure::BenchReport& report);

// "12.35 ms", "850.2 µs": a duration in seconds with a unit that suits it.
std::string format_duration(double seconds);

}  // namespace kopt::report
