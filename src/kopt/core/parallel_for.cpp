#include "kopt/core/parallel_for.hpp"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>
#include <vector>

namespace kopt {

unsigned usable_cores() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (::sched_getaffinity(0, sizeof allowed, &allowed) == 0 && CPU_COUNT(&allowed) > 0) {
    return static_cast<unsigned>(CPU_COUNT(&allowed));
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

void parallel_for(std::size_t count, const std::function<void(std::size_t)>& body, unsigned width) {
  if (width == 0) width = usable_cores();
  std::vector<std::exception_ptr> failures(count);
  std::atomic<std::size_t> next = 0;
  auto drain = [&] {
    for (std::size_t i = next++; i < count; i = next++) {
      try {
        body(i);
      } catch (...) {
        failures[i] = std::current_exception();
      }
    }
  };
  {
    // The calling thread works too: with one piece, or one core, no thread is started.
    std::vector<std::jthread> helpers;
    const std::size_t threads = std::min<std::size_t>(width, count);
    for (std::size_t t = 1; t < threads; ++t) helpers.emplace_back(drain);
    drain();
  }
  for (const std::exception_ptr& failure : failures) {
    if (failure) std::rethrow_exception(failure);
  }
}

}  // namespace kopt
