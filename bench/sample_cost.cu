// Where the wall time of one cold sample goes (docs/measurement.md, "Cost"). kopt's timing
// worker takes each sample as: flush L2 (read 2x its size) and wait; hold the stream with the
// blocker; event, solve, event; release; synchronize the device; read the events; run the SM
// clock probe and copy its two numbers back. This program repeats that sequence around a
// vector add of 2^25 elements (~120 us on an H200) and times each phase on the host clock,
// then times cheaper sequences that keep what a sample must have (cold L2, events that see only
// the GPU's work, the clock of that sample):
//   kopt         the sequence above (kopt up to the fifth session);
//   one_sync     the clock probe queued behind the stop event, writing to mapped host memory,
//                so the device synchronization covers it: no second synchronization, no copy;
//   no_flush_sync one_sync, and the flush not waited for on its own (the blocker queues behind it);
//   no_probe     kopt's sequence without the clock probe (what the probe costs).
// Build, from the repo root: nvcc -O3 -arch=sm_90 -o sample_cost bench/sample_cost.cu; run: ./sample_cost [samples]
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#define CHECK(call)                                                                          \
  do {                                                                                       \
    cudaError_t status_ = (call);                                                            \
    if (status_ != cudaSuccess) {                                                            \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(status_));                  \
      std::exit(1);                                                                          \
    }                                                                                        \
  } while (0)

using Clock = std::chrono::steady_clock;

// kopt's own flush, blocker and clock probe, as linked into every kernel library.
#include "../runtime/kopt_shim.cu"

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

enum class Sequence { kopt, one_sync, no_flush_sync, no_probe };

struct Phases {
  double flush = 0, timed = 0, sync = 0, events = 0, probe = 0, total = 0;
};

struct Setup {
  float *a, *b, *c;
  int n;
  void* flush_buffer;
  unsigned long long flush_bytes;
  int flush_blocks;
  volatile int* release;              // mapped host memory
  int* timed_out;                     // mapped host memory
  unsigned long long* probe_device;   // for the copy
  unsigned long long* probe_mapped;   // mapped host memory, device pointer below
  unsigned long long* probe_mapped_device;
  cudaEvent_t start, stop;
};

double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

void sample(const Setup& s, Sequence sequence, Phases& p) {
  const auto t0 = Clock::now();
  kopt_shim_read_flush(s.flush_buffer, s.flush_bytes, s.flush_blocks);
  if (sequence != Sequence::no_flush_sync) CHECK(cudaStreamSynchronize(nullptr));
  const auto t1 = Clock::now();
  *s.release = 0;
  kopt_shim_block_stream(s.release, 50'000'000ull, s.timed_out);
  CHECK(cudaEventRecord(s.start, nullptr));
  vector_add<<<(s.n + 255) / 256, 256>>>(s.a, s.b, s.c, s.n);
  CHECK(cudaEventRecord(s.stop, nullptr));
  const bool probe_in_stream = sequence == Sequence::one_sync || sequence == Sequence::no_flush_sync;
  if (probe_in_stream) kopt_shim_clock_probe(s.probe_mapped_device, 20000);
  *s.release = 1;
  const auto t2 = Clock::now();
  CHECK(cudaDeviceSynchronize());
  const auto t3 = Clock::now();
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, s.start, s.stop));
  const auto t4 = Clock::now();
  unsigned long long measured[2] = {0, 0};
  if (sequence == Sequence::kopt) {
    kopt_shim_clock_probe(s.probe_device, 20000);
    CHECK(cudaMemcpy(measured, s.probe_device, sizeof measured, cudaMemcpyDeviceToHost));
  } else if (probe_in_stream) {
    measured[0] = s.probe_mapped[0];
    measured[1] = s.probe_mapped[1];
  }
  const auto t5 = Clock::now();
  if (sequence != Sequence::no_probe && measured[1] == 0) {
    std::fprintf(stderr, "clock probe wrote nothing\n");
    std::exit(1);
  }
  p.flush += seconds(t0, t1);
  p.timed += seconds(t1, t2);
  p.sync += seconds(t2, t3);
  p.events += seconds(t3, t4);
  p.probe += seconds(t4, t5);
  p.total += seconds(t0, t5);
}

int main(int argc, char** argv) {
  const int samples = argc > 1 ? std::atoi(argv[1]) : 2000;
  Setup s{};
  s.n = 1 << 25;
  CHECK(cudaMalloc(&s.a, s.n * sizeof(float)));
  CHECK(cudaMalloc(&s.b, s.n * sizeof(float)));
  CHECK(cudaMalloc(&s.c, s.n * sizeof(float)));
  CHECK(cudaMemset(s.a, 0, s.n * sizeof(float)));
  CHECK(cudaMemset(s.b, 0, s.n * sizeof(float)));
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const size_t flush_bytes = 2 * static_cast<size_t>(prop.l2CacheSize);
  CHECK(cudaMalloc(&s.flush_buffer, flush_bytes));
  CHECK(cudaMemset(s.flush_buffer, 0, flush_bytes));
  s.flush_bytes = flush_bytes;
  s.flush_blocks = 4 * prop.multiProcessorCount;
  void* mapped = nullptr;
  CHECK(cudaHostAlloc(&mapped, 64, cudaHostAllocMapped | cudaHostAllocPortable));
  s.release = static_cast<volatile int*>(mapped);
  s.timed_out = static_cast<int*>(mapped) + 1;
  s.probe_mapped = reinterpret_cast<unsigned long long*>(static_cast<char*>(mapped) + 32);
  CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&s.probe_mapped_device), s.probe_mapped, 0));
  CHECK(cudaMalloc(&s.probe_device, 2 * sizeof(unsigned long long)));
  CHECK(cudaEventCreate(&s.start));
  CHECK(cudaEventCreate(&s.stop));

  // The flush alone, on the GPU's clock.
  cudaEvent_t f0, f1;
  CHECK(cudaEventCreate(&f0));
  CHECK(cudaEventCreate(&f1));
  float flush_ms = 0;
  for (int i = 0; i < 20; ++i) {
    CHECK(cudaEventRecord(f0, nullptr));
    kopt_shim_read_flush(s.flush_buffer, s.flush_bytes, s.flush_blocks);
    CHECK(cudaEventRecord(f1, nullptr));
    CHECK(cudaEventSynchronize(f1));
    CHECK(cudaEventElapsedTime(&flush_ms, f0, f1));
  }
  std::printf("%s, L2 %d MiB; read flush of %zu MiB: %.1f us on the GPU\n", prop.name, prop.l2CacheSize >> 20,
              flush_bytes >> 20, flush_ms * 1e3);
  std::printf("%-14s %9s %9s %9s %9s %9s %9s   (us per sample, mean of %d)\n", "sequence", "flush", "timed", "sync",
              "events", "probe", "total", samples);
  const struct { Sequence sequence; const char* name; } sequences[] = {
      {Sequence::kopt, "kopt"}, {Sequence::one_sync, "one_sync"}, {Sequence::no_flush_sync, "no_flush_sync"},
      {Sequence::no_probe, "no_probe"}, {Sequence::kopt, "kopt (again)"}};
  for (const auto& [sequence, name] : sequences) {
    Phases warm, p;
    for (int i = 0; i < 50; ++i) sample(s, sequence, warm);
    for (int i = 0; i < samples; ++i) sample(s, sequence, p);
    const double k = 1e6 / samples;
    std::printf("%-14s %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f\n", name, p.flush * k, p.timed * k, p.sync * k,
                p.events * k, p.probe * k, p.total * k);
  }
  return 0;
}
