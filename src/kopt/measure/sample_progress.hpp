#pragma once
// Worker side of a timing job: while the variants are sampled interleaved, a progress line
// ("case default: measuring 3 variants: 1262 samples, 2 still sampling") at most four times
// a second. The parent reads the worker's progress lines as they come and shows them on its
// live line (core/progress_line.hpp), so this is the only channel the counts need.

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "kopt/core/clock.hpp"

namespace kopt::measure {

class SampleProgress {
 public:
  static constexpr std::chrono::milliseconds kReportInterval{250};

  // `report` receives each line (the worker's run::report_progress by default).
  SampleProgress(std::string case_name, std::size_t variants,
                 std::function<void(const std::string&)> report = {},
                 const Clock& clock = steady_clock());

  // One sample of `label` was taken (kept or discarded as throttled); `done`: the variant has
  // stopped sampling.
  void sampled(const std::string& label, bool done);

  // The line as it stands: the counts so far.
  std::string line() const;

 private:
  std::string case_name_;
  std::size_t variants_;
  std::function<void(const std::string&)> report_;
  const Clock& clock_;
  std::map<std::string, std::size_t> samples_;
  std::set<std::string> done_;
  std::optional<std::chrono::steady_clock::time_point> last_report_;
};

}  // namespace kopt::measure
