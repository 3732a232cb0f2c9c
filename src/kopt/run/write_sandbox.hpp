#pragma once
// The worker's write sandbox: before a kernel library is loaded, the worker confines itself
// (and every process it starts, for the rest of its life) to writing beneath its own
// folders, with Linux Landlock. A kernel then cannot rewrite kopt's caches (cached reference
// outputs, compiled libraries, passed checks), a run folder's records, or another variant's
// files (docs/integrity.md, "files kopt trusts").
//
// Reading and executing stay open (the kernel's library, CUDA's libraries); so does writing
// to device nodes (/dev: the GPU is opened read-write) and the process's own /proc entry,
// and to the folders in $KOPT_WORKER_WRITABLE (colon-separated; for a driver set-up that
// needs more). A kernel that writes elsewhere gets EACCES. Where the kernel offers them, TCP
// and abstract Unix sockets or signals across the sandbox's edge are refused too.

#include <filesystem>
#include <string>
#include <vector>

namespace kopt::run {

// The Landlock ABI version this kernel offers, 0 when it has none (too old, or disabled).
int landlock_abi();

struct WriteSandbox {
  bool confined = false;
  std::string description;  // "landlock ABI 7: writes only beneath 2 folders" or why not
};

// Confines the calling process; folders that do not exist are created first. Whether
// workers are confined at all is decided by the device probe, which tries this with CUDA
// (cli/cmd_worker.cpp), since a driver may need to write where the sandbox forbids. Without
// Landlock it returns confined = false and leaves the process as it was; a Landlock that is
// there but refuses the rules is an environment Error (exit 3).
WriteSandbox confine_writes(const std::vector<std::filesystem::path>& writable_folders);

}  // namespace kopt::run
