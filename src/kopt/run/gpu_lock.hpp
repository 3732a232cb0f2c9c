#pragma once
// One GPU, one timing kopt at a time (issue 22): the host-wide lock (core/host_lock.hpp) named
// after the GPU's UUID, held while kopt times or profiles kernels on it, so that two kopt
// processes never time each other's kernels. Checks are not locked: they time nothing, and
// ctest runs them side by side.

#include <string>

#include <nlohmann/json.hpp>

#include "kopt/core/host_lock.hpp"

namespace kopt::run {

// The lock's name for a device (DeviceInfo as JSON): "gpu-<uuid>", else "gpu-<ordinal>" for a
// driver that reports none; only [A-Za-z0-9-] are kept.
std::string gpu_lock_name(const nlohmann::json& device, int ordinal);

// Holds the device's lock until the result goes; says once on standard error ("kopt: waiting
// for gpu-…: held by pid …") when another process holds it.
HostLock lock_gpu(const nlohmann::json& device, int ordinal);

}  // namespace kopt::run
