#pragma once
// A Triton kernel's @triton.autotune config lists as kopt's tunable parameters (docs/triton.md,
// "Autotune configs"): one parameter per autotuned kernel, KOPT_TRITON_CONFIG_<kernel>, whose
// values are "all" (the list as written: Triton's own choice) and each config's index. kopt's
// host cuts the list to the chosen config while kernel.py is imported
// (python/kopt_triton_host.py, restricted_autotune). The lists are read without running
// kernel.py (python/kopt_python_facts.py autotune).

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace kopt::discover {

inline constexpr std::string_view kTritonConfigPrefix = "KOPT_TRITON_CONFIG_";

struct AutotunedKernel {
  std::string kernel;                // the @triton.jit function's name
  int line = 0;                      // of its @triton.autotune decorator
  std::vector<std::string> configs;  // each config as written: "BLOCK=1024, num_warps=4"

  std::string parameter() const { return std::string(kTritonConfigPrefix) + kernel; }
  // "all", then "0" .. "n-1": the baseline (no -D) is "all".
  std::vector<std::string> values() const;
};

// Every autotuned kernel of `kernel_py`, in file order. Throws input_error naming the line when
// a list is not written out as triton.Config(...) calls with literal arguments.
std::vector<AutotunedKernel> triton_autotuned_kernels(const std::filesystem::path& kernel_py);

// The [tune] lines that search them (empty: none).
std::string autotune_tune_table(const std::vector<AutotunedKernel>& kernels);

// `kopt tune-space kernel.py`'s table: each kernel's parameter, and what each value runs.
std::string format_autotune_space(std::string_view file, const std::vector<AutotunedKernel>& kernels);

}  // namespace kopt::discover
