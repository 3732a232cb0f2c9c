#pragma once
// Element types of kernel parameters. The table (sizes, spellings, default tolerances) is
// knowledge and lives in data/dtypes.toml; this is its typed view.

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kopt::spec {

enum class DTypeKind { floating, signed_integer, unsigned_integer };

struct DType {
  std::string name;                   // canonical: "float32", "bfloat16", "float8_e4m3", "int32"...
  std::vector<std::string> c_names;   // spellings in CUDA C++: "float", "__half", "half", ...
  DTypeKind kind = DTypeKind::floating;
  std::size_t bytes = 0;
  double default_atol = 0;            // used when the spec gives no [tolerance]
  double default_rtol = 0;
  double epsilon = 0;                 // 1 to the next value; 0 for integers (data/dtypes.toml)
  std::string numpy_descr;            // .npy descr; bfloat16 and fp8 travel as raw "<u2"/"|u1"
  std::string torch_name;             // torch.<name> of the type (kopt export --torch)

  bool is_floating() const { return kind == DTypeKind::floating; }
};

// All dtypes, loaded once from data/dtypes.toml and validated.
std::span<const DType> all_dtypes();

// Looks up a C spelling after qualifiers are removed ("unsigned int", "__nv_bfloat16",
// "int64_t"); nullptr when unknown.
const DType* dtype_from_c_name(std::string_view c_name);

// Looks up a canonical name; nullptr when unknown.
const DType* dtype_named(std::string_view name);

// Parses the dtype table text; throws Error naming file and entry on a malformed entry.
std::vector<DType> parse_dtype_table(std::string_view toml_text, std::string_view file_name);

}  // namespace kopt::spec
