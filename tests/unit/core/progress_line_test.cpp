#include "kopt/core/progress_line.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>

namespace kopt {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::Not;

// A terminal that records every write, and a clock the test moves by hand.
class FakeTerminal {
 public:
  explicit FakeTerminal(bool is_tty = true, int columns = 80) : is_tty_(is_tty), columns_(columns) {}

  std::unique_ptr<ProgressLine> line(bool json_output = false) {
    Terminal terminal{.write = [this](std::string_view bytes) { writes.emplace_back(bytes); },
                      .is_tty = is_tty_, .columns = columns_};
    return std::make_unique<ProgressLine>(std::move(terminal), json_output, [this] { return now; });
  }
  void advance(std::chrono::milliseconds by) { now += by; }
  std::string all() const {
    std::string joined;
    for (const std::string& w : writes) joined += w;
    return joined;
  }
  // What a person sees on the current row after the writes: '\r' returns to its start, and
  // each character (a UTF-8 sequence) takes one cell.
  std::string visible() const {
    std::vector<std::string> cells;
    std::size_t column = 0;
    for (char c : all()) {
      if (c == '\r') { column = 0; continue; }
      if (c == '\n') { cells.clear(); column = 0; continue; }
      if ((c & 0xC0) == 0x80) { cells[column - 1] += c; continue; }  // continues the last character
      if (column < cells.size()) cells[column] = std::string(1, c);
      else cells.emplace_back(1, c);
      ++column;
    }
    std::string row;
    for (const std::string& cell : cells) row += cell;
    return row.substr(0, row.find_last_not_of(' ') + 1);
  }

  std::vector<std::string> writes;
  ProgressLine::Clock::time_point now{};

