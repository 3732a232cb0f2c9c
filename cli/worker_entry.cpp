// kopt_worker_main: `kopt worker JOB RESULT` for a process that is not kopt: python3 running
// python/kopt_triton_host.py, which loads libkopt_worker.so beside torch and triton so that a
// Triton kernel's solve runs under the same worker code as a .cu kernel's (docs/triton.md).
#include "kopt/worker/job_file.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" __attribute__((visibility("default"))) int kopt_worker_main(int argc, char** argv) {
  // worker JOB RESULT, or worker --await-device N JOB RESULT (a worker started before its job:
  // run::PrestartedWorker).
  if (argc == 6 && std::string(argv[1]) == "worker" && std::string(argv[2]) == "--await-device") {
    kopt::worker::run_job_file_and_exit({.job = argv[4], .result = argv[5], .await_device = std::atoi(argv[3])});
  }
  if (argc != 4 || std::string(argv[1]) != "worker") {
    std::fprintf(stderr, "kopt: kopt_worker_main expects: worker [--await-device N] JOB.json RESULT.json\n");
    return 2;
  }
  kopt::worker::run_job_file_and_exit({.job = argv[2], .result = argv[3]});
}
