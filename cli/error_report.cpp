#include "error_report.hpp"

#include "suggest.hpp"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

namespace kopt::cli {

bool asks_for_json(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") return false;
    if (arg == "--json") return true;
  }
  return false;
}

namespace {

std::string_view kind_of(ExitCode code) {
  switch (code) {
    case ExitCode::kernel_failed: return "kernel_failed";
    case ExitCode::bad_input: return "bad_input";
    case ExitCode::environment: return "environment";
    default: return "ok";
  }
}

// Messages end up on one line: a cause that holds newlines (a tool's output) is joined.
std::string one_line(std::string_view message) {
  std::string line(message);
  for (char& c : line) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

}  // namespace

int report_error(ExitCode code, std::string_view message, bool json) {
  const std::string line = one_line(message);
  std::fprintf(stderr, "kopt: %s\n", line.c_str());
  if (json) {
    const nlohmann::json document = {{"schema", "kopt.error/1"},
                                     {"exit_code", static_cast<int>(code)},
                                     {"kind", kind_of(code)},
                                     {"message", line}};
    std::printf("%s\n", document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  }
  return static_cast<int>(code);
}

int report_usage_error(const CLI::App& app, const CLI::ParseError& error, bool json) {
  // The subcommand that was being parsed, for the help hint and the options it has.
  std::string command = "kopt";
  const CLI::App* parsed = &app;
  for (const CLI::App* sub : app.get_subcommands()) {
    command += " " + sub->get_name();
    parsed = sub;
  }
  std::string cause = error.what();
  // Arguments no option took: the subcommand's own, else those it handed back to kopt's.
  std::vector<std::string> extras = parsed->remaining();
  if (extras.empty()) extras = app.remaining();
  if (dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr && !extras.empty()) {
    cause = unexpected_argument(*parsed, extras.front());
  }
  return report_error(ExitCode::bad_input, fmt::format("{} (see {} --help)", cause, command), json);
}

int report_filesystem_error(const std::filesystem::filesystem_error& error, bool json) {
  const int value = error.code().value();
  const bool machine = value == ENOSPC || value == EDQUOT || value == EIO;
  std::string where = error.path1().string();
  if (!error.path2().empty()) where += " -> " + error.path2().string();
  return report_error(machine ? ExitCode::environment : ExitCode::bad_input,
                      fmt::format("{}: {}", where.empty() ? "a file" : where, error.code().message()), json);
}

}  // namespace kopt::cli
