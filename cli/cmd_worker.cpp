// kopt worker JOB.json RESULT.json: runs one job in this (child) process. Started by kopt
// itself; the work is worker::run_job_file_and_exit (libkopt_worker.so calls it too:
// worker_entry.cpp).
#include "command.hpp"
#include "kopt/worker/job_file.hpp"

namespace kopt::cli {

Command worker_command() {
  return {"worker", "Run one job file in this process (used by kopt itself)", [](CLI::App& app) {
            auto files = std::make_shared<worker::JobFiles>();
            app.add_option("JOB", files->job, "Job file")->required();
            app.add_option("RESULT", files->result, "Where to write the result")->required();
            app.add_option("--await-device", files->await_device,
                           "Set CUDA up on this device, then wait for the job file to appear");
            app.group("");  // internal: hidden from --help
            return [files]() -> int { worker::run_job_file_and_exit(*files); };
          }, true};
}

}  // namespace kopt::cli
