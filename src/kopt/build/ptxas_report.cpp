#include "kopt/build/ptxas_report.hpp"

#include <nlohmann/json.hpp>

#include <regex>
#include <sstream>

namespace kopt::build {
namespace {

// ptxas info    : Compiling entry function '_Z5spillPf' for 'sm_90'
const std::regex kEntry(R"(Compiling entry function '([^']+)' for '([^']+)')");
// ptxas info    : Function properties for _Z5spillPf
const std::regex kProperties(R"(Function properties for (\S+))");
//     256 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
const std::regex kStack(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
// ptxas info    : Used 32 registers, used 1 barriers, 4096 bytes smem, 384 bytes cmem[0]
const std::regex kUsed(R"(Used (\d+) registers)");
const std::regex kBarriers(R"(used (\d+) barriers)");
const std::regex kSmem(R"((\d+) bytes smem)");
const std::regex kCmem0(R"((\d+) bytes cmem\[0\])");
// Lines that carry nothing per function.
const std::regex kIgnored(R"(bytes gmem|Compile time|Compiling entry function|cumulative stack size)");

std::int64_t number(const std::smatch& match, int group) { return std::stoll(match[group].str()); }

}  // namespace

bool PtxasReport::has_spills() const {
  for (const FunctionResources& f : functions) {
    if (f.spill_store_bytes > 0 || f.spill_load_bytes > 0) return true;
  }
  return false;
}

PtxasReport parse_ptxas_report(std::string_view nvcc_stderr) {
  PtxasReport report;
  FunctionResources* entry = nullptr;       // the entry function being compiled
  std::string properties_of;                // whose "Function properties" come next
  std::istringstream in{std::string(nvcc_stderr)};
  std::smatch match;
  for (std::string line; std::getline(in, line);) {
    if (std::regex_search(line, match, kEntry)) {
      report.functions.push_back({.name = match[1].str(), .arch = match[2].str()});
      entry = &report.functions.back();
      continue;
    }
    if (std::regex_search(line, match, kProperties)) {
      properties_of = match[1].str();
      continue;
    }
    if (std::regex_search(line, match, kStack)) {
      // Properties of a non-entry (device) function have no entry of their own; skip them.
      if (entry != nullptr && properties_of == entry->name) {
        entry->stack_frame_bytes = number(match, 1);
        entry->spill_store_bytes = number(match, 2);
        entry->spill_load_bytes = number(match, 3);
      }
      continue;
    }
    if (line.find("ptxas info") == std::string::npos) continue;
    if (std::regex_search(line, match, kUsed)) {
      if (entry == nullptr) {
        report.unparsed_lines.push_back(line);
        continue;
      }
      entry->registers = static_cast<int>(number(match, 1));
      if (std::regex_search(line, match, kBarriers)) entry->barriers = static_cast<int>(number(match, 1));
      if (std::regex_search(line, match, kSmem)) entry->shared_bytes = number(match, 1);
      if (std::regex_search(line, match, kCmem0)) entry->constant_bytes = number(match, 1);
      continue;
    }
    if (!std::regex_search(line, kIgnored)) report.unparsed_lines.push_back(line);
  }
  return report;
}

void to_json(nlohmann::json& out, const FunctionResources& r) {
  out = {{"name", r.name},
         {"arch", r.arch},
         {"registers", r.registers},
         {"barriers", r.barriers},
         {"shared_bytes", r.shared_bytes},
         {"constant_bytes", r.constant_bytes},
         {"stack_frame_bytes", r.stack_frame_bytes},
         {"spill_store_bytes", r.spill_store_bytes},
         {"spill_load_bytes", r.spill_load_bytes}};
}

void from_json(const nlohmann::json& in, FunctionResources& r) {
  r.name = in.at("name");
  r.arch = in.at("arch");
  r.registers = in.at("registers");
  r.barriers = in.at("barriers");
  r.shared_bytes = in.at("shared_bytes");
  r.constant_bytes = in.at("constant_bytes");
  r.stack_frame_bytes = in.at("stack_frame_bytes");
  r.spill_store_bytes = in.at("spill_store_bytes");
  r.spill_load_bytes = in.at("spill_load_bytes");
}

void to_json(nlohmann::json& out, const PtxasReport& report) {
  out = {{"functions", report.functions}, {"unparsed_lines", report.unparsed_lines}};
}

void from_json(const nlohmann::json& in, PtxasReport& report) {
  report.functions = in.at("functions").get<std::vector<FunctionResources>>();
  report.unparsed_lines = in.at("unparsed_lines").get<std::vector<std::string>>();
}

}  // namespace kopt::build
