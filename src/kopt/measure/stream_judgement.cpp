#include "kopt/measure/stream_judgement.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kopt::measure {
namespace {

void keep(std::vector<std::string>& kept, const std::string& line) {
  if (kept.size() < kStreamFindingsKept && std::ranges::find(kept, line) == kept.end()) kept.push_back(line);
}

}  // namespace

bool record_call_work(VariantSamples& samples, const std::vector<run::CallWork>& calls,
                      const std::vector<run::TimedLaunch>& unbatched) {
  bool outside = false;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const run::CallWork& call = calls[i];
    for (const std::string& what : call.outside) keep(samples.streams_outside, what);
    for (const std::string& what : call.unjoined) keep(samples.work_unjoined, what);
    outside = outside || call.sent_outside();
    if (calls.size() > 1 && call.timed != unbatched) {
      keep(samples.batch_calls_unlike, fmt::format("call {} of {} launched {} where an unbatched call launches {}", i + 1,
                                                   calls.size(), run::describe(call.timed), run::describe(unbatched)));
    }
  }
  return outside;
}

std::vector<std::string> describe_each(const std::vector<run::TimedLaunch>& launches) {
  std::vector<std::string> lines;
  for (const run::TimedLaunch& launch : launches) lines.push_back(run::describe(launch));
  return lines;
}

}  // namespace kopt::measure
