#pragma once
// What a configuration of an unannotated kernel's discovered parameters must satisfy to launch
// at all, known on the host from the source: each launch's threads per block (its block
// argument, expanded through the #defines, integer variables and dim3 declarations it reads)
// within the device's limit; each kernel's static shared memory (its __shared__ arrays) within
// the limit a kernel gets without the opt-in; and the kernel's own statements of what it
// assumes (static_assert, and a loop that covers [0, A) in steps of B: A % B == 0). The tuner
// adds them to its restrictions, so that nothing that cannot run is compiled or timed.
// The limits are data/tune_space.toml's [launch_limits].

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace kopt::discover {

struct LaunchLimits {
  long long max_threads_per_block = 1024;
  long long max_static_shared_bytes = 48 * 1024;
  std::map<std::string, long long, std::less<>> type_bytes;  // "float" -> 4: a __shared__ array's element
};

struct LaunchRestriction {
  std::string expression;  // over the parameters' names: "TILE_DIM * BLOCK_ROWS <= 1024"
  std::string why;         // "threads per block of the launch on line 24"
  int line = 0;
};

// data/tune_space.toml's [launch_limits].
LaunchLimits launch_limits();

// The restrictions of `source` that read only `params` (and at least one of them): a launch
// shape that depends on the problem's sizes is not the tuner's to restrict.
std::vector<LaunchRestriction> launch_restrictions(std::string_view source, const std::vector<std::string>& params,
                                                   const LaunchLimits& limits);

// The restrictions kopt optimize searches `source`'s discovered space under: over the
// parameters of its settable copy (settable_source.hpp), which is the source they read.
std::vector<LaunchRestriction> discovered_restrictions(std::string_view source, std::string_view file_name);

// kopt tune-space's listing of `restrictions` (empty when there are none).
std::string restrictions_text(const std::vector<LaunchRestriction>& restrictions);

}  // namespace kopt::discover
