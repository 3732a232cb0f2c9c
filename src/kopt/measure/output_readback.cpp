#include "kopt/measure/output_readback.hpp"

#include <cstddef>
#include <span>

#include <cuda_runtime.h>

#include "kopt/core/error.hpp"
#include "kopt/measure/witness_file.hpp"
#include "kopt/run/host_data.hpp"
#include "kopt/verify/check_job.hpp"

namespace kopt::measure {
namespace {

ReadbackRule load_readback_rule() {
  const toml::table section = witness_section("readback");
  const double share = positive_witness_number(section, "readback", "share");
  if (share > 1) throw environment_error("data/witness.toml: [readback] share must be at most 1");
  return {.share = share,
          .most_per_case = static_cast<int>(positive_witness_count(section, "readback", "most_per_case")),
          .most_bytes_per_case = positive_witness_number(section, "readback", "most_bytes_per_case")};
}

}  // namespace

const ReadbackRule& readback_rule() {
  static const ReadbackRule rule = load_readback_rule();
  return rule;
}

OutputReadback::OutputReadback(const ReadbackRule& rule)
    : draw_(std::random_device{}()), pick_(rule.share), most_(rule.most_per_case), most_bytes_(rule.most_bytes_per_case) {}

OutputReadback::~OutputReadback() {
  if (pinned_ != nullptr) cudaFreeHost(pinned_);
}

bool OutputReadback::next(int so_far, double bytes_so_far, bool last) {
  const bool picked = pick_(draw_);  // drawn every time, so that what is drawn does not depend on the count
  return last || (picked && so_far < most_ && bytes_so_far < most_bytes_);
}

std::span<std::byte> OutputReadback::host_bytes(std::size_t size) {
  if (size == 0) return {};
  if (pinned_ != nullptr && size <= pinned_size_) return {pinned_, size};
  if (size <= pageable_.size()) return {pageable_.data(), size};
  if (pinned_ != nullptr) cudaFreeHost(pinned_);
  pinned_ = nullptr;
  pinned_size_ = 0;
  void* host = nullptr;
  if (cudaHostAlloc(&host, size, cudaHostAllocDefault) == cudaSuccess) {
    pinned_ = static_cast<std::byte*>(host);
    pinned_size_ = size;
    return {pinned_, size};
  }
  cudaGetLastError();  // refused (a locked-memory limit): not an error of the kernel's
  pageable_.resize(size);
  return {pageable_.data(), size};
}

std::vector<std::uint64_t> OutputReadback::digests(const std::vector<run::KernelArguments*>& sets) {
  std::vector<std::uint64_t> digests;
  for (const run::KernelArguments* set : sets) {
    std::vector<std::uint64_t> per_output;
    for (const run::ArgumentData* output : set->outputs()) {  // as BatchDigests takes them
      const std::span<std::byte> host = host_bytes(output->device->size());
      output->device->download(host);
      per_output.push_back(run::output_digest(host));
    }
    digests.push_back(verify::combine_output_digests(per_output));
  }
  return digests;
}

double output_bytes(const std::vector<run::KernelArguments*>& sets) {
  double bytes = 0;
  for (const run::KernelArguments* set : sets) {
    for (const run::ArgumentData* output : set->outputs()) bytes += static_cast<double>(output->device->size());
  }
  return bytes;
}

}  // namespace kopt::measure
