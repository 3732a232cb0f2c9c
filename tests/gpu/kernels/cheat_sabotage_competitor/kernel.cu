// Planted cheat: sabotage of the competitor. In `kopt compare A B` both variants run in one
// worker process, their samples interleaved. This kernel computes its own add honestly on
// the default stream, then a host thread waits for that add to finish and launches a
// bandwidth hog on a non-blocking stream: ~3 ms of streaming reads from one block per SM.
// The hog starts as this variant's sample ends, so it lands on the other variant's next
// sample: the competitor's add shares DRAM bandwidth with it and looks slower, and this
// kernel, whose own samples stay clean, wins the comparison.
// Source: the shared-device interference that Wafer's KernelArena field guide (2026) and
// DeepReinforce's defense notes (2025) warn of for stream and thread injection, turned
// against the competitor; GPU MODE/KernelBot leaderboards run submissions one at a time for
// this reason.
// kopt: the thread it leaves running after solve returns is counted by the timing worker's
// census (run/host_agents.hpp): FLAG "solve left host threads, processes or timers running"
// naming this kernel, not its victim; the source audit names the host thread and the stream.
#include <cuda_runtime.h>

#include <condition_variable>
#include <mutex>
#include <thread>

constexpr long long kHogBytes = 1ll << 30;     // far larger than the L2: every read goes to DRAM
constexpr long long kHogCycles = 6'000'000;  // ~3 ms at ~2 GHz

__global__ void vector_add(const float* A, const float* B, float* C, int N) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += gridDim.x * blockDim.x) C[i] = A[i] + B[i];
}

__global__ void bandwidth_hog(const float4* buffer, long long count, float* sink) {
  const long long start = clock64();
  float4 sum = make_float4(0, 0, 0, 0);
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  while (clock64() - start < kHogCycles) {
    const float4 v = buffer[i];
    sum.x += v.x;
    sum.y += v.y;
    i += (long long)gridDim.x * blockDim.x;
    if (i >= count) i -= count;
  }
  if (sum.x == 12345.0f && sum.y == 54321.0f) *sink = 0;  // keeps the loads alive
}

namespace {
class Saboteur {
 public:
  Saboteur() : thread_([this] { run(); }) { thread_.detach(); }
  void after(cudaEvent_t own_work_done) {
    std::lock_guard<std::mutex> lock(mutex_);
    event_ = own_work_done;
    pending_ = true;
    changed_.notify_one();
  }

 private:
  void run() {
    cudaStream_t stream;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    float4* buffer = nullptr;
    cudaMalloc(&buffer, kHogBytes);
    cudaMemset(buffer, 0, kHogBytes);
    float* sink = nullptr;
    cudaMalloc(&sink, sizeof(float));
    int sms = 132;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    while (true) {
      cudaEvent_t event;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [this] { return pending_; });
        pending_ = false;
        event = event_;
      }
      cudaEventSynchronize(event);  // our own sample is over: the next one is the competitor's
      bandwidth_hog<<<sms, 512, 0, stream>>>(buffer, kHogBytes / sizeof(float4), sink);
    }
  }
  std::mutex mutex_;
  std::condition_variable changed_;
  cudaEvent_t event_{};
  bool pending_ = false;
  std::thread thread_;
};
}  // namespace

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  static Saboteur* saboteur = new Saboteur;
  static cudaEvent_t done = [] {
    cudaEvent_t e;
    cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
    return e;
  }();
  vector_add<<<132 * 8, 256>>>(A, B, C, N);
  cudaEventRecord(done, 0);
  saboteur->after(done);
}
