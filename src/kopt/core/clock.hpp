#pragma once
// Wall-clock time as kopt writes it into files and logs.

#include <string>

namespace kopt {

// Now, in UTC, as ISO 8601 to the second ("2026-11-29T14:56:15Z"), or in another strftime
// format.
std::string utc_timestamp(const char* format = "%Y-%m-%dT%H:%M:%SZ");

}  // namespace kopt
