#pragma once
// A Triton kernel.py that declares nothing (no [tune], no @triton.autotune) still says its
// parameters where it launches its kernels: `add_kernel[grid](..., BLOCK_SIZE=1024,
// num_warps=4)`. Each integer passed there as a tl.constexpr argument or as num_warps /
// num_stages becomes a tunable parameter, with values from data/triton_launch.toml: a module-level
// variable as it is (kopt's -D sets kernel.py's module-level variables), a literal (or a local
// bound once to one) made into a module-level variable in a rewritten copy of kernel.py. The
// constants are read by python/kopt_python_facts.py (launches), with Python's own parser.

#include <array>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace kopt::discover {

struct TritonLaunchConstant {
  std::string kernel;                   // the launched @triton.jit function
  std::string name;                     // the launch keyword: a tl.constexpr or num_warps / num_stages
  long long value = 0;
  int line = 0;                         // 1-based
  std::optional<int> col, end_col;      // the literal's 0-based byte offsets (a literal only)
  std::optional<std::string> variable;  // a module-level variable passed as it is
  // The same number written in the launch's grid (k[(triton.cdiv(n, 1024),)](..., BLOCK=1024)):
  // the grid follows the block. {line, col, end_col} each.
  std::vector<std::array<int, 3>> also;
};

struct TritonLaunchSpace {
  std::vector<std::pair<std::string, std::vector<std::string>>> params;  // name -> values, the default among them
  std::map<std::string, std::string> defaults;
  std::vector<std::string> found;       // one line per parameter, for kopt tune-space
  std::string rewritten_source;         // empty: kernel.py is searched as it is
};

// The helper's "launches" JSON as constants (exposed for tests).
std::vector<TritonLaunchConstant> triton_launch_constants(const nlohmann::ordered_json& facts);

// The space of `source` (kernel.py's text) from its launch constants.
TritonLaunchSpace triton_launch_space(const std::string& source, const std::vector<TritonLaunchConstant>& constants);

// Both, for a kernel.py on disk (runs the helper: needs python3).
TritonLaunchSpace triton_launch_space(const std::filesystem::path& kernel_py);

}  // namespace kopt::discover
