// The witness's signals: the worker's side that writes them (SampleSignals), and the parent's
// side that reads them as they come (SampleWitness, SignalParser) into the spans it saw
// (WitnessedSpans). The rules that judge those spans are in sample_witness.cpp.
#include "kopt/measure/sample_witness.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <charconv>

#include "kopt/core/error.hpp"
#include "kopt/measure/witness_file.hpp"

namespace kopt::measure {

// ---- Worker side ------------------------------------------------------------------------

std::string signal_line(char kind, std::uint32_t id) { return fmt::format("{} {}\n", kind, id); }

std::uint32_t SampleSignals::begin() {
  const std::uint32_t id = reserve();
  begin(id);
  return id;
}

std::uint32_t SampleSignals::hold() {
  const std::uint32_t id = reserve();
  hold(id);
  return id;
}

void SampleSignals::hold(std::uint32_t id) {
  if (on() && id != 0) send('H', id);
}

std::vector<std::string> record_lines(char kind, std::uint32_t id, const std::vector<std::uint64_t>& values) {
  if (values.empty()) return {fmt::format("{} {} \n", kind, id)};
  std::vector<std::string> lines;
  for (std::size_t first = 0; first < values.size(); first += kRecordValuesPerLine) {
    const auto begin = values.begin() + static_cast<std::ptrdiff_t>(first);
    const auto end = values.begin() + static_cast<std::ptrdiff_t>(std::min(first + kRecordValuesPerLine, values.size()));
    lines.push_back(fmt::format("{} {} {:x}\n", kind, id, fmt::join(begin, end, ",")));
  }
  return lines;
}

void SampleSignals::record(char kind, std::uint32_t id, const std::vector<std::uint64_t>& values) const {
  if (!on() || id == 0) return;
  for (const std::string& line : record_lines(kind, id, values)) write_line(line);
}

void SampleSignals::begin(std::uint32_t id) {
  if (on() && id != 0) send('B', id);
}

void SampleSignals::end(std::uint32_t id) {
  if (on() && id != 0) send('E', id);
}

void SampleSignals::send(char kind, std::uint32_t id) const { write_line(signal_line(kind, id)); }

void SampleSignals::write_line(const std::string& line) const {
  // < PIPE_BUF: one write, never interleaved
  while (::write(fd_, line.data(), line.size()) < 0 && errno == EINTR) {
  }
}

// ---- Parent side ------------------------------------------------------------------------

namespace {

using Moment = std::optional<double> WitnessedSpans::Span::*;

// From one moment of sample `id` to a later one, when both arrived in that order.
std::optional<double> between(const WitnessedSpans& spans, std::uint32_t id, Moment from, Moment to) {
  const auto found = spans.spans.find(id);
  if (found == spans.spans.end()) return std::nullopt;
  const std::optional<double>& first = found->second.*from;
  const std::optional<double>& second = found->second.*to;
  if (!first || !second || *second < *first) return std::nullopt;
  return *second - *first;
}

}  // namespace

std::optional<double> WitnessedSpans::seconds(std::uint32_t id) const {
  return between(*this, id, &Span::begin, &Span::end);
}

std::optional<double> WitnessedSpans::held_seconds(std::uint32_t id) const {
  return between(*this, id, &Span::held, &Span::begin);
}

std::optional<double> WitnessedSpans::digest_seconds(std::uint32_t id) const {
  return between(*this, id, &Span::end, &Span::digests_at);
}

std::optional<double> WitnessedSpans::empty_span_before(std::uint32_t id) const {
  if (id < 2) return std::nullopt;
  auto found = spans.find(id - 1);
  if (found == spans.end()) return std::nullopt;
  const Span& empty = found->second;
  if (!empty.seeds_told || !empty.seeds.empty() || empty.digests_told || empty.held) return std::nullopt;
  return seconds(id - 1);
}

void SignalParser::feed(std::string_view bytes, double arrived_seconds) {
  pending_.append(bytes);
  std::size_t start = 0;
  for (std::size_t end; (end = pending_.find('\n', start)) != std::string::npos; start = end + 1) {
    take_line(std::string_view(pending_).substr(start, end - start), arrived_seconds);
  }
  pending_.erase(0, start);
}

namespace {

// "1f,a0" into values; false for anything else ("" is no values).
bool parse_hex_values(std::string_view text, std::vector<std::uint64_t>& values) {
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view digits = text.substr(0, comma);
    std::uint64_t value = 0;
    const auto parsed = std::from_chars(digits.data(), digits.data() + digits.size(), value, 16);
    if (digits.empty() || parsed.ec != std::errc{} || parsed.ptr != digits.data() + digits.size()) return false;
    values.push_back(value);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
    if (text.empty()) return false;  // a trailing comma
  }
  return true;
}

}  // namespace

