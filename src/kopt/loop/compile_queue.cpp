#include "kopt/loop/compile_queue.hpp"

#include <algorithm>
#include <stdexcept>

namespace kopt::loop {

CompileQueue::CompileQueue(std::size_t count, std::size_t width, std::function<void(std::size_t)> compile)
    : compile_(std::move(compile)), done_(count) {
  for (std::promise<void>& p : done_) ready_.push_back(p.get_future().share());
  for (std::size_t t = 0; t < std::min(std::max<std::size_t>(width, 1), count); ++t) threads_.emplace_back([this] { work(); });
}

CompileQueue::~CompileQueue() {
  stopping_ = true;
  for (std::thread& t : threads_) t.join();
}

void CompileQueue::work() {
  for (std::size_t i = next_++; i < done_.size(); i = next_++) {
    if (stopping_) {
      done_[i].set_exception(std::make_exception_ptr(std::runtime_error("compile queue stopped")));
      continue;
    }
    try {
      compile_(i);
      done_[i].set_value();
    } catch (...) {
      done_[i].set_exception(std::current_exception());
    }
  }
}

void CompileQueue::wait(std::size_t index) { ready_.at(index).get(); }

}  // namespace kopt::loop
