#include "kopt/run/first_call_outputs.hpp"

#include <cuda_runtime.h>

#include <algorithm>

namespace kopt::run {

namespace {

cudaStream_t as_stream(void* stream) { return static_cast<cudaStream_t>(stream); }
cudaEvent_t as_event(void* event) { return static_cast<cudaEvent_t>(event); }

bool is_output(const ArgumentData& data) { return data.buffer != nullptr && data.buffer->is_output; }

std::size_t output_bytes(const KernelArguments& arguments) {
  std::size_t total = 0;
  for (const ArgumentData& data : arguments.data()) {
    if (is_output(data)) total += data.device->size() + 2 * GuardedDeviceBuffer::kGuardBytes;
  }
  return total;
}

}  // namespace

StagingPieces::StagingPieces() {
  cudaStream_t stream = nullptr;
  check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  stream_ = stream;
  for (std::size_t i = 0; i < host_.size(); ++i) {
    void* host = nullptr;
    check_cuda(cudaHostAlloc(&host, kPieceBytes, cudaHostAllocDefault), "cudaHostAlloc");
    host_[i] = static_cast<std::byte*>(host);
    cudaEvent_t event = nullptr;
    check_cuda(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreateWithFlags");
    downloaded_[i] = event;
  }
}

StagingPieces::~StagingPieces() {
  if (stream_ != nullptr) cudaStreamSynchronize(as_stream(stream_));
  for (std::size_t i = 0; i < host_.size(); ++i) {
    if (host_[i] != nullptr) cudaFreeHost(host_[i]);
    if (downloaded_[i] != nullptr) cudaEventDestroy(as_event(downloaded_[i]));
  }
  if (stream_ != nullptr) cudaStreamDestroy(as_stream(stream_));
}

void StagingPieces::start_piece(const std::byte* data, std::size_t bytes, std::size_t piece) {
  const std::size_t offset = piece * kPieceBytes;
  const std::size_t slot = piece % host_.size();
  check_cuda(cudaMemcpyAsync(host_[slot], data + offset, std::min(kPieceBytes, bytes - offset), cudaMemcpyDeviceToHost,
                             as_stream(stream_)),
             "cudaMemcpyAsync");
  check_cuda(cudaEventRecord(as_event(downloaded_[slot]), as_stream(stream_)), "cudaEventRecord");
}

void StagingPieces::stream(const void* data, std::size_t bytes, const ByteSink& sink) {
  const auto* device = static_cast<const std::byte*>(data);
  const std::size_t pieces = (bytes + kPieceBytes - 1) / kPieceBytes;
  if (pieces > 0) start_piece(device, bytes, 0);
  for (std::size_t piece = 0; piece < pieces; ++piece) {
    // The next piece goes into the slot whose bytes the sink has already taken.
    if (piece + 1 < pieces) start_piece(device, bytes, piece + 1);
    const std::size_t slot = piece % host_.size();
    check_cuda(cudaEventSynchronize(as_event(downloaded_[slot])), "cudaEventSynchronize");
    const std::size_t offset = piece * kPieceBytes;
    sink({host_[slot], std::min(kPieceBytes, bytes - offset)});
  }
}

FirstCallOutputs::FirstCallOutputs(const KernelArguments& arguments) : arguments_(arguments) {}

void FirstCallOutputs::allocate() {
  std::size_t free_bytes = 0, total_bytes = 0;
  check_cuda(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  if (static_cast<double>(output_bytes(arguments_)) > kDeviceCopyShare * static_cast<double>(free_bytes)) {
    allocate_host();
    return;
  }
  device_.resize(arguments_.data().size());
  try {
    for (std::size_t i = 0; i < device_.size(); ++i) {
      if (is_output(arguments_.data()[i])) device_[i].emplace(arguments_.data()[i].device->size());
    }
  } catch (const CudaFailure&) {
    // kopt's own room, not the kernel's failure: refused, the copies are kept on the host.
    device_.clear();
    cudaGetLastError();
    allocate_host();
  }
}

FirstCallOutputs::~FirstCallOutputs() {
  for (void* p : pinned_) cudaHostUnregister(p);
}

void FirstCallOutputs::allocate_host() {
  // Sized and page-locked once, before the first download (a driver that refuses leaves them
  // pageable): every seed then copies at the locked rate into pages already faulted in.
  host_.assign(arguments_.data().size(), Bytes());
  for (std::size_t i = 0; i < host_.size(); ++i) {
    if (!is_output(arguments_.data()[i])) continue;
    host_[i].resize(arguments_.data()[i].device->size());
    if (cudaHostRegister(host_[i].data(), host_[i].size(), cudaHostRegisterDefault) == cudaSuccess) {
      pinned_.push_back(host_[i].data());
    }
  }
  cudaGetLastError();  // a refused registration is not the kernel's launch error
}

void FirstCallOutputs::capture() {
  if (!allocated_) {
    allocate();
    allocated_ = true;
  }
  if (!on_device()) {
    arguments_.download_outputs_into(host_);  // the same sizes: no reallocation
    host_current_ = true;
    return;
  }
  for (std::size_t i = 0; i < device_.size(); ++i) {
    if (!device_[i]) continue;
    check_cuda(cudaMemcpy(device_[i]->data(), arguments_.data()[i].device->data(), device_[i]->size(),
                          cudaMemcpyDeviceToDevice),
               "cudaMemcpy");
  }
  host_current_ = false;
}

std::vector<const GuardedDeviceBuffer*> FirstCallOutputs::digest_buffers() const {
  std::vector<const GuardedDeviceBuffer*> buffers;
  for (std::size_t i = 0; i < arguments_.data().size(); ++i) {
    if (!is_output(arguments_.data()[i])) continue;
    buffers.push_back(on_device() ? &*device_[i] : &*arguments_.data()[i].device);
  }
  return buffers;
}

const std::vector<Bytes>& FirstCallOutputs::host() {
  if (host_current_) return host_;
  if (host_.empty()) allocate_host();
  for (std::size_t i = 0; i < device_.size(); ++i) {
    if (device_[i]) device_[i]->download(host_[i]);
  }
  host_current_ = true;
  return host_;
}

void FirstCallOutputs::stream(std::size_t index, const ByteSink& sink) {
  if (host_current_) {
    sink(host_[index]);
    return;
  }
  if (!staging_) staging_ = std::make_unique<StagingPieces>();
  staging_->stream(device_[index]->data(), device_[index]->size(), sink);
}

}  // namespace kopt::run
