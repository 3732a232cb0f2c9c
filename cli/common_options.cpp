#include "common_options.hpp"

#include <algorithm>
#include <charconv>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"

namespace kopt::cli {

void add_common_options(CLI::App& app, CommonOptions& options) {
  app.add_flag("--json", options.json, "Print one JSON document instead of the human summary");
  app.add_option("--cache-dir", options.cache_dir, "Compile and reference cache (default: $KOPT_CACHE_DIR or ~/.cache/kopt)");
  app.add_option("--device", options.device, "CUDA device ordinal")->check(CLI::NonNegativeNumber);
  app.add_option("--timeout", options.timeout_seconds, "Seconds a worker may run before it is killed")
      ->check(CLI::PositiveNumber);
}

std::filesystem::path cache_dir_of(const CommonOptions& options) {
  return options.cache_dir.empty() ? default_cache_dir() : std::filesystem::path(options.cache_dir);
}

run::WorkerSettings worker_settings_of(const CommonOptions& options) {
  return {.executable = run::current_executable(),
          .time_limit = std::chrono::duration<double>(options.timeout_seconds),
          .device = options.device,
          .progress = progress_line_of(options)};
}

ProgressLine* progress_line_of(const CommonOptions& options) {
  // One process runs one command, so the first call's --json decides for the process.
  static const std::unique_ptr<ProgressLine> line = ProgressLine::on_stderr(options.json);
  return line.get();
}

std::pair<std::string, spec::Number> parse_dim(const std::string& text) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    throw input_error("--dim expects NAME=VALUE, got \"{}\"", text);
  }
  std::string name = text.substr(0, eq);
  std::string value = text.substr(eq + 1);
  std::int64_t integer = 0;
  auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), integer);
  if (error == std::errc() && end == value.data() + value.size()) return {name, integer};
  try {
    std::size_t used = 0;
    double real = std::stod(value, &used);
    if (used == value.size()) return {name, real};
  } catch (const std::exception&) {
  }
  throw input_error("--dim {}: \"{}\" is not a number", name, value);
}

spec::Dims parse_dims(const std::vector<std::string>& texts) {
  spec::Dims dims;
  for (const std::string& text : texts) {
    auto [name, value] = parse_dim(text);
    dims[name] = value;
  }
  return dims;
}

void select_cases(spec::Problem& problem, const std::vector<std::string>& names) {
  if (names.empty()) return;
  std::vector<spec::BoundCase> kept;
  for (const std::string& name : names) {
    auto found = std::find_if(problem.cases.begin(), problem.cases.end(),
                              [&](const spec::BoundCase& c) { return c.name == name; });
    if (found == problem.cases.end()) {
      std::string known;
      for (const spec::BoundCase& c : problem.cases) known += (known.empty() ? "\"" : ", \"") + c.name + "\"";
      throw input_error("--case \"{}\": {} has no such case (its cases: {})", name, problem.spec.name, known);
    }
    kept.push_back(*found);
  }
  problem.cases = std::move(kept);
}

std::pair<std::string, std::string> parse_define(const std::string& text) {
  auto eq = text.find('=');
  if (eq == 0 || text.empty()) throw input_error("-D expects NAME or NAME=VALUE, got \"{}\"", text);
  if (eq == std::string::npos) return {text, "1"};
  return {text.substr(0, eq), text.substr(eq + 1)};
}

std::vector<std::pair<std::string, std::string>> parse_defines(const std::vector<std::string>& texts) {
  std::vector<std::pair<std::string, std::string>> defines;
  for (const std::string& text : texts) {
    auto define = parse_define(text);
    auto same = std::ranges::find(defines, define.first, &std::pair<std::string, std::string>::first);
    if (same != defines.end()) same->second = std::move(define.second);
    else defines.push_back(std::move(define));
  }
  return defines;
}

}  // namespace kopt::cli
