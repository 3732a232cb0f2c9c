#pragma once
// What the tests of Python references need to know of this machine.

#include "kopt/core/context.hpp"
#include "kopt/core/process.hpp"

namespace kopt::verify::testing_support {

// python3 is here and imports numpy: the reference runner can run a .py reference.
inline bool has_numpy(ProcessRunner& runner) {
  if (!find_program("python3")) return false;
  return runner.run({.argv = {find_python().string(), "-c", "import numpy"}}).ok();
}

}  // namespace kopt::verify::testing_support
