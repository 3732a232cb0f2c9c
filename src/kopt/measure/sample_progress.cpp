#include "kopt/measure/sample_progress.hpp"

#include <fmt/format.h>

#include "kopt/run/worker_launcher.hpp"

namespace kopt::measure {

SampleProgress::SampleProgress(std::string case_name, std::size_t variants,
                               std::function<void(const std::string&)> report, const Clock& clock)
    : case_name_(std::move(case_name)),
      variants_(variants),
      report_(report ? std::move(report) : run::report_progress),
      clock_(clock) {}

void SampleProgress::sampled(const std::string& label, bool done) {
  ++samples_[label];
  if (done) done_.insert(label);
  const auto now = clock_.now();
  if (last_report_ && now - *last_report_ < kReportInterval) return;
  last_report_ = now;
  report_(line());
}

std::string SampleProgress::line() const {
  std::size_t total = 0;
  for (const auto& [label, count] : samples_) total += count;
  if (variants_ == 1 && !samples_.empty()) {
    return fmt::format("case {}: measuring {}: {} samples", case_name_, samples_.begin()->first, total);
  }
  return fmt::format("case {}: measuring {} variants: {} samples, {} still sampling", case_name_, variants_, total,
                     variants_ - done_.size());
}

}  // namespace kopt::measure