 private:
  bool is_tty_;
  int columns_;
};

TEST(ProgressLine, DrawsTheWorkWithItsElapsedTimeInPlace) {
  FakeTerminal terminal;
  auto line = terminal.line();
  ProgressScope compiling(line.get(), "compiling 0/8 variants");
  terminal.advance(2100ms);
  compiling.update("compiling 5/8 variants");
  EXPECT_EQ(terminal.visible(), "compiling 5/8 variants · 2.1 s");
  EXPECT_EQ(terminal.writes.back().front(), '\r');
}

TEST(ProgressLine, RedrawsAtMostTenTimesASecond) {
  FakeTerminal terminal;
  auto line = terminal.line();
  ProgressScope measuring(line.get(), "measuring");
  for (int sample = 1; sample <= 1000; ++sample) {  // a sample every millisecond for a second
    terminal.advance(1ms);
    measuring.update("measuring b3: " + std::to_string(sample) + " samples");
  }
  EXPECT_LE(terminal.writes.size(), 11u);
  // The latest counts are not lost: the next tick shows them.
  terminal.advance(100ms);
  line->tick();
  EXPECT_EQ(terminal.visible(), "measuring b3: 1000 samples · 1.1 s");
}

TEST(ProgressLine, TicksKeepTheElapsedTimeMovingWithoutNewCounts) {
  FakeTerminal terminal;
  auto line = terminal.line();
  ProgressScope profiling(line.get(), "profiling");
  terminal.advance(50ms);
  line->tick();  // too soon after the first draw
  EXPECT_EQ(terminal.writes.size(), 1u);
  terminal.advance(12050ms);
  line->tick();
  EXPECT_EQ(terminal.visible(), "profiling · 12.1 s");
}

TEST(ProgressLine, NestedWorkShowsEveryLevelAndTheOuterOneAgainWhenItEnds) {
  FakeTerminal terminal;
  auto line = terminal.line();
  ProgressScope variant(line.get(), "iter1/b3 (4/9)");
  {
    ProgressScope worker(line.get(), "verifying");
    terminal.advance(1s);
    worker.update("verifying: case default seed 1: first call");
    EXPECT_EQ(terminal.visible(), "iter1/b3 (4/9): verifying: case default seed 1: first call · 1.0 s");
    terminal.advance(1s);
  }
  EXPECT_EQ(terminal.visible(), "iter1/b3 (4/9) · 2.0 s");
}

TEST(ProgressLine, IsErasedWhenTheWorkEndsEvenByAnException) {
  FakeTerminal terminal;
  auto line = terminal.line();
  try {
    ProgressScope work(line.get(), "timing");
    terminal.advance(300ms);
    work.update("timing: case default: measuring 2 variants: 140 samples");
    throw std::runtime_error("the worker crashed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_THAT(terminal.all(), HasSubstr("140 samples"));
  EXPECT_EQ(terminal.visible(), "");
  EXPECT_EQ(terminal.writes.back().back(), '\r');
  const std::size_t writes = terminal.writes.size();
  terminal.advance(1s);
  line->tick();  // nothing to show any more
  EXPECT_EQ(terminal.writes.size(), writes);
}

TEST(ProgressLine, AShorterLineCoversTheLongerOneBeforeIt) {
  FakeTerminal terminal;
  auto line = terminal.line();
  ProgressScope work(line.get(), "a rather long description of the work");
  terminal.advance(200ms);
  work.update("short");
  EXPECT_EQ(terminal.visible(), "short · 0.2 s");
}

TEST(ProgressLine, IsCutToTheTerminalWidth) {
  FakeTerminal terminal(true, 20);
  auto line = terminal.line();
  ProgressScope work(line.get(), "checking every variant of the iteration");
  EXPECT_EQ(terminal.visible(), "checking every vari");
}

TEST(ProgressLine, LogLinesArePrintedAboveTheLiveLine) {
  FakeTerminal terminal;
  auto line = terminal.line();
  ProgressScope work(line.get(), "compiling 1/8 variants");
  line->print_above("kopt: iter1: measuring 8 branch(es) against the best");
  EXPECT_THAT(terminal.all(), HasSubstr("\rkopt: iter1: measuring 8 branch(es) against the best\n"));
  EXPECT_EQ(terminal.visible(), "compiling 1/8 variants · 0.0 s");
}

TEST(ProgressLine, DrawsNothingWhenStandardErrorIsNotATerminal) {
  FakeTerminal terminal(false);
  auto line = terminal.line();
  EXPECT_TRUE(line->quiet());
  {
    ProgressScope work(line.get(), "timing");
    terminal.advance(1s);
    work.update("timing: 140 samples");
    line->tick();
  }
  line->print_above("kopt: a log line");
  EXPECT_EQ(terminal.all(), "kopt: a log line\n");
  EXPECT_THAT(terminal.all(), Not(HasSubstr("\r")));
}

TEST(ProgressLine, DrawsNothingInJsonMode) {
  FakeTerminal terminal(true);
  auto line = terminal.line(/*json_output=*/true);
  EXPECT_TRUE(line->quiet());
  ProgressScope work(line.get(), "timing");
  terminal.advance(1s);
  line->tick();
  EXPECT_TRUE(terminal.writes.empty());
}

TEST(ProgressScope, ANullLineLeavesTheRealOneUntouched) {
  // Library code is handed a null line when nothing is drawn (--json, a pipe): its scopes
  // must neither fail nor reach a line that another part of the program draws.
  FakeTerminal terminal;
  auto line = terminal.line();
  ProgressScope outer(line.get(), "compiling");
  const std::size_t writes_before = terminal.writes.size();
  const std::string shown_before = terminal.visible();
  EXPECT_NO_THROW({
    ProgressScope work(nullptr, "timing");
    work.update("timing: 140 samples");
  });
  terminal.advance(1s);
  EXPECT_EQ(terminal.writes.size(), writes_before);
  EXPECT_EQ(terminal.visible(), shown_before);
  EXPECT_THAT(terminal.all(), Not(HasSubstr("timing")));
}

}  // namespace
}  // namespace kopt
