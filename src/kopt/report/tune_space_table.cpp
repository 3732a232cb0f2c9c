#include "kopt/report/tune_space_table.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kopt/discover/settable_source.hpp"

namespace kopt::report {
namespace {

std::string candidate_line(const discover::Candidate& candidate) {
  return fmt::format("  {:<28} {:>6}  line {:<4} {:<48} {}: {}\n", candidate.name, candidate.value, candidate.line,
                     discover::kind_text(candidate.kind), candidate.ladder, fmt::join(candidate.proposed, ", "));
}

// `place`: the option's value on the tuner's axis (KOPT_COMPILE_OPTION=place), 0 when not searched.
std::string compile_option_line(const discover::CompileOption& option, std::size_t place) {
  return fmt::format("  {:<22} {:<32} {}{}\n",
                     place > 0 ? fmt::format("{}={}", discover::kCompileOptionMacro, place) : "not searched",
                     fmt::format("{}", fmt::join(option.flags, " ")), option.why,
                     option.tolerance_dependent ? " (tolerance-dependent: kept only where every case stays within "
                                                  "tolerance)"
                                                : "");
}

}  // namespace

std::string format_tune_space(const std::string& kernel_name, const discover::TuneSpace& space,
                              const std::vector<discover::LaunchRestriction>& restrictions) {
  std::string out = fmt::format("tune space of {}: {} candidate(s)\n", kernel_name, space.candidates.size());
  for (const discover::Candidate& candidate : space.candidates) out += candidate_line(candidate);
  if (!space.declared.empty()) out += fmt::format("  already declared (kopt:param): {}\n", fmt::join(space.declared, ", "));
  out += discover::restrictions_text(restrictions);
  out += "compile options (each tried alone, beside the parameters found):\n";
  std::size_t place = 0;
  for (const discover::CompileOption& option : space.compile_options) {
    out += compile_option_line(option, option.searched ? ++place : 0);
  }
  out += discover::search_verdict(space);
  return out;
}

std::string format_triton_launch_space(const std::string& kernel_name, const discover::TritonLaunchSpace& space) {
  if (space.params.empty()) return "";
  std::string out = fmt::format("{}: {} launch constant(s), one parameter each (-D NAME=VALUE){}\n", kernel_name,
                                space.params.size(),
                                space.rewritten_source.empty() ? ""
                                                               : "; kopt optimize makes the literals (KOPT_...) "
                                                                 "module-level variables in its copies of kernel.py");
  for (const std::string& line : space.found) out += "  " + line + "\n";
  return out;
}

}  // namespace kopt::report
