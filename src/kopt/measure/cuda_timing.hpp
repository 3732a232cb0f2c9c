#pragma once
// The CUDA pieces the timing worker is built from: events, device scratch memory, mapped host
// values that a kernel and the host share without copies, kopt's SM clock probe and stream
// blocker, the cold-mode L2 flush, and the event timer's tick. Worker side only (they need a
// CUDA context); measure/bench_job.cpp composes them into samples.

#include <cuda_runtime.h>

#include <cstddef>

#include "kopt/measure/bench_job.hpp"
#include "kopt/run/device_buffer.hpp"
#include "kopt/run/kernel_library.hpp"

namespace kopt::measure {

// ~10 µs at 2 GHz: long enough that the global timer's resolution costs < 1 %.
constexpr long long kClockProbeCycles = 20000;

// RAII for a CUDA event.
class Event {
 public:
  Event() { run::check_cuda(cudaEventCreate(&event_), "cudaEventCreate"); }
  ~Event() { cudaEventDestroy(event_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_{};
};

// Device memory without guards (the flush buffer).
class DeviceScratch {
 public:
  explicit DeviceScratch(std::size_t bytes) : bytes_(bytes) { run::check_cuda(cudaMalloc(&data_, bytes), "cudaMalloc"); }
  ~DeviceScratch() { cudaFree(data_); }
  DeviceScratch(const DeviceScratch&) = delete;
  DeviceScratch& operator=(const DeviceScratch&) = delete;
  void* data() const { return data_; }
  std::size_t size() const { return bytes_; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_;
};

// N values of T in mapped host memory, which a kernel writes and the host reads (or the
// reverse) with no copy and no synchronization of their own. Volatile: the other side changes
// them behind the compiler's back.
template <typename T, std::size_t N>
class MappedHostValues {
 public:
  MappedHostValues() {
    void* memory = nullptr;
    run::check_cuda(cudaHostAlloc(&memory, N * sizeof(T), cudaHostAllocMapped | cudaHostAllocPortable), "cudaHostAlloc");
    values_ = static_cast<T*>(memory);
  }
  ~MappedHostValues() { cudaFreeHost(values_); }
  MappedHostValues(const MappedHostValues&) = delete;
  MappedHostValues& operator=(const MappedHostValues&) = delete;

  T* data() { return values_; }
  volatile T& operator[](std::size_t i) { return static_cast<volatile T*>(values_)[i]; }
  const volatile T& operator[](std::size_t i) const { return static_cast<const volatile T*>(values_)[i]; }
  void clear() {
    for (std::size_t i = 0; i < N; ++i) (*this)[i] = T{};
  }

 private:
  T* values_ = nullptr;
};

// The SM clock probe (runtime/kopt_shim.cu), writing its two numbers to mapped host memory:
// no copy back, and no synchronization of its own when it is queued with the flush.
class ClockProbe {
 public:
  // Queues the probe on the default stream; false when the library has none.
  bool launch(const run::KernelLibrary& library, long long cycles = kClockProbeCycles) {
    measured_.clear();
    return library.launch_clock_probe(measured_.data(), cycles);
  }
  // After a synchronization that followed launch(): SM cycles per microsecond; 0 if it did not run.
  double read_mhz() const {
    const unsigned long long cycles = measured_[0], nanoseconds = measured_[1];
    return nanoseconds > 0 ? 1e3 * static_cast<double>(cycles) / static_cast<double>(nanoseconds) : 0;
  }

 private:
  MappedHostValues<unsigned long long, 2> measured_;  // [0] cycles, [1] nanoseconds
};

// The host side of kopt's stream blocker: the release flag the host sets and the timed-out
// flag the blocker writes back.
class StreamBlocker {
 public:
  // `timeout_seconds`: data/witness.toml's blocker_timeout_seconds.
  explicit StreamBlocker(double timeout_seconds) : timeout_ns_(static_cast<unsigned long long>(timeout_seconds * 1e9)) {}
  // Holds the default stream until release(); false when the library has no blocker.
  bool hold(const run::KernelLibrary& library) {
    flags_.clear();
    return library.launch_stream_blocker(flags_.data(), timeout_ns_, flags_.data() + 1);
  }
  void release() { flags_[0] = 1; }
  // After the device is synchronized: whether solve kept the host from releasing in time.
  bool timed_out() const { return flags_[1] != 0; }

 private:
  // Long enough for any solve to queue its launches; a solve that waits for the device
  // instead costs this once, in the warm-up, and is then timed without the blocker.
  unsigned long long timeout_ns_;
  MappedHostValues<int, 2> flags_;  // [0] released by the host, [1] timed out
};

// The L2 flush of cold mode: the buffer and how to use it.
struct L2Flusher {
  L2Flusher(L2Flush how, std::size_t bytes, int read_blocks) : method(how), buffer(bytes), blocks(read_blocks) {
    run::check_cuda(cudaMemset(buffer.data(), 0, buffer.size()), "cudaMemset");  // the read flush's sum stays 0
  }

  L2Flush method;
  DeviceScratch buffer;
  int blocks;  // of the read flush: enough to keep every SM's loads in flight

  // Queues the flush on the default stream; the caller waits for it.
  void launch(const run::KernelLibrary& library, int round) const {
    // A library without the shim's read flush (none built by this kopt) is flushed by writing.
    if (method != L2Flush::read || !library.launch_read_flush(buffer.data(), buffer.size(), blocks)) {
      // A different byte each time, so no layer can skip the write as a no-op.
      run::check_cuda(cudaMemsetAsync(buffer.data(), round & 0xff, buffer.size(), nullptr), "cudaMemsetAsync");
    }
  }
};

// The event timer's tick in seconds, measured with the library's clock probe (or CUDA's
// documented resolution when the library has none).
double measure_event_tick(const run::KernelLibrary& library);

}  // namespace kopt::measure
