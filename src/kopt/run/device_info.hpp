#pragma once
// What kopt knows about a GPU. Queried inside a worker process (kopt's own process never
// initializes CUDA, so a broken driver or a hung device cannot take it down).

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace kopt::run {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;                      // "NVIDIA H200"
  std::string uuid;                      // "GPU-xxxxxxxx-..."
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  std::int64_t l2_bytes = 0;
  std::int64_t global_memory_bytes = 0;
  std::int64_t shared_memory_per_block_optin_bytes = 0;
  std::int64_t sm_clock_khz = 0;         // the maximum (boost) SM clock
  std::int64_t memory_clock_khz = 0;
  int memory_bus_width_bits = 0;
  int driver_api_version = 0;            // cudaDriverGetVersion: 13000 for CUDA 13.0
  int runtime_version = 0;               // cudaRuntimeGetVersion of kopt's runtime

  std::string arch() const;              // "sm_90"
};

void to_json(nlohmann::json& out, const DeviceInfo& info);
void from_json(const nlohmann::json& in, DeviceInfo& info);

// In a worker: the number of visible devices, or an environment Error saying why there is
// none ("no CUDA-capable device is detected").
int visible_device_count();

// In a worker: properties of device `ordinal`; throws an environment Error.
DeviceInfo query_device(int ordinal);

// In a worker: initializes CUDA on `ordinal` and uses once what every job uses (device and
// mapped pinned memory, a stream, an event, a memset), so that the driver has opened what it
// needs before the worker's writes are confined (write_sandbox.hpp). Throws an environment
// Error naming the call that failed.
void prepare_cuda(int ordinal);

}  // namespace kopt::run
