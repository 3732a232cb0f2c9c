#pragma once
// How a command that fails says so: one line on standard error, "kopt: CAUSE", and with
// --json also one error document on standard output (schemas/error.schema.json), so a
// driver reading standard output always gets a document.

#include <CLI/CLI.hpp>

#include <filesystem>
#include <string_view>

#include "kopt/core/error.hpp"

namespace kopt::cli {

// Whether the command line holds --json (before any "--").
bool asks_for_json(int argc, char** argv);

// Prints the line (and the document) and returns the exit code.
int report_error(ExitCode code, std::string_view message, bool json);

// A CLI11 parse error as one line that names the command to ask for help: exit 2.
int report_usage_error(const CLI::App& app, const CLI::ParseError& error, bool json);

// A file-system failure on a path the user gave (a read-only folder, a file where a folder
// is needed): exit 2, or 3 when the machine is out of space.
int report_filesystem_error(const std::filesystem::filesystem_error& error, bool json);

}  // namespace kopt::cli
