#include "kopt/core/progress_line.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

namespace kopt {
namespace {

// Columns a UTF-8 text takes, counting one per code point (the line holds no wide characters).
std::size_t columns_of(std::string_view text) {
  return static_cast<std::size_t>(std::ranges::count_if(text, [](char c) { return (c & 0xC0) != 0x80; }));
}

// The longest prefix of `text` that fits in `columns`, never cutting a code point in two.
std::string_view cut_to(std::string_view text, std::size_t columns) {
  std::size_t seen = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((text[i] & 0xC0) == 0x80) continue;
    if (seen++ == columns) return text.substr(0, i);
  }
  return text;
}

int stderr_columns() {
  winsize size{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return 80;
}

}  // namespace

ProgressLine::ProgressLine(Terminal terminal, bool json_output, std::function<Clock::time_point()> now)
    : terminal_(std::move(terminal)), quiet_(json_output || !terminal_.is_tty), now_(std::move(now)) {}

ProgressLine::~ProgressLine() {
  if (ticker_.joinable()) {
    ticker_.request_stop();
    ticker_.join();
  }
  std::lock_guard lock(mutex_);
  erase();
}

std::unique_ptr<ProgressLine> ProgressLine::on_stderr(bool json_output) {
  Terminal terminal{.write = [](std::string_view bytes) {
                      std::fwrite(bytes.data(), 1, bytes.size(), stderr);
                      std::fflush(stderr);
                    },
                    .is_tty = ::isatty(STDERR_FILENO) == 1,
                    .columns = stderr_columns()};
  auto line = std::make_unique<ProgressLine>(std::move(terminal), json_output);
  if (!line->quiet()) {
    line->ticker_ = std::jthread([raw = line.get()](std::stop_token stop) { raw->tick_until_stopped(stop); });
  }
  return line;
}

std::uint64_t ProgressLine::start(std::string text) {
  std::lock_guard lock(mutex_);
  const std::uint64_t id = next_id_++;
  stack_.push_back({id, std::move(text), now_()});
  draw(false);
  return id;
}

void ProgressLine::update(std::uint64_t id, std::string text) {
  std::lock_guard lock(mutex_);
  const auto work = std::ranges::find(stack_, id, &Work::id);
  if (work == stack_.end()) return;
  work->text = std::move(text);
  draw(false);
}

void ProgressLine::finish(std::uint64_t id) {
  std::lock_guard lock(mutex_);
  const auto work = std::ranges::find(stack_, id, &Work::id);
  if (work == stack_.end()) return;
  stack_.erase(work);
  // The end of all work is shown at once: nothing may be left behind on the terminal.
  if (stack_.empty()) erase();
  else draw(false);
}

void ProgressLine::tick() {
  std::lock_guard lock(mutex_);
  draw(false);
}

void ProgressLine::print_above(std::string_view line) {
  std::lock_guard lock(mutex_);
  const bool was_shown = !shown_.empty();
  erase();
  terminal_.write(std::string(line) + "\n");
  if (was_shown) draw(true);
}

std::string ProgressLine::compose() const {
  if (stack_.empty()) return "";
  std::string text;
  for (const Work& work : stack_) {
    if (work.text.empty()) continue;
    text += (text.empty() ? "" : ": ") + work.text;
  }
  const double elapsed = std::chrono::duration<double>(now_() - stack_.front().started).count();
  text += fmt::format(" · {:.1f} s", elapsed);
  // One column is left free: a line that fills the row makes some terminals wrap.
  const std::size_t room = static_cast<std::size_t>(std::max(terminal_.columns - 1, 1));
  return std::string(cut_to(text, room));
}

void ProgressLine::draw(bool force) {
  if (quiet_ || stack_.empty()) return;
  const Clock::time_point now = now_();
  if (!force && last_draw_ && now - *last_draw_ < kMinRedrawInterval) return;
  std::string text = compose();
  if (text == shown_) return;
  const std::size_t columns = columns_of(text);
  // Spaces over what is left of a longer previous line.
  std::string bytes = "\r" + text + std::string(shown_columns_ > columns ? shown_columns_ - columns : 0, ' ');
  terminal_.write(bytes);
  shown_ = std::move(text);
  shown_columns_ = columns;
  last_draw_ = now;
}

void ProgressLine::erase() {
  if (quiet_ || shown_.empty()) return;
  std::string blank(shown_columns_ + 2, ' ');  // "\r", the line's width in spaces, "\r"
  blank.front() = '\r';
  blank.back() = '\r';
  terminal_.write(blank);
  shown_.clear();
  shown_columns_ = 0;
}

void ProgressLine::tick_until_stopped(std::stop_token stop) {
  std::unique_lock lock(mutex_);
  while (!stop.stop_requested()) {
    wake_.wait_for(lock, stop, kMinRedrawInterval, [] { return false; });
    if (!stop.stop_requested()) draw(false);
  }
}

ProgressScope::ProgressScope(ProgressLine* line, std::string text) : line_(line) {
  if (line_ != nullptr) id_ = line_->start(std::move(text));
}

ProgressScope::~ProgressScope() {
  if (line_ != nullptr) line_->finish(id_);
}

void ProgressScope::update(std::string text) {
  if (line_ != nullptr) line_->update(id_, std::move(text));
}

}  // namespace kopt
