#pragma once
// The bridge library of a Triton kernel (docs/triton.md): a .cu source whose solve has the
// signature kopt parsed from kernel.py and forwards its arguments, as 64-bit words, to the
// callback python/kopt_triton_host.py registers (runtime/kopt_triton_bridge.h). The Compiler
// builds it like any kernel, with kopt's shim, so the worker's code path is the .cu one.

#include <filesystem>
#include <string>
#include <string_view>

#include "kopt/spec/kernel_signature.hpp"
#include "kopt/spec/problem_spec.hpp"

namespace kopt::build {

// The bridge's source. `kernel_hash` (of kernel.py) is written into it, so that the compile
// cache's key, and every result cached under it, changes with the Python kernel.
std::string triton_bridge_source(const spec::KernelSignature& signature, std::string_view kernel_hash);

// Writes the bridge source of `kernel` (a .py kernel with `signature`) under
// `cache_dir`/triton/ and returns its path: what kopt compiles in the kernel's stead.
std::filesystem::path write_triton_bridge(const std::filesystem::path& cache_dir, const std::filesystem::path& kernel,
                                          const spec::KernelSignature& signature);

// What kopt compiles for `problem`'s kernel: the .cu itself, or a Triton kernel's bridge.
std::filesystem::path kernel_build_source(const std::filesystem::path& cache_dir, const spec::Problem& problem);

}  // namespace kopt::build
