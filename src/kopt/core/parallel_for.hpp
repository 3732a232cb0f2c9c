#pragma once
// Independent pieces of CPU work side by side: the bootstrap statistics of a bench with many
// variants are the loop's largest cost of its own (docs/results.md, "Loop overhead"), and
// each piece is a pure function of its inputs, so running them at once changes no number.

#include <cstddef>
#include <functional>

namespace kopt {

// The CPUs this process may run on (its affinity mask, which a container or `taskset` narrows),
// else the hardware threads the system reports; at least 1. How wide parallel work goes.
unsigned usable_cores();

// Calls body(0), ..., body(count - 1), each exactly once, on up to `width` threads (0:
// usable_cores()), and returns when all have returned. The bodies must not depend on one
// another's order. If any throws, the others still run to completion and the exception of
// the lowest index is rethrown.
void parallel_for(std::size_t count, const std::function<void(std::size_t)>& body, unsigned width = 0);

}  // namespace kopt
