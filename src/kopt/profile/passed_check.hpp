#pragma once
// A check this process has just made of the kernel a profile is about to run: the loop's lab
// checks every variant it measures (all cases, secret seeds, same GPU), and its profile step
// would otherwise check the same library again before profiling it (issue 59; about 3 s of
// Python and torch for a .py reference, plus the kernel's worker). The profile stands on such
// a check only where it is of exactly what its own check would run (reuse_refusal): anything
// else, and every stand-alone `kopt profile` or `kopt roofline`, checks as always.

#include <optional>
#include <string>

#include "kopt/spec/problem_spec.hpp"
#include "kopt/verify/check.hpp"

namespace kopt::profile {

struct PassedCheck {
  verify::CheckReport report;    // passed, with the library it built
  verify::CheckOptions options;  // what it was asked: seeds, defines, arch, strictness
  std::string source_hash;       // content_hash of the kernel's file, read before the check ran
  std::string library_hash;      // content_hash of its library, read as it passed
  int device = 0;                // the worker's device (WorkerSettings::device) it ran on
};

// `report` kept for a later profile: its source hash read by the caller before the check ran,
// its library's read now. None when it did not pass or built no library.
std::optional<PassedCheck> passed_check_of(const verify::CheckReport& report, const verify::CheckOptions& options,
                                           std::string source_hash, int device);

// Why `checked` cannot stand for the check a profile of `problem` would make with `options` in
// `context` (one line), or "" when it can: it passed, was asked the same, on the same device
// ordinal, ran every case of `problem` as it is bound now, and the library the profile's
// own check would build from the source and headers as they are now is its library, unchanged
// since it passed. A Triton kernel's (.py) must also be the same file: its library is a bridge
// that does not hold the kernel, which its worker imports from where it lies.
std::string reuse_refusal(const PassedCheck& checked, const spec::Problem& problem, const verify::CheckOptions& options,
                          verify::CheckContext& context);

}  // namespace kopt::profile
