#include "kopt/discover/settable_source.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <tuple>
#include <vector>

namespace kopt::discover {
namespace {

struct Edit {
  std::size_t at = 0;
  std::size_t order = 0;  // found order: at one offset, the later-found is applied first
  std::size_t removed = 0;
  std::string inserted;
};

std::size_t line_start(std::string_view source, std::size_t offset) {
  const std::size_t newline = source.rfind('\n', offset == 0 ? 0 : offset - 1);
  return offset == 0 || newline == std::string_view::npos ? 0 : newline + 1;
}

std::size_t line_end(std::string_view source, std::size_t offset) {
  const std::size_t newline = source.find('\n', offset);
  return newline == std::string_view::npos ? source.size() : newline;
}

// "<<<>>> block" -> "BLOCK", "dim3 block.x" -> "DIM3_BLOCK_X".
std::string macro_words(std::string_view name) {
  std::string words;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
      words += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    } else if (!words.empty() && words.back() != '_') {
      words += '_';
    }
  }
  while (!words.empty() && words.back() == '_') words.pop_back();
  return words;
}

}  // namespace

std::string settable_macro(const Candidate& candidate) {
  switch (candidate.kind) {
    case ConstantKind::define:
    case ConstantKind::guarded_define: return candidate.name;
    case ConstantKind::constexpr_constant:
    case ConstantKind::launch_variable: return "KOPT_" + macro_words(candidate.name);
    case ConstantKind::launch_literal: return fmt::format("KOPT_{}_L{}", macro_words(candidate.name), candidate.line);
  }
  return candidate.name;
}

std::string settable_source(std::string_view source, const TuneSpace& space) {
  std::vector<Edit> edits;
  for (const Candidate& candidate : space.candidates) {
    if (candidate.settable_by_define() || candidate.end > source.size()) continue;
    const std::string macro = settable_macro(candidate);
    const std::size_t start = line_start(source, candidate.begin);
    if (candidate.kind == ConstantKind::define) {
      edits.push_back({.at = line_end(source, candidate.end), .inserted = "\n#endif"});
      edits.push_back({.at = start, .inserted = fmt::format("#ifndef {}\n", macro)});
      continue;
    }
    // The guard goes on lines of its own above the literal's line: a directive may sit between
    // any two lines of a statement, and the macro then reads as the literal did.
    edits.push_back({.at = candidate.begin, .removed = candidate.end - candidate.begin, .inserted = macro});
    edits.push_back({.at = start, .inserted = fmt::format("#ifndef {0}\n#define {0} {1}\n#endif\n", macro,
                                                          source.substr(candidate.begin, candidate.end - candidate.begin))});
  }
  // From the end back, so that each edit's offset is still the original's; at one offset the
  // later-found goes in first, so that the guards read in source order.
  for (std::size_t k = 0; k < edits.size(); ++k) edits[k].order = k;
  std::ranges::sort(edits, [](const Edit& a, const Edit& b) { return std::tie(a.at, a.order) > std::tie(b.at, b.order); });
  std::string rewritten(source);
  for (const Edit& edit : edits) rewritten.replace(edit.at, edit.removed, edit.inserted);
  return rewritten;
}

std::string search_verdict(const discover::TuneSpace& space) {
  std::vector<std::string> settable, rewritten;
  for (const discover::Candidate& candidate : space.candidates) {
    if (candidate.settable_by_define()) settable.push_back(candidate.name);
    else rewritten.push_back(fmt::format("{} as {}", candidate.name, settable_macro(candidate)));
  }
  if (settable.empty() && rewritten.empty()) return "nothing to search: no constant with a proposed ladder\n";
  std::string text = "kopt optimize searches:";
  if (!settable.empty()) text += fmt::format(" by -D: {} (--save writes them as [tune]);", fmt::join(settable, ", "));
  if (!rewritten.empty()) text += fmt::format(" through a copy made settable: {};", fmt::join(rewritten, ", "));
  text += fmt::format(" and the compile options above as {} = 0 (none) to {};", kCompileOptionMacro,
                      std::ranges::count_if(space.compile_options, &CompileOption::searched));
  text.back() = '\n';
  return text;
}

}  // namespace kopt::discover
