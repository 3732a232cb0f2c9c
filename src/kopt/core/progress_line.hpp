#pragma once
// One live status line on a terminal for long work — "compiling 5/8 variants · 12.3 s" —
// redrawn in place with '\r' at most ten times a second and erased when the work ends.
//
// Work nests: a loop's measurement checks each variant, and each check runs a worker, so the
// line shows every level, outermost first ("iter1/b3 (4/9): verifying: case default seed 1:
// first call · 3.2 s"), with the time since the outermost began. Library code reports through
// a ProgressLine* that may be null; a front end makes one that is quiet (draws nothing) in
// --json mode or when standard error is not a terminal, so scripts and logs never see it.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace kopt {

// Where the line is drawn, behind a narrow interface so that tests use a fake.
struct Terminal {
  std::function<void(std::string_view)> write;  // the bytes, as they are to appear
  bool is_tty = false;                          // false: a file or a pipe, where nothing is drawn
  int columns = 80;                             // the line is cut to fit one row
};

class ProgressLine {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::milliseconds kMinRedrawInterval{100};  // ≤ 10 redraws per second

  // Quiet (nothing drawn) when `json_output` or when the terminal is not a tty.
  ProgressLine(Terminal terminal, bool json_output, std::function<Clock::time_point()> now = Clock::now);
  ~ProgressLine();  // erases the line
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // On standard error, with a background ticker that keeps the elapsed time moving while the
  // work itself reports nothing (an ncu run, a long compile).
  static std::unique_ptr<ProgressLine> on_stderr(bool json_output);

  bool quiet() const { return quiet_; }

  // Begins a piece of work inside the current one; its id is what update() and finish() take.
  std::uint64_t start(std::string text);
  // The work's new text (counts); drawn now, or at the next tick when the last draw is recent.
  void update(std::uint64_t id, std::string text);
  // Ends the work: the line shows the enclosing work again, or is erased when none is left.
  void finish(std::uint64_t id);
  // Redraws when the shown text or elapsed time changed and the last draw is old enough.
  void tick();
  // Prints a permanent line (a log line) above the live one, which is redrawn after it.
  void print_above(std::string_view line);

 private:
  struct Work {
    std::uint64_t id;
    std::string text;
    Clock::time_point started;
  };

  std::string compose() const;                    // the visible text, cut to the terminal
  void draw(bool force);                          // with mutex_ held
  void erase();                                   // with mutex_ held
  void tick_until_stopped(std::stop_token stop);  // the background ticker

  Terminal terminal_;
  bool quiet_;
  std::function<Clock::time_point()> now_;
  std::mutex mutex_;
  std::vector<Work> stack_;
  std::uint64_t next_id_ = 1;
  std::string shown_;                 // what the terminal shows now ("" when erased)
  std::size_t shown_columns_ = 0;
  std::optional<Clock::time_point> last_draw_;  // none yet
  std::condition_variable_any wake_;
  std::jthread ticker_;               // declared last: stopped and joined first
};

// A piece of work shown on the line for as long as it lives, so that the line is erased
// when the work ends, an exception included. A null line makes it do nothing.
class ProgressScope {
 public:
  ProgressScope(ProgressLine* line, std::string text);
  ~ProgressScope();
  ProgressScope(const ProgressScope&) = delete;
  ProgressScope& operator=(const ProgressScope&) = delete;

  void update(std::string text);  // safe from any thread

 private:
  ProgressLine* line_;
  std::uint64_t id_ = 0;
};

}  // namespace kopt
