#include "kopt/measure/stream_judgement.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kopt::measure {
void keep_finding(std::vector<std::string>& kept, const std::string& line) {
  if (kept.size() < kStreamFindingsKept && std::ranges::find(kept, line) == kept.end()) kept.push_back(line);
}

bool record_call_work(VariantSamples& samples, const std::vector<run::CallWork>& calls,
                      const std::vector<run::TimedLaunch>& unbatched) {
  bool outside = false;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const run::CallWork& call = calls[i];
    for (const std::string& what : call.outside) keep_finding(samples.streams_outside, what);
    for (const std::string& what : call.unjoined) keep_finding(samples.work_unjoined, what);
    outside = outside || call.sent_outside();
    if (calls.size() > 1 && call.timed != unbatched) {
      keep_finding(samples.batch_calls_unlike, fmt::format("call {} of {} launched {} where an unbatched call launches {}", i + 1,
                                                   calls.size(), run::describe(call.timed), run::describe(unbatched)));
    }
  }
  return outside;
}

}  // namespace kopt::measure
