#pragma once
// The kernel contract (docs/design.md §1): `extern "C" void solve(<params>)` in a .cu file.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kopt/spec/dtype.hpp"

namespace kopt::spec {

struct KernelParam {
  std::string name;
  const DType* dtype = nullptr;
  bool is_pointer = false;
  bool is_const = false;      // for pointers: points to const (an input)
  std::string declaration;    // as written, whitespace collapsed: "const float *__restrict__ A"

  bool is_input_buffer() const { return is_pointer && is_const; }
  bool is_output_buffer() const { return is_pointer && !is_const; }  // output or in-out
  bool is_scalar() const { return !is_pointer; }
};

struct KernelSignature {
  std::string entry;          // "solve", "solution", or the spec's entry
  int line = 0;               // 1-based line of the entry's declaration
  std::vector<KernelParam> params;

  const KernelParam* find(std::string_view name) const;
};

// Finds the entry point in CUDA source and parses its parameters. Comments, string
// literals and attributes are skipped; `__restrict__`, `restrict`, `const` and `*` may be
// written anywhere between type and name. With no `entry`, looks for `solve` then
// `solution`. Throws input_error naming `file_name`, the line and the parameter that
// cannot be parsed.
KernelSignature parse_kernel_signature(std::string_view source, std::string_view file_name,
                                       const std::optional<std::string>& entry = std::nullopt);

// Tunable parameters and method switches declared in the source (docs/design.md §1):
//   #define BM 64                    // kopt:param BM in {32,64,128}
//   #define KOPT_USE_SMEM_TILING 1   // kopt:method memory.tiling_smem
struct TunableParam {
  std::string macro;
  std::string default_value;            // the #define's value as written
  std::vector<std::string> values;      // the declared set
  int line = 0;
};

struct MethodSwitch {
  std::string macro;                    // KOPT_USE_...
  std::string method_id;                // catalog id, e.g. "memory.tiling_smem"
  bool enabled_by_default = true;
  int line = 0;
};

struct SourceAnnotations {
  std::vector<TunableParam> params;
  std::vector<MethodSwitch> methods;
};

SourceAnnotations parse_source_annotations(std::string_view source, std::string_view file_name);

}  // namespace kopt::spec
