#include "kopt/measure/code_witness.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <random>

#include "kopt/core/error.hpp"
#include "kopt/core/process_maps.hpp"
#include "kopt/core/secret.hpp"
#include "kopt/measure/witness_file.hpp"
#include "kopt/spec/toml.hpp"

namespace kopt::measure {

namespace {

// "7f0c2a000000-7f0c2a021000 r-xp 00000000 08:01 1234   /usr/lib/libcuda.so.1": the header
// of one mapping; nullopt for the "Key:  value kB" lines under it.
struct MappingHeader {
  bool executable = false;
  std::string name;  // empty: anonymous
};

std::optional<MappingHeader> mapping_header(std::string_view line) {
  const std::size_t dash = line.find('-');
  const std::size_t space = line.find(' ');
  if (dash == std::string_view::npos || space == std::string_view::npos || dash > space || line.empty() ||
      line.front() == ' ' || line.substr(0, dash).find_first_not_of("0123456789abcdef") != std::string_view::npos) {
    return std::nullopt;
  }
  MappingHeader header;
  const std::string_view perms = line.substr(space + 1, 4);
  header.executable = perms.size() == 4 && perms[2] == 'x';
  // Five fields (range, perms, offset, device, inode), then the name, which may hold spaces.
  std::size_t at = 0;
  for (int field = 0; field < 5 && at != std::string_view::npos; ++field) {
    at = line.find(' ', at);
    if (at != std::string_view::npos) at = line.find_first_not_of(' ', at);
  }
  if (at != std::string_view::npos) header.name = std::string(line.substr(at));
  return header;
}

// The kB of "Anonymous:        4 kB"; nullopt for other lines.
std::optional<std::int64_t> anonymous_kb(std::string_view line) {
  constexpr std::string_view kKey = "Anonymous:";
  if (!line.starts_with(kKey)) return std::nullopt;
  std::string_view rest = line.substr(kKey.size());
  rest.remove_prefix(std::min(rest.find_first_not_of(' '), rest.size()));
  std::int64_t kb = 0;
  if (std::from_chars(rest.data(), rest.data() + rest.size(), kb).ec != std::errc{}) return std::nullopt;
  return kb;
}

bool watched_mapping(const std::string& name, const CodeWitnessRule& rule) {
  if (name.empty() || (name.front() != '/' && name != "[vdso]")) return false;
  return std::ranges::none_of(rule.ignored, [&](const std::string& ignored) { return name.find(ignored) != std::string::npos; });
}

CodeWitnessRule load_code_rule() {
  const toml::table code = witness_section("code");
  CodeWitnessRule rule{.first_look_seconds = positive_witness_number(code, "code", "first_look_seconds"),
                       .mean_interval_seconds = positive_witness_number(code, "code", "mean_interval_seconds")};
  const toml::array* ignored = code["ignored"].as_array();
  if (ignored == nullptr) throw environment_error("{}: [code] ignored must be an array of names", kWitnessFile);
  for (const toml::node& name : *ignored) {
    const std::optional<std::string> text = name.value<std::string>();
    if (!text || text->empty()) throw environment_error("{}: [code] ignored holds a non-string or empty name", kWitnessFile);
    rule.ignored.push_back(*text);
  }
  return rule;
}

}  // namespace

const CodeWitnessRule& code_witness_rule() {
  static const CodeWitnessRule rule = load_code_rule();
  return rule;
}

std::vector<WrittenCode> written_code(std::string_view smaps, const CodeWitnessRule& rule) {
  std::vector<WrittenCode> written;
  std::optional<MappingHeader> current;
  for (std::size_t start = 0; start < smaps.size();) {
    std::size_t end = smaps.find('\n', start);
    if (end == std::string_view::npos) end = smaps.size();
    const std::string_view line = smaps.substr(start, end - start);
    start = end + 1;
    if (auto header = mapping_header(line)) {
      current = std::move(header);
      continue;
    }
    const std::optional<std::int64_t> kb = anonymous_kb(line);
    if (!kb || *kb == 0 || !current || !current->executable || !watched_mapping(current->name, rule)) continue;
    auto same = std::ranges::find(written, current->name, &WrittenCode::mapping);
    if (same == written.end()) written.push_back({current->name, *kb});
    else same->kilobytes += *kb;
  }
  return written;
}

CodeWitness::CodeWitness(CodeWitnessRule rule) : rule_(std::move(rule)) {}

CodeWitness::~CodeWitness() { finish(); }

void CodeWitness::watch(int pid) {
  std::lock_guard lock(mutex_);
  if (looker_.joinable() || stop_) return;
  looker_ = std::thread([this, pid] { look_until_stopped(pid); });
}

// Random moments, drawn in kopt's process: the kernel cannot know when the next look comes,
// so a patch it keeps in place while it is timed is in place at some look.
void CodeWitness::look_until_stopped(int pid) {
  std::mt19937_64 random(secret_seed());
  std::exponential_distribution<double> interval(1 / rule_.mean_interval_seconds);
  double wait = rule_.first_look_seconds;
  std::unique_lock lock(mutex_);
  while (!stopped_.wait_for(lock, std::chrono::duration<double>(wait), [this] { return stop_; })) {
    lock.unlock();
    look(pid);
    lock.lock();
    wait = interval(random);
  }
}

void CodeWitness::look(int pid) {
  const std::optional<std::string> smaps = read_process_smaps(pid);
  if (!smaps) {
    const bool running = process_running(pid);
    std::lock_guard lock(mutex_);
    if (running && report_.looks > 0) ++report_.refused_looks;
    return;
  }
  const std::vector<WrittenCode> found = written_code(*smaps, rule_);
  std::lock_guard lock(mutex_);
  report_.watched = true;
  ++report_.looks;
  for (const WrittenCode& code : found) {
    std::int64_t& most = report_.written[code.mapping];
    most = std::max(most, code.kilobytes);
  }
}

CodeWitnessReport CodeWitness::finish() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  stopped_.notify_all();
  if (looker_.joinable()) looker_.join();
  std::lock_guard lock(mutex_);
  return report_;
}

std::optional<std::string> code_witness_flag(const CodeWitnessReport& report) {
  if (report.written.empty() && report.refused_looks > 0) {
    return fmt::format("the timing worker refused {} of kopt's looks at its code after it had allowed {}: code in the "
                       "worker (the kernel?) hid its memory from kopt, so no time it reported can be trusted",
                       report.refused_looks, report.looks);
  }
  if (report.written.empty()) return std::nullopt;
  std::vector<std::string> parts;
  for (const auto& [mapping, kb] : report.written) parts.push_back(fmt::format("{}: {} kB", mapping, kb));
  return fmt::format("the timing worker's code was rewritten while it ran ({}): code in the worker (the kernel?) "
                     "patched CUDA, the C library or kopt, so no time it reported can be trusted",
                     fmt::join(parts, ", "));
}

nlohmann::json code_witness_to_json(const CodeWitnessReport& report) {
  nlohmann::json written = nlohmann::json::array();
  for (const auto& [mapping, kb] : report.written) written.push_back({{"mapping", mapping}, {"kilobytes", kb}});
  return {{"watched", report.watched}, {"looks", report.looks}, {"refused_looks", report.refused_looks},
          {"written", written}};
}

}  // namespace kopt::measure
