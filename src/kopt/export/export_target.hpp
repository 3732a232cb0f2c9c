#pragma once
// What `kopt export` exports: a kernel as other commands name it (a .cu or kernel.py, a folder
// with kopt.toml, a kopt.toml), or a loop run folder, whose champion is exported with the
// defines, flags, dims and spec the run measured it with.

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kopt::exporting {

struct ExportTarget {
  std::filesystem::path kernel;                              // the source to compile (or copy: kernel.py)
  std::optional<std::filesystem::path> spec;                 // --spec, or the run's spec
  std::vector<std::string> dims;                             // the run's --dim NAME=VALUE
  std::vector<std::pair<std::string, std::string>> defines;  // the champion's -D, in order
  std::vector<std::string> flags;                            // nvcc flags the run added ([build] flags come with the spec)
  std::string recorded_arch;                                 // the run's env.json arch; empty: none recorded
  std::optional<std::filesystem::path> run;                  // the run folder, when one was named
  std::string variant;                                       // the champion's label ("iter2/b3"), or empty
};

// `target` as a run folder (it holds state.json) or a kernel. `spec_override` is --spec; for
// a run it is refused (the run's own spec is the one its champion was checked against).
// `defines` (-D) are laid over the champion's, name by name. Throws input_error naming the
// cause: a run whose spec or champion is gone, --spec with a run.
ExportTarget export_target(const std::filesystem::path& target, const std::optional<std::filesystem::path>& spec_override,
                           const std::vector<std::pair<std::string, std::string>>& defines);

}  // namespace kopt::exporting
