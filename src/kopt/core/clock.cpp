#include "kopt/core/clock.hpp"

#include <ctime>

namespace kopt {

Clock& steady_clock() {
  static SteadyClock clock;
  return clock;
}

std::string utc_timestamp(const char* format) {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[64];
  std::strftime(text, sizeof text, format, &tm);
  return text;
}

}  // namespace kopt
