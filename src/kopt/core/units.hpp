#pragma once
// Rates as people read them, for the doctor's survey and the report's tables and charts.

#include <string>

namespace kopt {

// "67 TFLOP/s", "4.8 TB/s", "850 GFLOP/s": three significant digits and an SI prefix.
std::string format_rate(double per_second, const std::string& unit);

}  // namespace kopt
