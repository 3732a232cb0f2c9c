#include "kopt/report/sass_table.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <vector>

namespace kopt::report {
namespace {

std::string widths(const sass::WidthHistogram& histogram) {
  std::string text;
  for (const auto& [bits, count] : histogram) text += fmt::format("{}{}x{}b", text.empty() ? "" : " ", count, bits);
  return text.empty() ? "-" : text;
}

std::string top_opcodes(const sass::OpcodeHistogram& histogram, std::size_t most) {
  std::vector<std::pair<std::string, int>> sorted(histogram.begin(), histogram.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string text;
  for (std::size_t i = 0; i < std::min(most, sorted.size()); ++i) {
    text += fmt::format("{}{} {}", i == 0 ? "" : ", ", sorted[i].first, sorted[i].second);
  }
  return text;
}

std::string family(const sass::OpcodeHistogram& histogram) {
  int total = 0;
  for (const auto& [name, count] : histogram) total += count;
  return total == 0 ? "none" : fmt::format("{} ({})", total, top_opcodes(histogram, 4));
}

const build::FunctionResources* resources_of(const build::PtxasReport& report, const std::string& name) {
  for (const build::FunctionResources& f : report.functions) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

}  // namespace

std::string format_sass_profile(const sass::SassProfile& profile, const build::PtxasReport& resources) {
  std::string out;
  for (const sass::SassFunctionProfile& f : profile.functions) {
    out += fmt::format("{} ({}): {} instructions\n", f.name, f.arch, f.instruction_count);
    if (const build::FunctionResources* r = resources_of(resources, f.name)) {
      out += fmt::format("  resources  {} registers, {} B shared, {} B stack, spills {} B stored / {} B loaded\n",
                         r->registers, r->shared_bytes, r->stack_frame_bytes, r->spill_store_bytes, r->spill_load_bytes);
    }
    out += fmt::format("  opcodes    {}\n", top_opcodes(f.opcodes, 10));
    out += fmt::format("  global     loads {}; stores {}\n", widths(f.global_load_bits), widths(f.global_store_bits));
    if (!f.shared_load_bits.empty() || !f.async_copy_bits.empty()) {
      out += fmt::format("  widths     shared loads {}; async copies {}\n", widths(f.shared_load_bits), widths(f.async_copy_bits));
    }
    out += fmt::format("  shared     {}\n  tensor     {}\n", family(f.shared_memory), family(f.tensor));
  }
  if (profile.unparsed_line_count > 0) {
    out += fmt::format("WARNING: {} lines of the dump could not be read; counts may be short (see sass.json)\n",
                       profile.unparsed_line_count);
  }
  return out;
}

std::string format_sass_diff(const sass::SassFunctionProfile& a, const sass::SassFunctionProfile& b) {
  std::string out = fmt::format("{} -> {}: {} -> {} instructions\n", a.name, b.name, a.instruction_count,
                                b.instruction_count);
  for (const sass::HistogramDelta& row : sass::diff(a.opcodes, b.opcodes)) {
    if (row.delta != 0) out += fmt::format("  {:<12} {:>6} -> {:<6} ({:+d})\n", row.opcode, row.count_a, row.count_b, row.delta);
  }
  return out;
}

std::string format_method_evidence(const std::vector<catalog::MethodEvidence>& methods) {
  if (methods.empty()) return "";
  std::string out = "methods in the machine code:\n";
  for (const catalog::MethodEvidence& m : methods) {
    std::string detail;
    if (!m.switched_on) {
      detail = "switched off (" + m.match.reason + ")";
    } else if (m.match.status == catalog::SignatureStatus::found) {
      // The first instructions are evidence enough; sass.json lists them all.
      const auto& e = m.match.evidence;
      const std::size_t shown = std::min<std::size_t>(2, e.size());
      detail = fmt::format("found: {}{}", fmt::join(e.begin(), e.begin() + static_cast<long>(shown), ", "),
                           e.size() > shown ? fmt::format(" (and {} more)", e.size() - shown) : "");
    } else if (m.match.status == catalog::SignatureStatus::missing) {
      detail = "MISSING: " + m.match.reason;
    } else if (m.match.status == catalog::SignatureStatus::not_distinguishable) {
      detail = "not distinguishable: " + m.match.reason;
    } else {
      detail = "not verifiable: " + m.match.reason;
    }
    out += fmt::format("  {:<34} {}\n", m.method, detail);
  }
  return out;
}

SassReport sass_report(const NamedSass& kernel, const std::vector<catalog::MethodEvidence>& methods,
                       const std::optional<NamedSass>& vs) {
  const sass::KernelSass& a = kernel.sass;
  SassReport out{.document = {{"schema", "kopt.sass/1"}, {"kernel", sass::kernel_sass_json(kernel.name, a)},
                              {"methods", methods}},
                 .text = format_sass_profile(a.profile, a.build.resources) + format_method_evidence(methods)};
  if (!vs) return out;
  out.document["vs"] = sass::kernel_sass_json(vs->name, vs->sass);
  out.document["diff"] = nlohmann::json::array();
  out.text += fmt::format("\n--vs {}\n", vs->name);
  for (const auto& [fa, fb] : sass::paired_functions(a.profile, vs->sass.profile)) {
    out.document["diff"].push_back({{"a", fa->name}, {"b", fb->name}, {"opcodes", sass::diff(fa->opcodes, fb->opcodes)}});
    out.text += format_sass_diff(*fa, *fb);
  }
  return out;
}

}  // namespace kopt::report