// "S 17 1f,a0" or "D 17 ...": part of sample 17's record, appended to what came before.
bool SignalParser::take_record(std::string_view line, double arrived_seconds) {
  const std::size_t space = line.find(' ', 2);
  if (line.size() < 4 || line[1] != ' ' || space == std::string_view::npos) return false;
  std::uint32_t id = 0;
  const auto parsed = std::from_chars(line.data() + 2, line.data() + space, id);
  if (parsed.ec != std::errc{} || parsed.ptr != line.data() + space || id == 0) return false;
  WitnessedSpans::Span& span = spans_.spans[id];
  std::vector<std::uint64_t> values;
  if (!parse_hex_values(line.substr(space + 1), values)) return false;
  const bool digests = line[0] == 'D';
  if (digests && !span.digests_told) span.digests_at = arrived_seconds;
  auto [record, told] = line[0] == 'S' ? std::tie(span.seeds, span.seeds_told)
                        : digests      ? std::tie(span.digests, span.digests_told)
                                       : std::tie(span.readback, span.readback_told);
  record.insert(record.end(), values.begin(), values.end());
  told = true;
  return true;
}

void SignalParser::take_line(std::string_view line, double arrived_seconds) {
  if (!line.empty() && (line[0] == 'S' || line[0] == 'D' || line[0] == 'R')) {
    if (!take_record(line, arrived_seconds)) ++spans_.malformed_lines;
    return;
  }
  std::uint32_t id = 0;
  const bool kind_ok = line.size() >= 3 && (line[0] == 'H' || line[0] == 'B' || line[0] == 'E') && line[1] == ' ';
  const char* digits_end = line.data() + line.size();
  const auto parsed = kind_ok ? std::from_chars(line.data() + 2, digits_end, id) : std::from_chars_result{};
  if (!kind_ok || parsed.ec != std::errc{} || parsed.ptr != digits_end || id == 0) {
    ++spans_.malformed_lines;
    return;
  }
  WitnessedSpans::Span& span = spans_.spans[id];
  std::optional<double>& slot = line[0] == 'H' ? span.held : line[0] == 'B' ? span.begin : span.end;
  if (slot) {
    ++spans_.repeated_signals;
    return;
  }
  slot = arrived_seconds;
  if (line[0] == 'B' && !spans_.first_begin) spans_.first_begin = arrived_seconds;
  if (line[0] == 'E') spans_.last_end = arrived_seconds;
}

WitnessedSpans SignalParser::finish() {
  if (!pending_.empty()) ++spans_.malformed_lines;
  pending_.clear();
  return std::move(spans_);
}

SampleWitness::SampleWitness() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return;  // no witness: finish() says it did not listen
  read_fd_ = fds[0];
  write_fd_ = fds[1];
  ::fcntl(read_fd_, F_SETFL, O_NONBLOCK);
  reader_ = std::thread([this] { read_until_stopped(); });
}

SampleWitness::~SampleWitness() {
  if (reader_.joinable()) finish();
}

// Polls rather than blocks, so that finish() ends it even when a process the kernel started
// kept the pipe's write end open. Each chunk is stamped when read(2) returns it. While signals
// are arriving the thread spins on the pipe instead of sleeping in poll(2): a sleeping
// thread's wake-up took tens of µs on the H200's host, long enough for a short sample's begin
// and end to arrive together and be stamped alike (spans of 7 µs around 39 µs of events).
// After a quiet spell (kSpinSeconds) it sleeps again, so a worker that is compiling, checking
// or hung costs no core.
void SampleWitness::read_until_stopped() {
  constexpr double kSpinSeconds = 0.25;
  char buffer[4096];
  double last_signal = -kSpinSeconds;
  while (true) {
    const bool stopping = stop_.load();
    const double before = origin_.seconds();
    const bool spinning = before - last_signal < kSpinSeconds;
    pollfd fd{read_fd_, POLLIN, 0};
    if (!stopping && !spinning && ::poll(&fd, 1, 50) <= 0) continue;
    const ssize_t n = ::read(read_fd_, buffer, sizeof buffer);
    const double now = origin_.seconds();
    if (n > 0) {
      parser_.feed(std::string_view(buffer, static_cast<std::size_t>(n)), now);
      last_signal = now;
    } else if (n == 0 || (errno != EINTR && (stopping || errno != EAGAIN))) {
      return;  // end of file, or nothing left to drain once stopped
    }
  }
}

WitnessedSpans SampleWitness::finish() {
  if (!reader_.joinable()) return {};
  ::close(write_fd_);  // the parent's copy; the worker's went with it
  write_fd_ = -1;
  stop_ = true;
  reader_.join();
  ::close(read_fd_);
  read_fd_ = -1;
  return parser_.finish();
}

}  // namespace kopt::measure
