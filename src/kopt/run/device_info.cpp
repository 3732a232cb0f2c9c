#include "kopt/run/device_info.hpp"

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "kopt/core/error.hpp"

namespace kopt::run {

std::string DeviceInfo::arch() const { return fmt::format("sm_{}{}", cc_major, cc_minor); }

void to_json(nlohmann::json& out, const DeviceInfo& d) {
  out = {{"ordinal", d.ordinal},
         {"name", d.name},
         {"uuid", d.uuid},
         {"compute_capability", fmt::format("{}.{}", d.cc_major, d.cc_minor)},
         {"arch", d.arch()},
         {"sm_count", d.sm_count},
         {"l2_bytes", d.l2_bytes},
         {"global_memory_bytes", d.global_memory_bytes},
         {"shared_memory_per_block_optin_bytes", d.shared_memory_per_block_optin_bytes},
         {"sm_clock_khz", d.sm_clock_khz},
         {"memory_clock_khz", d.memory_clock_khz},
         {"memory_bus_width_bits", d.memory_bus_width_bits},
         {"driver_api_version", d.driver_api_version},
         {"runtime_version", d.runtime_version}};
}

void from_json(const nlohmann::json& in, DeviceInfo& d) {
  d.ordinal = in.at("ordinal");
  d.name = in.at("name");
  d.uuid = in.at("uuid");
  std::string cc = in.at("compute_capability");
  std::sscanf(cc.c_str(), "%d.%d", &d.cc_major, &d.cc_minor);
  d.sm_count = in.at("sm_count");
  d.l2_bytes = in.at("l2_bytes");
  d.global_memory_bytes = in.at("global_memory_bytes");
  d.shared_memory_per_block_optin_bytes = in.at("shared_memory_per_block_optin_bytes");
  d.sm_clock_khz = in.at("sm_clock_khz");
  d.memory_clock_khz = in.at("memory_clock_khz");
  d.memory_bus_width_bits = in.at("memory_bus_width_bits");
  d.driver_api_version = in.at("driver_api_version");
  d.runtime_version = in.at("runtime_version");
}

namespace {
void require(cudaError_t status, const char* call) {
  if (status != cudaSuccess)
    throw environment_error("CUDA cannot start: {} failed: {} ({})", call, cudaGetErrorString(status),
                            cudaGetErrorName(status));
}
}  // namespace

void prepare_cuda(int ordinal) {
  visible_device_count();
  require(cudaSetDevice(ordinal), "cudaSetDevice");
  require(cudaFree(nullptr), "cudaFree(0)");
  void* device = nullptr;
  void* host = nullptr;
  require(cudaMalloc(&device, 4096), "cudaMalloc");
  require(cudaHostAlloc(&host, 4096, cudaHostAllocMapped), "cudaHostAlloc");
  cudaStream_t stream = nullptr;
  cudaEvent_t event = nullptr;
  require(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  require(cudaEventCreate(&event), "cudaEventCreate");
  require(cudaMemsetAsync(device, 0, 4096, stream), "cudaMemsetAsync");
  require(cudaEventRecord(event, stream), "cudaEventRecord");
  require(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  cudaEventDestroy(event);
  cudaStreamDestroy(stream);
  cudaFreeHost(host);
  cudaFree(device);
}

int visible_device_count() {
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaErrorInsufficientDriver && ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD) == nullptr &&
      ::dlopen("libcuda.so.1", RTLD_LAZY) == nullptr) {
    throw environment_error("no usable GPU: no NVIDIA driver is installed (libcuda.so.1 cannot be loaded)");
  }
  if (status != cudaSuccess) {
    throw environment_error("no usable GPU: {} ({})", cudaGetErrorString(status), cudaGetErrorName(status));
  }
  if (count == 0) throw environment_error("no usable GPU: no CUDA device is visible");
  return count;
}

namespace {

std::int64_t attribute(cudaDeviceAttr attr, int ordinal) {
  int value = 0;
  cudaDeviceGetAttribute(&value, attr, ordinal);
  return value;
}

std::string format_uuid(const cudaUUID_t& uuid) {
  const auto* b = reinterpret_cast<const unsigned char*>(uuid.bytes);
  return fmt::format("GPU-{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
                     b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12],
                     b[13], b[14], b[15]);
}

}  // namespace

DeviceInfo query_device(int ordinal) {
  int count = visible_device_count();
  if (ordinal < 0 || ordinal >= count) {
    throw environment_error("GPU {} does not exist ({} visible)", ordinal, count);
  }
  cudaDeviceProp props{};
  if (cudaError_t status = cudaGetDeviceProperties(&props, ordinal); status != cudaSuccess) {
    throw environment_error("cannot read the properties of GPU {}: {}", ordinal, cudaGetErrorString(status));
  }
  DeviceInfo info;
  info.ordinal = ordinal;
  info.name = props.name;
  info.uuid = format_uuid(props.uuid);
  info.cc_major = props.major;
  info.cc_minor = props.minor;
  info.sm_count = props.multiProcessorCount;
  info.l2_bytes = props.l2CacheSize;
  info.global_memory_bytes = static_cast<std::int64_t>(props.totalGlobalMem);
  info.shared_memory_per_block_optin_bytes = static_cast<std::int64_t>(props.sharedMemPerBlockOptin);
  info.sm_clock_khz = attribute(cudaDevAttrClockRate, ordinal);
  info.memory_clock_khz = attribute(cudaDevAttrMemoryClockRate, ordinal);
  info.memory_bus_width_bits = static_cast<int>(attribute(cudaDevAttrGlobalMemoryBusWidth, ordinal));
  cudaDriverGetVersion(&info.driver_api_version);
  cudaRuntimeGetVersion(&info.runtime_version);
  return info;
}

}  // namespace kopt::run
