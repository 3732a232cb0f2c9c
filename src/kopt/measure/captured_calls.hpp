#pragma once
// Graph mode's CUDA graph: N back-to-back calls of solve, captured once and replayed per sample.

#include <cuda_runtime.h>

#include <optional>
#include <string>

#include "kopt/run/kernel_arguments.hpp"
#include "kopt/run/kernel_library.hpp"

namespace kopt::measure {

// A graph of `calls` back-to-back calls of solve, ready to replay.
class CapturedCalls {
 public:
  CapturedCalls() = default;
  ~CapturedCalls() {
    if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
  }
  CapturedCalls(const CapturedCalls&) = delete;
  CapturedCalls& operator=(const CapturedCalls&) = delete;

  // Captures on the per-thread default stream, where a library built with
  // `--default-stream per-thread` launches. Global mode, so a synchronizing solve is refused
  // rather than captured wrongly. Returns why capture failed, or nullopt.
  std::optional<std::string> capture(const run::KernelLibrary& library, const run::KernelArguments& arguments,
                                     int calls) {
    cudaGraph_t graph = nullptr;
    cudaError_t status = cudaStreamBeginCapture(cudaStreamPerThread, cudaStreamCaptureModeGlobal);
    if (status == cudaSuccess) {
      for (int i = 0; i < calls; ++i) library.call(arguments.call());
      status = cudaStreamEndCapture(cudaStreamPerThread, &graph);
    }
    std::optional<std::string> launch_error = library.take_launch_error();
    if (status == cudaSuccess && !launch_error) status = cudaGraphInstantiate(&exec_, graph, 0);
    if (graph != nullptr) cudaGraphDestroy(graph);
    cudaGetLastError();  // capture errors are not sticky; clear them for what follows
    if (status != cudaSuccess) return std::string(cudaGetErrorString(status));
    if (launch_error) return *launch_error;
    calls_ = calls;
    return std::nullopt;
  }
  cudaGraphExec_t exec() const { return exec_; }
  int calls() const { return calls_; }

 private:
  cudaGraphExec_t exec_ = nullptr;
  int calls_ = 1;
};

}  // namespace kopt::measure
