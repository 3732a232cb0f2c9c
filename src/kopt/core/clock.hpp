#pragma once
// Time as kopt reads it: elapsed time through one injectable Clock (a ManualClock in tests),
// the Stopwatch every step of kopt times itself with, and wall-clock time as kopt writes it
// into files and logs.

#include <chrono>
#include <string>

namespace kopt {

// Elapsed time; tests advance a ManualClock by hand.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual std::chrono::steady_clock::time_point now() const = 0;
};

class SteadyClock final : public Clock {
 public:
  std::chrono::steady_clock::time_point now() const override { return std::chrono::steady_clock::now(); }
};

class ManualClock final : public Clock {
 public:
  std::chrono::steady_clock::time_point now() const override { return now_; }
  void advance(std::chrono::duration<double> by) {
    now_ += std::chrono::duration_cast<std::chrono::steady_clock::duration>(by);
  }

 private:
  std::chrono::steady_clock::time_point now_{};
};

// The clock a process uses when no context names one.
Clock& steady_clock();

// Seconds since it started, and since its last lap, on one Clock: how kopt times its own
// steps (a check's phases, a worker's set-up, a sample's host time) and its deadlines.
class Stopwatch {
 public:
  explicit Stopwatch(const Clock& clock = steady_clock()) : clock_(&clock), start_(clock.now()), mark_(start_) {}
  double seconds() const { return std::chrono::duration<double>(clock_->now() - start_).count(); }
  // Seconds since the last lap (or the start); the next lap starts now.
  double lap() {
    const auto now = clock_->now();
    const double seconds = std::chrono::duration<double>(now - mark_).count();
    mark_ = now;
    return seconds;
  }
  void lap(double& phase) { phase += lap(); }

 private:
  const Clock* clock_;
  std::chrono::steady_clock::time_point start_, mark_;
};

// Now, in UTC, as ISO 8601 to the second ("2026-11-29T14:56:15Z"), or in another strftime
// format.
std::string utc_timestamp(const char* format = "%Y-%m-%dT%H:%M:%SZ");

}  // namespace kopt
