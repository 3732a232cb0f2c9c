#pragma once
// The source audit: a reading of the kernel's source, before it is compiled, for what an
// honest `solve` has no need of and what lets work or results escape kopt's measurement
// (side streams, host threads, exit hooks, file, environment and process access, persisting
// L2, graphs, timers, memory patching, signals). The rules are data (data/source_audit.toml);
// see docs/integrity.md for why each matters.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kopt::spec {

struct SourceFinding {
  std::string category;  // "side_streams"
  std::string what;      // "creates a CUDA stream of its own (...)"
  std::string file;      // the file's name
  int line = 0;          // 1-based
  std::string text;      // the line, trimmed
};

// Every rule that matches, once per (category, line), in line order.
std::vector<SourceFinding> audit_source(std::string_view source, const std::string& file_name);

// The kernel file and the local headers it includes ("..."), each audited.
std::vector<SourceFinding> audit_kernel_source(const std::filesystem::path& kernel);

// "source audit: side_streams: creates a CUDA stream of its own (kernel.cu:12)"
std::string describe(const SourceFinding& finding);

// Not a finding: the first line of the kernel file or its local headers that can make honest
// outputs vary between runs on the same inputs (atomics: data/source_audit.toml
// [varying_outputs]), comments and string literals left out; nullopt when there is none.
std::optional<SourceFinding> varying_outputs_hint(const std::filesystem::path& kernel);

}  // namespace kopt::spec
