#pragma once
// A compiled kernel library loaded into a worker, and calls of its entry point through
// libffi: the signature is known only at run time, from the parsed source.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "kopt/spec/expression.hpp"
#include "kopt/spec/kernel_signature.hpp"

namespace kopt::run {

// One argument of a call: a device pointer, or a scalar of the parameter's dtype.
struct KernelArgument {
  void* pointer = nullptr;
  spec::Number scalar;  // used when the parameter is not a pointer
};

class KernelLibrary {
 public:
  // Loads `library` and finds `entry`; throws Error (bad input) naming what is missing.
  KernelLibrary(const std::filesystem::path& library, const spec::KernelSignature& signature);
  ~KernelLibrary();
  KernelLibrary(const KernelLibrary&) = delete;
  KernelLibrary& operator=(const KernelLibrary&) = delete;

  // Calls entry(args...) on the calling thread. Returns immediately after solve returns;
  // the work it launched may still be running.
  void call(const std::vector<KernelArgument>& args) const;

  // The library's own CUDA runtime's last error (cleared by reading), from kopt's shim:
  // launch failures that kopt's runtime cannot see. nullopt when there was none.
  std::optional<std::string> take_launch_error() const;

  // Launches kopt's clock probe (runtime/kopt_shim.cu) on the default stream: after the
  // stream is synchronized, device_out[0] holds SM cycles and device_out[1] nanoseconds.
  // False when the library has no probe.
  bool launch_clock_probe(unsigned long long* device_out, long long cycles) const;
  // Launches kopt's stream blocker (runtime/kopt_shim.cu) on the default stream: it spins
  // until *release (host-mapped memory) is non-zero or `timeout_ns` passes, then writes
  // *timed_out. False when the library has no blocker.
  bool launch_stream_blocker(const volatile int* release, unsigned long long timeout_ns, int* timed_out) const;
  // Launches kopt's L2 read flush (runtime/kopt_shim.cu) on the default stream: `blocks`
  // blocks read every byte of `buffer`. False when the library has no such flush.
  bool launch_read_flush(const void* buffer, std::size_t bytes, int blocks) const;
  // Launches kopt's device input generator (runtime/kopt_input_generator.h) on the default
  // stream: `elements` values of `element_type` drawn per `init_kind`(a, b) from the stream
  // `key`, bit for bit what the host generator writes. False when the library has none.
  bool launch_fill(void* data, std::size_t elements, int element_type, int init_kind, double a, double b,
                   std::uint64_t key, int blocks) const;
  // Launches the output digest on the default stream, adding into *device_out. False when the
  // library has none.
  bool launch_digest(const void* data, std::size_t bytes, unsigned long long* device_out, int blocks) const;

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace kopt::run
