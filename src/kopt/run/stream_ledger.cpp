#include "kopt/run/stream_ledger.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace kopt::run {

std::string describe(const TimedLaunch& launch) {
  // Copies, memsets, graphs and host functions have no grid: their API's name says what they are.
  if (launch.grid == std::array<unsigned, 3>{}) return launch.kernel;
  return fmt::format("{}<<<({}),({})>>>", launch.kernel, fmt::join(launch.grid, ","), fmt::join(launch.block, ","));
}

std::vector<std::string> describe_each(const std::vector<TimedLaunch>& launches) {
  std::vector<std::string> lines;
  for (const TimedLaunch& launch : launches) lines.push_back(describe(launch));
  return lines;
}

std::string describe(const std::vector<TimedLaunch>& launches) {
  if (launches.empty()) return "nothing";
  return fmt::format("{}", fmt::join(describe_each(launches), ", "));
}

void StreamLedger::sent_outside(Handle stream, const std::string& what) {
  Stream& s = outside_[stream];
  ++s.sent;
  if (std::ranges::find(s.what, what) == s.what.end()) s.what.push_back(what);
}

void StreamLedger::recorded(Handle event, Handle stream, bool stream_in_order) {
  const auto it = outside_.find(stream);
  if (stream_in_order || it == outside_.end()) {
    events_.erase(event);  // re-recorded: it no longer stands for earlier work
    return;
  }
  events_[event] = RecordedEvent{.stream = stream, .covers = it->second.sent};
}

void StreamLedger::waited(bool stream_in_order, Handle event) {
  // An outside stream waiting for another joins nothing by itself: what it then runs is
  // outside too, and is joined only when it is.
  if (!stream_in_order) return;
  event_finished(event);
}

void StreamLedger::event_finished(Handle event) {
  const auto it = events_.find(event);
  if (it != events_.end()) join(it->second.stream, it->second.covers);
}

void StreamLedger::stream_finished(Handle stream) {
  const auto it = outside_.find(stream);
  if (it != outside_.end()) join(stream, it->second.sent);
}

void StreamLedger::device_finished() {
  for (auto& [handle, s] : outside_) s.joined = s.sent;
}

void StreamLedger::join(Handle stream, int upto) {
  Stream& s = outside_[stream];
  s.joined = std::max(s.joined, upto);
}

CallWork StreamLedger::finish() {
  CallWork work = std::move(work_);
  for (const auto& [handle, s] : outside_) {
    for (const std::string& what : s.what) {
      if (std::ranges::find(work.outside, what) == work.outside.end()) work.outside.push_back(what);
      if (s.joined < s.sent && std::ranges::find(work.unjoined, what) == work.unjoined.end()) {
        work.unjoined.push_back(what);
      }
    }
  }
  *this = StreamLedger{};
  return work;
}

}  // namespace kopt::run
