#include "common_options.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <variant>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/spec/tool_arguments.hpp"

namespace kopt::cli {

namespace {

// The option's text as a finite number, or the reason it is not one.
std::variant<double, std::string> finite_number(const std::string& text) {
  double value = 0;
  const char* end = text.data() + text.size();
  auto [stop, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || stop != end) return fmt::format("\"{}\" is not a number", text);
  if (!std::isfinite(value)) return fmt::format("\"{}\" is not a finite number", text);
  return value;
}

CLI::Validator number_check(std::string name, std::function<std::string(double)> check) {
  return CLI::Validator(
      [check = std::move(check)](std::string& text) -> std::string {
        auto parsed = finite_number(text);
        if (auto* reason = std::get_if<std::string>(&parsed)) return *reason;
        return check(std::get<double>(parsed));
      },
      name);
}

}  // namespace

CLI::Validator positive_number() {
  return number_check("POSITIVE", [](double x) { return x > 0 ? std::string() : fmt::format("{} is not > 0", x); });
}

CLI::Validator non_negative_number() {
  return number_check("NONNEGATIVE",
                      [](double x) { return x >= 0 ? std::string() : fmt::format("{} is negative", x); });
}

CLI::Validator number_between(double low, double high) {
  return number_check(fmt::format("{}..{}", low, high), [low, high](double x) {
    return x >= low && x <= high ? std::string() : fmt::format("{} is not between {} and {}", x, low, high);
  });
}

CLI::Validator unsigned_integer() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
        return digits ? std::string() : fmt::format("\"{}\" is not a whole number >= 0", text);
      },
      "UINT");
}

namespace {

CLI::Validator path_check(std::string name, void (*check)(const std::filesystem::path&)) {
  return CLI::Validator(
      [check](std::string& text) -> std::string {
        if (text.empty()) return "an empty path";
        try {
          check(text);
        } catch (const Error& e) {
          return e.what();
        }
        return {};
      },
      std::move(name));
}

}  // namespace

CLI::Validator output_file() { return path_check("FILE", check_output_file); }
CLI::Validator output_folder() { return path_check("DIR", check_output_folder); }

void add_common_options(CLI::App& app, CommonOptions& options) {
  app.add_flag("--json", options.json, "Print one JSON document instead of the human summary");
  app.add_option("--cache-dir", options.cache_dir, "Compile and reference cache (default: $KOPT_CACHE_DIR or ~/.cache/kopt)")
      ->check(output_folder());
  app.add_option("--device", options.device, "CUDA device ordinal")->check(non_negative_number());
  app.add_option("--timeout", options.timeout_seconds,
                 fmt::format("Seconds a worker may run before it is killed (default: {:g}; a Python reference, which "
                             "runs every case and seed in one process, may take 4 times that)", options.timeout_seconds))
      ->check(positive_number());
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

Context context_of(const CommonOptions& options) {
  static SystemProcessRunner runner;
  static SystemToolchain tools;
  return {.runner = runner, .tools = tools, .cache_dir = cache_dir_of(options), .progress = progress_line_of(options)};
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
  double real = 0;
  auto [real_end, real_error] = std::from_chars(value.data(), value.data() + value.size(), real);
  if (real_error != std::errc() || real_end != value.data() + value.size()) {
    throw input_error("--dim {}: \"{}\" is not a number", name, value);
  }
  if (!std::isfinite(real)) throw input_error("--dim {}: \"{}\" is not a finite number", name, value);
  // "1e9" is written as a real but means the integer a size needs.
  constexpr double kExactIntegers = 9007199254740992.0;  // 2^53
  if (real == std::floor(real) && std::fabs(real) <= kExactIntegers) return {name, static_cast<std::int64_t>(real)};
  return {name, real};
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
  std::pair<std::string, std::string> define =
      eq == std::string::npos ? std::pair<std::string, std::string>{text, "1"}
                              : std::pair<std::string, std::string>{text.substr(0, eq), text.substr(eq + 1)};
  spec::check_define(define.first, define.second, "-D");
  return define;
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
