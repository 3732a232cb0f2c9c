#pragma once
// Compiles run ahead of the GPU: a few threads build the variants in the order they will be
// checked, and each check waits only for its own variant's build, so that nvcc works on the
// next variants while the GPU checks and times this one (docs/loop.md, "What close does").

#include <atomic>
#include <cstddef>
#include <functional>
#include <future>
#include <memory>
#include <thread>
#include <vector>

namespace kopt::loop {

class CompileQueue {
 public:
  // Starts `width` threads that call compile(0), compile(1), ... compile(count - 1), in order.
  CompileQueue(std::size_t count, std::size_t width, std::function<void(std::size_t)> compile);
  CompileQueue(const CompileQueue&) = delete;
  CompileQueue& operator=(const CompileQueue&) = delete;
  // Stops taking new work and waits for the builds under way.
  ~CompileQueue();

  // Returns when compile(index) has returned; rethrows what it threw. An index the queue does
  // not hold is std::out_of_range.
  void wait(std::size_t index);

 private:
  void work();

  std::function<void(std::size_t)> compile_;
  std::vector<std::promise<void>> done_;
  std::vector<std::shared_future<void>> ready_;
  std::atomic<std::size_t> next_ = 0;
  std::atomic<bool> stopping_ = false;
  std::vector<std::thread> threads_;
};

// A queue that builds each of `jobs` in order (compile(jobs[i]) for index i) and owns them.
// The count is taken before the jobs move into the queue's function: taken in the same call as
// the move, the order in which its arguments are evaluated is unspecified, and GCC moved the
// jobs first, leaving a queue of none whose every wait failed (hidden as build failures).
template <typename Job>
std::unique_ptr<CompileQueue> compile_queue_of(std::vector<Job> jobs, std::size_t width,
                                               std::function<void(const Job&)> compile) {
  const std::size_t count = jobs.size();
  auto owned = std::make_shared<const std::vector<Job>>(std::move(jobs));
  return std::make_unique<CompileQueue>(count, width,
                                        [owned, compile = std::move(compile)](std::size_t i) { compile(owned->at(i)); });
}

}  // namespace kopt::loop
