#pragma once
// The inside of run/stream_watch.hpp's watch, shared by stream_watch.cpp (loading CUPTI,
// subscribing, the calls' bracket) and stream_watch_callbacks.cpp (what each API callback
// records). Internal to those two files.

#if __has_include(<cupti.h>)
#define KOPT_HAVE_CUPTI 1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>  // with the generated parameter structs of every API call
#include <fmt/format.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "kopt/run/stream_watch.hpp"

namespace kopt::run {

struct CuptiApi {
  void* library = nullptr;
  CUptiResult (*subscribe)(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*) = nullptr;
  CUptiResult (*enable_domain)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain) = nullptr;
  CUptiResult (*unsubscribe)(CUpti_SubscriberHandle) = nullptr;
  CUptiResult (*callback_state)(uint32_t*, CUpti_SubscriberHandle, CUpti_CallbackDomain, CUpti_CallbackId) = nullptr;
  CUptiResult (*result_string)(CUptiResult, const char**) = nullptr;

  std::string describe(CUptiResult result) const {
    const char* text = nullptr;
    if (result_string != nullptr && result_string(result, &text) == CUPTI_SUCCESS && text != nullptr) return text;
    return fmt::format("CUPTI error {}", static_cast<int>(result));
  }
};

// The calling thread is inside a runtime API call: the driver calls the runtime makes for it are
// the same work, already recorded.
inline thread_local int runtime_depth = 0;
// The calling thread is kopt's callback, asking CUDA about a stream: not solve's work.
inline thread_local bool inside_watch = false;

// "vector_add" for "_Z10vector_addPKfS0_Pfi" (stream_watch_callbacks.cpp).
std::string readable_kernel_name(const char* symbol);

struct StreamWatch::Impl {
  CuptiApi api;
  CUpti_SubscriberHandle subscriber{};
  std::atomic<bool> armed{false};
  std::atomic<bool> learning_context{false};
  std::uint32_t timed_context = 0;  // the contextUid of kopt's own calls
  std::mutex mutex;
  StreamLedger ledger;
  std::map<const void*, bool> order_of_streams;  // in_order's answers within the current call

  // The legacy default stream, the per-thread one and blocking streams are ordered with the
  // events kopt records on the legacy one; a stream CUDA cannot describe is assumed not to be.
  bool in_order(const void* stream) {
    if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread) return true;
    {
      // Asked once per stream and call: a solve that launches many times on its own stream pays
      // for one query (a stream destroyed and made again within a call may reuse its handle).
      const std::lock_guard lock(mutex);
      if (const auto known = order_of_streams.find(stream); known != order_of_streams.end()) return known->second;
    }
    unsigned flags = 0;
    inside_watch = true;
    const cudaError_t status = cudaStreamGetFlags(static_cast<cudaStream_t>(const_cast<void*>(stream)), &flags);
    inside_watch = false;
    if (status != cudaSuccess) cudaGetLastError();
    const bool ordered = status == cudaSuccess && (flags & cudaStreamNonBlocking) == 0;
    const std::lock_guard lock(mutex);
    order_of_streams[stream] = ordered;
    return ordered;
  }

  const void* key(const CUpti_CallbackData* call, const void* stream) const {
    // Streams of another context are outside whatever their flags say; keyed apart.
    return call->contextUid == timed_context ? stream : reinterpret_cast<const void*>(std::uintptr_t{call->contextUid} << 32);
  }

  void work(const CUpti_CallbackData* call, const void* stream, std::array<unsigned, 3> grid,
            std::array<unsigned, 3> block) {
    const bool same_context = call->contextUid == timed_context;
    const bool ordered = same_context && in_order(stream);
    const std::string name = call->symbolName != nullptr ? readable_kernel_name(call->symbolName) : call->functionName;
    const std::lock_guard lock(mutex);
    if (ordered) {
      ledger.launched_in_order({.kernel = name, .grid = grid, .block = block});
    } else {
      ledger.sent_outside(key(call, stream),
                          fmt::format("{} on {}", name, same_context ? "a non-blocking stream" : "another CUDA context"));
    }
  }
  void recorded(const CUpti_CallbackData* call, const void* event, const void* stream) {
    const bool ordered = call->contextUid == timed_context && in_order(stream);
    const std::lock_guard lock(mutex);
    ledger.recorded(event, key(call, stream), ordered);
  }
  void waited(const CUpti_CallbackData* call, const void* stream, const void* event) {
    const bool ordered = call->contextUid == timed_context && in_order(stream);
    const std::lock_guard lock(mutex);
    ledger.waited(ordered, event);
  }
  void finished_event(const void* event) {
    const std::lock_guard lock(mutex);
    ledger.event_finished(event);
  }
  void finished_stream(const CUpti_CallbackData* call, const void* stream) {
    const std::lock_guard lock(mutex);
    ledger.stream_finished(key(call, stream));
  }
  void finished_device() {
    const std::lock_guard lock(mutex);
    ledger.device_finished();
  }

  void on_runtime(CUpti_CallbackId id, const CUpti_CallbackData* call);
  void on_driver(CUpti_CallbackId id, const CUpti_CallbackData* call);
  bool on_driver_work(CUpti_CallbackId id, const CUpti_CallbackData* call);
  void on_driver_order(CUpti_CallbackId id, const CUpti_CallbackData* call);
};

}  // namespace kopt::run

#else
#define KOPT_HAVE_CUPTI 0
#endif
