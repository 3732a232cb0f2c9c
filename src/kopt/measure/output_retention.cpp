#include "kopt/measure/output_retention.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>

#include "kopt/core/files.hpp"
#include "kopt/core/secret.hpp"
#include "kopt/run/device_buffer.hpp"
#include "kopt/verify/npy.hpp"

namespace kopt::measure {
namespace fs = std::filesystem;

fs::path kept_call_dir(std::size_t variant, std::size_t case_index, std::uint64_t seed) {
  return fmt::format("{}-{}/{:012x}", variant, case_index, seed);
}

std::size_t retention_capacity(std::size_t bytes_per_call, std::size_t free_bytes, std::size_t retaining_variants) {
  if (bytes_per_call == 0 || retaining_variants == 0) return 0;
  const std::size_t budget = std::min(kRetentionCeilingBytes, free_bytes / 4) / retaining_variants;
  return std::min(kMaxRetainedCalls, budget / bytes_per_call);
}

ReservoirChoice reservoir_choice(std::size_t offered_before, std::size_t capacity, std::uint64_t draw) {
  if (capacity == 0) return {};
  if (offered_before < capacity) return {true, offered_before};
  const std::uint64_t j = draw % (static_cast<std::uint64_t>(offered_before) + 1);
  if (j < capacity) return {true, static_cast<std::size_t>(j)};
  return {};
}

namespace {

std::size_t bytes_per_call(const run::KernelArguments& arguments) {
  std::size_t bytes = 0;
  for (const run::ArgumentData* output : arguments.outputs()) bytes += output->device->size();
  return bytes;
}

}  // namespace

// One variant's kept calls on the current case: `capacity` slots of every output's bytes.
struct OutputRetention::Store {
  // A member type, not one of the file's anonymous namespace: Store has linkage.
  struct DeviceFree {
    void operator()(void* p) const { cudaFree(p); }
  };
  std::unique_ptr<void, DeviceFree> memory;
  std::size_t capacity = 0;
  std::size_t slot_bytes = 0;
  std::size_t offered = 0;
  std::vector<std::uint64_t> seeds;  // per filled slot
  std::string note;                  // why nothing is kept, when nothing is

  std::byte* slot(std::size_t i) const { return static_cast<std::byte*>(memory.get()) + i * slot_bytes; }
};

OutputRetention::OutputRetention(const BenchJob& job) : job_(job), stores_(job.variants.size()) {}

OutputRetention::~OutputRetention() = default;

std::size_t OutputRetention::retaining_variants() const {
  if (job_.retention_dir.empty()) return 0;
  return static_cast<std::size_t>(
      std::ranges::count_if(job_.variants, [](const BenchVariant& v) { return v.retain_outputs; }));
}

void OutputRetention::start_case(std::size_t case_index, const run::KernelArguments& arguments) {
  case_index_ = case_index;
  const std::size_t retaining = retaining_variants();
  if (retaining == 0) return;  // deterministic kernels: nothing kept, nothing written
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) free_bytes = 0;
  const std::size_t per_call = bytes_per_call(arguments);
  for (std::size_t v = 0; v < job_.variants.size(); ++v) {
    stores_[v].reset();
    if (!job_.variants[v].retain_outputs) continue;
    auto store = std::make_unique<Store>();
    store->slot_bytes = per_call;
    store->capacity = retention_capacity(per_call, free_bytes, retaining);
    void* memory = nullptr;
    if (store->capacity > 0 && cudaMalloc(&memory, store->capacity * per_call) != cudaSuccess) {
      cudaGetLastError();  // not the kernel's error: nothing is kept, and the verdict says so
      store->capacity = 0;
    }
    store->memory.reset(memory);
    if (store->capacity == 0) {
      store->note = fmt::format("its outputs ({} bytes per call) do not fit in the device memory set aside for them",
                                per_call);
    }
    stores_[v] = std::move(store);
  }
}

void OutputRetention::offer(std::size_t variant, std::uint64_t seed, const run::KernelArguments& arguments) {
  Store* store = variant < stores_.size() ? stores_[variant].get() : nullptr;
  if (store == nullptr || store->capacity == 0) return;
  // Drawn now, after the call returned: the kernel could not read it while it ran.
  const ReservoirChoice choice = reservoir_choice(store->offered++, store->capacity, secret_seed());
  if (!choice.keep) return;
  std::byte* to = store->slot(choice.slot);
  for (const run::ArgumentData* output : arguments.outputs()) {
    run::check_cuda(cudaMemcpyAsync(to, output->device->data(), output->device->size(), cudaMemcpyDeviceToDevice, nullptr),
                    "cudaMemcpyAsync");
    to += output->device->size();
  }
  // Finished before the next call's inputs are made, and never inside a timed window.
  run::check_cuda(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize");
  if (choice.slot == store->seeds.size()) store->seeds.push_back(seed);
  else store->seeds[choice.slot] = seed;
}

void OutputRetention::offer_calls(std::size_t variant, const std::vector<std::uint64_t>& seeds,
                                  const std::vector<run::KernelArguments*>& sets) {
  for (std::size_t k = 0; k < seeds.size() && k < sets.size(); ++k) offer(variant, seeds[k], *sets[k]);
}

void OutputRetention::finish_case(const run::KernelArguments& arguments, std::span<VariantSamples> case_samples) {
  if (retaining_variants() == 0) return;
  for (std::size_t v = 0; v < stores_.size() && v < case_samples.size(); ++v) {
    if (!stores_[v]) continue;
    const Store& store = *stores_[v];
    for (std::size_t s = 0; s < store.seeds.size(); ++s) {
      const fs::path dir = job_.retention_dir / kept_call_dir(v, case_index_, store.seeds[s]);
      create_folders(dir);
      const std::byte* from = store.slot(s);
      for (const run::ArgumentData* output : arguments.outputs()) {
        run::Bytes host(output->device->size());
        run::check_cuda(cudaMemcpy(host.data(), from, host.size(), cudaMemcpyDeviceToHost), "cudaMemcpy");
        from += host.size();
        verify::write_npy(dir / (output->buffer->name + ".npy"), output->buffer->dtype->numpy_descr,
                          output->buffer->elements, host, Durability::scratch);
      }
    }
    case_samples[v].kept_seeds = store.seeds;
    case_samples[v].kept_note = store.note;
    stores_[v].reset();
  }
}

}  // namespace kopt::measure
