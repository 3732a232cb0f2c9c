#include "kopt/core/units.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace kopt {

std::string format_rate(double per_second, const std::string& unit) {
  static constexpr std::array kPrefixes = {"", "k", "M", "G", "T", "P", "E"};
  int group = per_second > 0 ? static_cast<int>(std::floor(std::log10(per_second) / 3)) : 0;
  group = std::clamp(group, 0, static_cast<int>(kPrefixes.size()) - 1);
  return fmt::format("{:.3g} {}{}", per_second / std::pow(1000.0, group), kPrefixes[group], unit);
}

}  // namespace kopt
