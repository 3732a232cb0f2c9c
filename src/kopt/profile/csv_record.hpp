#pragma once
// One record of RFC 4180 CSV, split into fields. No Debian package offers a small C++ CSV
// reader that kopt could take header-only and static (libcsv is C, not in the image, and
// would need a new build dependency), and Nsight Compute's CSV is simple: one record per
// line, every field quoted. This splitter is strict instead of forgiving, so a line that is
// not CSV (the profiled program's own output) is recognised as such and not guessed.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kopt::profile {

// Splits one line (no line break inside) into fields: quoted fields may hold commas and
// doubled quotes (""), unquoted fields may not hold a quote. Returns nullopt when the line
// is not well-formed CSV: an unterminated quote, or text after a closing quote.
std::optional<std::vector<std::string>> split_csv_record(std::string_view line);

}  // namespace kopt::profile
