#include "kopt/build/triton_bridge.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "kopt/core/embedded_files.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"
#include "kopt/core/hash.hpp"
#include "kopt/spec/python_kernel.hpp"

namespace kopt::build {
namespace {

std::string word_of(const spec::KernelParam& param) {
  if (param.is_pointer) return fmt::format("kopt_bridge_pointer({})", param.name);
  if (param.dtype->is_floating()) return fmt::format("kopt_bridge_real({})", param.name);
  return fmt::format("kopt_bridge_integer({})", param.name);
}

// __half and __nv_bfloat16 are declared by CUDA's headers, which nvcc does not include by itself.
std::string headers_for(const spec::KernelSignature& signature) {
  std::string headers;
  auto names = [&](std::string_view dtype) {
    return std::any_of(signature.params.begin(), signature.params.end(),
                       [&](const spec::KernelParam& p) { return p.dtype && p.dtype->name == dtype; });
  };
  if (names("float16")) headers += "#include <cuda_fp16.h>\n";
  if (names("bfloat16")) headers += "#include <cuda_bf16.h>\n";
  return headers;
}

}  // namespace

std::string triton_bridge_source(const spec::KernelSignature& signature, std::string_view kernel_hash) {
  std::string declarations;
  std::string words;
  for (const spec::KernelParam& param : signature.params) {
    declarations += (declarations.empty() ? "" : ", ") + param.declaration;
    words += (words.empty() ? "" : ", ") + word_of(param);
  }
  // An empty braced array is not C++: a solve without parameters passes one unused word.
  if (words.empty()) words = "0";
  return fmt::format(
      "// kopt's bridge to a Triton kernel (docs/triton.md); kernel.py {}\n{}{}\n"
      "extern \"C\" void {}({}) {{\n"
      "  const kopt_bridge_word words[] = {{{}}};\n"
      "  kopt_bridge_forward({}, words);\n"
      "}}\n",
      kernel_hash, headers_for(signature), data_file("runtime/kopt_triton_bridge.h"), signature.entry, declarations, words,
      signature.params.size());
}

std::filesystem::path write_triton_bridge(const std::filesystem::path& cache_dir, const std::filesystem::path& kernel,
                                          const spec::KernelSignature& signature) {
  const std::string source = triton_bridge_source(signature, content_hash(read_file(kernel)));
  const std::filesystem::path path = cache_dir / "triton" / ("bridge-" + content_hash(source).substr(0, 16) + ".cu");
  if (!path_exists(path)) write_file_atomic(path, source);
  return path;
}

std::filesystem::path kernel_build_source(const std::filesystem::path& cache_dir, const spec::Problem& problem) {
  if (!spec::is_python_kernel(problem.spec.kernel)) return problem.spec.kernel;
  return write_triton_bridge(cache_dir, problem.spec.kernel, problem.signature);
}

}  // namespace kopt::build
