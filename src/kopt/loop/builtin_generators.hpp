#pragma once
// kopt's ready LLM generators: `--generator kopt:http`, `kopt:claude`, `kopt:codex` name the
// bundled adapter (python/kopt_llm_generator.py, standard library only) instead of a command
// of the user's; it turns the generator context into a prompt and writes the branches back.

#include <filesystem>
#include <string>

namespace kopt::loop {

// `generator` unchanged; for an unknown kopt:NAME, input_error naming kopt's adapters (asked
// before init, so that a typo costs no GPU time).
std::string checked_generator(const std::string& generator);

// The shell command for `--generator` as given: a `kopt:NAME` adapter is written into the run
// folder (atomically, from kopt's own copy) and run with this machine's Python; anything else
// is the user's command, unchanged. Throws input_error naming the adapters for an unknown
// kopt:NAME.
std::string generator_shell_command(const std::string& generator, const std::filesystem::path& run_root);

}  // namespace kopt::loop
