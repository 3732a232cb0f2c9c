#pragma once
// Compiles run ahead of the GPU: a few threads build the variants in the order they will be
// checked, and each check waits only for its own variant's build, so that nvcc works on the
// next variants while the GPU checks and times this one (docs/loop.md, "What close does").

#include <atomic>
#include <cstddef>
#include <functional>
#include <future>
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

  // Returns when compile(index) has returned; rethrows what it threw.
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

}  // namespace kopt::loop
