#pragma once
// Runs cuobjdump on a compiled kernel library and keeps what belongs to the kernel.

#include <filesystem>

#include "kopt/core/process.hpp"
#include "kopt/sass/sass_parser.hpp"
#include "kopt/sass/sass_profile.hpp"

namespace kopt::sass {

// $KOPT_CUOBJDUMP, then cuobjdump on PATH, $CUDA_HOME/bin, /usr/local/cuda/bin; an
// environment Error (exit 3) saying how to get it when there is none.
std::filesystem::path find_cuobjdump();

// `cuobjdump -sass LIBRARY`, parsed. An environment Error names the command and its output
// when cuobjdump fails (it needs nvdisasm beside it or on PATH).
SassDump disassemble(ProcessRunner& runner, const std::filesystem::path& cuobjdump,
                     const std::filesystem::path& library);

// The dump's profile without kopt's own functions (runtime/kopt_shim.cu is linked into every
// library kopt builds): only the kernel author's code is evidence.
SassProfile kernel_profile(const SassDump& dump);

}  // namespace kopt::sass
