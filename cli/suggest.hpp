#pragma once
// "Did you mean": the nearest of a command's names to a word the user typed (kopt optimise,
// --iteratons), as cargo and git answer a typo.

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kopt::cli {

// The Levenshtein distance: insertions, deletions and substitutions of one character.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `word` when it is close enough to be a typo of it (at most a third
// of the word's characters, and at least one, changed); none otherwise.
std::optional<std::string> closest(std::string_view word, const std::vector<std::string>& candidates);

// " (did you mean X?)" with `closest`'s answer, or "".
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

// Every long option name of a (sub)command, "--iterations", "--branches", ...
std::vector<std::string> long_option_names(const CLI::App& app);

// One line on an argument `app` does not take: an option it lacks (with did-you-mean), or a
// further positional argument.
std::string unexpected_argument(const CLI::App& app, std::string_view argument);

}  // namespace kopt::cli
