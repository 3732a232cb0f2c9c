#pragma once
// The arguments of one case on both sides: host copies of the inputs, guarded device
// buffers, scalars, and the call list for KernelLibrary::call. Shared by verification and
// timing, which must run the kernel on exactly the same kind of data.

#include <cstdint>
#include <optional>
#include <vector>

#include "kopt/run/device_buffer.hpp"
#include "kopt/run/host_data.hpp"
#include "kopt/run/kernel_library.hpp"
#include "kopt/spec/problem_spec.hpp"

namespace kopt::run {

using Bytes = std::vector<std::byte>;

struct ArgumentData {
  const spec::BoundBuffer* buffer = nullptr;  // null for scalars
  ElementType type{};
  Bytes initial;                              // inputs and in-out buffers, per seed
  std::optional<GuardedDeviceBuffer> device;
};

class KernelArguments {
 public:
  // Allocates a guarded device buffer per buffer argument; throws CudaFailure.
  explicit KernelArguments(const spec::BoundCase& bound_case);

  // Fresh host inputs for `seed` (inputs and in-out buffers).
  void generate_inputs(std::uint64_t seed);
  // Lays out the inputs, fills pure outputs with `poison`, arms the guards.
  void prepare_call(unsigned char poison);
  // Fresh inputs for `seed` generated on the device by `library`'s generator (the same values
  // generate_inputs makes on the host, without the upload), pure outputs filled with `poison`,
  // guards armed; all queued on the default stream. Falls back to the host when the library
  // has no generator. The host copies (`initial`) are left as they were.
  void regenerate_on_device(const KernelLibrary& library, std::uint64_t seed, unsigned char poison, int blocks);
  // Uploads only what a call may have changed: in-out buffers (outputs keep their bytes).
  void restore_in_out();
  // Host copies of each output's device bytes (empty entries for non-outputs).
  std::vector<Bytes> download_outputs() const;
  // The same into `into`, reusing its storage (FirstCallOutputs' host copies).
  void download_outputs_into(std::vector<Bytes>& into) const;

  const std::vector<KernelArgument>& call() const { return call_; }
  std::vector<ArgumentData>& data() { return data_; }
  const std::vector<ArgumentData>& data() const { return data_; }
  // The output buffers (pure and in-out), in argument order: what a digest or a kept call is made of.
  std::vector<const ArgumentData*> outputs() const;
  const spec::BoundCase& bound_case() const { return bound_case_; }

 private:
  const spec::BoundCase& bound_case_;
  std::vector<ArgumentData> data_;
  std::vector<KernelArgument> call_;
};

}  // namespace kopt::run
