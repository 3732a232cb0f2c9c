#include "suggest.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace kopt::cli {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // One row of the dynamic-programming table at a time: row[j] is the distance between the
  // prefix of `a` read so far and b's first j characters.
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      diagonal = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitution});
    }
  }
  return row[b.size()];
}

std::optional<std::string> closest(std::string_view word, const std::vector<std::string>& candidates) {
  const std::size_t allowed = std::max<std::size_t>(1, word.size() / 3);
  std::optional<std::string> best;
  std::size_t best_distance = allowed + 1;
  for (const std::string& candidate : candidates) {
    const std::size_t d = edit_distance(word, candidate);
    if (d < best_distance) {
      best = candidate;
      best_distance = d;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  const std::optional<std::string> near = closest(word, candidates);
  return near ? fmt::format(" (did you mean {}?)", *near) : "";
}

std::vector<std::string> long_option_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* option : app.get_options()) {
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
  }
  return names;
}

std::string unexpected_argument(const CLI::App& app, std::string_view argument) {
  const std::string command = app.get_parent() != nullptr ? "kopt " + app.get_name() : "kopt";
  if (argument.starts_with("-")) {
    const std::string_view name = argument.substr(0, argument.find('='));
    return fmt::format("{}: not an option of {}{}", name, command, did_you_mean(name, long_option_names(app)));
  }
  return fmt::format("{}: an argument {} does not take (one more than it has places for)", argument, command);
}

}  // namespace kopt::cli
