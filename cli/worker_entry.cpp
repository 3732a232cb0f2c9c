// kopt_worker_main: `kopt worker JOB RESULT` for a process that is not kopt: python3 running
// python/kopt_triton_host.py, which loads libkopt_worker.so beside torch and triton so that a
// Triton kernel's solve runs under the same worker code as a .cu kernel's (docs/triton.md).
#include "command.hpp"

#include <cstdio>

extern "C" __attribute__((visibility("default"))) int kopt_worker_main(int argc, char** argv) {
  if (argc != 4 || std::string(argv[1]) != "worker") {
    std::fprintf(stderr, "kopt: kopt_worker_main expects: worker JOB.json RESULT.json\n");
    return 2;
  }
  return kopt::cli::run_worker_files(argv[2], argv[3]);
}
